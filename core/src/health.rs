//! What a dashboard or an exporter shows now, from the report tables (the `monapi exporter`
//! command's metrics): a site's health over windows of days, and a service task's last values.
//!
//! # Sites
//!
//! A window of `n` days is the calendar days of the client's time zone from `n - 1` days
//! before today to now: the 1-day window is today since midnight. Over a window:
//!
//! - the **uptime ratio** is the mean availability of the point's checks in it, as a ratio
//!   from 0 to 1 (the service's `uprate` is a percentage);
//! - the **faults** are those under way at any moment of it;
//! - the **downtime** is the time those faults cover within it, a fault still going on
//!   counting until now;
//! - the **remaining error budget** for an objective `slo` is `(ratio - slo) / (1 - slo)`:
//!   1 with no downtime, 0 with the budget spent, below 0 beyond it.
//!
//! A report is first [`summarize`]d per point and day, so that a day's summary can be kept
//! instead of its rows (an exporter keeps 30 days of a thousand sites). No rule trusts a time
//! after now: a check after now is left out, and so is a fault that starts after now; a fault
//! whose end is after now is still going on.
//!
//! ```
//! use chrono::NaiveDate;
//! use monapi::health::{self, Window};
//!
//! let body = br#"{"1":{"name":"Beijing","uprate":{"1764518400":{"uprate":"100.00"},
//!     "1764518700":{"uprate":"0.00"}},"fault":{"0":{"start_time":"1764518600",
//!     "end_time":"1764518900","diff_time":"5m","fault_status":"timeout",
//!     "current_fault_period":"5m"},"count":1},"resptime":{"1764518400":{"resptime_avg":"120"},
//!     "1764518700":{"resptime_avg":"3000"}}}}"#;
//! let timezone = monapi::SERVICE_TIMEZONE;
//! let tables = monapi::table::site_report(20001, body, timezone)?;
//! let now = 1_764_519_000;
//! let points = health::summarize(&tables, timezone, now);
//! let beijing = &points[&1];
//! let today = NaiveDate::from_ymd_opt(2025, 12, 1).unwrap();
//! let window = Window::days(1, today, timezone);
//! assert_eq!(beijing.uptime_ratio(&window), Some(0.5));
//! assert_eq!(beijing.downtime_seconds(&window, now), 300);
//! assert_eq!(beijing.faults(&window, now), 1);
//! let last = beijing.last.as_ref().unwrap();
//! assert_eq!((last.up(), last.response_seconds("resptime_avg")), (Some(false), Some(3.0)));
//! assert!((health::error_budget_remaining(0.9995, 0.999) - 0.5).abs() < 1e-9);
//! # Ok::<(), monapi::Error>(())
//! ```
//!
//! # Service tasks
//!
//! [`last_values`]: the last value of each series' metrics in a service report.

use std::collections::BTreeMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampSecondType};
use arrow_array::{Array, ArrayAccessor, RecordBatch, StringArray};
use chrono::{FixedOffset, NaiveDate};

use crate::store::read::day_of;
use crate::table::columns::midnight;
use crate::table::{SiteTables, RESPONSE_TIME_FIELDS};

/// A monitoring point's checks and faults over one day.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointDay {
    /// Checks with an availability.
    pub checks: u32,
    /// The sum of their availability, each a ratio from 0 to 1.
    pub availability_sum: f64,
    /// The faults that started this day.
    pub faults: Vec<Fault>,
}

impl PointDay {
    /// Whether a fault of the day still goes on: the day's summary is not final.
    pub fn has_ongoing_fault(&self) -> bool {
        self.faults.iter().any(|fault| fault.end.is_none())
    }
}

/// A fault of a point, in seconds since the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// When it started.
    pub start: i64,
    /// When it ended; `None` while it goes on.
    pub end: Option<i64>,
}

