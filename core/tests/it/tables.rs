//! Tables (feature `arrow`): schemas, the rules where the service is loose (the shared cases
//! of tests/fixtures/tables.json), and the client's calls against the emulator, one task or
//! many.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;
use chrono::{Days, FixedOffset, NaiveDate};
use futures::StreamExt;
use monapi::table::arrow_array::cast::AsArray;
use monapi::table::arrow_array::types::{Float64Type, TimestampSecondType};
use monapi::table::arrow_array::{Array, RecordBatch};
use monapi::table::arrow_schema::{DataType, Field, TimeUnit};
use monapi::table::{self, BulkOptions, Progress, TaskIds};
use monapi::{DateRange, Endpoint, Error, ErrorKind, Monitor, Request, ServiceTask, SERVICE_TIMEZONE};
use monapi_emulator::{Config, FaultKind, Faults, Quirks};
use rows::rows;
use serde_json::Value;

fn zone(text: &str) -> FixedOffset {
    monapi::input::timezone(text).unwrap()
}

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

// ---------------------------------------------------------------------------------------
// Schemas, exactly as the design's table of columns.

fn ts(timezone: &str) -> DataType {
    DataType::Timestamp(TimeUnit::Second, Some(timezone.into()))
}

fn category() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

fn expected_schemas(timezone: &str) -> BTreeMap<&'static str, Vec<Field>> {
    let f = Field::new;
    let point = || {
        vec![
            f("task_id", DataType::Int64, false),
            f("monitor_id", DataType::Int64, false),
            f("monitor", category(), false),
        ]
    };
    let mut availability = point();
    availability.extend([
        f("time", ts(timezone), false),
        f("uprate", DataType::Float64, true),
    ]);
    let mut response_time = point();
    response_time.push(f("time", ts(timezone), false));
    for name in [
        "resptime_max",
        "resptime_avg",
        "resptime_min",
        "resp_process_time",
        "resp_connect_time",
        "resp_dns_time",
        "resp_download_time",
    ] {
        response_time.push(f(name, DataType::Float64, true));
    }
    let mut faults = point();
    faults.extend([
        f("start_time", ts(timezone), false),
        f("end_time", ts(timezone), true),
        f("ongoing", DataType::Boolean, false),
        f("duration_s", DataType::Int64, true),
        f("cause", category(), false),
        f("diff_time", DataType::Utf8, false),
        f("current_fault_period", DataType::Utf8, false),
    ]);
    BTreeMap::from([
        (
            "service_tasks",
            vec![
                f("task_id", DataType::Int64, false),
                f("task_name", DataType::Utf8, false),
                f("task_type", category(), false),
                f("frequency", DataType::Int64, true),
                f("last_check_time", ts(timezone), true),
                f("task_status", category(), false),
            ],
        ),
        (
            "site_tasks",
            vec![
                f("task_id", DataType::Int64, false),
                f("task_name", DataType::Utf8, true),
                f("task_summary", DataType::Utf8, true),
                f("task_type", category(), true),
                f("frequency", DataType::Int64, true),
                f("task_status", category(), true),
                f("group_id", DataType::Int64, true),
                f("task_create_time", ts(timezone), true),
                f("last_check_time", ts(timezone), true),
                f("last_resp_time", DataType::Float64, true),
                f("last_resp_result", DataType::Int64, true),
                f("last_resp_status", category(), true),
                f("threshold_result", DataType::Int64, true),
            ],
        ),
        (
            "monitors",
            vec![
                f("monitor_id", DataType::Int64, false),
                f("monitor_name", DataType::Utf8, true),
                f("isp_id", DataType::Int64, true),
                f("isp_name", category(), true),
                f("location_code", DataType::Utf8, true),
                f("location_name", category(), true),
                f("china_region", category(), true),
                f("world_region", category(), true),
            ],
        ),
        (
            "service_report",
            vec![
                f("task_id", DataType::Int64, false),
                f("series", category(), false),
                f("time", ts(timezone), true),
                f("metric", category(), false),
                f("value", DataType::Float64, true),
            ],
        ),
        ("availability", availability),
        ("response_time", response_time),
        ("faults", faults),
        (
            "distribution",
            vec![
                f("task_id", DataType::Int64, false),
                f("start_ms", DataType::Int64, false),
                f("end_ms", DataType::Int64, false),
                f("count", DataType::Int64, false),
                f("percent", DataType::Float64, true),
            ],
        ),
    ])
}

