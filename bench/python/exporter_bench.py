"""`monapi exporter` with 1,000 site tasks of 6 points each, the emulator answering after 20 ms.

1. the first refresh (the 30 days of every site, and today) and its peak RSS;
2. a refresh of the days not settled (SIGHUP): its time and the reports it asked for;
3. the exporter's RSS once refreshed;
4. scrapes as Prometheus makes them (gzip, a kept-alive connection) and plain ones: the time
   from the request to the last byte, and the exposition's size and series.

Run with the release binary: `make exporter-bench`.

    python bench/python/exporter_bench.py --serve target/release/monapi --profile loopback|wan
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from network import PROFILES, Server

from bench import demo_credentials

SITES = 1000
POINTS = 6
LATENCY_MS = 20


def counters(base_url: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{base_url}/_emulator/counters") as answer:
        found: dict[str, int] = json.load(answer)
        return found


def memory(pid: int) -> tuple[float, float]:
    """The process's RSS and peak RSS, in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    kib = [int(fields[name].split()[0]) for name in ("VmRSS", "VmHWM")]
    return kib[0] / 1024, kib[1] / 1024


class Exporter:
    def __init__(self, binary: str, base_url: str, *args: str) -> None:
        account = demo_credentials(base_url)
        env = {**os.environ, **{f"MONAPI_{k.upper()}": str(v) for k, v in account.items()}}
        command = [binary, "exporter", "--listen", "127.0.0.1:0", *args]
        self.process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        self.port = 0
        ready = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
                if found:
                    self.port = int(found.group(1))
                    ready.set()
                elif line.strip():
                    print("exporter:", line.rstrip())

        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(30)
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def scrape(self, gzip: bool) -> tuple[float, bytes]:
        headers = {"Accept-Encoding": "gzip"} if gzip else {}
        started = time.perf_counter()
        self.connection.request("GET", "/metrics", headers=headers)
        body = self.connection.getresponse().read()
        return time.perf_counter() - started, body

    def value(self, name: str) -> float | None:
        _, body = self.scrape(False)
        found = re.search(rf"^{name} (\S+)$", body.decode(), re.MULTILINE)
        return float(found.group(1)) if found else None

    def refreshed_after(self, after: float, limit: float = 3600) -> float:
        """Waits for a refresh that ended after `after`; its end time."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            ended = self.value("monapi_last_refresh_timestamp_seconds")
            if ended is not None and ended > after:
                return ended
            time.sleep(0.5)
        raise SystemExit("no refresh")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", required=True, help="the monapi binary (release)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="loopback")
    options = parser.parse_args()
    emulator = Server(
        options.serve,
        options.profile,
        extra=[
            "--site-tasks", str(SITES),
            "--site-points", str(POINTS),
            "--latency-ms", str(LATENCY_MS),
            "--service-tasks", "120",
            # The world the recorded figures were measured on: faults in every site's report.
            "--world", "stressed",
        ],
    )  # fmt: skip
    # An hour between refreshes: the first one (30 days) takes longer than the default 5
    # minutes, and the next would then start at once, overlapping the one measured.
    exporter = Exporter(options.serve, emulator.base_url, "--slo", "0.999", "--interval", "3600")
    try:
        started = time.time()
        first_end = exporter.refreshed_after(0)
        first = exporter.value("monapi_last_refresh_duration_seconds")
        rss, peak = memory(exporter.process.pid)
        print(
            f"first refresh (30 days of {SITES} sites): {first:.1f} s; "
            f"RSS {rss:.0f} MiB, peak {peak:.0f} MiB"
        )
        print(f"  (started {first_end - started:.1f} s after launch)")
        before = counters(emulator.base_url)
        exporter.process.send_signal(signal.SIGHUP)
        exporter.refreshed_after(first_end)
        again = exporter.value("monapi_last_refresh_duration_seconds")
        after = counters(emulator.base_url)
        asked = after["site_report"] - before["site_report"]
        print(f"refresh of the unsettled days: {again:.2f} s, {asked} site reports, "
              f"{after['service_report'] - before['service_report']} service reports")  # fmt: skip
        rss, peak = memory(exporter.process.pid)
        print(f"RSS once refreshed: {rss:.0f} MiB (peak {peak:.0f} MiB)")
        for gzip, count in ((True, 50), (False, 20)):
            times = []
            body = b""
            for _ in range(count):
                took, body = exporter.scrape(gzip)
                times.append(took * 1000)
            times.sort()
            kind = "gzip" if gzip else "plain"
            p95 = times[int(len(times) * 0.95) - 1]
            print(
                f"scrape ({kind}, {count}x): median {statistics.median(times):.1f} ms, "
                f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms, {len(body) / 1e6:.1f} MB"
            )
        _, plain = exporter.scrape(False)
        series = sum(1 for line in plain.split(b"\n") if line and not line.startswith(b"#"))
        print(f"exposition: {series} series, {len(plain) / 1e6:.1f} MB plain")
        rss, peak = memory(exporter.process.pid)
        print(f"RSS after the scrapes: {rss:.0f} MiB (peak {peak:.0f} MiB)")
    finally:
        exporter.close()
        emulator.close()


if __name__ == "__main__":
    main()
