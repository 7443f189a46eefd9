"""Shared helpers of the suite: fixture shapes, secrets, worker functions for processes."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import pathlib
import re
import subprocess
from typing import Any

import monapi
from monapi.testing import Emulator

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"
ROOT = pathlib.Path(__file__).resolve().parents[2]

DEMO_SECRET = "demo_secret"
DEMO_PASSWORD = "123456"
DEMO_PASSWORD_MD5 = "e10adc3949ba59abbe56e057f20f883e"


def leaks(secret: str, text: str) -> bool:
    """Whether `secret` is in `text` as a value of its own, not inside a longer number or word:
    the demo password 123456 is a run of digits that a figure such as the ratio
    0.9984567901234568 holds by chance (on some days of the emulator's data)."""
    return re.search(rf"(?<![0-9A-Za-z.]){re.escape(secret)}(?![0-9A-Za-z])", text) is not None


# A day the emulator has data for (the past is generated, the day itself included).
DAY = datetime.date.today() - datetime.timedelta(days=2)


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _dynamic(key: str) -> bool:
    return key.isdigit()


def assert_shape(actual: Any, expected: Any, path: str = "$") -> None:
    """`actual` has the shape of the fixture `expected`: the same keys (objects keyed
    by ids or timestamps are compared entry by entry with the fixture's entries), and the
    same JSON type at every leaf (strings stay strings, numbers stay numbers)."""
    if expected is None or actual is None:
        # null-or-object fields (a site report's `fault`)
        assert actual is None or isinstance(actual, dict), f"{path}: {actual!r}"
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected an object, got {actual!r}"
        fixed = {k for k in expected if not _dynamic(k)}
        assert {k for k in actual if not _dynamic(k)} == fixed, f"{path}: keys {sorted(actual)}"
        for key in fixed:
            assert_shape(actual[key], expected[key], f"{path}.{key}")
        samples = [v for k, v in expected.items() if _dynamic(k)]
        richest = max(samples, key=lambda v: isinstance(v, dict) and len(v), default=None)
        for key, value in actual.items():
            if _dynamic(key) and samples:
                assert_shape(value, richest, f"{path}.{key}")
        return
    if isinstance(expected, list):
        assert isinstance(actual, list), f"{path}: expected a list, got {actual!r}"
        if expected:
            for i, item in enumerate(actual):
                assert_shape(item, expected[0], f"{path}[{i}]")
        return
    assert type(actual) is type(expected), f"{path}: {actual!r} is not a {type(expected).__name__}"


def linux_task(name: str, **changes: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "server_name": name,
        "private_ip": "192.168.1.10",
        "server_ip": "203.0.113.10",
        "server_systype": "0",
        "frequency": "5",
        "snmp_port": "161",
        "snmp_v": "0",
        "snmp_comm": "public",
        "use_agent": "0",
        "plugin_task_uselist_id": "",
        "alert_setting": {"alert": {"email": "101"}, "scope": "3"},
        "task_type": ["cpu", "mem"],
    }
    task.update(changes)
    return task


# Worker functions for multiprocessing (importable by spawned children).


def count_tasks(client: monapi.Client) -> int:
    return sum(1 for _ in client.iter_service_tasks())


def agents_and_token(client: monapi.Client) -> tuple[int, str | None]:
    agents = client.agents()
    token = client.token
    return len(agents), None if token is None else str(token["access_token"])


def raise_partial(error: monapi.PartialCreateError) -> monapi.PartialCreateError:
    return error


def async_count_tasks(client: monapi.AsyncClient) -> int:
    async def count() -> int:
        return len([task async for task in client.iter_service_tasks()])

    return asyncio.run(count())


def monapi_binary() -> str:
    """The CLI of this checkout: the newest of the debug and release builds, or a build."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = [p for p in (target / "debug" / "monapi", target / "release" / "monapi") if p.exists()]
    if not built:
        subprocess.run(
            ["cargo", "build", "-p", "monapi-cli", "--bin", "monapi"],
            cwd=ROOT,
            check=True,
            env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        )
        built = [target / "debug" / "monapi"]
    return str(max(built, key=lambda p: p.stat().st_mtime))


def zone(emulator: Emulator) -> datetime.timezone:
    """The emulator's time zone (``"+08:00"``, ``"UTC"``) as a ``datetime.timezone``."""
    text = emulator.timezone
    if text in ("UTC", "Z", "+00:00"):
        return datetime.UTC
    sign = -1 if text[0] == "-" else 1
    hours, minutes = text[1:].split(":")
    return datetime.timezone(sign * datetime.timedelta(hours=int(hours), minutes=int(minutes)))


def demo_env(emulator: Emulator) -> dict[str, str]:
    """This environment with the demo account of `emulator` in its `MONAPI_*` variables."""
    return {
        **os.environ,
        "MONAPI_BASE_URL": emulator.base_url,
        "MONAPI_CLIENT_ID": "demo_id",
        "MONAPI_CLIENT_SECRET": DEMO_SECRET,
        "MONAPI_USERNAME": "test@example.com",
        "MONAPI_PASSWORD": DEMO_PASSWORD,
    }
