//! Numbers and times at their extremes, in every report the service sends: whatever it writes
//! (numbers over the whole `i64` range and beyond, as numbers or as strings with spaces, signs,
//! exponents, fractions, non-ASCII digits, `null`, nothing), decoding and table building give a
//! value or an error, never a panic. The tests run in debug builds, where an overflow panics:
//! a passing property proves that the arithmetic is checked, so release builds cannot wrap.
//!
//! The rule of times: every time read from the network is one of the years 1 to 9999 (unix
//! seconds from -62135596800 to 253402300799). Out of that range it is read as the field reads
//! a value that is not a number: an error naming the field (a fault's `start_time`, a check
//! time), the fault still going on (`end_time`), a null time (a task list's times, a service
//! report's times past the year 9999).

use chrono::{FixedOffset, NaiveDate};
use monapi::table::arrow_array::{Array, Int64Array, TimestampSecondArray};
use monapi::table::{self, RecordBatch};
use monapi::{
    Distribution, Endpoint, FaultEnd, MonitorPoint, ServiceReport, ServiceTask, SiteReport, SiteTask, User,
};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestCaseResult};
use serde_json::{json, Value};

use super::{check, ensure, CASES};

/// The first and last second of the years 1 to 9999, in unix time.
const FIRST: i64 = -62_135_596_800;
const LAST: i64 = 253_402_300_799;

/// Times around every edge: the range's bounds and one past, zero, `i64`'s ends, and any.
fn time() -> impl Strategy<Value = i64> {
    prop_oneof![
        prop::sample::select(vec![
            i64::MIN,
            i64::MIN + 1,
            FIRST - 1,
            FIRST,
            -1,
            0,
            1,
            1_763_769_600,
            LAST,
            LAST + 1,
            i64::MAX - 1,
            i64::MAX,
        ]),
        any::<i64>(),
        FIRST..=LAST,
    ]
}

/// A number as the service might write it: a JSON number or a string, with spaces or a sign,
/// in exponent form, with a fraction, huge, empty, non-ASCII, `null`...
fn written() -> impl Strategy<Value = Value> {
    prop_oneof![
        time().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        time().prop_map(|n| Value::String(n.to_string())),
        time().prop_map(|n| Value::String(format!("  {n}\t"))),
        any::<u64>().prop_map(|n| Value::String(format!("+{n}"))),
        (any::<i32>(), -400..400i32).prop_map(|(m, e)| Value::String(format!("{m}e{e}"))),
        any::<f64>().prop_map(|n| Value::String(n.to_string())),
        "[0-9]{19,40}".prop_map(Value::String),
        "-[0-9]{19,40}".prop_map(Value::String),
        prop::sample::select(vec![
            "",
            " ",
            "-",
            "+",
            "-0",
            "0x10",
            "1_000",
            "NaN",
            "inf",
            "-inf",
            "null",
            "1.5",
            "1e3",
            "١٢٣",
            "１２",
            "12 34",
            "未结束",
            "9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "253402300800",
            "-62135596801",
        ])
        .prop_map(|s| Value::String(s.into())),
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        Just(json!([])),
        Just(json!({})),
    ]
}

/// A key as the service might write one (ids and check times).
fn key() -> impl Strategy<Value = String> {
    written().prop_map(|value| match value {
        Value::String(text) => text,
        other => other.to_string(),
    })
}

/// A site report whose every number and key is [`written`].
fn site_report() -> impl Strategy<Value = Value> {
    let fault = (written(), written(), written());
    let point = (
        prop::collection::vec((key(), written()), 0..3),
        prop::collection::vec((key(), written()), 0..3),
        prop::collection::vec(fault, 0..3),
        written(),
    )
        .prop_map(|(uprate, resptime, faults, count)| {
            let uprate: serde_json::Map<String, Value> = uprate
                .into_iter()
                .map(|(t, v)| (t, json!({ "uprate": v })))
                .collect();
            let resptime: serde_json::Map<String, Value> = resptime
                .into_iter()
                .map(|(t, v)| (t, json!({ "resptime_avg": v, "resptime_max": v })))
                .collect();
            let mut fault: serde_json::Map<String, Value> = faults
                .into_iter()
                .enumerate()
                .map(|(i, (start, end, text))| {
                    (
                        i.to_string(),
                        json!({ "start_time": start, "end_time": end, "fault_status": text }),
                    )
                })
                .collect();
            fault.insert("count".into(), count);
            json!({ "name": "点", "uprate": uprate, "resptime": resptime, "fault": fault })
        });
    prop::collection::vec((key(), point), 0..3).prop_map(|points| Value::Object(points.into_iter().collect()))
}

