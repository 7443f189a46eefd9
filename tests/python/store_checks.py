"""The store's datasets as the suite compares them, whoever reads them (DuckDB, polars, pyarrow,
Dask, Spark; from a directory or a bucket): the rows in one canonical form, the day of each row,
and the reference, ``monapi export`` of the same tasks and days (the installed package's
command, fetching from the emulator without a store), with each task's rows and sums. Shared
by test_store.py, test_store_s3.py and test_store_engines.py."""

from __future__ import annotations

import datetime
import math
import pathlib
import subprocess
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

KINDS = ("service_report", "site_availability", "site_response_time", "site_faults")
# What each kind measures: the columns whose sums per task are compared.
MEASURES: dict[str, tuple[str, ...]] = {
    "service_report": ("value",),
    "site_availability": ("uprate",),
    "site_response_time": (
        "resptime_max",
        "resptime_avg",
        "resptime_min",
        "resp_process_time",
        "resp_connect_time",
        "resp_dns_time",
        "resp_download_time",
    ),
    "site_faults": ("duration_s",),
}
# The `monapi export` command of each kind.
EXPORT = {
    "service_report": ["service-reports"],
    "site_availability": ["site-reports", "--table", "availability"],
    "site_response_time": ["site-reports", "--table", "response-time"],
    "site_faults": ["site-reports", "--table", "faults"],
}
# The `monapi` command of the installed package (the console script beside this python).
COMMAND = str(pathlib.Path(sys.executable).parent / "monapi")

# Each task's rows and the sum of each measure: {task_id: {"rows": n, measure: sum}}.
Totals = dict[int, dict[str, float]]


def day_column(kind: str) -> str:
    """The column whose day is a row's day in the store (a fault's is the day it started)."""
    return "start_time" if kind == "site_faults" else "time"


def epoch_seconds(column: Any) -> Any:
    """A column of times as whole seconds since the epoch (int64): timestamps of any unit and
    zone, or integers that already are such seconds."""
    if pa.types.is_timestamp(column.type):
        return column.cast(pa.timestamp("s", tz="UTC")).cast(pa.int64())
    return column.cast(pa.int64())


def canonical(data: Any) -> Any:
    """The rows of a table in one order and one type per column, without ``day``: the same
    rows compare equal however a reader typed them (categories as text, integers as int64,
    times as seconds since the epoch)."""
    table = pa.table(data)
    if "day" in table.column_names:
        table = table.drop_columns(["day"])
    columns = {}
    for field, column in zip(table.schema, table.columns, strict=True):
        kind = field.type
        if pa.types.is_dictionary(kind):
            column = column.cast(kind.value_type)
            kind = kind.value_type
        if pa.types.is_timestamp(kind):
            column = epoch_seconds(column)
        elif pa.types.is_integer(kind):
            column = column.cast(pa.int64())
        elif pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
            column = column.cast(pa.string())
        columns[field.name] = column
    out = pa.table(columns)
    return out.sort_by([(name, "ascending") for name in out.column_names])


def within(data: Any, column: str, first: datetime.date, last: datetime.date) -> Any:
    """The rows whose ``column`` (a time) falls on a day from ``first`` to ``last`` at +08:00."""
    table = pa.table(data)
    days = local_days(table.column(column))
    epoch = datetime.date(1970, 1, 1)
    low, high = (first - epoch).days, (last - epoch).days
    keep = pc.and_(pc.greater_equal(days, low), pc.less_equal(days, high))
    return table.filter(keep)


def local_days(times: Any, offset: int = 8 * 3600) -> Any:
    """The day of each time at ``offset`` seconds from UTC, as days since the epoch."""
    seconds = epoch_seconds(times)
    return pc.floor(pc.divide(pc.cast(pc.add(seconds, offset), pa.float64()), 86400.0)).cast(
        pa.int64()
    )


def day_numbers(days: Any) -> Any:
    """A ``day`` partition column (a date, or its ISO text) as days since the epoch."""
    if pa.types.is_dictionary(days.type):
        days = days.cast(days.type.value_type)
    if not pa.types.is_date(days.type):
        days = days.cast(pa.string()).cast(pa.date32())
    return days.cast(pa.date32()).cast(pa.int32()).cast(pa.int64())


