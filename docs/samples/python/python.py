"""The samples of docs/guides/python.md, in the order of the page: run whole, in one interpreter,
by tests/python/test_docs.py against the emulator (MONAPI_* set). What lies outside the regions
checks what the samples gave."""

# --8<-- [start:client]
import datetime

import monapi

# Every argument falls back to its variable: base_url to MONAPI_BASE_URL, client_id to
# MONAPI_CLIENT_ID, and so on (client_secret, username, password).
client = monapi.Client(timeout=10, max_retries=3)
# --8<-- [end:client]

# --8<-- [start:read]
tasks = list(client.iter_service_tasks())  # every page, fetched as the loop goes
agents = client.agents()
report = client.service_report(
    tasks[0]["task_id"], start_date=datetime.date.today(), end_date=datetime.date.today()
)
site = client.site_report(20001, monitor=0)  # None: every point; 0: their average; n: one point
buckets = client.response_time_distribution(20001)
print(f"{len(tasks)} service tasks, {len(agents)} agents, {len(report)} series today")
# --8<-- [end:read]

assert tasks and agents and report and site and buckets

# --8<-- [start:lists]
sites = list(client.iter_site_tasks())  # every page; client.site_tasks(page=1) for one
settings = client.site_task(sites[0]["task_id"])
points, users, groups = client.monitors(), client.users(), client.user_groups()
# Any other operation, with the same token, retries and errors:
raw = client.request("GET", "/v2/site/lists.json", params={"page": 1})
# --8<-- [end:lists]

assert settings and points and users and groups and raw

# --8<-- [start:create]
import os

created = client.create_server_tasks(
    [
        {
            "server_name": "web-01",  # the four required fields; the others take defaults
            "private_ip": "192.168.1.10",
            "server_ip": "203.0.113.10",
            "server_systype": 0,
            "frequency": 10,
            "task_type": ["cpu", "mem"],
        }
    ]
)
db_password = os.environ.get("ORDERS_DB_PASSWORD", "change-me")  # never printed by monapi
client.create_service_tasks(
    [
        {
            "task_name": "orders-db",
            "task_type": "mysql",
            "ip": "192.168.1.20",
            "port": 3306,
            "user": "monitor",
            "password": db_password,
        }
    ]
)
# --8<-- [end:create]

assert len(created) == 1

# --8<-- [start:errors]
try:
    client.create_server_tasks([{"server_name": "web-02", "private_ip": "not an address"}])
except monapi.ValidationError as error:  # nothing was sent
    for problem in error.errors:
        print(problem["index"], problem["field"], problem["rule"])
try:
    client.service_report(999999)
except monapi.ApiError as error:
    print(error.status_code, error.code, error.message)
# --8<-- [end:errors]

# --8<-- [start:async]
import asyncio


async def reports(task_ids: list[int]) -> list[dict[str, list[dict[str, str]]]]:
    async with monapi.AsyncClient() as client:
        return await asyncio.gather(*(client.service_report(t) for t in task_ids))


print(len(asyncio.run(reports([t["task_id"] for t in tasks[:3]]))), "reports at once")
# --8<-- [end:async]

# --8<-- [start:close]
client.close()  # or `with monapi.Client() as client:` around the work
# --8<-- [end:close]
