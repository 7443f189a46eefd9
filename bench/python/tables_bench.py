"""`client.tables` against the usual ways to get a tidy DataFrame of a service report.

The subject: the 30-day report of an every-minute task of the emulator (`monapi serve`,
release, its own process) as a long table (task_id, series, time, metric, value), times
tz-aware instants, values float64.

- monapi: `client.tables.service_report(...).to_pandas()` / `.to_polars()`.
- the floor: `client.service_report(...)`, monapi's dicts of strings (no table at all).
- the usual pipelines: monapi's dicts, or httpx + orjson, then a DataFrame per series (clock
  times to dates with the day count, melt, `to_numeric`, `to_datetime`), concatenated; and
  polars built from the same records.
- peak memory: each path in a fresh process, RSS growth from just before the call to the
  peak (Linux: `/proc/self/clear_refs` resets the peak after the imports and the login).
- bulk: `client.tables.service_reports` of 120 tasks x 7 days, 8 at once, against a loop of
  single calls, the emulator answering each request 20 ms late.

Every table is checked against monapi's (rows, sum of values, first time) before a figure is
printed. Best of `--rounds` rounds, contenders alternating. Run with `make tables-bench`:

    python bench/python/tables_bench.py --monapi target/release/monapi [--rounds 3]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import platform
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]
import polars as pl  # type: ignore[import-untyped, import-not-found, unused-ignore]

import monapi
from bench import Server

TASK = 10001  # every minute (the emulator's first eight tasks are)
DAYS = 30
ZONE = datetime.timezone(datetime.timedelta(hours=8))
ACCOUNT = {
    "client_id": "demo_id",
    "client_secret": "demo_secret",
    "username": "test@example.com",
    "password": "123456",
}


def the_range(days: int) -> tuple[str, str]:
    end = datetime.date.today() - datetime.timedelta(days=1)
    return (end - datetime.timedelta(days=days - 1)).isoformat(), end.isoformat()


def tidy_pandas(task_id: int, report: dict[str, list[dict[str, str]]], start: str) -> Any:
    """The usual pandas pipeline over a report's records (a DataFrame per series: clock times
    to dates with the day count, melt, to_numeric), concatenated."""
    first_day = pd.Timestamp(start).tz_localize(ZONE)
    frames = []
    for series, records in report.items():
        if not records:
            continue
        frame = pd.DataFrame.from_records(records)
        clock = pd.to_datetime(frame.pop("time"), format="%H:%M")
        minutes = clock.dt.hour * 60 + clock.dt.minute
        day = (minutes.diff() < 0).cumsum()
        frame.insert(0, "time", first_day + pd.to_timedelta(day * 1440 + minutes, unit="min"))
        long = frame.melt(id_vars="time", var_name="metric", value_name="value")
        long["value"] = pd.to_numeric(long["value"], errors="coerce")
        long.insert(0, "series", series)
        long.insert(0, "task_id", task_id)
        frames.append(long)
    return pd.concat(frames, ignore_index=True)


def tidy_polars(task_id: int, report: dict[str, list[dict[str, str]]], start: str) -> Any:
    """The same pipeline in polars, from the same records."""
    first_day = datetime.datetime.fromisoformat(start).replace(tzinfo=ZONE)
    frames = []
    for series, records in report.items():
        if not records:
            continue
        frame = pl.DataFrame(records)
        clock = frame["time"].str.to_time("%H:%M")
        minutes = clock.dt.hour().cast(pl.Int64) * 60 + clock.dt.minute().cast(pl.Int64)
        day = (minutes.diff() < 0).fill_null(False).cast(pl.Int64).cum_sum()
        offsets = pl.duration(minutes=pl.lit(day * 1440 + minutes))
        frame = frame.drop("time").with_columns(time=pl.lit(first_day) + offsets)
        long = frame.unpivot(index="time", variable_name="metric", value_name="value")
        long = long.with_columns(
            pl.col("value").cast(pl.Float64, strict=False),
            series=pl.lit(series),
            task_id=pl.lit(task_id),
        )
        frames.append(long.select("task_id", "series", "time", "metric", "value"))
    return pl.concat(frames)


class Paths:
    """Each way to the tidy table, ready to call."""

    def __init__(self, base_url: str, days: int) -> None:
        self.base_url = base_url
        self.start, self.end = the_range(days)
        self.client = monapi.Client(
            base_url=base_url,
            client_id=ACCOUNT["client_id"],
            client_secret=ACCOUNT["client_secret"],
            username=ACCOUNT["username"],
            password=ACCOUNT["password"],
        )
        self.client.login()
        self.http = httpx.Client(timeout=60)
        self.token = self._token()

    def _token(self) -> str:
        password = hashlib.md5(ACCOUNT["password"].encode()).hexdigest()
        form = {"grant_type": "password", "username": ACCOUNT["username"], "password": password}
        form |= {k: ACCOUNT[k] for k in ("client_id", "client_secret")}
        answer = self.http.post(f"{self.base_url}/v2/oauth/token.json", data=form)
        return str(answer.json()["access_token"])

    def dates(self) -> dict[str, str]:
        return {"start_date": self.start, "end_date": self.end}

    def monapi_pandas(self) -> Any:
        return self.client.tables.service_report(TASK, **self.dates()).to_pandas()

    def monapi_polars(self) -> Any:
        return self.client.tables.service_report(TASK, **self.dates()).to_polars()

    def monapi_dicts(self) -> Any:
        return self.client.service_report(TASK, **self.dates())

    def dicts_pandas(self) -> Any:
        return tidy_pandas(TASK, self.monapi_dicts(), self.start)

    def dicts_polars(self) -> Any:
        return tidy_polars(TASK, self.monapi_dicts(), self.start)

    def httpx_orjson_pandas(self) -> Any:
        answer = self.http.get(
            f"{self.base_url}/v2/service/report/{TASK}.json",
            params={"access_token": self.token, **self.dates()},
        )
        return tidy_pandas(TASK, orjson.loads(answer.content), self.start)


LABELS = {
    "monapi_pandas": "`client.tables.service_report(...).to_pandas()`",
    "monapi_polars": "`client.tables.service_report(...).to_polars()`",
    "monapi_dicts": "`client.service_report(...)` (dicts of strings, no table)",
    "dicts_pandas": "monapi dicts + pandas (DataFrame, melt, to_numeric, to_datetime)",
    "httpx_orjson_pandas": "httpx + orjson + the same pandas",
    "dicts_polars": "monapi dicts + polars (DataFrame, unpivot, casts)",
}


def check(name: str, table: Any, reference: Any) -> None:
    """`table` holds the reference's rows: count, sum of values, first instant."""
    if name == "monapi_dicts":
        return
    frame = table.to_pandas() if isinstance(table, pl.DataFrame) else table
    assert len(frame) == len(reference), (name, len(frame), len(reference))
    assert math.isclose(frame["value"].sum(), reference["value"].sum(), rel_tol=1e-9), name
    assert frame["time"].min() == reference["time"].min(), name


