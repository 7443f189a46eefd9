# The shell samples of docs/guides/emulator.md, run by tests/python/test_docs.py in a fresh
# directory with `monapi` on PATH.

# --8<-- [start:serve]
monapi serve --port 0 --site-tasks 3 2>serve.log &   # 0: a free port, printed on stderr
serve=$!
for _ in $(seq 50); do grep -q listening serve.log && break; sleep 0.1; done
export MONAPI_BASE_URL=$(grep -o 'http://[0-9.:]*' serve.log | head -1)
export MONAPI_CLIENT_ID=demo_id MONAPI_CLIENT_SECRET=demo_secret \
       MONAPI_USERNAME=test@example.com MONAPI_PASSWORD=123456
monapi sites >sites.json   # every page of the site task list, as JSON
grep -c '"task_id"' sites.json
kill "$serve"
# --8<-- [end:serve]
