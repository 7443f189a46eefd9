# Typed stubs of the native module monapi._native (bindings-python/src).
# tests/python/test_stubs.py checks every name and signature here against the loaded
# module, in both directions, so the two cannot drift.

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

__version__: str
PAGE_SIZE: int
# The settings a client takes by keyword, as the core declares them.
SETTINGS: tuple[str, ...]
DEMO_CLIENT_ID: str
DEMO_CLIENT_SECRET: str
DEMO_USERNAME: str
DEMO_PASSWORD: str

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
    def __new__(
        cls,
        *,
        base_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_md5: str | None = None,
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
        settle: float | None = None,
        token: Mapping[str, Any] | None = None,
        on_token: Callable[[Token], object] | None = None,
    ) -> Self: ...
    def login(self) -> Token: ...
    def refresh(self) -> Token: ...
    @property
    def token(self) -> Token | None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    @property
    def tables(self) -> Tables: ...
    def create_server_tasks(self, tasks: _Tasks) -> list[CreatedTask]: ...
    def create_service_tasks(self, tasks: _Tasks) -> list[CreatedTask]: ...
    def service_tasks(self, page: int = 1) -> list[ServiceTask]: ...
    def iter_service_tasks(self) -> TaskIterator[ServiceTask]: ...
    def site_tasks(self, page: int = 1) -> _Records[SiteTask]: ...
    def iter_site_tasks(self) -> TaskIterator[SiteTask]: ...
    def site_task(self, task_id: _TaskId) -> SiteTaskSettings: ...
    def monitors(self) -> _Records[MonitorPoint]: ...
    def users(self) -> _Records[User]: ...
    def user_groups(self) -> _Records[UserGroup]: ...
    def agents(self) -> AgentList: ...
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> ServiceReport: ...
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> SiteReport: ...
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Distribution: ...
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
    ) -> SyncReport: ...
    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, _Param] | None = None,
        form: Mapping[str, _Param] | None = None,
    ) -> _Json: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *_exc: object) -> bool: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class AsyncClient:
    def __new__(
        cls,
        *,
        base_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_md5: str | None = None,
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
        settle: float | None = None,
        token: Mapping[str, Any] | None = None,
        on_token: Callable[[Token], object] | None = None,
    ) -> Self: ...
    def login(self) -> Awaitable[Token]: ...
    def refresh(self) -> Awaitable[Token]: ...
    @property
    def token(self) -> Token | None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    @property
    def tables(self) -> AsyncTables: ...
    def create_server_tasks(self, tasks: _Tasks) -> Awaitable[list[CreatedTask]]: ...
    def create_service_tasks(self, tasks: _Tasks) -> Awaitable[list[CreatedTask]]: ...
    def service_tasks(self, page: int = 1) -> Awaitable[list[ServiceTask]]: ...
    def iter_service_tasks(self) -> AsyncTaskIterator[ServiceTask]: ...
    def site_tasks(self, page: int = 1) -> Awaitable[_Records[SiteTask]]: ...
    def iter_site_tasks(self) -> AsyncTaskIterator[SiteTask]: ...
    def site_task(self, task_id: _TaskId) -> Awaitable[SiteTaskSettings]: ...
    def monitors(self) -> Awaitable[_Records[MonitorPoint]]: ...
    def users(self) -> Awaitable[_Records[User]]: ...
    def user_groups(self) -> Awaitable[_Records[UserGroup]]: ...
    def agents(self) -> Awaitable[AgentList]: ...
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[ServiceReport]: ...
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> Awaitable[SiteReport]: ...
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[Distribution]: ...
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
    ) -> Awaitable[SyncReport]: ...
    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, _Param] | None = None,
        form: Mapping[str, _Param] | None = None,
    ) -> Awaitable[_Json]: ...
    def close(self) -> None: ...
    def __aenter__(self) -> Awaitable[Self]: ...
    def __aexit__(self, *_exc: object) -> Awaitable[bool]: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class Awaitable(Coroutine[Any, Any, _T]):
    def __await__(self) -> Generator[Any, None, _T]: ...
    def __next__(self) -> Any: ...
    def send(self, _value: Any) -> Any: ...
    def throw(self, typ: Any, val: Any = None, tb: TracebackType | None = None) -> Any: ...
    def close(self) -> None: ...

@final
class TaskIterator(Generic[_Item]):
    def __iter__(self) -> Self: ...
    def __next__(self) -> _Item: ...

