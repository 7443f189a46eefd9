"""The core's rules as Python sees them: server tasks with the core's defaults and every problem
named at once, and request() for the operations without a method of their own."""

from __future__ import annotations

import json
import pickle

import pytest

import monapi
from monapi.testing import Emulator

from helpers import fixture, linux_task


def test_a_minimal_task_is_stored_as_from_rust_and_node(
    client: monapi.Client, emulator: Emulator
) -> None:
    minimal = fixture("minimal_server_task.json")
    assert client.create_server_tasks([minimal["input"]]) == [{"task_id": 30001}]
    assert emulator.server_tasks() == [minimal["stored"]]


async def test_an_async_minimal_task_is_stored_the_same(
    aclient: monapi.AsyncClient, emulator: Emulator
) -> None:
    minimal = fixture("minimal_server_task.json")
    await aclient.create_server_tasks([minimal["input"]])
    assert emulator.server_tasks() == [minimal["stored"]]


def test_every_problem_of_a_batch_at_once(client: monapi.Client, emulator: Emulator) -> None:
    windows = {"server_name": "win", "server_ip": "10.0.0.2", "server_systype": 1}
    bad = [linux_task("ok"), {**windows, "task_type": ["cpu"]}, linux_task("b", frequency=0)]
    with pytest.raises(monapi.ValidationError) as caught:
        client.create_server_tasks(bad)
    error = caught.value
    assert [(p["index"], p["field"]) for p in error.errors] == [
        (1, "private_ip"),
        (1, "task_type"),
        (2, "frequency"),
    ]
    # The first problem is the error's own fields and starts the message; the others follow.
    assert (error.index, error.field) == (1, "private_ip")
    assert str(error).startswith("invalid input: task 1: `private_ip` is required")
    assert '2 more problems: task 1: `task_type` indicator "cpu" is not allowed' in str(error)
    assert pickle.loads(pickle.dumps(error)).errors == error.errors
    assert emulator.counters()["total"] == 0


def test_control_characters_and_misspelt_fields_are_refused(client: monapi.Client) -> None:
    with pytest.raises(monapi.ValidationError) as caught:
        client.create_server_tasks([linux_task("web\x0001", frequncy=5)])
    assert [(p["field"], p["rule"].split(" (")[0]) for p in caught.value.errors] == [
        ("server_name", "must not contain control characters"),
        ("frequncy", "is not a field of a server task"),
    ]


def test_a_validation_error_made_by_hand_has_its_one_problem() -> None:
    error = monapi.ValidationError("x", index=2, field="frequency", rule="r")
    assert error.errors == [{"index": 2, "field": "frequency", "rule": "r"}]


def test_request_reaches_any_operation(client: monapi.Client, emulator: Emulator) -> None:
    agents = client.request("GET", "/v2/agent/lists.json")
    assert agents == client.agents()
    page = client.request("get", "/v2/service/lists.json", params={"page": 3})
    assert len(page) == 20 and page[0]["task_id"] == "10101"
    with pytest.raises(monapi.ApiError) as caught:
        client.request("GET", "/v2/alert/lists.json")
    # Not emulated: the service's error, named by the method and path given.
    assert caught.value.status_code == 404
    assert caught.value.endpoint == "GET /v2/alert/lists.json"


def test_request_posts_a_form_once(client: monapi.Client, emulator: Emulator) -> None:
    data = json.dumps([linux_task("raw")])
    created = client.request("POST", "/v2/server/create.json", form={"data": data})
    assert created == [{"task_id": 30001}]
    assert emulator.counters()["create"] == 1
    emulator.set_faults(next=["error_503"])
    with pytest.raises(monapi.ApiError):
        client.request("POST", "/v2/server/create.json", form={"data": data})
    assert emulator.counters()["create"] == 2, "a POST is never repeated"
    emulator.set_faults(next=["error_503"])
    assert client.request("GET", "/v2/agent/lists.json")
    assert emulator.counters()["agents"] == 2, "a GET is retried"


async def test_async_request(aclient: monapi.AsyncClient) -> None:
    page = await aclient.request("GET", "/v2/service/lists.json", {"page": 2})
    assert page[0]["task_id"] == "10051"
    with pytest.raises(TypeError):
        aclient.request("GET", "/v2/agent/lists.json", params={"page": [1, 2]})  # type: ignore[dict-item]
