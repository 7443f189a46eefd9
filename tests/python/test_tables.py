"""client.tables: the core's tables in Python, read by pandas, polars, pyarrow and DuckDB;
bulk calls with progress, partial failures and cancellation; the time zone option."""

from __future__ import annotations

import _thread
import asyncio
import datetime
import logging
import math
import pickle
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import monapi
from monapi.testing import Emulator

from helpers import DAY

# A service task and a site task of the emulator.
SERVICE_TASK = 10001
SITE_TASK = 20001

P = TypeVar("P")


class ProgressLog(Generic[P]):
    """A progress callable that keeps each progress it is handed and the thread it ran on."""

    def __init__(self) -> None:
        self.seen: list[P] = []
        self.threads: set[int] = set()

    def __call__(self, progress: P) -> None:
        self.threads.add(threading.get_ident())
        self.seen.append(progress)


def numbers(report: dict[str, list[dict[str, str]]]) -> list[float]:
    """The values of a faithful service report, parsed, in the long table's order."""
    return [
        float(value)
        for records in report.values()
        for record in records
        for field, value in record.items()
        if field != "time"
    ]


def test_service_report_as_pandas_and_polars(client: monapi.Client) -> None:
    table = client.tables.service_report(SERVICE_TASK, start_date=DAY, end_date=DAY)
    raw = client.service_report(SERVICE_TASK, start_date=DAY, end_date=DAY)
    assert table.column_names == ["task_id", "series", "time", "metric", "value"]
    assert len(table) == table.num_rows == len(numbers(raw)) > 0

    df = table.to_pandas()
    assert str(df.dtypes["task_id"]) == "int64"
    assert isinstance(df.dtypes["time"], pd.DatetimeTZDtype)
    assert df["time"].iloc[0].utcoffset() == datetime.timedelta(hours=8)
    assert df.dtypes["value"] == "float64"
    assert df["value"].tolist() == numbers(raw)
    assert set(df["task_id"]) == {SERVICE_TASK}
    first_series, records = next(iter(raw.items()))
    first = df[df["series"] == first_series].iloc[0]
    assert first["time"].date() == DAY
    assert first["time"].strftime("%H:%M") == records[0]["time"]

    pdf = table.to_polars()
    assert pdf.schema["task_id"] == pl.Int64
    assert pdf.schema["value"] == pl.Float64
    time_type = pdf.schema["time"]
    assert isinstance(time_type, pl.Datetime) and time_type.time_zone is not None
    assert pdf["value"].to_list() == numbers(raw)
    assert pdf["time"][0] == df["time"].iloc[0].to_pydatetime()


def test_readers_take_the_table_without_monapi_importing_them(client: monapi.Client) -> None:
    table = client.tables.service_report(SERVICE_TASK, start_date=DAY, end_date=DAY)
    first, second = pa.table(table), pa.table(table)
    assert first.equals(second)
    assert first.schema.field("time").type == pa.timestamp("s", tz="+08:00")
    assert first.schema.field("series").type == pa.dictionary(pa.int32(), pa.string())

    # No copy: two imports of the table point at the same buffers, the core's own.
    def address(t: pa.Table) -> int:
        buffer = t.column("value").chunks[0].buffers()[1]
        assert buffer is not None
        return int(buffer.address)

    assert address(first) == address(second)
    # polars keeps the same buffers (its to_arrow() hands them back as they are).
    assert address(pl.DataFrame(table).to_arrow()) == address(first)
    assert pa.schema(table) == first.schema


def test_duckdb_queries_a_table(client: monapi.Client) -> None:
    # Imported here: DuckDB has no wheel for musl, so the release workflow's Alpine job runs
    # the suite without it and deselects this test (-k "not duckdb").
    import duckdb

    table = client.tables.service_report(SERVICE_TASK, start_date=DAY, end_date=DAY)
    t = table  # DuckDB finds the table by its variable name
    relation = duckdb.sql("select sum(value) as total, count(*) as n from t")
    assert relation is not None
    [total] = relation.fetchall()
    assert total[1] == len(t)
    assert math.isclose(total[0], sum(pa.table(table).column("value").to_pylist()))