impl Fault {
    /// The seconds of this fault within `[from, now]`.
    fn seconds_within(&self, from: i64, now: i64) -> i64 {
        let end = self.end.unwrap_or(now).min(now);
        (end - self.start.max(from)).max(0)
    }
}

/// The last check of a point.
#[derive(Clone, Debug, PartialEq)]
pub struct LastCheck {
    /// Its time, in seconds since the epoch.
    pub time: i64,
    /// Its availability, a ratio from 0 to 1 (`None`: not sent, or not a number).
    pub availability: Option<f64>,
    /// Its response times in milliseconds, as sent, in the order of [`RESPONSE_TIME_FIELDS`].
    pub response_ms: [Option<f64>; RESPONSE_TIME_FIELDS.len()],
}

impl LastCheck {
    /// The response time `field` (one of [`RESPONSE_TIME_FIELDS`]) in seconds.
    pub fn response_seconds(&self, field: &str) -> Option<f64> {
        let index = RESPONSE_TIME_FIELDS.iter().position(|f| *f == field)?;
        self.response_ms[index].map(|ms| ms / 1000.0)
    }

    /// Whether the check succeeded: its availability above 0 (for the average, monitor 0:
    /// from at least one point).
    pub fn up(&self) -> Option<bool> {
        self.availability.map(|ratio| ratio > 0.0)
    }
}

/// One point of a site report, summarized: its name, its days, its last check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointSummary {
    /// The point's name as the report sent it.
    pub monitor: String,
    /// Its days, in the client's time zone; a fault belongs to the day it started.
    pub days: BTreeMap<NaiveDate, PointDay>,
    /// Its last check with an availability or a response time.
    pub last: Option<LastCheck>,
}

impl PointSummary {
    /// Adds `newer`, the summary of a report of the days from `first` to `last`: its days in
    /// that range replace the same days here; a fault it has of another day (one under way in
    /// the range that started before it) replaces that day's fault of the same start, or is
    /// added to it, and the day's checks stay. Takes `newer`'s last check when it is later.
    pub fn merge(&mut self, newer: PointSummary, first: NaiveDate, last: NaiveDate) {
        if !newer.monitor.is_empty() {
            self.monitor = newer.monitor;
        }
        for (day, summary) in newer.days {
            if (first..=last).contains(&day) {
                self.days.insert(day, summary);
                continue;
            }
            let known = self.days.entry(day).or_default();
            for fault in summary.faults {
                match known.faults.iter_mut().find(|mine| mine.start == fault.start) {
                    Some(mine) => *mine = fault,
                    None => known.faults.push(fault),
                }
            }
        }
        if let Some(last) = newer.last
            && self.last.as_ref().is_none_or(|mine| mine.time <= last.time)
        {
            self.last = Some(last);
        }
    }

    /// Keeps only the days from `first` on.
    pub fn forget_before(&mut self, first: NaiveDate) {
        self.days = self.days.split_off(&first);
    }

    /// The mean availability of the checks in `window` (`None` without a check).
    pub fn uptime_ratio(&self, window: &Window) -> Option<f64> {
        let (checks, sum) = self
            .days
            .range(window.first..)
            .fold((0u64, 0.0), |(n, sum), (_, day)| {
                (n + u64::from(day.checks), sum + day.availability_sum)
            });
        (checks > 0).then(|| sum / checks as f64)
    }

    /// The faults under way at some moment of `window` (up to `now`).
    pub fn faults(&self, window: &Window, now: i64) -> usize {
        self.all_faults()
            .filter(|fault| fault.start <= now && fault.end.is_none_or(|end| end > window.start))
            .count()
    }

    /// The seconds of `window` (up to `now`) that faults cover. Faults of one point do not
    /// overlap; should two, their time counts twice.
    pub fn downtime_seconds(&self, window: &Window, now: i64) -> i64 {
        self.all_faults()
            .map(|fault| fault.seconds_within(window.start, now))
            .sum()
    }

