"""The local store read by every engine: DuckDB, polars, pandas, pyarrow's dataset, Spark
(pyspark in local mode, on Debian's Java 17: make java) and Dask (``dask.dataframe.read_parquet``),
each read giving the rows and the sums of ``monapi export`` of the same tasks and days; and
examples/spark_store.py. One JVM for
the module: the example's session is made in it too."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import os
import pathlib
import queue
import re
import runpy
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import dask.dataframe as dd
import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from pyspark import SparkContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, LongType, TimestampType

from monapi.testing import Emulator

from helpers import demo_env, zone
from store_checks import (
    KINDS,
    MEASURES,
    Totals,
    amount,
    assert_read_as_exported,
    assert_same_totals,
    day_column,
    exported_kinds,
    local_days,
    totals,
)

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SERVICES = (10011, 10014)
SITES = (20001, 20002)
EPOCH = datetime.date(1970, 1, 1)
# The environment of Spark's JVMs (its launcher's and the driver's) in the suite: on loopback
# only, and made for a short life, with the client compiler only and the serial collector (a
# third less wall time than the defaults).
SPARK_ENVIRONMENT = {
    "SPARK_LOCAL_IP": "127.0.0.1",
    "JAVA_TOOL_OPTIONS": " ".join(
        [os.environ.get("JAVA_TOOL_OPTIONS", ""), "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"]
    ).strip(),
}
# Spark's JVM is given this long to start (it takes seconds); then the module fails.
SPARK_START_SECONDS = 180
pytestmark = [
    # pyspark 4.3 warns that pandas 3 is newer than it knows: no read here goes through pandas.
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    # dask 2026.8's Parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates.
    pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index"),
]


@dataclasses.dataclass(frozen=True)
class Synced:
    """A store synced from the emulator, and ``monapi export`` of the same tasks and days."""

    store: pathlib.Path
    exported: dict[str, Any]


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Synced:
    """Two service tasks and two site tasks over three settled days, in the stressed world
    (faults in every site report: no kind is empty)."""
    directory = tmp_path_factory.mktemp("engines")
    store = directory / "store"
    with Emulator(world="stressed") as emulator:
        today = datetime.datetime.now(zone(emulator)).date()
        first, last = today - datetime.timedelta(days=4), today - datetime.timedelta(days=2)
        client = emulator.client(store=store, settle=1, timeout=10.0)
        report = client.sync(first, last, tasks=[*SERVICES, *SITES])
        assert (report["fetched"], report["failed"]) == (12, 0)
        env = demo_env(emulator)
        references = exported_kinds(env, SERVICES, SITES, first, last, directory)
    for kind, table in references.items():
        assert table.num_rows > 0, kind
    return Synced(store, references)


def spark_session() -> SparkSession:
    """A small local session: one core, one shuffle partition, no UI, on loopback only, times
    in UTC."""
    return (
        SparkSession.builder.master("local[1]")
        .appName("monapi-suite")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )


@pytest.fixture(scope="module")
def spark_jvm() -> Iterator[None]:
    """Spark's JVM, one for the module: launched by its first session within
    SPARK_START_SECONDS (on a thread of its own, as pyspark waits for its JVM without a limit),
    and ended with the module. Every session of the module is made in it, in a second or two
    (a JVM of its own takes ten)."""
    started: queue.Queue[SparkSession | BaseException] = queue.Queue()

    def start() -> None:
        try:
            started.put(spark_session())
        except BaseException as error:  # handed to the fixture, which raises it
            started.put(error)

    with pytest.MonkeyPatch.context() as patch:
        for name, value in SPARK_ENVIRONMENT.items():
            patch.setenv(name, value)
        threading.Thread(target=start, name="spark-start", daemon=True).start()
        try:
            outcome = started.get(timeout=SPARK_START_SECONDS)
        except queue.Empty:
            pytest.fail(f"Spark's session did not start in {SPARK_START_SECONDS} s")
    if isinstance(outcome, BaseException):
        raise outcome
    try:
        yield
    finally:
        end_spark()


@pytest.fixture
def spark(spark_jvm: None) -> SparkSession:
    """The module's session (made anew in its JVM if a test stopped it)."""
    with sigint_kept():
        return spark_session()


@contextlib.contextmanager
def sigint_kept() -> Iterator[None]:
    """pyspark's context, made on the main thread, takes SIGINT over (to cancel its jobs) and
    never gives it back: the suite's handler is given back."""
    handler = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


def stop_session() -> None:
    """Stop the session of this process, if one runs."""
    session = SparkSession._instantiatedSession
    if session is not None:
        session.stop()


def end_spark() -> None:
    """Stop the session and end the JVM, which ``stop()`` alone leaves running until this
    process exits: the gateway's standard input closed, the JVM exits."""
    stop_session()
    gateway = SparkContext._gateway
    SparkContext._gateway = None
    SparkContext._jvm = None
    if gateway is not None:
        gateway.shutdown()
        process = gateway.proc
        process.stdin.close()
        process.wait(timeout=60)


