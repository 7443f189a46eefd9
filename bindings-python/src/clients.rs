//! `monapi.Client` (blocking: every call waits without holding the GIL) and
//! `monapi.AsyncClient` (asyncio: every call returns an awaitable), declared once: each
//! method is written once in `client_methods!`, which makes the class of each mode
//! (`mode.rs`).

use std::sync::Arc;

use monapi::{Method, Monitor, Request, TaskList};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::PyTraverseError;

use crate::args::{date_range, Day, MonitorArg, Number, Page, Params, TaskId};
use crate::bridge::Awaitable;
use crate::encode::{server_tasks, service_tasks};
use crate::errors::to_pyerr;
use crate::mode::{Async, Blocking, Mode};
use crate::options;
use crate::pages::{AsyncTaskIterator, TaskIterator};
use crate::pickle;
use crate::shared::Shared;
use crate::sync::{Kinds, SyncCall};
use crate::tables::{AsyncTables, Tables};

/// The `Request::Raw` of `request()` (the core checks the method, the path and the names).
fn raw_request(
    py: Python<'_>,
    method: &str,
    path: String,
    params: Option<Params>,
    form: Option<Params>,
) -> PyResult<Request> {
    Ok(Request::Raw {
        method: Method::parse(method).map_err(|e| to_pyerr(py, e))?,
        path,
        query: params.unwrap_or_default().0,
        form: form.unwrap_or_default().0,
    })
}

