"""Responses become Python objects exactly as sent: key order, strings, numbers, text."""

from __future__ import annotations

import datetime
import json
import urllib.request

import monapi
from monapi.testing import Emulator

from helpers import DAY


def fetch(emulator: Emulator, token: monapi.Token, path: str) -> bytes:
    url = f"{emulator.base_url}{path}&access_token={token['access_token']}"
    with urllib.request.urlopen(url, timeout=30) as response:
        body: bytes = response.read()
        return body


def test_a_large_report_equals_json_loads(client: monapi.Client, emulator: Emulator) -> None:
    token = client.login()
    task = next(t for t in client.iter_service_tasks() if t["frequency"] == "1")
    start = DAY - datetime.timedelta(days=6)
    report = client.service_report(task["task_id"], start_date=start, end_date=DAY)
    body = fetch(
        emulator,
        token,
        f"/v2/service/report/{task['task_id']}.json?start_date={start}&end_date={DAY}",
    )
    assert len(body) > 1_000_000
    expected = json.loads(body)
    assert report == expected
    assert list(report) == list(expected)
    for series, records in report.items():
        assert len(records) == 7 * 1440
        assert [list(r) for r in records[:3]] == [list(r) for r in expected[series][:3]]


def test_site_report_text_and_key_order(client: monapi.Client, emulator: Emulator) -> None:
    token = client.login()
    report = client.site_report(20001, start_date=DAY, end_date=DAY)
    expected = json.loads(
        fetch(emulator, token, f"/v2/site/report/20001.json?start_date={DAY}&end_date={DAY}")
    )
    assert report == expected
    for point in report:
        assert list(report[point]) == list(expected[point])
        assert list(report[point]["uprate"]) == list(expected[point]["uprate"])
        assert isinstance(report[point]["name"], str)
    names = [p["name"] for p in report.values()]
    assert any(not n.isascii() for n in names), names  # Chinese point names survive


def test_repeated_keys_are_shared_strings(client: monapi.Client) -> None:
    tasks = client.service_tasks()
    keys = [next(iter(t)) for t in tasks]
    assert all(k is keys[0] for k in keys)  # interned once, reused


def test_the_decoder_agrees_with_json_loads_on_edge_cases() -> None:
    from monapi._native import _loads

    samples = [
        b"[0.1, 1e308, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, -0.0, 1.5e3]",
        b"[0, -1, 9223372036854775807, -9223372036854775808, 18446744073709551615, 1E2]",
        b'{"a": "\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\/", "b": "\xe5\x90\xaf\xe7\x94\xa8", "": null}',
        b'{"dup": 1, "x": [], "dup": 2, "y": {}, "z": [true, false, null]}',
        b'  [ {"k" : [ [ [ ] ] ] } ]  ',
        b'"just a string"',
    ]
    for sample in samples:
        assert _loads(sample) == json.loads(sample), sample
        assert repr(_loads(sample)) == repr(json.loads(sample)), sample
    for bad in (b"{", b"[1,]", b"nul", b"{} []", b'{"a": "\xff"}', b""):
        try:
            _loads(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")
