"""The service's empty answers, shaped as PHP writes them (the emulator's quirks), arrive in one
shape: a last page of [], {} or null ends the task list, any other non-list is a DecodeError;
keyed maps written [] are dicts. The Rust, Node and CLI suites feed the same answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import monapi
from monapi.testing import Emulator

from helpers import DAY


@pytest.fixture
def two_full_pages() -> Iterator[Emulator]:
    # The iteration then asks for page 3, past the end.
    with Emulator(service_tasks=100) as emulator:
        yield emulator


@pytest.mark.parametrize("past_end_page", ["array", "object", "null"])
def test_an_empty_last_page_ends_the_list(two_full_pages: Emulator, past_end_page: Any) -> None:
    emulator = two_full_pages
    emulator.set_quirks(past_end_page=past_end_page)
    with emulator.client() as client:
        assert len(list(client.iter_service_tasks())) == 100
        assert emulator.counters()["service_tasks"] == 3
        assert client.service_tasks(3) == []


@pytest.mark.parametrize("past_end_page", ["array", "object", "null"])
async def test_an_empty_last_page_ends_the_async_list(
    two_full_pages: Emulator, past_end_page: Any
) -> None:
    two_full_pages.set_quirks(past_end_page=past_end_page)
    async with two_full_pages.async_client() as client:
        assert len([task async for task in client.iter_service_tasks()]) == 100
        assert await client.service_tasks(3) == []


async def test_a_last_page_that_is_an_object_is_a_decode_error(two_full_pages: Emulator) -> None:
    two_full_pages.set_quirks(past_end_page="status")
    with two_full_pages.client() as client:
        with pytest.raises(monapi.DecodeError) as caught:
            list(client.iter_service_tasks())
        assert caught.value.endpoint == "GET /v2/service/lists.json"
        assert "expected a list of tasks" in str(caught.value)
        with pytest.raises(monapi.DecodeError):
            client.service_tasks(3)
    async with two_full_pages.async_client() as aclient:
        with pytest.raises(monapi.DecodeError):
            async for _ in aclient.iter_service_tasks():
                pass


def test_keyed_maps_written_as_empty_lists_are_dicts(emulator: Emulator) -> None:
    emulator.set_quirks(no_agents=True, no_checks=True)
    with emulator.client() as client:
        assert client.agents() == {}
        assert client.service_report(10001, start_date=DAY, end_date=DAY) == {}
        assert client.response_time_distribution(20001, start_date=DAY, end_date=DAY) == {}
        site = client.site_report(20001, start_date=DAY, end_date=DAY)
        assert site["0"] == {"name": "平均", "uprate": {}, "fault": {}, "resptime": {}}
        assert all(isinstance(point["uprate"], dict) for point in site.values())
        # request() hands the answer back as sent.
        assert client.request("GET", "/v2/agent/lists.json") == []


async def test_async_keyed_maps_are_dicts(emulator: Emulator) -> None:
    emulator.set_quirks(no_agents=True, no_checks=True)
    async with emulator.async_client() as client:
        assert await client.agents() == {}
        report = await client.site_report(20001, start_date=DAY, end_date=DAY, monitor=0)
        assert report == {"0": {"name": "平均", "uprate": {}, "fault": {}, "resptime": {}}}
