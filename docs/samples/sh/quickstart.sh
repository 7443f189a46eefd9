# The command line's quickstart of docs/index.md and README.md, run by tests/python/test_docs.py
# with the emulator's account in MONAPI_*.

# --8<-- [start:quickstart]
monapi agents >agents.json                     # any operation's answer, as JSON
monapi export service-reports --task 10001 --from 2026-11-01 --to 2026-11-07 \
  --format parquet -o week.parquet             # a table: csv, parquet, ndjson or arrow
monapi sync data/monapi --kinds site --from 2026-11-01 --to 2026-11-07   # every site, kept
# --8<-- [end:quickstart]

[ -s agents.json ] && [ -s week.parquet ] && [ -f data/monapi/store.json ]
