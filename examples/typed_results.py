"""The plain results are typed: mypy --strict (make lint) checks this file, which indexes
every one of them through monapi.types. Run it against an emulator:

    MONAPI_BASE_URL=http://127.0.0.1:8080 MONAPI_CLIENT_ID=demo_id \
    MONAPI_CLIENT_SECRET=demo_secret MONAPI_USERNAME=test@example.com \
    MONAPI_PASSWORD=123456 python examples/typed_results.py
"""

from __future__ import annotations

import datetime

import monapi
from monapi.types import (
    AgentList,
    CreatedTask,
    Distribution,
    Fault,
    Progress,
    ServiceReport,
    ServiceTask,
    SiteReport,
)


def summary(client: monapi.Client, day: datetime.date) -> list[str]:
    lines: list[str] = []
    tasks: list[ServiceTask] = client.service_tasks()
    lines.append(
        f"{len(tasks)} service tasks, first {tasks[0]['task_name']} ({tasks[0]['task_type']})"
    )

    agents: AgentList = client.agents()
    for agent_id, agent in agents.items():
        plugins = ", ".join(plugin["plugin_name"] for plugin in agent["plugin"])
        lines.append(f"agent {agent_id} {agent['name']} ({agent['agentUrl']['linux']}): {plugins}")

    report: ServiceReport = client.service_report(tasks[0]["task_id"], start_date=day)
    for series, records in report.items():
        lines.append(f"{series}: {len(records)} records, first at {records[0].get('time', '?')}")

    site: SiteReport = client.site_report(20001, start_date=day, monitor=0)
    average = site["0"]
    worst = min(float(check["uprate"]) for check in average["uprate"].values())
    lines.append(f"{average['name']}: worst availability {worst}%")
    for key, fault in (average["fault"] or {}).items():
        if not isinstance(fault, int):  # the key "count"
            lines.append(f"fault {key}: {describe(fault)}")

    buckets: Distribution = client.response_time_distribution(20001, start_date=day)
    lines.extend(f"{b['start']}-{b['end']} ms: {b['percent']}%" for b in buckets.values())

    token = client.token
    assert token is not None
    lines.append(f"token type {token['token_type']}")
    return lines


def describe(fault: Fault) -> str:
    return f"{fault['fault_status']} from {fault['start_time']} for {fault['diff_time']}"


def created_ids(created: list[CreatedTask]) -> list[int]:
    return [task["task_id"] for task in created]


def show(progress: Progress) -> None:
    print(f"{progress['done']}/{progress['total']} tasks, {progress['rows']} rows")


def main() -> None:
    day = datetime.date.today() - datetime.timedelta(days=1)
    with monapi.Client() as client:
        print("\n".join(summary(client, day)))
        client.tables.service_reports([10001, 10002], start_date=day, progress=show)


if __name__ == "__main__":
    main()
