"""monapi.testing.Emulator: start options, knobs, counters, stop."""

from __future__ import annotations

import datetime
import json
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

import monapi
from monapi.testing import DEMO_CLIENT_ID, DEMO_PASSWORD, DEMO_USERNAME, Emulator
from monapi.types import Fault, SitePoint

from helpers import DAY


def test_properties_and_demo_account(emulator: Emulator) -> None:
    assert emulator.base_url.startswith("http://127.0.0.1:")
    assert (emulator.client_id, emulator.username, emulator.password) == (
        DEMO_CLIENT_ID,
        DEMO_USERNAME,
        DEMO_PASSWORD,
    )
    assert emulator.client_secret
    assert emulator.running
    assert "running" in repr(emulator)


def test_start_options() -> None:
    with Emulator(seed=7, service_tasks=60, token_ttl=5.0) as emulator:
        client = emulator.client()
        assert client.login()["expires_in"] == 5
        assert len(list(client.iter_service_tasks())) == 60
        with Emulator(seed=8) as other:
            other_seed = other.client().service_tasks()
        names = [t["task_name"] for t in client.service_tasks()]
        assert names != [t["task_name"] for t in other_seed]


def test_the_time_zone_decides_the_days() -> None:
    day = "2026-11-01"
    zones = (("+08:00", 8.0, "+08:00"), ("UTC", 0.0, "+00:00"), ("-05:30", -5.5, "-05:30"))
    for zone, hours, shown in zones:
        with Emulator(timezone=zone) as emulator:
            assert emulator.timezone == shown
            client = emulator.client()
            report = client.site_report(20001, start_date=day, end_date=day, monitor=0)
            offset = datetime.timezone(datetime.timedelta(hours=hours))
            midnight = datetime.datetime(2026, 11, 1, tzinfo=offset)
            assert int(next(iter(report["0"]["uprate"]))) == int(midnight.timestamp())
    with Emulator() as emulator:
        assert emulator.timezone == "+08:00"
    with pytest.raises(monapi.ValidationError) as caught:
        Emulator(timezone="Asia/Shanghai")
    assert caught.value.field == "timezone"


def test_knobs_counters_reset_and_stop(emulator: Emulator) -> None:
    client = emulator.client(max_retries=0)
    emulator.set_token_ttl(120.0)
    assert client.login()["expires_in"] == 120
    emulator.set_faults(next=["error_500"])
    with pytest.raises(monapi.ApiError) as caught:
        client.agents()
    assert caught.value.status_code == 500
    emulator.set_faults(error_429=1.0, retry_after_secs=0)
    with pytest.raises(monapi.ApiError) as caught:
        client.agents()
    assert caught.value.status_code == 429
    emulator.set_faults()
    assert client.agents()
    counters = emulator.counters()
    assert counters == {**counters, "token": 1, "agents": 3, "total": 4}
    emulator.reset()
    assert emulator.counters()["total"] == 0
    emulator.stop()
    assert not emulator.running
    emulator.stop()  # idempotent
    with pytest.raises(RuntimeError):
        emulator.counters()
    client = emulator.client(max_retries=0)
    with pytest.raises(monapi.ConnectionError) as refused:
        client.agents()
    # Where the connection went, so that a wrong base_url or port shows.
    address = client.base_url.removeprefix("http://")
    assert f"could not connect to {address}:" in str(refused.value)


def test_bad_knob_values(emulator: Emulator) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.set_faults(next=["explode"])  # type: ignore[list-item]
    assert caught.value.field == "next"
    assert "drop_connection" in str(caught.value) and "explode" in str(caught.value)
    with pytest.raises(TypeError):
        emulator.set_faults(unknown=1.0)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        emulator.set_latency(-1.0)


LATENCY_RULE = "must be a number of seconds from 0 to 2147483.647 (about 24.9 days)"
TTL_RULE = "must be a number of seconds from 0 to 4294967295 (about 136.1 years)"
NOT_DURATIONS = [-1.0, float("nan"), float("inf"), 1e300]


