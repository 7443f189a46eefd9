"""The local store (``store=``, ``settle=``) and ``client.sync`` in Python, against the
emulator: table calls read the settled days the store holds and fetch only the others
(counted by the emulator), syncs and their reports, failures, ``StoreError``, corrupt files,
and the dataset as DuckDB, polars, pyarrow and Dask read it."""

from __future__ import annotations

import datetime
import logging
import os
import pathlib
import pickle
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import monapi
from monapi.testing import Emulator

from helpers import (
    DEMO_PASSWORD,
    DEMO_PASSWORD_MD5,
    DEMO_SECRET,
    demo_env,
    leaks,
    monapi_binary,
    zone,
)
from store_checks import (
    KINDS,
    canonical,
    day_column,
    day_numbers,
    local_days,
    run_dask_example,
    within,
)

SERVICE = 10011
SITE = 20001


def days_ago(emulator: Emulator, n: int) -> datetime.date:
    """A day counted back from the emulator's today (in its time zone)."""
    return datetime.datetime.now(zone(emulator)).date() - datetime.timedelta(days=n)


def stored_client(emulator: Emulator, store: pathlib.Path, **options: Any) -> monapi.Client:
    """A client of the demo account with a store; days settle a second after they end."""
    return emulator.client(store=store, settle=1, timeout=10.0, **options)


def asked(emulator: Emulator, report: str = "service_report") -> int:
    """Requests of a report sent so far (``service_report`` or ``site_report``)."""
    return int(emulator.counters()[report])


def stored_file(store: pathlib.Path, kind: str, task_id: int, day: datetime.date) -> pathlib.Path:
    return store / kind / f"day={day.isoformat()}" / f"task-{task_id}.parquet"


class SyncProgressLog:
    """An ``on_progress`` callable that keeps each progress and the thread it ran on."""

    def __init__(self) -> None:
        self.seen: list[monapi.types.SyncProgress] = []
        self.threads: set[int] = set()

    def __call__(self, progress: monapi.types.SyncProgress) -> None:
        self.threads.add(threading.get_ident())
        self.seen.append(progress)


def assert_same_rows(got: Any, want: Any) -> None:
    got, want = canonical(got), canonical(want)
    assert got.num_rows == want.num_rows > 0
    assert got.column_names == want.column_names
    assert got.equals(want)


def test_a_service_table_reads_the_settled_days_the_store_holds(
    emulator: Emulator, client: monapi.Client, tmp_path: pathlib.Path
) -> None:
    first, last = days_ago(emulator, 6), days_ago(emulator, 2)
    want = client.tables.service_report(SERVICE, start_date=first, end_date=last)
    stored = stored_client(emulator, tmp_path)  # a pathlib.Path: os.PathLike is taken

    before = asked(emulator)
    cold = stored.tables.service_report(SERVICE, start_date=first, end_date=last)
    assert asked(emulator) - before == 1, "five missing days are one request"
    assert_same_rows(cold, want)
    days = [first + datetime.timedelta(days=n) for n in range(5)]
    assert all(stored_file(tmp_path, "service_report", SERVICE, day).is_file() for day in days)
    assert (tmp_path / "store.json").is_file()

    before = asked(emulator)
    warm = stored.tables.service_report(SERVICE, start_date=first, end_date=last)
    assert asked(emulator) - before == 0, "every day is held"
    assert_same_rows(warm, want)

    # A day taken out of the middle is fetched alone, and kept again.
    stored_file(tmp_path, "service_report", SERVICE, days[2]).unlink()
    before = asked(emulator)
    again = stored.tables.service_report(SERVICE, start_date=first, end_date=last)
    assert asked(emulator) - before == 1
    assert_same_rows(again, want)
    assert stored_file(tmp_path, "service_report", SERVICE, days[2]).is_file()

    # The bulk call reads through the store too; a pickled client has the store.
    copy = pickle.loads(pickle.dumps(stored))
    before = asked(emulator)
    bulk = copy.tables.service_reports([SERVICE], start_date=first, end_date=last)
    assert asked(emulator) - before == 0
    assert_same_rows(bulk, want)

    # A store keeps the days of one time zone: a client of another one is refused.
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(store=tmp_path, timezone="UTC").tables.service_report(
            SERVICE, start_date=first, end_date=first
        )
    assert caught.value.field == "store"


