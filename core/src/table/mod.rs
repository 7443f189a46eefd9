//! The service's data as typed Arrow tables (cargo feature `arrow`).
//!
//! Every report becomes an Arrow [`RecordBatch`] with a fixed schema, built once here for
//! every language: the Python and Node packages and the `monapi export` command hand these
//! batches over without changing them. The faithful forms (the typed models in
//! [`model`](crate::model) and [`Client::execute`](crate::Client::execute)'s raw body) stay
//! as they are; tables are separate calls, on [`Client::tables`](crate::Client::tables).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), monapi::Error> {
//! # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
//! use monapi::table::arrow_array::{Array, Float64Array};
//! use monapi::{Client, DateRange};
//!
//! let client = Client::builder()
//!     .base_url(emulator.base_url())
//!     .client_id("demo_id")
//!     .client_secret("demo_secret")
//!     .username("test@example.com")
//!     .password("123456")
//!     .build()?;
//! let range = DateRange::parse(Some("2026-11-01"), Some("2026-11-02"))?;
//! let report = client.tables().service_report(10001, range).await?;
//! assert_eq!(report.schema(), monapi::table::service_report_schema(client.timezone()));
//! let values = report.column_by_name("value").unwrap();
//! let values = values.as_any().downcast_ref::<Float64Array>().unwrap();
//! println!("{} rows, first value {}", report.num_rows(), values.value(0));
//! # Ok(()) }
//! ```
//!
//! # The tables
//!
//! Times are instants in whole seconds, shown in the client's time zone
//! ([`ClientBuilder::timezone`](crate::ClientBuilder::timezone), default `+08:00`); numbers
//! are `Float64`, null where the service sent an empty or non-numeric value (never 0, never
//! an error for the whole table); ids, counts and other whole numbers are `Int64`
//! (signed: Spark, Hive, Trino and BigQuery have no unsigned integers); names and categories are
//! dictionary-encoded strings (`Dictionary(Int32, Utf8)`), free texts plain `Utf8`.
//! "ts" below is `Timestamp(Second, Some("+08:00"))` with the client's offset.
//!
//! | table | column | Arrow type | null |
//! |---|---|---|---|
//! | service tasks | `task_id` | `Int64` | no |
//! | | `task_name` | `Utf8` | no |
//! | | `task_type` | `Dictionary(Int32, Utf8)` | no |
//! | | `frequency` | `Int64` (minutes) | yes |
//! | | `last_check_time` | ts | yes (empty or unreadable) |
//! | | `task_status` | `Dictionary(Int32, Utf8)` | no |
//! | site tasks (a field the service left out, or sent empty, is null) | `task_id` | `Int64` | no |
//! | | `task_name`, `task_summary` | `Utf8` | yes |
//! | | `task_type`, `task_status` | `Dictionary(Int32, Utf8)` | yes |
//! | | `frequency` | `Int64` (minutes) | yes |
//! | | `group_id` | `Int64` | yes |
//! | | `task_create_time`, `last_check_time` | ts | yes (also unreadable) |
//! | | `last_resp_time` | `Float64` (ms) | yes |
//! | | `last_resp_result`, `threshold_result` | `Int64` | yes |
//! | | `last_resp_status` | `Dictionary(Int32, Utf8)` | yes |
//! | monitoring points (likewise) | `monitor_id` | `Int64` | no |
//! | | `monitor_name`, `location_code` | `Utf8` | yes |
//! | | `isp_id` | `Int64` | yes |
//! | | `isp_name`, `location_name`, `china_region`, `world_region` | `Dictionary(Int32, Utf8)` | yes |
//! | service report (long: one row per record and metric) | `task_id` | `Int64` | no |
//! | | `series` | `Dictionary(Int32, Utf8)` | no |
//! | | `time` | ts | yes (record without a readable `time`) |
//! | | `metric` | `Dictionary(Int32, Utf8)` | no |
//! | | `value` | `Float64` | yes |
//! | site availability | `task_id` | `Int64` | no |
//! | | `monitor_id` | `Int64` (`0` is the average) | no |
//! | | `monitor` | `Dictionary(Int32, Utf8)` (the point's name as sent) | no |
//! | | `time` | ts | no |
//! | | `uprate` | `Float64` (percent) | yes |
//! | site response time | `task_id`, `monitor_id`, `monitor`, `time` | as above | no |
//! | | `resptime_max`, `resptime_avg`, `resptime_min`, `resp_process_time`, `resp_connect_time`, `resp_dns_time`, `resp_download_time` | `Float64` (ms) | yes |
//! | site faults | `task_id`, `monitor_id`, `monitor` | as above | no |
//! | | `start_time` | ts | no |
//! | | `end_time` | ts | yes (null while the fault goes on) |
//! | | `ongoing` | `Boolean` | no |
//! | | `duration_s` | `Int64` (`end_time - start_time`) | yes (while ongoing) |
//! | | `cause` | `Dictionary(Int32, Utf8)` (the service's `fault_status`) | no |
//! | | `diff_time`, `current_fault_period` | `Utf8` (as sent) | no |
//! | response-time distribution | `task_id` | `Int64` | no |
//! | | `start_ms`, `end_ms` | `Int64` | no |
//! | | `count` | `Int64` | no |
//! | | `percent` | `Float64` | yes |
//!
//! A service report's records carry only a clock time, `HH:MM`: the date of a record is the
//! report's first day plus the number of times the clock went backwards in its series before
//! it, so one series can span many days, across a month or a year end. A record without a
//! readable time gets a null time and leaves the count alone. Rows keep the service's order:
//! series, records, then fields within a record (service report); points, then checks
//! (site tables); buckets by lower bound (distribution). PHP's empty object `[]` is an empty
//! table with the full schema.
//!
//! Bulk calls ([`Tables::service_reports`], [`Tables::site_reports`]) fetch many tasks with
//! bounded concurrency and return, for each task that succeeded, exactly the table its
//! single call gives, plus every task that failed with its error.

