"""monapi against requests, httpx (+json, +orjson) and aiohttp, on one release-built emulator.

Three workloads, each timed for every client in the same run:

1. sequential small calls (the agent list, and a page of the service task list);
2. 1,000 concurrent report fetches (async: monapi.AsyncClient against aiohttp);
3. one multi-megabyte report (a service report of a frequency-1 task over 30 days).

Every client gets a parsed Python object with the same content; the peers reuse one
access token taken by monapi (the emulator takes it in the query string, as the service
does). Run with the release wheel installed: `make python-bench`.

    python bench/python/bench.py [--serve target/release/monapi] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import importlib.metadata
import json
import os
import platform
import re
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlencode

import aiohttp
import httpx
import orjson
import requests

import monapi
from monapi.testing import Emulator

PEERS = ("requests", "httpx", "orjson", "aiohttp")


def compare(contenders: dict[str, Callable[[], Any]], repeat: int, rounds: int) -> dict[str, float]:
    """Best seconds per call of each contender over `rounds` rounds of `repeat` calls. The
    contenders take turns within each round, in a rotated order, so that a slow spell of
    this shared machine falls on all of them rather than on whichever ran then."""
    names = list(contenders)
    for call in contenders.values():
        call()  # warm up (connections, caches)
    best = dict.fromkeys(names, float("inf"))
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            call = contenders[name]
            gc.collect()
            started = time.perf_counter()
            for _ in range(repeat):
                call()
            best[name] = min(best[name], (time.perf_counter() - started) / repeat)
    return best


def rounds_async(
    contenders: dict[str, Callable[[], Coroutine[Any, Any, Any]]],
    rounds: int,
    cleanup: Callable[[], Coroutine[Any, Any, Any]],
) -> dict[str, list[float]]:
    """Seconds per batch of concurrent calls of each contender, one per round; the
    contenders take turns within each round in a rotated order, all in one event loop,
    which `cleanup` ends with."""

    async def main() -> dict[str, list[float]]:
        names = list(contenders)
        for make in contenders.values():
            await make()  # warm up
        seconds: dict[str, list[float]] = {name: [] for name in names}
        for round_ in range(rounds):
            for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                gc.collect()
                started = time.perf_counter()
                await contenders[name]()
                seconds[name].append(time.perf_counter() - started)
        await cleanup()
        return seconds

    return asyncio.run(main())


def compare_async(
    contenders: dict[str, Callable[[], Coroutine[Any, Any, Any]]],
    rounds: int,
    cleanup: Callable[[], Coroutine[Any, Any, Any]],
) -> dict[str, float]:
    """`compare` for batches of concurrent calls: best seconds per batch (`rounds_async`)."""
    return {
        name: min(seconds) for name, seconds in rounds_async(contenders, rounds, cleanup).items()
    }


class Server:
    """The emulator: in this process (monapi.testing) or `monapi serve` in another."""

    def __init__(self, serve: str | None) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.emulator: Emulator | None = None
        if serve:
            self.process = subprocess.Popen(
                [serve, "serve", "--port", "0"],
                stderr=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                text=True,
            )
            assert self.process.stderr is not None
            deadline = time.monotonic() + 20
            self.base_url = ""
            while time.monotonic() < deadline and not self.base_url:
                line = self.process.stderr.readline()
                found = re.search(r"listening on (http://\S+)", line)
                if found:
                    self.base_url = found.group(1)
            if not self.base_url:
                raise SystemExit("monapi serve did not start")
            self.where = f"`{serve} serve` (own process)"
        else:
            self.emulator = Emulator()
            self.base_url = self.emulator.base_url
            self.where = "monapi.testing.Emulator (in this process, own thread)"

    def close(self) -> None:
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=10)
        if self.emulator:
            self.emulator.stop()


def raw_socket_get(base: str, path_and_query: str) -> Callable[[], bytes]:
    """The floor: one keep-alive socket, a prebuilt request, the body read by its length and
    not parsed. No client can answer faster than the round trip this measures."""
    where = urllib.parse.urlsplit(base)
    assert where.hostname and where.port
    sock = socket.create_connection((where.hostname, where.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = f"GET {path_and_query} HTTP/1.1\r\nHost: {where.netloc}\r\n\r\n".encode()

    def get() -> bytes:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        found = re.search(rb"content-length: *(\d+)", head, re.IGNORECASE)
        assert head.startswith(b"HTTP/1.1 200") and found, head
        while len(body) < int(found.group(1)):
            body += sock.recv(65536)
        return body

    return get


def demo_credentials(base_url: str) -> dict[str, Any]:
    """The emulator's demo account, as `monapi.Client` takes it."""
    return {
        "base_url": base_url,
        "client_id": monapi.testing.DEMO_CLIENT_ID,
        "client_secret": monapi.testing.DEMO_CLIENT_SECRET,
        "username": monapi.testing.DEMO_USERNAME,
        "password": monapi.testing.DEMO_PASSWORD,
    }


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "python": platform.python_version(),
        "monapi": monapi.__version__,
        **{name: importlib.metadata.version(name) for name in PEERS},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--serve", help="run `BIN serve --port 0` instead of the in-process emulator"
    )
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument("--concurrency", type=int, default=1000)
    args = parser.parse_args()
    small_repeat = 200 if args.quick else 500
    rounds = 3 if args.quick else 7
    large_rounds = 2 if args.quick else 7
    async_rounds = 2 if args.quick else 5

    server = Server(args.serve)
    base = server.base_url
    credentials = demo_credentials(base)
    client = monapi.Client(**credentials)
    token = client.login()["access_token"]
    day = datetime.date.today() - datetime.timedelta(days=1)
    frequency_1 = next(t for t in client.iter_service_tasks() if t["frequency"] == "1")
    start = day - datetime.timedelta(days=29)
    results: dict[str, dict[str, float]] = {}
    print(f"server: {server.where} at {base}")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()))

    session = requests.Session()
    hx = httpx.Client()

    def params(extra: dict[str, str] | None = None) -> dict[str, str]:
        return {**(extra or {}), "access_token": token}

    # 1. sequential small calls ---------------------------------------------------------
    small: dict[str, tuple[str, dict[str, str], Callable[[], Any]]] = {
        "agents": ("/v2/agent/lists.json", {}, client.agents),
        "service_tasks page": ("/v2/service/lists.json", {"page": "1"}, client.service_tasks),
    }

    def small_timings(url: str, query: dict[str, str], call: Callable[[], Any]) -> dict[str, float]:
        expected = call()
        assert session.get(url, params=params(query)).json() == expected
        assert orjson.loads(hx.get(url, params=params(query)).content) == expected
        floor = raw_socket_get(base, f"{url.removeprefix(base)}?{urlencode(params(query))}")
        assert json.loads(floor()) == expected
        return compare(
            {
                "monapi (sync)": call,
                "requests + json": lambda: session.get(url, params=params(query)).json(),
                "httpx + json": lambda: hx.get(url, params=params(query)).json(),
                "httpx + orjson": lambda: orjson.loads(hx.get(url, params=params(query)).content),
                "floor: raw socket, prebuilt request, body not parsed": floor,
            },
            small_repeat,
            rounds,
        )

    for name, (path, query, call) in small.items():
        results[f"small: {name}"] = small_timings(base + path, query, call)

    # 2. concurrent report fetches (async) ----------------------------------------------
    n = args.concurrency
    sites = [20001 + i % 5 for i in range(n)]
    site_query = {"start_date": day.isoformat(), "end_date": day.isoformat(), "monitor": "0"}
    aclient = monapi.AsyncClient(**credentials, token=client.token)

    async def monapi_batch() -> list[Any]:
        return list(
            await asyncio.gather(
                *(aclient.site_report(s, start_date=day, end_date=day, monitor=0) for s in sites)
            )
        )

    sessions: dict[int, aiohttp.ClientSession] = {}

    def aiohttp_batch(
        loads: Callable[[bytes], Any], limit: int
    ) -> Callable[[], Coroutine[Any, Any, list[Any]]]:
        async def one(session: aiohttp.ClientSession, site: int) -> Any:
            url = f"{base}/v2/site/report/{site}.json"
            async with session.get(url, params=params(site_query)) as response:
                return loads(await response.read())

        async def batch() -> list[Any]:
            if limit not in sessions:  # one session a pool size, created in the loop
                sessions[limit] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit))
            return list(await asyncio.gather(*(one(sessions[limit], s) for s in sites)))

        return batch

    async def close_sessions() -> None:
        for session in sessions.values():
            await session.close()

    first = asyncio.run(monapi_batch())
    assert first[0] == client.site_report(sites[0], start_date=day, end_date=day, monitor=0)
    del first  # each scenario starts from the same heap: no 2.6 million objects left over
    body_size = len(
        session.get(f"{base}/v2/site/report/{sites[0]}.json", params=params(site_query)).content
    )
    key = f"async: {n} concurrent site reports ({body_size / 1024:.0f} KiB each)"
    async_contenders: dict[str, Callable[[], Coroutine[Any, Any, list[Any]]]] = {
        "monapi (async)": monapi_batch
    }
    for limit in (100, 0):
        label = "default pool (100)" if limit else "unlimited pool"
        async_contenders[f"aiohttp + json, {label}"] = aiohttp_batch(json.loads, limit)
        async_contenders[f"aiohttp + orjson, {label}"] = aiohttp_batch(orjson.loads, limit)
    results[key] = compare_async(async_contenders, async_rounds, close_sessions)

    # 3. one large report ---------------------------------------------------------------
    report_path = f"/v2/service/report/{frequency_1['task_id']}.json"
    report_query = {"start_date": start.isoformat(), "end_date": day.isoformat()}
    url = base + report_path
    body = hx.get(url, params=params(report_query)).content
    expected = client.service_report(frequency_1["task_id"], start_date=start, end_date=day)
    assert orjson.loads(body) == expected
    key = f"large: 30-day service report ({len(body) / 1e6:.1f} MB)"
    fetch = client.service_report
    results[key] = compare(
        {
            "monapi (sync)": lambda: fetch(frequency_1["task_id"], start_date=start, end_date=day),
            "requests + json": lambda: session.get(url, params=params(report_query)).json(),
            "httpx + json": lambda: hx.get(url, params=params(report_query)).json(),
            "httpx + orjson": lambda: orjson.loads(
                hx.get(url, params=params(report_query)).content
            ),
            "orjson.loads alone (no HTTP)": lambda: orjson.loads(body),
            "json.loads alone (no HTTP)": lambda: json.loads(body),
        },
        1,
        large_rounds,
    )

    # report ----------------------------------------------------------------------------
    print()
    for workload, timings in results.items():
        ours = next(v for k, v in timings.items() if k.startswith("monapi"))
        print(f"| {workload} | time per op | monapi speed-up |")
        print("|---|---:|---:|")
        for name, seconds in timings.items():
            ratio = "" if name.startswith("monapi") else f"{seconds / ours:.2f}x"
            unit = f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"
            print(f"| {name} | {unit} | {ratio} |")
        print()
    aclient.close()
    client.close()
    hx.close()
    session.close()
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
