"""The operations the spec names without describing them, sync and async: the site task list,
a site task's settings, the monitoring points, the users and groups, service task creation;
their tables, and the bulk site reports of every site."""

from __future__ import annotations

import datetime
import json
import urllib.request
from typing import Any, Literal

import pyarrow as pa
import pytest

import monapi
from monapi.testing import Emulator

from helpers import fixture


def raw(emulator: Emulator, client: monapi.Client, path: str) -> Any:
    """The service's own answer to `path`, read without monapi."""
    token = client.token or client.login()
    url = f"{emulator.base_url}{path}?access_token={token['access_token']}"
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture
def sites() -> Any:
    with Emulator(site_tasks=120) as emulator:
        yield emulator


def test_site_tasks_page_by_page_and_lazily(sites: Emulator) -> None:
    client = sites.client()
    pages = [client.site_tasks(page) for page in (1, 2, 3)]
    assert [len(page) for page in pages] == [50, 50, 20]
    assert client.site_tasks(4) == []
    listed = [task for page in pages for task in page]
    assert pages[0] == raw(sites, client, "/v2/site/lists.json")
    before = sites.counters()["site_tasks"]
    iterator = client.iter_site_tasks()
    first = next(iterator)
    assert sites.counters()["site_tasks"] == before + 1, "one page fetched so far"
    every = [first, *iterator]
    assert every == listed
    assert [int(t["task_id"]) for t in every] == list(range(20001, 20121))
    assert every[0]["frequency"] == "5" and every[0]["task_status"] == "启用"


@pytest.mark.parametrize("past_end_page", ["array", "object", "null"])
def test_the_site_list_ends_at_any_empty_page(
    past_end_page: Literal["array", "object", "null"],
) -> None:
    with Emulator(site_tasks=100) as emulator:
        emulator.set_quirks(past_end_page=past_end_page)
        client = emulator.client()
        assert len(list(client.iter_site_tasks())) == 100
        assert client.site_tasks(3) == []
        assert client.tables.site_tasks().num_rows == 100


def test_keyed_lists_arrive_as_sent_and_iterate_as_lists(sites: Emulator) -> None:
    client = sites.client()
    listed = list(client.iter_site_tasks())
    lists = (client.monitors(), client.users(), client.user_groups())
    sites.set_quirks(keyed_lists=True)
    page = client.site_tasks(1)
    assert isinstance(page, dict) and list(page) == [t["task_id"] for t in listed[:50]]
    assert list(client.iter_site_tasks()) == listed
    for keyed, plain in zip(
        (client.monitors(), client.users(), client.user_groups()), lists, strict=True
    ):
        assert isinstance(keyed, dict) and list(keyed.values()) == plain
    assert client.tables.site_tasks().num_rows == 120
    assert client.tables.monitors().num_rows == 8


def test_site_task_points_users_and_groups_are_faithful(
    client: monapi.Client, emulator: Emulator
) -> None:
    site = client.site_task(20002)
    assert site == raw(emulator, client, "/v2/site/info/20002.json")
    report = client.site_report(20002)
    assert {p["monitor_id"] for p in site["monitors"]} == set(report) - {"0"}
    points = client.monitors()
    assert isinstance(points, list)
    assert points[0] == raw(emulator, client, "/v2/site/monitors.json")[0]
    assert points[0]["monitor_name"] == "北京电信"
    users = client.users()
    assert isinstance(users, list)
    assert [u["user_id"] for u in users] == ["101", "102", "103", "104"]
    assert users[1]["organization"][0] == {"organization_id": "1", "organization_name": "运维部"}
    groups = client.user_groups()
    assert isinstance(groups, list)
    assert [g["organization_name"] for g in groups] == ["运维部", "研发部", "数据库组"]
    with pytest.raises(monapi.ApiError) as caught:
        client.site_task(20999)
    assert caught.value.status_code == 404
    with pytest.raises(monapi.ValidationError):
        client.site_task(0)


def test_the_site_task_and_point_tables_are_typed(client: monapi.Client) -> None:
    tasks = list(client.iter_site_tasks())
    table = client.tables.site_tasks().to_arrow()
    assert table.column("task_id").to_pylist() == [int(t["task_id"]) for t in tasks]
    assert table.schema.field("task_id").type == pa.int64()
    assert table.schema.field("frequency").type == pa.int64()
    assert table.schema.field("last_resp_time").type == pa.float64()
    assert table.schema.field("last_check_time").type == pa.timestamp("s", tz="+08:00")
    assert table.column("frequency").to_pylist() == [int(t["frequency"]) for t in tasks]
    assert table.column("last_resp_time").to_pylist() == [float(t["last_resp_time"]) for t in tasks]
    last = table.column("last_check_time").to_pylist()[0]
    assert last.strftime("%Y-%m-%d %H:%M:%S") == tasks[0]["last_check_time"]
    points = client.tables.monitors().to_pandas()
    assert list(points.columns[:2]) == ["monitor_id", "monitor_name"]
    assert points["monitor_id"].tolist() == list(range(1, 9))
    assert str(points["isp_name"].dtype) == "category"