/// A blocking client of the monitoring service.
///
/// Every method waits for the service without holding the GIL, so other Python threads
/// keep running; one client can be shared by many threads. Tokens look after themselves:
/// the first call logs in, an expiring token is refreshed, a rejected one is renewed and
/// the call repeated once. Results are plain ``dict`` and ``list`` objects with the API's
/// own keys and values, exactly as the service sent them (strings stay strings).
///
/// All parameters are keyword-only; any left out is read from the environment:
/// ``MONAPI_BASE_URL``, ``MONAPI_CLIENT_ID``, ``MONAPI_CLIENT_SECRET``,
/// ``MONAPI_USERNAME``, ``MONAPI_PASSWORD``.
///
/// Parameters
/// ----------
/// base_url : str, optional
///     Where the service is, e.g. ``"https://api.example.com"``.
/// client_id, client_secret : str, optional
///     The registered API client.
/// username : str, optional
///     The account login (an e-mail address).
/// password : str, optional
///     The account password in plain text; only its MD5 is kept and sent.
/// password_md5 : str, optional
///     The password already hashed (32 hex digits), instead of ``password``.
/// token : dict, optional
///     A saved token (``client.token`` of an earlier run) to resume without logging in.
/// on_token : callable, optional
///     Called with every new token (a :class:`monapi.Token`) so it can be saved. It runs
///     on one of monapi's threads while the call that renewed the token waits, for both
///     clients: keep it short and thread-safe (write a file, put it in a queue; from an
///     ``AsyncClient``, hand work to the loop with ``loop.call_soon_threadsafe``), and do
///     not call the client from it. An exception it raises is logged at WARNING and
///     otherwise ignored. It is not pickled.
/// timeout : float, optional
///     Seconds one HTTP exchange may take: more than 0, at most 2147483.647 (about 24.8
///     days; default 30).
/// connect_timeout : float, optional
///     Seconds to make a connection (default 10; bounded as ``timeout``).
/// max_retries : int, optional
///     Retries of a read after a transient failure (a connection that failed or broke, a
///     body cut short, 429, 500, 502, 503, 504, a 2xx error page instead of JSON): 0 to 100
///     (default 2). A create is never repeated once it may have reached the service.
/// user_agent : str, optional
///     The ``User-Agent`` header (default ``monapi-python/<version>``).
/// ca_bundle : str, os.PathLike or bytes, optional
///     CA certificates to trust besides the system's store: a PEM file, or its text as
///     ``bytes`` (a company's own CA, a TLS-inspecting proxy's). The files named by
///     ``MONAPI_CA_BUNDLE``, ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE`` and the directories
///     of ``SSL_CERT_DIR`` are trusted too. A file that does not exist or holds no
///     certificate raises ``ValidationError``.
/// proxy : str or None, optional
///     The proxy for every call (``http://`` or ``https://``, with ``user:password@`` if it
///     needs them; HTTPS goes through it with ``CONNECT``). ``None`` means no proxy even when
///     the environment names one. Left out, the environment decides: ``HTTPS_PROXY``,
///     ``HTTP_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` (upper or lower case). The password is
///     never shown in an error, ``repr`` or log.
/// max_connections : int, optional
///     The most connections the client uses at once to the service, 1 to 10000 (default
///     100): at most this many calls are in flight, each on its own connection. Calls
///     beyond it wait for a free connection; the wait counts toward ``timeout``.
/// max_response_bytes : int, optional
///     The largest answer accepted, in bytes once decompressed (default 1 GiB). Answers
///     arrive compressed (gzip or deflate) when the service compresses them; a larger one
///     raises ``DecodeError`` naming this setting, without reading further.
/// timezone : str, optional
///     The time zone of the tables' times (``client.tables``) and of "today" for dates
///     left out: an offset from UTC such as ``"+08:00"`` or ``"UTC"`` (default ``"+08:00"``,
///     the service's zone).
/// store : str or os.PathLike, optional
///     A directory for a local Parquet store of the report tables (also
///     ``MONAPI_STORE``): ``client.tables`` then reads the settled days it holds and keeps
///     those it fetches, and :meth:`sync` brings it up to date. One file per task and day,
///     ``DIR/<kind>/day=YYYY-MM-DD/task-<id>.parquet``, which DuckDB, polars, pyarrow and
///     Dask read as a Hive-partitioned dataset. A store that cannot be read or written
///     raises :class:`StoreError` in the call that uses it.
/// settle : float, optional
///     Seconds after a day ends (in ``timezone``) before it counts as settled and is kept
///     in the store (default 7200, two hours); later days are fetched every time.
///
/// Raises
/// ------
/// ValidationError
///     When a required value is missing or malformed (nothing is sent).
///
/// Notes
/// -----
/// The client pickles (configuration and current token, secrets included) so that
/// multiprocessing, Dask or Ray workers can use it, and keeps working in a child process
/// after ``os.fork()``. ``repr()`` never shows a secret.
///
/// Examples
/// --------
/// >>> import monapi
/// >>> with monapi.Client(base_url="http://127.0.0.1:8080", client_id="demo_id",
/// ...                    client_secret="demo_secret", username="test@example.com",
/// ...                    password="123456") as client:
/// ...     tasks = client.service_tasks()
/// ...     report = client.service_report(tasks[0]["task_id"], start_date="2026-11-01")
#[pyclass(module = "monapi", frozen)]
pub struct Client {
    shared: Arc<Shared>,
}

/// An asyncio client of the monitoring service.
///
/// The same operations as :class:`Client`; each method returns a coroutine to ``await``
/// (or to hand to ``asyncio.gather``/``create_task``). The requests run on a Rust runtime
/// of their own, so the event loop only builds the results; many calls can be in flight at
/// once on one client.
///
/// It works in a script (``asyncio.run(main())``) and inside an already running loop, as
/// in Jupyter, where ``await client.agents()`` in a cell just works (no nest_asyncio).
///
/// Parameters are those of :class:`Client` (keyword-only, with the same ``MONAPI_*``
/// fallbacks).
///
/// Examples
/// --------
/// >>> import asyncio, monapi
/// >>> async def main():
/// ...     async with monapi.AsyncClient() as client:   # MONAPI_* variables
/// ...         tasks = await client.service_tasks()
/// ...         reports = await asyncio.gather(
/// ...             *(client.service_report(t["task_id"]) for t in tasks))
/// ...         async for task in client.iter_service_tasks():
/// ...             print(task["task_name"])
/// >>> asyncio.run(main())
#[pyclass(module = "monapi", frozen)]
pub struct AsyncClient {
    shared: Arc<Shared>,
}