fn assert_schema(batch: &RecordBatch, table: &str, timezone: &str) {
    let expected = &expected_schemas(timezone)[table];
    let fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    assert_eq!(&fields, expected, "{table}");
}

#[test]
fn schemas_are_the_designs_column_lists() {
    for timezone in ["+08:00", "-05:30", "+00:00"] {
        let tz = zone(timezone);
        let schemas = [
            ("service_tasks", table::service_tasks_schema(tz)),
            ("site_tasks", table::site_tasks_schema(tz)),
            ("monitors", table::monitors_schema()),
            ("service_report", table::service_report_schema(tz)),
            ("availability", table::site_availability_schema(tz)),
            ("response_time", table::site_response_time_schema(tz)),
            ("faults", table::site_faults_schema(tz)),
            ("distribution", table::distribution_schema()),
        ];
        for (name, schema) in schemas {
            assert_schema(&RecordBatch::new_empty(schema), name, timezone);
        }
    }
    assert_eq!(zone("UTC").to_string(), "+00:00");
}

// ---------------------------------------------------------------------------------------
// The shared cases: loose values become nulls, clock times wrap into dates.

fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/tables.json");
    let text = std::fs::read_to_string(path).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all["cases"].as_array().unwrap().clone()
}

#[test]
fn the_shared_cases_give_their_rows() {
    let cases = cases();
    assert!(cases.len() >= 8);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let timezone = case["timezone"].as_str().unwrap();
        let tz = zone(timezone);
        let task_id = case["task_id"].as_u64().unwrap_or(0);
        let body = serde_json::to_vec(&case["body"]).unwrap();
        let tables: Vec<(&str, RecordBatch)> = match case["table"].as_str().unwrap() {
            "service_report" => {
                let start = day(case["start_date"].as_str().unwrap());
                vec![(
                    "service_report",
                    table::service_report(task_id, &body, start, tz).unwrap(),
                )]
            }
            "site_report" => {
                let site = table::site_report(task_id, &body, tz).unwrap();
                vec![
                    ("availability", site.availability),
                    ("response_time", site.response_time),
                    ("faults", site.faults),
                ]
            }
            "distribution" => vec![(
                "distribution",
                table::response_time_distribution(task_id, &body).unwrap(),
            )],
            "service_tasks" => {
                let tasks: Vec<ServiceTask> = serde_json::from_slice(&body).unwrap();
                vec![("service_tasks", table::service_tasks(&tasks, tz))]
            }
            other => panic!("unknown table {other}"),
        };
        for (table, batch) in tables {
            assert_schema(&batch, table, &tz.to_string());
            let key = if case.get(table).is_some() { table } else { "rows" };
            assert_eq!(Value::Array(rows(&batch)), case[key], "{name}: {table}");
        }
    }
}

