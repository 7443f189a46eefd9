"""Every operation, sync and async, against the emulator: shapes as in the fixtures of the
service's documented payloads, values exactly as sent (strings stay strings), key order kept."""

from __future__ import annotations

import asyncio
import datetime
import json
import pickle
import urllib.request

import pytest

import monapi
from monapi.testing import Emulator

from helpers import DAY, assert_shape, fixture, linux_task


def raw_body(emulator: Emulator, client: monapi.Client, path: str) -> bytes:
    token = client.token
    assert token is not None
    separator = "&" if "?" in path else "?"
    url = f"{emulator.base_url}{path}{separator}access_token={token['access_token']}"
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
        return body


def test_login_returns_a_token_dict(client: monapi.Client, emulator: Emulator) -> None:
    before = client.token
    assert before is None
    token = client.login()
    assert isinstance(token, monapi.Token) and isinstance(token, dict)
    assert list(token) == [
        "access_token",
        "refresh_token",
        "expires_in",
        "expires_at",
        "token_type",
        "scope",
    ]
    assert token["token_type"] == "bearer"
    assert token["expires_in"] == 3600
    assert isinstance(token["expires_at"], int) and token["expires_at"] > 1_700_000_000
    assert token["scope"] is None
    assert client.token == token
    assert emulator.counters()["token_password"] == 1


def test_service_tasks_pages_and_strings(client: monapi.Client) -> None:
    first = client.service_tasks()
    assert len(first) == monapi.PAGE_SIZE == 50
    assert_shape(first, fixture("service_tasks.json"))
    assert first[0]["task_id"] == "10001"
    assert client.service_tasks(page=2)[0]["task_id"] == "10051"
    assert len(client.service_tasks(3)) == 20
    assert client.service_tasks(4) == []


def test_iter_service_tasks_is_lazy_and_stops_at_a_short_page(
    client: monapi.Client, emulator: Emulator
) -> None:
    iterator = client.iter_service_tasks()
    assert emulator.counters()["service_tasks"] == 0
    first = next(iterator)
    assert first["task_id"] == "10001"
    assert emulator.counters()["service_tasks"] == 1
    rest = list(iterator)
    assert len(rest) == 119
    assert [t["task_id"] for t in rest][-1] == "10120"
    assert emulator.counters()["service_tasks"] == 3
    assert list(iterator) == []


def test_iter_service_tasks_with_an_exactly_full_last_page() -> None:
    with Emulator(service_tasks=100) as emulator:
        tasks = list(emulator.client().iter_service_tasks())
        assert len(tasks) == 100
        assert emulator.counters()["service_tasks"] == 3


def test_agents_keep_the_service_order_and_shape(client: monapi.Client, emulator: Emulator) -> None:
    agents = client.agents()
    assert_shape(agents, fixture("agents.json"))
    body = raw_body(emulator, client, "/v2/agent/lists.json")
    assert list(agents) == list(json.loads(body))
    assert agents == json.loads(body)


def test_service_report_equals_json_loads_of_the_body(
    client: monapi.Client, emulator: Emulator
) -> None:
    tasks = client.service_tasks()
    apache = next(t for t in client.iter_service_tasks() if t["task_type"] == "apache")
    report = client.service_report(apache["task_id"], start_date=DAY, end_date=DAY)
    assert_shape(report, fixture("service_report_apache.json"))
    for task in tasks[:3]:
        report = client.service_report(task["task_id"], start_date=DAY, end_date=DAY.isoformat())
        day = DAY.isoformat()
        body = raw_body(
            emulator,
            client,
            f"/v2/service/report/{task['task_id']}.json?start_date={day}&end_date={day}",
        )
        expected = json.loads(body)
        assert report == expected
        assert list(report) == list(expected)
        first_series = next(iter(report.values()))
        assert list(first_series[0]) == list(next(iter(expected.values()))[0])
        assert all(isinstance(v, str) for v in first_series[0].values())


