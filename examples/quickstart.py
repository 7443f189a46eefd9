"""monapi quickstart (Python): log in, list tasks and agents, fetch each kind of report.

Configuration comes from the environment: MONAPI_BASE_URL, MONAPI_CLIENT_ID,
MONAPI_CLIENT_SECRET, MONAPI_USERNAME, MONAPI_PASSWORD. Against the bundled emulator:

    scripts/with-emulator.sh .venv/bin/python examples/quickstart.py
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import sys
from collections import Counter
from typing import Any

import monapi


def summarize_service_report(report: dict[str, Any]) -> str:
    parts = []
    for series, records in report.items():
        values = [float(v) for r in records for k, v in r.items() if k != "time" and _is_number(v)]
        mean = sum(values) / len(values) if values else float("nan")
        parts.append(f"{series}: {len(records)} records, mean {mean:.2f}")
    return "; ".join(parts[:3]) + (" ..." if len(parts) > 3 else "")


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


async def fetch_reports_concurrently(task_ids: list[str], day: datetime.date) -> int:
    """The async client: many reports at once."""
    async with monapi.AsyncClient() as client:
        reports = await asyncio.gather(
            *(client.service_report(t, start_date=day, end_date=day) for t in task_ids)
        )
    return sum(len(records) for report in reports for records in report.values())


def main() -> int:
    logging.basicConfig(level=logging.WARNING)  # DEBUG shows requests, retries, refreshes
    day = datetime.date.today() - datetime.timedelta(days=1)
    with monapi.Client() as client:  # every setting from MONAPI_* variables
        token = client.login()
        print(f"logged in: {token!r}")  # the repr never shows the token itself

        tasks = list(client.iter_service_tasks())
        kinds = Counter(t["task_type"] for t in tasks)
        print(f"{len(tasks)} service tasks: " + ", ".join(f"{k} {n}" for k, n in kinds.items()))

        agents = client.agents()
        plugins = sum(len(a["plugin"]) for a in agents.values())
        print(f"{len(agents)} agents with {plugins} plugins")

        first = tasks[0]
        report = client.service_report(first["task_id"], start_date=day, end_date=day)
        print(f"service report of {first['task_name']} ({first['task_type']}) on {day}:")
        print("  " + summarize_service_report(report))

        site = client.site_report(20001, start_date=day, end_date=day)
        for point_id, point in site.items():
            checks = point["resptime"]
            avg = [float(c["resptime_avg"]) for c in checks.values()]
            faults = (point["fault"] or {}).get("count", 0)
            mean = sum(avg) / len(avg) if avg else float("nan")
            print(
                f"  site 20001 point {point_id} ({point['name']}): {len(checks)} checks, "
                f"mean response {mean:.1f} ms, {faults} faults"
            )

        buckets = client.response_time_distribution(20001, start_date=day, end_date=day)
        print("response-time distribution of site 20001:")
        for bucket in buckets.values():
            print(f"  {bucket['start']:>5}-{bucket['end']:<5} ms  {bucket['percent']:>6} %")

        try:
            client.service_report(424242)
        except monapi.ApiError as error:
            print(f"an unknown task: HTTP {error.status_code}, code {error.code}: {error.message}")

    records = asyncio.run(fetch_reports_concurrently([t["task_id"] for t in tasks[:20]], day))
    print(f"async: 20 service reports fetched concurrently, {records} records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