    /// Whether a fault of the point goes on.
    pub fn fault_ongoing(&self) -> bool {
        self.days.values().any(PointDay::has_ongoing_fault)
    }

    fn all_faults(&self) -> impl Iterator<Item = &Fault> {
        self.days.values().flat_map(|day| &day.faults)
    }
}

/// A window of whole days of the client's time zone, ending now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Its first day.
    pub first: NaiveDate,
    /// 00:00 of that day, in seconds since the epoch.
    pub start: i64,
}

impl Window {
    /// The `count` days (at least 1) ending with `today`, in `timezone`.
    pub fn days(count: u32, today: NaiveDate, timezone: FixedOffset) -> Window {
        let back = chrono::Days::new(u64::from(count.max(1) - 1));
        let first = today.checked_sub_days(back).unwrap_or(NaiveDate::MIN);
        Window {
            first,
            start: midnight(first, timezone),
        }
    }
}

/// The share of the error budget of objective `slo` (a ratio below 1) that an uptime `ratio`
/// leaves: `(ratio - slo) / (1 - slo)`.
pub fn error_budget_remaining(ratio: f64, slo: f64) -> f64 {
    (ratio - slo) / (1.0 - slo)
}

/// The rule of an availability objective `slo`: a ratio above 0 and below 1.
///
/// ```
/// use monapi::health::check_slo;
/// assert!(check_slo("slo", 0.999).is_ok());
/// assert_eq!(check_slo("slo", 99.9).unwrap_err().field(), Some("slo"));
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `field` when `slo` is not
/// above 0 and below 1: a percentage such as `99.9`, or NaN.
pub fn check_slo(field: &str, slo: f64) -> crate::Result<()> {
    if slo > 0.0 && slo < 1.0 {
        return Ok(());
    }
    Err(crate::Error::invalid_input(
        None,
        field,
        "must be a ratio above 0 and below 1 (0.999 for 99.9%)",
    ))
}

/// The shortest time between two refreshes of today's reports: the service's finest check
/// frequency (more often finds nothing new).
pub const MIN_REFRESH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

/// The longest: a day (a dashboard refreshed more rarely shows yesterday).
pub const MAX_REFRESH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(86_400);

/// The rule of how often a dashboard or an exporter asks for today's reports: from
/// [`MIN_REFRESH_INTERVAL`] to [`MAX_REFRESH_INTERVAL`].
///
/// ```
/// use std::time::Duration;
/// use monapi::health::check_refresh_interval;
/// assert!(check_refresh_interval("interval", Duration::from_secs(300)).is_ok());
/// assert_eq!(check_refresh_interval("interval", Duration::from_secs(59)).unwrap_err().field(), Some("interval"));
/// assert!(check_refresh_interval("interval", Duration::from_secs(u64::MAX)).is_err());
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `field` when `interval` is
/// shorter than [`MIN_REFRESH_INTERVAL`] or longer than [`MAX_REFRESH_INTERVAL`].
pub fn check_refresh_interval(field: &str, interval: std::time::Duration) -> crate::Result<()> {
    if (MIN_REFRESH_INTERVAL..=MAX_REFRESH_INTERVAL).contains(&interval) {
        return Ok(());
    }
    Err(crate::Error::invalid_input(
        None,
        field,
        "must be from 60 seconds (the service's finest check frequency) to 86400 (a day)",
    ))
}

/// How long a shown value stands without a refresh that confirms it, by default: three
/// refreshes (one failed refresh does not blank a dashboard; a longer outage does, so that
/// no alert fires on values nobody confirms).
pub fn default_stale_after(interval: std::time::Duration) -> std::time::Duration {
    interval.saturating_mul(3)
}

