"""No secret (client secret, password, its MD5, access and refresh tokens) in any repr,
str or DEBUG log record; requests, retries and refreshes are logged at DEBUG."""

from __future__ import annotations

import logging
import os
import pathlib
import pickle
from typing import Any

import pytest

import monapi
from monapi.testing import Emulator

from helpers import DEMO_PASSWORD, DEMO_PASSWORD_MD5, DEMO_SECRET, demo_env, leaks, linux_task

# A mysql service task whose password is a secret too.
DATABASE = {
    "task_name": "db",
    "task_type": "mysql",
    "ip": "10.0.0.7",
    "port": 3306,
    "user": "monitor",
    "password": "db-s3cret-pw",
}


def assert_clean(text: str, tokens: list[str]) -> None:
    for secret in [DEMO_SECRET, DEMO_PASSWORD, DEMO_PASSWORD_MD5, *tokens]:
        assert not leaks(secret, text), f"secret leaked into: {text}"


def test_no_secret_in_reprs_errors_or_debug_logs(
    emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    texts: list[str] = []
    tokens: list[str] = []

    def remember(token: monapi.Token) -> None:
        tokens.extend([token["access_token"], token["refresh_token"]])

    client = emulator.client(on_token=remember, max_retries=2)
    aclient = emulator.async_client(password=None, password_md5=DEMO_PASSWORD_MD5)
    with caplog.at_level(logging.DEBUG, logger="monapi"):
        texts += [repr(client), str(client), repr(aclient), repr(emulator)]
        token = client.login()
        texts += [repr(token), str(token), repr(client), repr(client.token)]
        # What pickle sees holds the secrets (a worker must log in), but its repr does not.
        texts += [repr(client.__reduce__()), repr(aclient.__reduce__())]
        client.agents()
        emulator.expire_tokens()
        client.service_tasks()  # rejected, refreshed, repeated
        client.refresh()
        emulator.set_faults(next=["error_503", "drop_connection"], retry_after_secs=0)
        client.agents()  # retried twice
        errors: list[monapi.MonapiError] = []
        for call in (
            lambda: emulator.client(client_secret="wrong-secret").login(),
            lambda: emulator.client(password="wrong-password").login(),
            lambda: client.service_report(424242),
            lambda: client.create_server_tasks(
                [linux_task("a", snmp_v="1", snmp_user="u", snmp_pass="s3cret-phrase", frequency=0)]
            ),
            lambda: client.create_server_tasks(
                [linux_task("a"), linux_task("b", use_agent=1, plugin_task_uselist_id=["999999"])]
            ),
            # A service task's password: refused by the core, then by the service.
            lambda: client.create_service_tasks([{**DATABASE, "port": 0}]),
            lambda: client.create_service_tasks(
                [{**DATABASE, "use_agent": 1, "plugin_task_uselist_id": "999999"}]
            ),
        ):
            with pytest.raises(monapi.MonapiError) as caught:
                call()
            errors.append(caught.value)
        emulator.set_faults(next=["malformed_body"] * 3)  # the retries too
        with pytest.raises(monapi.DecodeError) as decode:
            client.agents()
        errors.append(decode.value)
        emulator.set_latency(1.0)
        with pytest.raises(monapi.TimeoutError) as timeout:
            emulator.client(token=client.token, timeout=0.2, max_retries=0).agents()
        errors.append(timeout.value)
        emulator.set_latency(0.0)
        for error in errors:
            texts += [str(error), repr(error), repr(error.__dict__), repr(error.args)]
            texts.append(repr(pickle.loads(pickle.dumps(error)).__dict__))
    records = [r for r in caplog.records if r.name.startswith("monapi")]
    debug = [r.getMessage() for r in records if r.levelno == logging.DEBUG]
    assert tokens and len(errors) == 9
    # Requests, retries and refreshes are logged...
    assert any(m.startswith("response") for m in debug), debug
    assert any(m.startswith("retrying") for m in debug), debug
    assert any("refresh grant" in m for m in debug), debug
    # ...and nothing anywhere holds a secret.
    for text in texts + debug + [r.getMessage() for r in records]:
        assert_clean(text, [*tokens, "s3cret-phrase", "db-s3cret-pw"])


def test_debug_logging_is_silent_when_disabled(
    client: monapi.Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="monapi"):
        client.agents()
    assert not [r for r in caplog.records if r.name == "monapi"]
    with caplog.at_level(logging.DEBUG, logger="monapi"):
        client.agents()
    assert [r for r in caplog.records if r.name == "monapi"]


async def test_no_secret_from_the_async_client_or_a_broken_connection(
    emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    tokens: list[str] = []

    def remember(token: monapi.Token) -> None:
        tokens.extend([token["access_token"], token["refresh_token"]])

    aclient = emulator.async_client(on_token=remember, max_retries=0)
    client = emulator.client(on_token=remember, max_retries=0)
    texts: list[str] = []
    errors: list[monapi.MonapiError] = []
    with caplog.at_level(logging.DEBUG, logger="monapi"):
        await aclient.login()
        client.login()
        texts += [repr(aclient), repr(aclient.token), repr(client)]
        # The connection breaks after the request (with its access_token in the URL) went out.
        for kind in ("drop_connection", "truncated_body"):
            emulator.set_faults(next=[kind])
            with pytest.raises(monapi.ConnectionError) as caught:
                await aclient.agents()
            errors.append(caught.value)
            emulator.set_faults(next=[kind])
            with pytest.raises(monapi.ConnectionError) as sync_caught:
                client.service_tasks()
            errors.append(sync_caught.value)
        emulator.set_faults(next=["error_503"])
        with pytest.raises(monapi.ApiError) as api:
            await aclient.service_report(10001)
        errors.append(api.value)
        emulator.expire_tokens()
        emulator.revoke_refresh_tokens()
        assert await aclient.service_tasks()  # refresh refused, then a new login
    for error in errors:
        texts += [str(error), repr(error), repr(error.__dict__), repr(error.__cause__)]
    records = [r.getMessage() for r in caplog.records if r.name.startswith("monapi")]
    assert len(tokens) == 6 and len(errors) == 5
    assert any("refresh grant" in m for m in records), records
    for text in texts + records:
        assert_clean(text, tokens)


def test_secrets_come_from_files_variables_and_systemd_credentials(
    emulator: Emulator, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path
    (directory / "password").write_text(f"{DEMO_PASSWORD}\n")
    (directory / "secret").write_text(f"{DEMO_SECRET}\r\n")
    account: dict[str, Any] = {
        "base_url": emulator.base_url,
        "client_id": "demo_id",
        "username": "test@example.com",
    }
    for name in [n for n in os.environ if n.startswith("MONAPI_")]:
        monkeypatch.delenv(name)

    with monapi.Client(
        **account,
        password_file=directory / "password",
        client_secret_file=str(directory / "secret"),
    ) as client:
        assert client.login()["access_token"]
        assert_clean(repr(client), [])

    monkeypatch.setenv("MONAPI_PASSWORD_FILE", str(directory / "password"))
    monkeypatch.setenv("MONAPI_CLIENT_SECRET_FILE", str(directory / "secret"))
    with monapi.Client(**account) as client:
        assert client.login()["access_token"]
    monkeypatch.delenv("MONAPI_PASSWORD_FILE")
    monkeypatch.delenv("MONAPI_CLIENT_SECRET_FILE")

    (directory / "monapi.password").write_text(DEMO_PASSWORD)
    (directory / "monapi.client_secret").write_text(DEMO_SECRET)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(directory))
    with monapi.Client(**account) as client:
        assert client.login()["access_token"]

    with pytest.raises(monapi.ValidationError) as both:
        monapi.Client(**account, password="x", password_file=directory / "password")
    assert both.value.field == "password_file"
    with pytest.raises(monapi.ValidationError) as missing:
        monapi.Client(**account, password_file=directory / "nowhere")
    assert missing.value.field == "password_file"
    assert "nowhere" in str(missing.value)


def test_every_setting_reads_its_variable(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in demo_env(emulator).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MONAPI_TIMEZONE", "UTC")
    monkeypatch.setenv("MONAPI_MAX_RESPONSE_BYTES", "4096")
    with monapi.Client() as client:
        assert client.tables.timezone == "+00:00"
        with pytest.raises(monapi.DecodeError, match="max_response_bytes"):
            client.service_report(10001)
    monkeypatch.setenv("MONAPI_TIMEOUT", "soon")
    with pytest.raises(monapi.ValidationError) as bad:
        monapi.Client()
    assert bad.value.field == "MONAPI_TIMEOUT"
    assert "seconds" in str(bad.value)
