# Typed stubs of the native module monapi._native (bindings-python/src).
# tests/python/test_stubs.py checks every name and signature here against the loaded
# module, in both directions, so the two cannot drift.
#
# The docstrings are written by scripts/gen-stub-docs.py from the module's __doc__s, whose
# source is the Rust doc comments: edit those, rebuild, and run it (the suite fails when they
# differ). They are here because editors and the reference (mkdocstrings) read the stub.
# ruff: noqa: PYI021

import datetime
import os
from collections.abc import Callable, Coroutine, Generator, Mapping, Sequence
from types import TracebackType
from typing import Any, Generic, Literal, Self, TypeAlias, TypeVar, final

from monapi._token import Token
from monapi.errors import MonapiError
from monapi.tables import SiteTables
from monapi.types import (
    AgentList,
    CreatedTask,
    Distribution,
    MonitorPoint,
    Progress,
    ServiceReport,
    ServiceTask,
    SiteReport,
    SiteTask,
    SiteTaskSettings,
    SyncProgress,
    SyncReport,
    User,
    UserGroup,
)

# The constants have no __doc__ of their own: their docstrings are written here.
__version__: str
"""The version of the package: Cargo's, one number for the crates, the wheel and the npm
packages."""
PAGE_SIZE: int
"""Tasks on a full page of the service task list: a page with fewer is the last."""
SETTINGS: tuple[str, ...]
"""The settings a client takes by keyword, as the core declares them."""
DEMO_CLIENT_ID: str
"""The client id of the emulator's demo account (``Emulator.client_id``)."""
DEMO_CLIENT_SECRET: str
"""The client secret of the emulator's demo account (``Emulator.client_secret``)."""
DEMO_USERNAME: str
"""The login of the emulator's demo account (``Emulator.username``)."""
DEMO_PASSWORD: str
"""The password of the emulator's demo account (``Emulator.password``)."""
_METRICS: dict[str, dict[str, Any]]
"""The instruments of the calls' metrics as the core declares them, by the key the replayed
measurements name: ``request_duration`` (``name``, ``unit``, ``description``, ``buckets``) and
``retries`` (``name``, ``unit``, ``description``). For monapi/_telemetry.py; not public API."""

_Date: TypeAlias = datetime.date | str
_TaskId: TypeAlias = int | str
_Param: TypeAlias = str | int | float
_Json: TypeAlias = Any
_T = TypeVar("_T")
_Item = TypeVar("_Item")
# A list the service may send as a list or as an object keyed by id (a PHP keyed array).
_Records: TypeAlias = list[_T] | dict[str, _T]
_Tasks: TypeAlias = Sequence[Mapping[str, Any]]
# A kind of table a store keeps, or all the kinds of one report.
_Kind: TypeAlias = Literal[
    "service_report", "site_availability", "site_response_time", "site_faults", "service", "site"
]
_Errors: TypeAlias = Literal["raise", "collect"]