/// The rule of how long a shown value stands: at least one refresh interval, at most
/// [`MAX_REFRESH_INTERVAL`] times three.
///
/// ```
/// use std::time::Duration;
/// use monapi::health::check_stale_after;
/// let interval = Duration::from_secs(300);
/// assert!(check_stale_after("stale_after", Duration::from_secs(900), interval).is_ok());
/// assert_eq!(check_stale_after("stale_after", Duration::from_secs(60), interval).unwrap_err().field(), Some("stale_after"));
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `field` when `stale_after` is
/// shorter than `interval` or longer than three times [`MAX_REFRESH_INTERVAL`].
pub fn check_stale_after(
    field: &str,
    stale_after: std::time::Duration,
    interval: std::time::Duration,
) -> crate::Result<()> {
    if stale_after >= interval && stale_after <= default_stale_after(MAX_REFRESH_INTERVAL) {
        return Ok(());
    }
    Err(crate::Error::invalid_input(
        None,
        field,
        "must be at least the refresh interval and at most 259200 seconds (3 days)",
    ))
}

/// A site report's tables summarized per monitoring point (by `monitor_id`; 0 is the
/// average) and day of `timezone`, as of `now` (seconds since the epoch): checks after it and
/// faults that start after it are left out, and a fault that ends after it still goes on.
///
/// # Panics
///
/// When `tables` are not a site report's tables (as [`site_report`](crate::table::site_report)
/// and [`Tables::site_report`](crate::table::Tables::site_report) build them): a column of
/// their schemas missing or of another type.
pub fn summarize(tables: &SiteTables, timezone: FixedOffset, now: i64) -> BTreeMap<i64, PointSummary> {
    let mut points: BTreeMap<i64, PointSummary> = BTreeMap::new();
    let availability = &tables.availability;
    let uprate = availability
        .column_by_name("uprate")
        .expect("uprate")
        .as_primitive::<Float64Type>();
    let times = time_column(availability, "time");
    for (row, (id, name)) in monitors(availability).enumerate() {
        let point = points.entry(id).or_default();
        if point.monitor.is_empty() {
            point.monitor = name.to_string();
        }
        let time = times.value(row);
        if time > now {
            continue;
        }
        let ratio = uprate.is_valid(row).then(|| uprate.value(row) / 100.0);
        let day = point.days.entry(day_of(time, timezone)).or_default();
        if let Some(ratio) = ratio {
            day.checks += 1;
            day.availability_sum += ratio;
        }
        let last = point.last.get_or_insert(LastCheck {
            time,
            availability: None,
            response_ms: [None; RESPONSE_TIME_FIELDS.len()],
        });
        if last.time <= time {
            last.time = time;
            last.availability = ratio;
        }
    }
    let response = &tables.response_time;
    let times = time_column(response, "time");
    let fields = RESPONSE_TIME_FIELDS.map(|name| {
        response
            .column_by_name(name)
            .expect("a response-time field")
            .as_primitive::<Float64Type>()
    });
    for (row, (id, name)) in monitors(response).enumerate() {
        let point = points.entry(id).or_default();
        if point.monitor.is_empty() {
            point.monitor = name.to_string();
        }
        let time = times.value(row);
        if time > now {
            continue;
        }
        let values = fields
            .each_ref()
            .map(|column| column.is_valid(row).then(|| column.value(row)));
        match &mut point.last {
            Some(last) if last.time == time => last.response_ms = values,
            Some(last) if last.time > time => {}
            last => {
                *last = Some(LastCheck {
                    time,
                    availability: None,
                    response_ms: values,
                })
            }
        }
    }
    let faults = &tables.faults;
    let starts = time_column(faults, "start_time");
    let ends = time_column(faults, "end_time");
    for (row, (id, name)) in monitors(faults).enumerate() {
        let point = points.entry(id).or_default();
        if point.monitor.is_empty() {
            point.monitor = name.to_string();
        }
        let start = starts.value(row);
        if start > now {
            continue;
        }
        let end = ends
            .is_valid(row)
            .then(|| ends.value(row))
            .filter(|end| *end <= now);
        let day = point.days.entry(day_of(start, timezone)).or_default();
        day.faults.push(Fault { start, end });
    }
    points
}