def spark_totals(frame: DataFrame, kind: str) -> Totals:
    """Each task's rows and the sum of each of its measures, summed by Spark."""
    measures = MEASURES[kind]
    grouped = frame.groupBy("task_id").agg(
        F.count(F.lit(1)).alias("rows"), *(F.sum(name).alias(name) for name in measures)
    )
    return {
        int(row["task_id"]): {"rows": row["rows"], **{name: amount(row[name]) for name in measures}}
        for row in grouped.collect()
    }


def test_spark_reads_every_kind_as_monapi_export(spark: SparkSession, synced: Synced) -> None:
    for kind in KINDS:
        want = synced.exported[kind]
        frame = spark.read.parquet(str(synced.store / kind))
        schema = {field.name: field.dataType for field in frame.schema.fields}
        # Every integer column of the export is a bigint: no decimal(20,0), which Spark made
        # of the unsigned integers of a store of format 1.
        integers = [field.name for field in want.schema if pa.types.is_integer(field.type)]
        assert "task_id" in integers, kind
        assert {name: schema[name] for name in integers} == dict.fromkeys(integers, LongType())
        assert isinstance(schema["day"], DateType), kind
        assert isinstance(schema[day_column(kind)], TimestampType), kind
        assert_read_as_exported(frame.toArrow(), want, kind, ("spark", kind))
        assert_same_totals(spark_totals(frame, kind), totals(want, kind), ("spark sums", kind))


def test_the_spark_example_prints_the_rows_and_sums_of_monapi_export(
    spark_jvm: None,
    synced: Synced,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """examples/spark_store.py as its command line runs it (``__main__``, its arguments in
    ``sys.argv``), in this process: its own session, made in the module's JVM."""
    stop_session()
    example = EXAMPLES / "spark_store.py"
    monkeypatch.setattr(sys, "argv", [str(example), str(synced.store), "--master", "local[1]"])
    with sigint_kept(), pytest.raises(SystemExit) as exited:
        runpy.run_path(str(example), run_name="__main__")
    assert exited.value.code == 0
    assert SparkSession._instantiatedSession is None, "the example stopped its session"
    lines = iter(capsys.readouterr().out.splitlines())
    for kind, measure in (
        ("service_report", "value"),
        ("site_availability", "uprate"),
        ("site_response_time", "resptime_avg"),
        ("site_faults", "duration_s"),
    ):
        want = synced.exported[kind]
        reference = totals(want, kind)
        days = local_days(want.column(day_column(kind)))
        first, last = (
            EPOCH + datetime.timedelta(days=day.as_py()) for day in pc.min_max(days).values()
        )
        assert next(lines) == (
            f"{kind}: {want.num_rows} rows of {len(reference)} tasks, days {first} to {last},"
            " task_id bigint"
        )
        for task, expected in sorted(reference.items()):
            line = re.fullmatch(
                rf"  task {task}: (\d+) rows, sum\({measure}\) (-?[0-9.]+)", next(lines)
            )
            assert line, (kind, task)
            assert int(line[1]) == expected["rows"]
            assert float(line[2]) == pytest.approx(expected[measure], abs=1e-3)
    assert next(lines, None) is None


def test_duckdb_polars_pandas_and_pyarrow_read_every_kind_as_monapi_export(synced: Synced) -> None:
    for kind in KINDS:
        pattern = f"{synced.store}/{kind}/**/*.parquet"
        with duckdb.connect() as connection:
            duck = connection.sql(
                f"SELECT * FROM read_parquet('{pattern}', hive_partitioning = true)"
            ).to_arrow_table()
        reads = {
            "duckdb": duck,
            "polars": pl.scan_parquet(pattern, hive_partitioning=True).collect().to_arrow(),
            "pandas": pa.Table.from_pandas(
                pd.read_parquet(synced.store / kind), preserve_index=False
            ),
            "pyarrow": ds.dataset(synced.store / kind, partitioning="hive").to_table(),
        }
        for reader, got in reads.items():
            assert pa.types.is_int64(got.schema.field("task_id").type), (reader, kind)
            assert_read_as_exported(got, synced.exported[kind], kind, (reader, kind))


def test_dask_reads_every_kind_as_monapi_export(synced: Synced) -> None:
    for kind in KINDS:
        want = synced.exported[kind]
        frame = dd.read_parquet(str(synced.store / kind))
        measures = list(MEASURES[kind])
        got = pa.Table.from_pandas(frame.compute(), preserve_index=False)
        assert pa.types.is_int64(got.schema.field("task_id").type), kind
        assert_read_as_exported(got, want, kind, ("dask", kind))
        # Summed by Dask itself.
        sums = frame.groupby("task_id")[measures].sum().compute()
        sizes = frame.groupby("task_id").size().compute()
        summed = {
            int(task): {
                "rows": int(sizes[task]),
                **{name: amount(sums.loc[task, name]) for name in measures},
            }
            for task in sizes.index
        }
        assert_same_totals(summed, totals(want, kind), ("dask sums", kind))
