"""The docs' reference of the error codes (docs/reference/errors.md, generated from the core's
declaration, ``monapi::ERRORS``, and kept current by the Rust suite) names the class each code
is raised as: each class is in ``monapi``, and an error of that code, raised for real against
the emulator, is of exactly that class."""

from __future__ import annotations

import pathlib
import re
import socket
from collections.abc import Callable

import pytest

import monapi
from monapi.testing import Emulator

from helpers import DAY, ROOT, linux_task

PAGE = ROOT / "docs" / "reference" / "errors.md"

# A row of the page's summary: | [`CODE`](#code) | Rust | `monapi.Class` | Node |
ROW = re.compile(r"^\| \[`([A-Z_]+)`\]\(#[a-z_]+\) \| [^|]+ \| `monapi\.(\w+)` \| [^|]+ \|$", re.M)


def documented() -> dict[str, str]:
    """Each code on the page, with its Python class's name."""
    return dict(ROW.findall(PAGE.read_text(encoding="utf-8")))


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def raise_invalid_client(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    emulator.client(client_secret="wrong-secret").login()


def raise_invalid_grant(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    emulator.client(password="wrong-password").login()


def raise_auth_error(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    # Tokens that expire at once: the call's renewed token is rejected again.
    with Emulator(token_ttl=0) as expiring:
        expiring.client().agents()


def raise_api_error(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    emulator.client().service_report(424242)


def raise_partial_create(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    missing_plugin = linux_task("b", use_agent=1, plugin_task_uselist_id=["999999"])
    emulator.client().create_server_tasks([linux_task("a"), missing_plugin])


def raise_invalid_input(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    emulator.client().service_tasks(0)


def raise_timeout(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    client = emulator.client(timeout=0.3, max_retries=0)
    client.login()
    emulator.set_latency(2.0)
    client.agents()


def raise_connection(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    emulator.client(base_url=f"http://127.0.0.1:{closed_port()}", max_retries=0).agents()


def raise_decode(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    client = emulator.client(max_retries=0)
    client.login()
    emulator.set_faults(next=["malformed_body"])
    client.agents()


def raise_partial_result(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    emulator.client().tables.service_reports([10001, 999], start_date=DAY, end_date=DAY)


def raise_store(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    client = emulator.client(store=blocker / "store")
    client.tables.service_report(10001, start_date=DAY, end_date=DAY)


def raise_internal(emulator: Emulator, tmp_path: pathlib.Path) -> None:
    monapi._native._panic("call")


RAISE: dict[str, Callable[[Emulator, pathlib.Path], None]] = {
    "AUTH_INVALID_CLIENT": raise_invalid_client,
    "AUTH_INVALID_GRANT": raise_invalid_grant,
    "AUTH_ERROR": raise_auth_error,
    "API_ERROR": raise_api_error,
    "PARTIAL_CREATE": raise_partial_create,
    "INVALID_INPUT": raise_invalid_input,
    "TIMEOUT": raise_timeout,
    "CONNECTION": raise_connection,
    "DECODE": raise_decode,
    "PARTIAL_RESULT": raise_partial_result,
    "STORE": raise_store,
    "INTERNAL": raise_internal,
}

# Cancelling in Python raises asyncio's CancelledError or KeyboardInterrupt instead (the page
# says so): nothing of the package raises ABORTED for a test to provoke.
NOT_RAISED = {"ABORTED"}


def test_the_page_lists_every_code_once_with_a_class() -> None:
    rows = ROW.findall(PAGE.read_text(encoding="utf-8"))
    codes = [code for code, _ in rows]
    assert len(codes) == len(set(codes)), codes
    assert set(codes) == set(RAISE) | NOT_RAISED, "a code without its way to raise it here"


@pytest.mark.parametrize(("code", "name"), sorted(documented().items()))
def test_each_documented_class_is_a_monapi_error(code: str, name: str) -> None:
    assert name in monapi.__all__, name
    cls = getattr(monapi, name)
    assert isinstance(cls, type) and issubclass(cls, monapi.MonapiError), name
    assert getattr(monapi.errors, name) is cls


@pytest.mark.parametrize(
    ("code", "name"), sorted((c, n) for c, n in documented().items() if c not in NOT_RAISED)
)
def test_an_error_of_each_code_is_of_its_documented_class(
    code: str, name: str, emulator: Emulator, tmp_path: pathlib.Path
) -> None:
    with pytest.raises(monapi.MonapiError) as caught:
        RAISE[code](emulator, tmp_path)
    assert type(caught.value) is getattr(monapi, name), f"{code}: {caught.value!r}"