def test_site_report_all_points_average_and_one_point(client: monapi.Client) -> None:
    every = client.site_report(20001, start_date=DAY, end_date=DAY)
    assert_shape(every, fixture("site_report.json"))
    assert "0" in every and len(every) > 1
    average = client.site_report(20001, start_date=DAY, end_date=DAY, monitor=0)
    assert list(average) == ["0"]
    point = next(k for k in every if k != "0")
    one = client.site_report("20001", start_date=DAY, end_date=DAY, monitor=int(point))
    assert list(one) == [point]
    assert one[point] == every[point]


def test_response_time_distribution(client: monapi.Client) -> None:
    buckets = client.response_time_distribution(20001, start_date=DAY, end_date=DAY)
    assert_shape(buckets, fixture("response_time_distribution.json"))
    assert all(
        isinstance(b["count"], int) and isinstance(b["percent"], str) for b in buckets.values()
    )


def test_create_server_tasks(client: monapi.Client, emulator: Emulator) -> None:
    batch = fixture("create_request.json")
    created = client.create_server_tasks(batch)
    assert_shape(created, fixture("create_response.json"))
    assert [c["task_id"] for c in created] == [30001, 30002]
    stored = emulator.server_tasks()
    assert [t["server_name"] for t in stored] == [t["server_name"] for t in batch]
    # Loose Python values are accepted and sent as the service's strings.
    more = client.create_server_tasks(
        [linux_task("py-01", frequency=10, snmp_port=161, server_systype=0, use_agent=False)]
    )
    assert more == [{"task_id": 30003}]
    assert emulator.server_tasks()[-1]["frequency"] == "10"


def test_dates_as_dates_or_strings_give_the_same_report(client: monapi.Client) -> None:
    a = client.service_report(10001, start_date=DAY, end_date=DAY)
    b = client.service_report("10001", start_date=DAY.isoformat(), end_date=DAY.isoformat())
    c = client.service_report(
        10001, start_date=datetime.datetime.combine(DAY, datetime.time(12)), end_date=DAY
    )
    assert a == b == c


def test_context_manager_closes(emulator: Emulator) -> None:
    with emulator.client() as client:
        assert not client.closed
        client.agents()
    assert client.closed
    with pytest.raises(monapi.MonapiError, match="closed"):
        client.agents()
    assert client.token is not None  # the last token stays readable


async def test_async_every_operation(aclient: monapi.AsyncClient, emulator: Emulator) -> None:
    token = await aclient.login()
    assert isinstance(token, monapi.Token)
    refreshed = await aclient.refresh()
    assert refreshed["access_token"] != token["access_token"]
    tasks = await aclient.service_tasks()
    assert_shape(tasks, fixture("service_tasks.json"))
    assert len(await aclient.service_tasks(page=3)) == 20
    agents = await aclient.agents()
    assert_shape(agents, fixture("agents.json"))
    report = await aclient.service_report(tasks[0]["task_id"], start_date=DAY, end_date=DAY)
    assert report and all(isinstance(records, list) for records in report.values())
    site = await aclient.site_report(20002, start_date=DAY, end_date=DAY, monitor=0)
    assert_shape(site, fixture("site_report.json"))
    buckets = await aclient.response_time_distribution(20003, start_date=DAY, end_date=DAY)
    assert_shape(buckets, fixture("response_time_distribution.json"))
    created = await aclient.create_server_tasks([linux_task("async-01")])
    assert created == [{"task_id": 30001}]
    counters = emulator.counters()
    assert (counters["token_password"], counters["token_refresh"]) == (1, 1)
    assert counters["create"] == 1


async def test_async_results_equal_sync_results(
    aclient: monapi.AsyncClient, client: monapi.Client
) -> None:
    assert await aclient.agents() == client.agents()
    assert await aclient.service_report(10002, start_date=DAY) == client.service_report(
        10002, start_date=DAY
    )


