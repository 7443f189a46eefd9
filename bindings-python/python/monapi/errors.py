"""Exceptions raised by monapi.

Every exception is a :class:`MonapiError` and carries the fields a caller branches on. They
pickle with their fields (so they cross process boundaries in multiprocessing, Dask or Ray),
and their text never holds a secret (tokens, password, its MD5, client secret).

Classes
-------
InvalidClientError
    The token endpoint refused ``client_id``/``client_secret``.
InvalidGrantError
    It refused the username/password, or the refresh token.
AuthError
    Another authentication failure (base of the two above).
ApiError
    The service answered with an error (``status_code``, ``code``).
PartialCreateError
    Some tasks of a create batch failed; the others were created.
PartialResultError
    Some tasks of a bulk call or sync failed; ``.table`` has the rest.
ValidationError
    An argument breaks a rule; nothing was sent (also a ``ValueError``).
TimeoutError
    No complete answer in time (also the builtin ``TimeoutError``).
ConnectionError
    No connection, or it broke (also the builtin ``ConnectionError``).
DecodeError
    The answer is not the JSON the operation returns.
StoreError
    The local store could not be read or written (also an ``OSError``).

Examples
--------
>>> import monapi
>>> try:
...     client.service_report(424242)
... except monapi.ApiError as e:
...     print(e.status_code, e.code, e.message)
"""

from __future__ import annotations

import builtins
from typing import Any

__all__ = [
    "ApiError",
    "AuthError",
    "ConnectionError",
    "DecodeError",
    "InvalidClientError",
    "InvalidGrantError",
    "MonapiError",
    "PartialCreateError",
    "PartialResultError",
    "StoreError",
    "TimeoutError",
    "ValidationError",
]