def test_tables_through_the_store_hold_each_name_once_and_convert_to_pandas(
    emulator: Emulator, tmp_path: pathlib.Path
) -> None:
    first, last = days_ago(emulator, 6), days_ago(emulator, 2)
    stored = stored_client(emulator, tmp_path)
    for _ in ("fetched and written", "read from the store"):
        tables = [
            stored.tables.service_report(SERVICE, start_date=first, end_date=last),
            stored.tables.service_reports([SERVICE, SERVICE + 1], start_date=first, end_date=last),
            *stored.tables.site_report(SITE, start_date=first, end_date=last),
        ]
        for table in tables:
            arrow = table.to_arrow()
            for name in arrow.column_names:
                column = arrow.column(name)
                if pa.types.is_dictionary(column.type):
                    for chunk in column.chunks:
                        names = chunk.dictionary.to_pylist()
                        assert len(names) == len(set(names)), f"{name}: a name twice"
            # pandas refuses a category that stands twice in a dictionary.
            assert len(table.to_pandas()) == arrow.num_rows


def test_today_is_fetched_every_time_and_never_written(
    emulator: Emulator, client: monapi.Client, tmp_path: pathlib.Path
) -> None:
    stored = stored_client(emulator, tmp_path)
    today, yesterday = days_ago(emulator, 0), days_ago(emulator, 1)
    for _ in range(2):
        before = asked(emulator)
        got = stored.tables.service_report(SERVICE, start_date=yesterday, end_date=today)
        assert asked(emulator) - before == 1, "today is asked for again"
        assert stored_file(tmp_path, "service_report", SERVICE, yesterday).is_file()
        assert not stored_file(tmp_path, "service_report", SERVICE, today).exists()
        want = client.tables.service_report(SERVICE, start_date=yesterday, end_date=yesterday)
        assert_same_rows(within(got, "time", yesterday, yesterday), want)
        assert within(got, "time", today, today).num_rows > 0


def test_site_tables_read_the_settled_days_the_store_holds(
    emulator: Emulator, client: monapi.Client, tmp_path: pathlib.Path
) -> None:
    first, last = days_ago(emulator, 5), days_ago(emulator, 2)
    stored = stored_client(emulator, tmp_path)
    for call, monitor in enumerate((None, 0, None)):
        want = client.tables.site_report(SITE, start_date=first, end_date=last, monitor=monitor)
        before = asked(emulator, "site_report")
        got = stored.tables.site_report(SITE, start_date=first, end_date=last, monitor=monitor)
        # The first call fetches every point of the four days; the others read them.
        assert asked(emulator, "site_report") - before == (1 if call == 0 else 0), monitor
        assert_same_rows(got.availability, want.availability)
        assert_same_rows(got.response_time, want.response_time)
        if want.faults.num_rows:
            assert_same_rows(got.faults, want.faults)
        else:
            assert got.faults.num_rows == 0
    for kind in KINDS[1:]:
        assert len(list((tmp_path / kind).glob("day=*/task-*.parquet"))) == 4, kind
    assert not (tmp_path / "service_report").exists()
    before = asked(emulator, "site_report")
    bulk = stored.tables.site_reports([SITE], start_date=first, end_date=last)
    assert asked(emulator, "site_report") - before == 0
    assert_same_rows(bulk.availability, want.availability)