async def test_async_iter_service_tasks(aclient: monapi.AsyncClient, emulator: Emulator) -> None:
    seen = [task["task_id"] async for task in aclient.iter_service_tasks()]
    assert len(seen) == 120 and seen[0] == "10001" and seen[-1] == "10120"
    assert emulator.counters()["service_tasks"] == 3


async def test_async_iter_service_tasks_with_an_exactly_full_last_page() -> None:
    with Emulator(service_tasks=100) as emulator:
        client = emulator.async_client()
        tasks = [task["task_id"] async for task in client.iter_service_tasks()]
        assert len(tasks) == len(set(tasks)) == 100
        assert emulator.counters()["service_tasks"] == 3


async def test_an_async_iterator_is_fetched_from_one_place_at_a_time(
    aclient: monapi.AsyncClient, emulator: Emulator
) -> None:
    iterator = aclient.iter_service_tasks()
    emulator.set_latency(0.5)  # wide, so a slow machine still finds the first page in flight
    first = asyncio.ensure_future(iterator.__anext__())
    await asyncio.sleep(0.05)  # the first page is on its way
    with pytest.raises(RuntimeError, match="already fetching"):
        await iterator.__anext__()
    emulator.set_latency(0.0)
    seen = [(await first)["task_id"]] + [task["task_id"] async for task in iterator]
    assert len(seen) == len(set(seen)) == 120
    assert emulator.counters()["service_tasks"] == 3


async def test_async_calls_are_coroutines(aclient: monapi.AsyncClient) -> None:
    call = aclient.agents()
    assert asyncio.iscoroutine(call)
    task = asyncio.create_task(call)
    assert len(await task) >= 3
    results = await asyncio.gather(*(aclient.service_tasks(p) for p in (1, 2, 3)))
    assert [len(r) for r in results] == [50, 50, 20]
    assert await asyncio.wait_for(aclient.service_tasks(1), timeout=10) == results[0]


def test_asyncio_run_accepts_a_call_made_outside_the_loop(emulator: Emulator) -> None:
    client = emulator.async_client()
    call = client.service_tasks(2)  # nothing runs until the loop awaits it
    assert emulator.counters()["service_tasks"] == 0
    tasks = asyncio.run(call)
    assert tasks[0]["task_id"] == "10051"
    # and a second loop later works too
    assert len(asyncio.run(client.service_tasks(3))) == 20


async def test_async_context_manager_closes(emulator: Emulator) -> None:
    async with emulator.async_client() as client:
        await client.agents()
    assert client.closed
    with pytest.raises(monapi.MonapiError, match="closed"):
        await client.agents()


async def test_an_awaited_call_cannot_be_awaited_again(aclient: monapi.AsyncClient) -> None:
    call = aclient.agents()
    await call
    with pytest.raises(RuntimeError, match="already awaited"):
        await call


def test_unset_values_come_from_monapi_environment_variables(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONAPI_BASE_URL", emulator.base_url)
    monkeypatch.setenv("MONAPI_CLIENT_ID", emulator.client_id)
    monkeypatch.setenv("MONAPI_CLIENT_SECRET", emulator.client_secret)
    monkeypatch.setenv("MONAPI_USERNAME", emulator.username)
    monkeypatch.setenv("MONAPI_PASSWORD", emulator.password)
    client = monapi.Client()
    assert client.base_url == emulator.base_url
    assert len(client.service_tasks()) == 50
    # An explicit value wins over its variable.
    with pytest.raises(monapi.InvalidClientError):
        monapi.Client(client_secret="not-the-secret").login()
    # The resolved configuration travels with a pickled client, variables or not.
    copy = pickle.dumps(client)
    for name in ("MONAPI_BASE_URL", "MONAPI_CLIENT_SECRET", "MONAPI_PASSWORD"):
        monkeypatch.delenv(name)
    restored = pickle.loads(copy)
    emulator.expire_tokens()
    emulator.revoke_refresh_tokens()
    assert restored.agents()  # logged in again with the pickled credentials
    with pytest.raises(monapi.ValidationError) as caught:
        monapi.Client()
    assert caught.value.field == "base_url"
