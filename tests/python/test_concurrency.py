"""The GIL is released while a sync call waits; one client serves many threads; the async
client runs many calls at once, cancels cleanly, and works in an already running loop
(as in Jupyter)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import monapi
from monapi.testing import Emulator

from helpers import DAY


def test_another_thread_runs_while_a_sync_call_waits(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.set_latency(0.5)
    count = 0
    stop = threading.Event()

    def counter() -> None:
        nonlocal count
        while not stop.is_set():
            count += 1

    thread = threading.Thread(target=counter)
    thread.start()
    try:
        time.sleep(0.05)
        before = count
        started = time.monotonic()
        client.agents()
        elapsed = time.monotonic() - started
        during = count - before
    finally:
        stop.set()
        thread.join(timeout=10)
    assert elapsed >= 0.5
    # A pure-Python loop counts millions of times in half a second when it has the GIL;
    # with the GIL held by the call it would not move at all.
    assert during > 10_000, during


def test_one_client_shared_by_many_threads(client: monapi.Client, emulator: Emulator) -> None:
    def fetch(page: int) -> int:
        return len(client.service_tasks(page))

    with ThreadPoolExecutor(max_workers=8) as pool:
        sizes = list(pool.map(fetch, [1, 2, 3] * 20, timeout=60))
    assert sizes == [50, 50, 20] * 20
    counters = emulator.counters()
    assert (counters["token"], counters["service_tasks"]) == (1, 60)


async def test_many_async_calls_at_once(aclient: monapi.AsyncClient, emulator: Emulator) -> None:
    reports = await asyncio.gather(
        *(aclient.site_report(20001 + i % 5, start_date=DAY, monitor=0) for i in range(300))
    )
    assert len(reports) == 300
    assert all(list(r) == ["0"] for r in reports)
    assert reports[0] == reports[5]
    assert emulator.counters()["site_report"] == 300


async def test_a_cancelled_call_leaves_the_client_usable(
    aclient: monapi.AsyncClient, emulator: Emulator
) -> None:
    await aclient.login()
    emulator.set_latency(1.0)
    started = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(aclient.agents(), timeout=0.1)
    assert time.monotonic() - started < 0.9
    emulator.set_latency(0.0)
    assert await aclient.agents()


async def test_the_loop_keeps_running_while_calls_wait(
    aclient: monapi.AsyncClient, emulator: Emulator
) -> None:
    await aclient.login()
    emulator.set_latency(0.3)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    tick = asyncio.create_task(ticker())
    try:
        await aclient.agents()
    finally:
        tick.cancel()
    assert ticks >= 10


def test_a_loop_already_running_in_another_thread(emulator: Emulator) -> None:
    # As in Jupyter: the kernel's loop is already running; the coroutine is created
    # outside it and awaited by it.
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        client = emulator.async_client()

        async def cell() -> int:
            agents = await client.agents()
            return len(agents)

        assert asyncio.run_coroutine_threadsafe(cell(), loop).result(timeout=30) >= 3
        future = asyncio.run_coroutine_threadsafe(client.service_tasks(2), loop)
        assert future.result(timeout=30)[0]["task_id"] == "10051"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def test_nested_run_until_complete_inside_a_running_loop_is_not_needed(
    emulator: Emulator,
) -> None:
    # A cell's top-level await is just a coroutine run by the running loop.
    async def notebook() -> list[int]:
        client = emulator.async_client()
        first = await client.service_tasks()
        tasks = [asyncio.ensure_future(client.service_tasks(p)) for p in (2, 3)]
        return [len(first)] + [len(t) for t in await asyncio.gather(*tasks)]

    assert asyncio.run(notebook()) == [50, 50, 20]


def test_sync_calls_from_worker_threads_of_a_running_loop(emulator: Emulator) -> None:
    client = emulator.client()

    async def main() -> list[int]:
        loop = asyncio.get_running_loop()
        results = await asyncio.gather(
            *(loop.run_in_executor(None, client.service_tasks, p) for p in (1, 2, 3))
        )
        return [len(r) for r in results]

    assert asyncio.run(main()) == [50, 50, 20]


async def test_rounds_of_concurrent_small_calls_never_stall(aclient: monapi.AsyncClient) -> None:
    # Completions race with the loop draining them; a lost wake-up would stall a round
    # (found with 1,000 concurrent agent-list calls).
    await aclient.login()
    for _ in range(6):
        results = await asyncio.wait_for(
            asyncio.gather(*(aclient.agents() for _ in range(500))), timeout=60
        )
        assert len(results) == 500 and all(results)


def test_loops_without_add_reader_are_woken_threadsafe(emulator: Emulator) -> None:
    # e.g. the proactor loop on Windows: results come back through call_soon_threadsafe.
    class NoReaderLoop(asyncio.SelectorEventLoop):
        def add_reader(self, *args: object, **kwargs: object) -> None:
            raise NotImplementedError

    loop = NoReaderLoop()
    try:
        client = emulator.async_client()

        async def main() -> list[int]:
            pages = await asyncio.gather(*(client.service_tasks(p) for p in (1, 2, 3) * 50))
            return [len(p) for p in pages]

        sizes = loop.run_until_complete(asyncio.wait_for(main(), timeout=60))
        assert sizes == [50, 50, 20] * 50
    finally:
        loop.close()


class Interrupted(Exception):
    pass


def test_a_waiting_sync_call_can_be_interrupted(client: monapi.Client, emulator: Emulator) -> None:
    # Ctrl-C (here SIGUSR1 with a raising handler) reaches a call that waits on the service.
    client.login()
    emulator.set_latency(5.0)

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, interrupt)
    main = threading.main_thread().ident
    assert main is not None
    timer = threading.Timer(0.2, signal.pthread_kill, (main, signal.SIGUSR1))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(Interrupted):
            client.agents()
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
    assert time.monotonic() - started < 2.0
    emulator.set_latency(0.0)
    assert client.agents()


@pytest.mark.parametrize("threads", ["1", "3"])
def test_monapi_runtime_threads_sizes_the_runtime(threads: str) -> None:
    # Linux: the runtime's workers are the threads named monapi-runtime.
    # A new thread names itself once it runs: count until the number holds (bounded).
    program = (
        "import os, time\n"
        "from monapi.testing import Emulator\n"
        "def count():\n"
        "    names = []\n"
        "    for task in os.listdir('/proc/self/task'):\n"
        "        try:\n"
        "            names.append(open(f'/proc/self/task/{task}/comm').read().strip())\n"
        "        except OSError:\n"
        "            pass\n"
        "    return names.count('monapi-runtime')\n"
        "with Emulator() as emulator:\n"
        "    emulator.client().agents()\n"
        "    for _ in range(100):\n"
        f"        if count() >= {threads}:\n"
        "            break\n"
        "        time.sleep(0.05)\n"
        "    time.sleep(0.1)\n"
        "    print(count())\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "MONAPI_RUNTIME_THREADS": threads},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert run.stdout.strip() == threads
