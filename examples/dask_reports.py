"""Reports of every service task, fetched across the worker processes of a Dask cluster into
one Dask DataFrame, written as Parquet.

The emulator runs as ``monapi serve`` in its own process; the monapi client is pickled to
each worker, which fetches its share of the tasks with ``client.tables.service_reports``
(a task's table is built by monapi's core in the worker, no parsing in Python).

    python examples/dask_reports.py --monapi target/release/monapi --workers 2 --out reports/

``--verify`` also fetches every report in this process and checks that the Parquet files
hold exactly the same rows (the test suite runs it so).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import pathlib
import re
import subprocess
import sys
import time
from collections.abc import Iterator

import dask.dataframe as dd
import pandas as pd
import pyarrow as pa
from dask import delayed
from dask.distributed import Client as DaskClient
from dask.distributed import LocalCluster

import monapi

DEMO = {
    "client_id": "demo_id",
    "client_secret": "demo_secret",
    "username": "test@example.com",
    "password": "123456",
}
ORDER = ["task_id", "series", "metric", "time"]


@contextlib.contextmanager
def serve(monapi_bin: str) -> Iterator[str]:
    """``monapi serve`` on a free port, in its own process; yields its base URL."""
    process = subprocess.Popen(
        [monapi_bin, "serve", "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"listening on (http://\S+)", process.stderr.readline())
            if found:
                yield found.group(1)
                return
        raise SystemExit("monapi serve did not start")
    finally:
        process.terminate()
        process.wait(timeout=30)


def fetch(client: monapi.Client, task_ids: list[int], start: str, end: str) -> pd.DataFrame:
    """One partition: the reports of some tasks, in a worker process."""
    table = client.tables.service_reports(task_ids, start_date=start, end_date=end)
    return table.to_pandas()


def chunks(ids: list[int], parts: int) -> list[list[int]]:
    size = max(1, -(-len(ids) // parts))
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def reports(client: monapi.Client, start: str, end: str, partitions: int) -> dd.DataFrame:
    """Every service task's report over ``start``..``end`` as a Dask DataFrame."""
    ids = client.tables.service_tasks().to_pandas()["task_id"].tolist()
    meta = fetch(client, [], start, end)
    parts = [delayed(fetch)(client, part, start, end) for part in chunks(ids, partitions)]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in one order, names as plain strings (categories differ between partitions)."""
    df = df.astype({"series": str, "metric": str})
    return df.sort_values(ORDER, kind="stable").reset_index(drop=True)[[*ORDER, "value"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--monapi", default="monapi", help="the monapi binary (monapi serve)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--days", type=int, default=1, help="days up to yesterday")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("reports"))
    parser.add_argument("--verify", action="store_true", help="compare with one process")
    args = parser.parse_args()

    end = datetime.date.today() - datetime.timedelta(days=1)
    start = end - datetime.timedelta(days=args.days - 1)
    with (
        serve(args.monapi) as base_url,
        monapi.Client(base_url=base_url, **DEMO) as client,
        LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True) as cluster,
        DaskClient(cluster),
    ):
        frame = reports(client, start.isoformat(), end.isoformat(), partitions=4 * args.workers)
        # Each partition has categories of its own: the files say what the names are.
        names = pa.dictionary(pa.int32(), pa.string())
        frame.to_parquet(args.out, write_index=False, schema={"series": names, "metric": names})
        written = dd.read_parquet(args.out).compute()
        tasks = written["task_id"].nunique()
        print(
            f"{len(written)} rows of {tasks} tasks in {frame.npartitions} partitions -> {args.out}"
        )
        if args.verify:
            alone = client.tables.service_reports(start_date=start, end_date=end).to_pandas()
            pd.testing.assert_frame_equal(tidy(written), tidy(alone), check_dtype=False)
            print(f"verified: the same {len(alone)} rows as one process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
