#!/usr/bin/env bash
# Runs a command against a fresh emulator: starts `monapi serve` on a free loopback port,
# exports the MONAPI_* variables for its demo account, runs "$@", and stops the emulator.
set -euo pipefail
monapi=${MONAPI_BIN:-target/release/monapi}
log=$(mktemp)
"$monapi" serve --port 0 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the emulator did not start" >&2; exit 1; }
export MONAPI_BASE_URL=$url MONAPI_CLIENT_ID=demo_id MONAPI_CLIENT_SECRET=demo_secret
export MONAPI_USERNAME=test@example.com MONAPI_PASSWORD=123456
"$@"
