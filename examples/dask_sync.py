"""Bring a Parquet store of every service task's reports up to date across the worker
processes of a Dask cluster, then read the store back as one Dask DataFrame.

Each worker builds its own ``monapi.Client(..., store=STORE)`` and syncs its share of the
tasks with ``client.sync`` (the core fetches the task-days the store lacks and writes one
Parquet file per task and day; a task-day is written whole or not at all, so workers never
see each other's half-written files). The store is then read by ``dask.dataframe``, as DuckDB,
polars or pyarrow would read it (Hive partitions: ``STORE/service_report/day=YYYY-MM-DD/``).

    python examples/dask_sync.py --base-url http://127.0.0.1:8080 --store reports/ \\
        --start-date 2026-11-01 --end-date 2026-11-07

The store is a directory, or a bucket shared by workers that share no disk:
``--store s3://lake/monapi``. Its credentials, region and endpoint come from the ``AWS_*``
variables (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``,
``AWS_ENDPOINT_URL``), which monapi and s3fs (Dask's reader of ``s3://``) both read, in every
worker. Credentials of the service come from ``MONAPI_CLIENT_ID``, ``MONAPI_CLIENT_SECRET``,
``MONAPI_USERNAME`` and ``MONAPI_PASSWORD``, or are the emulator's demo account. Run it again:
only the days the store lacks are fetched.
"""

from __future__ import annotations

import argparse
import os
import sys

import dask.dataframe as dd
from dask.distributed import Client as DaskClient
from dask.distributed import LocalCluster

import monapi
from monapi.types import SyncReport

DEMO = {
    "client_id": "demo_id",
    "client_secret": "demo_secret",
    "username": "test@example.com",
    "password": "123456",
}
WORKERS = 2


def credentials() -> dict[str, str]:
    """The ``MONAPI_*`` variables, or the demo account's values."""
    return {name: os.environ.get(f"MONAPI_{name.upper()}", value) for name, value in DEMO.items()}


def connect(base_url: str, account: dict[str, str], store: str | None = None) -> monapi.Client:
    return monapi.Client(
        base_url=base_url,
        client_id=account["client_id"],
        client_secret=account["client_secret"],
        username=account["username"],
        password=account["password"],
        store=store,
    )


def sync_share(
    base_url: str,
    store: str,
    account: dict[str, str],
    task_ids: list[int],
    start: str | None,
    end: str | None,
) -> SyncReport:
    """One worker's share: its own client, its tasks' service reports into the store."""
    with connect(base_url, account, store) as client:
        report = client.sync(start, end, tasks=task_ids, kinds="service_report", errors="collect")
    return report


def shares(ids: list[int], parts: int) -> list[list[int]]:
    """``ids`` dealt out into ``parts`` lists (none empty)."""
    return [share for share in (ids[i::parts] for i in range(parts)) if share]


def summary(reports: list[SyncReport]) -> str:
    """The one line of ``client.sync`` for every worker's report together."""
    fetched, reused = sum(r["fetched"] for r in reports), sum(r["reused"] for r in reports)
    rows, size = sum(r["rows"] for r in reports), sum(r["bytes"] for r in reports)
    failed = sum(r["failed"] for r in reports)
    return (
        f"{fetched} task-days fetched, {reused} reused, {rows} rows, {size} bytes, {failed} failed"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the service (or the emulator)")
    parser.add_argument(
        "--store", required=True, help="the store: a directory or a URL (s3://bucket/prefix)"
    )
    parser.add_argument(
        "--start-date", help="YYYY-MM-DD (default: the first of the last 30 settled days)"
    )
    parser.add_argument("--end-date", help="YYYY-MM-DD (default: the last settled day)")
    args = parser.parse_args()

    account = credentials()
    with connect(args.base_url, account) as client:
        ids = [int(task["task_id"]) for task in client.iter_service_tasks()]
    print(f"{len(ids)} service tasks")

    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=WORKERS, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        DaskClient(cluster) as dask,  # type: ignore[no-untyped-call]
    ):
        futures = [
            dask.submit(
                sync_share,
                args.base_url,
                args.store,
                account,
                share,
                args.start_date,
                args.end_date,
                pure=False,
            )
            for share in shares(ids, WORKERS)
        ]
        reports: list[SyncReport] = dask.gather(futures)
        for worker, report in enumerate(reports):
            print(f"worker {worker}: {report['tasks']} tasks, {report['summary']}")
            for failure in report["failures"]:
                print(
                    f"  failed: task {failure['task_id']} from {failure['start']} "
                    f"to {failure['end']}: {failure['error']}"
                )
        print(f"synced: {summary(reports)}")

        # The whole dataset: every day the store holds, the column `day` from the directories.
        frame = dd.read_parquet(f"{args.store.rstrip('/')}/service_report")
        per_task = frame.groupby("task_id").size().compute()
        rows = int(per_task.sum())
        print(f"store: {rows} rows of {len(per_task)} tasks in {frame.npartitions} partitions")
    return 1 if any(report["failures"] for report in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
