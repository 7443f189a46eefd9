"""The local store: 120 service tasks x 30 settled days, the emulator answering after 20 ms.

1. the bulk table call without a store; with an empty store (cold: fetched and written); with
   the store full (warm: read, no report request: the emulator's counters say so);
2. one day later: the range moved by a day over a store of the first 29 days fetches only the
   new day (a request per task);
3. `monapi sync` of the same range into an empty store: its time, CPU seconds (user + system
   of the process: fetching, building, encoding the Parquet files) and peak RSS (it writes
   task by task, never holding the range);
4. the layout: a DuckDB query over the store's file per task-day against the same rows in one
   file per day, with the bytes on disk of each.

Run with the release wheel and the release binary: `make store-bench`.

    python bench/python/store_bench.py --serve target/release/monapi --profile loopback|wan
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import duckdb
from network import PROFILES, Server

import monapi
from bench import demo_credentials

TASKS = 120
DAYS = 30
# Runs argv[1:] as its child and prints, last on stderr, the child's user and system CPU
# seconds and peak RSS in KiB (what /usr/bin/time -f "%U %S %M" says).
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_utime, usage.ru_stime, usage.ru_maxrss, file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))
"""

LATENCY_MS = 20


def reports_asked(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/_emulator/counters") as answer:
        counters: dict[str, int] = json.load(answer)
    return counters["service_report"] + counters["site_report"]


def timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def every(client: monapi.Client, dates: dict[str, str]) -> monapi.Table:
    """The service reports of every task over the dates, as one table."""
    return client.tables.service_reports(
        None, start_date=dates["start_date"], end_date=dates["end_date"]
    )


def best_query(sql: str) -> float:
    """Best seconds of three runs of a DuckDB query."""
    return min(timed(lambda: duckdb.execute(sql).fetchall())[0] for _ in range(3))


def disk_bytes(root: Path) -> tuple[int, int]:
    """Files and bytes under `root`."""
    files = [p for p in root.rglob("*.parquet") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", default="target/release/monapi", help="the monapi binary")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="loopback")
    args = parser.parse_args()

    server = Server(args.serve, args.profile, extra=["--latency-ms", str(LATENCY_MS)])
    base = server.base_url
    scratch = Path(tempfile.mkdtemp(prefix="monapi-store-bench-"))
    # The last settled day is yesterday (after 02:00 in +08:00) or the day before: end on the
    # day before yesterday, which is settled at any hour.
    today = datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=8))).date()
    end = today - datetime.timedelta(days=2)
    start = end - datetime.timedelta(days=DAYS - 1)
    dates = {"start_date": start.isoformat(), "end_date": end.isoformat()}
    print(
        f"profile {args.profile}, {TASKS} tasks x {DAYS} days ({start} to {end}), "
        f"latency {LATENCY_MS} ms"
    )

    try:
        plain = monapi.Client(**demo_credentials(base))
        stored = monapi.Client(**demo_credentials(base), store=str(scratch / "store"))
        every(plain, dates)  # warm the emulator's cache of bodies
        before = reports_asked(base)
        t_plain, table = timed(lambda: every(plain, dates))
        rows = table.num_rows
        del table
        print(
            f"no store: {t_plain:.2f} s, {rows} rows, "
            f"{reports_asked(base) - before} report requests"
        )

        before = reports_asked(base)
        t_cold, table = timed(lambda: every(stored, dates))
        assert table.num_rows == rows
        del table
        print(f"cold:     {t_cold:.2f} s, {reports_asked(base) - before} report requests")
        warm = []
        for _ in range(3):
            before = reports_asked(base)
            seconds, table = timed(lambda: every(stored, dates))
            assert table.num_rows == rows and reports_asked(base) == before
            del table
            warm.append(seconds)
        t_warm = min(warm)
        print(
            f"warm:     {t_warm:.3f} s (best of 3), 0 report requests; "
            f"{t_cold / t_warm:.0f}x faster than cold, {t_plain / t_warm:.0f}x than no store"
        )

        # One day later: a store of the first 29 days, then the range moved by one day.
        later = scratch / "later"
        day_later = monapi.Client(**demo_credentials(base), store=str(later))
        before_end = (end - datetime.timedelta(days=1)).isoformat()
        every(day_later, {"start_date": dates["start_date"], "end_date": before_end})
        moved = {
            "start_date": (start + datetime.timedelta(days=1)).isoformat(),
            "end_date": dates["end_date"],
        }
        before = reports_asked(base)
        t_next, table = timed(lambda: every(day_later, moved))
        asked = reports_asked(base) - before
        print(
            f"one day later: {t_next:.2f} s, {asked} report requests "
            "(one per task, the new day only)"
        )
        del table

        # monapi sync into an empty store: time, CPU and peak RSS of the process.
        env = dict(
            os.environ,
            MONAPI_BASE_URL=base,
            MONAPI_CLIENT_ID=monapi.testing.DEMO_CLIENT_ID,
            MONAPI_CLIENT_SECRET=monapi.testing.DEMO_CLIENT_SECRET,
            MONAPI_USERNAME=monapi.testing.DEMO_USERNAME,
            MONAPI_PASSWORD=monapi.testing.DEMO_PASSWORD,
        )
        command = [args.serve, "sync", str(scratch / "synced"), "--kinds", "service", "--quiet"]
        command += ["--from", dates["start_date"], "--to", dates["end_date"]]
        # Started by a small launcher, not from this process: the peak RSS a child reports
        # (ru_maxrss) includes what its parent held when it forked, and this one holds the
        # tables of the steps above.
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, *command],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        t_sync = time.perf_counter() - started
        user, system, peak_kib = (float(x) for x in done.stderr.split()[-3:])
        summary = done.stdout.strip()
        print(
            f"monapi sync: {t_sync:.2f} s, CPU {user + system:.2f} s (user {user:.2f}, "
            f"system {system:.2f}), peak RSS {peak_kib / 1024:.0f} MiB; {summary}"
        )

        # The layout: a file per task-day against a file per day (DuckDB rewrites the rows).
        store = scratch / "store"
        compact = scratch / "compact"
        duckdb.sql(
            f"copy (select * from read_parquet('{store}/service_report/**/*.parquet', "
            "hive_partitioning = true)) "
            f"to '{compact}' (format parquet, compression zstd, partition_by (day))"
        )
        query = (
            "select task_id, metric, avg(value) "
            "from read_parquet('{}/**/*.parquet', hive_partitioning = true) "
            "where day >= date '{}' group by all"
        )
        since = (end - datetime.timedelta(days=6)).isoformat()
        for name, root in [
            ("a file per task-day", store / "service_report"),
            ("a file per day", compact),
        ]:
            files, size = disk_bytes(root)
            best = best_query(query.format(root, since))
            whole = best_query(query.format(root, start.isoformat()))
            print(
                f"{name}: {files} files, {size / 1e6:.1f} MB; "
                f"DuckDB last 7 days {best * 1e3:.0f} ms, "
                f"all 30 days {whole * 1e3:.0f} ms (best of 3)"
            )
    finally:
        server.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
