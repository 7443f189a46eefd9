//! The clock and the world of `monapi.testing.Emulator` (its `now=` and `world=` options,
//! `now`, `set_now()`, `advance()`): Python's values to the emulator crate's, whose rules
//! (`monapi_emulator::instant`, `World`'s names) decide what is taken.

use chrono::{DateTime, FixedOffset, Utc};
use monapi_emulator::{ConfigError, TimeUnit, World};
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::Emulator;
use crate::errors::validation;

/// A setting the emulator refused, as a `ValidationError` naming it and the rule.
pub(crate) fn refused(py: Python<'_>, error: ConfigError) -> PyErr {
    validation(py, None, error.field(), error.rule())
}

/// `world=`: `"realistic"` (None) or `"stressed"`.
pub(crate) fn world(py: Python<'_>, name: Option<&str>) -> PyResult<World> {
    name.map_or(Ok(World::default()), |name| {
        name.parse().map_err(|e| refused(py, e))
    })
}

/// An instant given as `field`: text (RFC 3339, or a local date and time in `timezone`), or
/// an aware `datetime` (a naive one would read in the machine's zone: refused).
pub(crate) fn instant(
    py: Python<'_>,
    field: &str,
    value: &Bound<'_, PyAny>,
    timezone: FixedOffset,
) -> PyResult<DateTime<Utc>> {
    if let Ok(text) = value.cast::<PyString>() {
        return monapi_emulator::instant(field, &text.to_cow()?, timezone).map_err(|e| refused(py, e));
    }
    let rule = "must be an aware datetime (with a tzinfo) or text such as \"2026-11-01T10:02:00+08:00\"";
    let aware = value
        .getattr("utcoffset")
        .and_then(|utcoffset| utcoffset.call0())
        .is_ok_and(|offset| !offset.is_none());
    if !aware {
        return Err(validation(py, None, field, rule));
    }
    let seconds: f64 = value.call_method0("timestamp")?.extract()?;
    let whole = seconds.floor();
    DateTime::from_timestamp(whole as i64, ((seconds - whole) * 1e9) as u32)
        .ok_or_else(|| validation(py, None, field, rule))
}

/// `instant` as an aware `datetime` in UTC.
pub(crate) fn to_datetime(py: Python<'_>, instant: DateTime<Utc>) -> PyResult<Py<PyAny>> {
    let datetime = py.import("datetime")?;
    let utc = datetime.getattr("timezone")?.getattr("utc")?;
    let seconds = instant.timestamp() as f64 + f64::from(instant.timestamp_subsec_micros()) / 1e6;
    Ok(datetime
        .getattr("datetime")?
        .call_method1("fromtimestamp", (seconds, utc))?
        .unbind())
}

#[pymethods]
impl Emulator {
    /// The emulator's clock, an aware ``datetime`` in UTC: no report has a check after it.
    ///
    /// Examples
    /// --------
    /// >>> Emulator(now="2026-11-01T10:02:00+08:00").now.isoformat()
    /// '2026-11-01T02:02:00+00:00'
    #[getter]
    fn now(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_datetime(py, self.with(|e| e.now())?)
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
    /// Parameters
    /// ----------
    /// now : datetime or str or None
    ///     An aware ``datetime``, RFC 3339 text, or a local date and time in its
    ///     ``timezone`` such as ``"2026-11-01 10:02"``; ``None``: the system clock.
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``now`` is before 00:00 of the day its task lists were built for (its clock's day
    ///     at start; their last checks would come after it), or not an instant.
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> emulator.set_now("2026-11-01 10:02")
    fn set_now(&self, py: Python<'_>, now: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let timezone = self.with(|e| e.timezone())?;
        let now = now.map(|now| instant(py, "now", now, timezone)).transpose()?;
        self.with(|e| e.set_now(now))?.map_err(|e| refused(py, e))
    }

    /// Fix its clock ``seconds`` later than its reading.
    ///
    /// Parameters
    /// ----------
    /// seconds : float
    ///     How far to move it, 0 to 4294967295 seconds.
    ///
    /// Returns
    /// -------
    /// datetime
    ///     The new reading, an aware ``datetime`` in UTC (as :attr:`now`).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``seconds`` is negative, NaN or too large, or the clock would pass the last
    ///     instant it can read (nothing changes).
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> later = emulator.advance(300)
    fn advance(&self, py: Python<'_>, seconds: f64) -> PyResult<Py<PyAny>> {
        let by =
            monapi_emulator::token_ttl("seconds", seconds, TimeUnit::Seconds).map_err(|e| refused(py, e))?;
        let now = self.with(|e| e.advance(by))?.map_err(|e| refused(py, e))?;
        to_datetime(py, now)
    }
}