def test_sync_fetches_what_is_missing_once(
    emulator: Emulator, client: monapi.Client, tmp_path: pathlib.Path
) -> None:
    first, last = days_ago(emulator, 4), days_ago(emulator, 2)
    stored = stored_client(emulator, tmp_path)
    log = SyncProgressLog()
    seen = log.seen
    before = emulator.counters()
    report = stored.sync(first, last, tasks=[SERVICE, 10014, SITE], on_progress=log)
    after = emulator.counters()
    assert after["service_report"] - before["service_report"] == 2
    assert after["site_report"] - before["site_report"] == 1
    assert report["start"] == first.isoformat() and report["end"] == last.isoformat()
    assert (report["tasks"], report["fetched"], report["reused"], report["failed"]) == (3, 9, 0, 0)
    assert report["failures"] == [] and report["set_aside"] == []
    assert report["rows"] > 0 and report["bytes"] > 0
    assert report["summary"] == (
        f"9 task-days fetched, 0 reused, {report['rows']} rows, {report['bytes']} bytes, 0 failed"
    )
    # Once before the first task, then after each.
    assert seen[0] == {
        "total": 9,
        "done": 0,
        "fetched": 0,
        "reused": 0,
        "failed": 0,
        "rows": 0,
        "bytes": 0,
    }
    assert [p["done"] for p in seen] == sorted(p["done"] for p in seen)
    assert len(seen) == 4 and seen[-1]["done"] == seen[-1]["fetched"] == 9
    assert (seen[-1]["rows"], seen[-1]["bytes"]) == (report["rows"], report["bytes"])
    # On the thread that waited for the sync, never on one of the runtime's.
    assert log.threads == {threading.get_ident()}
    days = [first + datetime.timedelta(days=n) for n in range(3)]
    for day in days:
        for task in (SERVICE, 10014):
            assert stored_file(tmp_path, "service_report", task, day).is_file()
        for kind in KINDS[1:]:
            assert stored_file(tmp_path, kind, SITE, day).is_file()

    # Nothing new: no report request at all.
    before = emulator.counters()
    again = stored.sync(first, last, tasks=[SERVICE, 10014, SITE])
    after = emulator.counters()
    assert (again["fetched"], again["reused"], again["rows"], again["bytes"]) == (0, 9, 0, 0)
    assert again["summary"] == "0 task-days fetched, 9 reused, 0 rows, 0 bytes, 0 failed"
    assert after["service_report"] == before["service_report"]
    assert after["site_report"] == before["site_report"]

    # What the sync wrote is what the table calls read, with no request: this client, a
    # second one, and a pickled one.
    want = client.tables.service_report(SERVICE, start_date=first, end_date=last)
    want_site = client.tables.site_report(SITE, start_date=first, end_date=last)
    second = stored_client(emulator, tmp_path)
    for reader in (stored, second, pickle.loads(pickle.dumps(second))):
        before = emulator.counters()
        got = reader.tables.service_report(SERVICE, start_date=first, end_date=last)
        site = reader.tables.site_report(SITE, start_date=first, end_date=last)
        after = emulator.counters()
        assert after["service_report"] == before["service_report"]
        assert after["site_report"] == before["site_report"]
        assert_same_rows(got, want)
        assert_same_rows(site.availability, want_site.availability)