#[test]
fn structure_that_is_not_a_report_is_a_decode_error_naming_the_endpoint() {
    let start = day("2026-11-01");
    for (body, endpoint) in [
        (&br#"[1]"#[..], Endpoint::ServiceReport),
        (br#"{"apache_rps": [1]}"#, Endpoint::ServiceReport),
        (
            br#"{"apache_rps": [{"time": "00:00"}]} trailing"#,
            Endpoint::ServiceReport,
        ),
    ] {
        let error = table::service_report(1, body, start, SERVICE_TIMEZONE).unwrap_err();
        assert!(
            error.kind() == ErrorKind::Decode && error.endpoint() == Some(&endpoint),
            "{error}"
        );
    }
    for body in [
        &br#"{"x": {}}"#[..],
        br#"{"0": {"uprate": {"noon": {}}}}"#,
        b"<html>",
    ] {
        let error = table::site_report(1, body, SERVICE_TIMEZONE).unwrap_err();
        assert!(
            matches!(
                error,
                Error::Decode {
                    endpoint: Endpoint::SiteReport,
                    ..
                }
            ),
            "{error}"
        );
    }
    let error =
        table::response_time_distribution(1, br#"{"0": {"start": -1, "end": 1, "count": 1}}"#).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
}

// ---------------------------------------------------------------------------------------
// Against the emulator.

fn timestamps(batch: &RecordBatch, column: &str) -> Vec<Option<i64>> {
    batch
        .column_by_name(column)
        .unwrap()
        .as_primitive::<TimestampSecondType>()
        .iter()
        .collect()
}

fn strings(batch: &RecordBatch, column: &str) -> Vec<String> {
    rows(batch)
        .iter()
        .map(|row| row[column].as_str().unwrap().to_string())
        .collect()
}

fn midnight(day: NaiveDate, timezone: FixedOffset) -> i64 {
    day.and_hms_opt(0, 0, 0)
        .unwrap()
        .and_local_timezone(timezone)
        .unwrap()
        .timestamp()
}

/// A one-minute task of the demo setup (the first eight are).
async fn every_minute_task(client: &monapi::Client) -> u64 {
    let tasks = client.service_tasks(1).await.unwrap();
    tasks.iter().find(|t| t.frequency == Some(1)).unwrap().task_id
}

#[tokio::test]
async fn live_tables_have_the_designs_schemas() {
    let emu = emulator().await;
    let client = client(&emu);
    let tables = client.tables();
    let range = DateRange::on(day("2026-11-02"));
    assert_schema(&tables.service_tasks().await.unwrap(), "service_tasks", "+08:00");
    assert_schema(
        &tables.service_report(10001, range).await.unwrap(),
        "service_report",
        "+08:00",
    );
    let site = tables.site_report(20001, range, Monitor::All).await.unwrap();
    assert_schema(&site.availability, "availability", "+08:00");
    assert_schema(&site.response_time, "response_time", "+08:00");
    assert_schema(&site.faults, "faults", "+08:00");
    assert_schema(
        &tables.response_time_distribution(20001, range).await.unwrap(),
        "distribution",
        "+08:00",
    );
}

#[tokio::test]
async fn service_tasks_table_holds_every_page() {
    let emu = emulator().await;
    let client = client(&emu);
    let batch = client.tables().service_tasks().await.unwrap();
    assert_eq!(batch.num_rows(), 120);
    let rows = rows(&batch);
    assert_eq!(rows[0]["task_id"], 10001);
    assert_eq!(rows[119]["task_id"], 10120);
    // The first eight tasks run every minute; they last ran at 23:59 yesterday (in +08:00).
    let yesterday = emu.today() - Days::new(1);
    assert_eq!(
        rows[0]["last_check_time"],
        format!("{}T23:59:00+08:00", yesterday.format("%Y-%m-%d"))
    );
    assert_eq!(rows[0]["frequency"], 1);
    let types: std::collections::BTreeSet<String> = rows.iter().map(|r| r["task_type"].to_string()).collect();
    assert_eq!(types.len(), 8);
}

#[tokio::test]
async fn a_two_day_range_wraps_clock_times_into_dates() {
    let emu = emulator().await;
    let client = client(&emu);
    let task = every_minute_task(&client).await;
    let start = day("2026-11-01");
    let report = client
        .tables()
        .service_report(task, DateRange::new(start, start + Days::new(1)))
        .await
        .unwrap();
    let series = strings(&report, "series");
    let metrics = strings(&report, "metric");
    let times = timestamps(&report, "time");
    let first = midnight(start, SERVICE_TIMEZONE);
    // Per series and metric: one row per minute over both days, in order, from midnight.
    let mut by_metric: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    for ((series, metric), time) in series.into_iter().zip(metrics).zip(times) {
        by_metric.entry((series, metric)).or_default().push(time.unwrap());
    }
    assert!(!by_metric.is_empty());
    for (key, times) in by_metric {
        let expected: Vec<i64> = (0..2 * 1440).map(|minute| first + minute * 60).collect();
        assert_eq!(times, expected, "{key:?}");
    }
}

#[tokio::test]
async fn month_and_year_ends_are_crossed() {
    // The clock after the last range: the emulator sends no data from the future.
    let after = monapi_emulator::instant("now", "2028-03-02 00:00", SERVICE_TIMEZONE).unwrap();
    let emu = emulator_with(Config {
        now: Some(after),
        ..Config::default()
    })
    .await;
    let client = client(&emu);
    // Task 10009 onwards run at 5 to 30 minutes; any frequency works.
    for (from, to) in [
        ("2026-12-31", "2027-01-01"),
        ("2027-02-28", "2027-03-01"),
        ("2028-02-28", "2028-03-01"),
    ] {
        let range = DateRange::new(day(from), day(to));
        let report = client.tables().service_report(10009, range).await.unwrap();
        let rows = rows(&report);
        let first_series = rows[0]["series"].clone();
        let days: Vec<&str> = rows
            .iter()
            .filter(|row| row["series"] == first_series)
            .map(|row| &row["time"].as_str().unwrap()[..10])
            .collect();
        // Every day of the range in turn, each once, 2028's 29 February included.
        let mut distinct: Vec<&str> = days.clone();
        distinct.dedup();
        let expected: Vec<String> = day(from)
            .iter_days()
            .take_while(|d| *d <= day(to))
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect();
        assert_eq!(distinct, expected, "{from}..{to}");
        let per_day = days.len() / expected.len();
        assert!(days
            .chunks(per_day)
            .zip(&expected)
            .all(|(chunk, d)| chunk.iter().all(|x| x == d)));
        assert!(rows
            .iter()
            .all(|row| row["time"].as_str().unwrap().ends_with("+08:00")));
    }
}

#[tokio::test]
async fn sums_per_metric_equal_the_faithful_numbers() {
    let emu = emulator().await;
    let client = client(&emu);
    let range = DateRange::new(day("2026-11-01"), day("2026-11-03"));
    for task_id in [10001, 10002, 10003, 10004, 10005, 10006, 10007, 10008] {
        let table = client.tables().service_report(task_id, range).await.unwrap();
        let faithful: Value = client
            .execute(&Request::ServiceReport { task_id, range })
            .await
            .unwrap()
            .json()
            .unwrap();
        let mut expected: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
        for (series, records) in faithful.as_object().unwrap() {
            for record in records.as_array().unwrap() {
                for (field, value) in record.as_object().unwrap() {
                    if field != "time" {
                        let entry = expected.entry((series.clone(), field.clone())).or_default();
                        entry.0 += value.as_str().unwrap().parse::<f64>().unwrap();
                        entry.1 += 1;
                    }
                }
            }
        }
        let mut sums: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
        let values = table
            .column_by_name("value")
            .unwrap()
            .as_primitive::<Float64Type>();
        let keys = strings(&table, "series")
            .into_iter()
            .zip(strings(&table, "metric"));
        for (row, key) in keys.enumerate() {
            let entry = sums.entry(key).or_default();
            entry.0 += values.value(row);
            entry.1 += 1;
        }
        assert_eq!(values.null_count(), 0);
        // Same numbers added in the same order: equal to the last bit.
        assert_eq!(sums, expected, "task {task_id}");
    }
}

#[tokio::test]
async fn site_tables_from_the_emulator() {
    let emu = emulator_with(stressed_evening()).await;
    let client = client(&emu);
    let today = emu.today();
    let tables = client
        .tables()
        .site_report(20001, DateRange::on(today), Monitor::All)
        .await
        .unwrap();
    let faithful = client
        .site_report(20001, DateRange::on(today), Monitor::All)
        .await
        .unwrap();
    // One availability and one response-time row per point and check.
    let checks: usize = faithful.points.values().map(|p| p.uprate.len()).sum();
    assert_eq!(tables.availability.num_rows(), checks);
    assert_eq!(tables.response_time.num_rows(), checks);
    let availability = rows(&tables.availability);
    assert_eq!(availability[0]["monitor_id"], 0);
    assert_eq!(availability[0]["monitor"], "平均");
    assert_eq!(
        timestamps(&tables.availability, "time")[0],
        Some(midnight(today, SERVICE_TIMEZONE))
    );
    // The faults: today's ongoing one has no end, the ended ones last end - start.
    let faults = rows(&tables.faults);
    let records: usize = faithful
        .points
        .values()
        .filter_map(|p| p.fault.as_ref())
        .map(|f| f.records.len())
        .sum();
    assert_eq!(faults.len(), records);
    let ongoing: Vec<&Value> = faults.iter().filter(|f| f["ongoing"] == true).collect();
    assert_eq!(ongoing.len(), 1);
    assert!(ongoing[0]["end_time"].is_null() && ongoing[0]["duration_s"].is_null());
    let ends = timestamps(&tables.faults, "end_time");
    let starts = timestamps(&tables.faults, "start_time");
    for (i, fault) in faults.iter().enumerate() {
        if fault["ongoing"] == false {
            assert_eq!(
                fault["duration_s"].as_i64(),
                Some(ends[i].unwrap() - starts[i].unwrap())
            );
        }
    }
    // Monitor 0 alone: the average only.
    let average = client
        .tables()
        .site_report(20001, DateRange::on(today), Monitor::Average)
        .await
        .unwrap();
    assert!(rows(&average.availability)
        .iter()
        .all(|r| r["monitor_id"] == 0 && r["monitor"] == "平均"));
    assert_eq!(average.faults.num_rows(), 0);
}

#[tokio::test]
async fn php_empty_objects_from_the_service_are_empty_tables_with_the_full_schema() {
    let emu = emulator().await;
    emu.set_quirks(Quirks {
        no_checks: true,
        ..Quirks::default()
    });
    let client = client(&emu);
    let tables = client.tables();
    let range = DateRange::on(day("2026-11-01"));
    let report = tables.service_report(10001, range).await.unwrap();
    assert_schema(&report, "service_report", "+08:00");
    assert_eq!(report.num_rows(), 0);
    let site = tables.site_report(20001, range, Monitor::All).await.unwrap();
    for (name, table) in [
        ("availability", &site.availability),
        ("response_time", &site.response_time),
        ("faults", &site.faults),
    ] {
        assert_schema(table, name, "+08:00");
        assert_eq!(table.num_rows(), 0, "{name}");
    }
    let distribution = tables.response_time_distribution(20001, range).await.unwrap();
    assert_schema(&distribution, "distribution", "+08:00");
    assert_eq!(distribution.num_rows(), 0);
}

#[tokio::test]
async fn distribution_counts_every_check() {
    let emu = emulator().await;
    let client = client(&emu);
    let batch = client
        .tables()
        .response_time_distribution(20004, DateRange::on(day("2026-11-01")))
        .await
        .unwrap();
    let rows = rows(&batch);
    let total: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 48); // a check every 30 minutes
    assert!(rows
        .windows(2)
        .all(|w| w[0]["end_ms"] == w[1]["start_ms"] || w[0]["end_ms"].as_u64() < w[1]["start_ms"].as_u64()));
    let percent: f64 = rows.iter().map(|r| r["percent"].as_f64().unwrap()).sum();
    assert!((percent - 100.0).abs() < 0.1, "{percent}");
}

#[tokio::test]
async fn the_clients_time_zone_reads_the_days_and_shows_on_every_timestamp() {
    for offset in ["UTC", "+14:00", "-12:00"] {
        let tz = zone(offset);
        let emu = emulator_with(Config {
            timezone: tz,
            ..Config::default()
        })
        .await;
        let client = builder(&emu).timezone(tz).build().unwrap();
        assert_eq!(client.timezone(), tz);
        // Dates left out: today in the client's zone, which is the emulator's today.
        let report = client
            .tables()
            .service_report(10001, DateRange::today())
            .await
            .unwrap();
        assert_schema(&report, "service_report", &tz.to_string());
        assert_eq!(
            timestamps(&report, "time")[0],
            Some(midnight(emu.today(), tz)),
            "{offset}"
        );
        let site = client
            .tables()
            .site_report(20001, DateRange::on(day("2026-11-01")), Monitor::Average)
            .await
            .unwrap();
        assert_eq!(
            timestamps(&site.availability, "time")[0],
            Some(midnight(day("2026-11-01"), tz))
        );
    }
}

// ---------------------------------------------------------------------------------------
// Bulk.

fn range_of(from: &str, to: &str) -> DateRange {
    DateRange::new(day(from), day(to))
}

#[tokio::test]
async fn bulk_service_reports_equal_the_single_calls_and_report_failures() {
    let emu = emulator().await;
    let client = client(&emu);
    let range = range_of("2026-11-01", "2026-11-02");
    let ids = vec![10009, 10010, 424242, 10011, 10012, 10013];
    let bulk = client
        .tables()
        .service_reports(ids.clone(), range, BulkOptions::new().concurrency(3))
        .await
        .unwrap();
    let succeeded: Vec<u64> = bulk.tables.iter().map(|(id, _)| *id).collect();
    assert_eq!(succeeded, [10009, 10010, 10011, 10012, 10013]);
    assert_eq!(bulk.failures.len(), 1);
    let (failed, error) = &bulk.failures[0];
    assert_eq!(*failed, 424242);
    assert!(matches!(error, Error::Api { status: 404, .. }), "{error}");
    for (task_id, table) in &bulk.tables {
        let single = client.tables().service_report(*task_id, range).await.unwrap();
        assert_eq!(table, &single, "task {task_id}");
    }
}

#[tokio::test]
async fn an_injected_fault_fails_one_task_and_the_others_arrive() {
    let emu = emulator().await;
    // No retries: the error page would be retried (a read rides out transient faults).
    let client = builder(&emu).max_retries(0).build().unwrap();
    client.login().await.unwrap();
    let range = range_of("2026-11-01", "2026-11-01");
    // One task at a time, so the first report request is the one that gets the fault.
    emu.set_faults(next_faults(&[FaultKind::MalformedBody]))
        .expect("faults within bounds");
    let bulk = client
        .tables()
        .site_reports(
            &[20001, 20002, 20003],
            range,
            Monitor::All,
            BulkOptions::new().concurrency(1),
        )
        .await
        .unwrap();
    assert_eq!(bulk.failures.len(), 1);
    assert_eq!(bulk.failures[0].0, 20001);
    assert_eq!(bulk.failures[0].1.kind(), ErrorKind::Decode);
    let ids: Vec<u64> = bulk.tables.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [20002, 20003]);
    for (task_id, tables) in &bulk.tables {
        let single = client
            .tables()
            .site_report(*task_id, range, Monitor::All)
            .await
            .unwrap();
        assert_eq!(tables, &single, "task {task_id}");
    }
}

#[tokio::test]
async fn all_tasks_are_listed_then_fetched() {
    let emu = emulator_with(Config {
        service_tasks: 12,
        ..Config::default()
    })
    .await;
    let client = client(&emu);
    let range = range_of("2026-11-01", "2026-11-01");
    let bulk = client
        .tables()
        .service_reports(TaskIds::All, range, BulkOptions::new())
        .await
        .unwrap();
    let ids: Vec<u64> = bulk.tables.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (10001..=10012).collect::<Vec<_>>());
    assert!(bulk.failures.is_empty());
    assert_eq!(emu.counters().service_report, 12);
}

