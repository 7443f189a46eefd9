# The shell samples of docs/guides/cli.md, in the order of the page, run by
# tests/python/test_docs.py in a fresh directory with the emulator's account in MONAPI_* and
# `monapi` on PATH. What lies outside the regions checks what the samples gave.

# --8<-- [start:logs]
# Each request as a JSON object on stderr (the answer on stdout, here thrown away).
monapi agents --log-level debug --log-format json 2>&1 >/dev/null | jq -c '{level, message, endpoint, status}'
# --8<-- [end:logs]

[ "$(monapi agents --log-level debug --log-format json 2>&1 >/dev/null | jq -s 'map(select(.status == 200)) | length')" -ge 2 ]

# --8<-- [start:read]
monapi tasks >tasks.json              # every page of the service task list, as JSON
monapi sites >sites.json              # every page of the site task list (--page N: one page)
monapi site 20001                     # one site task's settings
monapi monitors >points.json; monapi users >users.json; monapi groups >groups.json
monapi agents >agents.json
monapi report service 10001 --from 2026-11-01 --to 2026-11-02 >report.json
monapi report site 20001 --monitor average >site.json
monapi report distribution 20001
# --8<-- [end:read]

grep -q '"task_id"' tasks.json && grep -q '"task_id"' sites.json && [ -s report.json ]

printf '%s\n' "$MONAPI_PASSWORD" >password && chmod 600 password
# --8<-- [start:secret-files]
unset MONAPI_PASSWORD                  # nothing secret in the environment or on the command line:
monapi agents --password-file password >agents.json    # or MONAPI_PASSWORD_FILE=password
# --8<-- [end:secret-files]
grep -q '{' agents.json
MONAPI_PASSWORD=$(cat password) && export MONAPI_PASSWORD  # for the samples after it

# --8<-- [start:create]
cat >tasks-to-create.json <<'JSON'
[{"task_name": "cache", "task_type": "redis", "status_url": "http://10.0.0.5:6379"}]
JSON
monapi create-service-tasks tasks-to-create.json   # - reads the list from stdin
# --8<-- [end:create]

# --8<-- [start:request]
monapi request GET /v2/site/lists.json -q page=2   # any operation: -q key=value, -f key=value (form)
# --8<-- [end:request]

# --8<-- [start:exit]
status=0
monapi report service 10001 --from 2026-02-30 || status=$?
echo "exit code $status"   # 2: a bad argument, nothing was sent
# --8<-- [end:exit]

[ "$status" -eq 2 ]
