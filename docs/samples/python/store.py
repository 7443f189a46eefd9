"""The samples of docs/guides/store.md, in the order of the page: run whole, in one interpreter,
by tests/python/test_docs.py against the emulator (MONAPI_* set, a fresh working directory).
What lies outside the regions checks what the samples gave."""

# --8<-- [start:tables]
import monapi

client = monapi.Client(store="data/monapi")  # or MONAPI_STORE=data/monapi
tasks = [10001, 10002]
week = client.tables.service_reports(tasks, start_date="2026-11-01", end_date="2026-11-07")
again = client.tables.service_reports(tasks, start_date="2026-11-01", end_date="2026-11-07")
# The first call fetched the week and kept it; the second read it: no request.
# --8<-- [end:tables]

assert week.num_rows > 0 and week.to_arrow().to_pylist() == again.to_arrow().to_pylist()

# --8<-- [start:sync]
report = client.sync(start_date="2026-10-01", end_date="2026-10-07", tasks=[10001, 20001])
print(report["summary"])
# --8<-- [end:sync]

assert report["fetched"] > 0 and report["failed"] == 0
again_synced = client.sync(start_date="2026-10-01", end_date="2026-10-07", tasks=[10001, 20001])
assert again_synced["fetched"] == 0

# --8<-- [start:duckdb]
import duckdb

print(
    duckdb.sql("""
        select day, metric, avg(value) as mean
        from read_parquet('data/monapi/service_report/**/*.parquet', hive_partitioning = true)
        where task_id = 10001 and day >= date '2026-10-01'
        group by all order by all
        limit 5
    """)
)
# --8<-- [end:duckdb]

# --8<-- [start:readers]
import dask.dataframe
import polars
import pyarrow.dataset

up = polars.scan_parquet("data/monapi/site_availability/**/*.parquet", hive_partitioning=True)
faults = pyarrow.dataset.dataset("data/monapi/site_faults", partitioning="hive")
service = dask.dataframe.read_parquet("data/monapi/service_report")
print(up.select(polars.len()).collect().item(), faults.count_rows(), len(service))
# --8<-- [end:readers]

stored = pyarrow.dataset.dataset("data/monapi/service_report", partitioning="hive")
assert len(service) == stored.count_rows() > 0