/// A service report whose values and times are [`written`] (and clock texts).
fn service_report() -> impl Strategy<Value = Value> {
    let time = prop_oneof![
        "[0-2]?[0-9]:[0-5][0-9](:[0-5][0-9])?".prop_map(Value::String),
        written(),
    ];
    let record = (time, written()).prop_map(|(time, value)| json!({ "time": time, "rps": value }));
    prop::collection::vec((key(), prop::collection::vec(record, 0..8)), 0..3)
        .prop_map(|series| Value::Object(series.into_iter().map(|(k, v)| (k, Value::Array(v))).collect()))
}

/// A distribution whose keys and numbers are [`written`].
fn distribution() -> impl Strategy<Value = Value> {
    let bucket = (written(), written(), written(), written())
        .prop_map(|(start, end, count, percent)| json!({ "start": start, "end": end, "count": count, "percent": percent }));
    prop::collection::vec((key(), bucket), 0..4).prop_map(|b| Value::Object(b.into_iter().collect()))
}

/// A task list, monitoring points and users whose every field is [`written`], and times as
/// texts at the extremes of what chrono reads.
fn lists() -> impl Strategy<Value = Value> {
    let stamp = prop_oneof![
        Just("+262143-12-31 23:59:59".to_string()),
        Just("-262144-01-01 00:00:00".to_string()),
        Just("9999-12-31 23:59:59".to_string()),
        Just("0001-01-01 00:00:00".to_string()),
        Just("0000-12-31 23:59:59".to_string()),
        Just("+10000-01-01 00:00:00".to_string()),
        "[+-]?[0-9]{1,6}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]",
    ];
    let task = (written(), written(), written(), written(), stamp.clone(), stamp).prop_map(
        |(id, frequency, group, result, created, checked)| {
            json!({
                "task_id": id, "frequency": frequency, "group_id": group, "last_resp_result": result,
                "threshold_result": result, "last_resp_time": frequency, "task_create_time": created,
                "last_check_time": checked, "monitor_id": id, "isp_id": group, "user_id": id,
                "signup_time": result, "last_visit_time": group, "user_status": frequency, "role_id": group,
            })
        },
    );
    prop::collection::vec(task, 0..4).prop_map(Value::Array)
}

/// Any time zone chrono takes.
fn timezone() -> impl Strategy<Value = FixedOffset> {
    (-86_399..=86_399i32).prop_map(|s| FixedOffset::east_opt(s).unwrap())
}

/// Any first day a date range can name (`YYYY-MM-DD`: years 0 to 9999).
fn first_day() -> impl Strategy<Value = NaiveDate> {
    (0..=3_652_424u64).prop_map(|d| NaiveDate::from_ymd_opt(0, 1, 1).unwrap() + chrono::Days::new(d))
}

/// Every time of a timestamp column is one of the years 1 to 9999.
fn times_in_range(batch: &RecordBatch, column: &str) -> TestCaseResult {
    let times = batch
        .column_by_name(column)
        .unwrap()
        .as_any()
        .downcast_ref::<TimestampSecondArray>()
        .unwrap();
    for time in times.iter().flatten() {
        ensure((FIRST..=LAST).contains(&time), || {
            format!("{column} {time} out of range")
        })?;
    }
    Ok(())
}

#[test]
fn site_reports_of_extreme_numbers_give_a_value_or_an_error() {
    check(
        "site_reports_of_extreme_numbers_give_a_value_or_an_error",
        CASES,
        (site_report(), timezone()),
        |(report, timezone)| {
            let body = serde_json::to_vec(&report).unwrap();
            let typed = serde_json::from_slice::<SiteReport>(&body);
            let _ = monapi::fuzz::answer(&Endpoint::SiteReport, &body);
            let tables = table::site_report(1, &body, timezone);
            // The table and the model read times by one rule.
            ensure(tables.is_ok() == typed.is_ok() || typed.is_err(), || {
                format!("the table read what the model did not: {report}")
            })?;
            if let Ok(tables) = tables {
                times_in_range(&tables.availability, "time")?;
                times_in_range(&tables.response_time, "time")?;
                times_in_range(&tables.faults, "start_time")?;
                times_in_range(&tables.faults, "end_time")?;
                let durations = tables.faults.column_by_name("duration_s").unwrap();
                let durations = durations.as_any().downcast_ref::<Int64Array>().unwrap();
                ensure(durations.len() == tables.faults.num_rows(), || "durations".into())?;
            }
            Ok(())
        },
    );
}