def test_durations_out_of_range_are_refused_by_the_emulators_rule(emulator: Emulator) -> None:
    # The emulator's own rule: the range of Node's latencyMs, in seconds here.
    cases: list[tuple[Callable[[float], object], str, str, float]] = [
        (emulator.set_latency, "seconds", LATENCY_RULE, 2147483.648),
        (lambda v: Emulator(latency=v), "latency", LATENCY_RULE, 2147483.648),
        (emulator.set_token_ttl, "seconds", TTL_RULE, 2.0**32),
        (lambda v: Emulator(token_ttl=v), "token_ttl", TTL_RULE, 2.0**32),
    ]
    for call, field, rule, just_above in cases:
        for value in [*NOT_DURATIONS, just_above]:
            with pytest.raises(monapi.ValidationError) as caught:
                call(value)
            assert (caught.value.field, caught.value.rule) == (field, rule), value
    with pytest.raises(monapi.ValidationError) as caught:
        Emulator(service_tasks=100_001)
    assert caught.value.field == "service_tasks"
    assert caught.value.rule == "must be a number of tasks from 0 to 100000"
    # The bounds themselves are taken.
    emulator.set_latency(2147483.647)
    emulator.set_token_ttl(2.0**32 - 1)
    emulator.set_latency(0.0)


SHARES = [
    "error_500",
    "error_503",
    "error_429",
    "drop_connection",
    "truncated_body",
    "malformed_body",
    "corrupt_gzip",
]


@pytest.mark.parametrize("share", SHARES)
def test_a_share_out_of_range_is_refused_by_the_emulator(emulator: Emulator, share: str) -> None:
    emulator.set_faults(next=["error_500"])
    for value in [-0.01, 1.5, float("nan"), float("inf")]:
        bad: dict[str, Any] = {share: value}
        with pytest.raises(monapi.ValidationError) as caught:
            emulator.set_faults(**bad)
        assert caught.value.field == share
        assert caught.value.rule.startswith("must be a share of requests from 0.0 to 1.0, got ")
        assert isinstance(caught.value, ValueError)
    # Nothing changed: the queued fault is still served first.
    with pytest.raises(monapi.ApiError) as served:
        emulator.client(max_retries=0).agents()
    assert served.value.status_code == 500
    for bound in [0.0, 1.0]:
        good: dict[str, Any] = {share: bound}
        emulator.set_faults(**good)


async def test_async_client_of_the_emulator(emulator: Emulator) -> None:
    async with emulator.async_client() as client:
        assert len(await client.service_tasks()) == 50


def _raw(emulator: Emulator, client: monapi.Client, path: str, **query: str) -> bytes:
    """The body of a GET on the emulator as sent, with the client's access token."""
    token = client.token or client.login()
    query["access_token"] = str(token["access_token"])
    url = f"{emulator.base_url}{path}?{urllib.parse.urlencode(query)}"
    # No proxy from the environment: the emulator is on loopback.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as response:
        assert response.status == 200
        body: bytes = response.read()
        return body


PAST_END_BODIES = [
    ("array", b"[]"),
    ("object", b"{}"),
    ("null", b"null"),
    ("status", b'{"code":0,"msg":"no more data"}'),
]


@pytest.mark.parametrize(("past_end_page", "body"), PAST_END_BODIES)
def test_quirk_past_end_page(
    emulator: Emulator, client: monapi.Client, past_end_page: Any, body: bytes
) -> None:
    emulator.set_quirks(past_end_page=past_end_page)
    assert _raw(emulator, client, "/v2/service/lists.json", page="4") == body
    assert len(json.loads(_raw(emulator, client, "/v2/service/lists.json", page="3"))) == 20
    emulator.set_quirks()
    assert _raw(emulator, client, "/v2/service/lists.json", page="4") == b"[]"


