"""The Python samples of docs/guides/tables.md, in the order of the page: run whole, in one
interpreter, as a reader pastes them into a notebook (tests/python/test_docs.py runs it against
the emulator, MONAPI_* set). What lies outside the regions checks what the samples gave."""

# --8<-- [start:connect]
import datetime

import monapi

client = monapi.Client()  # MONAPI_BASE_URL, MONAPI_CLIENT_ID, ... from the environment
service_zone = datetime.timezone(datetime.timedelta(hours=8))  # the service's clock, +08:00
yesterday = datetime.datetime.now(service_zone).date() - datetime.timedelta(days=1)
# --8<-- [end:connect]

# --8<-- [start:report]
t = client.tables.service_report(10001, start_date=yesterday, end_date=yesterday)
print(t.num_rows, t.schema)  # {'task_id': 'Int64', 'series': 'Dictionary(Int32, Utf8)', ...}
df = t.to_pandas()  # times tz-aware, values float64, names categories
wide = df.pivot_table(index="time", columns="metric", values="value", observed=True)
print(wide.iloc[:3, :3])
# --8<-- [end:report]

assert t.column_names == ["task_id", "series", "time", "metric", "value"]
assert str(df["time"].dtype) == "datetime64[s, UTC+08:00]" and df["value"].dtype == "float64"
assert len(wide) == 1440  # one row a minute: task 10001 is checked every minute

# --8<-- [start:site]
# A site report is three tables. monitor=0: the average of the points only; None: every point too.
availability, response_time, faults = client.tables.site_report(
    20001, start_date=yesterday, end_date=yesterday, monitor=0
)
print(len(availability), "checks,", len(response_time), "response times,", len(faults), "faults")
# --8<-- [end:site]

assert len(availability) == len(response_time) > 0
assert set(availability.to_pandas()["monitor_id"]) == {0}

# --8<-- [start:lists]
tasks = client.tables.service_tasks()  # every page
sites = client.tables.site_tasks()
points = client.tables.monitors()
buckets = client.tables.response_time_distribution(20001, start_date=yesterday, end_date=yesterday)
print(len(tasks), "service tasks,", len(sites), "sites,", len(points), "monitoring points")
print(buckets.to_pandas())  # one row a bucket: start_ms, end_ms, count, percent
# --8<-- [end:lists]

assert (len(tasks), len(sites), len(points)) == (120, 6, 8)
assert buckets.column_names == ["task_id", "start_ms", "end_ms", "count", "percent"]

# --8<-- [start:convert]
import polars
import pyarrow

arrow = t.to_arrow()  # a pyarrow.Table, no copy of the columns; or pyarrow.table(t)
frame = t.to_polars()  # a polars.DataFrame; or polars.DataFrame(t)
print(arrow.schema.field("time").type, frame.schema["value"])
# --8<-- [end:convert]

assert pyarrow.table(t).equals(arrow) and polars.DataFrame(t).equals(frame)
assert str(arrow.schema.field("time").type) == "timestamp[s, tz=+08:00]"

# --8<-- [start:duckdb]
import duckdb

# DuckDB reads a Table named in the query straight from Python's variables.
print(duckdb.sql("select metric, avg(value) as mean from t group by all order by metric limit 3"))
# --8<-- [end:duckdb]

assert duckdb.sql("select count(*) from t").fetchall() == [(t.num_rows,)]

# --8<-- [start:timezone]
# Times are instants; the table shows them in the service's zone. Elsewhere: convert them.
print(df["time"].iloc[0])  # e.g. 2026-11-25 00:00:00+08:00
print(df["time"].dt.tz_convert("Europe/Paris").iloc[0])  # the same instant in Paris
print(frame["time"].dt.convert_time_zone("UTC")[0])  # polars
# --8<-- [end:timezone]

assert df["time"].iloc[0] == datetime.datetime.combine(yesterday, datetime.time(), service_zone)

# --8<-- [start:nulls]
# A value the service sent empty or unreadable is null (NaN in pandas), never 0.
print(df["value"].isna().sum(), "of", len(df), "values are null")
# A fault still going on has no end yet: end_time and duration_s are null, ongoing is True.
first = yesterday - datetime.timedelta(days=29)
month = client.tables.site_report(20001, start_date=first, end_date=yesterday)  # 30 days
print(month.faults.to_pandas()[["monitor", "start_time", "end_time", "ongoing", "duration_s"]])
# --8<-- [end:nulls]

outages = month.faults.to_pandas()
assert (outages["end_time"].isna() == outages["ongoing"]).all()
assert (outages["duration_s"].isna() == outages["ongoing"]).all()

# --8<-- [start:bulk]
# Many tasks, 4 at a time; task 999 does not exist. progress: True draws a tqdm bar.
try:
    week = client.tables.service_reports(
        [10001, 10002, 999],
        start_date=yesterday,
        end_date=yesterday,
        concurrency=4,
        progress=lambda p: print(f"{p['done']}/{p['total']} tasks, {p['failed']} failed"),
    )
except monapi.PartialResultError as e:
    week, failed = e.table, e.failures  # the rows of the others; [(task_id, MonapiError)]
    print(week.num_rows, "rows;", [(task_id, repr(error)) for task_id, error in failed])
# --8<-- [end:bulk]

assert [task_id for task_id, _ in failed] == [999]
assert isinstance(failed[0][1], monapi.ApiError) and failed[0][1].status_code == 404
assert set(week.to_pandas()["task_id"]) == {10001, 10002}

# --8<-- [start:collect]
# errors="collect": no exception; the failures are on the result.
week = client.tables.service_reports(
    [10001, 10002, 999], start_date=yesterday, end_date=yesterday, errors="collect"
)
print(week.num_rows, "rows; failed:", [task_id for task_id, _ in week.failures])
# --8<-- [end:collect]

assert [task_id for task_id, _ in week.failures] == [999]

# --8<-- [start:sites]
# Every site task (task_ids None: the site task list is read first), with a progress bar.
every = client.tables.site_reports(
    start_date=yesterday, end_date=yesterday, monitor=0, progress=True
)
checks = every.availability.to_pandas()
print(len(checks), "checks of", checks["task_id"].nunique(), "sites")
# --8<-- [end:sites]

assert checks["task_id"].nunique() == 6 and every.failures == []
