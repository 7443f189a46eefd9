"""Compressed answers: every call asks for them, and gzip or deflate decode to exactly what the
identity answer gives (dicts and tables); a corrupt gzip body is a DecodeError, retried; an
answer past ``max_response_bytes`` fails naming it, with memory bounded; a slow link's bytes
take their time."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Callable
from typing import Any, Literal

import pytest

import monapi
from monapi.testing import Emulator

START, END = "2026-03-01", "2026-03-03"

READS: list[Callable[[monapi.Client], Any]] = [
    lambda c: c.agents(),
    lambda c: c.service_tasks(),
    lambda c: c.service_report(10001, start_date=START, end_date=END),
    lambda c: c.site_report(20001, start_date=START, end_date=END),
    lambda c: c.response_time_distribution(20001, start_date=START, end_date=END),
    lambda c: c.site_tasks(),
    lambda c: c.site_task(20001),
    lambda c: c.monitors(),
    lambda c: c.users(),
    lambda c: c.user_groups(),
    lambda c: c.tables.service_report(10001, start_date=START, end_date=END).to_arrow(),
    lambda c: [
        table.to_arrow() for table in c.tables.site_report(20001, start_date=START, end_date=END)
    ],
]


def results(compression: list[Literal["gzip", "deflate"]]) -> list[Any]:
    with Emulator(compression=compression) as emulator, emulator.client() as client:
        out = [read(client) for read in READS]
        counters = emulator.counters()
    # Every call asked for a compressed answer; this emulator gave one when it had any.
    assert counters["compressed"] == (counters["total"] if compression else 0)
    return out


def test_every_answer_decodes_to_what_the_identity_answer_gives() -> None:
    identity = results([])
    assert results(["gzip"]) == identity
    assert results(["deflate"]) == identity


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"compression": ["br"]}, "compression"),
        ({"bandwidth_mbps": 0.0}, "bandwidth_mbps"),
        ({"rtt_ms": 20_000.0}, "rtt_ms"),
    ],
)
def test_the_emulator_refuses_settings_out_of_its_ranges(
    options: dict[str, Any], field: str
) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        Emulator(**options)
    assert caught.value.field == field


def test_a_corrupt_gzip_body_is_a_decode_error_and_a_read_is_retried(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.set_faults(next=["corrupt_gzip"])
    assert client.agents()
    assert emulator.counters()["agents"] == 2
    with emulator.client(max_retries=0) as once:
        once.login()
        emulator.set_faults(next=["corrupt_gzip"])
        with pytest.raises(monapi.DecodeError, match=r"does not decompress \(.+\)$") as raised:
            once.agents()
    # No body was read, and the message shows none.
    assert raised.value.snippet == "" and "body starts" not in str(raised.value)


def test_an_answer_past_the_limit_fails_naming_the_setting(emulator: Emulator) -> None:
    small = emulator.client(max_response_bytes=4096)
    with pytest.raises(monapi.DecodeError, match="larger than max_response_bytes"):
        small.service_report(10001, start_date=START, end_date=END)
    assert emulator.counters()["service_report"] == 1  # not repeated
    with pytest.raises(monapi.ValidationError) as refused:
        emulator.client(max_response_bytes=0)
    assert refused.value.field == "max_response_bytes"


# The child process is the client only (the emulator, and its reports, live in this one):
# its peak memory grows by what the client holds.
CHILD = textwrap.dedent(
    """
    import sys
    import monapi

    def peak_mib():
        # VmHWM: this process's peak since its exec (ru_maxrss would carry the forking
        # parent's over exec).
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024

    base_url, limit = sys.argv[1], int(sys.argv[2])
    args = dict(base_url=base_url, client_id="demo_id", client_secret="demo_secret",
                username="test@example.com", password="123456")
    dates = dict(start_date="2026-02-01", end_date="2026-03-02")
    with monapi.Client(**args, max_response_bytes=limit) as small:
        small.login()
        before = peak_mib()
        try:
            small.service_report(10001, **dates)
            raise SystemExit("the limit did not apply")
        except monapi.DecodeError:
            pass
        limited = peak_mib() - before
    with monapi.Client(**args) as whole:
        before = peak_mib()
        report = whole.service_report(10001, **dates)
        unlimited = peak_mib() - before
    print(limited, unlimited, len(report))
    """
)


def test_past_the_limit_memory_stays_bounded(emulator: Emulator) -> None:
    # A 30-day report of an every-minute task: 28.8 MB of JSON, about 2.5 MB gzipped.
    run = subprocess.run(
        [sys.executable, "-c", CHILD, emulator.base_url, str(1 << 20)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    limited, unlimited, _ = (float(x) for x in run.stdout.split())
    # With a 1 MiB limit the client holds at most about that; the same answer read whole
    # holds far more (which shows the measure can see it).
    assert limited < 8, (limited, unlimited)
    assert unlimited > 40, (limited, unlimited)


def test_an_answer_crosses_a_slow_link_at_its_bandwidth() -> None:
    # Uncompressed, so that the bytes on the wire are the body's.
    path, params = "/v2/service/report/10001.json", {"start_date": START, "end_date": "2026-03-02"}
    with Emulator(compression=[]) as fast:
        token = fast.client().login()["access_token"]
        url = f"{fast.base_url}{path}?start_date={START}&end_date=2026-03-02&access_token={token}"
        with urllib.request.urlopen(url, timeout=60) as response:
            size = len(response.read())
    assert size > 1_000_000
    with Emulator(compression=[], bandwidth_mbps=8) as emulator, emulator.client() as client:
        client.login()
        started = time.monotonic()
        client.request("GET", path, params)
        elapsed = time.monotonic() - started
    assert elapsed >= size * 8 / 8e6, (elapsed, size)
