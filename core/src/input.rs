//! The rules of the caller's arguments, and conversions for values that arrive loosely typed
//! (numbers from JavaScript and Python, ids given as numbers or strings).
//!
//! The typed API checks the same rules when a request is prepared or a client is built; the
//! Python and Node packages call these functions instead of writing a bound of their own, so
//! every language accepts and refuses the same values with the same words.
//!
//! ```
//! use monapi::input::{self, Id};
//! assert_eq!(input::page(2.0).unwrap(), 2);
//! assert_eq!(input::page(0.0).unwrap_err().field(), Some("page"));
//! assert_eq!(input::task_id(Id::Text("10001")).unwrap(), 10001);
//! assert!(input::task_id(Id::Int(0)).is_err());
//! ```

use std::time::Duration;

use chrono::FixedOffset;

use crate::{Error, Monitor, Result};

/// The most retries a client may make of one read (`max_retries`).
pub const MAX_RETRIES: usize = 100;

/// The most `max_connections` may be.
pub const MAX_CONNECTIONS: usize = 10_000;

/// The longest timeout: 2^31 - 1 milliseconds (about 24.8 days), the longest delay
/// JavaScript's timers take, so that one bound serves every language.
pub const MAX_TIMEOUT: Duration = Duration::from_millis(2_147_483_647);

/// The rule of `page` (pages count from 1; the service takes 32-bit page numbers).
pub(crate) const PAGE_RULE: &str = "must be a whole number from 1 to 4294967295 (pages count from 1)";
/// The rule of a task id.
pub(crate) const ID_RULE: &str = "must be a positive whole number (an id), or a string of its digits";
/// The rule of `monitor`.
const MONITOR_RULE: &str =
    "must be 0 (the average) or a monitoring point id: a whole number, or a string of its digits";

/// An id as another language hands it over: a whole number, a floating-point number (every
/// JavaScript number; a Python `float`; up to 2^53 - 1, past which it cannot hold every whole
/// number) or text (the service's lists send ids as strings).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Id<'a> {
    /// An integer.
    Int(i128),
    /// A floating-point number; it must be whole.
    Float(f64),
    /// Decimal digits, nothing else (no sign, no spaces).
    Text(&'a str),
}

/// The largest whole number a float holds exactly with every smaller one (2^53 - 1): an id
/// past it may have been rounded on its way here.
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_991.0;

/// A whole number of 0 or more from an [`Id`], or `None`.
fn whole(value: Id<'_>) -> Option<u64> {
    match value {
        Id::Int(n) => u64::try_from(n).ok(),
        Id::Float(f) => whole_f64(f, MAX_EXACT_FLOAT),
        Id::Text(text) => {
            let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
            digits.then(|| text.parse().ok()).flatten()
        }
    }
}

/// `value` as a whole number from 0 to `max`, or `None` (fractions, NaN, infinities).
fn whole_f64(value: f64, max: f64) -> Option<u64> {
    (value.fract() == 0.0 && (0.0..=max).contains(&value)).then_some(value as u64)
}

/// A task id (`task_id`): a whole number from 1 to 2^63 - 1 (the tables hold ids as signed
/// 64-bit integers, which every engine reads).
///
/// ```
/// use monapi::input::{task_id, Id};
/// assert_eq!(task_id(Id::Float(20001.0)).unwrap(), 20001);
/// assert_eq!(task_id(Id::Text("-1")).unwrap_err().field(), Some("task_id"));
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `task_id` when `value` is not a whole number above 0: 0,
/// negative, a fraction, a float beyond 2^53 - 1, text other than digits, or beyond 2^63 - 1.
pub fn task_id(value: Id<'_>) -> Result<u64> {
    whole(value)
        .filter(|id| (1..=crate::model::de::MAX_WHOLE).contains(id))
        .ok_or_else(|| Error::invalid_input(None, "task_id", ID_RULE))
}