/// The `monitor_id` and `monitor` of each row of a site table.
fn monitors(batch: &RecordBatch) -> impl Iterator<Item = (i64, &str)> {
    let ids = batch
        .column_by_name("monitor_id")
        .expect("monitor_id")
        .as_primitive::<Int64Type>();
    let names = batch
        .column_by_name("monitor")
        .expect("monitor")
        .as_dictionary::<Int32Type>()
        .downcast_dict::<StringArray>()
        .expect("names are strings");
    (0..batch.num_rows()).map(move |row| (ids.value(row), names.value(row)))
}

fn time_column<'a>(
    batch: &'a RecordBatch,
    name: &str,
) -> &'a arrow_array::PrimitiveArray<TimestampSecondType> {
    batch
        .column_by_name(name)
        .expect("a time column")
        .as_primitive::<TimestampSecondType>()
}

/// The last value a service report has of one metric of one series.
#[derive(Clone, Debug, PartialEq)]
pub struct LastValue {
    /// The series (the report's key: a disk, an interface, ... or the task's one series).
    pub series: String,
    /// The metric.
    pub metric: String,
    /// The time of its record, in seconds since the epoch (`None`: a record without a time).
    pub time: Option<i64>,
    /// The value.
    pub value: f64,
}

/// The last value (in the report's order, which is its records' order) of each series'
/// metrics in a service report table ([`service_report_schema`](crate::table::service_report_schema)),
/// null values and records after `now` (seconds since the epoch) left out, in order of the
/// series and metrics' first appearance.
///
/// ```
/// let body = br#"{"cpu":[{"time":"10:00","usage":"5"},{"time":"10:05","usage":"7","load":""}]}"#;
/// let start = chrono::NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
/// let report = monapi::table::service_report(10001, body, start, monapi::SERVICE_TIMEZONE)?;
/// let now = 1_795_600_800; // 2026-11-25 18:00 +08:00
/// let last = monapi::health::last_values(&report, now);
/// assert_eq!(last.len(), 1);
/// assert_eq!((last[0].metric.as_str(), last[0].value), ("usage", 7.0));
/// # Ok::<(), monapi::Error>(())
/// ```
///
/// # Panics
///
/// When `report` is not a service report table (as
/// [`service_report`](crate::table::service_report) and
/// [`Tables::service_report`](crate::table::Tables::service_report) build it): a column of
/// its schema missing or of another type.
pub fn last_values(report: &RecordBatch, now: i64) -> Vec<LastValue> {
    let series = strings(report, "series");
    let metrics = strings(report, "metric");
    let times = time_column(report, "time");
    let values = report
        .column_by_name("value")
        .expect("value")
        .as_primitive::<Float64Type>();
    let mut order: Vec<LastValue> = Vec::new();
    let mut index: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
    for row in 0..report.num_rows() {
        if values.is_null(row) || (times.is_valid(row) && times.value(row) > now) {
            continue;
        }
        let value = LastValue {
            series: String::new(),
            metric: String::new(),
            time: times.is_valid(row).then(|| times.value(row)),
            value: values.value(row),
        };
        let key = (series.value(row), metrics.value(row));
        match index.get(&key) {
            Some(&at) => {
                order[at].time = value.time;
                order[at].value = value.value;
            }
            None => {
                index.insert(key, order.len());
                order.push(LastValue {
                    series: key.0.to_string(),
                    metric: key.1.to_string(),
                    ..value
                });
            }
        }
    }
    order
}

