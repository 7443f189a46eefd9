"""API fuzzing of the emulator (schemathesis): requests generated from `emulator/openapi.yaml`,
valid ones and invalid ones, sent to `monapi serve` on a free loopback port; every answer must
be documented for its operation (status, body shape, headers) and none may be a 5xx.

The document's examples (the demo account, a service task, a site task, a day) let valid
requests reach the handlers' success paths; the access token of every request that carries one
is replaced by a live token, so that generated tokens do not stop every request at the door
(a missing one still does). Bounded: `MAX_EXAMPLES` examples per operation, with the suite's
fixed hypothesis seed.

Left out: schemathesis's `positive_data_acceptance` check, which wants every request the
document allows to succeed. The document states some rules in words only (a live refresh
token, a start date not after the end date, at most 366 days, a batch line's cross-field
rules), and the emulator answers those with a documented 400.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import re
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import settings
from schemathesis.checks import positive_data_acceptance

from monapi.testing import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_USERNAME

from helpers import DEMO_PASSWORD_MD5

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MAX_EXAMPLES = 60
# The header every answer of the emulator carries, as the real service (a PHP application)
# sends it on its JSON bodies; the document describes the bodies as the JSON they are.
PHP_CONTENT_TYPE = "text/html; charset=UTF-8"

schema = schemathesis.openapi.from_path(ROOT / "emulator" / "openapi.yaml")
STATUSES: collections.Counter[tuple[str, int]] = collections.Counter()


def monapi_binary() -> pathlib.Path:
    """`MONAPI_BIN` (the Makefile sets it), or the debug build of this checkout."""
    binary = pathlib.Path(os.environ.get("MONAPI_BIN", ROOT / "target" / "debug" / "monapi"))
    assert binary.is_file(), f"{binary} is missing: build it with `cargo build -p monapi-cli`"
    return binary


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, str]]:
    """`monapi serve` on a free port: its base URL and a live access token."""
    process = subprocess.Popen(
        [str(monapi_binary()), "serve", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        found = re.search(r"listening on (http://\S+)", process.stderr.readline())
        assert found, "monapi serve did not say where it listens"
        base_url = found.group(1)
        form = urllib.parse.urlencode(
            {
                "grant_type": "password",
                "username": DEMO_USERNAME,
                "password": DEMO_PASSWORD_MD5,
                "client_id": DEMO_CLIENT_ID,
                "client_secret": DEMO_CLIENT_SECRET,
            }
        ).encode()
        with urllib.request.urlopen(f"{base_url}/v2/oauth/token.json", data=form, timeout=30) as r:
            token = json.load(r)["access_token"]
        yield base_url, token
    finally:
        process.terminate()
        process.wait(timeout=30)


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES)
def test_every_answer_is_documented(
    case: schemathesis.Case[schemathesis.APIOperation[Any, Any, Any, Any]], served: tuple[str, str]
) -> None:
    base_url, token = served
    if case.query is not None and "access_token" in case.query:
        case.query["access_token"] = token
    response = case.call(base_url=base_url, timeout=60)
    STATUSES[(case.operation.label, response.status_code)] += 1
    assert response.headers.get("content-type") == [PHP_CONTENT_TYPE]
    response.headers["content-type"] = ["application/json"]
    case.validate_response(response, excluded_checks=[positive_data_acceptance])


def test_the_fuzzing_reached_every_operation_and_its_success() -> None:
    """Runs after the fuzzing (pytest keeps the file's order): every operation was called and
    answered 200 at least once, so the run was not stopped at the door by its inputs."""
    operations = {label for label, _ in STATUSES}
    documented = sum(len(methods) for methods in schema.raw_schema["paths"].values())
    assert documented == 13
    assert len(operations) == documented, STATUSES
    succeeded = {label for label, status in STATUSES if status == 200}
    assert succeeded == operations, sorted(STATUSES.items())
    print(f"\nschemathesis: {sum(STATUSES.values())} requests, statuses {sorted(STATUSES.items())}")
