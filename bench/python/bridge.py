"""The package's own asyncio bridge against pyo3-async-runtimes, on the same calls.

Both contenders await the same `AsyncClient` calls: the core future and the conversion of
its result are the same objects, and both run on the package's tokio runtime; only the way a
result reaches the event loop differs:

- own bridge (`bindings-python/src/runtime.rs`): a finished call is queued without the GIL
  and the loop is woken once through a socket; the loop's thread builds every queued result
  in one go;
- pyo3-async-runtimes 0.30 (`future_into_py`): each finished call takes the GIL on a
  blocking thread, builds its result there and hands it to the loop with
  `call_soon_threadsafe`, one wake-up per result.

Two workloads: 1,000 concurrent site reports (one day, the average only) and 10,000
concurrent tiny calls (the agent list). The contenders take turns round after round, in
alternating order; the table gives the median, best and worst batch of each (wall time), the
ratio of the medians, and the median CPU time of this process per batch (all its threads: on
a machine shared with other work it moves less than the wall time). Needs the wheel built
with the cargo feature `bench-bridge` (`make python-bench` builds it; the shipped wheel does
not carry it).

    python bench/python/bridge.py [--serve target/release/monapi] [--rounds 9]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import monapi
from bench import Server, machine, rounds_async
from monapi import _native

OWN = "own bridge (runtime.rs)"
LIBRARY = "pyo3-async-runtimes 0.30"
# Keep the bridge only if it is at least this much faster on one of the workloads.
DECISION_RATIO = 1.2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--serve", help="run `BIN serve --port 0` instead of the in-process emulator"
    )
    parser.add_argument("--rounds", type=int, default=9, help="batches of each contender")
    parser.add_argument("--reports", type=int, default=1000, help="concurrent site reports")
    parser.add_argument("--tiny", type=int, default=10000, help="concurrent agent lists")
    args = parser.parse_args()
    via_library: Callable[[Any], Awaitable[Any]] | None = getattr(
        _native, "_bench_via_library", None
    )
    if via_library is None:
        raise SystemExit("needs the wheel built with the cargo feature bench-bridge")

    server = Server(args.serve)
    client = monapi.AsyncClient(
        base_url=server.base_url,
        client_id=monapi.testing.DEMO_CLIENT_ID,
        client_secret=monapi.testing.DEMO_CLIENT_SECRET,
        username=monapi.testing.DEMO_USERNAME,
        password=monapi.testing.DEMO_PASSWORD,
    )
    day = datetime.date.today() - datetime.timedelta(days=1)
    sites = [20001 + i % 5 for i in range(args.reports)]

    def reports() -> list[Any]:
        return [client.site_report(s, start_date=day, end_date=day, monitor=0) for s in sites]

    def agents() -> list[Any]:
        return [client.agents() for _ in range(args.tiny)]

    cpu: dict[str, list[float]] = {OWN: [], LIBRARY: []}

    def contenders(
        calls: Callable[[], list[Any]],
    ) -> dict[str, Callable[[], Coroutine[Any, Any, list[Any]]]]:
        async def own() -> list[Any]:
            started = time.process_time()
            results = list(await asyncio.gather(*calls()))
            cpu[OWN].append(time.process_time() - started)
            return results

        async def library() -> list[Any]:
            started = time.process_time()
            results = list(await asyncio.gather(*(via_library(call) for call in calls())))
            cpu[LIBRARY].append(time.process_time() - started)
            return results

        return {OWN: own, LIBRARY: library}

    async def same_results() -> None:
        await client.login()
        for calls in (reports, agents):
            both = contenders(calls)
            assert await both[OWN]() == await both[LIBRARY](), calls.__name__

    async def nothing() -> None:
        pass

    asyncio.run(same_results())
    print(f"server: {server.where} at {server.base_url}")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()))
    print(f"rounds: {args.rounds} batches of each contender per workload, turns alternating")
    print()
    print(
        f"| workload | {OWN}: median (best-worst) | {LIBRARY}: median (best-worst) | ratio "
        f"| CPU per batch: {OWN} / {LIBRARY} |"
    )
    print("|---|---:|---:|---:|---:|")
    ratios = []
    for label, calls in (
        (f"{args.reports} concurrent site reports", reports),
        (f"{args.tiny} concurrent tiny calls (agents)", agents),
    ):
        for times in cpu.values():
            times.clear()
        seconds = rounds_async(contenders(calls), args.rounds, nothing)
        median = {name: statistics.median(times) for name, times in seconds.items()}
        ratio = median[LIBRARY] / median[OWN]
        ratios.append(ratio)
        cells = [
            f"{median[name] * 1e3:.0f} ms ({min(times) * 1e3:.0f}-{max(times) * 1e3:.0f})"
            for name, times in seconds.items()
        ]
        # The warm-up batch of each contender is left out, as for the wall times.
        busy = [f"{statistics.median(times[1:]) * 1e3:.0f} ms" for times in cpu.values()]
        print(f"| {label} | {cells[0]} | {cells[1]} | {ratio:.2f}x | {busy[0]} / {busy[1]} |")
    print()
    keep = max(ratios) >= DECISION_RATIO
    verdict = "keep the own bridge" if keep else "switch to pyo3-async-runtimes"
    print(
        f"ratio = median({LIBRARY}) / median({OWN}); above 1 the own bridge is faster. "
        f"Rule: keep it if >= {DECISION_RATIO}x on one workload: {verdict}."
    )
    client.close()
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