/// Checks a task id of the typed API: from 1 to 2^63 - 1.
pub(crate) fn check_task_id(id: u64) -> Result<()> {
    task_id(Id::Int(id.into())).map(drop)
}

/// `monitor` of a site report: `None` for every point, `0` for the average, another id for
/// that point.
///
/// ```
/// use monapi::{input::{monitor, Id}, Monitor};
/// assert_eq!(monitor(None).unwrap(), Monitor::All);
/// assert_eq!(monitor(Some(Id::Int(0))).unwrap(), Monitor::Average);
/// assert_eq!(monitor(Some(Id::Text("3"))).unwrap(), Monitor::Point(3));
/// assert!(monitor(Some(Id::Int(-1))).is_err());
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `monitor` when `value` is not a whole number of 0 or more,
/// read as for [`task_id`].
pub fn monitor(value: Option<Id<'_>>) -> Result<Monitor> {
    let Some(value) = value else {
        return Ok(Monitor::All);
    };
    match whole(value) {
        Some(0) => Ok(Monitor::Average),
        Some(id) => Ok(Monitor::Point(id)),
        None => Err(Error::invalid_input(None, "monitor", MONITOR_RULE)),
    }
}

/// A page of the service task list: a whole number from 1 to 2^32 - 1.
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `page` when `value` is not a whole number from 1 to 2^32 - 1
/// (a fraction, NaN or an infinity included).
pub fn page(value: f64) -> Result<u32> {
    whole_f64(value, u32::MAX as f64)
        .filter(|page| *page >= 1)
        .map(|page| page as u32)
        .ok_or_else(|| Error::invalid_input(None, "page", PAGE_RULE))
}

/// The most tasks a bulk call fetches at once.
pub const MAX_CONCURRENCY: usize = 256;

/// `concurrency` of a bulk call: a whole number from 1 to [`MAX_CONCURRENCY`].
///
/// ```
/// assert_eq!(monapi::input::concurrency(4.0).unwrap(), 4);
/// assert!(monapi::input::concurrency(0.0).is_err());
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `concurrency` when `value` is not a whole number from 1 to
/// [`MAX_CONCURRENCY`].
pub fn concurrency(value: f64) -> Result<usize> {
    whole_f64(value, MAX_CONCURRENCY as f64)
        .filter(|n| *n >= 1)
        .map(|n| n as usize)
        .ok_or_else(|| {
            Error::invalid_input(
                None,
                "concurrency",
                format!(
                    "must be a whole number from 1 to {MAX_CONCURRENCY} (the number of tasks fetched at once)"
                ),
            )
        })
}

/// Checks a page of the typed API: 1 or more.
pub(crate) fn check_page(page: u32) -> Result<()> {
    self::page(page.into()).map(drop)
}

/// The unit a binding takes a duration in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Seconds (Python, the command line).
    Seconds,
    /// Milliseconds (JavaScript).
    Milliseconds,
}

impl Unit {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Unit::Seconds => "seconds",
            Unit::Milliseconds => "milliseconds",
        }
    }

    pub(crate) fn per_second(self) -> f64 {
        match self {
            Unit::Seconds => 1.0,
            Unit::Milliseconds => 1000.0,
        }
    }

    /// The rule of a timeout in this unit.
    fn timeout_rule(self) -> String {
        let max = MAX_TIMEOUT.as_secs_f64() * self.per_second();
        format!(
            "must be a positive number of {}, at most {max} (2^31 - 1 milliseconds, about 24.8 days)",
            self.name()
        )
    }
}