/// The methods of a client class, once for both modes: `$mode` finishes each call (waits for
/// it, or returns an awaitable), `$output` is what a call returns, `$tables` and `$pages` the
/// classes of `client.tables` and of the task iterator, `$context_manager` the methods of
/// `with` or `async with`.
macro_rules! client_methods {
    ($class:ident, $mode:ty, $output:ty, $tables:ident, $pages:ident, { $($context_manager:tt)* }) => {
        #[pymethods]
        impl $class {

            #[new]
            #[pyo3(signature = (**options))]
            fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let shared = Shared::new(py, options::given(py, options)?)?;
                Ok($class {
                    shared: Arc::new(shared),
                })
            }

            /// Log in with the password grant now and return the new token.
            ///
            /// Calls log in by themselves when needed; use this to check the credentials early.
            ///
            /// Returns
            /// -------
            /// Token
            ///     The new token, also in ``client.token`` and passed to ``on_token``.
            ///
            /// Raises
            /// ------
            /// InvalidClientError
            ///     The service refused ``client_id``/``client_secret``.
            /// InvalidGrantError
            ///     The service refused the username or password.
            ///
            /// Examples
            /// --------
            /// >>> token = client.login()
            /// >>> token["token_type"]
            /// 'bearer'
            fn login(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "login", self.shared.login(py))
            }

            /// Get a new token with the refresh grant now and return it.
            ///
            /// Returns
            /// -------
            /// Token
            ///     The new token. It keeps the refresh token when the service sends none (the
            ///     service's default: its refresh token stays valid for 14 days).
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     There is no token to refresh yet (log in first).
            /// InvalidGrantError
            ///     The service refused the refresh token.
            ///
            /// Examples
            /// --------
            /// >>> _ = client.login()
            /// >>> client.refresh()["access_token"] == client.token["access_token"]
            /// True
            fn refresh(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "refresh", self.shared.refresh(py))
            }

            /// The current token (a :class:`monapi.Token` dict), or ``None`` before the first login.
            ///
            /// Save it (e.g. ``json.dumps(client.token)``) and pass it back as ``token=`` to
            /// resume without logging in. Its ``repr`` shows only the expiry.
            ///
            /// Examples
            /// --------
            /// >>> client.token is None
            /// True
            /// >>> _ = client.agents()
            /// >>> sorted(client.token)[:2]
            /// ['access_token', 'expires_at']
            #[getter]
            fn token(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
                self.shared.token_py(py)
            }

            /// The service's base URL.
            ///
            /// Examples
            /// --------
            /// >>> client.base_url
            /// 'http://127.0.0.1:8080'
            #[getter]
            fn base_url(&self) -> String {
                self.shared.settings.base_url.clone()
            }

            /// Whether :meth:`close` was called.
            ///
            /// Examples
            /// --------
            /// >>> client.close()
            /// >>> client.closed
            /// True
            #[getter]
            fn closed(&self) -> bool {
                self.shared.closed()
            }

            /// The calls that return tables (:class:`Tables`): the reports as :class:`Table`
            /// objects, ready for pandas, polars, pyarrow or DuckDB.
            ///
            /// Examples
            /// --------
            /// >>> df = client.tables.service_report(10001).to_pandas()
            #[getter]
            fn tables(&self) -> $tables {
                $tables::new(self.shared.clone())
            }

            /// Create server monitoring tasks in one batch.
            ///
            /// The whole batch is checked against the service's rules first; nothing is sent when a
            /// task breaks one, and the error names every problem of every task.
            ///
            /// Parameters
            /// ----------
            /// tasks : list of dict
            ///     Server tasks with the API's fields. Only ``server_name``, ``private_ip``,
            ///     ``server_ip`` and ``server_systype`` are required: every other field left out
            ///     (``frequency``, ``snmp_port``, ``snmp_v``, ``snmp_comm``, ``use_agent``,
            ///     ``alert_setting``, ``task_type`` ...) takes the default of the Rust core's
            ///     ``ServerTask::new``, where the table of defaults is (every 5 minutes, SNMP v2c on
            ///     port 161 with community ``public``, no agent plugins, alerts for the creator only,
            ///     every indicator the system allows). Numbers may be given as ints or strings. A key
            ///     the service does not know is refused (a misspelt field would otherwise take its
            ///     default unnoticed).
            ///
            /// Returns
            /// -------
            /// list of dict
            ///     One ``{"task_id": ...}`` per created task, as sent by the service.
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ///     ``rule``); ``index`` and ``field`` are the first one's.
            /// PartialCreateError
            ///     Some tasks failed (``failed_indices``); all the others were created.
            ///
            /// Examples
            /// --------
            /// >>> client.create_server_tasks([{
            /// ...     "server_name": "web-01", "private_ip": "192.168.1.10",
            /// ...     "server_ip": "203.0.113.10", "server_systype": 0, "frequency": 5,
            /// ...     "task_type": ["cpu", "mem"]}])
            /// [{'task_id': 30001}]
            fn create_server_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<$output> {
                let request = Request::CreateServerTasks(server_tasks(py, tasks)?);
                <$mode>::finish(py, "create_server_tasks", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Create service monitoring tasks in one batch.
            ///
            /// The whole batch is checked first against the rules of the service's documentation:
            /// nothing is sent when a task breaks one, and the error names every problem. The
            /// ``password`` of a task never appears in an error, a ``repr`` or a log line.
            ///
            /// Parameters
            /// ----------
            /// tasks : list of dict
            ///     Service tasks: ``task_name`` and ``task_type`` (apache, lighttpd, nginx,
            ///     mongodb, redis, memcache, mysql, tomcat, iis, sqlserver, oracle), the fields of
            ///     that type (``status_url``; ``ip``, ``port``, ``user``, ``password``;
            ///     ``appname``; ``logPath``), and optionally ``frequency`` (default 5),
            ///     ``use_agent`` and ``plugin_task_uselist_id``, and ``alert_setting`` (as for
            ///     server tasks; default: alerts for the creator only) or, without alerts,
            ///     ``open_scope`` (1-4) with ``organization`` or ``user_ids``.
            ///
            /// Returns
            /// -------
            /// list of dict
            ///     One ``{"task_id": ...}`` per created task, as sent by the service.
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ///     ``rule``).
            /// PartialCreateError
            ///     Some tasks failed (``failed_indices``); all the others were created. The batch
            ///     is never sent twice.
            ///
            /// Examples
            /// --------
            /// >>> client.create_service_tasks([{
            /// ...     "task_name": "orders-db", "task_type": "mysql", "ip": "192.168.1.20",
            /// ...     "port": 3306, "user": "monitor", "password": "..."}])
            /// [{'task_id': 200001}]
            fn create_service_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<$output> {
                let request = Request::CreateServiceTasks(service_tasks(py, tasks)?);
                <$mode>::finish(py, "create_service_tasks", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// One page of the service task list (50 tasks a page).
            ///
            /// Parameters
            /// ----------
            /// page : int, default 1
            ///     The page, counting from 1.
            ///
            /// Returns
            /// -------
            /// list of dict
            ///     Tasks with ``task_id``, ``task_name``, ``task_type``, ``frequency``,
            ///     ``last_check_time`` and ``task_status``, as sent (ids are strings).
            ///
            /// Examples
            /// --------
            /// >>> tasks = client.service_tasks(page=1)
            /// >>> tasks[0]["task_id"]
            /// '10001'
            #[pyo3(signature = (page = Page(1)), text_signature = "($self, page=1)")]
            fn service_tasks(&self, py: Python<'_>, page: Page) -> PyResult<$output> {
                let request = Request::ServiceTasks { page: page.0 };
                <$mode>::finish(py, "service_tasks", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Every service task, page after page, fetched as the iteration reaches them.
            ///
            /// Stops after the first page with fewer than 50 tasks; an empty page, however the
            /// service writes it (``[]``, ``{}`` or ``null``), is the last. A page that is neither
            /// a list nor empty raises :class:`DecodeError`.
            ///
            /// Returns
            /// -------
            /// TaskIterator
            ///     An iterator of task dicts.
            ///
            /// Examples
            /// --------
            /// >>> names = [task["task_name"] for task in client.iter_service_tasks()]
            fn iter_service_tasks(&self) -> $pages {
                $pages::new(self.shared.clone(), TaskList::Service)
            }

            /// One page of the site task list (up to 50 tasks a page), as sent.
            ///
            /// Parameters
            /// ----------
            /// page : int, default 1
            ///     The page, counting from 1.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Tasks with ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ///     ``frequency``, ``task_status``, ``last_resp_time``, ``last_check_time`` ... as
            ///     sent (ids are strings); a page the service sends as an object keyed by task id
            ///     stays one (:meth:`iter_site_tasks` and ``tables.site_tasks()`` read both).
            ///
            /// Examples
            /// --------
            /// >>> sites = client.site_tasks(page=1)
            /// >>> sites[0]["task_id"]
            /// '20001'
            #[pyo3(signature = (page = Page(1)), text_signature = "($self, page=1)")]
            fn site_tasks(&self, py: Python<'_>, page: Page) -> PyResult<$output> {
                let request = Request::SiteTasks { page: page.0 };
                <$mode>::finish(py, "site_tasks", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Every site task, page after page, fetched as the iteration reaches them (the rule
            /// of :meth:`iter_service_tasks`; a page keyed by task id yields its tasks in order).
            ///
            /// Returns
            /// -------
            /// TaskIterator
            ///     An iterator of task dicts.
            ///
            /// Examples
            /// --------
            /// >>> ids = [int(task["task_id"]) for task in client.iter_site_tasks()]
            fn iter_site_tasks(&self) -> $pages {
                $pages::new(self.shared.clone(), TaskList::Site)
            }

            /// One site task's settings: the fields of the list and the monitoring points it uses.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A site task id.
            ///
            /// Returns
            /// -------
            /// dict
            ///     As sent.
            ///
            /// Examples
            /// --------
            /// >>> client.site_task(20001)["task_name"]
            /// 'site-01'
            fn site_task(&self, py: Python<'_>, task_id: TaskId) -> PyResult<$output> {
                let request = Request::SiteTask { task_id: task_id.0 };
                <$mode>::finish(py, "site_task", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// The monitoring points of the account: their ids are the keys of a site report.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Points with ``monitor_id``, ``monitor_name``, ``isp_name``, ``location_name``
            ///     ... as sent (a list, or an object keyed by id).
            ///
            /// Examples
            /// --------
            /// >>> {p["monitor_id"]: p["monitor_name"] for p in client.monitors()}["1"]
            /// '北京电信'
            fn monitors(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "monitors", self.shared.raw(py, Request::Monitors, <$mode>::PARSE))
            }

            /// Every user of the account: their ids are what ``alert_setting`` names.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Users with ``user_id``, ``user_email``, ``user_name``, ``user_status``,
            ///     ``role_id``, ``organization`` ... as sent.
            ///
            /// Examples
            /// --------
            /// >>> [u["user_email"] for u in client.users()][:1]
            /// ['test@example.com']
            fn users(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "users", self.shared.raw(py, Request::Users, <$mode>::PARSE))
            }

            /// The user groups of the account: their ids are what ``organization`` names.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Groups with ``organization_id``, ``organization_name``,
            ///     ``parent_organization_id``, ``user_num``, as sent.
            ///
            /// Examples
            /// --------
            /// >>> [g["organization_name"] for g in client.user_groups()][:1]
            /// ['运维部']
            fn user_groups(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "user_groups", self.shared.raw(py, Request::UserGroups, <$mode>::PARSE))
            }

            /// The collector agents with their plugins, keyed by agent id.
            ///
            /// Returns
            /// -------
            /// dict
            ///     ``{agent_id: {"name", "agentUrl": {"windows", "linux"}, "plugin": [...]}}``.
            ///
            /// Examples
            /// --------
            /// >>> for agent_id, agent in client.agents().items():
            /// ...     print(agent_id, agent["name"], len(agent["plugin"]))
            fn agents(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "agents", self.shared.raw(py, Request::Agents, <$mode>::PARSE))
            }

            /// The monitoring data of a service task.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A service task id (the list's string ids are accepted).
            /// start_date, end_date : datetime.date or str, optional
            ///     The period, ``"YYYY-MM-DD"`` or dates (a ``datetime`` counts as its own calendar
            ///     date); each defaults to today (service side).
            ///
            /// Returns
            /// -------
            /// dict
            ///     One series per key (e.g. ``"apache_rps"``), each a list of records whose
            ///     values are strings, as sent.
            ///
            /// Examples
            /// --------
            /// >>> import datetime
            /// >>> report = client.service_report(10001, start_date=datetime.date(2026, 11, 1),
            /// ...                                end_date="2026-11-02")
            /// >>> for series, records in report.items():   # e.g. "apache_rps", "mysql_qpc"
            /// ...     print(series, len(records), records[0])
            #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
            fn service_report(
                &self,
                py: Python<'_>,
                task_id: TaskId,
                start_date: Option<Day>,
                end_date: Option<Day>,
            ) -> PyResult<$output> {
                let request = Request::ServiceReport {
                    task_id: task_id.0,
                    range: date_range(py, start_date, end_date)?,
                };
                <$mode>::finish(py, "service_report", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Availability, faults and response times of a site task.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A site task id.
            /// start_date, end_date : datetime.date or str, optional
            ///     The period; each defaults to today (service side).
            /// monitor : int or str, optional
            ///     ``None`` (default): every monitoring point and the average; ``0``: only the
            ///     average; another id: that monitoring point.
            ///
            /// Returns
            /// -------
            /// dict
            ///     Keyed by monitoring-point id (``"0"`` is the average), each with ``name``,
            ///     ``uprate``, ``fault`` and ``resptime``, as sent.
            ///
            /// Examples
            /// --------
            /// >>> average = client.site_report(20001, monitor=0)["0"]
            /// >>> sorted(average)
            /// ['fault', 'name', 'resptime', 'uprate']
            #[pyo3(signature = (task_id, *, start_date=None, end_date=None, monitor=None))]
            fn site_report(
                &self,
                py: Python<'_>,
                task_id: TaskId,
                start_date: Option<Day>,
                end_date: Option<Day>,
                monitor: Option<MonitorArg>,
            ) -> PyResult<$output> {
                let request = Request::SiteReport {
                    task_id: task_id.0,
                    range: date_range(py, start_date, end_date)?,
                    monitor: monitor.map_or(Monitor::All, |m| m.0),
                };
                <$mode>::finish(py, "site_report", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// The response-time distribution of a site task.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A site task id.
            /// start_date, end_date : datetime.date or str, optional
            ///     The period; each defaults to today (service side).
            ///
            /// Returns
            /// -------
            /// dict
            ///     Keyed by bucket lower bound, each ``{"start", "end", "count", "percent"}``
            ///     (milliseconds; numbers and strings as sent).
            ///
            /// Examples
            /// --------
            /// >>> buckets = client.response_time_distribution(20001, start_date="2026-11-01")
            /// >>> sum(b["count"] for b in buckets.values()) > 0
            /// True
            #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
            fn response_time_distribution(
                &self,
                py: Python<'_>,
                task_id: TaskId,
                start_date: Option<Day>,
                end_date: Option<Day>,
            ) -> PyResult<$output> {
                let request = Request::ResponseTimeDistribution {
                    task_id: task_id.0,
                    range: date_range(py, start_date, end_date)?,
                };
                <$mode>::finish(py, "response_time_distribution", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Bring the client's store (``store=``) up to date: every settled day of the range,
            /// for every task asked, in every kind of table asked.
            ///
            /// Task-days the store already holds (whole: their files' footers are checked) are
            /// not fetched; a task's missing days are fetched in runs of consecutive days (at
            /// most 10 days each), one request each, and written as they come. The arguments are checked, a token is
            /// obtained and the task lists are read before any report is asked for. Ctrl-C stops
            /// the call; what was written stays, and the next sync goes on from there.
            ///
            /// Parameters
            /// ----------
            /// start_date, end_date : datetime.date or str, optional
            ///     The days to cover (``"YYYY-MM-DD"`` or dates). Left out: the last 30 settled
            ///     days. Days not settled yet (see ``settle``) are left out.
            /// tasks : list of int or str, optional
            ///     These service or site task ids rather than every task of the account; an id
            ///     that is not a task of the kinds asked raises :class:`ValidationError`
            ///     (nothing is fetched).
            /// kinds : list of str or str, optional
            ///     The tables to keep, as a list or one comma-separated string:
            ///     ``"service_report"``, ``"site_availability"``, ``"site_response_time"``,
            ///     ``"site_faults"``, or ``"service"`` and ``"site"`` for all of one report
            ///     (default: all four).
            /// concurrency : int, default 8
            ///     Tasks fetched at once, 1 to 256.
            /// on_progress : callable, optional
            ///     Receives a :class:`monapi.types.SyncProgress` dict (``total``, ``done``,
            ///     ``fetched``, ``reused``, ``failed``, ``rows``, ``bytes``; counts of task-days)
            ///     before the first task and after each, on the thread that waits for the sync
            ///     (the event loop's, with ``AsyncClient``). An exception it raises is logged at
            ///     WARNING; the sync goes on.
            /// errors : {"raise", "collect"}, default "raise"
            ///     When task-days fail: ``"raise"`` a :class:`PartialResultError` whose
            ///     ``table`` is the :class:`monapi.types.SyncReport`; ``"collect"``: return the
            ///     report, with the failures in its ``failures``. Either way, what succeeded is
            ///     in the store and the failed task-days are fetched by the next sync.
            ///
            /// Returns
            /// -------
            /// SyncReport
            ///     ``start``, ``end``, ``tasks``, ``fetched``, ``reused``, ``rows``, ``bytes``,
            ///     ``failed``, ``failures``, ``set_aside`` (files that did not read, moved to
            ///     ``.corrupt/`` and fetched again) and ``summary``, one line.
            ///
            /// Raises
            /// ------
            /// PartialResultError
            ///     Some task-days failed (``errors="raise"``).
            /// ValidationError
            ///     The client has no store, or an argument breaks a rule (nothing is fetched).
            /// StoreError
            ///     The store cannot be read or written.
            ///
            /// Examples
            /// --------
            /// >>> client = monapi.Client(store="reports/")   # MONAPI_* for the rest
            /// >>> report = client.sync(start_date="2026-11-01", end_date="2026-11-07",
            /// ...                      kinds="service_report")
            /// >>> print(report["summary"])   # 120 tasks, 7 days
            /// 840 task-days fetched, 0 reused, ... rows, ... bytes, 0 failed
            /// >>> client.sync(start_date="2026-11-01", end_date="2026-11-07")["fetched"]
            /// 35
            /// >>> import duckdb
            /// >>> duckdb.sql("SELECT day, count(*) FROM read_parquet("
            /// ...            "'reports/service_report/**/*.parquet', hive_partitioning = true)"
            /// ...            " GROUP BY day ORDER BY day")
            #[pyo3(
                signature = (start_date=None, end_date=None, *, tasks=None, kinds=None, concurrency=Number(8.0), on_progress=None, errors="raise"),
                text_signature = "($self, start_date=None, end_date=None, *, tasks=None, kinds=None, concurrency=8, on_progress=None, errors='raise')"
            )]
            #[allow(clippy::too_many_arguments)]
            fn sync(
                &self,
                py: Python<'_>,
                start_date: Option<Day>,
                end_date: Option<Day>,
                tasks: Option<Vec<TaskId>>,
                kinds: Option<Kinds>,
                concurrency: Number,
                on_progress: Option<&Bound<'_, PyAny>>,
                errors: &str,
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                let call = SyncCall::new(py, range, tasks, kinds, concurrency, on_progress, errors)?;
                <$mode>::finish(py, "sync", call.job(py, &self.shared))
            }

            /// Call any operation of the service by its method and path, for those without a method
            /// of their own.
            ///
            /// The client adds ``access_token`` and looks after the token as for every other call; a
            /// GET is retried as reads are, a POST is never repeated once it may have reached the
            /// service; errors are the same exceptions.
            ///
            /// Parameters
            /// ----------
            /// method : str
            ///     ``"GET"`` or ``"POST"``.
            /// path : str
            ///     The path under the base URL, e.g. ``"/v2/site/lists.json"`` (no scheme, host or
            ///     query).
            /// params : dict, optional
            ///     Query parameters (``str``, ``int`` or ``float`` values); not ``access_token``.
            /// form : dict, optional
            ///     Form fields of a POST (``application/x-www-form-urlencoded``).
            ///
            /// Returns
            /// -------
            /// Any
            ///     The answer's JSON, exactly as the service sent it.
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     The method, path, params or form break a rule (nothing is sent).
            ///
            /// Examples
            /// --------
            /// >>> points = client.request("GET", "/v2/site/monitors.json")
            #[pyo3(signature = (method, path, params=None, form=None))]
            fn request(
                &self,
                py: Python<'_>,
                method: &str,
                path: String,
                params: Option<Params>,
                form: Option<Params>,
            ) -> PyResult<$output> {
                let request = raw_request(py, method, path, params, form)?;
                <$mode>::finish(py, "request", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Close the client: later calls raise, and its connections are released once the
            /// calls and iterators still using them are done.
            ///
            /// Examples
            /// --------
            /// >>> client.close()
            fn close(&self) {
                self.shared.close();
            }

            $($context_manager)*

            fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
                self.shared.traverse(&visit)
            }

            fn __clear__(&self) {
                self.shared.on_token.clear();
            }

            fn __repr__(&self) -> String {
                self.shared.repr(stringify!($class))
            }

            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                pickle::reduce(slf.py(), slf.as_any(), &slf.get().shared)
            }
        }
    };
}

client_methods!(Client, Blocking, Py<PyAny>, Tables, TaskIterator, {
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.shared.close();
        false
    }
});

client_methods!(AsyncClient, Async, Awaitable, AsyncTables, AsyncTaskIterator, {
    fn __aenter__(slf: &Bound<'_, Self>) -> Awaitable {
        Awaitable::ready("__aenter__", Ok(slf.clone().into_any().unbind()))
    }

    #[pyo3(signature = (*_exc))]
    fn __aexit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> Awaitable {
        self.shared.close();
        let done = false.into_pyobject(py).map(|b| b.to_owned().into_any().unbind());
        Awaitable::ready("__aexit__", Ok(done.unwrap_or_else(|_| py.None())))
    }
});
