"""TypedDicts of the results monapi returns as the service sent them (the faithful forms).

The raw methods of :class:`monapi.Client` and :class:`monapi.AsyncClient` return plain dicts
and lists with the API's own keys and values; these types name their keys for type checkers
(``mypy --strict`` knows ``report["0"]["name"]`` is a ``str``). They describe, they do not
convert: values stay what the service sent (mostly strings). :class:`Progress` is what a bulk
call's progress callback receives; :class:`SyncReport` what ``client.sync()`` returns, and
:class:`SyncProgress` what its ``on_progress`` callback receives.

The shapes of the answers are generated from ``core/answers.toml`` (``make answers``) into
``monapi._answers`` and exported from here; :class:`Progress`, :class:`SyncProgress`,
:class:`SyncFailure`, :class:`SyncReport` and :class:`TokenDict` are written here.

Examples
--------
>>> from monapi.types import ServiceTask
>>> tasks: list[ServiceTask] = client.service_tasks()
>>> names = [task["task_name"] for task in tasks]
"""

from __future__ import annotations

from typing import TypedDict

from monapi import _answers
from monapi._answers import *  # noqa: F403 (the shapes core/answers.toml declares, generated)
from monapi._token import Token
from monapi.errors import MonapiError

__all__ = ["Progress", "SyncFailure", "SyncProgress", "SyncReport", "Token", "TokenDict"]
__all__ += _answers.__all__


class Progress(TypedDict):
    """How far a bulk call (``client.tables.service_reports``) has come, as its progress
    callback receives it: at the start (``done`` 0), then after each task."""

    done: int
    total: int
    failed: int
    bytes: int
    rows: int


class SyncProgress(TypedDict):
    """How far ``client.sync()`` has come, as its ``on_progress`` callback receives it: once
    before the first task (``done`` 0), then after each task. Counts are of task-days (a
    task's report of one day)."""

    total: int
    done: int
    fetched: int
    reused: int
    failed: int
    rows: int
    bytes: int


class SyncFailure(TypedDict):
    """A run of days of one task whose fetch (or write) failed during ``client.sync()``: not
    in the store, so the next sync fetches it again. Dates are ``"YYYY-MM-DD"``."""

    report: str
    task_id: int
    start: str
    end: str
    error: MonapiError


class SyncReport(TypedDict):
    """What ``client.sync()`` did: the days it covered (``"YYYY-MM-DD"``, ``None`` when no
    day of the range asked is settled yet), the ``(report, task)`` pairs synced, task-days
    fetched and found in the store (``reused``), rows and body bytes fetched, task-days
    failed with each failed run in ``failures``, the files that did not read and were set
    aside in ``.corrupt/`` (then fetched again), the files read whole by a sync with
    ``verify=True``, and the one-line ``summary``."""

    start: str | None
    end: str | None
    tasks: int
    fetched: int
    reused: int
    rows: int
    bytes: int
    failed: int
    failures: list[SyncFailure]
    set_aside: list[str]
    verified: int
    summary: str


class TokenDict(TypedDict):
    """The keys of a :class:`monapi.Token` (``client.login()``, ``client.token``): the
    token endpoint's answer plus ``expires_at``, the unix time it expires (stamped when it
    arrived; ``None`` when the service sent no ``expires_in``)."""

    access_token: str
    refresh_token: str | None
    expires_in: int
    expires_at: int | None
    token_type: str
    scope: str | None
