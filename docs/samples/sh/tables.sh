# The shell samples of docs/guides/tables.md (monapi export), in the order of the page, run by
# tests/python/test_docs.py in a fresh directory with the emulator's account in MONAPI_*. What
# lies outside the regions checks what the samples wrote.

# --8<-- [start:parquet]
# Two service tasks over two days, as one long table (leave out --task: every task).
monapi export service-reports --task 10001 10002 --from 2026-11-01 --to 2026-11-02 \
  --format parquet -o reports.parquet
# --8<-- [end:parquet]

[ "$(head -c 4 reports.parquet)" = PAR1 ] && [ "$(tail -c 4 reports.parquet)" = PAR1 ]

# --8<-- [start:csv]
monapi export service-reports --task 10001 --from 2026-11-01 --to 2026-11-01 --format csv -o 10001.csv
head -3 10001.csv
# --8<-- [end:csv]

[ "$(head -1 10001.csv)" = task_id,series,time,metric,value ]
grep -q '^10001,[a-zA-Z_]*,2026-11-01T00:00:00+08:00,' 10001.csv

# --8<-- [start:stdout]
# -o -: standard output (csv and ndjson), here into jq: site 20001's lowest availability that week.
monapi export site-reports --table availability --task 20001 --monitor average \
  --from 2026-11-01 --to 2026-11-07 --format ndjson -o - | jq -s -c 'min_by(.uprate) | {time, uprate}'
# --8<-- [end:stdout]

# --8<-- [start:sites]
# Every site task, one of the three tables each time.
monapi export site-reports --table availability --from 2026-11-01 --to 2026-11-01 \
  --format parquet -o availability.parquet
monapi export site-reports --table response-time --task 20001 20002 --from 2026-11-01 --to 2026-11-01 \
  --format csv -o response-time.csv
monapi export site-reports --table faults --task 20001 --from 2026-10-01 --to 2026-10-31 \
  --format arrow -o faults.arrow
# --8<-- [end:sites]

[ "$(head -c 4 availability.parquet)" = PAR1 ]
[ "$(head -1 response-time.csv)" = task_id,monitor_id,monitor,time,resptime_max,resptime_avg,resptime_min,resp_process_time,resp_connect_time,resp_dns_time,resp_download_time ]
[ "$(head -c 6 faults.arrow)" = ARROW1 ]

# --8<-- [start:lists]
monapi export service-tasks --format csv -o tasks.csv
monapi export site-tasks --format ndjson -o sites.ndjson
monapi export distribution --task 20001 20002 --from 2026-11-01 --to 2026-11-07 --format parquet -o distribution.parquet
# --8<-- [end:lists]

[ "$(wc -l <tasks.csv)" -eq 121 ]   # the header and the emulator's 120 tasks
[ "$(jq -s length sites.ndjson)" -eq 6 ]
jq -e 'has("last_resp_time") and has("task_create_time")' sites.ndjson >/dev/null
[ "$(head -c 4 distribution.parquet)" = PAR1 ]

# --8<-- [start:split]
# One directory per task (Hive-style), which Spark, DuckDB, polars and pyarrow read as one dataset.
monapi export service-reports --task 10001 10002 --from 2026-11-01 --to 2026-11-01 \
  --format parquet --split task -o reports/
ls reports/   # task_id=10001  task_id=10002
# --8<-- [end:split]

[ -f reports/task_id=10001/part-0.parquet ] && [ -f reports/task_id=10002/part-0.parquet ]

# --8<-- [start:partial]
status=0
monapi export service-reports --task 10001 999 --from 2026-11-01 --to 2026-11-01 \
  --format csv -o partial.csv 2>errors.txt || status=$?
echo "exit $status"   # 3: task 999 failed (its error is on stderr); task 10001 was written
cat errors.txt
# --8<-- [end:partial]

[ "$status" -eq 3 ]
grep -q 999 errors.txt
cmp partial.csv 10001.csv   # the rows of the task that succeeded, as its export alone
