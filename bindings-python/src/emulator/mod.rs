//! `monapi.testing.Emulator`: the bundled emulator of the service, in this process, on
//! 127.0.0.1 and a free port: made, read and stopped here; its knobs (`knobs.rs`), clock
//! (`clock.rs`) and state (`state.rs`) each in a `#[pymethods]` block of their own.

use std::mem::ManuallyDrop;
use std::sync::Mutex;

use monapi_emulator::{Config, TimeUnit, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_PASSWORD, DEMO_USERNAME};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::clients::{AsyncClient, Client};

use crate::errors::to_pyerr;
use crate::runtime::lock;

mod clock;
mod knobs;
mod state;

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
/// Raises
/// ------
/// ValidationError
///     A setting is out of its range or malformed (``field`` names it).
/// RuntimeError
///     The emulator could not start (no free port, no thread).
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
    /// ...     client = monapi.Client(
    /// ...         base_url=emulator.base_url, ca_bundle=emulator.ca_pem.encode(),
    /// ...         client_id=emulator.client_id, client_secret=emulator.client_secret,
    /// ...         username=emulator.username, password=emulator.password)
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
    ///     A client of ``base_url`` with the demo credentials (trusting its CA with
    ///     ``tls=True``), the overrides applied.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     An override breaks a rule of the client's settings (nothing is sent).
    /// TypeError
    ///     An override is not a keyword of the client, or has a type it never takes.
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
    ///     As :meth:`client`, for asyncio.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     An override breaks a rule of the client's settings (nothing is sent).
    /// TypeError
    ///     An override is not a keyword of the client, or has a type it never takes.
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

    /// Stop serving and wait for the server thread (idempotent).
    ///
    /// Examples
    /// --------
    /// >>> emulator.stop()
    fn stop(&self, py: Python<'_>) {
        let running = lock(&self.running).take();
        py.detach(move || drop(running));
    }

    /// The emulator itself, for ``with Emulator() as emulator:``; the block's end stops it.
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Stop the emulator (:meth:`stop`) at the end of a ``with`` block; an exception of the
    /// block goes on.
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