@final
class Client:
    """A blocking client of the monitoring service.

    Every method waits for the service without holding the GIL, so other Python threads
    keep running; one client can be shared by many threads. Tokens look after themselves:
    the first call logs in, an expiring token is refreshed, a rejected one is renewed and
    the call repeated once. Results are plain ``dict`` and ``list`` objects with the API's
    own keys and values, exactly as the service sent them (strings stay strings).

    All parameters are keyword-only; any left out is read from its environment variable
    (``MONAPI_BASE_URL``, ``MONAPI_PASSWORD_FILE``, ``MONAPI_TIMEOUT`` in seconds, ...:
    every setting has one). With no password and no client secret from anywhere, the systemd
    credentials ``monapi.password`` and ``monapi.client_secret`` of
    ``$CREDENTIALS_DIRECTORY`` are read when they exist.

    Parameters
    ----------
    base_url : str, optional
        Where the service is, e.g. ``"https://api.example.com"``.
    client_id, client_secret : str, optional
        The registered API client.
    username : str, optional
        The account login (an e-mail address).
    password : str, optional
        The account password in plain text; only its MD5 is kept and sent.
    password_md5 : str, optional
        The password already hashed (32 hex digits), instead of ``password``.
    password_file : str or os.PathLike, optional
        A file holding the password, instead of ``password``: read once when the client is
        made, one trailing newline dropped. Keeps the password out of code, command lines
        and the environment.
    client_secret_file : str or os.PathLike, optional
        A file holding the client secret, instead of ``client_secret``, read as
        ``password_file`` is.
    token : dict, optional
        A saved token (``client.token`` of an earlier run) to resume without logging in.
    on_token : callable, optional
        Called with every new token (a :class:`monapi.Token`) so it can be saved. It runs
        on one of monapi's threads while the call that renewed the token waits, for both
        clients: keep it short and thread-safe (write a file, put it in a queue; from an
        ``AsyncClient``, hand work to the loop with ``loop.call_soon_threadsafe``), and do
        not call the client from it. An exception it raises is logged at WARNING and
        otherwise ignored. It is not pickled.
    timeout : float, optional
        Seconds one HTTP exchange may take: more than 0, at most 2147483.647 (about 24.8
        days; default 30).
    connect_timeout : float, optional
        Seconds to make a connection (default 10; bounded as ``timeout``).
    max_retries : int, optional
        Retries of a read after a transient failure (a connection that failed or broke, a
        body cut short, 429, 500, 502, 503, 504, a 2xx error page instead of JSON): 0 to 100
        (default 2). A create is never repeated once it may have reached the service.
    user_agent : str, optional
        The ``User-Agent`` header (default ``monapi-python/<version>``).
    ca_bundle : str, os.PathLike or bytes, optional
        CA certificates to trust besides the system's store: a PEM file, or its text as
        ``bytes`` (a company's own CA, a TLS-inspecting proxy's). The files named by
        ``MONAPI_CA_BUNDLE``, ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE`` and the directories
        of ``SSL_CERT_DIR`` are trusted too. A file that does not exist or holds no
        certificate raises ``ValidationError``.
    proxy : str or None, optional
        The proxy for every call (``http://`` or ``https://``, with ``user:password@`` if it
        needs them; HTTPS goes through it with ``CONNECT``). ``None`` means no proxy even when
        the environment names one. Left out, the environment decides: ``HTTPS_PROXY``,
        ``HTTP_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` (upper or lower case). The password is
        never shown in an error, ``repr`` or log.
    max_connections : int, optional
        The most connections the client uses at once to the service, 1 to 10000 (default
        100): at most this many calls are in flight, each on its own connection. Calls
        beyond it wait for a free connection; the wait counts toward ``timeout``.
    max_response_bytes : int, optional
        The largest answer accepted, in bytes once decompressed (default 1 GiB). Answers
        arrive compressed (gzip or deflate) when the service compresses them; a larger one
        raises ``DecodeError`` naming this setting, without reading further.
    timezone : str, optional
        The time zone of the tables' times (``client.tables``) and of "today" for dates
        left out: an offset from UTC such as ``"+08:00"`` or ``"UTC"`` (default ``"+08:00"``,
        the service's zone).
    store : str or os.PathLike, optional
        Where to keep a Parquet store of the report tables (also ``MONAPI_STORE``): a
        directory, or a bucket's prefix, ``s3://bucket/prefix``, ``gs://bucket/prefix`` or
        ``az://container/prefix``. ``client.tables`` then reads the settled days it holds and
        keeps those it fetches, and :meth:`sync` brings it up to date. One file per task and
        day, ``<store>/<kind>/day=YYYY-MM-DD/task-<id>.parquet``, which DuckDB, polars,
        pyarrow and Dask read as a Hive-partitioned dataset. A store that cannot be read or
        written raises :class:`StoreError` in the call that uses it.
    storage_options : dict of str to str, optional
        Options of a store in a bucket, as ``object_store`` names them (``aws_endpoint_url``,
        ``aws_region``, ``aws_access_key_id``, ``aws_secret_access_key``,
        ``azure_storage_account_name``, ...); they override the cloud's own variables
        (``AWS_*``, ``GOOGLE_*``, ``AZURE_*``), which are read too. Keys, tokens and secrets
        never show in an error or a repr. An unknown name raises ``ValidationError``.
    settle : float, optional
        Seconds after a day ends (in ``timezone``) before it counts as settled and is kept
        in the store (default 7200, two hours); later days are fetched every time.
    propagate_trace_context : bool, optional
        Whether each request carries the caller's W3C trace context to the service (a
        ``traceparent`` header naming the caller's current OpenTelemetry span), so that a
        service that traces can join its spans to the caller's (default ``False``: the
        service is a third party, and the header tells it the caller's trace and span ids).

    Raises
    ------
    ValidationError
        When a required value is missing or malformed (nothing is sent).

    Notes
    -----
    The client pickles (configuration and current token, secrets included) so that
    multiprocessing, Dask or Ray workers can use it, and keeps working in a child process
    after ``os.fork()``. ``repr()`` never shows a secret.

    With OpenTelemetry set up in the program (``opentelemetry-api`` imported and a
    ``TracerProvider`` or ``MeterProvider`` set), every call is a span ``monapi <operation>``
    under the caller's current span, with a CLIENT span per HTTP attempt and one per token
    request (a bulk call or :meth:`sync`: one span, with a child per task), and its attempts
    are measured (the histogram ``http.client.request.duration`` and the counter
    ``monapi.client.retries``). No span attribute holds a secret. Without OpenTelemetry
    nothing is recorded; monapi does not depend on it.

    Examples
    --------
    >>> import monapi
    >>> with monapi.Client(base_url="http://127.0.0.1:8080", client_id="demo_id",
    ...                    client_secret="demo_secret", username="test@example.com",
    ...                    password="123456") as client:
    ...     tasks = client.service_tasks()
    ...     report = client.service_report(tasks[0]["task_id"], start_date="2026-11-01")
    """
    def __init__(
        self,
        *,
        base_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_md5: str | None = None,
        password_file: str | os.PathLike[str] | None = None,
        client_secret_file: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        max_retries: int | None = None,
        user_agent: str | None = None,
        ca_bundle: str | os.PathLike[str] | bytes | None = None,
        proxy: str | None = ...,
        max_connections: int | None = None,
        max_response_bytes: int | None = None,
        timezone: str | None = None,
        store: str | os.PathLike[str] | None = None,
        storage_options: dict[str, str] | None = None,
        settle: float | None = None,
        propagate_trace_context: bool | None = None,
        token: Mapping[str, Any] | None = None,
        on_token: Callable[[Token], object] | None = None,
    ) -> None: ...
    def login(self) -> Token:
        """Log in with the password grant now and return the new token.

        Calls log in by themselves when needed; use this to check the credentials early.

        Returns
        -------
        Token
            The new token, also in ``client.token`` and passed to ``on_token``.

        Raises
        ------
        InvalidClientError
            The service refused ``client_id``/``client_secret``.
        InvalidGrantError
            The service refused the username or password.
        TimeoutError
            The token endpoint gave no complete answer within ``timeout``.
        ConnectionError
            The token endpoint could not be reached, or the connection broke.

        Examples
        --------
        >>> token = client.login()
        >>> token["token_type"]
        'bearer'
        """
    def refresh(self) -> Token:
        """Get a new token with the refresh grant now and return it.

        Returns
        -------
        Token
            The new token. It keeps the refresh token when the service sends none (the
            service's default: its refresh token stays valid for 14 days).

        Raises
        ------
        ValidationError
            There is no token to refresh yet (log in first).
        InvalidGrantError
            The service refused the refresh token.
        TimeoutError
            The token endpoint gave no complete answer within ``timeout``.
        ConnectionError
            The token endpoint could not be reached, or the connection broke.

        Examples
        --------
        >>> _ = client.login()
        >>> client.refresh()["access_token"] == client.token["access_token"]
        True
        """
    @property
    def token(self) -> Token | None:
        """The current token (a :class:`monapi.Token` dict), or ``None`` before the first login.

        Save it (e.g. ``json.dumps(client.token)``) and pass it back as ``token=`` to
        resume without logging in. Its ``repr`` shows only the expiry.

        Examples
        --------
        >>> client.token is None
        True
        >>> _ = client.agents()
        >>> sorted(client.token)[:2]
        ['access_token', 'expires_at']
        """
    @property
    def base_url(self) -> str:
        """The service's base URL.

        Examples
        --------
        >>> client.base_url
        'http://127.0.0.1:8080'
        """
    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called.

        Examples
        --------
        >>> client.close()
        >>> client.closed
        True
        """
    @property
    def tables(self) -> Tables:
        """The calls that return tables (:class:`Tables`): the reports as :class:`Table`
        objects, ready for pandas, polars, pyarrow or DuckDB.

        Examples
        --------
        >>> df = client.tables.service_report(10001).to_pandas()
        """
    def create_server_tasks(self, tasks: _Tasks) -> list[CreatedTask]:
        """Create server monitoring tasks in one batch.

        The whole batch is checked against the service's rules first; nothing is sent when a
        task breaks one, and the error names every problem of every task.

        Parameters
        ----------
        tasks : list of dict
            Server tasks with the API's fields. Only ``server_name``, ``private_ip``,
            ``server_ip`` and ``server_systype`` are required: every other field left out
            (``frequency``, ``snmp_port``, ``snmp_v``, ``snmp_comm``, ``use_agent``,
            ``alert_setting``, ``task_type`` ...) takes the default of the Rust core's
            ``ServerTask::new``, where the table of defaults is (every 5 minutes, SNMP v2c on
            port 161 with community ``public``, no agent plugins, alerts for the creator only,
            every indicator the system allows). Numbers may be given as ints or strings. A key
            the service does not know is refused (a misspelt field would otherwise take its
            default unnoticed).

        Returns
        -------
        list of dict
            One ``{"task_id": ...}`` per created task, as sent by the service.

        Raises
        ------
        ValidationError
            Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ``rule``); ``index`` and ``field`` are the first one's.
        PartialCreateError
            Some tasks failed (``failed_indices``); all the others were created.
        ApiError
            The service refused the batch with another error.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``. The batch is never sent twice: once sent,
            some of its tasks may have been created.
        ConnectionError
            No connection, or it broke; once the batch was sent, as for a timeout.
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.create_server_tasks([{
        ...     "server_name": "web-01", "private_ip": "192.168.1.10",
        ...     "server_ip": "203.0.113.10", "server_systype": 0, "frequency": 5,
        ...     "task_type": ["cpu", "mem"]}])
        [{'task_id': 30001}]
        """
    def create_service_tasks(self, tasks: _Tasks) -> list[CreatedTask]:
        """Create service monitoring tasks in one batch.

        The whole batch is checked first against the rules of the service's documentation:
        nothing is sent when a task breaks one, and the error names every problem. The
        ``password`` of a task never appears in an error, a ``repr`` or a log line.

        Parameters
        ----------
        tasks : list of dict
            Service tasks: ``task_name`` and ``task_type`` (apache, lighttpd, nginx,
            mongodb, redis, memcache, mysql, tomcat, iis, sqlserver, oracle), the fields of
            that type (``status_url``; ``ip``, ``port``, ``user``, ``password``;
            ``appname``; ``logPath``), and optionally ``frequency`` (default 5),
            ``use_agent`` and ``plugin_task_uselist_id``, and ``alert_setting`` (as for
            server tasks; default: alerts for the creator only) or, without alerts,
            ``open_scope`` (1-4) with ``organization`` or ``user_ids``.

        Returns
        -------
        list of dict
            One ``{"task_id": ...}`` per created task, as sent by the service.

        Raises
        ------
        ValidationError
            Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ``rule``).
        PartialCreateError
            Some tasks failed (``failed_indices``); all the others were created. The batch
            is never sent twice.
        ApiError
            The service refused the batch with another error.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``. The batch is never sent twice: once sent,
            some of its tasks may have been created.
        ConnectionError
            No connection, or it broke; once the batch was sent, as for a timeout.
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.create_service_tasks([{
        ...     "task_name": "orders-db", "task_type": "mysql", "ip": "192.168.1.20",
        ...     "port": 3306, "user": "monitor", "password": "..."}])
        [{'task_id': 200001}]
        """
    def service_tasks(self, page: int = 1) -> list[ServiceTask]:
        """One page of the service task list (50 tasks a page).

        Parameters
        ----------
        page : int, default 1
            The page, counting from 1.

        Returns
        -------
        list of dict
            Tasks with ``task_id``, ``task_name``, ``task_type``, ``frequency``,
            ``last_check_time`` and ``task_status``, as sent (ids are strings).

        Raises
        ------
        ValidationError
            ``page`` is not a whole number from 1 (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> tasks = client.service_tasks(page=1)
        >>> tasks[0]["task_id"]
        '10001'
        """
    def iter_service_tasks(self) -> TaskIterator[ServiceTask]:
        """Every service task, page after page, fetched as the iteration reaches them.

        Stops after the first page with fewer than 50 tasks; an empty page, however the
        service writes it (``[]``, ``{}`` or ``null``), is the last. A page that is neither
        a list nor empty raises :class:`DecodeError`.

        Returns
        -------
        TaskIterator
            An iterator of task dicts.

        Raises
        ------
        DecodeError
            While iterating: a page is neither a list nor empty.
        RuntimeError
            While iterating: the iterator is already fetching a page elsewhere (iterate it
            from one place at a time).
        MonapiError
            While iterating: the errors of :meth:`service_tasks`, when it fetches a page.

        Examples
        --------
        >>> names = [task["task_name"] for task in client.iter_service_tasks()]
        """
    def site_tasks(self, page: int = 1) -> _Records[SiteTask]:
        """One page of the site task list (up to 50 tasks a page), as sent.

        Parameters
        ----------
        page : int, default 1
            The page, counting from 1.

        Returns
        -------
        list of dict or dict
            Tasks with ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ``frequency``, ``task_status``, ``last_resp_time``, ``last_check_time`` ... as
            sent (ids are strings); a page the service sends as an object keyed by task id
            stays one (:meth:`iter_site_tasks` and ``tables.site_tasks()`` read both).

        Raises
        ------
        ValidationError
            ``page`` is not a whole number from 1 (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> sites = client.site_tasks(page=1)
        >>> sites[0]["task_id"]
        '20001'
        """
    def iter_site_tasks(self) -> TaskIterator[SiteTask]:
        """Every site task, page after page, fetched as the iteration reaches them (the rule
        of :meth:`iter_service_tasks`; a page keyed by task id yields its tasks in order).

        Returns
        -------
        TaskIterator
            An iterator of task dicts.

        Raises
        ------
        DecodeError
            While iterating: a page is neither a list nor empty.
        RuntimeError
            While iterating: the iterator is already fetching a page elsewhere (iterate it
            from one place at a time).
        MonapiError
            While iterating: the errors of :meth:`site_tasks`, when it fetches a page.

        Examples
        --------
        >>> ids = [int(task["task_id"]) for task in client.iter_site_tasks()]
        """
    def site_task(self, task_id: _TaskId) -> SiteTaskSettings:
        """One site task's settings: the fields of the list and the monitoring points it uses.

        Parameters
        ----------
        task_id : int or str
            A site task id.

        Returns
        -------
        dict
            As sent: ``task_id``, ``task_name``, ``frequency`` ... and the monitoring points
            it uses.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0 (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.site_task(20001)["task_name"]
        'site-01'
        """
    def monitors(self) -> _Records[MonitorPoint]:
        """The monitoring points of the account: their ids are the keys of a site report.

        Returns
        -------
        list of dict or dict
            Points with ``monitor_id``, ``monitor_name``, ``isp_name``, ``location_name``
            ... as sent (a list, or an object keyed by id).

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> {p["monitor_id"]: p["monitor_name"] for p in client.monitors()}["1"]
        '北京电信'
        """
    def users(self) -> _Records[User]:
        """Every user of the account: their ids are what ``alert_setting`` names.

        Returns
        -------
        list of dict or dict
            Users with ``user_id``, ``user_email``, ``user_name``, ``user_status``,
            ``role_id``, ``organization`` ... as sent.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> [u["user_email"] for u in client.users()][:1]
        ['test@example.com']
        """
    def user_groups(self) -> _Records[UserGroup]:
        """The user groups of the account: their ids are what ``organization`` names.

        Returns
        -------
        list of dict or dict
            Groups with ``organization_id``, ``organization_name``,
            ``parent_organization_id``, ``user_num``, as sent.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> [g["organization_name"] for g in client.user_groups()][:1]
        ['运维部']
        """
    def agents(self) -> AgentList:
        """The collector agents with their plugins, keyed by agent id.

        Returns
        -------
        dict
            ``{agent_id: {"name", "agentUrl": {"windows", "linux"}, "plugin": [...]}}``.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> for agent_id, agent in client.agents().items():
        ...     print(agent_id, agent["name"], len(agent["plugin"]))
        """
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> ServiceReport:
        """The monitoring data of a service task.

        Parameters
        ----------
        task_id : int or str
            A service task id (the list's string ids are accepted).
        start_date, end_date : datetime.date or str, optional
            The period, ``"YYYY-MM-DD"`` or dates (a ``datetime`` counts as its own calendar
            date); each defaults to today (service side).

        Returns
        -------
        dict
            One series per key (e.g. ``"apache_rps"``), each a list of records whose
            values are strings, as sent.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> import datetime
        >>> report = client.service_report(10001, start_date=datetime.date(2026, 11, 1),
        ...                                end_date="2026-11-02")
        >>> for series, records in report.items():   # e.g. "apache_rps", "mysql_qpc"
        ...     print(series, len(records), records[0])
        """
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> SiteReport:
        """Availability, faults and response times of a site task.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today (service side).
        monitor : int or str, optional
            ``None`` (default): every monitoring point and the average; ``0``: only the
            average; another id: that monitoring point.

        Returns
        -------
        dict
            Keyed by monitoring-point id (``"0"`` is the average), each with ``name``,
            ``uprate``, ``fault`` and ``resptime``, as sent.

        Raises
        ------
        ValidationError
            ``task_id`` or ``monitor`` is not a valid id, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> average = client.site_report(20001, monitor=0)["0"]
        >>> sorted(average)
        ['fault', 'name', 'resptime', 'uprate']
        """
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Distribution:
        """The response-time distribution of a site task.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today (service side).

        Returns
        -------
        dict
            Keyed by bucket lower bound, each ``{"start", "end", "count", "percent"}``
            (milliseconds; numbers and strings as sent).

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> buckets = client.response_time_distribution(20001, start_date="2026-11-01")
        >>> sum(b["count"] for b in buckets.values()) > 0
        True
        """
    def sync(
        self,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        *,
        tasks: Sequence[_TaskId] | None = None,
        kinds: Sequence[_Kind] | str | None = None,
        concurrency: int = 8,
        on_progress: Callable[[SyncProgress], object] | None = None,
        errors: _Errors = "raise",
        verify: bool = False,
    ) -> SyncReport:
        """Bring the client's store (``store=``) up to date: every settled day of the range,
        for every task asked, in every kind of table asked.

        Task-days the store already holds (listed once per kind and day) are
        not fetched; a task's missing days are fetched in runs of consecutive days (at
        most 10 days each), one request each, and written as they come. The arguments are
        checked, a token is obtained and the task lists are read before any report is
        asked for. Ctrl-C stops the call; what was written stays, and the next sync goes on
        from there.

        Parameters
        ----------
        start_date, end_date : datetime.date or str, optional
            The days to cover (``"YYYY-MM-DD"`` or dates). Left out: the last 30 settled
            days. Days not settled yet (see ``settle``) are left out.
        tasks : list of int or str, optional
            These service or site task ids rather than every task of the account; an id
            that is not a task of the kinds asked raises :class:`ValidationError`
            (nothing is fetched).
        kinds : list of str or str, optional
            The tables to keep, as a list or one comma-separated string:
            ``"service_report"``, ``"site_availability"``, ``"site_response_time"``,
            ``"site_faults"``, or ``"service"`` and ``"site"`` for all of one report
            (default: all four).
        concurrency : int, default 8
            Tasks fetched at once, 1 to 256.
        on_progress : callable, optional
            Receives a :class:`monapi.types.SyncProgress` dict (``total``, ``done``,
            ``fetched``, ``reused``, ``failed``, ``rows``, ``bytes``; counts of task-days)
            before the first task and after each, on the thread that waits for the sync
            (the event loop's, with ``AsyncClient``). An exception it raises is logged at
            WARNING; the sync goes on.
        errors : {"raise", "collect"}, default "raise"
            When task-days fail: ``"raise"`` a :class:`PartialResultError` whose
            ``table`` is the :class:`monapi.types.SyncReport`; ``"collect"``: return the
            report, with the failures in its ``failures``. Either way, what succeeded is
            in the store and the failed task-days are fetched by the next sync.
        verify : bool, default False
            Read every file of the range whole and check its checksum, not only list it:
            those that fail are set aside in ``.corrupt/`` and fetched again (a file garbled
            after it was written is otherwise found only when a read meets it).

        Returns
        -------
        SyncReport
            ``start``, ``end``, ``tasks``, ``fetched``, ``reused``, ``rows``, ``bytes``,
            ``failed``, ``failures``, ``set_aside`` (files that did not read, moved to
            ``.corrupt/`` and fetched again), ``verified`` (files read whole, with
            ``verify=True``) and ``summary``, one line.

        Raises
        ------
        PartialResultError
            Some task-days failed (``errors="raise"``).
        ValidationError
            The client has no store, or an argument breaks a rule (nothing is fetched).
        StoreError
            The store cannot be read or written.
        MonapiError
            The token or the task lists could not be obtained, before any report was asked
            for (:class:`AuthError`, :class:`ApiError`, :class:`TimeoutError` ...); a report
            that fails is one of the ``failures`` instead.

        Examples
        --------
        >>> client = monapi.Client(store="reports/")   # MONAPI_* for the rest
        >>> report = client.sync(start_date="2026-11-01", end_date="2026-11-07",
        ...                      kinds="service_report")
        >>> print(report["summary"])   # 120 tasks, 7 days
        840 task-days fetched, 0 reused, ... rows, ... bytes, 0 failed
        >>> client.sync(start_date="2026-11-01", end_date="2026-11-07")["fetched"]
        35
        >>> import duckdb
        >>> duckdb.sql("SELECT day, count(*) FROM read_parquet("
        ...            "'reports/service_report/**/*.parquet', hive_partitioning = true)"
        ...            " GROUP BY day ORDER BY day")
        """
    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, _Param] | None = None,
        form: Mapping[str, _Param] | None = None,
    ) -> _Json:
        """Call any operation of the service by its method and path, for those without a method
        of their own.

        The client adds ``access_token`` and looks after the token as for every other call; a
        GET is retried as reads are, a POST is never repeated once it may have reached the
        service; errors are the same exceptions.

        Parameters
        ----------
        method : str
            ``"GET"`` or ``"POST"``.
        path : str
            The path under the base URL, e.g. ``"/v2/site/lists.json"`` (no scheme, host or
            query).
        params : dict, optional
            Query parameters (``str``, ``int`` or ``float`` values); not ``access_token``.
        form : dict, optional
            Form fields of a POST (``application/x-www-form-urlencoded``).

        Returns
        -------
        Any
            The answer's JSON, exactly as the service sent it.

        Raises
        ------
        ValidationError
            The method, path, params or form break a rule (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a GET is retried ``max_retries`` times first).
        DecodeError
            The answer is not JSON.

        Examples
        --------
        >>> points = client.request("GET", "/v2/site/monitors.json")
        """
    def close(self) -> None:
        """Close the client: later calls raise :class:`MonapiError` ("the client is closed"), and
        its connections are released once the calls and iterators still using them are done.

        Examples
        --------
        >>> client.close()
        """
    def __enter__(self) -> Self:
        """The client itself, for ``with monapi.Client() as client:``; the block's end closes
        it.
        """
    def __exit__(self, *_exc: object) -> bool:
        """Close the client (:meth:`close`) at the end of a ``with`` block; an exception of the
        block goes on.
        """
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle support: the client's settings and current token, secrets included (the
        ``repr`` of the state hides them); ``on_token`` is left out. Unpickled, it is a new
        client of the same account.
        """

@final
class AsyncClient:
    """An asyncio client of the monitoring service.

    The same operations as :class:`Client`; each method returns a coroutine to ``await``
    (or to hand to ``asyncio.gather``/``create_task``). The requests run on a Rust runtime
    of their own, so the event loop only builds the results; many calls can be in flight at
    once on one client.

    It works in a script (``asyncio.run(main())``) and inside an already running loop, as
    in Jupyter, where ``await client.agents()`` in a cell just works (no nest_asyncio).

    Parameters are those of :class:`Client` (keyword-only, with the same ``MONAPI_*``
    fallbacks).

    Examples
    --------
    >>> import asyncio, monapi
    >>> async def main():
    ...     async with monapi.AsyncClient() as client:   # MONAPI_* variables
    ...         tasks = await client.service_tasks()
    ...         reports = await asyncio.gather(
    ...             *(client.service_report(t["task_id"]) for t in tasks))
    ...         async for task in client.iter_service_tasks():
    ...             print(task["task_name"])
    >>> asyncio.run(main())
    """
    def __init__(
        self,
        *,
        base_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_md5: str | None = None,
        password_file: str | os.PathLike[str] | None = None,
        client_secret_file: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        max_retries: int | None = None,
        user_agent: str | None = None,
        ca_bundle: str | os.PathLike[str] | bytes | None = None,
        proxy: str | None = ...,
        max_connections: int | None = None,
        max_response_bytes: int | None = None,
        timezone: str | None = None,
        store: str | os.PathLike[str] | None = None,
        storage_options: dict[str, str] | None = None,
        settle: float | None = None,
        propagate_trace_context: bool | None = None,
        token: Mapping[str, Any] | None = None,
        on_token: Callable[[Token], object] | None = None,
    ) -> None: ...
    def login(self) -> Awaitable[Token]:
        """Log in with the password grant now and return the new token.

        Calls log in by themselves when needed; use this to check the credentials early.

        Returns
        -------
        Token
            The new token, also in ``client.token`` and passed to ``on_token``.

        Raises
        ------
        InvalidClientError
            The service refused ``client_id``/``client_secret``.
        InvalidGrantError
            The service refused the username or password.
        TimeoutError
            The token endpoint gave no complete answer within ``timeout``.
        ConnectionError
            The token endpoint could not be reached, or the connection broke.

        Examples
        --------
        >>> token = client.login()
        >>> token["token_type"]
        'bearer'
        """
    def refresh(self) -> Awaitable[Token]:
        """Get a new token with the refresh grant now and return it.

        Returns
        -------
        Token
            The new token. It keeps the refresh token when the service sends none (the
            service's default: its refresh token stays valid for 14 days).

        Raises
        ------
        ValidationError
            There is no token to refresh yet (log in first).
        InvalidGrantError
            The service refused the refresh token.
        TimeoutError
            The token endpoint gave no complete answer within ``timeout``.
        ConnectionError
            The token endpoint could not be reached, or the connection broke.

        Examples
        --------
        >>> _ = client.login()
        >>> client.refresh()["access_token"] == client.token["access_token"]
        True
        """
    @property
    def token(self) -> Token | None:
        """The current token (a :class:`monapi.Token` dict), or ``None`` before the first login.

        Save it (e.g. ``json.dumps(client.token)``) and pass it back as ``token=`` to
        resume without logging in. Its ``repr`` shows only the expiry.

        Examples
        --------
        >>> client.token is None
        True
        >>> _ = client.agents()
        >>> sorted(client.token)[:2]
        ['access_token', 'expires_at']
        """
    @property
    def base_url(self) -> str:
        """The service's base URL.

        Examples
        --------
        >>> client.base_url
        'http://127.0.0.1:8080'
        """
    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called.

        Examples
        --------
        >>> client.close()
        >>> client.closed
        True
        """
    @property
    def tables(self) -> AsyncTables:
        """The calls that return tables (:class:`Tables`): the reports as :class:`Table`
        objects, ready for pandas, polars, pyarrow or DuckDB.

        Examples
        --------
        >>> df = client.tables.service_report(10001).to_pandas()
        """
    def create_server_tasks(self, tasks: _Tasks) -> Awaitable[list[CreatedTask]]:
        """Create server monitoring tasks in one batch.

        The whole batch is checked against the service's rules first; nothing is sent when a
        task breaks one, and the error names every problem of every task.

        Parameters
        ----------
        tasks : list of dict
            Server tasks with the API's fields. Only ``server_name``, ``private_ip``,
            ``server_ip`` and ``server_systype`` are required: every other field left out
            (``frequency``, ``snmp_port``, ``snmp_v``, ``snmp_comm``, ``use_agent``,
            ``alert_setting``, ``task_type`` ...) takes the default of the Rust core's
            ``ServerTask::new``, where the table of defaults is (every 5 minutes, SNMP v2c on
            port 161 with community ``public``, no agent plugins, alerts for the creator only,
            every indicator the system allows). Numbers may be given as ints or strings. A key
            the service does not know is refused (a misspelt field would otherwise take its
            default unnoticed).

        Returns
        -------
        list of dict
            One ``{"task_id": ...}`` per created task, as sent by the service.

        Raises
        ------
        ValidationError
            Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ``rule``); ``index`` and ``field`` are the first one's.
        PartialCreateError
            Some tasks failed (``failed_indices``); all the others were created.
        ApiError
            The service refused the batch with another error.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``. The batch is never sent twice: once sent,
            some of its tasks may have been created.
        ConnectionError
            No connection, or it broke; once the batch was sent, as for a timeout.
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.create_server_tasks([{
        ...     "server_name": "web-01", "private_ip": "192.168.1.10",
        ...     "server_ip": "203.0.113.10", "server_systype": 0, "frequency": 5,
        ...     "task_type": ["cpu", "mem"]}])
        [{'task_id': 30001}]
        """
    def create_service_tasks(self, tasks: _Tasks) -> Awaitable[list[CreatedTask]]:
        """Create service monitoring tasks in one batch.

        The whole batch is checked first against the rules of the service's documentation:
        nothing is sent when a task breaks one, and the error names every problem. The
        ``password`` of a task never appears in an error, a ``repr`` or a log line.

        Parameters
        ----------
        tasks : list of dict
            Service tasks: ``task_name`` and ``task_type`` (apache, lighttpd, nginx,
            mongodb, redis, memcache, mysql, tomcat, iis, sqlserver, oracle), the fields of
            that type (``status_url``; ``ip``, ``port``, ``user``, ``password``;
            ``appname``; ``logPath``), and optionally ``frequency`` (default 5),
            ``use_agent`` and ``plugin_task_uselist_id``, and ``alert_setting`` (as for
            server tasks; default: alerts for the creator only) or, without alerts,
            ``open_scope`` (1-4) with ``organization`` or ``user_ids``.

        Returns
        -------
        list of dict
            One ``{"task_id": ...}`` per created task, as sent by the service.

        Raises
        ------
        ValidationError
            Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ``rule``).
        PartialCreateError
            Some tasks failed (``failed_indices``); all the others were created. The batch
            is never sent twice.
        ApiError
            The service refused the batch with another error.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``. The batch is never sent twice: once sent,
            some of its tasks may have been created.
        ConnectionError
            No connection, or it broke; once the batch was sent, as for a timeout.
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.create_service_tasks([{
        ...     "task_name": "orders-db", "task_type": "mysql", "ip": "192.168.1.20",
        ...     "port": 3306, "user": "monitor", "password": "..."}])
        [{'task_id': 200001}]
        """
    def service_tasks(self, page: int = 1) -> Awaitable[list[ServiceTask]]:
        """One page of the service task list (50 tasks a page).

        Parameters
        ----------
        page : int, default 1
            The page, counting from 1.

        Returns
        -------
        list of dict
            Tasks with ``task_id``, ``task_name``, ``task_type``, ``frequency``,
            ``last_check_time`` and ``task_status``, as sent (ids are strings).

        Raises
        ------
        ValidationError
            ``page`` is not a whole number from 1 (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> tasks = client.service_tasks(page=1)
        >>> tasks[0]["task_id"]
        '10001'
        """
    def iter_service_tasks(self) -> AsyncTaskIterator[ServiceTask]:
        """Every service task, page after page, fetched as the iteration reaches them.

        Stops after the first page with fewer than 50 tasks; an empty page, however the
        service writes it (``[]``, ``{}`` or ``null``), is the last. A page that is neither
        a list nor empty raises :class:`DecodeError`.

        Returns
        -------
        TaskIterator
            An iterator of task dicts.

        Raises
        ------
        DecodeError
            While iterating: a page is neither a list nor empty.
        RuntimeError
            While iterating: the iterator is already fetching a page elsewhere (iterate it
            from one place at a time).
        MonapiError
            While iterating: the errors of :meth:`service_tasks`, when it fetches a page.

        Examples
        --------
        >>> names = [task["task_name"] for task in client.iter_service_tasks()]
        """
    def site_tasks(self, page: int = 1) -> Awaitable[_Records[SiteTask]]:
        """One page of the site task list (up to 50 tasks a page), as sent.

        Parameters
        ----------
        page : int, default 1
            The page, counting from 1.

        Returns
        -------
        list of dict or dict
            Tasks with ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ``frequency``, ``task_status``, ``last_resp_time``, ``last_check_time`` ... as
            sent (ids are strings); a page the service sends as an object keyed by task id
            stays one (:meth:`iter_site_tasks` and ``tables.site_tasks()`` read both).

        Raises
        ------
        ValidationError
            ``page`` is not a whole number from 1 (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> sites = client.site_tasks(page=1)
        >>> sites[0]["task_id"]
        '20001'
        """
    def iter_site_tasks(self) -> AsyncTaskIterator[SiteTask]:
        """Every site task, page after page, fetched as the iteration reaches them (the rule
        of :meth:`iter_service_tasks`; a page keyed by task id yields its tasks in order).

        Returns
        -------
        TaskIterator
            An iterator of task dicts.

        Raises
        ------
        DecodeError
            While iterating: a page is neither a list nor empty.
        RuntimeError
            While iterating: the iterator is already fetching a page elsewhere (iterate it
            from one place at a time).
        MonapiError
            While iterating: the errors of :meth:`site_tasks`, when it fetches a page.

        Examples
        --------
        >>> ids = [int(task["task_id"]) for task in client.iter_site_tasks()]
        """
    def site_task(self, task_id: _TaskId) -> Awaitable[SiteTaskSettings]:
        """One site task's settings: the fields of the list and the monitoring points it uses.

        Parameters
        ----------
        task_id : int or str
            A site task id.

        Returns
        -------
        dict
            As sent: ``task_id``, ``task_name``, ``frequency`` ... and the monitoring points
            it uses.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0 (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.site_task(20001)["task_name"]
        'site-01'
        """
    def monitors(self) -> Awaitable[_Records[MonitorPoint]]:
        """The monitoring points of the account: their ids are the keys of a site report.

        Returns
        -------
        list of dict or dict
            Points with ``monitor_id``, ``monitor_name``, ``isp_name``, ``location_name``
            ... as sent (a list, or an object keyed by id).

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> {p["monitor_id"]: p["monitor_name"] for p in client.monitors()}["1"]
        '北京电信'
        """
    def users(self) -> Awaitable[_Records[User]]:
        """Every user of the account: their ids are what ``alert_setting`` names.

        Returns
        -------
        list of dict or dict
            Users with ``user_id``, ``user_email``, ``user_name``, ``user_status``,
            ``role_id``, ``organization`` ... as sent.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> [u["user_email"] for u in client.users()][:1]
        ['test@example.com']
        """
    def user_groups(self) -> Awaitable[_Records[UserGroup]]:
        """The user groups of the account: their ids are what ``organization`` names.

        Returns
        -------
        list of dict or dict
            Groups with ``organization_id``, ``organization_name``,
            ``parent_organization_id``, ``user_num``, as sent.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> [g["organization_name"] for g in client.user_groups()][:1]
        ['运维部']
        """
    def agents(self) -> Awaitable[AgentList]:
        """The collector agents with their plugins, keyed by agent id.

        Returns
        -------
        dict
            ``{agent_id: {"name", "agentUrl": {"windows", "linux"}, "plugin": [...]}}``.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> for agent_id, agent in client.agents().items():
        ...     print(agent_id, agent["name"], len(agent["plugin"]))
        """
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[ServiceReport]:
        """The monitoring data of a service task.

        Parameters
        ----------
        task_id : int or str
            A service task id (the list's string ids are accepted).
        start_date, end_date : datetime.date or str, optional
            The period, ``"YYYY-MM-DD"`` or dates (a ``datetime`` counts as its own calendar
            date); each defaults to today (service side).

        Returns
        -------
        dict
            One series per key (e.g. ``"apache_rps"``), each a list of records whose
            values are strings, as sent.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> import datetime
        >>> report = client.service_report(10001, start_date=datetime.date(2026, 11, 1),
        ...                                end_date="2026-11-02")
        >>> for series, records in report.items():   # e.g. "apache_rps", "mysql_qpc"
        ...     print(series, len(records), records[0])
        """
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> Awaitable[SiteReport]:
        """Availability, faults and response times of a site task.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today (service side).
        monitor : int or str, optional
            ``None`` (default): every monitoring point and the average; ``0``: only the
            average; another id: that monitoring point.

        Returns
        -------
        dict
            Keyed by monitoring-point id (``"0"`` is the average), each with ``name``,
            ``uprate``, ``fault`` and ``resptime``, as sent.

        Raises
        ------
        ValidationError
            ``task_id`` or ``monitor`` is not a valid id, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> average = client.site_report(20001, monitor=0)["0"]
        >>> sorted(average)
        ['fault', 'name', 'resptime', 'uprate']
        """
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[Distribution]:
        """The response-time distribution of a site task.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today (service side).

        Returns
        -------
        dict
            Keyed by bucket lower bound, each ``{"start", "end", "count", "percent"}``
            (milliseconds; numbers and strings as sent).

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> buckets = client.response_time_distribution(20001, start_date="2026-11-01")
        >>> sum(b["count"] for b in buckets.values()) > 0
        True
        """
    def sync(
        self,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        *,
        tasks: Sequence[_TaskId] | None = None,
        kinds: Sequence[_Kind] | str | None = None,
        concurrency: int = 8,
        on_progress: Callable[[SyncProgress], object] | None = None,
        errors: _Errors = "raise",
        verify: bool = False,
    ) -> Awaitable[SyncReport]:
        """Bring the client's store (``store=``) up to date: every settled day of the range,
        for every task asked, in every kind of table asked.

        Task-days the store already holds (listed once per kind and day) are
        not fetched; a task's missing days are fetched in runs of consecutive days (at
        most 10 days each), one request each, and written as they come. The arguments are
        checked, a token is obtained and the task lists are read before any report is
        asked for. Ctrl-C stops the call; what was written stays, and the next sync goes on
        from there.

        Parameters
        ----------
        start_date, end_date : datetime.date or str, optional
            The days to cover (``"YYYY-MM-DD"`` or dates). Left out: the last 30 settled
            days. Days not settled yet (see ``settle``) are left out.
        tasks : list of int or str, optional
            These service or site task ids rather than every task of the account; an id
            that is not a task of the kinds asked raises :class:`ValidationError`
            (nothing is fetched).
        kinds : list of str or str, optional
            The tables to keep, as a list or one comma-separated string:
            ``"service_report"``, ``"site_availability"``, ``"site_response_time"``,
            ``"site_faults"``, or ``"service"`` and ``"site"`` for all of one report
            (default: all four).
        concurrency : int, default 8
            Tasks fetched at once, 1 to 256.
        on_progress : callable, optional
            Receives a :class:`monapi.types.SyncProgress` dict (``total``, ``done``,
            ``fetched``, ``reused``, ``failed``, ``rows``, ``bytes``; counts of task-days)
            before the first task and after each, on the thread that waits for the sync
            (the event loop's, with ``AsyncClient``). An exception it raises is logged at
            WARNING; the sync goes on.
        errors : {"raise", "collect"}, default "raise"
            When task-days fail: ``"raise"`` a :class:`PartialResultError` whose
            ``table`` is the :class:`monapi.types.SyncReport`; ``"collect"``: return the
            report, with the failures in its ``failures``. Either way, what succeeded is
            in the store and the failed task-days are fetched by the next sync.
        verify : bool, default False
            Read every file of the range whole and check its checksum, not only list it:
            those that fail are set aside in ``.corrupt/`` and fetched again (a file garbled
            after it was written is otherwise found only when a read meets it).

        Returns
        -------
        SyncReport
            ``start``, ``end``, ``tasks``, ``fetched``, ``reused``, ``rows``, ``bytes``,
            ``failed``, ``failures``, ``set_aside`` (files that did not read, moved to
            ``.corrupt/`` and fetched again), ``verified`` (files read whole, with
            ``verify=True``) and ``summary``, one line.

        Raises
        ------
        PartialResultError
            Some task-days failed (``errors="raise"``).
        ValidationError
            The client has no store, or an argument breaks a rule (nothing is fetched).
        StoreError
            The store cannot be read or written.
        MonapiError
            The token or the task lists could not be obtained, before any report was asked
            for (:class:`AuthError`, :class:`ApiError`, :class:`TimeoutError` ...); a report
            that fails is one of the ``failures`` instead.

        Examples
        --------
        >>> client = monapi.Client(store="reports/")   # MONAPI_* for the rest
        >>> report = client.sync(start_date="2026-11-01", end_date="2026-11-07",
        ...                      kinds="service_report")
        >>> print(report["summary"])   # 120 tasks, 7 days
        840 task-days fetched, 0 reused, ... rows, ... bytes, 0 failed
        >>> client.sync(start_date="2026-11-01", end_date="2026-11-07")["fetched"]
        35
        >>> import duckdb
        >>> duckdb.sql("SELECT day, count(*) FROM read_parquet("
        ...            "'reports/service_report/**/*.parquet', hive_partitioning = true)"
        ...            " GROUP BY day ORDER BY day")
        """
    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, _Param] | None = None,
        form: Mapping[str, _Param] | None = None,
    ) -> Awaitable[_Json]:
        """Call any operation of the service by its method and path, for those without a method
        of their own.

        The client adds ``access_token`` and looks after the token as for every other call; a
        GET is retried as reads are, a POST is never repeated once it may have reached the
        service; errors are the same exceptions.

        Parameters
        ----------
        method : str
            ``"GET"`` or ``"POST"``.
        path : str
            The path under the base URL, e.g. ``"/v2/site/lists.json"`` (no scheme, host or
            query).
        params : dict, optional
            Query parameters (``str``, ``int`` or ``float`` values); not ``access_token``.
        form : dict, optional
            Form fields of a POST (``application/x-www-form-urlencoded``).

        Returns
        -------
        Any
            The answer's JSON, exactly as the service sent it.

        Raises
        ------
        ValidationError
            The method, path, params or form break a rule (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a GET is retried ``max_retries`` times first).
        DecodeError
            The answer is not JSON.

        Examples
        --------
        >>> points = client.request("GET", "/v2/site/monitors.json")
        """
    def close(self) -> None:
        """Close the client: later calls raise :class:`MonapiError` ("the client is closed"), and
        its connections are released once the calls and iterators still using them are done.

        Examples
        --------
        >>> client.close()
        """
    def __aenter__(self) -> Awaitable[Self]:
        """An awaitable of the client itself, for ``async with monapi.AsyncClient() as
        client:``; the block's end closes it.
        """
    def __aexit__(self, *_exc: object) -> Awaitable[bool]:
        """Close the client (:meth:`close`) at the end of an ``async with`` block; an exception
        of the block goes on.
        """
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle support: the client's settings and current token, secrets included (the
        ``repr`` of the state hides them); ``on_token`` is left out. Unpickled, it is a new
        client of the same account.
        """

@final
class Awaitable(Coroutine[Any, Any, _T]):
    """What `AsyncClient` methods return: a coroutine object (`await` it, or hand it to
    `asyncio.create_task`, `gather` or `run`). The request starts when it is first awaited.
    """
    def __await__(self) -> Generator[Any, None, _T]:
        """Return an iterator to be used in await expression."""
    def __next__(self) -> Any:
        """Implement next(self)."""
    def send(self, _value: Any) -> Any:
        """Part of the coroutine protocol: advance the call (asyncio does it, sending ``None``).

        Parameters
        ----------
        _value : object
            Ignored.

        Returns
        -------
        object
            What the event loop waits on next, until the call ends with ``StopIteration``
            carrying its result (or raises its error).

        Examples
        --------
        >>> awaitable = client.agents()
        >>> agents = await awaitable   # asyncio calls send() for you
        """
    def throw(self, typ: Any, val: Any = None, tb: TracebackType | None = None) -> Any:
        """Part of the coroutine protocol: cancel the call and raise an exception in its place.

        Parameters
        ----------
        typ : type or BaseException
            The exception, or its class.
        val : object, optional
            The exception, or the argument of its class.
        tb : traceback, optional
            The traceback to give it.

        Raises
        ------
        BaseException
            The exception given, always.

        Examples
        --------
        >>> task = asyncio.create_task(client.agents())
        >>> task.cancel()   # asyncio throws CancelledError into the call
        """
    def close(self) -> None:
        """Part of the coroutine protocol: cancel the call (nothing of it runs on).

        Examples
        --------
        >>> awaitable = client.agents()
        >>> awaitable.close()   # never awaited: no request is made
        """

@final
class TaskIterator(Generic[_Item]):
    """Iterator over every task of a list (from :meth:`Client.iter_service_tasks` and
    :meth:`Client.iter_site_tasks`).

    Pages are fetched as the iteration reaches them, without holding the GIL.

    Examples
    --------
    >>> for task in client.iter_service_tasks():
    ...     print(task["task_id"])
    """
    def __iter__(self) -> Self:
        """Implement iter(self)."""
    def __next__(self) -> _Item:
        """Implement next(self)."""

@final
class AsyncTaskIterator(Generic[_Item]):
    """Async iterator over every task of a list (from :meth:`AsyncClient.iter_service_tasks` and
    :meth:`AsyncClient.iter_site_tasks`).

    Examples
    --------
    >>> async for task in client.iter_site_tasks():
    ...     print(task["task_id"])
    """
    def __aiter__(self) -> Self:
        """Return an awaitable, that resolves in asynchronous iterator."""
    def __anext__(self) -> Awaitable[_Item]:
        """Return a value or raise StopAsyncIteration."""

_Progress: TypeAlias = bool | Callable[[Progress], object] | None

@final
class Table:
    """A table of the service's data, ready for analysis, built once by monapi's core.

    Its columns have fixed Arrow types: times are tz-aware timestamps (seconds, in the
    client's ``timezone``), numbers ``float64`` (null where the service sent nothing
    readable), ids and counts ``int64``, names and categories dictionary-encoded strings.

    A ``Table`` implements the Arrow PyCapsule stream interface (``__arrow_c_stream__``), so
    ``pyarrow.table(t)``, ``polars.DataFrame(t)`` and DuckDB (``duckdb.sql("select * from
    t")``) read it without a copy of its columns. ``to_pandas()``, ``to_polars()`` and
    ``to_arrow()`` do the usual conversions; each needs its library, installed with an extra
    (``pip install 'monapi[pandas]'``, ``'monapi[polars]'``, ``'monapi[arrow]'``).

    Tables pickle (as Arrow IPC bytes).

    Examples
    --------
    >>> table = client.tables.service_report(10001, start_date="2026-11-01")
    >>> table.column_names
    ['task_id', 'series', 'time', 'metric', 'value']
    >>> df = table.to_pandas()
    >>> df.groupby("metric")["value"].mean()
    """
    @property
    def num_rows(self) -> int:
        """The number of rows.

        Examples
        --------
        >>> table.num_rows == len(table)
        True
        """
    @property
    def column_names(self) -> list[str]:
        """The names of the columns, in order.

        Examples
        --------
        >>> client.tables.response_time_distribution(20001).column_names
        ['task_id', 'start_ms', 'end_ms', 'count', 'percent']
        """
    @property
    def schema(self) -> dict[str, str]:
        r"""The columns and their Arrow types, as text (``{"time": "Timestamp(s, \"+08:00\")",
        ...}``). ``pyarrow.schema(table)`` gives a ``pyarrow.Schema``.

        Examples
        --------
        >>> table.schema["value"]
        'Float64'
        """
    @property
    def failures(self) -> list[tuple[int, MonapiError]]:
        """For a bulk call with ``errors="collect"`` (or the table of a
        :class:`PartialResultError`): each task that failed, with its error; empty otherwise.

        Examples
        --------
        >>> table = client.tables.service_reports([10001, 999], errors="collect")
        >>> [task_id for task_id, error in table.failures]
        [999]
        """
    def __len__(self) -> int:
        """Return len(self)."""
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream interface: the table's record batches, shared without a
        copy. Arrow readers (pyarrow, polars, DuckDB) call it; code rarely needs to.

        Parameters
        ----------
        requested_schema : PyCapsule, optional
            An ``arrow_schema`` capsule of the types the reader wants: the columns are cast
            to them.

        Returns
        -------
        PyCapsule
            An ``arrow_array_stream`` capsule of the table's record batches.

        Raises
        ------
        ValueError
            A column cannot be cast to the type ``requested_schema`` asks for.

        Examples
        --------
        >>> import pyarrow as pa
        >>> pa.table(table).num_rows == table.num_rows
        True
        """
    def __arrow_c_schema__(self) -> object:
        """The Arrow PyCapsule schema interface: the table's columns and their types.

        Returns
        -------
        PyCapsule
            An ``arrow_schema`` capsule.

        Examples
        --------
        >>> import pyarrow as pa
        >>> pa.schema(table).names == table.column_names
        True
        """
    def to_arrow(self) -> Any:
        """The table as a ``pyarrow.Table`` (no copy of the columns).

        Raises
        ------
        ImportError
            pyarrow is not installed (``pip install 'monapi[arrow]'``).

        Examples
        --------
        >>> table.to_arrow().schema.field("time").type
        TimestampType(timestamp[s, tz=+08:00])
        """
    def to_pandas(self) -> Any:
        """The table as a ``pandas.DataFrame``: tz-aware ``datetime64`` times, ``float64``
        numbers, integer ids, ``category`` names.

        Raises
        ------
        ImportError
            pandas or pyarrow is not installed (``pip install 'monapi[pandas]'``).

        Examples
        --------
        >>> df = table.to_pandas()
        >>> df.dtypes["time"]
        datetime64[s, UTC+08:00]
        """
    def to_polars(self) -> Any:
        """The table as a ``polars.DataFrame`` (read through the Arrow stream interface).

        Raises
        ------
        ImportError
            polars is not installed (``pip install 'monapi[polars]'``).

        Examples
        --------
        >>> df = table.to_polars()
        >>> df.schema["value"]
        Float64
        """
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle support: the table as Arrow IPC bytes, with its ``failures``."""

@final
class Tables:
    """``client.tables`` of a :class:`Client`: the reports as :class:`Table` objects, built by
    monapi's core (times tz-aware in the client's ``timezone``, numbers ``float64``, ids
    integers). Each call blocks without holding the GIL; Ctrl-C stops it, and a bulk call
    then cancels every request in flight.

    The date parameters are those of the client's methods; dates left out are today in the
    client's time zone.

    Examples
    --------
    >>> df = client.tables.service_report(10001, start_date="2026-11-01").to_pandas()
    >>> site = client.tables.site_report(20001, start_date="2026-11-01")
    >>> site.availability.to_pandas().pivot(index="time", columns="monitor", values="uprate")
    """
    @property
    def timezone(self) -> str:
        """The time zone of the tables' times (the client's ``timezone``), e.g. ``"+08:00"``.

        Examples
        --------
        >>> client.tables.timezone
        '+08:00'
        """
    def service_tasks(self) -> Table:
        """Every service task (all pages) as one table.

        Returns
        -------
        Table
            ``task_id``, ``task_name``, ``task_type``, ``frequency``, ``last_check_time``,
            ``task_status``.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.tables.service_tasks().num_rows
        120
        """
    def site_tasks(self) -> Table:
        """Every site task (all pages) as one table.

        Returns
        -------
        Table
            ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ``task_create_time``, ``frequency``, ``task_status``, ``group_id``,
            ``last_resp_time`` (ms), ``last_resp_result``, ``last_resp_status``,
            ``threshold_result``, ``last_check_time``; null where the service left a
            field out.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.tables.site_tasks().to_pandas()[["task_id", "task_name", "frequency"]]
        """
    def monitors(self) -> Table:
        """The monitoring points as a table.

        Returns
        -------
        Table
            ``monitor_id``, ``monitor_name``, ``isp_id``, ``isp_name``, ``location_code``,
            ``location_name``, ``china_region``, ``world_region``; null where absent.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.tables.monitors().to_pandas().set_index("monitor_id")["monitor_name"]
        """
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Table:
        """A service task's report as a long table: one row per record and metric.

        Parameters
        ----------
        task_id : int or str
            A service task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today in the client's time zone.

        Returns
        -------
        Table
            ``task_id``, ``series``, ``time``, ``metric``, ``value``.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.
        StoreError
            The client's store (``store=``) cannot be read or written.

        Examples
        --------
        >>> t = client.tables.service_report(10001, start_date="2026-11-01", end_date="2026-11-07")
        >>> t.to_pandas().pivot_table(index="time", columns="metric", values="value")
        """
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> SiteTables:
        """A site task's report as three tables.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today in the client's time zone.
        monitor : int or str, optional
            ``None`` (every monitoring point and the average), ``0`` (the average) or a
            point's id.

        Returns
        -------
        SiteTables
            ``availability``, ``response_time`` and ``faults``.

        Raises
        ------
        ValidationError
            ``task_id`` or ``monitor`` is not a valid id, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.
        StoreError
            The client's store (``store=``) cannot be read or written.

        Examples
        --------
        >>> availability, response_time, faults = client.tables.site_report(20001)
        """
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Table:
        """A site task's response-time distribution as a table.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today in the client's time zone.

        Returns
        -------
        Table
            ``task_id``, ``start_ms``, ``end_ms``, ``count``, ``percent``.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.
        StoreError
            The client's store (``store=``) cannot be read or written.

        Examples
        --------
        >>> client.tables.response_time_distribution(20001).to_pandas()
        """
    def service_reports(
        self,
        task_ids: Sequence[_TaskId] | None = None,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        concurrency: int | None = None,
        progress: _Progress = None,
        errors: _Errors = "raise",
    ) -> Table:
        """The service reports of many tasks as one table, fetched ``concurrency`` at a time.

        Its rows are those of the single calls, task after task in the order asked for.
        Ctrl-C stops the call and cancels every request in flight.

        Parameters
        ----------
        task_ids : list of int or str, optional
            The tasks; ``None`` (default) is every service task (the list is read first).
        start_date, end_date : datetime.date or str, optional
            The period, the same for every task.
        concurrency : int, optional
            Tasks fetched at once, 1 to 256 (default 8, the core's).
        progress : bool or callable, optional
            ``True``: a tqdm bar (``tqdm.auto``, so it renders in Jupyter; ``pip install
            'monapi[progress]'``). A callable receives a :class:`monapi.types.Progress` dict
            (``done``, ``total``, ``failed``, ``bytes``, ``rows``) at the start and after each
            task, on the thread that waits for the call (the event loop's, with AsyncClient).
        errors : {"raise", "collect"}, default "raise"
            When tasks fail: ``"raise"`` a :class:`PartialResultError` carrying the table of
            the others and the failures; ``"collect"``: return the table, with the failures
            in its ``failures``.

        Returns
        -------
        Table
            The rows of every task that succeeded (``failures`` lists the others).

        Raises
        ------
        PartialResultError
            Some tasks failed (``errors="raise"``).
        ValidationError
            A bad argument (nothing is sent).
        MonapiError
            No token or no task list, before any report (:class:`AuthError`, :class:`ApiError`,
            :class:`TimeoutError` ...); a task that fails is one of the failures instead.

        Examples
        --------
        >>> week = client.tables.service_reports(start_date="2026-11-01", end_date="2026-11-07",
        ...                                      progress=True)
        >>> week.to_pandas().groupby(["task_id", "metric"])["value"].max()
        """
    def site_reports(
        self,
        task_ids: Sequence[_TaskId] | None = None,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
        concurrency: int | None = None,
        progress: _Progress = None,
        errors: _Errors = "raise",
    ) -> SiteTables:
        """The site reports of many tasks as one :class:`SiteTables`, fetched ``concurrency`` at
        a time (the same ``monitor`` for every task).

        Parameters
        ----------
        task_ids : list of int or str, optional
            The tasks; ``None`` (default) is every site task (the site task list is read
            first).
        start_date, end_date : datetime.date or str, optional
            The period, the same for every task.
        monitor : int or str, optional
            ``None`` (every monitoring point and the average), ``0`` (the average) or a
            point's id, the same for every task.
        concurrency : int, optional
            Tasks fetched at once, 1 to 256 (default 8, the core's).
        progress : bool or callable, optional
            ``True``: a tqdm bar; a callable receives a :class:`monapi.types.Progress` dict
            at the start and after each task (as for :meth:`service_reports`).
        errors : {"raise", "collect"}, default "raise"
            When tasks fail: ``"raise"`` a :class:`PartialResultError` carrying the tables of
            the others and the failures; ``"collect"``: return the tables, with the failures
            in its ``failures``.

        Returns
        -------
        SiteTables
            The three tables of every task that succeeded (``failures`` lists the others).

        Raises
        ------
        PartialResultError
            Some tasks failed (``errors="raise"``).
        ValidationError
            A bad argument (nothing is sent).
        MonapiError
            No token or no task list, before any report (:class:`AuthError`, :class:`ApiError`,
            :class:`TimeoutError` ...); a task that fails is one of the failures instead.

        Examples
        --------
        >>> site = client.tables.site_reports([20001, 20002], start_date="2026-11-01")
        >>> site.faults.to_pandas()
        >>> every_site = client.tables.site_reports(start_date="2026-11-01")
        """

@final
class AsyncTables:
    """``client.tables`` of an :class:`AsyncClient`: the calls of :class:`Tables`, each
    returning a coroutine. Cancelling the task that awaits a bulk call (``task.cancel()``)
    cancels every request in flight.

    Examples
    --------
    >>> tables = await asyncio.gather(
    ...     client.tables.service_report(10001), client.tables.service_report(10002))
    """
    @property
    def timezone(self) -> str:
        """The time zone of the tables' times (the client's ``timezone``), e.g. ``"+08:00"``.

        Examples
        --------
        >>> client.tables.timezone
        '+08:00'
        """
    def service_tasks(self) -> Awaitable[Table]:
        """Every service task (all pages) as one table.

        Returns
        -------
        Table
            ``task_id``, ``task_name``, ``task_type``, ``frequency``, ``last_check_time``,
            ``task_status``.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.tables.service_tasks().num_rows
        120
        """
    def site_tasks(self) -> Awaitable[Table]:
        """Every site task (all pages) as one table.

        Returns
        -------
        Table
            ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ``task_create_time``, ``frequency``, ``task_status``, ``group_id``,
            ``last_resp_time`` (ms), ``last_resp_result``, ``last_resp_status``,
            ``threshold_result``, ``last_check_time``; null where the service left a
            field out.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.tables.site_tasks().to_pandas()[["task_id", "task_name", "frequency"]]
        """
    def monitors(self) -> Awaitable[Table]:
        """The monitoring points as a table.

        Returns
        -------
        Table
            ``monitor_id``, ``monitor_name``, ``isp_id``, ``isp_name``, ``location_code``,
            ``location_name``, ``china_region``, ``world_region``; null where absent.

        Raises
        ------
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``).
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.

        Examples
        --------
        >>> client.tables.monitors().to_pandas().set_index("monitor_id")["monitor_name"]
        """
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[Table]:
        """A service task's report as a long table: one row per record and metric.

        Parameters
        ----------
        task_id : int or str
            A service task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today in the client's time zone.

        Returns
        -------
        Table
            ``task_id``, ``series``, ``time``, ``metric``, ``value``.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.
        StoreError
            The client's store (``store=``) cannot be read or written.

        Examples
        --------
        >>> t = client.tables.service_report(10001, start_date="2026-11-01", end_date="2026-11-07")
        >>> t.to_pandas().pivot_table(index="time", columns="metric", values="value")
        """
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> Awaitable[SiteTables]:
        """A site task's report as three tables.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today in the client's time zone.
        monitor : int or str, optional
            ``None`` (every monitoring point and the average), ``0`` (the average) or a
            point's id.

        Returns
        -------
        SiteTables
            ``availability``, ``response_time`` and ``faults``.

        Raises
        ------
        ValidationError
            ``task_id`` or ``monitor`` is not a valid id, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.
        StoreError
            The client's store (``store=``) cannot be read or written.

        Examples
        --------
        >>> availability, response_time, faults = client.tables.site_report(20001)
        """
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[Table]:
        """A site task's response-time distribution as a table.

        Parameters
        ----------
        task_id : int or str
            A site task id.
        start_date, end_date : datetime.date or str, optional
            The period; each defaults to today in the client's time zone.

        Returns
        -------
        Table
            ``task_id``, ``start_ms``, ``end_ms``, ``count``, ``percent``.

        Raises
        ------
        ValidationError
            ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ``start_date`` is after ``end_date`` (nothing is sent).
        ApiError
            The service answered with an error (``status_code``, ``code``, ``message``),
            e.g. for a task the account does not have.
        AuthError
            The service refused the credentials (:class:`InvalidClientError`,
            :class:`InvalidGrantError`).
        TimeoutError
            No complete answer within ``timeout``.
        ConnectionError
            No connection, or it broke (a read is retried ``max_retries`` times first).
        DecodeError
            The answer is not the JSON the operation returns.
        StoreError
            The client's store (``store=``) cannot be read or written.

        Examples
        --------
        >>> client.tables.response_time_distribution(20001).to_pandas()
        """
    def service_reports(
        self,
        task_ids: Sequence[_TaskId] | None = None,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        concurrency: int | None = None,
        progress: _Progress = None,
        errors: _Errors = "raise",
    ) -> Awaitable[Table]:
        """The service reports of many tasks as one table, fetched ``concurrency`` at a time.

        Its rows are those of the single calls, task after task in the order asked for.
        Ctrl-C stops the call and cancels every request in flight.

        Parameters
        ----------
        task_ids : list of int or str, optional
            The tasks; ``None`` (default) is every service task (the list is read first).
        start_date, end_date : datetime.date or str, optional
            The period, the same for every task.
        concurrency : int, optional
            Tasks fetched at once, 1 to 256 (default 8, the core's).
        progress : bool or callable, optional
            ``True``: a tqdm bar (``tqdm.auto``, so it renders in Jupyter; ``pip install
            'monapi[progress]'``). A callable receives a :class:`monapi.types.Progress` dict
            (``done``, ``total``, ``failed``, ``bytes``, ``rows``) at the start and after each
            task, on the thread that waits for the call (the event loop's, with AsyncClient).
        errors : {"raise", "collect"}, default "raise"
            When tasks fail: ``"raise"`` a :class:`PartialResultError` carrying the table of
            the others and the failures; ``"collect"``: return the table, with the failures
            in its ``failures``.

        Returns
        -------
        Table
            The rows of every task that succeeded (``failures`` lists the others).

        Raises
        ------
        PartialResultError
            Some tasks failed (``errors="raise"``).
        ValidationError
            A bad argument (nothing is sent).
        MonapiError
            No token or no task list, before any report (:class:`AuthError`, :class:`ApiError`,
            :class:`TimeoutError` ...); a task that fails is one of the failures instead.

        Examples
        --------
        >>> week = client.tables.service_reports(start_date="2026-11-01", end_date="2026-11-07",
        ...                                      progress=True)
        >>> week.to_pandas().groupby(["task_id", "metric"])["value"].max()
        """
    def site_reports(
        self,
        task_ids: Sequence[_TaskId] | None = None,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
        concurrency: int | None = None,
        progress: _Progress = None,
        errors: _Errors = "raise",
    ) -> Awaitable[SiteTables]:
        """The site reports of many tasks as one :class:`SiteTables`, fetched ``concurrency`` at
        a time (the same ``monitor`` for every task).

        Parameters
        ----------
        task_ids : list of int or str, optional
            The tasks; ``None`` (default) is every site task (the site task list is read
            first).
        start_date, end_date : datetime.date or str, optional
            The period, the same for every task.
        monitor : int or str, optional
            ``None`` (every monitoring point and the average), ``0`` (the average) or a
            point's id, the same for every task.
        concurrency : int, optional
            Tasks fetched at once, 1 to 256 (default 8, the core's).
        progress : bool or callable, optional
            ``True``: a tqdm bar; a callable receives a :class:`monapi.types.Progress` dict
            at the start and after each task (as for :meth:`service_reports`).
        errors : {"raise", "collect"}, default "raise"
            When tasks fail: ``"raise"`` a :class:`PartialResultError` carrying the tables of
            the others and the failures; ``"collect"``: return the tables, with the failures
            in its ``failures``.

        Returns
        -------
        SiteTables
            The three tables of every task that succeeded (``failures`` lists the others).

        Raises
        ------
        PartialResultError
            Some tasks failed (``errors="raise"``).
        ValidationError
            A bad argument (nothing is sent).
        MonapiError
            No token or no task list, before any report (:class:`AuthError`, :class:`ApiError`,
            :class:`TimeoutError` ...); a task that fails is one of the failures instead.

        Examples
        --------
        >>> site = client.tables.site_reports([20001, 20002], start_date="2026-11-01")
        >>> site.faults.to_pandas()
        >>> every_site = client.tables.site_reports(start_date="2026-11-01")
        """

@final
class Emulator:
    """The bundled emulator of the monitoring service, running in this process.

    It serves every endpoint of the API on ``127.0.0.1`` and a free port, from data
    generated from ``seed``, with the demo account (``client_id``, ``client_secret``,
    ``username``, ``password``). Use it as a context manager or a pytest fixture; it stops
    when closed, on :meth:`stop`, or when garbage collected (so keep a reference to it while
    its clients are in use: ``Emulator().client()`` alone leaves a client of a stopped
    emulator). Its ``repr`` shows no credential.

    Parameters
    ----------
    seed : int, default 42
        Seed of the generated data.
    token_ttl : float, default 3600
        Lifetime of the access tokens it issues, in seconds (at most 2^32 - 1).
    latency : float, default 0
        Seconds it waits before answering each API request (at most 2147483.647, about
        24.9 days, the range of every language's emulator).
    service_tasks : int, default 120
        Number of service tasks, at most 100,000 (ids from 10001; 120 make three pages).
        Created server tasks get ids from 30001, created service tasks from 200001.
    site_tasks : int, default 5
        Number of site tasks, at most 100,000 (ids from 20001; 51 make two pages of the
        site task list).
    refresh_token_ttl : float, default 1209600
        Lifetime of the refresh tokens it issues, in seconds (14 days by default, as the
        service's OAuth server; at most 2^32 - 1). A refresh with an older one gets
        ``invalid_grant``.
    tls : bool, default False
        Serve HTTPS, with a certificate signed by a private CA made at start (see
        :attr:`ca_pem` and :attr:`ca_path`; :meth:`client` trusts it already), as a
        company's own CA signs its internal services.
    timezone : str, default "+08:00"
        The time zone of its days, "today" and the ``HH:MM`` times of service reports, as
        an offset from UTC (``"+08:00"``, ``"-05:30"``, ``"UTC"``): the service's own zone by
        default.
    bandwidth_mbps : float, optional
        The bandwidth of a modelled wide-area link, in Mbit/s (0.01 to 100000): answers are
        written paced, all connections sharing it as one link. Unlimited by default.
    rtt_ms : float, default 0
        The round trip of that link, in milliseconds (at most 10000): each new connection
        waits it once (twice with ``tls``), each answer once more.
    compression : list of str, default ["gzip", "deflate"]
        The encodings it compresses answers with when a request accepts them, the first
        accepted winning, as the service's front end gzips; ``[]`` never compresses.
    world : {"realistic", "stressed"}, default "realistic"
        Sites up at almost every check with rare faults, or the stressed world of faults in
        every report (a point of each site down today), for benchmarks.
    now : datetime or str, optional
        Fix its clock at this instant (an aware ``datetime``, RFC 3339 text, or a local date
        and time such as ``"2026-11-01 10:02"``): no report has a check after it, and "today"
        is its day. The system clock by default. See :meth:`set_now`.

    Raises
    ------
    ValidationError
        A setting is out of its range or malformed (``field`` names it).
    RuntimeError
        The emulator could not start (no free port, no thread).

    Examples
    --------
    >>> from monapi.testing import Emulator
    >>> with Emulator() as emulator:
    ...     client = emulator.client()
    ...     print(len(client.service_tasks()))
    50

    As a pytest fixture:

    >>> import pytest
    >>> @pytest.fixture
    ... def emulator():
    ...     with Emulator(token_ttl=2) as emulator:
    ...         yield emulator
    """
    def __init__(
        self,
        *,
        seed: int = 42,
        token_ttl: float = 3600.0,
        latency: float = 0.0,
        service_tasks: int = 120,
        site_tasks: int = 5,
        refresh_token_ttl: float = 1209600.0,
        timezone: str | None = None,
        tls: bool = False,
        compression: Sequence[Literal["gzip", "deflate"]] | None = None,
        bandwidth_mbps: float | None = None,
        rtt_ms: float = 0.0,
        world: Literal["realistic", "stressed"] | None = None,
        now: datetime.datetime | str | None = None,
    ) -> None: ...
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (``https://`` with ``tls=True``): pass it as ``base_url``.

        Examples
        --------
        >>> emulator.base_url.startswith("http://127.0.0.1:")
        True
        """
    @property
    def now(self) -> datetime.datetime:
        """The emulator's clock, an aware ``datetime`` in UTC: no report has a check after it.

        Examples
        --------
        >>> Emulator(now="2026-11-01T10:02:00+08:00").now.isoformat()
        '2026-11-01T02:02:00+00:00'
        """
    @property
    def world(self) -> Literal["realistic", "stressed"]:
        """The world of its reports, ``"realistic"`` or ``"stressed"``.

        Examples
        --------
        >>> Emulator(world="stressed").world
        'stressed'
        """
    def set_now(self, now: datetime.datetime | str | None) -> None:
        """Fix its clock at ``now`` (as the ``now`` option takes it), or with ``None`` make it
        follow the system clock, from the next request on.

        Parameters
        ----------
        now : datetime or str or None
            An aware ``datetime``, RFC 3339 text, or a local date and time in its
            ``timezone`` such as ``"2026-11-01 10:02"``; ``None``: the system clock.

        Raises
        ------
        ValidationError
            ``now`` is before 00:00 of the day its task lists were built for (its clock's day
            at start; their last checks would come after it), or not an instant.
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.set_now("2026-11-01 10:02")
        """
    def advance(self, seconds: float) -> datetime.datetime:
        """Fix its clock ``seconds`` later than its reading.

        Parameters
        ----------
        seconds : float
            How far to move it, 0 to 4294967295 seconds.

        Returns
        -------
        datetime
            The new reading, an aware ``datetime`` in UTC (as :attr:`now`).

        Raises
        ------
        ValidationError
            ``seconds`` is negative, NaN or too large, or the clock would pass the last
            instant it can read (nothing changes).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> later = emulator.advance(300)
        """
    @property
    def timezone(self) -> str:
        """The time zone of its days, as an offset from UTC (``"+08:00"`` unless started with
        another ``timezone``).

        Examples
        --------
        >>> Emulator(timezone="UTC").timezone
        '+00:00'
        """
    @property
    def ca_pem(self) -> str | None:
        """The private CA's certificate (PEM text) when the emulator serves HTTPS
        (``Emulator(tls=True)``), else ``None``. :meth:`client` trusts it already.

        Examples
        --------
        >>> with Emulator(tls=True) as emulator:
        ...     client = monapi.Client(
        ...         base_url=emulator.base_url, ca_bundle=emulator.ca_pem.encode(),
        ...         client_id=emulator.client_id, client_secret=emulator.client_secret,
        ...         username=emulator.username, password=emulator.password)
        """
    @property
    def ca_path(self) -> str | None:
        """The path of a file holding :attr:`ca_pem` (removed when the emulator stops) when the
        emulator serves HTTPS, else ``None``: give it as ``ca_bundle`` or ``SSL_CERT_FILE``.

        Examples
        --------
        >>> with Emulator(tls=True) as emulator:
        ...     client = emulator.client()      # trusts the CA already
        ...     other = monapi.Client(base_url=emulator.base_url, ca_bundle=emulator.ca_path, ...)
        """
    @property
    def client_id(self) -> str:
        """The demo client id (``demo_id``).

        Examples
        --------
        >>> emulator.client_id
        'demo_id'
        """
    @property
    def client_secret(self) -> str:
        """The demo client secret.

        Examples
        --------
        >>> client = monapi.Client(base_url=emulator.base_url, client_id=emulator.client_id,
        ...     client_secret=emulator.client_secret, username=emulator.username,
        ...     password=emulator.password)
        """
    @property
    def username(self) -> str:
        """The demo account's login (``test@example.com``).

        Examples
        --------
        >>> emulator.username
        'test@example.com'
        """
    @property
    def password(self) -> str:
        """The demo account's password (plain text).

        Examples
        --------
        >>> client = emulator.client(password=emulator.password)
        """
    @property
    def running(self) -> bool:
        """Whether it is serving (not stopped).

        Examples
        --------
        >>> emulator.stop()
        >>> emulator.running
        False
        """
    def client(self, **overrides: Any) -> Client:
        """A :class:`monapi.Client` for the demo account of this emulator.

        Parameters
        ----------
        **overrides
            Any :class:`monapi.Client` keyword, e.g. ``timeout=0.5`` or
            ``client_secret="wrong"``.

        Returns
        -------
        Client
            A client of ``base_url`` with the demo credentials (trusting its CA with
            ``tls=True``), the overrides applied.

        Raises
        ------
        ValidationError
            An override breaks a rule of the client's settings (nothing is sent).
        TypeError
            An override is not a keyword of the client, or has a type it never takes.

        Examples
        --------
        >>> client = emulator.client(max_retries=0)
        >>> len(client.service_tasks())
        50
        """
    def async_client(self, **overrides: Any) -> AsyncClient:
        """A :class:`monapi.AsyncClient` for the demo account of this emulator.

        Parameters
        ----------
        **overrides
            Any :class:`monapi.AsyncClient` keyword.

        Returns
        -------
        AsyncClient
            As :meth:`client`, for asyncio.

        Raises
        ------
        ValidationError
            An override breaks a rule of the client's settings (nothing is sent).
        TypeError
            An override is not a keyword of the client, or has a type it never takes.

        Examples
        --------
        >>> async with emulator.async_client() as client:
        ...     agents = await client.agents()
        """
    def set_token_ttl(self, seconds: float) -> None:
        """Set the lifetime of the access tokens issued from now on.

        Parameters
        ----------
        seconds : float
            The lifetime, 0 to 4294967295 seconds (about 136 years).

        Raises
        ------
        ValidationError
            ``seconds`` is negative, NaN or too large (nothing changes).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.set_token_ttl(1.0)
        """
    def set_latency(self, seconds: float) -> None:
        """Set the delay before every API answer, from the next request on.

        Parameters
        ----------
        seconds : float
            The delay, 0 to 2147483.647 seconds (about 24.9 days).

        Raises
        ------
        ValidationError
            ``seconds`` is negative, NaN or too large (nothing changes).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.set_latency(0.5)
        """
    def set_faults(
        self,
        *,
        error_500: float = 0.0,
        error_503: float = 0.0,
        error_429: float = 0.0,
        retry_after_secs: int = 0,
        drop_connection: float = 0.0,
        truncated_body: float = 0.0,
        malformed_body: float = 0.0,
        corrupt_gzip: float = 0.0,
        next: Sequence[
            Literal[
                "error_500",
                "error_503",
                "error_429",
                "error500",
                "error503",
                "error429",
                "drop_connection",
                "truncated_body",
                "malformed_body",
                "corrupt_gzip",
            ]
        ]
        | None = None,
    ) -> None:
        """Inject faults into the API answers (replacing earlier settings).

        Faults in ``next`` are served first, one per request in order; after that each
        request gets a fault with the given share (0.0 to 1.0). Call with no argument to
        turn faults off. Settings the emulator refuses change nothing.

        Parameters
        ----------
        error_500, error_503, error_429 : float, default 0.0
            Shares of requests answered with that HTTP error (503 and 429 with
            ``Retry-After``).
        retry_after_secs : int, default 0
            The ``Retry-After`` value sent with 429 and 503.
        drop_connection : float, default 0.0
            Share of requests whose connection is closed without an answer.
        truncated_body : float, default 0.0
            Share of answers cut in half.
        malformed_body : float, default 0.0
            Share of answers that are an HTML error page instead of JSON.
        corrupt_gzip : float, default 0.0
            Share of answers sent as gzip that does not decompress.
        next : list of str, optional
            Faults for the next requests: ``"error_500"``, ``"error_503"``,
            ``"error_429"``, ``"drop_connection"``, ``"truncated_body"``,
            ``"malformed_body"``, ``"corrupt_gzip"``.

        Raises
        ------
        ValidationError
            A share outside 0.0 to 1.0 (or NaN), or an unknown fault in ``next``; ``field``
            names it (``"error_503"``, ``"next"``).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.set_faults(next=["error_503", "drop_connection"])
        >>> emulator.set_faults()   # off
        """
    def set_quirks(
        self,
        *,
        past_end_page: Literal["array", "object", "null", "status"] = "array",
        no_agents: bool = False,
        no_checks: bool = False,
        keyed_lists: bool = False,
        rotating_refresh_tokens: bool = False,
    ) -> None:
        """Make some answers take the shapes the real service (a PHP application) may send
        (replacing earlier settings; call with no argument to turn them all off).

        PHP's ``json_encode`` writes an empty keyed array as ``[]``. The quirks apply from the
        next request on; :meth:`reset` turns them off.

        Parameters
        ----------
        past_end_page : {"array", "object", "null", "status"}, default "array"
            The body of a service task list page past the last one: ``[]``, ``{}``, ``null``
            or ``{"code":0,"msg":"no more data"}``.
        no_agents : bool, default False
            The account has no agents: the agent list is ``[]`` (and no plugin can be used
            when creating server tasks).
        no_checks : bool, default False
            Every range has no checks: a service report and a response-time distribution are
            ``[]``; a site report keeps its monitoring points, each with ``"uprate": []``,
            ``"fault": []`` and ``"resptime": []``.
        keyed_lists : bool, default False
            The site task list, the monitoring points, the users and the groups arrive as PHP
            keyed arrays (JSON objects keyed by id) instead of lists, as the agent list does.
        rotating_refresh_tokens : bool, default False
            The refresh grant issues a new refresh token and retires the one used (by
            default, as the service's OAuth server, it issues none and the used one stays
            valid).

        Raises
        ------
        ValidationError
            ``past_end_page`` is not one of the four names (``field`` is ``"past_end_page"``).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.set_quirks(past_end_page="object", no_agents=True)
        >>> emulator.client().service_tasks(page=4)   # the service sent {}
        >>> emulator.set_quirks()   # off
        """
    def expire_tokens(self) -> None:
        """Make every access token issued so far expire now (refresh tokens stay valid).

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.expire_tokens()
        """
    def revoke_refresh_tokens(self) -> None:
        """Make every refresh token invalid: the next refresh gets ``invalid_grant``.

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.revoke_refresh_tokens()
        """
    def expire_refresh_tokens(self) -> None:
        """Make every refresh token issued so far expire now: the next refresh gets
        ``invalid_grant``, "Refresh token has expired".

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.expire_refresh_tokens()
        """
    def reset(self) -> None:
        """Back to the state at start: counters zero, knobs as started (no faults, no quirks, the
        clock as configured), created tasks gone, every token revoked, no site failing, every
        removed task back.

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.reset()
        >>> emulator.counters()["total"]
        0
        """
    def counters(self) -> dict[str, Any]:
        """Requests served so far, by endpoint.

        Returns
        -------
        dict
            ``token``, ``token_password``, ``token_refresh``, ``create``,
            ``service_tasks``, ``agents``, ``service_report``, ``site_report``,
            ``distribution``, ``site_tasks``, ``site_task``, ``monitors``, ``users``,
            ``groups``, ``create_service`` and ``total``; ``connections`` counts the TCP connections
            accepted (over HTTPS too, even when the client refused the certificate),
            ``peak_in_progress`` the most API requests in progress at once, ``compressed`` the
            answers sent compressed, ``traced`` the API requests that carried a
            ``traceparent`` header, and ``traceparent`` the last one's (``None`` before any).

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.counters()["token_refresh"]
        0
        """
    def server_tasks(self) -> list[dict[str, _Json]]:
        """The server tasks created so far, as stored (the submitted fields plus ``task_id``).

        Returns
        -------
        list of dict
            One dict per task created through this emulator.

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> [t["server_name"] for t in emulator.server_tasks()]
        ['web-01']
        """
    def created_service_tasks(self) -> list[dict[str, _Json]]:
        """The service tasks created so far, as stored (the submitted fields plus ``task_id``).

        Returns
        -------
        list of dict
            One dict per task created through this emulator.

        Raises
        ------
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> [t["task_type"] for t in emulator.created_service_tasks()]
        ['nginx']
        """
    def fail_site(self, task_id: _TaskId) -> int:
        """Make site task ``task_id`` fail from now on, at every monitoring point.

        From the site's last check at or before this moment (the moment rounded down to its
        frequency), every check of every point fails: ``uprate`` ``"0.00"`` (the average's
        too) and response times of ``"0.00"``; each point has an ongoing fault (``end_time``
        ``"未结束"``) starting at that check, with a cause of the service's. Until
        :meth:`recover_site` or :meth:`reset`; a site already failing stays as it is.

        Parameters
        ----------
        task_id : int or str
            A site task of this emulator (20001, 20002, ...).

        Returns
        -------
        int
            The unix time of the first failed check (the faults' ``start_time``).

        Raises
        ------
        ValidationError
            ``task_id`` is not one of its site tasks (``field`` is ``"task_id"``).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> since = emulator.fail_site(20001)
        >>> report = client.site_report(20001)
        >>> report["0"]["uprate"][str(since)]["uprate"]
        '0.00'
        """
    def recover_site(self, task_id: _TaskId) -> int | None:
        """End the failure of site task ``task_id`` (:meth:`fail_site`).

        Its last check at or before this moment failed still; the check after it is up again
        and is the faults' ``end_time`` (no longer ``"未结束"``), and the checks from it on are
        as before the failure.

        Parameters
        ----------
        task_id : int or str
            A site task of this emulator.

        Returns
        -------
        int or None
            The unix time of the first check up again, or ``None`` when the site was not
            failing (nothing changes).

        Raises
        ------
        ValidationError
            ``task_id`` is not one of its site tasks.
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> up = emulator.recover_site(20001)
        """
    def remove_task(self, task_id: _TaskId) -> bool:
        """Take seeded task ``task_id`` out of the account, as a user deleting it in the
        service's console.

        From the next request on, its list (:meth:`monapi.Client.service_tasks` or
        :meth:`monapi.Client.site_tasks`) is paged without it, 50 a page (the later pages
        shift), and every operation naming it (reports, response-time distribution,
        :meth:`monapi.Client.site_task`) answers as for an id that does not exist. Until
        :meth:`restore_task` or :meth:`reset`.

        Parameters
        ----------
        task_id : int or str
            A service task (10001, 10002, ...) or a site task (20001, 20002, ...) of this
            emulator.

        Returns
        -------
        bool
            Whether anything changed (``False`` for a task removed already).

        Raises
        ------
        ValidationError
            ``task_id`` is not one of its seeded tasks (``field`` is ``"task_id"``).
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.remove_task(20002)
        True
        >>> [t["task_id"] for t in client.site_tasks()]
        ['20001', '20003', '20004', '20005']
        """
    def restore_task(self, task_id: _TaskId) -> bool:
        """Bring back task ``task_id`` taken out by :meth:`remove_task`, at its place in its list.

        Parameters
        ----------
        task_id : int or str
            A seeded task of this emulator.

        Returns
        -------
        bool
            Whether anything changed (``False`` for a task that was not removed).

        Raises
        ------
        ValidationError
            ``task_id`` is not one of its seeded tasks.
        RuntimeError
            The emulator is stopped.

        Examples
        --------
        >>> emulator.restore_task(20002)
        True
        """
    def stop(self) -> None:
        """Stop serving and wait for the server thread (idempotent).

        Examples
        --------
        >>> emulator.stop()
        """
    def __enter__(self) -> Self:
        """The emulator itself, for ``with Emulator() as emulator:``; the block's end stops it."""
    def __exit__(self, *_exc: object) -> bool:
        """Stop the emulator (:meth:`stop`) at the end of a ``with`` block; an exception of the
        block goes on.
        """

def _loads(data: bytes) -> Any:
    """The response decoder on its own: ``data``, a JSON body, as the Python objects every
    operation makes of the body it receives. For benchmarks and tests; not public API.
    """

def _loads_chunked(data: bytes, chunk_nodes: int) -> Any:
    """The decoder as the blocking client runs it on a large body: parsed on another thread in
    chunks of ``chunk_nodes`` nodes while this thread builds. For tests (small chunks put
    chunk boundaries everywhere); not public API.
    """

def _panic(where: str) -> Any:
    """A test hook that panics inside the native module, to show that a panic is a
    ``MonapiError`` and never takes the interpreter down. ``where`` is ``"call"`` (the future
    of a blocking call), ``"convert"`` (building its result), ``"async"`` (the future of an
    awaited call) or ``"async_convert"``; the async ones return an awaitable. Not public API.
    """

def _run_command(args: list[str]) -> int:
    """Runs the ``monapi`` command with ``args`` (the program's name first) and returns its exit
    code. The command reads and writes the process's own standard streams, and takes the
    signals as the binary does (SIGINT, SIGTERM and SIGHUP get their default action first).
    """

def _table_from_ipc(data: bytes, failures: list[tuple[int, MonapiError]]) -> Table:
    """Rebuilds a pickled ``Table`` from its Arrow IPC stream ``data`` and its ``failures``
    (what ``Table.__reduce__`` gives pickle). Not public API.
    """

def _restore(cls: type[Client | AsyncClient], state: dict[str, Any]) -> Any:
    """Rebuilds a pickled client of class ``cls`` from its ``state`` (what
    ``Client.__reduce__`` gives pickle). Not public API.
    """