#[tokio::test]
async fn progress_counts_tasks_bytes_and_rows() {
    let emu = emulator().await;
    let client = client(&emu);
    let range = range_of("2026-11-01", "2026-11-01");
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let log = seen.clone();
    let options = BulkOptions::new()
        .concurrency(2)
        .on_progress(move |progress| log.lock().unwrap().push(progress));
    let ids = [10009, 10010, 999_999, 10011];
    let bulk = client
        .tables()
        .service_reports(&ids[..], range, options)
        .await
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), ids.len() + 1, "once at the start, then once per task");
    assert_eq!(seen.iter().map(|p| p.done).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    assert!(seen.iter().all(|p| p.total == 4));
    let last = seen.last().unwrap();
    assert_eq!(last.failed, 1);
    let rows: usize = bulk.tables.iter().map(|(_, t)| t.num_rows()).sum();
    assert_eq!(last.rows, rows as u64);
    let mut bytes = 0;
    for (task_id, _) in &bulk.tables {
        let raw = client
            .execute(&Request::ServiceReport {
                task_id: *task_id,
                range,
            })
            .await
            .unwrap();
        bytes += raw.body().len() as u64;
    }
    assert_eq!(last.bytes, bytes);
}

#[tokio::test]
async fn a_late_task_holds_back_neither_the_others_nor_the_order() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    // The first report request is answered 503 with `Retry-After: 1`: its task (the first or
    // the second, whichever request arrives first) finishes a second after the others.
    emu.set_faults(Faults {
        next: vec![FaultKind::Error503],
        retry_after_secs: 1,
        ..Faults::default()
    })
    .expect("faults within bounds");
    let done = Arc::new(Mutex::new(0));
    let log = done.clone();
    let options = BulkOptions::new()
        .concurrency(2)
        .on_progress(move |progress| *log.lock().unwrap() = progress.done);
    let ids: Vec<u64> = (10001..=10006).collect();
    let range = range_of("2026-11-01", "2026-11-01");
    let mut stream = client
        .tables()
        .service_reports_stream(ids.clone(), range, options)
        .await
        .unwrap();
    let (mut order, mut ahead) = (Vec::new(), 0);
    while let Some((task_id, result)) = stream.next().await {
        result.unwrap();
        order.push(task_id);
        ahead = ahead.max(*done.lock().unwrap() - order.len());
    }
    assert_eq!(order, ids, "in task order");
    // While the late task was waited for, the tasks after it went on, beyond the two at once
    // of a window that only slides when the first task is yielded.
    assert!(
        ahead >= ids.len() - 2,
        "the others finished before the late one: {ahead} ahead"
    );
    assert_eq!(emu.counters().service_report, ids.len() as u64 + 1);
}

