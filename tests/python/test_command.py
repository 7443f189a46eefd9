"""The ``monapi`` command that ``pip install monapi`` puts on PATH (the package's console script,
which runs the crate's command linked into the native module) is the crate's binary: the same
output, the same exit codes, the same answers to signals."""

from __future__ import annotations

import os
import pathlib
import select
import signal
import subprocess
import sys
import time

import pytest

from monapi.testing import Emulator

from helpers import DEMO_PASSWORD, demo_env, monapi_binary

# The console script pip wrote next to this interpreter.
SCRIPT = str(pathlib.Path(sys.executable).parent / "monapi")


def run(command: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [command, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_script_is_the_crate_s_command(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    assert os.access(SCRIPT, os.X_OK), f"no console script at {SCRIPT}"
    env = demo_env(emulator)
    binary = monapi_binary()
    for args in (["--version"], ["exporter", "--help"], ["export", "--help"], ["nonsense"]):
        ours, crate = run(SCRIPT, args, env), run(binary, args, env)
        assert (ours.returncode, ours.stdout, ours.stderr) == (
            crate.returncode,
            crate.stdout,
            crate.stderr,
        ), args
    # A call, with the password from a file and nothing of it in the environment.
    (tmp_path / "password").write_text(f"{DEMO_PASSWORD}\n")
    env = {**env, "MONAPI_PASSWORD": ""}
    sites = run(SCRIPT, ["sites", "--password-file", str(tmp_path / "password")], env)
    assert sites.returncode == 0, sites.stderr
    assert sites.stdout.count('"task_id"') == 5
    # The exit codes of the core's rule: usage (2, nothing sent) and a refused login.
    before = emulator.counters()["service_report"]
    usage = run(SCRIPT, ["report", "service", "10001", "--from", "2026-02-30"], env)
    assert usage.returncode == 2 and "`--from` must be a real date" in usage.stderr
    assert emulator.counters()["service_report"] == before
    wrong = run(SCRIPT, ["agents", "--password", "not-it"], env)
    crate_wrong = run(binary, ["agents", "--password", "not-it"], env)
    assert wrong.returncode == crate_wrong.returncode != 0
    assert wrong.stderr == crate_wrong.stderr and "not-it" not in wrong.stderr


def start_exporter(command: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """`monapi exporter` on a free port of 127.0.0.1, once it says it listens."""
    process = subprocess.Popen(
        [command, "exporter", "--listen", "127.0.0.1:0"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_line(process, "listening on http://127.0.0.1:")
    return process


def wait_for_line(process: subprocess.Popen[str], text: str) -> str:
    """The next line of `process`'s stderr that holds `text`, within 60 seconds."""
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = process.stderr.readline()
        if not line:
            break
        if text in line:
            return line
    process.kill()
    raise AssertionError(f"no line with {text!r} from {process.args!r}")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_signals_reach_the_command_as_they_reach_the_binary(
    emulator: Emulator, stop: signal.Signals
) -> None:
    env = {**demo_env(emulator), "MONAPI_LOG": "info"}
    for command in (SCRIPT, monapi_binary()):
        exporter = start_exporter(command, env)
        try:
            wait_for_line(exporter, "refreshed: ")
            exporter.send_signal(signal.SIGHUP)
            wait_for_line(exporter, "SIGHUP: refreshing now")
            exporter.send_signal(stop)
            wait_for_line(exporter, f"{stop.name}: shutting down")
            assert exporter.wait(timeout=60) == 0, command
        finally:
            exporter.kill()
            exporter.wait()


def test_ctrl_c_stops_a_command_without_handlers_of_its_own(emulator: Emulator) -> None:
    """A command with no handler of its own (a call, here waiting on a slow service) is left to
    SIGINT's default action: Python's handler, which would only raise KeyboardInterrupt once the
    command returned, must not stand in its way."""
    emulator.set_latency(600)
    codes = []
    for command in (SCRIPT, monapi_binary()):
        before = emulator.counters()["total"]
        call = subprocess.Popen(
            [command, "agents"],
            env=demo_env(emulator),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # Its login has reached the service: the command waits on the answer.
            deadline = time.monotonic() + 60
            while emulator.counters()["total"] == before:
                assert call.poll() is None and time.monotonic() < deadline, command
                time.sleep(0.02)
            call.send_signal(signal.SIGINT)
            codes.append(call.wait(timeout=30))
        finally:
            call.kill()
            call.wait()
    assert codes == [-signal.SIGINT, -signal.SIGINT], codes