class MonapiError(Exception):
    """Base class of every monapi exception.

    ``str(error)`` says what went wrong and what to do; the fields of the subclasses say
    it for code. An internal error (a bug in monapi) is raised as a plain ``MonapiError``.

    monapi raises them; code rarely makes one. Each class takes its text, then its
    attributes as keywords.

    Parameters
    ----------
    text : str, default ""
        The message, ``str(error)``.

    Examples
    --------
    >>> try:
    ...     client.agents()
    ... except monapi.MonapiError as e:
    ...     print("monapi failed:", e)
    """

    def __init__(self, text: str = "", /) -> None:
        super().__init__(text)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle support: the class, the text and the fields."""
        # Rebuilt as cls(text) and then given its fields back: pickle round-trips.
        return (type(self), self.args[:1], dict(self.__dict__))

    def __setstate__(self, state: dict[str, Any] | None) -> None:
        """Pickle support: gives an unpickled error its fields back."""
        self.__dict__.update(state or {})


class AuthError(MonapiError):
    """The token endpoint refused the request, or a fresh token was rejected again.

    Attributes
    ----------
    error : str
        The OAuth error code, e.g. ``"invalid_client"`` or ``"invalid_grant"``.
    description : str
        The service's description.
    status_code : int or None
        The HTTP status of the answer, when there was one.
    endpoint : str
        The token endpoint (``"POST /v2/oauth/token.json"``), or the operation whose freshly
        issued token the service rejected.

    Examples
    --------
    >>> try:
    ...     client.login()
    ... except monapi.AuthError as e:
    ...     print(e.error, e.description)
    """

    def __init__(
        self,
        text: str = "",
        /,
        *,
        error: str = "",
        description: str = "",
        status_code: int | None = None,
        endpoint: str = "",
    ) -> None:
        super().__init__(text)
        self.error = error
        self.description = description
        self.status_code = status_code
        self.endpoint = endpoint


class InvalidClientError(AuthError):
    """The service refused the API client (``client_id``/``client_secret``).

    Examples
    --------
    >>> try:
    ...     monapi.Client(client_secret="wrong").login()
    ... except monapi.InvalidClientError as e:
    ...     print(e.error)
    invalid_client
    """


class InvalidGrantError(AuthError):
    """The service refused the account (username/password) or the refresh token.

    Examples
    --------
    >>> try:
    ...     monapi.Client(password="wrong").login()
    ... except monapi.InvalidGrantError as e:
    ...     print(e.error)
    invalid_grant
    """


class ApiError(MonapiError):
    """The service answered with an error.

    Attributes
    ----------
    status_code : int
        The HTTP status.
    code : int or None
        The service's numeric ``code`` (bodies like ``{"code": 404, "msg": ...}``).
    message : str
        The service's ``msg`` (or ``error_description``, or the start of the body).
    error : str or None
        An OAuth-style ``error`` code, for bodies that carry one.
    endpoint : str
        The operation, e.g. ``"GET /v2/service/report/{task_id}.json"``.
    retry_after : float or None
        Seconds the service asked to wait (``Retry-After``), if it did.

    Examples
    --------
    >>> try:
    ...     client.service_report(424242)
    ... except monapi.ApiError as e:
    ...     print(e.status_code, e.code)
    404 404
    """

    def __init__(
        self,
        text: str = "",
        /,
        *,
        status_code: int = 0,
        code: int | None = None,
        message: str = "",
        error: str | None = None,
        endpoint: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(text)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.error = error
        self.endpoint = endpoint
        self.retry_after = retry_after


class PartialCreateError(MonapiError):
    """Some tasks of a create batch failed; every other task was created.

    The service does not return the ids of the tasks it created. Correct the failed tasks
    and send only them again.

    Attributes
    ----------
    err_key : str
        The service's ``err_key``, as sent: it names the failed line(s).
    failed_index : int or None
        The first failed task as an index into the submitted list.
    failed_indices : list of int
        Every failed task as an index (empty when ``err_key`` is not an index).
    err_content : str
        The service's ``err_content``: why it failed.
    submitted : int
        How many tasks the batch held.
    created : int
        How many of them were created.

    Examples
    --------
    >>> try:
    ...     client.create_server_tasks(tasks)
    ... except monapi.PartialCreateError as e:
    ...     retry = [tasks[i] for i in e.failed_indices]
    """

    def __init__(
        self,
        text: str = "",
        /,
        *,
        err_key: str = "",
        failed_indices: list[int] | None = None,
        err_content: str = "",
        submitted: int = 0,
        created: int = 0,
        failed_index: int | None = None,
    ) -> None:
        super().__init__(text)
        self.err_key = err_key
        self.failed_indices: list[int] = list(failed_indices or [])
        self.failed_index: int | None = (
            failed_index
            if failed_index is not None
            else (self.failed_indices[0] if self.failed_indices else None)
        )
        self.err_content = err_content
        self.submitted = submitted
        self.created = created


class PartialResultError(MonapiError):
    """Some tasks of a bulk call (``client.tables.service_reports``, ``site_reports``) or
    of a sync (``client.sync``) failed; the others succeeded and their result is here.

    Pass ``errors="collect"`` to get the result back instead, with the failures on it.

    Attributes
    ----------
    table : Table, SiteTables or SyncReport
        For a bulk call, the rows of every task that succeeded, as the call would have
        returned them. For a sync, its :class:`monapi.types.SyncReport` (what was fetched,
        and every failed run of task-days in its ``failures``); what succeeded is in the
        store, and the next sync fetches the failed task-days again.
    failures : list of tuple of (int, MonapiError)
        Each task that failed, in task order, with its error (e.g. an :class:`ApiError`
        with ``status_code`` 404 for an unknown task); for a sync, one pair per failed run
        of days.

    Examples
    --------
    >>> try:
    ...     week = client.tables.service_reports(ids, start_date="2026-11-01")
    ... except monapi.PartialResultError as e:
    ...     week = e.table
    ...     retry = [task_id for task_id, _ in e.failures]
    >>> try:
    ...     report = client.sync(start_date="2026-11-01", end_date="2026-11-07")
    ... except monapi.PartialResultError as e:
    ...     print(e.table["summary"])
    """

    def __init__(
        self,
        text: str = "",
        /,
        *,
        table: Any = None,
        failures: list[tuple[int, MonapiError]] | None = None,
    ) -> None:
        super().__init__(text)
        self.table = table
        self.failures: list[tuple[int, MonapiError]] = list(failures or [])


class ValidationError(MonapiError, ValueError):
    """An argument breaks a rule; nothing was sent.

    A create batch is checked whole: ``errors`` names every problem, task by task, each
    task's fields in the order the service checks them; ``index``, ``field`` and ``rule`` are
    those of the first one, which the message names first.

    Attributes
    ----------
    index : int or None
        The task's index in a create batch, when the (first) problem is about one.
    field : str
        The field or parameter at fault, e.g. ``"frequency"`` or ``"start_date"``.
    rule : str
        The rule it breaks.
    errors : list of dict
        Every problem, the first one first: ``{"index": int | None, "field": str,
        "rule": str}``.

    Examples
    --------
    >>> try:
    ...     client.create_server_tasks([{"server_name": "db", "private_ip": "10.0.0.9",
    ...         "server_ip": "10.0.0.9", "server_systype": 1, "frequency": 0,
    ...         "task_type": ["cpu"]}])
    ... except monapi.ValidationError as e:
    ...     print([(p["index"], p["field"]) for p in e.errors])
    [(0, 'frequency'), (0, 'task_type')]
    """

    def __init__(
        self,
        text: str = "",
        /,
        *,
        index: int | None = None,
        field: str = "",
        rule: str = "",
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(text)
        self.index = index
        self.field = field
        self.rule = rule
        self.errors: list[dict[str, Any]] = (
            list(errors) if errors is not None else [{"index": index, "field": field, "rule": rule}]
        )


class TimeoutError(MonapiError, builtins.TimeoutError):
    """No complete answer within the client's ``timeout``.

    Attributes
    ----------
    endpoint : str
        The operation.
    timeout : float or None
        The timeout that ran out, in seconds.

    Examples
    --------
    >>> try:
    ...     monapi.Client(timeout=0.5).agents()
    ... except TimeoutError:   # the builtin catches it too
    ...     print("too slow")
    """

    def __init__(
        self, text: str = "", /, *, endpoint: str = "", timeout: float | None = None
    ) -> None:
        super().__init__(text)
        self.endpoint = endpoint
        self.timeout = timeout


class ConnectionError(MonapiError, builtins.ConnectionError):
    """The connection could not be made, or broke before the answer was complete.

    Attributes
    ----------
    endpoint : str
        The operation.

    Examples
    --------
    >>> try:
    ...     monapi.Client(base_url="http://127.0.0.1:9").agents()
    ... except ConnectionError:   # the builtin catches it too
    ...     print("service unreachable")
    """

    def __init__(self, text: str = "", /, *, endpoint: str = "") -> None:
        super().__init__(text)
        self.endpoint = endpoint


class DecodeError(MonapiError):
    """The answer arrived but is not the JSON the operation returns.

    Attributes
    ----------
    endpoint : str
        The operation.
    snippet : str
        The first characters of the body (secrets removed); empty when the body is empty or
        could not be read (a compressed answer that does not decompress).

    Examples
    --------
    >>> try:
    ...     client.agents()
    ... except monapi.DecodeError as e:
    ...     print(e.snippet[:20])
    """

    def __init__(self, text: str = "", /, *, endpoint: str = "", snippet: str = "") -> None:
        super().__init__(text)
        self.endpoint = endpoint
        self.snippet = snippet


class StoreError(MonapiError, OSError):
    """The client's local store (``store=``) could not be read or written: its directory
    cannot be created or written, the disk is full, its ``store.json`` is not a store's.

    Also an ``OSError``, so ``except OSError`` catches it too. Its text names the file or
    directory and says what failed (the operating system's reason included).

    Attributes
    ----------
    path : str
        The file or directory of the store that could not be read or written.

    Examples
    --------
    >>> try:
    ...     monapi.Client(store="/read-only/reports").sync()
    ... except monapi.StoreError as e:
    ...     print("cannot use the store at", e.path)
    """

    def __init__(self, text: str = "", /, *, path: str = "") -> None:
        super().__init__(text)
        self.path = path