def test_site_report_tables(client: monapi.Client) -> None:
    site = client.tables.site_report(SITE_TASK, start_date=DAY, end_date=DAY)
    raw = client.site_report(SITE_TASK, start_date=DAY, end_date=DAY)
    availability, response_time, faults = site
    assert site.failures == []

    df = availability.to_pandas()
    assert list(df.columns) == ["task_id", "monitor_id", "monitor", "time", "uprate"]
    assert str(df.dtypes["monitor_id"]) == "int64"
    assert isinstance(df.dtypes["time"], pd.DatetimeTZDtype)
    uprates = [
        float(check["uprate"])
        for point in raw.values()
        if isinstance(point["uprate"], dict)
        for check in point["uprate"].values()
    ]
    assert df["uprate"].tolist() == uprates
    assert set(df["monitor_id"]) == {int(point_id) for point_id in raw}

    rt = response_time.to_pandas()
    assert rt.dtypes["resptime_avg"] == "float64"
    assert len(rt) == len(df)

    fdf = faults.to_pandas()
    assert list(fdf.columns)[:6] == [
        "task_id",
        "monitor_id",
        "monitor",
        "start_time",
        "end_time",
        "ongoing",
    ]
    assert str(fdf.dtypes["ongoing"]) == "bool"


def test_distribution_and_service_tasks(client: monapi.Client) -> None:
    table = client.tables.response_time_distribution(SITE_TASK, start_date=DAY, end_date=DAY)
    raw = client.response_time_distribution(SITE_TASK, start_date=DAY, end_date=DAY)
    df = table.to_pandas()
    assert str(df.dtypes["count"]) == "int64"
    assert df["percent"].tolist() == [float(b["percent"]) for b in raw.values()]
    assert df["start_ms"].tolist() == [int(b["start"]) for b in raw.values()]

    tasks = client.tables.service_tasks().to_pandas()
    assert len(tasks) == 120
    assert str(tasks.dtypes["task_id"]) == "int64"
    assert tasks["task_id"].tolist() == [int(t["task_id"]) for t in client.iter_service_tasks()]
    assert isinstance(tasks.dtypes["last_check_time"], pd.DatetimeTZDtype)


def test_repr_len_schema_and_pickle(client: monapi.Client) -> None:
    table = client.tables.response_time_distribution(SITE_TASK, start_date=DAY, end_date=DAY)
    text = repr(table)
    assert text.startswith(f"<monapi.Table: {len(table)} rows, 5 columns>")
    assert "start_ms: Int64" in text and "| task_id |" in text
    assert table.schema["percent"] == "Float64"
    copy = pickle.loads(pickle.dumps(table))
    assert pa.table(copy).equals(pa.table(table))


def test_missing_extras_name_what_to_install(
    client: monapi.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = client.tables.response_time_distribution(SITE_TASK, start_date=DAY, end_date=DAY)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install 'monapi\[pandas\]'"):
        table.to_pandas()
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ImportError, match=r"pip install 'monapi\[polars\]'"):
        table.to_polars()
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"pip install 'monapi\[arrow\]'"):
        table.to_arrow()
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match=r"pip install 'monapi\[progress\]'"):
        client.tables.service_reports([SERVICE_TASK], progress=True)


def test_timezone_option(emulator: Emulator) -> None:
    with emulator.client(timezone="UTC") as client:
        assert client.tables.timezone == "+00:00"
        table = client.tables.service_tasks()
        assert pa.table(table).schema.field("last_check_time").type == pa.timestamp(
            "s", tz="+00:00"
        )
        assert pickle.loads(pickle.dumps(client)).tables.timezone == "+00:00"
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(timezone="Asia/Shanghai")
    assert caught.value.field == "timezone"


def test_bulk_equals_the_single_calls(client: monapi.Client) -> None:
    ids = [10001, 10002, 10003]
    seen: list[monapi.types.Progress] = []
    bulk = client.tables.service_reports(
        ids, start_date=DAY, end_date=DAY, concurrency=2, progress=seen.append
    )
    singles = [client.tables.service_report(i, start_date=DAY, end_date=DAY) for i in ids]
    expected = pa.concat_tables([pa.table(t) for t in singles])
    assert pa.table(bulk).equals(expected)
    assert bulk.failures == []
    assert [p["done"] for p in seen] == [0, 1, 2, 3]
    assert {p["total"] for p in seen} == {3}
    assert seen[-1]["rows"] == len(bulk)

    site_ids = [20001, 20002]
    site = client.tables.site_reports(site_ids, start_date=DAY, end_date=DAY, monitor=0)
    alone = [
        client.tables.site_report(i, start_date=DAY, end_date=DAY, monitor=0) for i in site_ids
    ]
    for name in ("availability", "response_time", "faults"):
        expected = pa.concat_tables([pa.table(getattr(s, name)) for s in alone])
        assert pa.table(getattr(site, name)).equals(expected), name