pub(crate) mod client;
pub(crate) mod columns;
mod concat;
mod distribution;
mod service;
mod site;
mod tasks;

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use chrono::{FixedOffset, NaiveDate};

/// The `arrow-array` crate the tables are built with (the version `pyo3-arrow` uses).
pub use arrow_array;
pub use arrow_array::RecordBatch;
/// The `arrow-schema` crate of the tables' schemas.
pub use arrow_schema;
pub use concat::concat_batches;

pub use client::{
    check_concurrency, BulkOptions, BulkStream, BulkTables, OnFailure, Progress, ProgressCallback, Tables,
    TaskIds, DEFAULT_CONCURRENCY,
};

use crate::Members;
use crate::{Endpoint, Error, MonitorPoint, Result, ServiceTask, SiteTask};

/// The three tables of a site report.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteTables {
    /// One row per monitoring point and check: [`site_availability_schema`].
    pub availability: RecordBatch,
    /// One row per monitoring point and check: [`site_response_time_schema`].
    pub response_time: RecordBatch,
    /// One row per fault: [`site_faults_schema`].
    pub faults: RecordBatch,
}

impl SiteTables {
    /// The rows of the three tables.
    pub(crate) fn rows(&self) -> usize {
        self.availability.num_rows() + self.response_time.num_rows() + self.faults.num_rows()
    }
}

/// `Timestamp(Second, Some(<offset>))`, e.g. `+08:00`.
pub fn timestamp_type(timezone: FixedOffset) -> DataType {
    DataType::Timestamp(TimeUnit::Second, Some(timezone.to_string().into()))
}

/// `Dictionary(Int32, Utf8)`: names and categories.
fn category() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

fn schema(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}

fn task_id_field() -> Field {
    Field::new("task_id", DataType::Int64, false)
}

fn point_fields() -> [Field; 3] {
    [
        task_id_field(),
        Field::new("monitor_id", DataType::Int64, false),
        Field::new("monitor", category(), false),
    ]
}

