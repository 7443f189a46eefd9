//! `monapi.testing.Emulator`: the bundled emulator of the service, in this process, on
//! 127.0.0.1 and a free port, with its test knobs.

use std::mem::ManuallyDrop;
use std::sync::Mutex;

use monapi_emulator::{
    Config, FaultKind, Faults, PastEndPage, Quirks, TimeUnit, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET,
    DEMO_PASSWORD, DEMO_USERNAME,
};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::args::TaskId;
use crate::clients::{AsyncClient, Client};
use crate::decode::value_to_py;

use crate::errors::to_pyerr;
use crate::runtime::lock;

#[path = "emulator_clock.rs"]
mod clock;
use clock::refused;

struct Running {
    /// The process that started it: a forked child has a copy without its thread.
    pid: u32,
    emulator: ManuallyDrop<monapi_emulator::Emulator>,
}

impl Drop for Running {
    fn drop(&mut self) {
        // In a forked child, joining the server thread (which exists only in the parent)
        // would wait forever: the copy is leaked instead.
        if self.pid == std::process::id() {
            // SAFETY: dropped once, here; never used afterwards.
            unsafe { ManuallyDrop::drop(&mut self.emulator) }
        }
    }
}

/// The bundled emulator of the monitoring service, running in this process.
///
/// It serves every endpoint of the API on ``127.0.0.1`` and a free port, from data
/// generated from ``seed``, with the demo account (``client_id``, ``client_secret``,
/// ``username``, ``password``). Use it as a context manager or a pytest fixture; it stops
/// when closed, on :meth:`stop`, or when garbage collected (so keep a reference to it while
/// its clients are in use: ``Emulator().client()`` alone leaves a client of a stopped
/// emulator). Its ``repr`` shows no credential.
///
/// Parameters
/// ----------
/// seed : int, default 42
///     Seed of the generated data.
/// token_ttl : float, default 3600
///     Lifetime of the access tokens it issues, in seconds (at most 2^32 - 1).
/// latency : float, default 0
///     Seconds it waits before answering each API request (at most 2147483.647, about
///     24.9 days, the range of every language's emulator).
/// service_tasks : int, default 120
///     Number of service tasks, at most 100,000 (ids from 10001; 120 make three pages).
///     Created server tasks get ids from 30001, created service tasks from 200001.
/// site_tasks : int, default 5
///     Number of site tasks, at most 100,000 (ids from 20001; 51 make two pages of the
///     site task list).
/// refresh_token_ttl : float, default 1209600
///     Lifetime of the refresh tokens it issues, in seconds (14 days by default, as the
///     service's OAuth server; at most 2^32 - 1). A refresh with an older one gets
///     ``invalid_grant``.
/// tls : bool, default False
///     Serve HTTPS, with a certificate signed by a private CA made at start (see
///     :attr:`ca_pem` and :attr:`ca_path`; :meth:`client` trusts it already), as a
///     company's own CA signs its internal services.
/// timezone : str, default "+08:00"
///     The time zone of its days, "today" and the ``HH:MM`` times of service reports, as
///     an offset from UTC (``"+08:00"``, ``"-05:30"``, ``"UTC"``): the service's own zone by
///     default.
/// bandwidth_mbps : float, optional
///     The bandwidth of a modelled wide-area link, in Mbit/s (0.01 to 100000): answers are
///     written paced, all connections sharing it as one link. Unlimited by default.
/// rtt_ms : float, default 0
///     The round trip of that link, in milliseconds (at most 10000): each new connection
///     waits it once (twice with ``tls``), each answer once more.
/// compression : list of str, default ["gzip", "deflate"]
///     The encodings it compresses answers with when a request accepts them, the first
///     accepted winning, as the service's front end gzips; ``[]`` never compresses.
/// world : {"realistic", "stressed"}, default "realistic"
///     Sites up at almost every check with rare faults, or the stressed world of faults in
///     every report (a point of each site down today), for benchmarks.
/// now : datetime or str, optional
///     Fix its clock at this instant (an aware ``datetime``, RFC 3339 text, or a local date
///     and time such as ``"2026-11-01 10:02"``): no report has a check after it, and "today"
///     is its day. The system clock by default. See :meth:`set_now`.
///
/// Examples
/// --------
/// >>> from monapi.testing import Emulator
/// >>> with Emulator() as emulator:
/// ...     client = emulator.client()
/// ...     print(len(client.service_tasks()))
/// 50
///
/// As a pytest fixture:
///
/// >>> import pytest
/// >>> @pytest.fixture
/// ... def emulator():
/// ...     with Emulator(token_ttl=2) as emulator:
/// ...         yield emulator
#[pyclass(module = "monapi.testing", frozen)]
pub struct Emulator {
    running: Mutex<Option<Running>>,
    base_url: String,
    /// The private CA (PEM, and its file), when serving HTTPS.
    ca: Option<(String, String)>,
    timezone: String,
}

