"""Each error class with its fields, raised for real by the emulator, and pickled."""

from __future__ import annotations

import asyncio
import builtins
import pickle
import socket
from typing import Any

import pytest

import monapi
from monapi.testing import Emulator

from helpers import DAY, linux_task


def roundtrip(error: monapi.MonapiError) -> monapi.MonapiError:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.__dict__ == error.__dict__
    return copy


def test_invalid_client(emulator: Emulator) -> None:
    with pytest.raises(monapi.InvalidClientError) as caught:
        emulator.client(client_secret="wrong-secret").login()
    error = caught.value
    assert isinstance(error, monapi.AuthError) and isinstance(error, monapi.MonapiError)
    assert error.error == "invalid_client"
    assert error.endpoint == "POST /v2/oauth/token.json"
    assert error.description
    assert isinstance(error.status_code, int)
    roundtrip(error)


def test_invalid_grant(emulator: Emulator) -> None:
    with pytest.raises(monapi.InvalidGrantError) as caught:
        emulator.client(password="wrong-password").agents()
    assert caught.value.error == "invalid_grant"
    assert isinstance(roundtrip(caught.value), monapi.AuthError)
    # login failures are not retried
    assert emulator.counters()["token"] == 1


def test_api_error_for_an_unknown_task(client: monapi.Client) -> None:
    with pytest.raises(monapi.ApiError) as caught:
        client.service_report(424242)
    error = caught.value
    assert (error.status_code, error.code) == (404, 404)
    assert "424242" in error.message
    assert error.error is None
    assert error.endpoint == "GET /v2/service/report/{task_id}.json"
    copy = roundtrip(error)
    assert isinstance(copy, monapi.ApiError) and copy.code == 404


def test_partial_create(client: monapi.Client, emulator: Emulator) -> None:
    batch = [
        linux_task("a"),
        linux_task("uses-a-missing-plugin", use_agent=1, plugin_task_uselist_id=["999999"]),
        linux_task("c"),
    ]
    with pytest.raises(monapi.PartialCreateError) as caught:
        client.create_server_tasks(batch)
    error = caught.value
    assert error.err_key == "1"
    assert error.failed_index == 1
    assert error.failed_indices == [1]
    assert "999999" in error.err_content
    assert (error.submitted, error.created) == (3, 2)
    assert "the other 2 of 3 tasks were created" in str(error)
    assert [t["server_name"] for t in emulator.server_tasks()] == ["a", "c"]
    copy = roundtrip(error)
    assert isinstance(copy, monapi.PartialCreateError)
    assert (copy.failed_index, copy.failed_indices, copy.created) == (1, [1], 2)


@pytest.mark.parametrize(
    ("changes", "index_field"),
    [
        ({"frequency": 0}, (1, "frequency")),
        ({"private_ip": "not-an-ip"}, (1, "private_ip")),
        ({"task_type": ["cpu_windows"]}, (1, "task_type")),
        ({"server_systype": "7"}, (1, "server_systype")),
        ({"alert_setting": {"scope": "2"}}, (1, "alert_setting.organization")),
        ({"task_type": {"a", "b"}}, (1, "task_type")),
    ],
)
def test_validation_names_index_and_field(
    client: monapi.Client, emulator: Emulator, changes: dict[str, Any], index_field: tuple[int, str]
) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        client.create_server_tasks([linux_task("ok"), linux_task("bad", **changes)])
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.index, error.field) == index_field
    assert error.rule
    assert emulator.counters()["total"] == 0  # nothing sent, not even a login
    roundtrip(error)