def test_bulk_of_every_task_with_a_progress_bar() -> None:
    with Emulator(service_tasks=6) as emulator, emulator.client() as client:
        table = client.tables.service_reports(start_date=DAY, end_date=DAY, progress=True)
        assert sorted(set(pa.table(table).column("task_id").to_pylist())) == list(
            range(10001, 10007)
        )


def test_a_failed_task_raises_with_the_other_rows(client: monapi.Client) -> None:
    ids = [10001, 999, 10002]
    with pytest.raises(monapi.PartialResultError) as caught:
        client.tables.service_reports(ids, start_date=DAY, end_date=DAY)
    error = caught.value
    assert "1 of 3 tasks failed" in str(error)
    [(task_id, failure)] = error.failures
    assert task_id == 999
    assert isinstance(failure, monapi.ApiError) and failure.status_code == 404
    singles = [
        client.tables.service_report(i, start_date=DAY, end_date=DAY) for i in (10001, 10002)
    ]
    expected = pa.concat_tables([pa.table(t) for t in singles])
    assert pa.table(error.table).equals(expected)

    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, monapi.PartialResultError)
    assert pa.table(copy.table).equals(expected)
    [(task_id, failure)] = copy.failures
    assert task_id == 999
    assert isinstance(failure, monapi.ApiError) and failure.status_code == 404

    collected = client.tables.service_reports(ids, start_date=DAY, end_date=DAY, errors="collect")
    assert pa.table(collected).equals(expected)
    assert [task_id for task_id, _ in collected.failures] == [999]

    site = client.tables.site_reports([20001, 999], start_date=DAY, end_date=DAY, errors="collect")
    assert [task_id for task_id, _ in site.failures] == [999]
    assert len(site.availability) > 0


def test_bad_bulk_arguments_send_nothing(emulator: Emulator, client: monapi.Client) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        client.tables.service_reports([SERVICE_TASK], errors="ignore")  # type: ignore[arg-type]
    assert caught.value.field == "errors"
    with pytest.raises(monapi.ValidationError) as caught:
        client.tables.service_reports([SERVICE_TASK], concurrency=0)
    assert caught.value.field == "concurrency"
    with pytest.raises(monapi.ValidationError, match="from 1 to 256"):
        client.tables.service_reports([SERVICE_TASK], concurrency=1000)
    with pytest.raises(TypeError, match="progress"):
        client.tables.service_reports([SERVICE_TASK], progress="yes")  # type: ignore[arg-type]
    assert emulator.counters().get("service_report", 0) == 0


def wait_until_still(emulator: Emulator, counter: str) -> tuple[int, int]:
    """The counter now, and again after longer than a request of the emulator takes."""
    time.sleep(0.3)
    before = emulator.counters()[counter]
    time.sleep(1.5)
    return before, emulator.counters()[counter]