/// Schema of the service task list table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::service_tasks_schema(monapi::SERVICE_TIMEZONE);
/// assert_eq!(schema.field(4).data_type().to_string(), r#"Timestamp(s, "+08:00")"#);
/// ```
pub fn service_tasks_schema(timezone: FixedOffset) -> SchemaRef {
    schema(vec![
        task_id_field(),
        Field::new("task_name", DataType::Utf8, false),
        Field::new("task_type", category(), false),
        Field::new("frequency", DataType::Int64, true),
        Field::new("last_check_time", timestamp_type(timezone), true),
        Field::new("task_status", category(), false),
    ])
}

/// Schema of the site task list table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::site_tasks_schema(monapi::SERVICE_TIMEZONE);
/// assert_eq!(schema.field(9).name(), "last_resp_time");
/// ```
pub fn site_tasks_schema(timezone: FixedOffset) -> SchemaRef {
    schema(vec![
        task_id_field(),
        Field::new("task_name", DataType::Utf8, true),
        Field::new("task_summary", DataType::Utf8, true),
        Field::new("task_type", category(), true),
        Field::new("frequency", DataType::Int64, true),
        Field::new("task_status", category(), true),
        Field::new("group_id", DataType::Int64, true),
        Field::new("task_create_time", timestamp_type(timezone), true),
        Field::new("last_check_time", timestamp_type(timezone), true),
        Field::new("last_resp_time", DataType::Float64, true),
        Field::new("last_resp_result", DataType::Int64, true),
        Field::new("last_resp_status", category(), true),
        Field::new("threshold_result", DataType::Int64, true),
    ])
}

/// Schema of the monitoring point table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::monitors_schema();
/// assert_eq!(schema.field(0).name(), "monitor_id");
/// ```
pub fn monitors_schema() -> SchemaRef {
    schema(vec![
        Field::new("monitor_id", DataType::Int64, false),
        Field::new("monitor_name", DataType::Utf8, true),
        Field::new("isp_id", DataType::Int64, true),
        Field::new("isp_name", category(), true),
        Field::new("location_code", DataType::Utf8, true),
        Field::new("location_name", category(), true),
        Field::new("china_region", category(), true),
        Field::new("world_region", category(), true),
    ])
}

/// Schema of the long service report table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::service_report_schema(monapi::SERVICE_TIMEZONE);
/// let names: Vec<_> = schema.fields().iter().map(|f| f.name().as_str()).collect();
/// assert_eq!(names, ["task_id", "series", "time", "metric", "value"]);
/// ```
pub fn service_report_schema(timezone: FixedOffset) -> SchemaRef {
    schema(vec![
        task_id_field(),
        Field::new("series", category(), false),
        Field::new("time", timestamp_type(timezone), true),
        Field::new("metric", category(), false),
        Field::new("value", DataType::Float64, true),
    ])
}

/// Schema of a site report's availability table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::site_availability_schema(monapi::SERVICE_TIMEZONE);
/// assert_eq!(schema.fields().len(), 5);
/// ```
pub fn site_availability_schema(timezone: FixedOffset) -> SchemaRef {
    let mut fields = point_fields().to_vec();
    fields.push(Field::new("time", timestamp_type(timezone), false));
    fields.push(Field::new("uprate", DataType::Float64, true));
    schema(fields)
}

/// The response-time fields of a site report, in the order of its records.
pub const RESPONSE_TIME_FIELDS: [&str; 7] = [
    "resptime_max",
    "resptime_avg",
    "resptime_min",
    "resp_process_time",
    "resp_connect_time",
    "resp_dns_time",
    "resp_download_time",
];

/// Schema of a site report's response-time table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::site_response_time_schema(monapi::SERVICE_TIMEZONE);
/// assert_eq!(schema.field(4).name(), "resptime_max");
/// ```
pub fn site_response_time_schema(timezone: FixedOffset) -> SchemaRef {
    let mut fields = point_fields().to_vec();
    fields.push(Field::new("time", timestamp_type(timezone), false));
    fields.extend(RESPONSE_TIME_FIELDS.map(|name| Field::new(name, DataType::Float64, true)));
    schema(fields)
}

