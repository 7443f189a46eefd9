"""Property tests (hypothesis): inputs we did not think of.

- The decoder of answers equals ``json.loads`` on arbitrary JSON.
- Differential validation: for generated server tasks, the core (through
  ``create_server_tasks``) accepts exactly what the emulator accepts, and a refusal names the
  same field.
- Ids, pages and dates of every Python kind either work (the call is sent and answered) or are
  refused (``ValidationError`` naming the parameter, ``TypeError`` for a type it never takes)
  with nothing sent; never a crash.

Runs are reproducible: the seed is fixed (``--hypothesis-seed`` in pyproject.toml's pytest
options) and each property tries a bounded number of examples (the ``monapi`` profile in
conftest.py). A failure prints the smallest failing example and a ``@reproduce_failure`` blob;
rerunning the same test replays it.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monapi
from monapi._native import _loads, _loads_chunked
from monapi.testing import Emulator

# The deepest nesting of arrays and objects the decoder takes (serde_json's recursion limit:
# 127 levels); deeper is a ValueError (a DecodeError when it is an answer), as for any other
# body that is not JSON.
MAX_DEPTH = 127


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (1 is not 1.0, -0.0 is not 0.0), with
    object keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b) and a == b
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


# Every JSON value Python can write: integers of any size, every finite float (-0.0, the
# largest and the subnormal ones), any text (surrogate pairs written as escapes or as UTF-8,
# NUL, quotes, backslashes), nested lists and objects.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(), children, max_size=6)
    ),
    max_leaves=40,
)


@given(
    value=json_values,
    ensure_ascii=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
    chunk_nodes=st.integers(min_value=1, max_value=8),
)
def test_the_decoder_equals_json_loads(
    value: Any, ensure_ascii: bool, indent: int | None, chunk_nodes: int
) -> None:
    document = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).encode()
    expected = json.loads(document)
    assert same(_loads(document), expected), document
    # As the blocking client decodes a large body: parsed on another thread in chunks (here of
    # a few nodes, so that a chunk ends at every place it may).
    assert same(_loads_chunked(document, chunk_nodes), expected), document


@given(
    number=st.from_regex(
        r"-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
    )
)
def test_numbers_as_written_equal_json_loads(number: str) -> None:
    """Number texts json.dumps never writes (`-0`, `1E5`, `1.50`, long mantissas), within the
    range of a float."""
    expected = json.loads(number)
    if isinstance(expected, float) and math.isinf(expected):
        # Beyond the largest float: json.loads says inf, the decoder refuses it (a number the
        # service cannot mean).
        with pytest.raises(ValueError):
            _loads(number.encode())
        return
    assert same(_loads(number.encode()), expected), number
    assert same(_loads(f"[{number}]".encode()), [expected]), number


@given(depth=st.integers(min_value=1, max_value=MAX_DEPTH + 40), objects=st.booleans())
def test_nesting_up_to_the_limit_decodes_and_deeper_is_an_error(depth: int, objects: bool) -> None:
    opening, closing = ('{"k":', "}") if objects else ("[", "]")
    document = (opening * depth + "1" + closing * depth).encode()
    if depth <= MAX_DEPTH:
        assert same(_loads(document), json.loads(document))
        assert same(_loads_chunked(document, 3), json.loads(document))
    else:
        for decode in (_loads, lambda d: _loads_chunked(d, 3)):
            with pytest.raises(ValueError, match="recursion limit"):
                decode(document)


# --- Differential validation, ids, pages and dates, through the Python package -------------


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[Emulator, monapi.Client, list[str]]]:
    """One emulator and client for the properties of this module, and the account's plugin
    ids (hypothesis runs a property's examples within one test, so a per-test emulator would
    be shared by the examples anyway)."""
    with Emulator() as emulator, emulator.client(timeout=10.0) as client:
        plugins = sorted(
            {
                p["plugin_task_uselist_id"]
                for agent in client.agents().values()
                for p in agent["plugin"]
            }
        )
        assert plugins
        yield emulator, client, plugins


Field = tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]


def field(valid: list[Any], broken: list[Any]) -> Field:
    """A field's valid values and its broken ones (empty, blank, out of range, of the wrong type
    or shape)."""
    return st.sampled_from(valid), st.sampled_from(broken)


def server_task(plugins: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A server task with every field of a server task and no other, as the Rust property
    generates it (core/tests/it/properties.rs says what is left out and why: unknown fields,
    control characters, the names linux/windows, an alert_setting without scope, unknown
    plugin ids)."""
    ip = field(
        ["10.0.0.1", "::1", "2001:db8::1"], ["", "  ", "10.0.0.256", "host.example", 7, None]
    )
    flag = field([0, 1, "0", "1"], [2, "x", "", None])
    text = field(["public", "名字", 42], ["", "  ", None])
    fields: dict[str, Field] = {
        "server_name": field(["web-01", "名字 1", 17], ["", "   ", None, []]),
        "private_ip": ip,
        "server_ip": ip,
        "server_systype": flag,
        "frequency": field([1, 5, 1440, "30"], [0, 1441, -5, 2.5, "5.0", "x", "", None]),
        "snmp_port": field([161, 1, 65535, "161"], [0, 65536, "x", None]),
        "snmp_v": flag,
        "snmp_comm": text,
        "snmp_user": text,
        "snmp_pass": field(["secret", 42], ["", None]),
        "snmp_authtype": flag,
        "use_agent": flag,
        "plugin_task_uselist_id": field(
            [plugins[0], ",".join(plugins), plugins, ""], [[], {}, [[]], None]
        ),
        "alert_setting": field(
            [
                {"scope": 1},
                {"scope": "3"},
                {"scope": 2, "organization": "ops"},
                {"scope": 4, "user_ids": "1,2"},
                {"scope": 4, "user_ids": ["7"]},
                {"scope": 1, "alert": {"email": "1,2", "sms": ["3"]}},
            ],
            [
                {"scope": 2},
                {"scope": 2, "organization": ""},
                {"scope": 4, "user_ids": []},
                {"scope": 5},
                {"scope": "x"},
                {"scope": 1, "alert": {"email": {}}},
                {"scope": 1, "alert": []},
                "1",
                None,
            ],
        ),
        "task_type": field(
            [["cpu", "mem"], ["cpu_windows", "netio"], ["netio"]],
            [[], ["bogus"], "cpu", [1], None],
        ),
    }
    names = list(fields)
    # A task valid in every field, and up to three fields broken (hypothesis would otherwise
    # rarely make all fifteen valid at once).
    return st.tuples(
        st.fixed_dictionaries({name: valid for name, (valid, _) in fields.items()}),
        st.fixed_dictionaries({name: broken for name, (_, broken) in fields.items()}),
        st.lists(st.sampled_from(names), max_size=3, unique=True),
    ).map(lambda t: {name: t[1][name] if name in t[2] else t[0][name] for name in names})


