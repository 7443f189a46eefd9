//! The tables of the account's lists: service tasks, site tasks, monitoring points.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, TimestampSecondArray};
use chrono::{FixedOffset, NaiveDateTime};

use super::columns::{categories, signed, timestamps, Interner};
use crate::model::de::unix_time;
use crate::{MonitorPoint, ServiceTask, SiteTask};

/// The format of `last_check_time`.
const CHECK_TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

pub(super) fn build(tasks: &[ServiceTask], timezone: FixedOffset) -> RecordBatch {
    let mut types = Interner::default();
    let mut statuses = Interner::default();
    let type_keys = tasks.iter().map(|t| types.intern(&t.task_type)).collect();
    let status_keys = tasks.iter().map(|t| statuses.intern(&t.task_status)).collect();
    let last_check: TimestampSecondArray = tasks
        .iter()
        .map(|t| check_time(&t.last_check_time, timezone))
        .collect();
    RecordBatch::try_new(
        super::service_tasks_schema(timezone),
        vec![
            Arc::new(tasks.iter().map(|t| signed(t.task_id)).collect::<Int64Array>()),
            Arc::new(
                tasks
                    .iter()
                    .map(|t| Some(t.task_name.as_str()))
                    .collect::<StringArray>(),
            ),
            types.column(type_keys),
            Arc::new(
                tasks
                    .iter()
                    .map(|t| t.frequency.map(i64::from))
                    .collect::<Int64Array>(),
            ),
            timestamps(last_check, timezone),
            statuses.column(status_keys),
        ],
    )
    .expect("the columns follow the schema")
}

/// `YYYY-MM-DD HH:MM:SS` in `timezone` as unix time; empty or unreadable text is no time, and
/// so is a time out of the years 1 to 9999 (chrono reads years up to 262143, signed).
fn check_time(text: &str, timezone: FixedOffset) -> Option<i64> {
    let local = NaiveDateTime::parse_from_str(text.trim(), CHECK_TIME_FORMAT).ok()?;
    local
        .and_utc()
        .timestamp()
        .checked_sub(i64::from(timezone.local_minus_utc()))
        .and_then(unix_time)
}

/// A text the service sent, or `None` when it left it out (or sent it empty).
fn present(text: &str) -> Option<&str> {
    (!text.trim().is_empty()).then_some(text)
}

/// The site task list as its table (null where a field is absent).
pub(super) fn build_sites(tasks: &[SiteTask], timezone: FixedOffset) -> RecordBatch {
    let texts = |text: fn(&SiteTask) -> &str| -> ArrayRef {
        Arc::new(tasks.iter().map(|t| present(text(t))).collect::<StringArray>())
    };
    let category = |text: fn(&SiteTask) -> &str| categories(tasks.iter().map(|t| present(text(t))));
    let time = |text: fn(&SiteTask) -> &str| {
        timestamps(
            tasks.iter().map(|t| check_time(text(t), timezone)).collect(),
            timezone,
        )
    };
    RecordBatch::try_new(
        super::site_tasks_schema(timezone),
        vec![
            Arc::new(tasks.iter().map(|t| signed(t.task_id)).collect::<Int64Array>()),
            texts(|t| &t.task_name),
            texts(|t| &t.task_summary),
            category(|t| &t.task_type),
            Arc::new(
                tasks
                    .iter()
                    .map(|t| t.frequency.map(i64::from))
                    .collect::<Int64Array>(),
            ),
            category(|t| &t.task_status),
            Arc::new(
                tasks
                    .iter()
                    .map(|t| t.group_id.map(signed))
                    .collect::<Int64Array>(),
            ),
            time(|t| &t.task_create_time),
            time(|t| &t.last_check_time),
            Arc::new(tasks.iter().map(|t| t.last_resp_time).collect::<Float64Array>()),
            Arc::new(tasks.iter().map(|t| t.last_resp_result).collect::<Int64Array>()),
            category(|t| &t.last_resp_status),
            Arc::new(tasks.iter().map(|t| t.threshold_result).collect::<Int64Array>()),
        ],
    )
    .expect("the columns follow the schema")
}

/// The monitoring points as their table (null where a field is absent).
pub(super) fn build_monitors(points: &[MonitorPoint]) -> RecordBatch {
    let category = |text: fn(&MonitorPoint) -> &str| categories(points.iter().map(|p| present(text(p))));
    let texts = |text: fn(&MonitorPoint) -> &str| -> ArrayRef {
        Arc::new(points.iter().map(|p| present(text(p))).collect::<StringArray>())
    };
    RecordBatch::try_new(
        super::monitors_schema(),
        vec![
            Arc::new(
                points
                    .iter()
                    .map(|p| i64::from(p.monitor_id))
                    .collect::<Int64Array>(),
            ),
            texts(|p| &p.monitor_name),
            Arc::new(
                points
                    .iter()
                    .map(|p| p.isp_id.map(i64::from))
                    .collect::<Int64Array>(),
            ),
            category(|p| &p.isp_name),
            texts(|p| &p.location_code),
            category(|p| &p.location_name),
            category(|p| &p.china_region),
            category(|p| &p.world_region),
        ],
    )
    .expect("the columns follow the schema")
}
