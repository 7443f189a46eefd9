//! `monapi.Client` (blocking, releases the GIL while it waits) and `monapi.AsyncClient`
//! (asyncio), both over one `monapi::Client` per process.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use monapi::{ClientBuilder, Request, Secret, Token, PAGE_SIZE};
use pyo3::exceptions::{PyRuntimeError, PyStopAsyncIteration, PyTypeError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyType};
use pyo3::PyTraverseError;

use crate::convert::{date_range, monitor, server_tasks, task_id, token_from_py, token_to_py, Parsed};
use crate::errors::{new_error, to_pyerr, validation};
use crate::logging;
use crate::runtime::{lock, run_job, Awaitable, Job};

/// The configuration a client was built from, with the `MONAPI_*` fallbacks resolved, so
/// that it can be rebuilt in a forked child or after unpickling. Secrets never print.
#[derive(Clone)]
struct Settings {
    base_url: Option<String>,
    client_id: Option<String>,
    client_secret: Option<Secret>,
    username: Option<String>,
    password_md5: Option<Secret>,
    timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    max_retries: Option<usize>,
    user_agent: String,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Settings {
    /// The core builder: `ClientBuilder::from_env()` with every resolved value set on top.
    fn builder(&self) -> ClientBuilder {
        let mut builder = ClientBuilder::from_env().user_agent(self.user_agent.clone());
        if let Some(v) = &self.base_url {
            builder = builder.base_url(v.clone());
        }
        if let Some(v) = &self.client_id {
            builder = builder.client_id(v.clone());
        }
        if let Some(v) = &self.client_secret {
            builder = builder.client_secret(v.clone());
        }
        if let Some(v) = &self.username {
            builder = builder.username(v.clone());
        }
        if let Some(v) = &self.password_md5 {
            builder = builder.password_md5(v.clone());
        }
        if let Some(v) = self.timeout {
            builder = builder.timeout(v);
        }
        if let Some(v) = self.connect_timeout {
            builder = builder.connect_timeout(v);
        }
        if let Some(v) = self.max_retries {
            builder = builder.max_retries(v);
        }
        builder
    }
}

enum Slot {
    /// The core client of process `pid` (a forked child builds its own).
    Open {
        pid: u32,
        client: monapi::Client,
    },
    Closed {
        token: Option<Token>,
    },
}

/// The user's `on_token`, held in one place: the core client's callback reaches it through
/// here, and the owning `Client`/`AsyncClient` shows it to Python's cyclic garbage collector
/// (`self.client = Client(on_token=self.save)` is a reference cycle that must be collectable).
#[derive(Default)]
struct TokenCallback(Mutex<Option<Py<PyAny>>>);

impl TokenCallback {
    fn is_set(&self) -> bool {
        lock(&self.0).is_some()
    }

    /// `__traverse__`: the callback, if set. Never blocks (the collector holds the GIL, and
    /// the lock is only taken with the GIL held, so it is free unless this thread has it).
    fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        match self.0.try_lock() {
            Ok(callback) => visit.call(callback.as_ref()),
            Err(_) => Ok(()),
        }
    }

    /// `__clear__`: drops the callback, breaking the cycle.
    fn clear(&self) {
        let callback = lock(&self.0).take();
        drop(callback);
    }

    /// Calls the callback with the new token; an exception (or a panic) is logged at WARNING
    /// and goes no further.
    fn notify(&self, token: &Token) {
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
            Python::try_attach(|py| {
                // Taken out of the lock before the call: the callback may run any Python code.
                let Some(callback) = lock(&self.0).as_ref().map(|c| c.clone_ref(py)) else {
                    return;
                };
                let result = token_to_py(py, token).and_then(|t| callback.call1(py, (t,)));
                if let Err(error) = result {
                    logging::warning_with(
                        py,
                        "the on_token callback raised an exception; the new token is in use but was not saved",
                        error,
                    );
                }
            })
        }));
    }
}

