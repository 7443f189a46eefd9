"""The shared case table (tests/fixtures/cases.json), run whole against the emulator: each case
is accepted, or refused with every problem named and nothing sent. The Rust and Node suites run
the same table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import monapi
from monapi.testing import Emulator

from helpers import fixture

CASES: list[dict[str, Any]] = fixture("cases.json")["cases"]
# The calls that build or set something and send no request.
SETTINGS = ("client", "set_faults", "set_latency", "set_token_ttl", "emulator")
ENV_VARS = (
    "MONAPI_BASE_URL",
    "MONAPI_CLIENT_ID",
    "MONAPI_CLIENT_SECRET",
    "MONAPI_USERNAME",
    "MONAPI_PASSWORD",
)


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 60
    assert len({case["name"] for case in CASES}) == len(CASES), "case names are unique"


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Emulator, monapi.Client]]:
    with Emulator() as emulator, emulator.client(timeout=10.0) as client:
        yield emulator, client


def build(emulator: Emulator, args: dict[str, Any]) -> None:
    options: dict[str, Any] = {
        "base_url": emulator.base_url,
        "client_id": emulator.client_id,
        "client_secret": emulator.client_secret,
        "username": emulator.username,
        "password": emulator.password,
    }
    options.update(args)
    monapi.Client(**{key: value for key, value in options.items() if value is not None})


def run(emulator: Emulator, client: monapi.Client, call: str, args: dict[str, Any]) -> None:
    if call == "client":
        build(emulator, args)
    elif call == "set_faults":
        emulator.set_faults(**args)
        emulator.set_faults()
    elif call == "set_latency":
        emulator.set_latency(args["seconds"])
        emulator.set_latency(0.0)
    elif call == "set_token_ttl":
        emulator.set_token_ttl(args["seconds"])
        emulator.set_token_ttl(3600.0)
    elif call == "emulator":
        with Emulator(**args):
            pass
    elif call == "service_tasks":
        client.service_tasks(args["page"])
    elif call == "create_server_tasks":
        client.create_server_tasks(args["tasks"])
    elif call == "create_service_tasks":
        client.create_service_tasks(args["tasks"])
    elif call == "site_tasks":
        client.site_tasks(args["page"])
    elif call == "site_task":
        client.site_task(args["task_id"])
    elif call == "request":
        client.request(args["method"], args["path"], args.get("query"), args.get("form"))
    else:
        dates = {key: args[key] for key in ("start_date", "end_date", "monitor") if key in args}
        getattr(client, call)(args["task_id"], **dates)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case(
    shared: tuple[Emulator, monapi.Client], case: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    emulator, client = shared
    # The client falls back to these: a case must not pick one up from the caller.
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    before = emulator.counters()["total"]
    if case["expect"] == "accepted":
        run(emulator, client, case["call"], case["args"])
        if case["call"] not in SETTINGS:
            assert emulator.counters()["total"] > before, "accepted, so it was sent"
        return
    with pytest.raises(monapi.ValidationError) as caught:
        run(emulator, client, case["call"], case["args"])
    found = [(p["index"], p["field"], p["rule"]) for p in caught.value.errors]
    expected = case["expect"]["refused"]
    assert len(found) == len(expected), found
    for (index, field, rule), want in zip(found, expected, strict=True):
        assert (index, field) == (want["index"], want["field"]), found
        assert rule.startswith(want["rule"]), (rule, want["rule"])
    first = expected[0]
    assert (caught.value.index, caught.value.field) == (first["index"], first["field"])
    assert emulator.counters()["total"] == before, "refused, so nothing was sent"