def test_validation_of_arguments(client: monapi.Client) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        client.service_report(10001, start_date="2026-13-01")
    assert (caught.value.index, caught.value.field) == (None, "start_date")
    with pytest.raises(monapi.ValidationError) as caught:
        client.service_report(10001, start_date="2026-11-05", end_date="2026-11-01")
    assert caught.value.field == "start_date"
    with pytest.raises(monapi.ValidationError) as caught:
        client.service_tasks(0)
    assert caught.value.field == "page"
    with pytest.raises(monapi.ValidationError) as caught:
        client.site_report(20001, monitor=-1)
    assert caught.value.field == "monitor"
    with pytest.raises(monapi.ValidationError) as caught:
        client.service_report("ten")
    assert caught.value.field == "task_id"
    with pytest.raises(monapi.ValidationError):
        client.create_server_tasks([])
    with pytest.raises(TypeError):
        client.create_server_tasks("not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        client.service_report(10001, start_date=20261101)  # type: ignore[arg-type]
    for task_id in (0, "0", -3):
        with pytest.raises(monapi.ValidationError, match="positive whole number") as caught:
            client.service_report(task_id)
        assert caught.value.field == "task_id"
    with pytest.raises(monapi.ValidationError, match="from 1 to 4294967295"):
        client.service_tasks(2**32)
    assert client.site_report(20001, monitor="0", start_date=DAY) == client.site_report(
        20001, monitor=0, start_date=DAY
    )


async def test_async_argument_errors_are_raised_at_the_call(aclient: monapi.AsyncClient) -> None:
    # As for the blocking client: before a coroutine exists, so nothing can be sent.
    for page in (0, -1):
        with pytest.raises(monapi.ValidationError) as caught:
            aclient.service_tasks(page)
        assert caught.value.field == "page"
    with pytest.raises(monapi.ValidationError) as caught:
        aclient.service_report(0)
    assert caught.value.field == "task_id"
    with pytest.raises(monapi.ValidationError) as caught:
        aclient.site_report(20001, start_date="2026-11-05", end_date="2026-11-01")
    assert caught.value.field == "start_date"
    with pytest.raises(monapi.ValidationError) as caught:
        aclient.create_server_tasks([linux_task("a", frequency=0)])
    assert (caught.value.index, caught.value.field) == (0, "frequency")


def test_validation_of_the_configuration(emulator: Emulator) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        monapi.Client(
            base_url="ftp://x", client_id="a", client_secret="b", username="u", password="p"
        )
    assert caught.value.field == "base_url"
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(password=None, password_md5="xyz")
    assert caught.value.field == "password_md5"
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(timeout=-1.0)
    assert caught.value.field == "timeout"
    with pytest.raises(TypeError):
        emulator.client(on_token="not callable")
    # A misspelt or Node-spelt setting: the one it was likely meant to be, then every setting.
    for given, meant in (
        ("retries", "max_retries"),
        ("maxRetries", "max_retries"),
        ("pasword", "password"),
    ):
        with pytest.raises(TypeError) as unknown:
            emulator.client(**{given: 1})
        assert str(unknown.value).startswith(
            f"unexpected keyword argument '{given}': is not a setting; did you mean {meant}? "
            "(the settings: base_url, client_id,"
        ), unknown.value
    with pytest.raises(
        TypeError, match=r"^unexpected keyword argument 'colour': is not a setting \(the"
    ):
        emulator.client(colour=1)


def test_timeout(emulator: Emulator) -> None:
    client = emulator.client(timeout=0.3, max_retries=0)
    client.login()
    emulator.set_latency(2.0)
    with pytest.raises(monapi.TimeoutError) as caught:
        client.agents()
    error = caught.value
    assert isinstance(error, builtins.TimeoutError)
    assert error.endpoint == "GET /v2/agent/lists.json"
    assert error.timeout == pytest.approx(0.3)
    roundtrip(error)


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = monapi.Client(
        base_url=f"http://127.0.0.1:{port}",
        client_id="demo_id",
        client_secret="demo_secret",
        username="test@example.com",
        password="123456",
        max_retries=0,
    )
    with pytest.raises(monapi.ConnectionError) as caught:
        client.agents()
    assert isinstance(caught.value, builtins.ConnectionError)
    assert caught.value.endpoint == "POST /v2/oauth/token.json"
    roundtrip(caught.value)


def test_decode_error_from_an_error_page_once_retries_are_used_up(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.set_faults(next=["malformed_body"] * 3)
    with pytest.raises(monapi.DecodeError) as caught:
        client.agents()
    error = caught.value
    assert error.endpoint == "GET /v2/agent/lists.json"
    assert "Fatal error" in error.snippet
    assert emulator.counters()["agents"] == 3  # max_retries=2: tried three times
    roundtrip(error)


def test_transient_faults_of_a_read_are_retried(client: monapi.Client, emulator: Emulator) -> None:
    client.login()
    emulator.set_faults(next=["truncated_body", "drop_connection"])
    assert client.agents()
    assert emulator.counters()["agents"] == 3
    emulator.set_faults(next=["error_500", "malformed_body"])
    assert client.agents()
    assert emulator.counters()["agents"] == 6


def test_server_errors_are_retried_then_raised(emulator: Emulator) -> None:
    client = emulator.client(max_retries=1)
    client.login()
    emulator.set_faults(next=["error_503", "error_503"], retry_after_secs=0)
    with pytest.raises(monapi.ApiError) as caught:
        client.agents()
    assert (caught.value.status_code, caught.value.retry_after) == (503, 0.0)
    assert emulator.counters()["agents"] == 2


async def test_async_errors_are_the_same_classes(emulator: Emulator) -> None:
    client = emulator.async_client(max_retries=0)
    with pytest.raises(monapi.ApiError) as api:
        await client.service_report(424242)
    assert api.value.code == 404
    with pytest.raises(monapi.PartialCreateError) as partial:
        await client.create_server_tasks(
            [linux_task("a"), linux_task("b", use_agent=1, plugin_task_uselist_id=["999999"])]
        )
    assert partial.value.failed_indices == [1]
    with pytest.raises(monapi.ValidationError):
        client.service_tasks(-1)  # argument errors are raised at the call
    bad = emulator.async_client(client_secret="nope")
    with pytest.raises(monapi.InvalidClientError):
        await bad.login()


def test_every_class_pickles_with_its_fields() -> None:
    errors: list[monapi.MonapiError] = [
        monapi.MonapiError("x"),
        monapi.AuthError("a", error="e", description="d", status_code=400),
        monapi.InvalidClientError("a", error="invalid_client"),
        monapi.InvalidGrantError("a", error="invalid_grant"),
        monapi.ApiError("b", status_code=500, code=500, message="m", endpoint="GET /x"),
        monapi.PartialCreateError(
            "c", err_key="0,2", failed_indices=[0, 2], err_content="no", submitted=3, created=1
        ),
        monapi.ValidationError("d", index=2, field="frequency", rule="r"),
        monapi.TimeoutError("e", endpoint="GET /x", timeout=1.5),
        monapi.ConnectionError("f", endpoint="GET /x"),
        monapi.DecodeError("g", endpoint="GET /x", snippet="<html>"),
    ]
    for error in errors:
        roundtrip(error)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(error, protocol)).__dict__ == error.__dict__
    partial = errors[5]
    assert isinstance(partial, monapi.PartialCreateError) and partial.failed_index == 0


def test_a_fresh_token_rejected_again_names_the_call() -> None:
    with Emulator(token_ttl=0) as emulator:
        with pytest.raises(monapi.AuthError) as caught:
            emulator.client().agents()
        error = caught.value
        assert (error.error, error.status_code) == ("invalid_token", 401)
        assert error.endpoint == "GET /v2/agent/lists.json"
        # Logged in, was refused, renewed once, was refused again: no endless loop.
        assert emulator.counters()["agents"] == 2
        roundtrip(error)


@pytest.mark.parametrize("where", ["call", "convert"])
def test_a_rust_panic_is_a_monapi_error_and_the_interpreter_goes_on(
    where: str, client: monapi.Client
) -> None:
    with pytest.raises(monapi.MonapiError, match="internal error in monapi") as caught:
        monapi._native._panic(where)
    assert type(caught.value) is monapi.MonapiError
    roundtrip(caught.value)
    # The runtime survived the panic: the next real call works.
    assert client.service_tasks()[0]["task_id"] == "10001"


@pytest.mark.parametrize("where", ["async", "async_convert"])
async def test_a_rust_panic_in_an_awaited_call_rejects_it(
    where: str, aclient: monapi.AsyncClient
) -> None:
    with pytest.raises(monapi.MonapiError, match="internal error in monapi"):
        await asyncio.wait_for(monapi._native._panic(where), timeout=30)
    assert (await aclient.service_tasks())[0]["task_id"] == "10001"


def test_an_unknown_panic_hook_is_refused() -> None:
    with pytest.raises(ValueError, match="where must be"):
        monapi._native._panic("nowhere")