/// What `Client` and `AsyncClient` share: settings, the token callback, the core client.
pub struct Shared {
    settings: Settings,
    on_token: Arc<TokenCallback>,
    slot: Mutex<Slot>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // A core client inherited through fork() holds connections of the parent's runtime:
        // leaked rather than torn down in a process where that runtime does not run.
        let slot = self.slot.get_mut().unwrap_or_else(|e| e.into_inner());
        if matches!(slot, Slot::Open { pid, .. } if *pid != std::process::id()) {
            std::mem::forget(std::mem::replace(slot, Slot::Closed { token: None }));
        }
    }
}

fn build(
    py: Python<'_>,
    settings: &Settings,
    on_token: &Arc<TokenCallback>,
    token: Option<Token>,
) -> PyResult<monapi::Client> {
    let mut builder = settings.builder();
    if let Some(token) = token {
        builder = builder.token(token);
    }
    if on_token.is_set() {
        let callback = on_token.clone();
        builder = builder.on_token(move |token| callback.notify(token));
    }
    builder.build().map_err(|e| to_pyerr(py, e))
}

fn seconds(py: Python<'_>, field: &str, value: Option<f64>) -> PyResult<Option<Duration>> {
    value
        .map(|s| {
            if s > 0.0 {
                Duration::try_from_secs_f64(s).ok()
            } else {
                None
            }
            .ok_or_else(|| validation(py, None, field, "must be a positive number of seconds"))
        })
        .transpose()
}

