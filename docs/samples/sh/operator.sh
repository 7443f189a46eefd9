# The shell samples of docs/getting-started/operator.md, in the order of the page, run by
# tests/python/test_docs.py in a copy of examples/ with the emulator's account in MONAPI_* and a
# free port in PORT. What lies outside the regions checks what the samples gave.

# --8<-- [start:run]
port=${PORT:-39126}   # 39126 is the exporter's own port
monapi exporter --listen "127.0.0.1:$port" --slo 0.999 &
exporter=$!
# Ready once the first refresh has ended (a minute or more for thousands of sites).
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null && break; sleep 1; done
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^monapi_(up|site_up\{.*monitor_id="0")'
# --8<-- [end:run]

metrics=$(curl -s "http://127.0.0.1:$port/metrics")
grep -qx 'monapi_up 1' <<<"$metrics"
[ "$(grep -c '^monapi_site_up{.*monitor_id="0"' <<<"$metrics")" -eq 6 ]
grep -q '^monapi_site_error_budget_remaining_ratio{' <<<"$metrics"

# --8<-- [start:signals]
kill -HUP "$exporter"    # refresh now, e.g. after adding sites
kill -TERM "$exporter"   # stops cleanly (exit 0): scrapes under way are answered first
wait "$exporter"
# --8<-- [end:signals]

# --8<-- [start:rules]
promtool check rules examples/prometheus/rules.yml
promtool test rules examples/prometheus/rules.test.yml
# --8<-- [end:rules]