def same_field(core: str, emulator: str) -> bool:
    """The core's field is the emulator's, or a part of it (``task_type[0]`` of ``task_type``)."""
    return core == emulator or core.startswith((f"{emulator}[", f"{emulator}."))


def test_the_core_accepts_exactly_what_the_emulator_accepts(
    live: tuple[Emulator, monapi.Client, list[str]],
) -> None:
    emulator, client, plugins = live
    seen = {"accepted": 0, "refused": 0}

    @settings(max_examples=400)
    @given(task=server_task(plugins))
    def differential(task: dict[str, Any]) -> None:
        before = emulator.counters()["create"]
        try:
            created = client.create_server_tasks([task])
        except monapi.ValidationError as error:
            assert emulator.counters()["create"] == before, "refused, yet sent"
            seen["refused"] += 1
            # The emulator refuses it too when it gets it as written, naming the same field.
            with pytest.raises(monapi.PartialCreateError) as caught:
                client.request("POST", "/v2/server/create.json", form={"data": json.dumps([task])})
            named = caught.value.err_content.split(" ")[0]
            assert same_field(error.errors[0]["field"], named), (error, caught.value.err_content)
        else:
            # What the core accepts, it sends in its own form: the emulator stores it.
            assert len(created) == 1
            seen["accepted"] += 1

    differential()
    print(f"differential validation: {seen} (accepted by both, refused by both)")
    assert seen["accepted"] >= 20 and seen["refused"] >= 20, seen


# Every kind of Python value a caller may pass as an id, a page or a date.
any_value: st.SearchStrategy[Any] = (
    st.integers(min_value=-5, max_value=30_000)
    | st.sampled_from([20001, 0, -1, 2**53, 2**64, True, False, float("nan"), float("inf"), -0.0])
    | st.integers()
    | st.floats()
    | st.from_regex(r"[ +-]?[0-9]{0,22}[ .]?[0-9]?", fullmatch=True)
    | st.text()
    | st.sampled_from([None, b"1", [1], {}])
)
date_value: st.SearchStrategy[Any] = (
    st.builds(
        lambda y, m, d: f"{y:04}-{m:02}-{d:02}",
        st.integers(2025, 2027),
        st.integers(0, 13),
        st.integers(0, 32),
    )
    | st.text()
    | st.dates(min_value=datetime.date(2025, 1, 1), max_value=datetime.date(2027, 12, 31))
    | st.sampled_from([None, 20260101, b"2026-01-01"])
)


def refused_unsent_or_sent(
    emulator: Emulator, fields: tuple[str, ...], call: Callable[[], object]
) -> None:
    """A refusal is a ValidationError naming one of ``fields`` (or a TypeError for a value of
    a type the parameter never takes), with nothing sent; an acceptance was sent (and may be
    answered with the service's own error)."""
    before = emulator.counters()["total"]
    try:
        call()
    except monapi.ValidationError as error:
        assert error.field in fields, error
        assert emulator.counters()["total"] == before, "refused, yet sent"
        return
    except TypeError:
        assert emulator.counters()["total"] == before, "refused, yet sent"
        return
    except monapi.MonapiError:
        pass
    assert emulator.counters()["total"] > before, "accepted, yet nothing was sent"


@given(task_id=any_value, monitor=any_value, page=any_value)
def test_ids_and_pages_work_or_are_refused_unsent(
    live: tuple[Emulator, monapi.Client, list[str]], task_id: Any, monitor: Any, page: Any
) -> None:
    emulator, client, _ = live
    refused_unsent_or_sent(
        emulator, ("task_id",), lambda: client.response_time_distribution(task_id)
    )
    refused_unsent_or_sent(
        emulator, ("task_id", "monitor"), lambda: client.site_report(20001, monitor=monitor)
    )
    refused_unsent_or_sent(emulator, ("page",), lambda: client.service_tasks(page))


@given(start=date_value, end=date_value)
def test_date_ranges_work_or_are_refused_unsent(
    live: tuple[Emulator, monapi.Client, list[str]], start: Any, end: Any
) -> None:
    emulator, client, _ = live
    refused_unsent_or_sent(
        emulator,
        ("start_date", "end_date"),
        lambda: client.response_time_distribution(20001, start_date=start, end_date=end),
    )
