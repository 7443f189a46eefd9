"""The default of `max_connections`, measured: 1,000 concurrent site reports (async) with
several connection caps, and how many connections each opened.

The caps take turns within each round, in a rotated order (a slow spell of this shared
machine falls on all of them); each keeps its best round. The emulator runs in this process
on its own thread (`monapi.testing.Emulator`), as every cap sees it alike.

`--latency` delays every answer of the emulator (seconds), as a service across a network would.

    python bench/python/connections.py [--rounds 5] [--caps 10,25,50,100,250,1000] [--latency 0]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import time
from typing import Any

import monapi
from monapi.testing import Emulator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--caps", default="10,25,50,100,250,1000")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    caps = [int(c) for c in args.caps.split(",")]
    day = datetime.date.today()
    sites = [20001 + i % 5 for i in range(args.concurrency)]

    with Emulator() as emulator:
        token = emulator.client().login()
        emulator.set_latency(args.latency)

        async def batch(client: monapi.AsyncClient) -> list[Any]:
            calls = (client.site_report(s, start_date=day, end_date=day, monitor=0) for s in sites)
            return list(await asyncio.gather(*calls))

        async def run() -> dict[int, tuple[float, int]]:
            clients = {cap: emulator.async_client(token=token, max_connections=cap) for cap in caps}
            opened = dict.fromkeys(caps, 0)
            for cap, client in clients.items():  # warm up: connections, caches
                before = emulator.counters()["connections"]
                await batch(client)
                opened[cap] = emulator.counters()["connections"] - before
            best = dict.fromkeys(caps, float("inf"))
            for round_ in range(args.rounds):
                for cap in caps[round_ % len(caps) :] + caps[: round_ % len(caps)]:
                    gc.collect()
                    before = emulator.counters()["connections"]
                    started = time.perf_counter()
                    await batch(clients[cap])
                    best[cap] = min(best[cap], time.perf_counter() - started)
                    opened[cap] += emulator.counters()["connections"] - before
            for client in clients.values():
                client.close()
            return {cap: (best[cap], opened[cap]) for cap in caps}

        results = asyncio.run(run())
    fastest = min(seconds for seconds, _ in results.values())
    print(
        f"{args.concurrency} concurrent site reports, {args.latency * 1000:.0f} ms latency,"
        f" best of {args.rounds} rounds"
    )
    print("| max_connections | best batch | vs fastest | connections opened (all rounds) |")
    print("|---:|---:|---:|---:|")
    for cap, (seconds, opened) in results.items():
        print(f"| {cap} | {seconds * 1000:.0f} ms | {seconds / fastest:.2f}x | {opened} |")


if __name__ == "__main__":
    main()
