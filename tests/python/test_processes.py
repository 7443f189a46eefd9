"""Where pipelines run it (POSIX): the client pickles (configuration and token) and keeps working
after os.fork() and under multiprocessing's fork and spawn start methods."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import time

import pytest

import monapi
from monapi.testing import Emulator

from helpers import agents_and_token, async_count_tasks, count_tasks

# Set by test_a_forked_process_inherits_a_working_client (fork children inherit globals).
INHERITED: monapi.Client | None = None


def test_pickle_keeps_configuration_and_token(client: monapi.Client, emulator: Emulator) -> None:
    token = client.login()
    copy = pickle.loads(pickle.dumps(client))
    assert isinstance(copy, monapi.Client)
    assert copy.token == token
    assert copy.base_url == client.base_url
    assert copy.agents() == client.agents()
    assert emulator.counters()["token"] == 1  # the copy resumed the token
    emulator.expire_tokens()
    emulator.revoke_refresh_tokens()
    copy.agents()  # ... and can still log in with the pickled credentials
    assert emulator.counters()["token_password"] == 2


async def test_async_client_pickles(aclient: monapi.AsyncClient) -> None:
    await aclient.login()
    copy = pickle.loads(pickle.dumps(aclient))
    assert isinstance(copy, monapi.AsyncClient)
    assert copy.token == aclient.token
    assert len(await copy.service_tasks()) == 50


def _wait(pid: int, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError("the forked child hung")


def test_os_fork_child_uses_the_parent_client(client: monapi.Client, emulator: Emulator) -> None:
    client.service_tasks()  # runtime, pooled connection and token exist in the parent
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 1
        try:
            os.close(read)
            tasks = client.service_tasks(2)
            copy = pickle.loads(pickle.dumps(client))
            os.write(write, str(len(tasks) + len(copy.service_tasks(3))).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    exit_code = _wait(pid, 30)
    with os.fdopen(read) as pipe:
        answer = pipe.read()
    assert (exit_code, answer) == (0, "70")
    # The child used the token it inherited; the parent goes on as before.
    assert emulator.counters()["token"] == 1
    assert len(client.service_tasks(3)) == 20


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_multiprocessing_pool(client: monapi.Client, emulator: Emulator, method: str) -> None:
    client.login()
    context = multiprocessing.get_context(method)
    with context.Pool(2) as pool:
        counts = pool.map_async(count_tasks, [client, client]).get(timeout=120)
        agents, token = pool.apply_async(agents_and_token, (client,)).get(timeout=60)
    assert counts == [120, 120]
    assert agents >= 3
    current = client.token
    assert current is not None and token == current["access_token"]
    assert emulator.counters()["token"] == 1  # every worker resumed the pickled token


async def test_os_fork_child_uses_the_parent_async_client(
    aclient: monapi.AsyncClient, emulator: Emulator
) -> None:
    await aclient.service_tasks()  # runtime, loop bridge, connection and token in the parent
    pid = os.fork()
    if pid == 0:  # child: a new loop of its own, the inherited client
        code = 1
        try:
            code = 0 if async_count_tasks(aclient) == 120 else 3
        finally:
            os._exit(code)
    assert _wait(pid, 30) == 0
    assert emulator.counters()["token"] == 1
    assert len(await aclient.service_tasks(3)) == 20  # the parent's loop goes on


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_pool_with_the_async_client(emulator: Emulator, method: str) -> None:
    aclient = emulator.async_client()
    assert async_count_tasks(aclient) == 120  # logged in, in the parent
    context = multiprocessing.get_context(method)
    with context.Pool(2) as pool:
        counts = pool.map_async(async_count_tasks, [aclient, aclient]).get(timeout=120)
    assert counts == [120, 120]
    assert emulator.counters()["token"] == 1


def _child_uses_inherited() -> None:
    assert INHERITED is not None
    code = 0 if len(INHERITED.service_tasks(2)) == 50 else 3
    sys.exit(code)


def test_a_forked_process_inherits_a_working_client(emulator: Emulator) -> None:
    global INHERITED
    INHERITED = emulator.client()
    try:
        INHERITED.agents()
        process = multiprocessing.get_context("fork").Process(target=_child_uses_inherited)
        process.start()
        process.join(timeout=60)
        if process.is_alive():
            process.kill()
            raise AssertionError("the forked child hung")
        assert process.exitcode == 0
    finally:
        INHERITED = None