def exported(
    env: Mapping[str, str],
    kind: str,
    tasks: Iterable[int],
    first: datetime.date,
    last: datetime.date,
    directory: pathlib.Path,
) -> Any:
    """``monapi export`` of ``kind`` for ``tasks`` from ``first`` to ``last`` as Parquet (with
    the account of ``env``'s ``MONAPI_*`` variables, fetched: no store), as the rows a store of
    those days holds: a fault that began before ``first`` belongs to a day not asked for."""
    output = directory / f"export-{kind}.parquet"
    command = [COMMAND, "export", *EXPORT[kind], "--task", *(str(task) for task in tasks)]
    command += ["--from", first.isoformat(), "--to", last.isoformat()]
    command += ["--format", "parquet", "--output", str(output), "--quiet"]
    fetched = {name: value for name, value in env.items() if name != "MONAPI_STORE"}
    done = subprocess.run(command, env=fetched, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return within(pq.read_table(output), day_column(kind), first, last)


def exported_kinds(
    env: Mapping[str, str],
    services: Iterable[int],
    sites: Iterable[int],
    first: datetime.date,
    last: datetime.date,
    directory: pathlib.Path,
) -> dict[str, Any]:
    """``exported`` of every kind: the service report of ``services``, the site kinds of
    ``sites``."""
    services, sites = list(services), list(sites)
    return {
        kind: exported(
            env, kind, services if kind == "service_report" else sites, first, last, directory
        )
        for kind in KINDS
    }


def amount(value: Any) -> float:
    """A sum as a float; the sum of no value (null, or NaN) as 0, as pandas sums."""
    if value is None:
        return 0.0
    number = float(value)
    return 0.0 if math.isnan(number) else number


def totals(data: Any, kind: str) -> Totals:
    """Each task's rows and the sum of each of its measures, summed by pyarrow."""
    table = pa.table(data)
    measures = MEASURES[kind]
    grouped = table.group_by("task_id").aggregate(
        [("task_id", "count"), *((name, "sum") for name in measures)]
    )
    return {
        int(row["task_id"]): {
            "rows": row["task_id_count"],
            **{name: amount(row[f"{name}_sum"]) for name in measures},
        }
        for row in grouped.to_pylist()
    }


def assert_same_totals(got: Totals, want: Totals, what: object) -> None:
    """The same tasks, each with the same rows, and the same sums (to the last bits that
    another order of addition changes)."""
    assert sorted(got) == sorted(want) != [], what
    for task, expected in want.items():
        assert got[task]["rows"] == expected["rows"] > 0, (what, task)
        for name, value in expected.items():
            assert got[task][name] == pytest.approx(value, rel=1e-9, abs=1e-9), (what, task, name)


def assert_read_as_exported(got: Any, want: Any, kind: str, what: object) -> None:
    """A reader's table of ``kind`` holds the rows of ``monapi export``, and each ``day`` (from
    the directories) is the day of its row's time at +08:00 (a fault's: when it started)."""
    assert "day" in pa.table(got).column_names, what
    assert canonical(got).equals(canonical(want)), what
    days = day_numbers(pa.table(got).column("day"))
    assert local_days(pa.table(got).column(day_column(kind))).equals(days), what
    assert_same_totals(totals(got, kind), totals(want, kind), what)


def run_dask_example(
    base_url: str,
    store: str,
    first: datetime.date,
    last: datetime.date,
    cwd: pathlib.Path,
    env: Mapping[str, str],
) -> subprocess.CompletedProcess[str]:
    """examples/dask_sync.py against ``base_url`` into ``store`` over ``first``..``last``; it
    must end well (its output is returned)."""
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "dask_sync.py"
    done = subprocess.run(
        [
            *(sys.executable, str(example), "--base-url", base_url, "--store", store),
            *("--start-date", first.isoformat(), "--end-date", last.isoformat()),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=dict(env),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done
