# The shell samples of docs/guides/store.md, in the order of the page, run by
# tests/python/test_docs.py in a fresh directory with the emulator's account in MONAPI_*.

# --8<-- [start:sync]
monapi sync data/monapi --from 2026-10-01 --to 2026-10-07 --task 10001 --task 20001
monapi sync data/monapi --from 2026-10-01 --to 2026-10-07 --kinds site   # every site task
monapi export service-reports --store data/monapi --task 10001 --from 2026-10-01 --to 2026-10-07 \
  --format csv -o week.csv
# --8<-- [end:sync]

[ -f data/monapi/store.json ] && [ -f data/monapi/service_report/day=2026-10-01/task-10001.parquet ]
[ "$(wc -l <week.csv)" -gt 1 ]