def test_quirks_no_agents_and_no_checks(emulator: Emulator, client: monapi.Client) -> None:
    emulator.set_quirks(no_agents=True, no_checks=True)
    day = DAY.isoformat()
    dates = {"start_date": day, "end_date": day}
    assert _raw(emulator, client, "/v2/agent/lists.json") == b"[]"
    assert _raw(emulator, client, "/v2/service/report/10001.json", **dates) == b"[]"
    assert _raw(emulator, client, "/v2/site/respose_time_distribute/20001.json", **dates) == b"[]"
    site = json.loads(_raw(emulator, client, "/v2/site/report/20001.json", **dates))
    assert next(iter(site)) == "0" and len(site) >= 5
    assert site["0"]["name"] == "平均"
    for point in site.values():
        assert {**point, "name": ""} == {"name": "", "uprate": [], "fault": [], "resptime": []}
    # Through the client: nothing in any of them.
    assert len(client.agents()) == 0
    assert len(client.service_report(10001, start_date=DAY, end_date=DAY)) == 0
    assert len(client.response_time_distribution(20001, start_date=DAY, end_date=DAY)) == 0
    report = client.site_report(20001, start_date=DAY, end_date=DAY, monitor=0)
    assert list(report) == ["0"]
    assert len(report["0"]["uprate"]) == 0 and len(report["0"]["resptime"]) == 0
    # reset turns them off (they were not set at start).
    emulator.reset()
    assert len(client.agents()) == 3
    assert len(client.response_time_distribution(20001, start_date=DAY, end_date=DAY)) > 0


def test_a_bad_quirk_is_a_validation_error_naming_it(
    emulator: Emulator, client: monapi.Client
) -> None:
    emulator.set_quirks(past_end_page="null")
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.set_quirks(past_end_page="list")  # type: ignore[arg-type]
    assert caught.value.field == "past_end_page"
    assert "must be one of array, object, null, status" in str(caught.value)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(TypeError):
        emulator.set_quirks(no_agent=True)  # type: ignore[call-arg]
    assert _raw(emulator, client, "/v2/service/lists.json", page="4") == b"null"


def _faults(point: SitePoint) -> list[Fault]:
    """The fault records of a site report's point (none for ``None``)."""
    return [f for k, f in (point["fault"] or {}).items() if k != "count" and not isinstance(f, int)]


def test_fail_site_and_recover_site(emulator: Emulator, client: monapi.Client) -> None:
    before = client.site_report(20003)  # today; fetched (and cached) before the knob
    since = emulator.fail_site(20003)
    assert since % 900 == 0  # a check of the fifteen-minute task (+08:00 is whole quarters)
    assert emulator.fail_site("20003") == since  # already failing: unchanged
    failing = client.site_report(20003)
    for key, point in failing.items():
        for ts, rate in point["uprate"].items():
            expected = before[key]["uprate"][ts] if int(ts) < since else {"uprate": "0.00"}
            assert rate == expected, (key, ts)
        assert point["uprate"][str(since)]["uprate"] == "0.00"
        ongoing = [f for f in _faults(point) if f["end_time"] == "未结束"]
        if key == "0":
            assert point["fault"] is None  # the average has none of its own
        else:
            assert [f["start_time"] for f in ongoing] == [str(since)], key
            assert ongoing[0]["fault_status"]
    assert client.site_report(20001) == client.site_report(20001)  # other sites as they were

    up = emulator.recover_site(20003)
    assert up is not None and up > since and (up - since) % 900 == 0
    assert emulator.recover_site(20003) is None  # not failing any more
    # The fault ends once the clock reaches its first check up again.
    emulator.set_now(datetime.datetime.fromtimestamp(up, datetime.UTC))
    # The day of the outage: from 23:45 (+08:00) on, the recovery's check is the next day's.
    day = datetime.datetime.fromtimestamp(since, datetime.timezone(datetime.timedelta(hours=8)))
    recovered = client.site_report(20003, start_date=day.date(), end_date=day.date())
    for key, point in recovered.items():
        for ts, rate in point["uprate"].items():
            if since <= int(ts) < up:
                assert rate["uprate"] == "0.00", (key, ts)
            elif ts in before[key]["uprate"]:
                assert rate == before[key]["uprate"][ts], (key, ts)
        if key != "0":
            ended = [f for f in _faults(point) if f["start_time"] == str(since)]
            assert [f["end_time"] for f in ended] == [str(up)], key

    # reset forgets it: the report is as it was before the knob.
    emulator.fail_site(20003)
    emulator.reset()
    assert client.site_report(20003) == before


def test_fail_site_refuses_what_is_not_a_site_task(emulator: Emulator) -> None:
    for task_id in (10001, 20006, "99999"):
        with pytest.raises(monapi.ValidationError) as caught:
            emulator.fail_site(task_id)
        assert caught.value.field == "task_id"
        assert caught.value.rule == f"must be a site task (20001 to 20005), got {task_id}"
        with pytest.raises(monapi.ValidationError):
            emulator.recover_site(task_id)
    with pytest.raises(monapi.ValidationError) as caught:
        emulator.fail_site(0)  # no task id at all, by the client's rule
    assert caught.value.field == "task_id"