def rss_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def one(base_url: str, name: str, days: int) -> None:
    """A path in this fresh process: prints seconds and RSS growth (MiB) as JSON."""
    paths = Paths(base_url, days)
    call: Callable[[], Any] = getattr(paths, name)
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")  # the peak (VmHWM) starts again from the current RSS
    before = rss_kib("VmRSS")
    began = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - began
    growth = (rss_kib("VmHWM") - before) / 1024
    print(json.dumps({"seconds": seconds, "rss_growth_mib": growth, "rows": len(result)}))


def configure(base_url: str, **config: Any) -> None:
    request = urllib.request.Request(
        f"{base_url}/_emulator/config",
        data=json.dumps(config).encode(),
        headers={"Content-Type": "application/json"},
        method="PUT",
    )
    urllib.request.urlopen(request).read()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--monapi", default="target/release/monapi", help="the release binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--days", type=int, default=DAYS)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.base_url, args.one, args.days)
        return 0

    print(f"CPython {platform.python_version()}, pandas {pd.__version__}, polars {pl.__version__}")
    server = Server(args.monapi)
    try:
        paths = Paths(server.base_url, args.days)
        reference = paths.monapi_pandas()
        print(f"task {TASK}, {paths.start}..{paths.end}: {len(reference)} rows")
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for name in LABELS:
                began = time.perf_counter()
                result = getattr(paths, name)()
                seconds = time.perf_counter() - began
                check(name, result, reference)
                del result
                best[name] = min(best.get(name, math.inf), seconds)
        print("\n| path | best time | / monapi to_pandas |\n|---|---:|---:|")
        for name, label in LABELS.items():
            print(f"| {label} | {best[name]:.3f} s | {best[name] / best['monapi_pandas']:.2f}x |")

        print("\n| path (fresh process) | RSS growth | / usual pandas |\n|---|---:|---:|")
        memory: dict[str, float] = {}
        for name in ("monapi_pandas", "monapi_polars", "dicts_pandas", "dicts_polars"):
            command = [sys.executable, __file__, "--one", name, "--base-url", server.base_url]
            done = subprocess.run(
                [*command, "--days", str(args.days)], check=True, capture_output=True, text=True
            )
            memory[name] = json.loads(done.stdout)["rss_growth_mib"]
        for name, growth in memory.items():
            print(f"| {LABELS[name]} | {growth:.0f} MiB | {growth / memory['dicts_pandas']:.2f}x |")

        tasks = paths.client.tables.service_tasks().to_pandas()["task_id"].tolist()
        start, end = the_range(7)
        configure(server.base_url, latency_ms=20)
        bulk_best = loop_best = math.inf
        for _ in range(args.rounds):
            began = time.perf_counter()
            bulk = paths.client.tables.service_reports(
                tasks, start_date=start, end_date=end, concurrency=8
            )
            bulk_best = min(bulk_best, time.perf_counter() - began)
            began = time.perf_counter()
            rows = sum(
                len(paths.client.tables.service_report(t, start_date=start, end_date=end))
                for t in tasks
            )
            loop_best = min(loop_best, time.perf_counter() - began)
            assert rows == len(bulk), (rows, len(bulk))
        print(f"\nbulk: {len(tasks)} tasks x 7 days, {len(bulk)} rows, 20 ms latency")
        print("| contender | best time | ratio |\n|---|---:|---:|")
        print(f"| `service_reports(..., concurrency=8)` | {bulk_best:.2f} s | 1.00x |")
        print(f"| loop of `service_report` | {loop_best:.2f} s | {loop_best / bulk_best:.2f}x |")
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
