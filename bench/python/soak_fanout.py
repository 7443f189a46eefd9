"""The Python client's part of the soak (bench/soak): rounds of N concurrent calls of
`monapi.AsyncClient` (every kind of read, mixed) with `asyncio.gather`, for the warm-up, then
for the measured seconds.

The soak starts this script in a process of its own and samples its memory from outside. It
prints `start` when the warm-up is over, then one line of JSON: calls, errors, rounds, seconds,
the first errors.

    python bench/python/soak_fanout.py --base-url URL --warmup W --seconds S --fanout N \
        --service-tasks ID,...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import monapi
from monapi.testing import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_PASSWORD, DEMO_USERNAME

SITE_TASKS = (20001, 20002, 20003, 20004)
FANOUT_SITE_TASK = 20004  # the one whose report of every point is fetched (65 KiB a day)
ERRORS_SHOWN = 5


def call(client: monapi.AsyncClient, i: int, service_tasks: list[int]) -> Any:
    """Call `i` of a round: the same mix as the Rust and Node fan-outs."""
    site = SITE_TASKS[i // 6 % len(SITE_TASKS)]
    kind = i % 6
    if kind == 0:
        return client.site_report(site, monitor=0)
    if kind == 1:
        return client.site_report(FANOUT_SITE_TASK)
    if kind == 2:
        return client.response_time_distribution(site)
    if kind == 3:
        return client.service_report(service_tasks[i // 6 % len(service_tasks)])
    if kind == 4:
        return client.agents()
    return client.service_tasks(1 + i // 6 % 3)


async def fan_out(args: argparse.Namespace) -> dict[str, Any]:
    service_tasks = [int(task) for task in args.service_tasks.split(",")]
    client = monapi.AsyncClient(
        base_url=args.base_url,
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        username=DEMO_USERNAME,
        password=DEMO_PASSWORD,
    )
    await client.login()
    calls = errors = rounds = 0
    shown: list[str] = []
    started = time.monotonic()
    warm = started + args.warmup
    deadline = warm + args.seconds
    measuring = False
    while time.monotonic() < deadline:
        if not measuring and time.monotonic() >= warm:
            print("start", flush=True)
            measuring = True
        results = await asyncio.gather(
            *(call(client, i, service_tasks) for i in range(args.fanout)), return_exceptions=True
        )
        calls += len(results)
        for result in results:
            if isinstance(result, BaseException):
                errors += 1
                if len(shown) < ERRORS_SHOWN:
                    shown.append(repr(result))
        rounds += 1
    client.close()
    return {
        "calls": calls,
        "errors": errors,
        "rounds": rounds,
        "seconds": time.monotonic() - started,
        "error_samples": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--warmup", type=float, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--fanout", type=int, required=True)
    parser.add_argument("--service-tasks", required=True, help="comma-separated task ids")
    summary = asyncio.run(fan_out(parser.parse_args()))
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
