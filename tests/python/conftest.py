"""Fixtures: a fresh in-process emulator per test, and clients for its demo account."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

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
