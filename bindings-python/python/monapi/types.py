"""TypedDicts of the results monapi returns as the service sent them (the faithful forms).

The raw methods of :class:`monapi.Client` and :class:`monapi.AsyncClient` return plain dicts
and lists with the API's own keys and values; these types name their keys for type checkers
(``mypy --strict`` knows ``report["0"]["name"]`` is a ``str``). They describe, they do not
convert: values stay what the service sent (mostly strings). :class:`Progress` is what a bulk
call's progress callback receives.

The shapes of the answers are generated from ``core/answers.toml`` (``make answers``) into
``monapi._answers`` and exported from here; :class:`Progress` and :class:`TokenDict` are
written here.

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

__all__ = ["Progress", "Token", "TokenDict"]
__all__ += _answers.__all__


class Progress(TypedDict):
    """How far a bulk call (``client.tables.service_reports``) has come, as its progress
    callback receives it: at the start (``done`` 0), then after each task."""

    done: int
    total: int
    failed: int
    bytes: int
    rows: int


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