impl Emulator {
    fn with<T>(&self, f: impl FnOnce(&monapi_emulator::Emulator) -> T) -> PyResult<T> {
        match &*lock(&self.running) {
            Some(running) => Ok(f(&running.emulator)),
            None => Err(PyRuntimeError::new_err("the emulator is stopped")),
        }
    }

    fn client_kwargs<'py>(
        &self,
        py: Python<'py>,
        overrides: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("base_url", &self.base_url)?;
        kwargs.set_item("client_id", DEMO_CLIENT_ID)?;
        kwargs.set_item("client_secret", DEMO_CLIENT_SECRET)?;
        kwargs.set_item("username", DEMO_USERNAME)?;
        if let Some((_, path)) = &self.ca {
            kwargs.set_item("ca_bundle", path)?;
        }
        if overrides.is_none_or(|o| !o.contains("password_md5").unwrap_or(false)) {
            kwargs.set_item("password", DEMO_PASSWORD)?;
        }
        if let Some(overrides) = overrides {
            kwargs.update(overrides.as_mapping())?;
        }
        Ok(kwargs)
    }
}

#[pymethods]
impl Emulator {
    #[new]
    #[pyo3(signature = (*, seed=42, token_ttl=3600.0, latency=0.0, service_tasks=120, site_tasks=5, refresh_token_ttl=1209600.0, timezone=None, tls=false, compression=None, bandwidth_mbps=None, rtt_ms=0.0, world=None, now=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        seed: u64,
        token_ttl: f64,
        latency: f64,
        service_tasks: usize,
        site_tasks: usize,
        refresh_token_ttl: f64,
        timezone: Option<&str>,
        tls: bool,
        compression: Option<Vec<String>>,
        bandwidth_mbps: Option<f64>,
        rtt_ms: f64,
        world: Option<&str>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let timezone = match timezone {
            Some(text) => monapi::input::timezone(text).map_err(|e| to_pyerr(py, e))?,
            None => Config::default().timezone,
        };
        let config = Config {
            seed,
            token_ttl: monapi_emulator::token_ttl("token_ttl", token_ttl, TimeUnit::Seconds)
                .map_err(|e| refused(py, e))?,
            refresh_token_ttl: monapi_emulator::token_ttl(
                "refresh_token_ttl",
                refresh_token_ttl,
                TimeUnit::Seconds,
            )
            .map_err(|e| refused(py, e))?,
            latency: monapi_emulator::latency("latency", latency, TimeUnit::Seconds)
                .map_err(|e| refused(py, e))?,
            service_tasks,
            site_tasks,
            tls,
            timezone,
            compression: match compression {
                Some(names) => monapi_emulator::encodings(&names).map_err(|e| refused(py, e))?,
                None => Config::default().compression,
            },
            bandwidth_mbps: bandwidth_mbps
                .map(|mbps| monapi_emulator::bandwidth("bandwidth_mbps", mbps))
                .transpose()
                .map_err(|e| refused(py, e))?,
            rtt: monapi_emulator::rtt("rtt_ms", rtt_ms, TimeUnit::Milliseconds)
                .map_err(|e| refused(py, e))?,
            world: clock::world(py, world)?,
            now: now
                .map(|now| clock::instant(py, "now", now, timezone))
                .transpose()?,
            ..Config::default()
        };
        config.check().map_err(|e| refused(py, e))?;
        let emulator = py
            .detach(move || monapi_emulator::Emulator::spawn_thread(config))
            .map_err(|e| PyRuntimeError::new_err(format!("the emulator could not start: {e}")))?;
        let ca = emulator
            .ca_pem()
            .zip(emulator.ca_path())
            .map(|(pem, path)| (pem.to_string(), path.display().to_string()));
        Ok(Emulator {
            base_url: emulator.base_url().to_string(),
            ca,
            timezone: emulator.timezone().to_string(),
            running: Mutex::new(Some(Running {
                pid: std::process::id(),
                emulator: ManuallyDrop::new(emulator),
            })),
        })
    }

    /// ``http://127.0.0.1:PORT`` (``https://`` with ``tls=True``): pass it as ``base_url``.
    ///
    /// Examples
    /// --------
    /// >>> emulator.base_url.startswith("http://127.0.0.1:")
    /// True
    #[getter]
    fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The private CA's certificate (PEM text) when the emulator serves HTTPS
    /// (``Emulator(tls=True)``), else ``None``. :meth:`client` trusts it already.
    ///
    /// Examples
    /// --------
    /// >>> with Emulator(tls=True) as emulator:
    /// ...     client = monapi.Client(base_url=emulator.base_url, ca_bundle=emulator.ca_pem.encode(),
    /// ...                            client_id=emulator.client_id, client_secret=emulator.client_secret,
    /// ...                            username=emulator.username, password=emulator.password)
    #[getter]
    fn ca_pem(&self) -> Option<String> {
        self.ca.as_ref().map(|(pem, _)| pem.clone())
    }

    /// The path of a file holding :attr:`ca_pem` (removed when the emulator stops) when the
    /// emulator serves HTTPS, else ``None``: give it as ``ca_bundle`` or ``SSL_CERT_FILE``.
    ///
    /// Examples
    /// --------
    /// >>> with Emulator(tls=True) as emulator:
    /// ...     client = emulator.client()      # trusts the CA already
    /// ...     other = monapi.Client(base_url=emulator.base_url, ca_bundle=emulator.ca_path, ...)
    #[getter]
    fn ca_path(&self) -> Option<String> {
        self.ca.as_ref().map(|(_, path)| path.clone())
    }

    /// The time zone of its days, as an offset from UTC (``"+08:00"`` unless started with
    /// another ``timezone``).
    ///
    /// Examples
    /// --------
    /// >>> Emulator(timezone="UTC").timezone
    /// '+00:00'
    #[getter]
    fn timezone(&self) -> String {
        self.timezone.clone()
    }

    /// The demo client id (``demo_id``).
    ///
    /// Examples
    /// --------
    /// >>> emulator.client_id
    /// 'demo_id'
    #[getter]
    fn client_id(&self) -> &'static str {
        DEMO_CLIENT_ID
    }

    /// The demo client secret.
    ///
    /// Examples
    /// --------
    /// >>> client = monapi.Client(base_url=emulator.base_url, client_id=emulator.client_id,
    /// ...     client_secret=emulator.client_secret, username=emulator.username,
    /// ...     password=emulator.password)
    #[getter]
    fn client_secret(&self) -> &'static str {
        DEMO_CLIENT_SECRET
    }

    /// The demo account's login (``test@example.com``).
    ///
    /// Examples
    /// --------
    /// >>> emulator.username
    /// 'test@example.com'
    #[getter]
    fn username(&self) -> &'static str {
        DEMO_USERNAME
    }

    /// The demo account's password (plain text).
    ///
    /// Examples
    /// --------
    /// >>> client = emulator.client(password=emulator.password)
    #[getter]
    fn password(&self) -> &'static str {
        DEMO_PASSWORD
    }

    /// Whether it is serving (not stopped).
    ///
    /// Examples
    /// --------
    /// >>> emulator.stop()
    /// >>> emulator.running
    /// False
    #[getter]
    fn running(&self) -> bool {
        lock(&self.running).is_some()
    }

    /// A :class:`monapi.Client` for the demo account of this emulator.
    ///
    /// Parameters
    /// ----------
    /// **overrides
    ///     Any :class:`monapi.Client` keyword, e.g. ``timeout=0.5`` or
    ///     ``client_secret="wrong"``.
    ///
    /// Returns
    /// -------
    /// Client
    ///
    /// Examples
    /// --------
    /// >>> client = emulator.client(max_retries=0)
    /// >>> len(client.service_tasks())
    /// 50
    #[pyo3(signature = (**overrides))]
    fn client(&self, py: Python<'_>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let kwargs = self.client_kwargs(py, overrides)?;
        Ok(py.get_type::<Client>().call((), Some(&kwargs))?.unbind())
    }

    /// A :class:`monapi.AsyncClient` for the demo account of this emulator.
    ///
    /// Parameters
    /// ----------
    /// **overrides
    ///     Any :class:`monapi.AsyncClient` keyword.
    ///
    /// Returns
    /// -------
    /// AsyncClient
    ///
    /// Examples
    /// --------
    /// >>> async with emulator.async_client() as client:
    /// ...     agents = await client.agents()
    #[pyo3(signature = (**overrides))]
    fn async_client(&self, py: Python<'_>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let kwargs = self.client_kwargs(py, overrides)?;
        Ok(py.get_type::<AsyncClient>().call((), Some(&kwargs))?.unbind())
    }

    /// Set the lifetime of the access tokens issued from now on.
    ///
    /// Parameters
    /// ----------
    /// seconds : float
    ///
    /// Examples
    /// --------
    /// >>> emulator.set_token_ttl(1.0)
    fn set_token_ttl(&self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        let ttl =
            monapi_emulator::token_ttl("seconds", seconds, TimeUnit::Seconds).map_err(|e| refused(py, e))?;
        self.with(|e| e.set_token_ttl(ttl))
    }

    /// Set the delay before every API answer, from the next request on.
    ///
    /// Parameters
    /// ----------
    /// seconds : float
    ///
    /// Examples
    /// --------
    /// >>> emulator.set_latency(0.5)
    fn set_latency(&self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        let latency =
            monapi_emulator::latency("seconds", seconds, TimeUnit::Seconds).map_err(|e| refused(py, e))?;
        self.with(|e| e.set_latency(latency))
    }

    /// Inject faults into the API answers (replacing earlier settings).
    ///
    /// Faults in ``next`` are served first, one per request in order; after that each
    /// request gets a fault with the given share (0.0 to 1.0). Call with no argument to
    /// turn faults off. Settings the emulator refuses change nothing.
    ///
    /// Parameters
    /// ----------
    /// error_500, error_503, error_429 : float, default 0.0
    ///     Shares of requests answered with that HTTP error (503 and 429 with
    ///     ``Retry-After``).
    /// retry_after_secs : int, default 0
    ///     The ``Retry-After`` value sent with 429 and 503.
    /// drop_connection : float, default 0.0
    ///     Share of requests whose connection is closed without an answer.
    /// truncated_body : float, default 0.0
    ///     Share of answers cut in half.
    /// malformed_body : float, default 0.0
    ///     Share of answers that are an HTML error page instead of JSON.
    /// corrupt_gzip : float, default 0.0
    ///     Share of answers sent as gzip that does not decompress.
    /// next : list of str, optional
    ///     Faults for the next requests: ``"error_500"``, ``"error_503"``,
    ///     ``"error_429"``, ``"drop_connection"``, ``"truncated_body"``,
    ///     ``"malformed_body"``, ``"corrupt_gzip"``.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     A share outside 0.0 to 1.0 (or NaN), or an unknown fault in ``next``; ``field``
    ///     names it (``"error_503"``, ``"next"``).
    ///
    /// Examples
    /// --------
    /// >>> emulator.set_faults(next=["error_503", "drop_connection"])
    /// >>> emulator.set_faults()   # off
    #[pyo3(signature = (*, error_500=0.0, error_503=0.0, error_429=0.0, retry_after_secs=0, drop_connection=0.0,
        truncated_body=0.0, malformed_body=0.0, corrupt_gzip=0.0, next=None))]
    #[allow(clippy::too_many_arguments)]
    fn set_faults(
        &self,
        py: Python<'_>,
        error_500: f64,
        error_503: f64,
        error_429: f64,
        retry_after_secs: u64,
        drop_connection: f64,
        truncated_body: f64,
        malformed_body: f64,
        corrupt_gzip: f64,
        next: Option<Vec<String>>,
    ) -> PyResult<()> {
        let next = next
            .unwrap_or_default()
            .iter()
            .map(|name| name.parse::<FaultKind>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| refused(py, e))?;
        let faults = Faults {
            error_500,
            error_503,
            error_429,
            retry_after_secs,
            drop_connection,
            truncated_body,
            malformed_body,
            corrupt_gzip,
            next,
        };
        self.with(|e| e.set_faults(faults))?.map_err(|e| refused(py, e))
    }

    /// Make some answers take the shapes the real service (a PHP application) may send
    /// (replacing earlier settings; call with no argument to turn them all off).
    ///
    /// PHP's ``json_encode`` writes an empty keyed array as ``[]``. The quirks apply from the
    /// next request on; :meth:`reset` turns them off.
    ///
    /// Parameters
    /// ----------
    /// past_end_page : {"array", "object", "null", "status"}, default "array"
    ///     The body of a service task list page past the last one: ``[]``, ``{}``, ``null``
    ///     or ``{"code":0,"msg":"no more data"}``.
    /// no_agents : bool, default False
    ///     The account has no agents: the agent list is ``[]`` (and no plugin can be used
    ///     when creating server tasks).
    /// no_checks : bool, default False
    ///     Every range has no checks: a service report and a response-time distribution are
    ///     ``[]``; a site report keeps its monitoring points, each with ``"uprate": []``,
    ///     ``"fault": []`` and ``"resptime": []``.
    /// keyed_lists : bool, default False
    ///     The site task list, the monitoring points, the users and the groups arrive as PHP
    ///     keyed arrays (JSON objects keyed by id) instead of lists, as the agent list does.
    /// rotating_refresh_tokens : bool, default False
    ///     The refresh grant issues a new refresh token and retires the one used (by
    ///     default, as the service's OAuth server, it issues none and the used one stays
    ///     valid).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``past_end_page`` is not one of the four names (``field`` is ``"past_end_page"``).
    ///
    /// Examples
    /// --------
    /// >>> emulator.set_quirks(past_end_page="object", no_agents=True)
    /// >>> emulator.client().service_tasks(page=4)   # the service sent {}
    /// >>> emulator.set_quirks()   # off
    #[pyo3(signature = (*, past_end_page="array", no_agents=false, no_checks=false, keyed_lists=false, rotating_refresh_tokens=false))]
    fn set_quirks(
        &self,
        py: Python<'_>,
        past_end_page: &str,
        no_agents: bool,
        no_checks: bool,
        keyed_lists: bool,
        rotating_refresh_tokens: bool,
    ) -> PyResult<()> {
        let past_end_page: PastEndPage = past_end_page.parse().map_err(|e| refused(py, e))?;
        let quirks = Quirks {
            past_end_page,
            no_agents,
            no_checks,
            keyed_lists,
            rotating_refresh_tokens,
        };
        self.with(|e| e.set_quirks(quirks))
    }

    /// Make every access token issued so far expire now (refresh tokens stay valid).
    ///
    /// Examples
    /// --------
    /// >>> emulator.expire_tokens()
    fn expire_tokens(&self) -> PyResult<()> {
        self.with(|e| e.expire_tokens())
    }

    /// Make every refresh token invalid: the next refresh gets ``invalid_grant``.
    ///
    /// Examples
    /// --------
    /// >>> emulator.revoke_refresh_tokens()
    fn revoke_refresh_tokens(&self) -> PyResult<()> {
        self.with(|e| e.revoke_refresh_tokens())
    }

    /// Make every refresh token issued so far expire now: the next refresh gets
    /// ``invalid_grant``, "Refresh token has expired".
    ///
    /// Examples
    /// --------
    /// >>> emulator.expire_refresh_tokens()
    fn expire_refresh_tokens(&self) -> PyResult<()> {
        self.with(|e| e.expire_refresh_tokens())
    }

    /// Back to the state at start: counters zero, knobs as started (no faults, no quirks, the
    /// clock as configured), created tasks gone, every token revoked, no site failing, every
    /// removed task back.
    ///
    /// Examples
    /// --------
    /// >>> emulator.reset()
    /// >>> emulator.counters()["total"]
    /// 0
    fn reset(&self) -> PyResult<()> {
        self.with(|e| e.reset())
    }

    /// The emulator's clock, an aware ``datetime`` in UTC: no report has a check after it.
    ///
    /// Examples
    /// --------
    /// >>> Emulator(now="2026-11-01T10:02:00+08:00").now.isoformat()
    /// '2026-11-01T02:02:00+00:00'
    #[getter]
    fn now(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        clock::to_datetime(py, self.with(|e| e.now())?)
    }

    /// The world of its reports, ``"realistic"`` or ``"stressed"``.
    ///
    /// Examples
    /// --------
    /// >>> Emulator(world="stressed").world
    /// 'stressed'
    #[getter]
    fn world(&self) -> PyResult<&'static str> {
        self.with(|e| e.world().name())
    }

    /// Fix its clock at ``now`` (as the ``now`` option takes it), or with ``None`` make it
    /// follow the system clock, from the next request on.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``now`` is before 00:00 of the day its task lists were built for (its clock's day
    ///     at start; their last checks would come after it), or not an instant.
    ///
    /// Examples
    /// --------
    /// >>> emulator.set_now("2026-11-01 10:02")
    fn set_now(&self, py: Python<'_>, now: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let timezone = self.with(|e| e.timezone())?;
        let now = now
            .map(|now| clock::instant(py, "now", now, timezone))
            .transpose()?;
        self.with(|e| e.set_now(now))?.map_err(|e| refused(py, e))
    }

    /// Fix its clock ``seconds`` later than its reading; returns the new reading.
    ///
    /// Examples
    /// --------
    /// >>> later = emulator.advance(300)
    fn advance(&self, py: Python<'_>, seconds: f64) -> PyResult<Py<PyAny>> {
        let by =
            monapi_emulator::token_ttl("seconds", seconds, TimeUnit::Seconds).map_err(|e| refused(py, e))?;
        let now = self.with(|e| e.advance(by))?.map_err(|e| refused(py, e))?;
        clock::to_datetime(py, now)
    }

    /// Requests served so far, by endpoint.
    ///
    /// Returns
    /// -------
    /// dict
    ///     ``token``, ``token_password``, ``token_refresh``, ``create``,
    ///     ``service_tasks``, ``agents``, ``service_report``, ``site_report``,
    ///     ``distribution``, ``site_tasks``, ``site_task``, ``monitors``, ``users``,
    ///     ``groups``, ``create_service`` and ``total``; ``connections`` counts the TCP connections
    ///     accepted (over HTTPS too, even when the client refused the certificate), and
    ///     ``peak_in_progress`` the most API requests in progress at once.
    ///
    /// Examples
    /// --------
    /// >>> emulator.counters()["token_refresh"]
    /// 0
    fn counters(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let counters = self.with(|e| e.counters())?;
        let value = serde_json::to_value(counters).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(value_to_py(py, &value)?.unbind())
    }

    /// The server tasks created so far, as stored (the submitted fields plus ``task_id``).
    ///
    /// Returns
    /// -------
    /// list of dict
    ///
    /// Examples
    /// --------
    /// >>> [t["server_name"] for t in emulator.server_tasks()]
    /// ['web-01']
    fn server_tasks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let tasks = self.with(|e| e.server_tasks())?;
        Ok(value_to_py(py, &serde_json::Value::Array(tasks))?.unbind())
    }

    /// The service tasks created so far, as stored (the submitted fields plus ``task_id``).
    ///
    /// Returns
    /// -------
    /// list of dict
    ///
    /// Examples
    /// --------
    /// >>> [t["task_type"] for t in emulator.created_service_tasks()]
    /// ['nginx']
    fn created_service_tasks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let tasks = self.with(|e| e.created_service_tasks())?;
        Ok(value_to_py(py, &serde_json::Value::Array(tasks))?.unbind())
    }

    /// Make site task ``task_id`` fail from now on, at every monitoring point.
    ///
    /// From the site's last check at or before this moment (the moment rounded down to its
    /// frequency), every check of every point fails: ``uprate`` ``"0.00"`` (the average's
    /// too) and response times of ``"0.00"``; each point has an ongoing fault (``end_time``
    /// ``"未结束"``) starting at that check, with a cause of the service's. Until
    /// :meth:`recover_site` or :meth:`reset`; a site already failing stays as it is.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task of this emulator (20001, 20002, ...).
    ///
    /// Returns
    /// -------
    /// int
    ///     The unix time of the first failed check (the faults' ``start_time``).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its site tasks (``field`` is ``"task_id"``).
    ///
    /// Examples
    /// --------
    /// >>> since = emulator.fail_site(20001)
    /// >>> report = client.site_report(20001)
    /// >>> report["0"]["uprate"][str(since)]["uprate"]
    /// '0.00'
    fn fail_site(&self, py: Python<'_>, task_id: TaskId) -> PyResult<i64> {
        self.with(|e| e.fail_site(task_id.0))?.map_err(|e| refused(py, e))
    }

    /// End the failure of site task ``task_id`` (:meth:`fail_site`).
    ///
    /// Its last check at or before this moment failed still; the check after it is up again
    /// and is the faults' ``end_time`` (no longer ``"未结束"``), and the checks from it on are
    /// as before the failure.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task of this emulator.
    ///
    /// Returns
    /// -------
    /// int or None
    ///     The unix time of the first check up again, or ``None`` when the site was not
    ///     failing (nothing changes).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its site tasks.
    ///
    /// Examples
    /// --------
    /// >>> up = emulator.recover_site(20001)
    fn recover_site(&self, py: Python<'_>, task_id: TaskId) -> PyResult<Option<i64>> {
        self.with(|e| e.recover_site(task_id.0))?
            .map_err(|e| refused(py, e))
    }

    /// Take seeded task ``task_id`` out of the account, as a user deleting it in the
    /// service's console.
    ///
    /// From the next request on, its list (:meth:`monapi.Client.service_tasks` or
    /// :meth:`monapi.Client.site_tasks`) is paged without it, 50 a page (the later pages
    /// shift), and every operation naming it (reports, response-time distribution,
    /// :meth:`monapi.Client.site_task`) answers as for an id that does not exist. Until
    /// :meth:`restore_task` or :meth:`reset`.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A service task (10001, 10002, ...) or a site task (20001, 20002, ...) of this
    ///     emulator.
    ///
    /// Returns
    /// -------
    /// bool
    ///     Whether anything changed (``False`` for a task removed already).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its seeded tasks (``field`` is ``"task_id"``).
    ///
    /// Examples
    /// --------
    /// >>> emulator.remove_task(20002)
    /// True
    /// >>> [t["task_id"] for t in client.site_tasks()]
    /// ['20001', '20003', '20004', '20005']
    fn remove_task(&self, py: Python<'_>, task_id: TaskId) -> PyResult<bool> {
        self.with(|e| e.remove_task(task_id.0))?
            .map_err(|e| refused(py, e))
    }

    /// Bring back task ``task_id`` taken out by :meth:`remove_task`, at its place in its list.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A seeded task of this emulator.
    ///
    /// Returns
    /// -------
    /// bool
    ///     Whether anything changed (``False`` for a task that was not removed).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its seeded tasks.
    ///
    /// Examples
    /// --------
    /// >>> emulator.restore_task(20002)
    /// True
    fn restore_task(&self, py: Python<'_>, task_id: TaskId) -> PyResult<bool> {
        self.with(|e| e.restore_task(task_id.0))?
            .map_err(|e| refused(py, e))
    }

    /// Stop serving and wait for the server thread (idempotent).
    ///
    /// Examples
    /// --------
    /// >>> emulator.stop()
    fn stop(&self, py: Python<'_>) {
        let running = lock(&self.running).take();
        py.detach(move || drop(running));
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.stop(py);
        false
    }

    fn __repr__(&self) -> String {
        let state = if self.running() { "running" } else { "stopped" };
        format!("<monapi.testing.Emulator {} {state}>", self.base_url)
    }
}
