# The shell samples of docs/guides/exporter.md, run by tests/python/test_docs.py in a scratch
# directory with the emulator's account in MONAPI_* and a free port in PORT. What lies outside
# the regions checks what the samples gave.

# --8<-- [start:variables]
# What a unit file's Environment= or a container's environment sets: every flag has its variable.
export MONAPI_LISTEN="127.0.0.1:${PORT:-39126}"
export MONAPI_INTERVAL=600 MONAPI_SLO=0.999
export MONAPI_EXCLUDE_TASK_TYPE=ping,dns   # a list: separated by commas
export MONAPI_LOG_FORMAT=json              # each log line one JSON object
monapi exporter 2>exporter.log &
# --8<-- [end:variables]
exporter=$!
for _ in $(seq 120); do curl -sf "http://$MONAPI_LISTEN/ready" >/dev/null && break; sleep 1; done
metrics=$(curl -s "http://$MONAPI_LISTEN/metrics")
grep -q '^monapi_site_up{' <<<"$metrics"
[ "$(grep -cE 'task_type="(ping|dns)"' <<<"$metrics" || true)" -eq 0 ]
kill -TERM "$exporter"
wait "$exporter"

# --8<-- [start:logs]
jq -c 'select(.message | startswith("refreshed")) | {timestamp, level, message}' exporter.log
# --8<-- [end:logs]

# Every line is an object with its time, level, target and message.
[ "$(jq -s 'all(.timestamp and .level and .target and .message)' exporter.log)" = true ]
[ "$(jq -s 'map(select(.message | startswith("refreshed"))) | length' exporter.log)" -ge 1 ]
