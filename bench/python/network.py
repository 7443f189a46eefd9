"""monapi against requests, httpx (+orjson) and aiohttp on one network profile, each client
with its usual compression, every table with a floor row.

The profile is the emulator's link: `loopback` (as fast as the machine goes) or `wan`
(50 Mbit/s shared by every connection, 40 ms round trip: `monapi serve --bandwidth-mbps 50
--rtt-ms 40`). The emulator gzips answers when asked, as the service's front end does.
requests, httpx and aiohttp ask for gzip by default, and so does monapi.

Workloads:

1. small calls on a kept-alive connection (the agent list), calls per second;
2. the first call of a new client over TLS (the emulator's `--tls`), the token known;
3. the 30-day service report of an every-minute task and the 30-day site report, as dicts;
4. the 30-day service report as a table (`to_pandas()`, `to_polars()`);
5. the bulk tables of 120 tasks x 7 days, 8 at once, against aiohttp at the same concurrency.

The floor of each: the same compressed bytes received over one prebuilt request per
connection and discarded. Run with the release wheel installed: `make python-bench`.

    python bench/python/network.py --serve target/release/monapi --profile wan [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import orjson
import requests

import monapi
from bench import compare, demo_credentials

PROFILES = {"loopback": [], "wan": ["--bandwidth-mbps", "50", "--rtt-ms", "40"]}


class Server:
    """`monapi serve` in its own process, on the profile's link."""

    def __init__(
        self, serve: str, profile: str, tls: bool = False, extra: list[str] | None = None
    ) -> None:
        command = [serve, "serve", "--port", "0", *PROFILES[profile], *(extra or [])]
        self.process = subprocess.Popen(
            [*command, *(["--tls"] if tls else [])],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stderr is not None
        deadline = time.monotonic() + 20
        self.base_url = ""
        self.ca: str | None = None
        while time.monotonic() < deadline and not self.base_url:
            line = self.process.stderr.readline()
            found = re.search(r"listening on (https?://\S+)", line)
            if found:
                self.base_url = found.group(1)
                ca = re.search(r"private CA certificate: ([^;]+);", line)
                self.ca = ca.group(1) if ca else None
        if not self.base_url:
            raise SystemExit("monapi serve did not start")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class RawConnection:
    """The floor: one kept-alive socket, a prebuilt request asking for gzip, the body read by
    its length and discarded. No client receives the same bytes sooner."""

    def __init__(self, base: str) -> None:
        where = urllib.parse.urlsplit(base)
        assert where.hostname and where.port
        self.address = (where.hostname, where.port)
        self.netloc = where.netloc
        self.sock = socket.create_connection(self.address)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def get(self, path_and_query: str) -> int:
        """The compressed body's length."""
        request = (
            f"GET {path_and_query} HTTP/1.1\r\nHost: {self.netloc}\r\nAccept-Encoding: gzip\r\n\r\n"
        ).encode()
        self.sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"content-length: *(\d+)", head, re.IGNORECASE)
        assert head.startswith(b"HTTP/1.1 200") and length, head
        remaining = int(length.group(1)) - len(body)
        while remaining > 0:
            remaining -= len(self.sock.recv(min(remaining, 1 << 20)))
        return int(length.group(1))