def test_sync_failures_raise_or_are_collected_and_the_next_sync_fetches_them(
    emulator: Emulator, tmp_path: pathlib.Path
) -> None:
    first, last = days_ago(emulator, 4), days_ago(emulator, 2)
    tasks = [SERVICE, 10014]
    days = [first + datetime.timedelta(days=n) for n in range(3)]
    # 10014 is synced; SERVICE's report then fails for sure: a client that takes no answer as
    # large as it (the task lists, smaller, are still read). A fault armed from the progress
    # callback would race the sync, which Python's callback follows rather than leads.
    held = stored_client(emulator, tmp_path).sync(first, last, tasks=[10014])
    smaller = stored_client(
        emulator, tmp_path, max_retries=0, max_response_bytes=held["bytes"] // 4
    )

    with pytest.raises(monapi.PartialResultError) as caught:
        smaller.sync(first, last, tasks=tasks, concurrency=1)
    error = caught.value
    report = error.table
    assert (report["tasks"], report["fetched"], report["reused"], report["failed"]) == (2, 0, 3, 3)
    [failure] = report["failures"]
    failed = failure["task_id"]
    assert failed == SERVICE
    assert failure["report"] == "service_report"
    assert (failure["start"], failure["end"]) == (first.isoformat(), last.isoformat())
    assert isinstance(failure["error"], monapi.DecodeError)
    assert error.failures == [(failed, failure["error"])]
    assert str(failed) in str(error)
    assert report["summary"].endswith(", 3 failed")
    copy = pickle.loads(pickle.dumps(error))
    assert copy.table["failed"] == 3 and copy.failures[0][0] == failed
    assert not any(stored_file(tmp_path, "service_report", failed, day).exists() for day in days)
    assert all(stored_file(tmp_path, "service_report", 10014, day).is_file() for day in days)

    # errors="collect": the report comes back, the failures in it.
    collected = smaller.sync(first, last, tasks=tasks, errors="collect")
    assert (collected["fetched"], collected["reused"], collected["failed"]) == (0, 3, 3)
    assert [f["task_id"] for f in collected["failures"]] == [failed]
    assert isinstance(collected["failures"][0]["error"], monapi.DecodeError)

    # The next sync fetches the failed task's days, in one request.
    before = asked(emulator)
    done = stored_client(emulator, tmp_path).sync(first, last, tasks=tasks)
    assert asked(emulator) - before == 1
    assert (done["fetched"], done["reused"], done["failed"], done["failures"]) == (3, 3, 0, [])
    assert all(stored_file(tmp_path, "service_report", failed, day).is_file() for day in days)