@final
class AsyncTaskIterator(Generic[_Item]):
    def __aiter__(self) -> Self: ...
    def __anext__(self) -> Awaitable[_Item]: ...

_Progress: TypeAlias = bool | Callable[[Progress], object] | None

@final
class Table:
    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    @property
    def schema(self) -> dict[str, str]: ...
    @property
    def failures(self) -> list[tuple[int, MonapiError]]: ...
    def __len__(self) -> int: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    def to_arrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class Tables:
    @property
    def timezone(self) -> str: ...
    def service_tasks(self) -> Table: ...
    def site_tasks(self) -> Table: ...
    def monitors(self) -> Table: ...
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Table: ...
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> SiteTables: ...
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Table: ...
    def service_reports(
        self,
        task_ids: Sequence[_TaskId] | None = None,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        concurrency: int | None = None,
        progress: _Progress = None,
        errors: _Errors = "raise",
    ) -> Table: ...
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
    ) -> SiteTables: ...

@final
class AsyncTables:
    @property
    def timezone(self) -> str: ...
    def service_tasks(self) -> Awaitable[Table]: ...
    def site_tasks(self) -> Awaitable[Table]: ...
    def monitors(self) -> Awaitable[Table]: ...
    def service_report(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[Table]: ...
    def site_report(
        self,
        task_id: _TaskId,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        monitor: int | str | None = None,
    ) -> Awaitable[SiteTables]: ...
    def response_time_distribution(
        self, task_id: _TaskId, *, start_date: _Date | None = None, end_date: _Date | None = None
    ) -> Awaitable[Table]: ...
    def service_reports(
        self,
        task_ids: Sequence[_TaskId] | None = None,
        *,
        start_date: _Date | None = None,
        end_date: _Date | None = None,
        concurrency: int | None = None,
        progress: _Progress = None,
        errors: _Errors = "raise",
    ) -> Awaitable[Table]: ...
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
    ) -> Awaitable[SiteTables]: ...

@final
class Emulator:
    def __new__(
        cls,
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
    ) -> Self: ...
    @property
    def base_url(self) -> str: ...
    @property
    def now(self) -> datetime.datetime: ...
    @property
    def world(self) -> Literal["realistic", "stressed"]: ...
    def set_now(self, now: datetime.datetime | str | None) -> None: ...
    def advance(self, seconds: float) -> datetime.datetime: ...
    @property
    def timezone(self) -> str: ...
    @property
    def ca_pem(self) -> str | None: ...
    @property
    def ca_path(self) -> str | None: ...
    @property
    def client_id(self) -> str: ...
    @property
    def client_secret(self) -> str: ...
    @property
    def username(self) -> str: ...
    @property
    def password(self) -> str: ...
    @property
    def running(self) -> bool: ...
    def client(self, **overrides: Any) -> Client: ...
    def async_client(self, **overrides: Any) -> AsyncClient: ...
    def set_token_ttl(self, seconds: float) -> None: ...
    def set_latency(self, seconds: float) -> None: ...
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
    ) -> None: ...
    def set_quirks(
        self,
        *,
        past_end_page: Literal["array", "object", "null", "status"] = "array",
        no_agents: bool = False,
        no_checks: bool = False,
        keyed_lists: bool = False,
        rotating_refresh_tokens: bool = False,
    ) -> None: ...
    def expire_tokens(self) -> None: ...
    def revoke_refresh_tokens(self) -> None: ...
    def expire_refresh_tokens(self) -> None: ...
    def reset(self) -> None: ...
    def counters(self) -> dict[str, int]: ...
    def server_tasks(self) -> list[dict[str, _Json]]: ...
    def created_service_tasks(self) -> list[dict[str, _Json]]: ...
    def fail_site(self, task_id: _TaskId) -> int: ...
    def recover_site(self, task_id: _TaskId) -> int | None: ...
    def remove_task(self, task_id: _TaskId) -> bool: ...
    def restore_task(self, task_id: _TaskId) -> bool: ...
    def stop(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *_exc: object) -> bool: ...

def _loads(data: bytes) -> Any: ...
def _loads_chunked(data: bytes, chunk_nodes: int) -> Any: ...
def _panic(where: str) -> Any: ...
def _table_from_ipc(data: bytes, failures: list[tuple[int, MonapiError]]) -> Table: ...
def _restore(cls: type[Client | AsyncClient], state: dict[str, Any]) -> Any: ...
