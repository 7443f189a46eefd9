"""The pytest sample of docs/guides/emulator.md: tests/python/test_docs.py runs this module with
pytest, as a reader's test suite would run it."""

# --8<-- [start:fixture]
from collections.abc import Iterator

import pytest

import monapi
from monapi.testing import Emulator


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    # 127.0.0.1 and a free port; tokens that last a minute; also latency=, seed=,
    # service_tasks=, site_tasks=, refresh_token_ttl=, timezone=, tls=, bandwidth_mbps=...
    with Emulator(token_ttl=60) as emulator:
        yield emulator


def test_an_expired_token_is_refreshed_once(emulator: Emulator) -> None:
    client = emulator.client()  # the demo account; keyword arguments override settings
    client.login()
    emulator.expire_tokens()
    client.agents()
    assert emulator.counters()["token_refresh"] == 1


def test_a_flaky_service_is_retried(emulator: Emulator) -> None:
    client = emulator.client(max_retries=2)
    client.login()
    emulator.set_faults(next=["error_503", "drop_connection"])  # the next two answers fail
    assert client.agents()
    assert emulator.counters()["agents"] == 3


def test_a_site_down_shows_as_a_fault(emulator: Emulator) -> None:
    emulator.fail_site(20001)  # fails from every monitoring point from now on
    faults = emulator.client().tables.site_report(20001).faults.to_pandas()
    assert faults["ongoing"].any()


def test_no_retry_for_a_wrong_password(emulator: Emulator) -> None:
    with pytest.raises(monapi.InvalidGrantError):
        emulator.client(password="wrong").agents()


# --8<-- [end:fixture]