/// A timeout (`timeout`, `connect_timeout`) given as a number of `unit`s: more than 0 and at
/// most [`MAX_TIMEOUT`]. The error names `field`.
///
/// ```
/// use std::time::Duration;
/// use monapi::input::{timeout, Unit};
/// assert_eq!(timeout("timeout", 250.0, Unit::Milliseconds).unwrap(), Duration::from_millis(250));
/// let err = timeout("timeout", -1.0, Unit::Seconds).unwrap_err();
/// assert!(err.rule().unwrap().starts_with("must be a positive number of seconds"));
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `field`, its rule written in `unit`, when `value` is 0 or
/// less, less than a nanosecond, more than [`MAX_TIMEOUT`], NaN or an infinity.
pub fn timeout(field: &str, value: f64, unit: Unit) -> Result<Duration> {
    let seconds = value / unit.per_second();
    if !(seconds > 0.0 && seconds <= MAX_TIMEOUT.as_secs_f64()) {
        return Err(Error::invalid_input(None, field, unit.timeout_rule()));
    }
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| Error::invalid_input(None, field, unit.timeout_rule()))
}

/// Checks a timeout of the typed API.
pub(crate) fn check_timeout(field: &str, value: Duration) -> Result<()> {
    if value.is_zero() || value > MAX_TIMEOUT {
        return Err(Error::invalid_input(None, field, Unit::Seconds.timeout_rule()));
    }
    Ok(())
}

/// Reads a time zone written as an offset from UTC: `+08:00`, `+0800`, `+08`, `-05:30`, or
/// `UTC` / `Z` for `+00:00`. Named zones (`Asia/Shanghai`) are not taken: the service's days
/// have no daylight saving time, so an offset says everything.
///
/// The error names the field `timezone` and the rule.
///
/// ```
/// use monapi::input::timezone;
/// assert_eq!(timezone("+08:00").unwrap(), monapi::SERVICE_TIMEZONE);
/// assert_eq!(timezone("-0530").unwrap().local_minus_utc(), -(5 * 3600 + 30 * 60));
/// assert_eq!(timezone("UTC").unwrap().local_minus_utc(), 0);
/// assert_eq!(timezone("Asia/Shanghai").unwrap_err().field(), Some("timezone"));
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `timezone` when `text` (its blanks around left out) is none of
/// those spellings, or its hours are over 23 or its minutes over 59.
pub fn timezone(text: &str) -> Result<FixedOffset> {
    offset(text.trim()).ok_or_else(|| {
        Error::invalid_input(
            None,
            "timezone",
            format!("must be an offset from UTC such as +08:00, -05:30 or UTC, not {text:?}"),
        )
    })
}