async def test_the_async_client_syncs(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    first, last = days_ago(emulator, 4), days_ago(emulator, 2)
    log = SyncProgressLog()
    async with emulator.async_client(store=str(tmp_path), settle=1) as client:
        report = await client.sync(
            first.isoformat(),
            last,
            tasks=[str(SERVICE)],
            kinds=["service_report"],
            on_progress=log,
        )
        assert (report["tasks"], report["fetched"], report["reused"]) == (1, 3, 0)
        assert [p["done"] for p in log.seen] == [0, 3]
        # On the event loop's thread, never on one of the runtime's.
        assert log.threads == {threading.get_ident()}
        before = asked(emulator)
        again = await client.sync(first, last, tasks=[SERVICE], kinds="service")
        table = await client.tables.service_report(SERVICE, start_date=first, end_date=last)
        assert asked(emulator) - before == 0
        assert (again["fetched"], again["reused"]) == (0, 3)
        assert table.num_rows == report["rows"]
        with pytest.raises(monapi.ValidationError) as caught:
            await client.sync(first, last, tasks=[424242])
        assert caught.value.field == "tasks"


def test_sync_progress_runs_on_a_calling_thread_that_is_not_the_main_one(
    emulator: Emulator, tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A blocking sync called from another thread calls ``on_progress`` on that thread, every
    call before it returns; one that raises is logged at WARNING and the sync goes on."""
    first, last = days_ago(emulator, 4), days_ago(emulator, 2)
    stored = stored_client(emulator, tmp_path)

    def sync() -> tuple[int, SyncProgressLog, monapi.types.SyncReport]:
        log = SyncProgressLog()
        report = stored.sync(first, last, tasks=[SERVICE, SITE], concurrency=1, on_progress=log)
        return threading.get_ident(), log, report

    with ThreadPoolExecutor(max_workers=1) as pool:
        caller, log, report = pool.submit(sync).result()
    assert caller != threading.get_ident()
    assert log.threads == {caller}
    assert [p["done"] for p in log.seen] == [0, 3, 6]
    assert log.seen[-1]["rows"] == report["rows"] > 0

    def fails(progress: monapi.types.SyncProgress) -> None:
        raise RuntimeError(f"on_progress failed at {progress['done']}")

    with caplog.at_level(logging.WARNING, logger="monapi"):
        again = stored.sync(first, last, tasks=[SERVICE, SITE], on_progress=fails)
    assert again["reused"] == 6
    warnings = [r for r in caplog.records if r.name == "monapi" and r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "the on_progress callback raised an exception; the sync goes on"
    ] * 3
    assert [str(r.exc_info[1]) for r in warnings if r.exc_info] == [
        f"on_progress failed at {done}" for done in (0, 3, 6)
    ]


def test_sync_checks_its_arguments_before_any_report_is_asked_for(
    emulator: Emulator, client: monapi.Client, tmp_path: pathlib.Path
) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        client.sync(tasks=[SERVICE])
    assert caught.value.field == "store"
    stored = stored_client(emulator, tmp_path)
    for kinds in ("sites", ["service_report", "faults"], []):
        with pytest.raises(monapi.ValidationError) as caught:
            stored.sync(tasks=[SERVICE], kinds=kinds)  # type: ignore[arg-type]
        assert caught.value.field == "kinds", kinds
    with pytest.raises(TypeError, match="kinds"):
        stored.sync(kinds=3)  # type: ignore[arg-type]
    with pytest.raises(monapi.ValidationError) as caught:
        stored.sync(tasks=[SERVICE, 424242])
    assert caught.value.field == "tasks" and "424242" in caught.value.rule
    with pytest.raises(monapi.ValidationError) as caught:
        stored.sync(tasks=[SITE], kinds="service")  # a site task, but only service kinds
    assert caught.value.field == "tasks"
    with pytest.raises(monapi.ValidationError) as caught:
        stored.sync(tasks=[SERVICE], errors="ignore")  # type: ignore[arg-type]
    assert caught.value.field == "errors"
    for concurrency in (0, 1000):
        with pytest.raises(monapi.ValidationError) as caught:
            stored.sync(tasks=[SERVICE], concurrency=concurrency)
        assert caught.value.field == "concurrency"
    with pytest.raises(monapi.ValidationError) as caught:
        stored.sync(days_ago(emulator, 2), days_ago(emulator, 4), tasks=[SERVICE])
    with pytest.raises(TypeError, match="on_progress"):
        stored.sync(tasks=[SERVICE], on_progress="print")  # type: ignore[arg-type]
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(store=tmp_path, settle=0)
    assert caught.value.field == "settle"
    with pytest.raises(TypeError, match="store"):
        emulator.client(store=3)
    # Only days not settled yet: nothing to do.
    today = days_ago(emulator, 0)
    report = stored.sync(today, today, tasks=[SERVICE])
    assert (report["start"], report["end"], report["fetched"]) == (None, None, 0)
    assert asked(emulator) + asked(emulator, "site_report") == 0
    assert not list(tmp_path.iterdir())


def test_a_store_that_cannot_be_written_raises_store_error(
    emulator: Emulator, tmp_path: pathlib.Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = blocker / "store"
    client = stored_client(emulator, store)
    token = client.login()["access_token"]
    day = days_ago(emulator, 2)
    for call in (
        lambda: client.tables.service_report(SERVICE, start_date=day, end_date=day),
        lambda: client.sync(day, day, tasks=[SERVICE]),
    ):
        with pytest.raises(monapi.StoreError) as caught:
            call()
        error = caught.value
        assert isinstance(error, OSError) and isinstance(error, monapi.MonapiError)
        assert error.path.startswith(str(store))
        assert error.path in str(error)
        shown = f"{error} {error!r} {vars(error)!r}"
        for secret in (DEMO_SECRET, DEMO_PASSWORD, DEMO_PASSWORD_MD5, token):
            assert not leaks(secret, shown)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is monapi.StoreError
        assert (copy.path, str(copy)) == (error.path, str(error))
    assert asked(emulator) == 0, "nothing is fetched for a store that cannot be used"


def test_a_corrupt_file_is_set_aside_and_fetched_again(
    emulator: Emulator, tmp_path: pathlib.Path
) -> None:
    stored = stored_client(emulator, tmp_path)
    day = days_ago(emulator, 3)
    want = stored.tables.service_report(SERVICE, start_date=day, end_date=day)
    file = stored_file(tmp_path, "service_report", SERVICE, day)
    whole = file.read_bytes()
    corrupt = tmp_path / ".corrupt" / "service_report" / f"day={day.isoformat()}"

    # A garbled page: found when a table call reads the file.
    garbled = bytearray(whole)
    middle = len(garbled) // 3
    garbled[middle : middle + 64] = b"\xa5" * 64
    file.write_bytes(bytes(garbled))
    before = asked(emulator)
    got = stored.tables.service_report(SERVICE, start_date=day, end_date=day)
    assert asked(emulator) - before == 1, "fetched again"
    assert_same_rows(got, want)
    assert file.read_bytes() == whole, "written again whole"
    assert len(list(corrupt.iterdir())) == 1

    # A truncated file: found by a sync's check of the footer, and listed in its report.
    file.write_bytes(whole[: len(whole) // 2])
    report = stored.sync(day, day, tasks=[SERVICE], kinds="service_report")
    assert (report["fetched"], report["reused"]) == (1, 0)
    [set_aside] = report["set_aside"]
    assert pathlib.Path(set_aside).parent == corrupt and pathlib.Path(set_aside).is_file()
    assert report["summary"].endswith(", 1 corrupt files set aside")
    assert file.read_bytes() == whole
    assert len(list(corrupt.iterdir())) == 2

    # A garbled page again: a sync's listing trusts the name; a sync that verifies reads it.
    file.write_bytes(bytes(garbled))
    plain = stored.sync(day, day, tasks=[SERVICE], kinds="service_report")
    assert (plain["fetched"], plain["reused"], plain["verified"], plain["set_aside"]) == (
        0,
        1,
        0,
        [],
    )
    verified = stored.sync(day, day, tasks=[SERVICE], kinds="service_report", verify=True)
    assert (verified["fetched"], verified["reused"], verified["verified"]) == (1, 0, 1)
    assert len(verified["set_aside"]) == 1
    assert verified["summary"].endswith(", 1 files verified, 1 corrupt files set aside")
    assert file.read_bytes() == whole
    assert len(list(corrupt.iterdir())) == 3


@pytest.fixture
def synced(
    emulator: Emulator, tmp_path: pathlib.Path
) -> tuple[pathlib.Path, datetime.date, datetime.date]:
    """A store synced for two service tasks and a site task over three settled days."""
    first, last = days_ago(emulator, 4), days_ago(emulator, 2)
    stored_client(emulator, tmp_path).sync(first, last, tasks=[SERVICE, 10014, SITE])
    return tmp_path, first, last


def readers(store: pathlib.Path, kind: str) -> dict[str, Any]:
    """The dataset of ``kind`` as DuckDB, polars and pyarrow read it (Hive partitions)."""
    pattern = f"{store}/{kind}/**/*.parquet"
    with duckdb.connect() as connection:
        duck = connection.sql(
            f"SELECT * FROM read_parquet('{pattern}', hive_partitioning = true)"
        ).to_arrow_table()
    return {
        "duckdb": duck,
        "polars": pl.scan_parquet(pattern, hive_partitioning=True).collect().to_arrow(),
        "pyarrow": ds.dataset(store / kind, partitioning="hive").to_table(),
    }


def test_the_dataset_is_read_by_duckdb_polars_and_pyarrow_as_the_tables(
    client: monapi.Client, synced: tuple[pathlib.Path, datetime.date, datetime.date]
) -> None:
    store, first, last = synced
    site = client.tables.site_report(SITE, start_date=first, end_date=last)
    tables = {
        "service_report": client.tables.service_reports(
            [SERVICE, 10014], start_date=first, end_date=last
        ),
        "site_availability": site.availability,
        "site_response_time": site.response_time,
        "site_faults": site.faults,
    }
    for kind in KINDS:
        # A fault that began before the range belongs to a day the store was not asked for.
        want = within(tables[kind], day_column(kind), first, last)
        if kind == "service_report":
            assert want.num_rows == len(tables[kind])
        for reader, got in readers(store, kind).items():
            assert "day" in got.column_names, (kind, reader)
            if want.num_rows == 0:
                assert got.num_rows == 0, (kind, reader)
                continue
            assert canonical(got).equals(canonical(want)), (kind, reader)
            # `day` is the day of the row's time at +08:00 (a fault's: when it started).
            days = day_numbers(got.column("day"))
            assert local_days(got.column(day_column(kind))).equals(days), (kind, reader)


def test_the_dataset_times_are_timestamps_for_every_reader(
    synced: tuple[pathlib.Path, datetime.date, datetime.date],
) -> None:
    store, _, _ = synced
    untyped = [
        (kind, reader, name)
        for kind in KINDS
        for reader, table in readers(store, kind).items()
        for name in ("time", "start_time", "end_time")
        if name in table.column_names and not pa.types.is_timestamp(table.schema.field(name).type)
    ]
    assert untyped == []


def test_the_dask_example_syncs_as_one_process_does(tmp_path: pathlib.Path) -> None:
    with Emulator(service_tasks=6) as emulator:
        first, last = days_ago(emulator, 4), days_ago(emulator, 2)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MONAPI_")}
        store = str(tmp_path / "dask")
        done = run_dask_example(emulator.base_url, store, first, last, tmp_path, env)
        alone = stored_client(emulator, tmp_path / "alone").sync(
            first, last, kinds="service_report"
        )
    assert alone["fetched"] == 18 and alone["failed"] == 0
    assert "6 service tasks" in done.stdout
    assert f"synced: 18 task-days fetched, 0 reused, {alone['rows']} rows" in done.stdout
    query = "SELECT * FROM read_parquet('{}/service_report/**/*.parquet', hive_partitioning = true)"
    dask_rows, alone_rows = (query.format(tmp_path / name) for name in ("dask", "alone"))
    with duckdb.connect() as connection:

        def count(sql: str) -> int:
            [(rows,)] = connection.sql(f"SELECT count(*) FROM ({sql})").fetchall()
            return int(rows)

        rows = count(dask_rows)
        assert rows == count(alone_rows) == alone["rows"] > 0
        assert count(f"({dask_rows}) EXCEPT ALL ({alone_rows})") == 0
        assert count(f"({alone_rows}) EXCEPT ALL ({dask_rows})") == 0
    assert f"store: {rows} rows of 6 tasks" in done.stdout


def test_a_store_written_by_the_command_line_is_read_by_python(
    emulator: Emulator, client: monapi.Client, tmp_path: pathlib.Path
) -> None:
    first, last = days_ago(emulator, 4), days_ago(emulator, 2)
    env = demo_env(emulator)
    command = [monapi_binary(), "sync", str(tmp_path), "--task", str(SERVICE), str(SITE)]
    command += ["--from", first.isoformat(), "--to", last.isoformat()]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("monapi sync: 6 task-days fetched, 0 reused"), done.stdout
    stored = stored_client(emulator, tmp_path)
    before = asked(emulator) + asked(emulator, "site_report")
    service = stored.tables.service_report(SERVICE, start_date=first, end_date=last)
    site = stored.tables.site_report(SITE, start_date=first, end_date=last)
    assert asked(emulator) + asked(emulator, "site_report") == before, "read from the store"
    assert_same_rows(
        service, client.tables.service_report(SERVICE, start_date=first, end_date=last)
    )
    want = client.tables.site_report(SITE, start_date=first, end_date=last)
    for got_table, want_table in zip(site, want, strict=True):
        assert canonical(got_table).equals(canonical(want_table))