def test_every_site_equals_the_single_calls(client: monapi.Client) -> None:
    day = datetime.date(2026, 3, 1)
    every = client.tables.site_reports(start_date=day, end_date=day)
    singles = [
        client.tables.site_report(task, start_date=day, end_date=day)
        for task in range(20001, 20006)
    ]
    for name in ("availability", "response_time", "faults"):
        combined = getattr(every, name).to_arrow()
        expected = pa.concat_tables([getattr(single, name).to_arrow() for single in singles])
        assert combined.equals(expected), name
    assert every.failures == []


SERVICE_TASKS: list[dict[str, Any]] = fixture("service_create_request.json")


def test_create_service_tasks(client: monapi.Client, emulator: Emulator) -> None:
    created = client.create_service_tasks(SERVICE_TASKS)
    assert created == [{"task_id": 200001}, {"task_id": 200002}]
    stored = emulator.created_service_tasks()
    assert stored[1]["password"] == SERVICE_TASKS[1]["password"]
    assert stored[1]["port"] == "3306" and stored[1]["open_scope"] == "2"
    # The core's defaults for the fields left out.
    client.create_service_tasks([{"task_name": "w", "task_type": "iis", "logPath": "C:/logs"}])
    assert emulator.created_service_tasks()[2]["frequency"] == "5"
    with pytest.raises(TypeError):
        client.create_service_tasks(SERVICE_TASKS[0])  # type: ignore[arg-type]


def test_a_bad_service_batch_names_every_problem_and_sends_nothing(
    client: monapi.Client, emulator: Emulator
) -> None:
    bad = [{**SERVICE_TASKS[1], "port": 0, "password": None}, {"task_name": "x", "task_type": "pg"}]
    with pytest.raises(monapi.ValidationError) as caught:
        client.create_service_tasks(bad)
    assert [(e["index"], e["field"]) for e in caught.value.errors] == [
        (0, "port"),
        (0, "password"),
        (1, "task_type"),
    ]
    assert emulator.counters()["create_service"] == 0


def test_a_partly_refused_service_batch(client: monapi.Client, emulator: Emulator) -> None:
    batch = [
        SERVICE_TASKS[0],
        {**SERVICE_TASKS[1], "use_agent": 1, "plugin_task_uselist_id": "999999"},
    ]
    with pytest.raises(monapi.PartialCreateError) as caught:
        client.create_service_tasks(batch)
    assert caught.value.failed_indices == [1]
    assert len(emulator.created_service_tasks()) == 1


def test_a_service_create_is_not_repeated_after_a_503(
    client: monapi.Client, emulator: Emulator
) -> None:
    client.login()
    emulator.set_faults(next=["error_503"])
    with pytest.raises(monapi.ApiError):
        client.create_service_tasks(SERVICE_TASKS)
    assert emulator.counters()["create_service"] == 1
    # A rejected token: renewed, and the create sent again once.
    emulator.expire_tokens()
    assert len(client.create_service_tasks(SERVICE_TASKS)) == 2
    assert emulator.counters()["create_service"] == 3
    assert len(emulator.created_service_tasks()) == 2


async def test_async_every_new_operation(emulator: Emulator) -> None:
    async with emulator.async_client() as aclient:
        client = emulator.client()
        assert await aclient.site_tasks() == client.site_tasks()
        assert [t async for t in aclient.iter_site_tasks()] == list(client.iter_site_tasks())
        assert await aclient.site_task("20001") == client.site_task(20001)
        assert await aclient.monitors() == client.monitors()
        assert await aclient.users() == client.users()
        assert await aclient.user_groups() == client.user_groups()
        created = await aclient.create_service_tasks(SERVICE_TASKS[:1])
        assert created == [{"task_id": 200001}]
        table = await aclient.tables.site_tasks()
        assert table.num_rows == 5
        assert (await aclient.tables.monitors()).num_rows == 8
        day = "2026-03-01"
        every = await aclient.tables.site_reports(start_date=day, end_date=day, monitor=0)
        assert (
            every.availability.num_rows
            == client.tables.site_reports(
                [20001, 20002, 20003, 20004, 20005], start_date=day, end_date=day, monitor=0
            ).availability.num_rows
        )
