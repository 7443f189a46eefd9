"""Fixtures: a fresh in-process emulator per test, and clients for its demo account."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings

import monapi
from monapi.testing import Emulator


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def client(emulator: Emulator) -> Iterator[monapi.Client]:
    with emulator.client(timeout=10.0) as client:
        yield client


@pytest.fixture
async def aclient(emulator: Emulator) -> AsyncIterator[monapi.AsyncClient]:
    async with emulator.async_client(timeout=10.0) as client:
        yield client


# Property tests (hypothesis): a bounded number of examples each, no example database (every
# run starts from the fixed seed in pyproject.toml), and a blob to replay a failure with.
settings.register_profile("monapi", max_examples=200, deadline=None, database=None, print_blob=True)
settings.load_profile("monapi")
