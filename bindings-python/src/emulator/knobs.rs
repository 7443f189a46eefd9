//! `monapi.testing.Emulator`'s knobs: token lifetimes, latency, faults, quirks, expiry and
//! reset, each applied from the next request on.

use monapi_emulator::{FaultKind, Faults, PastEndPage, Quirks, TimeUnit};
use pyo3::prelude::*;

use super::clock::refused;
use super::Emulator;

#[pymethods]
impl Emulator {
    /// Set the lifetime of the access tokens issued from now on.
    ///
    /// Parameters
    /// ----------
    /// seconds : float
    ///     The lifetime, 0 to 4294967295 seconds (about 136 years).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``seconds`` is negative, NaN or too large (nothing changes).
    /// RuntimeError
    ///     The emulator is stopped.
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
    ///     The delay, 0 to 2147483.647 seconds (about 24.9 days).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``seconds`` is negative, NaN or too large (nothing changes).
    /// RuntimeError
    ///     The emulator is stopped.
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
    /// RuntimeError
    ///     The emulator is stopped.
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
    /// RuntimeError
    ///     The emulator is stopped.
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
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> emulator.expire_tokens()
    fn expire_tokens(&self) -> PyResult<()> {
        self.with(|e| e.expire_tokens())
    }

    /// Make every refresh token invalid: the next refresh gets ``invalid_grant``.
    ///
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
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
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
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
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> emulator.reset()
    /// >>> emulator.counters()["total"]
    /// 0
    fn reset(&self) -> PyResult<()> {
        self.with(|e| e.reset())
    }
}