/// Schema of a site report's faults table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::site_faults_schema(monapi::SERVICE_TIMEZONE);
/// assert!(schema.field_with_name("end_time").unwrap().is_nullable());
/// ```
pub fn site_faults_schema(timezone: FixedOffset) -> SchemaRef {
    let mut fields = point_fields().to_vec();
    fields.extend([
        Field::new("start_time", timestamp_type(timezone), false),
        Field::new("end_time", timestamp_type(timezone), true),
        Field::new("ongoing", DataType::Boolean, false),
        Field::new("duration_s", DataType::Int64, true),
        Field::new("cause", category(), false),
        Field::new("diff_time", DataType::Utf8, false),
        Field::new("current_fault_period", DataType::Utf8, false),
    ]);
    schema(fields)
}

/// Schema of the response-time distribution table (see the [module](self) docs).
///
/// ```
/// let schema = monapi::table::distribution_schema();
/// assert_eq!(schema.field(1).name(), "start_ms");
/// ```
pub fn distribution_schema() -> SchemaRef {
    schema(vec![
        task_id_field(),
        Field::new("start_ms", DataType::Int64, false),
        Field::new("end_ms", DataType::Int64, false),
        Field::new("count", DataType::Int64, false),
        Field::new("percent", DataType::Float64, true),
    ])
}

/// The service task list as a table (rows in the given order).
///
/// ```
/// let json = r#"[{"task_id":"10001","task_name":"web","task_type":"apache","frequency":"5",
///                "last_check_time":"2026-11-21 23:55:00","task_status":"启用"}]"#;
/// let tasks: Vec<monapi::ServiceTask> = serde_json::from_str(json).unwrap();
/// let table = monapi::table::service_tasks(&tasks, monapi::SERVICE_TIMEZONE);
/// assert_eq!(table.num_rows(), 1);
/// ```
pub fn service_tasks(tasks: &[ServiceTask], timezone: FixedOffset) -> RecordBatch {
    tasks::build(tasks, timezone)
}

/// The site task list as its table.
pub fn site_tasks(tasks: &[SiteTask], timezone: FixedOffset) -> RecordBatch {
    tasks::build_sites(tasks, timezone)
}

/// The monitoring points as their table.
pub fn monitors(points: &[MonitorPoint]) -> RecordBatch {
    tasks::build_monitors(points)
}

/// A service report's body (JSON, as the service sends it) as the long table, reading its
/// `HH:MM` times as days from `start` in `timezone`. The body is read once, straight into
/// the table's columns.
///
/// ```
/// let body = br#"{"apache_rps":[{"time":"23:55","rps":"12.50"},{"time":"00:00","rps":""}]}"#;
/// let start = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
/// let table = monapi::table::service_report(10001, body, start, monapi::SERVICE_TIMEZONE)?;
/// assert_eq!(table.num_rows(), 2); // the second value is null; its time is 1 December 00:00
/// # Ok::<(), monapi::Error>(())
/// ```
///
/// # Errors
///
/// - An [`Error::InvalidInput`] naming `task_id` when it is 0 or beyond 2^63 - 1.
/// - An [`Error::Decode`] of [`Endpoint::ServiceReport`] when `body` is not a service report (not
///   UTF-8 JSON, not of the report's shape, a value or time that does not read): its message
///   says what did not fit, its snippet shows how the body starts.
pub fn service_report(
    task_id: u64,
    body: &[u8],
    start: NaiveDate,
    timezone: FixedOffset,
) -> Result<RecordBatch> {
    crate::input::check_task_id(task_id)?;
    service::build(task_id, Body::Whole(body), start, timezone)
        .map_err(|e| decode_error(Endpoint::ServiceReport, body, e))
}

