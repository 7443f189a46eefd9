//! The emulator's clock: the system clock, or an instant a test fixed (`Config::now`, the
//! `/_emulator/clock` hook, `Emulator::set_now`). Every report stops at it, "today" is its day,
//! and `fail_site` starts at it. Tokens expire on the system clock (they are about the time a
//! client waits, not about the data).

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};

use crate::config::ConfigError;

pub(crate) struct Clock {
    timezone: FixedOffset,
    /// The fixed instant, `None` while following the system clock.
    fixed: Mutex<Option<DateTime<Utc>>>,
    /// As configured, for `reset`.
    configured: Option<DateTime<Utc>>,
    /// The earliest instant it may show: 00:00 of the day the task lists were built for (their
    /// last checks are the day before it, and no last check may lie after the clock).
    earliest: DateTime<Utc>,
}

impl Clock {
    pub(crate) fn new(timezone: FixedOffset, configured: Option<DateTime<Utc>>) -> Clock {
        let start = configured.unwrap_or_else(Utc::now);
        let today = start.with_timezone(&timezone).date_naive();
        Clock {
            timezone,
            fixed: Mutex::new(configured),
            configured,
            earliest: midnight(today, timezone),
        }
    }

    /// Its reading now.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.fixed().unwrap_or_else(Utc::now)
    }

    /// Its reading as unix seconds.
    pub(crate) fn unix(&self) -> i64 {
        self.now().timestamp()
    }

    /// Its day in the emulator's time zone.
    pub(crate) fn today(&self) -> NaiveDate {
        self.now().with_timezone(&self.timezone).date_naive()
    }

    /// The fixed instant, if any.
    pub(crate) fn fixed(&self) -> Option<DateTime<Utc>> {
        *self.fixed.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Fixes the clock at `now`, or (`None`) makes it follow the system clock. An instant
    /// before the day the task lists were built for is refused (their last checks would be
    /// after it), naming `field`.
    pub(crate) fn set(&self, field: &str, now: Option<DateTime<Utc>>) -> Result<(), ConfigError> {
        let reading = now.unwrap_or_else(Utc::now);
        if reading < self.earliest {
            let earliest = self.earliest.with_timezone(&self.timezone);
            let what = if now.is_some() {
                "the instant"
            } else {
                "the system clock"
            };
            return Err(ConfigError::new(
                field,
                format!(
                    "must be at or after {} (00:00 of the day the emulator's task lists were built \
                     for: their last checks are the day before), {what} is {}",
                    earliest.format("%Y-%m-%d %H:%M:%S %:z"),
                    reading
                        .with_timezone(&self.timezone)
                        .format("%Y-%m-%d %H:%M:%S %:z"),
                ),
            ));
        }
        *self.fixed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = now;
        Ok(())
    }

    /// Fixes the clock `by` later than its reading.
    pub(crate) fn advance(&self, by: Duration) -> Result<DateTime<Utc>, ConfigError> {
        let later = chrono::Duration::from_std(by)
            .ok()
            .and_then(|by| self.now().checked_add_signed(by))
            .ok_or_else(|| ConfigError::new("advance_secs", "must be a duration the clock can add"))?;
        self.set("advance_secs", Some(later))?;
        Ok(later)
    }

    /// Back to the clock as configured.
    pub(crate) fn reset(&self) {
        *self.fixed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = self.configured;
    }
}

/// 00:00 of `day` in `timezone`.
pub(crate) fn midnight(day: NaiveDate, timezone: FixedOffset) -> DateTime<Utc> {
    let utc = day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
    utc - chrono::Duration::seconds(i64::from(timezone.local_minus_utc()))
}
