//! `monapi.Client` (blocking: every call waits without holding the GIL) and
//! `monapi.AsyncClient` (asyncio: every call returns an awaitable), declared once: each
//! method is written once in a macro that makes it in the class of each mode (`mode.rs`).
//! Here the client itself (`client_methods!`: making it, tokens, `tables`, `request`,
//! closing, pickling); `tasks.rs` the task lists, the account's lists and creation;
//! `reports.rs` the reports and `sync`. Each is a `#[pymethods]` block of its own.

mod reports;
mod tasks;

use std::sync::Arc;

use monapi::{Method, Request};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::PyTraverseError;

use crate::args::Params;
use crate::bridge::Awaitable;
use crate::errors::to_pyerr;
use crate::mode::{Async, Blocking, Mode};
use crate::options;
use crate::pickle;
use crate::shared::Shared;
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
/// All parameters are keyword-only; any left out is read from its environment variable
/// (``MONAPI_BASE_URL``, ``MONAPI_PASSWORD_FILE``, ``MONAPI_TIMEOUT`` in seconds, ...:
/// every setting has one). With no password and no client secret from anywhere, the systemd
/// credentials ``monapi.password`` and ``monapi.client_secret`` of
/// ``$CREDENTIALS_DIRECTORY`` are read when they exist.
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
/// password_file : str or os.PathLike, optional
///     A file holding the password, instead of ``password``: read once when the client is
///     made, one trailing newline dropped. Keeps the password out of code, command lines
///     and the environment.
/// client_secret_file : str or os.PathLike, optional
///     A file holding the client secret, instead of ``client_secret``, read as
///     ``password_file`` is.
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
///     Where to keep a Parquet store of the report tables (also ``MONAPI_STORE``): a
///     directory, or a bucket's prefix, ``s3://bucket/prefix``, ``gs://bucket/prefix`` or
///     ``az://container/prefix``. ``client.tables`` then reads the settled days it holds and
///     keeps those it fetches, and :meth:`sync` brings it up to date. One file per task and
///     day, ``<store>/<kind>/day=YYYY-MM-DD/task-<id>.parquet``, which DuckDB, polars,
///     pyarrow and Dask read as a Hive-partitioned dataset. A store that cannot be read or
///     written raises :class:`StoreError` in the call that uses it.
/// storage_options : dict of str to str, optional
///     Options of a store in a bucket, as ``object_store`` names them (``aws_endpoint_url``,
///     ``aws_region``, ``aws_access_key_id``, ``aws_secret_access_key``,
///     ``azure_storage_account_name``, ...); they override the cloud's own variables
///     (``AWS_*``, ``GOOGLE_*``, ``AZURE_*``), which are read too. Keys, tokens and secrets
///     never show in an error or a repr. An unknown name raises ``ValidationError``.
/// settle : float, optional
///     Seconds after a day ends (in ``timezone``) before it counts as settled and is kept
///     in the store (default 7200, two hours); later days are fetched every time.
/// propagate_trace_context : bool, optional
///     Whether each request carries the caller's W3C trace context to the service (a
///     ``traceparent`` header naming the caller's current OpenTelemetry span), so that a
///     service that traces can join its spans to the caller's (default ``False``: the
///     service is a third party, and the header tells it the caller's trace and span ids).
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
/// With OpenTelemetry set up in the program (``opentelemetry-api`` imported and a
/// ``TracerProvider`` or ``MeterProvider`` set), every call is a span ``monapi <operation>``
/// under the caller's current span, with a CLIENT span per HTTP attempt and one per token
/// request (a bulk call or :meth:`sync`: one span, with a child per task), and its attempts
/// are measured (the histogram ``http.client.request.duration`` and the counter
/// ``monapi.client.retries``). No span attribute holds a secret. Without OpenTelemetry
/// nothing is recorded; monapi does not depend on it.
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
            /// TimeoutError
            ///     The token endpoint gave no complete answer within ``timeout``.
            /// ConnectionError
            ///     The token endpoint could not be reached, or the connection broke.
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
            /// TimeoutError
            ///     The token endpoint gave no complete answer within ``timeout``.
            /// ConnectionError
            ///     The token endpoint could not be reached, or the connection broke.
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
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``).
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a GET is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not JSON.
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

            /// Close the client: later calls raise :class:`MonapiError` ("the client is closed"), and
            /// its connections are released once the calls and iterators still using them are done.
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

            /// Pickle support: the client's settings and current token, secrets included (the
            /// ``repr`` of the state hides them); ``on_token`` is left out. Unpickled, it is a new
            /// client of the same account.
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                pickle::reduce(slf.py(), slf.as_any(), &slf.get().shared)
            }
        }
    };
}

client_methods!(Client, Blocking, Py<PyAny>, Tables, TaskIterator, {
    /// The client itself, for ``with monapi.Client() as client:``; the block's end closes
    /// it.
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Close the client (:meth:`close`) at the end of a ``with`` block; an exception of the
    /// block goes on.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> bool {
        self.shared.close();
        false
    }
});

client_methods!(AsyncClient, Async, Awaitable, AsyncTables, AsyncTaskIterator, {
    /// An awaitable of the client itself, for ``async with monapi.AsyncClient() as
    /// client:``; the block's end closes it.
    fn __aenter__(slf: &Bound<'_, Self>) -> Awaitable {
        Awaitable::ready("__aenter__", Ok(slf.clone().into_any().unbind()))
    }

    /// Close the client (:meth:`close`) at the end of an ``async with`` block; an exception
    /// of the block goes on.
    #[pyo3(signature = (*_exc))]
    fn __aexit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> Awaitable {
        self.shared.close();
        let done = false.into_pyobject(py).map(|b| b.to_owned().into_any().unbind());
        Awaitable::ready("__aexit__", Ok(done.unwrap_or_else(|_| py.None())))
    }
});