/// A site report's body (JSON) as its three tables.
///
/// ```
/// let body = r#"{"0":{"name":"平均","uprate":{"1763769600":{"uprate":"99.50"}},"fault":null,"resptime":[]}}"#;
/// let tables = monapi::table::site_report(20001, body.as_bytes(), monapi::SERVICE_TIMEZONE)?;
/// assert_eq!(
///     (tables.availability.num_rows(), tables.response_time.num_rows(), tables.faults.num_rows()),
///     (1, 0, 0)
/// );
/// # Ok::<(), monapi::Error>(())
/// ```
///
/// # Errors
///
/// As for [`service_report`]: `task_id` out of range, or `body` not a site report (an
/// [`Error::Decode`] of [`Endpoint::SiteReport`]).
pub fn site_report(task_id: u64, body: &[u8], timezone: FixedOffset) -> Result<SiteTables> {
    crate::input::check_task_id(task_id)?;
    site::build(task_id, Body::Whole(body), timezone).map_err(|e| decode_error(Endpoint::SiteReport, body, e))
}

/// A response-time distribution's body (JSON) as a table, buckets by lower bound.
///
/// ```
/// let body = br#"{"100":{"start":100,"end":200,"count":3,"percent":"25.00"},"0":{"start":0,"end":100,"count":9,"percent":"75.00"}}"#;
/// let table = monapi::table::response_time_distribution(20001, body)?;
/// assert_eq!(table.num_rows(), 2);
/// # Ok::<(), monapi::Error>(())
/// ```
///
/// # Errors
///
/// As for [`service_report`]: `task_id` out of range, or `body` not a response-time
/// distribution (an [`Error::Decode`] of [`Endpoint::ResponseTimeDistribution`]).
pub fn response_time_distribution(task_id: u64, body: &[u8]) -> Result<RecordBatch> {
    crate::input::check_task_id(task_id)?;
    distribution::build(task_id, body).map_err(|e| decode_error(Endpoint::ResponseTimeDistribution, body, e))
}

fn decode_error(endpoint: Endpoint, body: &[u8], error: serde_json::Error) -> Error {
    Error::Decode {
        endpoint,
        message: error.to_string(),
        snippet: crate::error::snippet(body),
    }
}

/// A whole body as text: one check of it as UTF-8 is cheaper than serde_json's check of each
/// string.
fn text(body: &[u8]) -> serde_json::Result<&str> {
    std::str::from_utf8(body).map_err(|e| {
        <serde_json::Error as serde::de::Error>::custom(format!("the body is not UTF-8 text: {e}"))
    })
}

/// Reads all of a small whole `body` with `seed`: one JSON value and nothing after it.
fn decode<'de, S: serde::de::DeserializeSeed<'de>>(body: &'de [u8], seed: S) -> serde_json::Result<S::Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text(body)?);
    let value = seed.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// A body to build a table from: whole, or member by member as it arrives.
pub(crate) enum Body<'a> {
    Whole(&'a [u8]),
    Members(&'a mut Members),
}

type Text<'t> = serde_json::Deserializer<serde_json::de::StrRead<'t>>;

impl Body<'_> {
    /// Its length, when known.
    fn len(&self) -> Option<usize> {
        match self {
            Body::Whole(body) => Some(body.len()),
            Body::Members(_) => None,
        }
    }

    /// Reads it with `read`: once for a whole body, once per member (`{"key": value}`) as
    /// it arrives; each text one JSON value and nothing after it.
    fn read(self, mut read: impl FnMut(&mut Text<'_>) -> serde_json::Result<()>) -> serde_json::Result<()> {
        let mut one = |text: &str| {
            let mut deserializer = serde_json::Deserializer::from_str(text);
            read(&mut deserializer)?;
            deserializer.end()
        };
        match self {
            Body::Whole(body) => one(text(body)?),
            Body::Members(members) => {
                while let Some(member) = members.next_member()? {
                    one(member)?;
                }
                Ok(())
            }
        }
    }
}