fn offset(text: &str) -> Option<FixedOffset> {
    if text.eq_ignore_ascii_case("utc") || text.eq_ignore_ascii_case("z") {
        return FixedOffset::east_opt(0);
    }
    let sign = match text.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits = &text[1..];
    if !digits.is_ascii() {
        // Also keeps the slicing below on character boundaries.
        return None;
    }
    let (hours, minutes) = match digits.len() {
        2 => (digits, "00"),
        4 => (&digits[..2], &digits[2..]),
        5 if digits.as_bytes()[2] == b':' => (&digits[..2], &digits[3..]),
        _ => return None,
    };
    let number = |part: &str| {
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse::<i32>().ok())
            .flatten()
    };
    let (hours, minutes) = (number(hours)?, number(minutes)?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

/// The name of `known` that `name` was most likely meant to be, when one is close enough to
/// suggest ("did you mean …?"); compared without case, `_` or `-`, so that a name of another
/// language's spelling (`maxRetries`, `max_retries`) finds its twin:
/// - the one that is the same so compared;
/// - else, for a name of three characters or more (a shorter one resembles too many), the
///   shortest that holds it whole (`retries` in `max_retries`),
/// - or the most similar by Jaro similarity, when it is over 0.7 (clap's rule for its own
///   suggestions).
///
/// ```
/// use monapi::input::did_you_mean;
/// let known = ["timeout", "connect_timeout", "max_retries", "base_url"];
/// assert_eq!(did_you_mean("timout", known), Some("timeout"));
/// assert_eq!(did_you_mean("retries", known), Some("max_retries"));
/// assert_eq!(did_you_mean("maxRetries", known), Some("max_retries"));
/// assert_eq!(did_you_mean("colour", known), None);
/// ```
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    fn plain(text: &str) -> String {
        text.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    }
    let wanted = plain(name);
    let known: Vec<(&str, String)> = known.into_iter().map(|k| (k, plain(k))).collect();
    if let Some((same, _)) = known.iter().find(|(_, k)| *k == wanted) {
        return Some(same);
    }
    if wanted.chars().count() < 3 {
        return None;
    }
    let holding = known
        .iter()
        .filter(|(_, k)| k.contains(&wanted))
        .min_by_key(|(k, _)| k.len());
    if let Some((holder, _)) = holding {
        return Some(holder);
    }
    known
        .iter()
        .map(|(k, plain)| (strsim::jaro(&wanted, plain), *k))
        .filter(|(similarity, _)| *similarity > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        for good in [Id::Int(1), Id::Float(7.0), Id::Text("10001")] {
            assert!(task_id(good).is_ok(), "{good:?}");
        }
        for bad in [
            Id::Int(0),
            Id::Int(-3),
            Id::Int(i128::MAX),
            Id::Float(1.5),
            Id::Float(f64::NAN),
            Id::Float(-1.0),
            Id::Float(1e17),
            Id::Text(""),
            Id::Text(" 1"),
            Id::Text("+1"),
            Id::Text("1e3"),
            Id::Text("99999999999999999999999"),
        ] {
            let err = task_id(bad).unwrap_err();
            assert_eq!(
                (err.field(), err.rule()),
                (Some("task_id"), Some(ID_RULE)),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(page(4294967295.0).unwrap(), u32::MAX);
        for bad in [0.0, -1.0, 1.5, 4294967296.0, f64::INFINITY, f64::NAN] {
            assert!(page(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn timeouts() {
        assert_eq!(
            timeout("timeout", 2_147_483_647.0, Unit::Milliseconds).unwrap(),
            MAX_TIMEOUT
        );
        for bad in [0.0, -1.0, 1e-12, 2_147_483_648.0, 1e300, f64::INFINITY, f64::NAN] {
            let err = timeout("connect_timeout", bad, Unit::Milliseconds).unwrap_err();
            assert_eq!(err.field(), Some("connect_timeout"));
            assert!(err.rule().unwrap().contains("at most 2147483647 "), "{err}");
        }
        let err = timeout("timeout", 3e6, Unit::Seconds).unwrap_err();
        assert!(err.rule().unwrap().contains("at most 2147483.647 "), "{err}");
        assert!(check_timeout("timeout", Duration::ZERO).is_err());
        assert!(check_timeout("timeout", MAX_TIMEOUT).is_ok());
    }

    #[test]
    fn offsets_in_every_accepted_spelling() {
        for (text, seconds) in [
            ("+08:00", 8 * 3600),
            ("+0800", 8 * 3600),
            ("+08", 8 * 3600),
            (" -05:30 ", -(5 * 3600 + 1800)),
            ("+00:00", 0),
            ("-00:00", 0),
            ("utc", 0),
            ("Z", 0),
            ("+23:59", 23 * 3600 + 59 * 60),
        ] {
            assert_eq!(timezone(text).unwrap().local_minus_utc(), seconds, "{text}");
        }
        for text in [
            "", "8", "08:00", "+8", "+8:00", "+24:00", "+08:60", "+08-00", "+0８:00", "+1é1", "CST", "GMT+8",
        ] {
            let error = timezone(text).unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("`timezone` must be an offset from UTC"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn suggestions_for_the_settings_misspelt() {
        let known = crate::settings::SETTINGS.iter().map(|s| s.name);
        for (name, meant) in [
            ("pasword", Some("password")),
            ("secret", Some("client_secret")),
            ("url", Some("base_url")),
            ("Timeout", Some("timeout")),
            ("timeout_ms", Some("timeout")),
            ("store_options", Some("storage_options")),
            ("proxies", Some("proxy")),
            ("retry", Some("max_retries")),
            ("debug", None),
            ("", None),
            ("x", None),
            ("tz", None),
        ] {
            assert_eq!(did_you_mean(name, known.clone()), meant, "{name}");
        }
    }
}
