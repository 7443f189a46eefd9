//! The time zone in which the service's days and clock times are read.

use chrono::FixedOffset;

use crate::{Error, Result};

/// The service's time zone: China Standard Time, `+08:00`, without daylight saving time (the
/// service runs from Beijing). The default of [`ClientBuilder::timezone`](crate::ClientBuilder::timezone).
///
/// ```
/// assert_eq!(monapi::SERVICE_TIMEZONE.to_string(), "+08:00");
/// ```
pub const SERVICE_TIMEZONE: FixedOffset = FixedOffset::east_opt(8 * 3600).unwrap();

/// Reads a time zone written as an offset from UTC: `+08:00`, `+0800`, `+08`, `-05:30`, or
/// `UTC` / `Z` for `+00:00`. Named zones (`Asia/Shanghai`) are not taken: the service's days
/// have no daylight saving time, so an offset says everything.
///
/// The error names the field `timezone` and the rule.
///
/// ```
/// use monapi::parse_timezone;
/// assert_eq!(parse_timezone("+08:00").unwrap(), monapi::SERVICE_TIMEZONE);
/// assert_eq!(parse_timezone("-0530").unwrap().local_minus_utc(), -(5 * 3600 + 30 * 60));
/// assert_eq!(parse_timezone("UTC").unwrap().local_minus_utc(), 0);
/// assert!(parse_timezone("Asia/Shanghai").is_err());
/// ```
pub fn parse_timezone(text: &str) -> Result<FixedOffset> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(parse_timezone(text).unwrap().local_minus_utc(), seconds, "{text}");
        }
        for text in [
            "", "8", "08:00", "+8", "+8:00", "+24:00", "+08:60", "+08-00", "+0８:00", "+1é1", "CST", "GMT+8",
        ] {
            let error = parse_timezone(text).unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("`timezone` must be an offset from UTC"),
                "{text}: {error}"
            );
        }
    }
}