#[tokio::test]
async fn dropping_a_bulk_call_stops_every_fetch() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    // Each answer takes two seconds: the call is dropped while its first two requests wait.
    emu.set_latency(Duration::from_secs(2));
    let ids: Vec<u64> = (10001..10021).collect();
    let range = range_of("2026-11-01", "2026-11-01");
    let tables = client.tables();
    let finished: Arc<Mutex<Vec<usize>>> = Arc::default();
    let log = finished.clone();
    let options = BulkOptions::new()
        .concurrency(2)
        .on_progress(move |progress| log.lock().unwrap().push(progress.done));
    let mut call = Box::pin(tables.service_reports(ids, range, options));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while emu.counters().service_report < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the first requests never arrived"
        );
        tokio::select! {
            _ = &mut call => panic!("the call cannot finish before its first answers"),
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
    }
    drop(call);
    // Had the fetches gone on, the first two would have finished (and said so) and the next
    // two requests would have arrived once the first answers came.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        emu.counters().service_report,
        2,
        "no request may start after the call was dropped"
    );
    assert_eq!(
        *finished.lock().unwrap(),
        [0],
        "no fetch in flight may finish after the call was dropped"
    );
}

#[tokio::test]
async fn bad_input_is_refused_before_any_request() {
    let emu = emulator().await;
    let client = client(&emu);
    let tables = client.tables();
    let range = range_of("2026-11-01", "2026-11-01");
    let error = tables
        .service_reports(vec![10001], range, BulkOptions::new().concurrency(0))
        .await
        .unwrap_err();
    assert!(error.field() == Some("concurrency"), "{error}");
    let backwards = range_of("2026-11-02", "2026-11-01");
    let error = tables
        .site_reports(&[20001], backwards, Monitor::All, BulkOptions::new())
        .await
        .unwrap_err();
    assert!(error.field() == Some("start_date"), "{error}");
    let error = tables.service_report(10001, backwards).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidInput);
    assert_eq!(emu.counters().total, 0);
}

#[tokio::test]
async fn wrong_credentials_fail_a_bulk_call_once() {
    let emu = emulator().await;
    let client = builder(&emu).client_secret("wrong").build().unwrap();
    let error = client
        .tables()
        .service_reports(
            vec![10001, 10002, 10003],
            range_of("2026-11-01", "2026-11-01"),
            BulkOptions::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Auth);
    let counters = emu.counters();
    assert_eq!((counters.token, counters.service_report), (1, 0));
}
