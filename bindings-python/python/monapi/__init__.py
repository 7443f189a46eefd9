"""monapi: a client for the monitoring service's HTTP API.

OAuth tokens that look after themselves, batch creation of server and service monitoring
tasks (validated before sending), the service task, site task, agent, monitoring point, user
and group lists, and monitoring data (service reports, site reports, response-time
distributions). One Rust core does the
work; results are plain dicts and lists with the API's own keys and values.

- :class:`Client`: blocking; releases the GIL while it waits; share it between threads.
- :class:`AsyncClient`: asyncio; works in scripts and in Jupyter's running loop.
- ``client.tables``: the reports as :class:`Table` objects (Arrow), ready for pandas,
  polars, pyarrow or DuckDB in one call; many tasks at once with a progress bar.
- ``store=`` and ``client.sync()``: a local Parquet store of the report tables (one file per
  task and day), which the table calls read and DuckDB, polars, pyarrow or Dask read too.
- :mod:`monapi.types`: TypedDicts of the plain results.
- :mod:`monapi.errors`: the exceptions, all under :class:`MonapiError`.
- :mod:`monapi.testing`: the bundled emulator of the service, for tests and notebooks.

Logging goes to the ``monapi`` logger: requests, retries and token renewals at DEBUG,
with every secret redacted.

Examples
--------
>>> import monapi
>>> client = monapi.Client()   # MONAPI_BASE_URL, MONAPI_CLIENT_ID, ... from the environment
>>> tasks = client.service_tasks()
>>> report = client.service_report(tasks[0]["task_id"], start_date="2026-11-01")
>>> df = client.tables.service_report(tasks[0]["task_id"], start_date="2026-11-01").to_pandas()
"""

from monapi import errors, testing, types
from monapi._native import (
    PAGE_SIZE,
    AsyncClient,
    AsyncTables,
    AsyncTaskIterator,
    Client,
    Table,
    Tables,
    TaskIterator,
    __version__,
)
from monapi._token import Token
from monapi.errors import (
    ApiError,
    AuthError,
    ConnectionError,
    DecodeError,
    InvalidClientError,
    InvalidGrantError,
    MonapiError,
    PartialCreateError,
    PartialResultError,
    StoreError,
    TimeoutError,
    ValidationError,
)
from monapi.tables import SiteTables

__all__ = [
    "PAGE_SIZE",
    "ApiError",
    "AsyncClient",
    "AsyncTables",
    "AsyncTaskIterator",
    "AuthError",
    "Client",
    "ConnectionError",
    "DecodeError",
    "InvalidClientError",
    "InvalidGrantError",
    "MonapiError",
    "PartialCreateError",
    "PartialResultError",
    "SiteTables",
    "StoreError",
    "Table",
    "Tables",
    "TaskIterator",
    "TimeoutError",
    "Token",
    "ValidationError",
    "__version__",
    "errors",
    "testing",
    "types",
]