impl Shared {
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
        timeout: Option<f64>,
        connect_timeout: Option<f64>,
        max_retries: Option<i64>,
        user_agent: Option<String>,
    ) -> PyResult<Shared> {
        if password.is_some() && password_md5.is_some() {
            return Err(validation(
                py,
                None,
                "password_md5",
                "give either password or password_md5, not both",
            ));
        }
        if let Some(callback) = &on_token {
            if !callback.bind(py).is_callable() {
                return Err(PyTypeError::new_err(
                    "on_token must be callable (it receives the new token)",
                ));
            }
        }
        let max_retries = max_retries
            .map(|n| usize::try_from(n).map_err(|_| validation(py, None, "max_retries", "must be 0 or more")))
            .transpose()?;
        let password_md5 = match (password, password_md5) {
            (Some(plain), _) => Some(monapi::md5_hex(&plain)),
            (None, Some(md5)) => Some(Secret::new(md5)),
            (None, None) => env("MONAPI_PASSWORD").map(|p| monapi::md5_hex(&p)),
        };
        let settings = Settings {
            base_url: base_url.or_else(|| env("MONAPI_BASE_URL")),
            client_id: client_id.or_else(|| env("MONAPI_CLIENT_ID")),
            client_secret: client_secret
                .or_else(|| env("MONAPI_CLIENT_SECRET"))
                .map(Secret::new),
            username: username.or_else(|| env("MONAPI_USERNAME")),
            password_md5,
            timeout: seconds(py, "timeout", timeout)?,
            connect_timeout: seconds(py, "connect_timeout", connect_timeout)?,
            max_retries,
            user_agent: user_agent.unwrap_or_else(|| format!("monapi-python/{}", env!("CARGO_PKG_VERSION"))),
        };
        let token = token
            .filter(|t| !t.is_none())
            .map(|t| token_from_py(py, t))
            .transpose()?;
        let mut settings = settings;
        let on_token = Arc::new(TokenCallback(Mutex::new(on_token)));
        let client = build(py, &settings, &on_token, token)?;
        // Keep what the core accepted (e.g. an upper-case MD5 is stored lower-case).
        if let Some(md5) = &settings.password_md5 {
            settings.password_md5 = Some(Secret::new(md5.expose().to_ascii_lowercase()));
        }
        Ok(Shared {
            settings,
            on_token,
            slot: Mutex::new(Slot::Open {
                pid: std::process::id(),
                client,
            }),
        })
    }

    /// The core client of this process: built again in a forked child, whose copy of the
    /// parent's holds connections of a runtime that does not run there (it is leaked).
    fn client(&self, py: Python<'_>) -> PyResult<monapi::Client> {
        logging::refresh(py);
        let pid = std::process::id();
        let mut slot = lock(&self.slot);
        match &*slot {
            Slot::Open { pid: owner, client } if *owner == pid => Ok(client.clone()),
            Slot::Open { client, .. } => {
                let fresh = build(py, &self.settings, &self.on_token, client.token())?;
                let inherited = std::mem::replace(
                    &mut *slot,
                    Slot::Open {
                        pid,
                        client: fresh.clone(),
                    },
                );
                std::mem::forget(inherited);
                Ok(fresh)
            }
            Slot::Closed { .. } => Err(new_error(
                py,
                "MonapiError",
                "the client is closed; create a new one",
                &[],
            )),
        }
    }

    fn token(&self) -> Option<Token> {
        match &*lock(&self.slot) {
            Slot::Open { client, .. } => client.token(),
            Slot::Closed { token } => token.clone(),
        }
    }

    fn close(&self) {
        let mut slot = lock(&self.slot);
        if let Slot::Open { pid, client } = &*slot {
            let (owner, token) = (*pid, client.token());
            let previous = std::mem::replace(&mut *slot, Slot::Closed { token });
            if owner != std::process::id() {
                std::mem::forget(previous);
            }
        }
    }

    fn closed(&self) -> bool {
        matches!(&*lock(&self.slot), Slot::Closed { .. })
    }

    /// Sends `request` for the event loop: the body is parsed on the runtime, without the
    /// GIL, and the loop only builds the Python objects.
    fn raw(&self, py: Python<'_>, request: Request) -> PyResult<Job<Parsed>> {
        let client = self.client(py)?;
        Ok(Job {
            future: Box::pin(async move { Ok(Parsed::whole(client.execute(&request).await?).await) }),
            convert: Box::new(|py, parsed| parsed.into_py(py)),
        })
    }

    /// Sends `request` for a caller that waits: the body is parsed without the GIL, a large
    /// one while the caller already builds the objects of its first parts.
    fn raw_blocking(&self, py: Python<'_>, request: Request) -> PyResult<Job<Parsed>> {
        let client = self.client(py)?;
        Ok(Job {
            future: Box::pin(async move { client.execute(&request).await.map(Parsed::streamed) }),
            convert: Box::new(|py, parsed| parsed.into_py(py)),
        })
    }

    fn login(&self, py: Python<'_>) -> PyResult<Job<Token>> {
        let client = self.client(py)?;
        Ok(Job {
            future: Box::pin(async move { client.login().await }),
            convert: Box::new(|py, token| Ok(token_to_py(py, &token)?.unbind())),
        })
    }

    fn refresh(&self, py: Python<'_>) -> PyResult<Job<Token>> {
        let client = self.client(py)?;
        Ok(Job {
            future: Box::pin(async move { client.refresh().await }),
            convert: Box::new(|py, token| Ok(token_to_py(py, &token)?.unbind())),
        })
    }

    fn token_py(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.token()
            .map(|t| token_to_py(py, &t).map(Bound::unbind))
            .transpose()
    }

    /// The state `__reduce__` pickles: the resolved configuration (secrets included, as a
    /// worker needs them to log in) and the current token.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.settings;
        let state = PyDict::new(py);
        state.set_item("base_url", &s.base_url)?;
        state.set_item("client_id", &s.client_id)?;
        state.set_item("client_secret", redacted(py, s.client_secret.as_ref())?)?;
        state.set_item("username", &s.username)?;
        state.set_item("password_md5", redacted(py, s.password_md5.as_ref())?)?;
        state.set_item("token", self.token_py(py)?)?;
        state.set_item("timeout", s.timeout.map(|d| d.as_secs_f64()))?;
        state.set_item("connect_timeout", s.connect_timeout.map(|d| d.as_secs_f64()))?;
        state.set_item("max_retries", s.max_retries)?;
        state.set_item("user_agent", &s.user_agent)?;
        Ok(state)
    }

    fn repr(&self, class: &str) -> String {
        let s = &self.settings;
        let token = if self.closed() {
            "closed".to_string()
        } else {
            match self.token() {
                None => "no token yet".to_string(),
                Some(t) => match t.expires_at {
                    Some(at) => format!("token expires at {at} (unix time)"),
                    None => "token with unknown expiry".to_string(),
                },
            }
        };
        format!(
            "<monapi.{class} base_url={:?} client_id={:?} username={:?}, {token}>",
            s.base_url.as_deref().unwrap_or(""),
            s.client_id.as_deref().unwrap_or(""),
            s.username.as_deref().unwrap_or(""),
        )
    }

    fn base_url(&self) -> Option<String> {
        self.settings.base_url.clone()
    }
}