def test_remove_task_and_restore_task(emulator: Emulator, client: monapi.Client) -> None:
    def site_ids() -> list[str]:
        sites = client.site_tasks()
        assert isinstance(sites, list)
        return [t["task_id"] for t in sites]

    def service_ids() -> list[str]:
        return [t["task_id"] for t in client.iter_service_tasks()]

    def failure(call: Callable[[int], object], task_id: int) -> monapi.ApiError:
        with pytest.raises(monapi.ApiError) as caught:
            call(task_id)
        return caught.value

    sites, services = site_ids(), service_ids()
    assert emulator.remove_task(20002) is True
    assert emulator.remove_task("20002") is False  # removed already
    assert emulator.remove_task(10001) is True
    assert site_ids() == [i for i in sites if i != "20002"]
    assert service_ids() == services[1:]
    assert [t["task_id"] for t in client.service_tasks(page=3)] == services[101:]  # 19 left

    # Every operation naming a removed task fails as for an id that does not exist.
    calls: list[tuple[int, Callable[[int], object]]] = [
        (10001, lambda i: client.service_report(i, start_date=DAY, end_date=DAY)),
        (20002, lambda i: client.site_report(i, start_date=DAY, end_date=DAY)),
        (20002, lambda i: client.response_time_distribution(i, start_date=DAY, end_date=DAY)),
        (20002, client.site_task),
    ]
    for removed, call in calls:
        error, unknown = failure(call, removed), failure(call, 29999)
        assert type(error) is type(unknown)
        assert (error.status_code, error.code) == (unknown.status_code, unknown.code) == (404, 404)
        assert error.message == unknown.message.replace("29999", str(removed))

    assert emulator.restore_task(20002) is True
    assert emulator.restore_task(20002) is False  # present already
    assert site_ids() == sites
    assert client.site_task(20002)["task_id"] == "20002"
    # reset brings back what is still removed.
    emulator.reset()
    assert service_ids() == services
    assert emulator.restore_task(10001) is False


def test_remove_task_refuses_what_is_no_seeded_task(emulator: Emulator) -> None:
    for task_id in (10121, 20006, "30001"):
        with pytest.raises(monapi.ValidationError) as caught:
            emulator.remove_task(task_id)
        assert caught.value.field == "task_id"
        assert caught.value.rule == (
            "must be a service task (10001 to 10120) or a site task (20001 to 20005), "
            f"got {task_id}"
        )
        with pytest.raises(monapi.ValidationError):
            emulator.restore_task(task_id)


def test_the_clock_and_the_world_are_options_and_knobs() -> None:
    beijing = datetime.timezone(datetime.timedelta(hours=8))
    ten_oh_two = datetime.datetime(2026, 11, 1, 10, 2, tzinfo=beijing)
    with Emulator(now="2026-11-01 10:02", world="stressed") as emulator:
        assert emulator.world == "stressed"
        assert emulator.now == ten_oh_two
        with emulator.client() as client:
            report = client.site_report(20001)  # today, on the emulator's clock
            # No check after the clock: a five-minute task's last is at 10:00.
            last = max(int(ts) for ts in report["0"]["uprate"])
            assert last == int(ten_oh_two.timestamp()) - 120
            assert emulator.advance(3600) == ten_oh_two + datetime.timedelta(hours=1)
            emulator.set_now(datetime.datetime(2026, 11, 1, 23, 59, tzinfo=beijing))
            late = client.site_report(20001, start_date="2026-11-01", end_date="2026-11-01")
            assert len(late["0"]["uprate"]) == 288
        for bad in ("2026-10-31 23:00", datetime.datetime(2026, 11, 1, 12), "soon"):
            with pytest.raises(monapi.ValidationError) as caught:
                emulator.set_now(bad)
            assert caught.value.field == "now", bad
        emulator.reset()
        assert emulator.now == ten_oh_two
    with Emulator() as emulator:
        assert emulator.world == "realistic"
    with pytest.raises(monapi.ValidationError) as caught:
        Emulator(world="calm")  # type: ignore[arg-type]
    assert caught.value.field == "world"