#[test]
fn service_reports_of_extreme_numbers_give_a_value_or_an_error() {
    check(
        "service_reports_of_extreme_numbers_give_a_value_or_an_error",
        CASES,
        (service_report(), first_day(), timezone()),
        |(report, start, timezone)| {
            let body = serde_json::to_vec(&report).unwrap();
            let _ = serde_json::from_slice::<ServiceReport>(&body);
            let _ = monapi::fuzz::answer(&Endpoint::ServiceReport, &body);
            if let Ok(table) = table::service_report(1, &body, start, timezone) {
                times_in_range(&table, "time")?;
            }
            Ok(())
        },
    );
}

#[test]
fn distributions_of_extreme_numbers_give_a_value_or_an_error() {
    check(
        "distributions_of_extreme_numbers_give_a_value_or_an_error",
        CASES,
        distribution(),
        |report| {
            let body = serde_json::to_vec(&report).unwrap();
            let typed = serde_json::from_slice::<Distribution>(&body);
            let _ = monapi::fuzz::answer(&Endpoint::ResponseTimeDistribution, &body);
            let table = table::response_time_distribution(1, &body);
            // The table reads no more than the model: its bounds and count are the model's types,
            // and its count at most 2^63 - 1.
            ensure(table.is_err() || typed.is_ok(), || format!("{report}"))?;
            Ok(())
        },
    );
}

#[test]
fn task_lists_of_extreme_numbers_give_a_value_or_an_error() {
    check(
        "task_lists_of_extreme_numbers_give_a_value_or_an_error",
        CASES,
        (lists(), timezone()),
        |(list, timezone)| {
            let body = serde_json::to_vec(&list).unwrap();
            for endpoint in [
                Endpoint::ServiceTasks,
                Endpoint::SiteTasks,
                Endpoint::Monitors,
                Endpoint::Users,
            ] {
                let _ = monapi::fuzz::answer(&endpoint, &body);
            }
            if let Ok(tasks) = serde_json::from_slice::<Vec<ServiceTask>>(&body) {
                times_in_range(&table::service_tasks(&tasks, timezone), "last_check_time")?;
            }
            if let Ok(tasks) = serde_json::from_slice::<Vec<SiteTask>>(&body) {
                let batch = table::site_tasks(&tasks, timezone);
                times_in_range(&batch, "task_create_time")?;
                times_in_range(&batch, "last_check_time")?;
            }
            if let Ok(points) = serde_json::from_slice::<Vec<MonitorPoint>>(&body) {
                let _ = table::monitors(&points);
            }
            if let Ok(users) = serde_json::from_slice::<Vec<User>>(&body) {
                for user in users {
                    for time in [user.signup_time, user.last_visit_time].into_iter().flatten() {
                        ensure((FIRST..=LAST).contains(&time), || format!("user time {time}"))?;
                    }
                }
            }
            Ok(())
        },
    );
}

/// A site report of one point, one check at `check` and one fault from `start` to `end`.
fn one_fault(check: i64, start: &Value, end: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({ "0": {
        "name": "avg",
        "uprate": { check.to_string(): { "uprate": "99.5" } },
        "fault": { "0": { "start_time": start, "end_time": end }, "count": 1 },
    }}))
    .unwrap()
}

#[test]
fn times_out_of_the_years_1_to_9999_follow_the_one_rule() {
    let written = |t: i64, text: bool| {
        if text {
            Value::String(format!(" {t} "))
        } else {
            Value::from(t)
        }
    };
    check(
        "times_out_of_the_years_1_to_9999_follow_the_one_rule",
        CASES,
        (time(), time(), time(), any::<bool>()),
        |(check, start, end, text)| {
            let body = one_fault(check, &written(start, text), &written(end, text));
            let typed = serde_json::from_slice::<SiteReport>(&body);
            let tables = table::site_report(1, &body, monapi::SERVICE_TIMEZONE);
            let in_range = |t: i64| (FIRST..=LAST).contains(&t);
            if !in_range(check) || !in_range(start) {
                let field = if in_range(check) { "start_time" } else { "uprate" };
                let typed = typed.map(drop).unwrap_err().to_string();
                let table = tables.map(drop).unwrap_err().to_string();
                ensure(typed.contains(field) && table.contains(field), || {
                    format!("the errors name {field}: {typed} / {table}")
                })?;
                return Ok(());
            }
            let typed = typed.map_err(|e| TestCaseError::fail(e.to_string()))?;
            let tables = tables.map_err(|e| TestCaseError::fail(e.to_string()))?;
            let fault = &typed.points[&0].fault.as_ref().unwrap().records[&0];
            ensure(fault.start_time == start, || {
                format!("start {}", fault.start_time)
            })?;
            // The service's text for a time (a string) must be after 1970; a number need not.
            let ended = in_range(end) && (!text || end > 0);
            ensure(fault.end_time.is_ongoing() != ended, || {
                format!("end {:?}", fault.end_time)
            })?;
            if ended {
                ensure(fault.end_time == FaultEnd::Ended(end), || {
                    format!("end {:?}", fault.end_time)
                })?;
            }
            let durations = tables.faults.column_by_name("duration_s").unwrap();
            let durations = durations.as_any().downcast_ref::<Int64Array>().unwrap();
            let expected = ended.then(|| end - start);
            let got = (!durations.is_null(0)).then(|| durations.value(0));
            ensure(got == expected, || format!("duration {got:?}, not {expected:?}"))
        },
    );
}

