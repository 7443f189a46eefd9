"""`monapi export` against the same export written the usual way in Python.

Both write one Parquet file holding the long table of the service reports of every task of
the emulator (120 tasks) over 7 days: task_id, series, time (the record's `HH:MM` turned into
an instant of its day, +08:00), metric, value (a float; null where the text is not a number).

- monapi: `monapi export service-reports --from D1 --to D7 --format parquet -o FILE`.
- Python: requests (one session, the tasks fetched one after another, as such code usually
  is) + pandas (DataFrame per series, clock times to dates, melt, to_numeric) + `to_parquet`.

The emulator runs as `monapi serve` (release build) in its own process. The contenders take
turns, round after round; each keeps its best round. Both outputs are read back and their
sums of `value` per task, series and metric compared before any figure is printed. Run with
`make tables-bench` (it installs pandas and pyarrow from bench/requirements-tables.txt).

    python bench/python/export_bench.py --monapi target/release/monapi [--rounds 3] [--days 7]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.metadata
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]
import requests

from bench import Server

from tables_bench import tidy_pandas

ACCOUNT = {
    "MONAPI_CLIENT_ID": "demo_id",
    "MONAPI_CLIENT_SECRET": "demo_secret",
    "MONAPI_USERNAME": "test@example.com",
    "MONAPI_PASSWORD": "123456",
}


def with_monapi(monapi: str, base_url: str, start: str, end: str, out: Path, *extra: str) -> None:
    """The whole export with the command."""
    subprocess.run(
        [
            *(monapi, "export", "service-reports", "--from", start, "--to", end),
            *("--format", "parquet", "-o", str(out), "--quiet", *extra),
        ],
        env={**os.environ, **ACCOUNT, "MONAPI_BASE_URL": base_url},
        check=True,
    )


def the_usual_way(base_url: str, start: str, end: str, out: Path) -> float:
    """The whole export in Python; returns the seconds spent waiting for HTTP answers."""
    session = requests.Session()
    fetching = 0.0

    def get(path: str, **params: Any) -> Any:
        nonlocal fetching
        began = time.perf_counter()
        answer = session.get(f"{base_url}{path}", params={"access_token": token, **params})
        answer.raise_for_status()
        fetching += time.perf_counter() - began
        return answer.json()

    password = hashlib.md5(ACCOUNT["MONAPI_PASSWORD"].encode()).hexdigest()
    token = session.post(
        f"{base_url}/v2/oauth/token.json",
        data={
            "grant_type": "password",
            "username": ACCOUNT["MONAPI_USERNAME"],
            "password": password,
            "client_id": ACCOUNT["MONAPI_CLIENT_ID"],
            "client_secret": ACCOUNT["MONAPI_CLIENT_SECRET"],
        },
    ).json()["access_token"]
    tasks: list[dict[str, Any]] = []
    page = 1
    while True:
        listed = get("/v2/service/lists.json", page=page)
        tasks.extend(listed)
        if len(listed) < 50:
            break
        page += 1

    frames = []
    for task in tasks:
        report = get(f"/v2/service/report/{task['task_id']}.json", start_date=start, end_date=end)
        if any(report.values()):
            frames.append(tidy_pandas(int(task["task_id"]), report, start))
    table = pd.concat(frames, ignore_index=True)
    table["series"] = table["series"].astype("category")
    table["metric"] = table["metric"].astype("category")
    table.to_parquet(out, compression="zstd", index=False)
    return fetching


def sums(path: Path) -> Any:
    """Sum and count of `value` per task, series and metric, the rows and the time span (a
    file, or a Hive-style directory read as one dataset)."""
    table = pd.read_parquet(path)
    table["task_id"] = table["task_id"].astype("int64")
    table["series"] = table["series"].astype(str)
    table["metric"] = table["metric"].astype(str)
    grouped = table.groupby(["task_id", "series", "metric"])["value"].agg(["sum", "count"])
    return grouped, len(table), table["time"].min(), table["time"].max()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--monapi", default="target/release/monapi", help="the release binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()

    end_day = datetime.date(2026, 11, 7)
    start = (end_day - datetime.timedelta(days=args.days - 1)).isoformat()
    end = end_day.isoformat()
    served = Server(args.monapi)
    work = Path(tempfile.mkdtemp(prefix="monapi-export-bench-"))
    ours, theirs, split = work / "monapi.parquet", work / "pandas.parquet", work / "split"
    try:
        # Warm-up: the emulator generates each body once and keeps it.
        with_monapi(args.monapi, served.base_url, start, end, ours)
        the_usual_way(served.base_url, start, end, theirs)
        with_monapi(args.monapi, served.base_url, start, end, split, "--split", "task")
        theirs_sums, theirs_rows, theirs_first, theirs_last = sums(theirs)
        for output in (ours, split):
            ours_sums, ours_rows, ours_first, ours_last = sums(output)
            assert ours_rows == theirs_rows, (output, ours_rows, theirs_rows)
            assert (ours_first, ours_last) == (theirs_first, theirs_last), output
            pd.testing.assert_frame_equal(ours_sums, theirs_sums, check_exact=False, rtol=1e-12)

        best = {"monapi": float("inf"), "python": float("inf")}
        fetch_share = 0.0
        for round_ in range(args.rounds):
            order = ["monapi", "python"] if round_ % 2 == 0 else ["python", "monapi"]
            for name in order:
                began = time.perf_counter()
                if name == "monapi":
                    with_monapi(args.monapi, served.base_url, start, end, ours)
                    elapsed = time.perf_counter() - began
                else:
                    fetching = the_usual_way(served.base_url, start, end, theirs)
                    elapsed = time.perf_counter() - began
                    if elapsed < best["python"]:
                        fetch_share = fetching
                best[name] = min(best[name], elapsed)
    finally:
        served.close()

    versions = ", ".join(
        f"{name} {importlib.metadata.version(name)}" for name in ("pandas", "pyarrow", "requests")
    )
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"versions: {versions}")
    print(f"export: {ours_rows} rows, {args.days} days ({start} to {end}), best of {args.rounds}")
    print()
    print("| contender | time | ratio |")
    print("|---|---:|---:|")
    print(f"| monapi export (8 tasks at once) | {best['monapi']:.2f} s | 1.00x |")
    ratio = best["python"] / best["monapi"]
    print(
        f"| requests + pandas + to_parquet | {best['python']:.2f} s "
        f"(HTTP {fetch_share:.2f} s) | {ratio:.1f}x |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
