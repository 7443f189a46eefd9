"""Responses become Python objects exactly as sent: key order, strings, numbers, text."""

from __future__ import annotations

import asyncio
import datetime
import json
import random
import urllib.request
from typing import Any

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


async def test_a_large_report_from_the_async_client(
    aclient: monapi.AsyncClient, client: monapi.Client
) -> None:
    """Over 1 MiB, the body is parsed on a blocking thread of the runtime, not a worker."""
    task = next(t for t in client.iter_service_tasks() if t["frequency"] == "1")
    start = DAY - datetime.timedelta(days=2)
    reports = await asyncio.gather(
        *(aclient.service_report(task["task_id"], start_date=start, end_date=DAY) for _ in range(3))
    )
    expected = client.service_report(task["task_id"], start_date=start, end_date=DAY)
    assert sum(len(records) for records in expected.values()) >= 8 * 3 * 1440
    assert all(report == expected for report in reports)


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


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value that exercises every path of the decoder and its string caches:
    short and long strings and keys (the caches split at 7 and 48 bytes), digit keys,
    escapes, non-ASCII text, NUL, numbers of every kind, nesting."""
    alphabet = ["a", "b", "0", "7", ":", ".", "é", "启", "\0", '"', "\\", "\n", "😀"]

    def text() -> str:
        return "".join(
            rng.choice(alphabet) for _ in range(rng.choice([0, 1, 3, 6, 7, 8, 9, 47, 48, 49, 80]))
        )

    kind = rng.randrange(9 if depth < 6 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 2**63 - 1, -(2**63), 2**64 - 1, rng.randrange(-(10**12), 10**12)])
    if kind == 3:
        return rng.choice([0.1, -0.0, 1e308, 5e-324, rng.uniform(-1e6, 1e6)])
    if kind in (4, 5):
        return text()
    if kind == 6:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(6))]
    return {text(): random_json(rng, depth + 1) for _ in range(rng.randrange(6))}


def test_the_decoder_agrees_with_json_loads_on_random_documents() -> None:
    from monapi._native import _loads, _loads_chunked

    rng = random.Random(20261122)
    for _ in range(2000):
        document = json.dumps(random_json(rng), ensure_ascii=rng.random() < 0.5).encode()
        expected = repr(json.loads(document))
        assert repr(_loads(document)) == expected, document
        # As the blocking client decodes a large body: parsed on another thread in chunks
        # (here of 1 to 5 nodes, so that a chunk ends at every place it may).
        assert repr(_loads_chunked(document, rng.randrange(1, 6))) == expected, document


def test_a_chunked_decode_reports_an_error_after_the_first_chunks() -> None:
    from monapi._native import _loads_chunked

    body = json.dumps([{"time": f"{i:05d}", "v": "x" * (i % 9)} for i in range(5000)]).encode()
    assert _loads_chunked(body, 64) == json.loads(body)
    for bad in (
        body[:-1],
        body[:-1] + b",]",
        body[: len(body) // 2] + b"\xff" + body[len(body) // 2 :],
    ):
        try:
            _loads_chunked(bad, 64)
        except ValueError:
            continue
        raise AssertionError("a broken body was accepted")


def test_the_string_caches_survive_eviction() -> None:
    """Many more distinct short strings and keys than the caches have slots, decoded twice:
    every value must still be the one sent (no string from an evicted slot)."""
    from monapi._native import _loads

    document = {f"k{i}": [f"{i:06d}", {f"{i}": f"v{i % 9000}"}] for i in range(20000)}
    body = json.dumps(document).encode()
    for _ in range(2):
        assert _loads(body) == document