#[test]
fn a_service_report_past_the_year_9999_has_null_times() {
    // The clock goes back at every record: a day each, from the last day a range can name.
    let records: Vec<Value> = (0..4)
        .map(|i| json!({ "time": if i % 2 == 0 { "23:00" } else { "01:00" }, "rps": i }))
        .collect();
    let body = serde_json::to_vec(&json!({ "s": records })).unwrap();
    let start = NaiveDate::from_ymd_opt(9999, 12, 31).unwrap();
    let table = table::service_report(1, &body, start, monapi::SERVICE_TIMEZONE).unwrap();
    let times = table.column_by_name("time").unwrap();
    let times = times.as_any().downcast_ref::<TimestampSecondArray>().unwrap();
    // Midnight of 9999-12-31 at +08:00 is 9999-12-30 16:00 UTC: its 23:00 and the next day's
    // 01:00 are in the year 9999 (UTC); the next day's 23:00 and the day after are not.
    let got: Vec<Option<i64>> = times.iter().collect();
    assert_eq!(got, [Some(LAST - 32_399), Some(LAST - 25_199), None, None]);
}

#[test]
fn integer_fields_refuse_floats_that_round_past_their_type() {
    // 2^64 (u64) and 2^63 (i64) as floats: `MAX as f64` rounds up to them, which once let
    // them through, saturated by `as`.
    let task = serde_json::from_str::<ServiceTask>(r#"{"task_id": 18446744073709551616.0}"#);
    assert!(task.is_err(), "{task:?}");
    let site =
        serde_json::from_str::<SiteTask>(r#"{"task_id": 1, "last_resp_result": 9223372036854775808.0}"#);
    assert!(site.is_err(), "{site:?}");
    let site: SiteTask =
        serde_json::from_str(r#"{"task_id": 1, "last_resp_result": -9223372036854775808.0}"#).unwrap();
    assert_eq!(site.last_resp_result, Some(i64::MIN));
    // A time out of the years 1 to 9999 is an error naming its field.
    let user = serde_json::from_str::<User>(r#"{"user_id": 1, "signup_time": "-9223372036854775808"}"#);
    assert!(user.unwrap_err().to_string().contains("signup_time"));
}

#[test]
fn ids_and_counts_beyond_2_63_are_refused_where_they_enter() {
    // The tables hold them as Int64: the decoders refuse what would not fit, naming the number.
    for task_id in [
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
    ] {
        let typed = serde_json::from_str::<ServiceTask>(&format!(r#"{{"task_id": "{task_id}"}}"#));
        let fits = task_id == "9223372036854775807";
        assert_eq!(typed.is_ok(), fits, "{task_id}: {typed:?}");
        let site = serde_json::from_str::<SiteTask>(&format!(r#"{{"task_id": 1, "group_id": {task_id}}}"#));
        assert_eq!(site.is_ok(), fits, "{task_id}: {site:?}");
    }
    let count = br#"{"0":{"start":0,"end":100,"count":9223372036854775808,"percent":"1"}}"#;
    let error = table::response_time_distribution(1, count).unwrap_err();
    assert!(error.to_string().contains("beyond 2^63 - 1"), "{error}");
    // And a task id given to a call or a table function.
    let error = table::response_time_distribution(1 << 63, b"{}").unwrap_err();
    assert_eq!(error.field(), Some("task_id"));
    assert!(monapi::input::task_id(monapi::input::Id::Text("9223372036854775808")).is_err());
    assert_eq!(
        monapi::input::task_id(monapi::input::Id::Text("9223372036854775807")).unwrap(),
        i64::MAX as u64
    );
}
