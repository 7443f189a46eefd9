"""Tokens: expiry, refresh, rejection, persistence (`token=` / `on_token=`), counted by
the emulator."""

from __future__ import annotations

import gc
import json
import logging
import threading
import time
import weakref

import pytest

import monapi
from monapi.testing import Emulator


def test_after_expire_tokens_one_call_makes_exactly_one_refresh(
    client: monapi.Client, emulator: Emulator
) -> None:
    first = client.login()
    emulator.expire_tokens()
    client.agents()
    counters = emulator.counters()
    assert (counters["token_password"], counters["token_refresh"]) == (1, 1)
    assert counters["agents"] == 2  # rejected once, repeated once
    token = client.token
    assert token is not None and token["access_token"] != first["access_token"]


def test_a_token_expiring_client_side_is_refreshed_before_the_call() -> None:
    with Emulator(token_ttl=1.0) as emulator:
        client = emulator.client()
        client.login()
        # Renewed tokens live an hour: expires_at is stamped in whole seconds, so a renewed
        # one-second token could look stale again within milliseconds.
        emulator.set_token_ttl(3600.0)
        time.sleep(1.1)
        client.agents()
        counters = emulator.counters()
        assert (counters["token_refresh"], counters["agents"]) == (1, 1)


def test_revoked_refresh_token_falls_back_to_the_password(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.expire_tokens()
    emulator.revoke_refresh_tokens()
    client.service_tasks()
    counters = emulator.counters()
    assert (counters["token_password"], counters["token_refresh"]) == (2, 1)


def test_saved_token_is_resumed_without_logging_in(emulator: Emulator) -> None:
    saved = json.dumps(emulator.client().login())
    resumed = monapi.Client(
        base_url=emulator.base_url,
        client_id=emulator.client_id,
        client_secret=emulator.client_secret,
        token=json.loads(saved),
    )
    assert resumed.token == json.loads(saved)
    assert resumed.agents()
    assert emulator.counters()["token"] == 1


def test_a_saved_token_without_a_password_cannot_renew_when_refused(emulator: Emulator) -> None:
    saved = emulator.client().login()
    emulator.expire_tokens()
    emulator.revoke_refresh_tokens()
    resumed = monapi.Client(
        base_url=emulator.base_url,
        client_id=emulator.client_id,
        client_secret=emulator.client_secret,
        token=saved,
    )
    with pytest.raises(monapi.InvalidGrantError):
        resumed.agents()


def test_a_malformed_saved_token_is_a_validation_error(emulator: Emulator) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.client(token={"expires_in": 3600})
    assert caught.value.field == "token"


def test_on_token_gets_every_new_token_as_a_token_dict(emulator: Emulator) -> None:
    seen: list[monapi.Token] = []
    client = emulator.client(on_token=seen.append)
    client.agents()  # login
    emulator.expire_tokens()
    client.agents()  # refresh after rejection
    client.refresh()  # explicit
    assert len(seen) == 3
    assert all(isinstance(t, monapi.Token) for t in seen)
    assert seen[-1] == client.token
    assert len({t["access_token"] for t in seen}) == 3


async def test_on_token_in_async_calls(emulator: Emulator) -> None:
    seen: list[monapi.Token] = []
    client = emulator.async_client(on_token=seen.append)
    await client.agents()
    current = await client.refresh()
    assert len(seen) == 2
    assert seen[1] == current == client.token
    assert seen[0]["access_token"] != current["access_token"]


def test_an_exception_in_on_token_is_logged_and_changes_nothing(
    emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(token: monapi.Token) -> None:
        raise RuntimeError("cannot save")

    client = emulator.client(on_token=broken)
    with caplog.at_level(logging.WARNING, logger="monapi"):
        assert client.agents()
        assert client.agents()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "monapi"]
    assert len(warnings) == 1
    assert "on_token" in warnings[0].getMessage()
    assert warnings[0].exc_info is not None
    assert emulator.counters()["token"] == 1


def test_the_token_repr_shows_only_the_expiry(client: monapi.Client) -> None:
    token = client.login()
    for text in (repr(token), str(token), f"{token}", repr([token])):
        assert token["access_token"] not in text
        assert token["refresh_token"] not in text
        assert "expires" in text


def test_refresh_before_login_is_a_validation_error(
    client: monapi.Client, emulator: Emulator
) -> None:
    with pytest.raises(monapi.ValidationError):
        client.refresh()
    assert emulator.counters()["total"] == 0


def test_concurrent_calls_across_an_expiry_make_one_token_request(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.expire_tokens()
    before = emulator.counters()["token"]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            assert len(client.service_tasks()) == 50
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    assert emulator.counters()["token"] - before == 1


class Saver:
    """The usual shape: an object that owns a client and saves its tokens (a cycle)."""

    def __init__(self, emulator: Emulator, async_client: bool) -> None:
        self.saved: list[monapi.Token] = []
        make = emulator.async_client if async_client else emulator.client
        self.client: monapi.Client | monapi.AsyncClient = make(on_token=self.save)

    def save(self, token: monapi.Token) -> None:
        self.saved.append(token)


@pytest.mark.parametrize("async_client", [False, True])
def test_a_client_in_a_cycle_through_on_token_is_garbage_collected(
    emulator: Emulator, async_client: bool
) -> None:
    saver = Saver(emulator, async_client)
    if isinstance(saver.client, monapi.Client):
        saver.client.login()
        assert len(saver.saved) == 1
    gone = weakref.ref(saver)
    del saver
    gc.collect()
    assert gone() is None


async def test_an_exception_in_on_token_of_the_async_client_is_logged(
    emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(token: monapi.Token) -> None:
        raise RuntimeError("cannot save")

    client = emulator.async_client(on_token=broken)
    with caplog.at_level(logging.WARNING, logger="monapi"):
        assert await client.agents()
        emulator.expire_tokens()
        assert await client.agents()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "monapi"]
    assert len(warnings) == 2 and all("on_token" in w.getMessage() for w in warnings)
    assert emulator.counters()["token"] == 2


# The token rules of the service's OAuth server (the emulator's defaults): a refresh answer
# carries no new refresh token, and the one used stays valid until it expires.


def resumed(emulator: Emulator, token: monapi.Token) -> monapi.Client:
    """A client resumed from a saved token, without a username or password."""
    return monapi.Client(
        base_url=emulator.base_url,
        client_id=emulator.client_id,
        client_secret=emulator.client_secret,
        token=json.loads(json.dumps(token)),
    )


def test_a_resumed_client_without_a_password_outlives_every_expiry(emulator: Emulator) -> None:
    client = resumed(emulator, emulator.client().login())
    for _ in range(3):
        emulator.expire_tokens()
        client.agents()
    counters = emulator.counters()
    assert (counters["token_password"], counters["token_refresh"]) == (1, 3)


def test_what_on_token_receives_keeps_the_refresh_token_and_resumes(emulator: Emulator) -> None:
    seen: list[monapi.Token] = []
    client = emulator.client(on_token=seen.append)
    first = client.login()
    emulator.expire_tokens()
    client.agents()
    client.refresh()
    assert len(seen) == 3
    assert first["refresh_token"] and all(
        t["refresh_token"] == first["refresh_token"] for t in seen
    )
    assert client.token is not None and client.token["refresh_token"] == first["refresh_token"]
    # What was saved last resumes without a password, across another expiry.
    again = resumed(emulator, seen[-1])
    emulator.expire_tokens()
    again.agents()


def test_an_expired_refresh_token_with_a_password_logs_in_once(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.expire_tokens()
    emulator.expire_refresh_tokens()
    client.agents()
    counters = emulator.counters()
    assert (counters["token_password"], counters["token_refresh"]) == (2, 1)


def test_an_expired_refresh_token_without_a_password_says_what_to_do(emulator: Emulator) -> None:
    client = resumed(emulator, emulator.client().login())
    emulator.expire_tokens()
    emulator.expire_refresh_tokens()
    with pytest.raises(monapi.InvalidGrantError) as caught:
        client.agents()
    message = str(caught.value)
    assert "expired or was refused" in message and "Refresh token has expired" in message
    assert "username and password" in message
    assert caught.value.error == "invalid_grant"


def test_the_refresh_token_lifetime_is_the_emulators() -> None:
    with Emulator(refresh_token_ttl=1.0) as emulator:
        client = resumed(emulator, emulator.client().login())
        time.sleep(1.1)
        with pytest.raises(monapi.InvalidGrantError):
            client.refresh()


def test_a_rotating_service_retires_the_refresh_token_used(emulator: Emulator) -> None:
    emulator.set_quirks(rotating_refresh_tokens=True)
    client = emulator.client()
    first = client.login()
    second = client.refresh()
    assert second["refresh_token"] != first["refresh_token"]
    with pytest.raises(monapi.InvalidGrantError):
        resumed(emulator, first).refresh()
