//! The service task list table.

use std::sync::Arc;

use arrow_array::{RecordBatch, StringArray, TimestampSecondArray, UInt32Array, UInt64Array};
use chrono::{FixedOffset, NaiveDateTime};

use super::columns::{timestamps, Interner};
use crate::ServiceTask;

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
            Arc::new(tasks.iter().map(|t| t.task_id).collect::<UInt64Array>()),
            Arc::new(
                tasks
                    .iter()
                    .map(|t| Some(t.task_name.as_str()))
                    .collect::<StringArray>(),
            ),
            types.column(type_keys),
            Arc::new(tasks.iter().map(|t| t.frequency).collect::<UInt32Array>()),
            timestamps(last_check, timezone),
            statuses.column(status_keys),
        ],
    )
    .expect("the columns follow the schema")
}

/// `YYYY-MM-DD HH:MM:SS` in `timezone` as unix time; empty or unreadable text is no time.
fn check_time(text: &str, timezone: FixedOffset) -> Option<i64> {
    let local = NaiveDateTime::parse_from_str(text.trim(), CHECK_TIME_FORMAT).ok()?;
    Some(local.and_utc().timestamp() - i64::from(timezone.local_minus_utc()))
}