def report(title: str, timings: dict[str, float], per_second: bool = False) -> None:
    ours = next(v for k, v in timings.items() if k.startswith("monapi"))
    floor = next(v for k, v in timings.items() if k.startswith("floor"))
    print(f"\n{title}\n| contender | {'calls/s' if per_second else 'time'} | / monapi | / floor |")
    print("|---|---:|---:|---:|")
    for name, seconds in timings.items():
        shown = f"{1 / seconds:.0f}" if per_second else f"{seconds * 1e3:.0f} ms"
        print(f"| {name} | {shown} | {seconds / ours:.2f}x | {seconds / floor:.2f}x |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", default="target/release/monapi", help="the monapi binary")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="wan")
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    rounds = 2 if args.quick else 5
    wan = args.profile == "wan"

    server = Server(args.serve, args.profile)
    base = server.base_url
    credentials = demo_credentials(base)
    client = monapi.Client(**credentials)
    token = client.login()["access_token"]
    day = datetime.date.today() - datetime.timedelta(days=1)
    start = day - datetime.timedelta(days=29)
    tasks = list(client.iter_service_tasks())
    every_minute = next(int(t["task_id"]) for t in tasks if t["frequency"] == "1")
    print(f"profile: {args.profile} ({' '.join(PROFILES[args.profile]) or 'no link model'})")

    session = requests.Session()
    hx = httpx.Client(timeout=60)
    raw = RawConnection(base)

    def query(extra: dict[str, str]) -> dict[str, str]:
        return {**extra, "access_token": token}

    def path(url: str, extra: dict[str, str]) -> str:
        return f"{url.removeprefix(base)}?{urllib.parse.urlencode(query(extra))}"

    # 1. small calls ----------------------------------------------------------------------
    agents = base + "/v2/agent/lists.json"
    assert session.get(agents, params=query({})).json() == client.agents()
    small = compare(
        {
            "monapi (sync)": client.agents,
            "requests + json": lambda: session.get(agents, params=query({})).json(),
            "httpx + orjson": lambda: orjson.loads(hx.get(agents, params=query({})).content),
            "floor: raw socket, gzip, discarded": lambda: raw.get(path(agents, {})),
        },
        25 if wan else 500,
        rounds,
    )
    report("small calls on a kept-alive connection (the agent list)", small, per_second=True)

    # 2. large answers as dicts -------------------------------------------------------------
    dates = {"start_date": start.isoformat(), "end_date": day.isoformat()}
    large: dict[str, tuple[str, dict[str, str], Callable[[], Any]]] = {
        "30-day service report, every-minute task": (
            f"{base}/v2/service/report/{every_minute}.json",
            dates,
            lambda: client.service_report(every_minute, start_date=start, end_date=day),
        ),
        "30-day site report": (
            f"{base}/v2/site/report/20001.json",
            dates,
            lambda: client.site_report(20001, start_date=start, end_date=day),
        ),
    }

    def as_dicts(url: str, extra: dict[str, str], ours: Callable[[], Any]) -> dict[str, float]:
        assert orjson.loads(hx.get(url, params=query(extra)).content) == ours()
        return compare(
            {
                "monapi (sync)": ours,
                "requests + json": lambda: session.get(url, params=query(extra)).json(),
                "httpx + json": lambda: hx.get(url, params=query(extra)).json(),
                "httpx + orjson": lambda: orjson.loads(hx.get(url, params=query(extra)).content),
                "floor: raw socket, gzip, discarded": lambda: raw.get(path(url, extra)),
            },
            1,
            rounds,
        )

    for title, (url, extra, ours) in large.items():
        size = len(hx.get(url, params=query(extra)).content) / 1e6
        compressed = raw.get(path(url, extra)) / 1e6
        timings = as_dicts(url, extra, ours)
        report(f"{title} ({size:.1f} MB, {compressed:.2f} MB gzipped), as dicts", timings)

    # 3. the service report as a table ----------------------------------------------------
    url = f"{base}/v2/service/report/{every_minute}.json"
    table = client.tables.service_report(every_minute, start_date=start, end_date=day)
    assert len(table.to_pandas()) == len(table.to_polars()) > 0
    timings = compare(
        {
            "monapi to_pandas()": lambda: client.tables.service_report(
                every_minute, start_date=start, end_date=day
            ).to_pandas(),
            "monapi to_polars()": lambda: client.tables.service_report(
                every_minute, start_date=start, end_date=day
            ).to_polars(),
            "received bare: httpx, decompressed, not parsed": lambda: (
                hx.get(url, params=query(dates)).content
            ),
            "floor: raw socket, gzip, discarded": lambda: raw.get(path(url, dates)),
        },
        1,
        rounds,
    )
    report(f"30-day service report as a table ({len(table)} rows)", timings)

    # 4. bulk tables ------------------------------------------------------------------------
    first = day - datetime.timedelta(days=6)
    week = {"start_date": first.isoformat(), "end_date": day.isoformat()}
    ids = [int(t["task_id"]) for t in tasks]
    paths = [path(f"{base}/v2/service/report/{i}.json", week) for i in ids]
    sessions: list[aiohttp.ClientSession] = []

    async def aiohttp_all() -> None:
        if not sessions:  # created in the loop it serves
            sessions.append(aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=8)))

        async def one(task: int) -> Any:
            async with sessions[0].get(
                f"{base}/v2/service/report/{task}.json", params=query(week)
            ) as response:
                return orjson.loads(await response.read())

        await asyncio.gather(*(one(i) for i in ids))

    loop = asyncio.new_event_loop()

    def floor_bulk() -> None:
        queue = list(paths)
        lock = threading.Lock()

        def worker() -> None:
            connection = RawConnection(base)
            while True:
                with lock:
                    if not queue:
                        return
                    one = queue.pop()
                connection.get(one)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    bulk = client.tables.service_reports(ids, concurrency=8, start_date=first, end_date=day)
    timings = compare(
        {
            "monapi service_reports(concurrency=8)": lambda: client.tables.service_reports(
                ids, concurrency=8, start_date=first, end_date=day
            ),
            "aiohttp + orjson, limit=8": lambda: loop.run_until_complete(aiohttp_all()),
            "floor: 8 raw sockets, gzip, discarded": floor_bulk,
        },
        1,
        max(2, rounds // 2),
    )
    report(f"bulk tables, {len(ids)} tasks x 7 days ({len(bulk)} rows), 8 at once", timings)
    loop.run_until_complete(sessions[0].close())
    loop.close()
    client.close()
    server.close()

    # 5. the first call of a new client over TLS ---------------------------------------------
    secure = Server(args.serve, args.profile, tls=True)
    assert secure.ca
    context = ssl.create_default_context(cafile=secure.ca)
    seed = monapi.Client(**{**credentials, "base_url": secure.base_url}, ca_bundle=secure.ca)
    access_token = seed.login()["access_token"]
    url = secure.base_url + "/v2/agent/lists.json"

    def monapi_first() -> Any:
        fresh = monapi.Client(
            **{**credentials, "base_url": secure.base_url}, ca_bundle=secure.ca, token=seed.token
        )
        try:
            return fresh.agents()
        finally:
            fresh.close()

    def requests_first() -> Any:
        with requests.Session() as fresh:
            return fresh.get(url, params={"access_token": access_token}, verify=secure.ca).json()

    def floor_first() -> None:
        where = urllib.parse.urlsplit(secure.base_url)
        assert where.hostname and where.port
        with (
            socket.create_connection((where.hostname, where.port)) as sock,
            context.wrap_socket(sock, server_hostname=where.hostname),
        ):
            pass

    timings = compare(
        {
            "monapi (new Client)": monapi_first,
            "requests (new Session)": requests_first,
            "floor: TCP + TLS handshake alone": floor_first,
        },
        1,
        rounds,
    )
    report("first call of a new client over TLS (the agent list)", timings)
    seed.close()
    secure.close()
    session.close()
    hx.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