fn strings<'a>(
    batch: &'a RecordBatch,
    name: &str,
) -> arrow_array::TypedDictionaryArray<'a, Int32Type, StringArray> {
    batch
        .column_by_name(name)
        .expect("a name column")
        .as_dictionary::<Int32Type>()
        .downcast_dict::<StringArray>()
        .expect("names are strings")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tz() -> FixedOffset {
        crate::SERVICE_TIMEZONE
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    /// A day of checks `rates` (percent) every 5 minutes from 00:00 of `day`.
    fn checks(day: &str, rates: &[&str]) -> String {
        let start = midnight(date(day), tz());
        rates
            .iter()
            .enumerate()
            .map(|(i, rate)| format!(r#""{}":{{"uprate":"{rate}"}}"#, start + 300 * i as i64))
            .collect::<Vec<_>>()
            .join(",")
    }

    #[test]
    fn windows_count_the_checks_of_their_days_only() {
        let uprate = format!(
            "{},{}",
            checks("2026-11-20", &["0.00", "0.00"]),
            checks("2026-11-25", &["100.00", "50.00", ""])
        );
        let body = format!(r#"{{"3":{{"name":"p","uprate":{{{uprate}}},"fault":[],"resptime":[]}}}}"#);
        let tables = crate::table::site_report(1, body.as_bytes(), tz()).unwrap();
        let points = summarize(&tables, tz(), i64::MAX);
        let point = &points[&3];
        let today = date("2026-11-25");
        assert_eq!(point.uptime_ratio(&Window::days(1, today, tz())), Some(0.75));
        assert_eq!(point.uptime_ratio(&Window::days(7, today, tz())), Some(1.5 / 4.0));
        assert_eq!(
            point.uptime_ratio(&Window::days(1, date("2026-11-26"), tz())),
            None
        );
        // The empty availability is no check; the last check is still the latest row.
        assert_eq!(point.days[&today].checks, 2);
        assert_eq!(point.last.as_ref().unwrap().availability, None);
        assert_eq!(point.last.as_ref().unwrap().up(), None);
    }

    #[test]
    fn downtime_is_clipped_to_the_window_and_an_ongoing_fault_runs_until_now() {
        let today = date("2026-11-25");
        let midnight = midnight(today, tz());
        let mut point = PointSummary::default();
        // Started yesterday at 23:50, ended at 00:10 today: 10 minutes today.
        point
            .days
            .entry(date("2026-11-24"))
            .or_default()
            .faults
            .push(Fault {
                start: midnight - 600,
                end: Some(midnight + 600),
            });
        // Goes on since 01:00.
        point.days.entry(today).or_default().faults.push(Fault {
            start: midnight + 3600,
            end: None,
        });
        let now = midnight + 7200;
        let day = Window::days(1, today, tz());
        assert_eq!(point.downtime_seconds(&day, now), 600 + 3600);
        assert_eq!(point.faults(&day, now), 2);
        let two = Window::days(2, today, tz());
        assert_eq!(point.downtime_seconds(&two, now), 1200 + 3600);
        assert!(point.fault_ongoing());
        // A fault that ended before the window is not in it.
        let tomorrow = Window::days(1, date("2026-11-26"), tz());
        assert_eq!(point.faults(&tomorrow, now + 86_400), 1);
        assert_eq!(point.downtime_seconds(&tomorrow, now + 86_400), 7200);
    }

    #[test]
    fn merging_keeps_the_later_last_check_and_replaces_days() {
        let mut older = PointSummary {
            monitor: "p".into(),
            ..PointSummary::default()
        };
        older.days.insert(
            date("2026-11-24"),
            PointDay {
                checks: 1,
                availability_sum: 1.0,
                faults: vec![],
            },
        );
        older.days.insert(
            date("2026-11-25"),
            PointDay {
                checks: 1,
                availability_sum: 0.0,
                faults: vec![],
            },
        );
        older.last = Some(LastCheck {
            time: 10,
            availability: Some(0.0),
            response_ms: [None; 7],
        });
        let mut newer = PointSummary::default();
        newer.days.insert(
            date("2026-11-25"),
            PointDay {
                checks: 2,
                availability_sum: 2.0,
                faults: vec![],
            },
        );
        newer.last = Some(LastCheck {
            time: 20,
            availability: Some(1.0),
            response_ms: [None; 7],
        });
        older.merge(newer, date("2026-11-25"), date("2026-11-25"));
        assert_eq!(older.monitor, "p");
        assert_eq!(older.days[&date("2026-11-25")].checks, 2);
        assert_eq!(older.last.as_ref().unwrap().time, 20);
        assert_eq!(
            older.uptime_ratio(&Window::days(2, date("2026-11-25"), tz())),
            Some(1.0)
        );
        older.forget_before(date("2026-11-25"));
        assert_eq!(older.days.len(), 1);
    }

    #[test]
    fn a_fault_of_an_earlier_day_updates_that_day_and_keeps_its_checks() {
        let (monday, tuesday) = (date("2026-11-23"), date("2026-11-24"));
        let started = midnight(tuesday, tz()) - 600;
        let mut held = PointSummary::default();
        held.days.insert(
            monday,
            PointDay {
                checks: 288,
                availability_sum: 286.0,
                faults: vec![
                    Fault {
                        start: started - 7200,
                        end: Some(started - 3600),
                    },
                    Fault {
                        start: started,
                        end: None,
                    },
                ],
            },
        );
        assert!(held.fault_ongoing());
        // Tuesday's report: the fault that started on Monday at 23:50 ended at 00:20.
        let mut tuesdays = PointSummary::default();
        tuesdays.days.insert(
            monday,
            PointDay {
                checks: 0,
                availability_sum: 0.0,
                faults: vec![Fault {
                    start: started,
                    end: Some(started + 1800),
                }],
            },
        );
        tuesdays.days.insert(
            tuesday,
            PointDay {
                checks: 1,
                availability_sum: 1.0,
                faults: vec![],
            },
        );
        held.merge(tuesdays, tuesday, tuesday);
        assert!(!held.fault_ongoing());
        let day = &held.days[&monday];
        assert_eq!((day.checks, day.availability_sum), (288, 286.0));
        assert_eq!(day.faults.len(), 2);
        assert_eq!(held.days[&tuesday].checks, 1);
    }

    #[test]
    fn nothing_after_now_is_trusted() {
        let today = date("2026-11-25");
        let start = midnight(today, tz());
        let uprate = checks("2026-11-25", &["100.00", "0.00", "0.00"]);
        let faults = format!(
            r#"{{"0":{{"start_time":"{}","end_time":"{}","diff_time":"","fault_status":"timeout","current_fault_period":""}},
            "1":{{"start_time":"{}","end_time":"","diff_time":"","fault_status":"timeout","current_fault_period":""}}}}"#,
            start + 300,
            start + 900,
            start + 600
        );
        let body = format!(r#"{{"3":{{"name":"p","uprate":{{{uprate}}},"fault":{faults},"resptime":[]}}}}"#);
        let tables = crate::table::site_report(1, body.as_bytes(), tz()).unwrap();
        // Now is 00:06: the check of 00:10 and the fault of 00:10 have not happened; the fault
        // of 00:05 ends at 00:15, after now.
        let now = start + 360;
        let point = &summarize(&tables, tz(), now)[&3];
        let day = &point.days[&today];
        assert_eq!(day.checks, 2);
        assert_eq!(point.last.as_ref().unwrap().time, start + 300);
        assert_eq!(
            day.faults,
            [Fault {
                start: start + 300,
                end: None
            }]
        );
        assert!(point.fault_ongoing());
    }

    #[test]
    fn the_budget_is_whole_without_downtime_and_spent_at_the_objective() {
        assert_eq!(error_budget_remaining(1.0, 0.99), 1.0);
        assert!(error_budget_remaining(0.99, 0.99).abs() < 1e-12);
        assert!(error_budget_remaining(0.98, 0.99) < 0.0);
    }
}
