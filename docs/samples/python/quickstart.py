"""The Python quickstart of docs/index.md and README.md, run by tests/python/test_docs.py
against the emulator (MONAPI_* set)."""

# --8<-- [start:quickstart]
import monapi

client = monapi.Client()  # the account from MONAPI_BASE_URL, MONAPI_CLIENT_ID, ...
for task in client.iter_service_tasks():  # every page of the list, as it goes
    print(task["task_id"], task["task_name"], task["task_type"])

report = client.tables.service_report(10001, start_date="2026-11-01", end_date="2026-11-07")
week = report.to_pandas()  # or to_polars(), to_arrow(); DuckDB reads `report` as it is
print(week.groupby("metric", observed=True)["value"].mean())
# --8<-- [end:quickstart]

assert len(week) > 0
