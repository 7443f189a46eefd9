//! `monapi.AsyncClient`: the asyncio client. Requests run on the package's runtime; the
//! event loop only builds the results (see `runtime.rs`).

use std::sync::Arc;

use monapi::{Monitor, Request};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::PyTraverseError;

use crate::args::{date_range, CaBundleArg, Day, MonitorArg, Number, Page, Params, ProxyArg, TaskId};
use crate::client::raw_request;
use crate::encode::server_tasks;
use crate::pages::ServiceTaskAsyncIterator;
use crate::pickle;
use crate::runtime::{Awaitable, Job};
use crate::settings::Given;
use crate::shared::Shared;
use crate::tables::AsyncTables;
use crate::token::token_arg;

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

pub(crate) fn awaitable<T: Send + 'static>(name: &'static str, job: PyResult<Job<T>>) -> PyResult<Awaitable> {
    Ok(Awaitable::new(name, job?))
}

#[pymethods]
impl AsyncClient {
    #[new]
    #[pyo3(signature = (*, base_url=None, client_id=None, client_secret=None, username=None, password=None,
        password_md5=None, token=None, on_token=None, timeout=None, connect_timeout=None, max_retries=None,
        user_agent=None, ca_bundle=None, proxy=ProxyArg::default(), max_connections=None, timezone=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        base_url: Option<String>,
        client_id: Option<String>,
        client_secret: Option<String>,
        username: Option<String>,
        password: Option<String>,
        password_md5: Option<String>,
        token: Option<&Bound<'_, PyAny>>,
        on_token: Option<Py<PyAny>>,
        timeout: Option<Number>,
        connect_timeout: Option<Number>,
        max_retries: Option<Number>,
        user_agent: Option<String>,
        ca_bundle: Option<CaBundleArg>,
        proxy: ProxyArg,
        max_connections: Option<Number>,
        timezone: Option<String>,
    ) -> PyResult<Self> {
        let given = Given {
            base_url,
            client_id,
            client_secret,
            username,
            password,
            password_md5,
            token: token_arg(py, token)?,
            timeout,
            connect_timeout,
            max_retries,
            user_agent,
            ca_bundle,
            proxy,
            max_connections,
            timezone,
        };
        let shared = Shared::new(py, given, on_token)?;
        Ok(AsyncClient {
            shared: Arc::new(shared),
        })
    }

    /// Log in with the password grant now and return the new token.
    ///
    /// Returns
    /// -------
    /// Token
    ///     The new token, also in ``client.token`` and passed to ``on_token``.
    ///
    /// Raises
    /// ------
    /// InvalidClientError, InvalidGrantError
    ///     The service refused the client or the account.
    ///
    /// Examples
    /// --------
    /// >>> token = await client.login()
    /// >>> token["token_type"]
    /// 'bearer'
    fn login(&self, py: Python<'_>) -> PyResult<Awaitable> {
        awaitable("login", self.shared.login(py))
    }

    /// Get a new token with the refresh grant now and return it.
    ///
    /// Returns
    /// -------
    /// Token
    ///     The new token.
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
    /// >>> token = await client.refresh()
    fn refresh(&self, py: Python<'_>) -> PyResult<Awaitable> {
        awaitable("refresh", self.shared.refresh(py))
    }

    /// The current token (a :class:`monapi.Token` dict), or ``None`` before the first login.
    ///
    /// Examples
    /// --------
    /// >>> saved = dict(client.token)
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
    /// >>> client.closed
    /// False
    #[getter]
    fn closed(&self) -> bool {
        self.shared.closed()
    }

    /// The calls that return tables (:class:`AsyncTables`), each a coroutine.
    ///
    /// Examples
    /// --------
    /// >>> df = (await client.tables.service_report(10001)).to_pandas()
    #[getter]
    fn tables(&self) -> AsyncTables {
        AsyncTables::new(self.shared.clone())
    }

    /// Create server monitoring tasks in one batch (see :meth:`Client.create_server_tasks`).
    ///
    /// Parameters
    /// ----------
    /// tasks : list of dict
    ///     Server tasks with the API's fields; left-out fields take the defaults of the Rust
    ///     core's ``ServerTask::new``.
    ///
    /// Returns
    /// -------
    /// list of dict
    ///     One ``{"task_id": ...}`` per created task.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     Tasks break rules (raised at once, nothing is sent; ``errors`` names every problem).
    /// PartialCreateError
    ///     Some tasks failed; all the others were created.
    ///
    /// Examples
    /// --------
    /// >>> created = await client.create_server_tasks(tasks)
    fn create_server_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Awaitable> {
        let request = Request::CreateServerTasks(server_tasks(py, tasks)?);
        awaitable("create_server_tasks", self.shared.raw(py, request))
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
    ///     The tasks, as sent.
    ///
    /// Examples
    /// --------
    /// >>> tasks = await client.service_tasks(2)
    #[pyo3(signature = (page = Page(1)), text_signature = "($self, page=1)")]
    fn service_tasks(&self, py: Python<'_>, page: Page) -> PyResult<Awaitable> {
        let request = Request::ServiceTasks { page: page.0 };
        awaitable("service_tasks", self.shared.raw(py, request))
    }

    /// Every service task, page after page: an async iterator.
    ///
    /// Returns
    /// -------
    /// ServiceTaskAsyncIterator
    ///     Use with ``async for``; stops after the first page with fewer than 50 tasks (an
    ///     empty page, ``[]``, ``{}`` or ``null``, is the last).
    ///
    /// Examples
    /// --------
    /// >>> async for task in client.iter_service_tasks():
    /// ...     print(task["task_id"], task["task_name"])
    fn iter_service_tasks(&self) -> ServiceTaskAsyncIterator {
        ServiceTaskAsyncIterator::new(self.shared.clone())
    }

    /// The collector agents with their plugins, keyed by agent id.
    ///
    /// Returns
    /// -------
    /// dict
    ///     ``{agent_id: {"name", "agentUrl", "plugin"}}``, as sent.
    ///
    /// Examples
    /// --------
    /// >>> agents = await client.agents()
    fn agents(&self, py: Python<'_>) -> PyResult<Awaitable> {
        awaitable("agents", self.shared.raw(py, Request::Agents))
    }

    /// The monitoring data of a service task (see :meth:`Client.service_report`).
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A service task id.
    /// start_date, end_date : datetime.date or str, optional
    ///     The period; each defaults to today (service side).
    ///
    /// Returns
    /// -------
    /// dict
    ///     One list of records per series key, as sent.
    ///
    /// Examples
    /// --------
    /// >>> report = await client.service_report(10001, start_date="2026-11-01")
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
    fn service_report(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
    ) -> PyResult<Awaitable> {
        let request = Request::ServiceReport {
            task_id: task_id.0,
            range: date_range(py, start_date, end_date)?,
        };
        awaitable("service_report", self.shared.raw(py, request))
    }

    /// Availability, faults and response times of a site task (see :meth:`Client.site_report`).
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task id.
    /// start_date, end_date : datetime.date or str, optional
    ///     The period; each defaults to today (service side).
    /// monitor : int or str, optional
    ///     ``None``: every point; ``0``: the average; another id: that point.
    ///
    /// Returns
    /// -------
    /// dict
    ///     Keyed by monitoring-point id, as sent.
    ///
    /// Examples
    /// --------
    /// >>> site = await client.site_report(20001, monitor=0)
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None, monitor=None))]
    fn site_report(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
        monitor: Option<MonitorArg>,
    ) -> PyResult<Awaitable> {
        let request = Request::SiteReport {
            task_id: task_id.0,
            range: date_range(py, start_date, end_date)?,
            monitor: monitor.map_or(Monitor::All, |m| m.0),
        };
        awaitable("site_report", self.shared.raw(py, request))
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
    ///     Buckets keyed by lower bound, as sent.
    ///
    /// Examples
    /// --------
    /// >>> buckets = await client.response_time_distribution(20001)
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
    fn response_time_distribution(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
    ) -> PyResult<Awaitable> {
        let request = Request::ResponseTimeDistribution {
            task_id: task_id.0,
            range: date_range(py, start_date, end_date)?,
        };
        awaitable("response_time_distribution", self.shared.raw(py, request))
    }

    /// Call any operation of the service by its method and path (see :meth:`Client.request`).
    ///
    /// Parameters
    /// ----------
    /// method : str
    ///     ``"GET"`` or ``"POST"``.
    /// path : str
    ///     The path under the base URL, e.g. ``"/v2/site/lists.json"``.
    /// params : dict, optional
    ///     Query parameters; not ``access_token``.
    /// form : dict, optional
    ///     Form fields of a POST.
    ///
    /// Returns
    /// -------
    /// Any
    ///     The answer's JSON, exactly as the service sent it.
    ///
    /// Examples
    /// --------
    /// >>> sites = await client.request("GET", "/v2/site/lists.json")
    #[pyo3(signature = (method, path, params=None, form=None))]
    fn request(
        &self,
        py: Python<'_>,
        method: &str,
        path: String,
        params: Option<Params>,
        form: Option<Params>,
    ) -> PyResult<Awaitable> {
        let request = raw_request(py, method, path, params, form)?;
        awaitable("request", self.shared.raw(py, request))
    }

    /// Close the client: later calls raise, and its connections are released once the
    /// calls and iterators still using them are done (calls in flight finish).
    ///
    /// Examples
    /// --------
    /// >>> client.close()
    fn close(&self) {
        self.shared.close();
    }

    fn __aenter__(slf: &Bound<'_, Self>) -> Awaitable {
        Awaitable::ready("__aenter__", Ok(slf.clone().into_any().unbind()))
    }

    #[pyo3(signature = (*_exc))]
    fn __aexit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> Awaitable {
        self.shared.close();
        Awaitable::ready(
            "__aexit__",
            Ok(false
                .into_pyobject(py)
                .map(|b| b.to_owned().into_any().unbind())
                .unwrap_or_else(|_| py.None())),
        )
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.shared.traverse(&visit)
    }

    fn __clear__(&self) {
        self.shared.on_token.clear();
    }

    fn __repr__(&self) -> String {
        self.shared.repr("AsyncClient")
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        pickle::reduce(slf.py(), slf.as_any(), &slf.get().shared)
    }
}