static REDACTED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A secret for the pickled state: a `str` subclass whose repr hides it.
fn redacted<'py>(py: Python<'py>, secret: Option<&Secret>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let class = REDACTED.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("monapi._token")?.getattr("_Redacted")?.unbind())
    })?;
    secret.map(|s| class.bind(py).call1((s.expose(),))).transpose()
}

fn service_tasks_request(py: Python<'_>, page: i64) -> PyResult<Request> {
    if page < 1 {
        return Err(validation(
            py,
            None,
            "page",
            "must be 1 or more (pages count from 1)",
        ));
    }
    let page = u32::try_from(page)
        .map_err(|_| validation(py, None, "page", &format!("must be at most {}", u32::MAX)))?;
    Ok(Request::ServiceTasks { page })
}

fn create_request(py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Request> {
    Ok(Request::CreateServerTasks(server_tasks(py, tasks)?))
}

fn service_report_request(
    py: Python<'_>,
    id: &Bound<'_, PyAny>,
    start_date: Option<&Bound<'_, PyAny>>,
    end_date: Option<&Bound<'_, PyAny>>,
) -> PyResult<Request> {
    Ok(Request::ServiceReport {
        task_id: task_id(py, id)?,
        range: date_range(py, start_date, end_date)?,
    })
}

fn site_report_request(
    py: Python<'_>,
    id: &Bound<'_, PyAny>,
    start_date: Option<&Bound<'_, PyAny>>,
    end_date: Option<&Bound<'_, PyAny>>,
    point: Option<&Bound<'_, PyAny>>,
) -> PyResult<Request> {
    Ok(Request::SiteReport {
        task_id: task_id(py, id)?,
        range: date_range(py, start_date, end_date)?,
        monitor: monitor(py, point)?,
    })
}

fn distribution_request(
    py: Python<'_>,
    id: &Bound<'_, PyAny>,
    start_date: Option<&Bound<'_, PyAny>>,
    end_date: Option<&Bound<'_, PyAny>>,
) -> PyResult<Request> {
    Ok(Request::ResponseTimeDistribution {
        task_id: task_id(py, id)?,
        range: date_range(py, start_date, end_date)?,
    })
}

/// `_restore(cls, state)`: rebuilds a pickled client (see `Client.__reduce__`).
#[pyfunction]
pub fn _restore(cls: &Bound<'_, PyType>, state: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
    Ok(cls.call((), Some(state))?.unbind())
}

fn reduce<'py>(py: Python<'py>, this: &Bound<'py, PyAny>, shared: &Shared) -> PyResult<Bound<'py, PyAny>> {
    let restore = py.import("monapi._native")?.getattr("_restore")?;
    let args = (this.get_type(), shared.state(py)?);
    Ok((restore, args).into_pyobject(py)?.into_any())
}

// ---------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------

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
///     Seconds one HTTP exchange may take (default 30).
/// connect_timeout : float, optional
///     Seconds to make a connection (default 10).
/// max_retries : int, optional
///     Retries of a read after a connection error, 429 or 502/503/504 (default 2). A
///     create is never repeated once it may have reached the service.
/// user_agent : str, optional
///     The ``User-Agent`` header (default ``monapi-python/<version>``).
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

#[pymethods]
impl Client {
    #[new]
    #[pyo3(signature = (*, base_url=None, client_id=None, client_secret=None, username=None, password=None,
        password_md5=None, token=None, on_token=None, timeout=None, connect_timeout=None, max_retries=None,
        user_agent=None))]
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
        timeout: Option<f64>,
        connect_timeout: Option<f64>,
        max_retries: Option<i64>,
        user_agent: Option<String>,
    ) -> PyResult<Self> {
        let shared = Shared::new(
            py,
            base_url,
            client_id,
            client_secret,
            username,
            password,
            password_md5,
            token,
            on_token,
            timeout,
            connect_timeout,
            max_retries,
            user_agent,
        )?;
        Ok(Client {
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
    fn login(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        run_job(py, self.shared.login(py)?)
    }

    /// Get a new token with the refresh grant now and return it.
    ///
    /// Returns
    /// -------
    /// Token
    ///     The new token (the service also issues a new refresh token).
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
    fn refresh(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        run_job(py, self.shared.refresh(py)?)
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
    fn base_url(&self) -> Option<String> {
        self.shared.base_url()
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

    /// Create server monitoring tasks in one batch.
    ///
    /// Each task is checked against the spec's rules first; nothing is sent when one
    /// breaks a rule.
    ///
    /// Parameters
    /// ----------
    /// tasks : list of dict
    ///     Server tasks with the API's fields (``server_name``, ``private_ip``,
    ///     ``server_ip``, ``server_systype``, ``frequency``, ``snmp_port``, ``snmp_v``,
    ///     ``snmp_comm``, ``use_agent``, ``plugin_task_uselist_id``, ``alert_setting``,
    ///     ``task_type`` ...). Numbers may be given as ints or strings.
    ///
    /// Returns
    /// -------
    /// list of dict
    ///     One ``{"task_id": ...}`` per created task, as sent by the service.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     A task breaks a rule (``index`` and ``field`` say which).
    /// PartialCreateError
    ///     Some tasks failed (``failed_indices``); all the others were created.
    ///
    /// Examples
    /// --------
    /// >>> client.create_server_tasks([{
    /// ...     "server_name": "web-01", "private_ip": "192.168.1.10",
    /// ...     "server_ip": "203.0.113.10", "server_systype": 0, "frequency": 5,
    /// ...     "snmp_port": 161, "snmp_v": 0, "snmp_comm": "public", "use_agent": 0,
    /// ...     "alert_setting": {"scope": 3}, "task_type": ["cpu", "mem"]}])
    /// [{'task_id': 30001}]
    fn create_server_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let request = create_request(py, tasks)?;
        run_job(py, self.shared.raw_blocking(py, request)?)
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
    #[pyo3(signature = (page=1))]
    fn service_tasks(&self, py: Python<'_>, page: i64) -> PyResult<Py<PyAny>> {
        let request = service_tasks_request(py, page)?;
        run_job(py, self.shared.raw_blocking(py, request)?)
    }

    /// Every service task, page after page, fetched as the iteration reaches them.
    ///
    /// Stops after the first page with fewer than 50 tasks.
    ///
    /// Returns
    /// -------
    /// ServiceTaskIterator
    ///     An iterator of task dicts.
    ///
    /// Examples
    /// --------
    /// >>> names = [task["task_name"] for task in client.iter_service_tasks()]
    fn iter_service_tasks(&self) -> ServiceTaskIterator {
        ServiceTaskIterator {
            shared: self.shared.clone(),
            state: Arc::new(Mutex::new(Pages::default())),
        }
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
    fn agents(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        run_job(py, self.shared.raw_blocking(py, Request::Agents)?)
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
        task_id: &Bound<'_, PyAny>,
        start_date: Option<&Bound<'_, PyAny>>,
        end_date: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let request = service_report_request(py, task_id, start_date, end_date)?;
        run_job(py, self.shared.raw_blocking(py, request)?)
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
        task_id: &Bound<'_, PyAny>,
        start_date: Option<&Bound<'_, PyAny>>,
        end_date: Option<&Bound<'_, PyAny>>,
        monitor: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let request = site_report_request(py, task_id, start_date, end_date, monitor)?;
        run_job(py, self.shared.raw_blocking(py, request)?)
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
        task_id: &Bound<'_, PyAny>,
        start_date: Option<&Bound<'_, PyAny>>,
        end_date: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let request = distribution_request(py, task_id, start_date, end_date)?;
        run_job(py, self.shared.raw_blocking(py, request)?)
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

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.shared.close();
        false
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.shared.on_token.traverse(&visit)
    }

    fn __clear__(&self) {
        self.shared.on_token.clear();
    }

    fn __repr__(&self) -> String {
        self.shared.repr("Client")
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        reduce(slf.py(), slf.as_any(), &slf.get().shared)
    }
}

// ---------------------------------------------------------------------------------------
// AsyncClient
// ---------------------------------------------------------------------------------------

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

fn awaitable<T: Send + 'static>(name: &'static str, job: PyResult<Job<T>>) -> PyResult<Awaitable> {
    Ok(Awaitable::new(name, job?))
}

#[pymethods]
impl AsyncClient {
    #[new]
    #[pyo3(signature = (*, base_url=None, client_id=None, client_secret=None, username=None, password=None,
        password_md5=None, token=None, on_token=None, timeout=None, connect_timeout=None, max_retries=None,
        user_agent=None))]
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
        timeout: Option<f64>,
        connect_timeout: Option<f64>,
        max_retries: Option<i64>,
        user_agent: Option<String>,
    ) -> PyResult<Self> {
        let shared = Shared::new(
            py,
            base_url,
            client_id,
            client_secret,
            username,
            password,
            password_md5,
            token,
            on_token,
            timeout,
            connect_timeout,
            max_retries,
            user_agent,
        )?;
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
    fn base_url(&self) -> Option<String> {
        self.shared.base_url()
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

    /// Create server monitoring tasks in one batch (see :meth:`Client.create_server_tasks`).
    ///
    /// Parameters
    /// ----------
    /// tasks : list of dict
    ///     Server tasks with the API's fields.
    ///
    /// Returns
    /// -------
    /// list of dict
    ///     One ``{"task_id": ...}`` per created task.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     A task breaks a rule (raised at once, nothing is sent).
    /// PartialCreateError
    ///     Some tasks failed; all the others were created.
    ///
    /// Examples
    /// --------
    /// >>> created = await client.create_server_tasks(tasks)
    fn create_server_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Awaitable> {
        let request = create_request(py, tasks)?;
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
    #[pyo3(signature = (page=1))]
    fn service_tasks(&self, py: Python<'_>, page: i64) -> PyResult<Awaitable> {
        let request = service_tasks_request(py, page)?;
        awaitable("service_tasks", self.shared.raw(py, request))
    }

    /// Every service task, page after page: an async iterator.
    ///
    /// Returns
    /// -------
    /// ServiceTaskAsyncIterator
    ///     Use with ``async for``; stops after the first page with fewer than 50 tasks.
    ///
    /// Examples
    /// --------
    /// >>> async for task in client.iter_service_tasks():
    /// ...     print(task["task_id"], task["task_name"])
    fn iter_service_tasks(&self) -> ServiceTaskAsyncIterator {
        ServiceTaskAsyncIterator {
            shared: self.shared.clone(),
            state: Arc::new(Mutex::new(Pages::default())),
        }
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
        task_id: &Bound<'_, PyAny>,
        start_date: Option<&Bound<'_, PyAny>>,
        end_date: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Awaitable> {
        let request = service_report_request(py, task_id, start_date, end_date)?;
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
        task_id: &Bound<'_, PyAny>,
        start_date: Option<&Bound<'_, PyAny>>,
        end_date: Option<&Bound<'_, PyAny>>,
        monitor: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Awaitable> {
        let request = site_report_request(py, task_id, start_date, end_date, monitor)?;
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
        task_id: &Bound<'_, PyAny>,
        start_date: Option<&Bound<'_, PyAny>>,
        end_date: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Awaitable> {
        let request = distribution_request(py, task_id, start_date, end_date)?;
        awaitable("response_time_distribution", self.shared.raw(py, request))
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
        self.shared.on_token.traverse(&visit)
    }

    fn __clear__(&self) {
        self.shared.on_token.clear();
    }

    fn __repr__(&self) -> String {
        self.shared.repr("AsyncClient")
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        reduce(slf.py(), slf.as_any(), &slf.get().shared)
    }
}

// ---------------------------------------------------------------------------------------
// Iterators over every service task
// ---------------------------------------------------------------------------------------

/// Paging state: tasks fetched but not yet handed out, and the next page to fetch.
struct Pages {
    buffer: VecDeque<Py<PyAny>>,
    next_page: Option<u32>,
    busy: bool,
}

impl Default for Pages {
    fn default() -> Self {
        Pages {
            buffer: VecDeque::new(),
            next_page: Some(1),
            busy: false,
        }
    }
}

/// Clears `busy` however the fetch ends (success, error, cancellation, panic).
struct NotBusy(Arc<Mutex<Pages>>);

impl Drop for NotBusy {
    fn drop(&mut self) {
        lock(&self.0).busy = false;
    }
}

impl Pages {
    /// Takes in a fetched page (a JSON list, or PHP's `{}`/`[]` for none) and advances.
    fn take_page(&mut self, py: Python<'_>, page: u32, body: &Bound<'_, PyAny>) -> PyResult<()> {
        let items: Vec<Py<PyAny>> = if let Ok(list) = body.cast::<PyList>() {
            list.iter().map(Bound::unbind).collect()
        } else if body.cast::<PyDict>().is_ok_and(|d| d.is_empty()) || body.is_none() {
            Vec::new()
        } else {
            return Err(new_error(
                py,
                "DecodeError",
                "GET /v2/service/lists.json: could not decode the answer: expected a list of tasks",
                &[(
                    "endpoint",
                    pyo3::types::PyString::new(py, "GET /v2/service/lists.json").into_any(),
                )],
            ));
        };
        self.next_page = (items.len() >= PAGE_SIZE).then_some(page + 1);
        self.buffer.extend(items);
        Ok(())
    }

    /// The next page to fetch (marking a fetch as running), or why there is none.
    fn start(&mut self) -> Result<Option<u32>, PyErr> {
        if self.busy {
            return Err(PyRuntimeError::new_err(
                "this iterator is already fetching a page (iterate it from one place at a time)",
            ));
        }
        if let Some(page) = self.next_page {
            self.busy = true;
            return Ok(Some(page));
        }
        Ok(None)
    }
}

/// Iterator over every service task (from :meth:`Client.iter_service_tasks`).
///
/// Pages are fetched as the iteration reaches them, without holding the GIL.
///
/// Examples
/// --------
/// >>> for task in client.iter_service_tasks():
/// ...     print(task["task_id"])
#[pyclass(module = "monapi", frozen)]
pub struct ServiceTaskIterator {
    shared: Arc<Shared>,
    state: Arc<Mutex<Pages>>,
}

#[pymethods]
impl ServiceTaskIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            let page = {
                let mut pages = lock(&self.state);
                if let Some(item) = pages.buffer.pop_front() {
                    return Ok(Some(item));
                }
                match pages.start()? {
                    Some(page) => page,
                    None => return Ok(None),
                }
            };
            let _busy = NotBusy(self.state.clone());
            let body = self
                .shared
                .raw_blocking(py, Request::ServiceTasks { page })
                .and_then(|job| run_job(py, job))?;
            lock(&self.state).take_page(py, page, body.bind(py))?;
        }
    }
}

/// Async iterator over every service task (from :meth:`AsyncClient.iter_service_tasks`).
///
/// Examples
/// --------
/// >>> async for task in client.iter_service_tasks():
/// ...     print(task["task_id"])
#[pyclass(module = "monapi", frozen)]
pub struct ServiceTaskAsyncIterator {
    shared: Arc<Shared>,
    state: Arc<Mutex<Pages>>,
}

#[pymethods]
impl ServiceTaskAsyncIterator {
    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __anext__(&self, py: Python<'_>) -> PyResult<Awaitable> {
        let page = {
            let mut pages = lock(&self.state);
            if let Some(item) = pages.buffer.pop_front() {
                return Ok(Awaitable::ready("iter_service_tasks", Ok(item)));
            }
            match pages.start()? {
                Some(page) => page,
                None => return Err(PyStopAsyncIteration::new_err(())),
            }
        };
        // Busy until the page is stored, on the event loop: a second `__anext__` in between
        // would fetch the same page again. A fetch that fails or is cancelled drops the
        // conversion, and with it the guard.
        let busy = NotBusy(self.state.clone());
        let job = self.shared.raw(py, Request::ServiceTasks { page })?;
        let state = self.state.clone();
        Ok(Awaitable::new(
            "iter_service_tasks",
            Job {
                future: job.future,
                convert: Box::new(move |py, parsed| {
                    let _busy = busy;
                    let body = parsed.into_py(py)?;
                    let next = {
                        let mut pages = lock(&state);
                        pages.take_page(py, page, body.bind(py))?;
                        pages.buffer.pop_front()
                    };
                    next.ok_or_else(|| PyStopAsyncIteration::new_err(()))
                }),
            },
        ))
    }
}
