"""Reports built while they arrive (the blocking client): over a paced link the dicts equal
what the asyncio client builds from the whole body; an attempt cut or corrupted half-way is
repeated and its objects dropped, never doubled; an error answer raises; a report the core
reshapes (PHP's empty forms) is built whole."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import pytest

import monapi
from monapi.testing import Emulator

WEEK = {"start_date": "2026-11-01", "end_date": "2026-11-07"}


@pytest.fixture(scope="module")
def paced() -> Any:
    # Gzipped (the default) over a link slow enough that reports are read member by member
    # as they arrive (a fast one has them read whole once arrived).
    with Emulator(bandwidth_mbps=20.0) as emulator:
        yield emulator


def whole(emulator: Emulator, call: str, task: int) -> Any:
    async def fetch() -> Any:
        async with emulator.async_client() as client:
            return await getattr(client, call)(task, **WEEK)

    return asyncio.run(fetch())


@pytest.mark.parametrize(("call", "task"), [("service_report", 10001), ("site_report", 20001)])
def test_a_report_built_as_it_arrives_equals_the_whole_body(
    paced: Emulator, call: str, task: int
) -> None:
    with paced.client() as client:
        arrived = getattr(client, call)(task, **WEEK)
    expected = whole(paced, call, task)
    assert arrived == expected
    assert len(arrived) > 0


Fault = Literal["truncated_body", "corrupt_gzip", "drop_connection"]


@pytest.mark.parametrize("fault", ["truncated_body", "corrupt_gzip", "drop_connection"])
def test_an_attempt_broken_half_way_is_repeated_without_doubling(
    paced: Emulator, fault: Fault
) -> None:
    expected = whole(paced, "service_report", 10001)
    with paced.client() as client:
        client.login()
        before = paced.counters()["service_report"]
        paced.set_faults(next=[fault])
        assert client.service_report(10001, **WEEK) == expected
        assert paced.counters()["service_report"] == before + 2, "repeated once"


def test_an_error_answer_raises_and_a_reshaped_report_is_built_whole() -> None:
    with Emulator() as emulator, emulator.client(max_retries=0) as client:
        with pytest.raises(monapi.ApiError, match="task 99999 not found"):
            client.service_report(99999, **WEEK)
        # No checks: PHP's empty `[]` for the report and for each point's maps, reshaped
        # into empty mappings as the asyncio client gives them.
        emulator.set_quirks(no_checks=True)
        assert client.service_report(10001, **WEEK) == {}
        site = client.site_report(20001, **WEEK)
        assert site["0"]["uprate"] == {} and site["0"]["fault"] == {}
        assert site == whole(emulator, "site_report", 20001)
