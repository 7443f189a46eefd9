"""The samples of docs/getting-started/analyst.md, in the order of the page: run whole, in one
interpreter, as a reader pastes them into a notebook (tests/python/test_docs.py runs it against
the emulator, MONAPI_* set). What lies outside the regions checks what the samples gave."""

# --8<-- [start:connect]
import datetime

import monapi

client = monapi.Client()  # MONAPI_BASE_URL, MONAPI_CLIENT_ID, ... from the environment
# --8<-- [end:connect]

# --8<-- [start:fetch]
yesterday = datetime.date.today() - datetime.timedelta(days=1)
first = yesterday - datetime.timedelta(days=29)

# Every site task (None), 8 at a time, with a progress bar: three tables.
sites = client.tables.site_reports(start_date=first, end_date=yesterday, progress=True)
availability = sites.availability.to_pandas()
response_time = sites.response_time.to_pandas()
faults = sites.faults.to_pandas()
names = client.tables.site_tasks().to_pandas().set_index("task_id")["task_name"]
# --8<-- [end:fetch]

assert set(availability["task_id"]) == set(names.index), "every site is in the table"
assert availability["time"].min().date() == first and availability["time"].max().date() == yesterday

# --8<-- [start:plot]
average = availability[availability["monitor_id"] == 0]  # monitor 0: the average of the points
daily = (
    average.groupby(["task_id", average["time"].dt.date])["uprate"]
    .mean()
    .unstack("task_id")
    .rename(columns=names)
)
ax = daily.plot(title="Availability per site, last 30 days (%)", ylabel="%", figsize=(10, 4))
ax.figure.savefig("availability.png")  # in a notebook the plot shows by itself
# --8<-- [end:plot]

assert daily.shape == (30, len(names))

# --8<-- [start:slowest]
points = response_time[response_time["monitor_id"] != 0]
slowest = (
    points.groupby(["task_id", "monitor"], observed=True)["resptime_avg"]
    .mean()
    .nlargest(5)
    .rename("mean response time (ms)")
    .reset_index()
)
slowest["site"] = slowest["task_id"].map(names)
print(slowest)
# --8<-- [end:slowest]

assert len(slowest) == 5 and slowest["mean response time (ms)"].is_monotonic_decreasing

# --8<-- [start:faults]
outages = (
    faults.groupby("task_id")["duration_s"]
    .agg(faults="count", downtime_s="sum")
    .rename(index=names)
    .sort_values("downtime_s", ascending=False)
)
print(outages)
# --8<-- [end:faults]

assert outages["faults"].sum() == len(faults)
