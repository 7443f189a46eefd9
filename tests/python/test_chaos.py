"""Chaos: 2,000 calls against the emulator while 20% of its answers are faults (every kind the
emulator has, in equal shares), with ``max_retries=3`` and ``Retry-After: 0``.

1,000 calls by ``Client`` and 1,000 by ``AsyncClient``, each 200 one at a time and 800 with 32
in flight (threads for the sync client, ``asyncio.gather`` under a semaphore for the async
one): one at a time, the backoff's waits add up (100 to 200 ms before the first repeat after
a 500, a broken connection or an error page), 32 at once overlap them, which keeps the suite
within about 20 s. Every kind of read and creates (one call in ten). A read's result must
equal the same call's without faults (fetched before the faults are switched on): no wrong
result, every failure a ``monapi.MonapiError``, at least 99% of the reads successful. Each
create carries a ``server_name`` of its own; the emulator must have stored each at most once,
and exactly once when the client saw it succeed.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import monapi
from monapi.testing import Emulator

from helpers import linux_task

FAULT_SHARE = 0.2
CREATE_EVERY = 10
# A past day: its reports do not change while the suite runs.
DAY = "2026-11-01"

# One call: the method's name and its arguments, for the sync and the async client alike.
Call = tuple[str, tuple[Any, ...], dict[str, Any]]


@dataclasses.dataclass
class Tally:
    calls: int = 0
    successes: int = 0
    failures: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    untyped: list[str] = dataclasses.field(default_factory=list)
    wrong: list[str] = dataclasses.field(default_factory=list)
    reads: int = 0
    read_successes: int = 0
    created: list[str] = dataclasses.field(default_factory=list)

    def record(self, call: Call | str, result: Any, reference: Any) -> None:
        """`call` is a read, or the name of the server task a create sent."""
        self.calls += 1
        is_read = not isinstance(call, str)
        self.reads += is_read
        if isinstance(result, monapi.MonapiError):
            self.failures[type(result).__name__] += 1
        elif isinstance(result, BaseException):
            self.untyped.append(repr(result))
        elif is_read and result != reference:
            self.wrong.append(f"{call}: {str(result)[:200]} instead of {str(reference)[:200]}")
        else:
            self.successes += 1
            self.read_successes += is_read
            if isinstance(call, str):
                self.created.append(call)


def reads(client: monapi.Client) -> list[Call]:
    """Every kind of read (no report of a one-minute task: megabytes each)."""
    dates = {"start_date": DAY, "end_date": DAY}
    calls: list[Call] = [("service_tasks", (page,), {}) for page in (1, 2, 3, 4)]
    calls.append(("agents", (), {}))
    small = [t for t in client.service_tasks(1) if t["frequency"] != "1"][:3]
    calls += [("service_report", (t["task_id"],), dates) for t in small]
    for site in (20001, 20002, 20003, 20004):
        calls.append(("site_report", (site,), dates))
        calls.append(("site_report", (site,), {**dates, "monitor": 0}))
        calls.append(("response_time_distribution", (site,), dates))
    return calls


def plan(
    start: int, count: int, references: list[tuple[Call, Any]]
) -> list[tuple[Call | str, Any]]:
    """Calls `start` to `start + count`: a create every tenth, reads in turn otherwise."""
    planned: list[tuple[Call | str, Any]] = []
    for i in range(start, start + count):
        if i % CREATE_EVERY == CREATE_EVERY - 1:
            planned.append((f"chaos-py-{i}", None))
        else:
            planned.append(references[i % len(references)])
    return planned


def sync_call(client: monapi.Client, call: Call | str) -> Any:
    try:
        if isinstance(call, str):
            return client.create_server_tasks([linux_task(call)])
        name, args, kwargs = call
        return getattr(client, name)(*args, **kwargs)
    except BaseException as error:  # everything counts, typed or not
        return error


async def async_call(client: monapi.AsyncClient, call: Call | str) -> Any:
    try:
        if isinstance(call, str):
            return await client.create_server_tasks([linux_task(call)])
        name, args, kwargs = call
        return await getattr(client, name)(*args, **kwargs)
    except BaseException as error:
        return error


def test_two_thousand_calls_under_twenty_percent_faults(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    reference_client = emulator.client()
    references = [
        (call, getattr(reference_client, call[0])(*call[1], **call[2]))
        for call in reads(reference_client)
    ]
    share = FAULT_SHARE / 7  # the seven kinds of fault
    emulator.set_faults(
        error_500=share,
        error_503=share,
        error_429=share,
        drop_connection=share,
        truncated_body=share,
        malformed_body=share,
        corrupt_gzip=share,
        retry_after_secs=0,
    )
    tally = Tally()
    started = time.monotonic()

    # Clients made after the faults are on: their logins meet the faults too.
    sync_client = emulator.client(max_retries=3, timeout=30.0)
    for call, reference in plan(0, 200, references):
        tally.record(call, sync_call(sync_client, call), reference)
    planned = plan(200, 800, references)
    with ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(lambda item: sync_call(sync_client, item[0]), planned, timeout=300))
    for (call, reference), result in zip(planned, results, strict=True):
        tally.record(call, result, reference)

    async def run_async() -> None:
        client = emulator.async_client(max_retries=3, timeout=30.0)
        for call, reference in plan(1000, 200, references):
            tally.record(call, await async_call(client, call), reference)
        planned = plan(1200, 800, references)
        gate = asyncio.Semaphore(32)

        async def bounded(call: Call | str) -> Any:
            async with gate:
                return await async_call(client, call)

        results = await asyncio.gather(*(bounded(call) for call, _ in planned))
        for (call, reference), result in zip(planned, results, strict=True):
            tally.record(call, result, reference)

    asyncio.run(asyncio.wait_for(run_async(), timeout=300))
    elapsed = time.monotonic() - started
    emulator.set_faults()

    stored = collections.Counter(str(task["server_name"]) for task in emulator.server_tasks())
    twice = sorted(name for name, count in stored.items() if count > 1)
    lost = [name for name in tally.created if stored[name] != 1]
    rate = tally.read_successes / tally.reads
    with capsys.disabled():
        print(
            f"\nchaos (Python): {tally.calls} calls in {elapsed:.1f} s, "
            f"{tally.successes} successes, "
            f"typed failures {dict(tally.failures)}, untyped: {len(tally.untyped)}, "
            f"wrong: {len(tally.wrong)}; reads {tally.read_successes}/{tally.reads} "
            f"({rate:.2%}); creates stored twice: {len(twice)}, lost: {len(lost)}"
        )
    assert tally.calls == 2000
    assert not tally.wrong, tally.wrong
    assert not tally.untyped, tally.untyped
    assert rate >= 0.99, f"only {rate:.2%} of the reads succeeded"
    assert not twice, f"creates applied twice: {twice}"
    assert not lost, f"creates the client saw succeed but not stored once: {lost}"