def test_ctrl_c_stops_a_bulk_call_and_cancels_what_is_in_flight(emulator: Emulator) -> None:
    emulator.set_latency(0.5)
    client = emulator.client()
    client.login()
    timer = threading.Timer(1.0, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # 60 tasks, 2 at a time, half a second each: 15 s unless interrupted.
            client.tables.service_reports(
                list(range(10001, 10061)), start_date=DAY, end_date=DAY, concurrency=2
            )
    finally:
        timer.cancel()
    assert time.monotonic() - started < 10
    before, after = wait_until_still(emulator, "service_report")
    assert before == after < 60


async def test_async_tables_under_gather(
    aclient: monapi.AsyncClient, client: monapi.Client
) -> None:
    tables = await asyncio.gather(
        aclient.tables.service_report(10001, start_date=DAY, end_date=DAY),
        aclient.tables.service_report(10002, start_date=DAY, end_date=DAY),
        aclient.tables.service_reports([10001, 10002], start_date=DAY, end_date=DAY),
        aclient.tables.site_report(SITE_TASK, start_date=DAY, end_date=DAY),
        aclient.tables.response_time_distribution(SITE_TASK, start_date=DAY, end_date=DAY),
        aclient.tables.service_tasks(),
    )
    first, second, bulk, site, distribution, tasks = tables
    assert pa.table(bulk).equals(pa.concat_tables([pa.table(first), pa.table(second)]))
    sync = client.tables.service_report(10001, start_date=DAY, end_date=DAY)
    assert pa.table(first).equals(pa.table(sync))
    assert len(site.availability) > 0 and len(distribution) > 0 and len(tasks) == 120
    with pytest.raises(monapi.PartialResultError):
        await aclient.tables.site_reports([SITE_TASK, 999], start_date=DAY, end_date=DAY)


async def test_cancelling_an_async_bulk_call_cancels_what_is_in_flight(
    emulator: Emulator, aclient: monapi.AsyncClient
) -> None:
    emulator.set_latency(0.5)
    await aclient.login()
    task = asyncio.create_task(
        aclient.tables.service_reports(
            list(range(10001, 10061)), start_date=DAY, end_date=DAY, concurrency=2
        )
    )
    await asyncio.sleep(1.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    before, after = await asyncio.to_thread(wait_until_still, emulator, "service_report")
    assert before == after < 60


async def test_async_bulk_progress_under_gather(aclient: monapi.AsyncClient) -> None:
    """Two bulk calls at once, each with its own progress callable: each sees every one of its
    tasks (the failed one included), in order, before its awaitable resolves."""
    service_log = ProgressLog[monapi.types.Progress]()
    site_log = ProgressLog[monapi.types.Progress]()
    service_seen, site_seen = service_log.seen, site_log.seen
    service, site = await asyncio.gather(
        aclient.tables.service_reports(
            [10001, 999, 10002],
            start_date=DAY,
            end_date=DAY,
            concurrency=2,
            progress=service_log,
            errors="collect",
        ),
        aclient.tables.site_reports(
            [20001, 20002, 20003],
            start_date=DAY,
            end_date=DAY,
            monitor=0,
            concurrency=2,
            progress=site_log,
        ),
    )
    assert [p["done"] for p in service_seen] == [0, 1, 2, 3]
    assert {p["total"] for p in service_seen} == {3}
    assert service_seen[-1]["failed"] == 1
    assert service_seen[-1]["rows"] == len(service) > 0
    assert [task_id for task_id, _ in service.failures] == [999]
    assert [p["done"] for p in site_seen] == [0, 1, 2, 3]
    assert {p["total"] for p in site_seen} == {3}
    assert site_seen[-1]["failed"] == 0
    assert len(site.availability) > 0
    # Every call ran on the event loop's thread, never on one of the runtime's.
    assert service_log.threads == site_log.threads == {threading.get_ident()}


def test_bulk_progress_runs_on_the_calling_thread(client: monapi.Client) -> None:
    """The blocking client calls ``progress`` on the thread that waits for the call, a main
    thread or another, never on one of the runtime's; every call comes before it returns."""

    def bulk_calls() -> int:
        service_log = ProgressLog[monapi.types.Progress]()
        table = client.tables.service_reports(
            [10001, 10002, 10003], start_date=DAY, end_date=DAY, concurrency=2, progress=service_log
        )
        assert [p["done"] for p in service_log.seen] == [0, 1, 2, 3]
        assert service_log.seen[-1]["rows"] == len(table) > 0
        site_log = ProgressLog[monapi.types.Progress]()
        site = client.tables.site_reports(
            [20001, 999], start_date=DAY, end_date=DAY, progress=site_log, errors="collect"
        )
        assert [p["done"] for p in site_log.seen] == [0, 1, 2]
        assert site_log.seen[-1]["failed"] == len(site.failures) == 1
        assert service_log.threads == site_log.threads == {threading.get_ident()}
        return threading.get_ident()

    main = bulk_calls()
    with ThreadPoolExecutor(max_workers=1) as pool:
        other = pool.submit(bulk_calls).result()
    assert other != main


def test_a_progress_callable_that_raises_is_logged_and_the_call_goes_on(
    client: monapi.Client, caplog: pytest.LogCaptureFixture
) -> None:
    def fails(progress: monapi.types.Progress) -> None:
        raise RuntimeError(f"progress callable failed at {progress['done']}")

    with caplog.at_level(logging.WARNING, logger="monapi"):
        table = client.tables.service_reports(
            [10001, 10002], start_date=DAY, end_date=DAY, progress=fails
        )
    assert len(table) > 0
    warnings = [r for r in caplog.records if r.name == "monapi" and r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "the progress callback raised an exception; the call goes on"
    ] * 3
    assert [str(r.exc_info[1]) for r in warnings if r.exc_info] == [
        f"progress callable failed at {done}" for done in (0, 1, 2)
    ]
