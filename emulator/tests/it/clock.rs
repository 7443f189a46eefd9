//! The emulator's clock (`Config::now`, `set_now`, `advance`, `/_emulator/clock`): no report
//! has a check after it, a fault under way at it has no end yet, and "today" is its day.

use std::time::Duration;

use monapi_emulator::{instant, Config, World, SERVICE_TIMEZONE};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::*;

const ONGOING: &str = "未结束";

/// 2026-11-01 10:02:00 +08:00.
const TEN_OH_TWO: i64 = 1_793_498_520;

fn at(local: &str) -> chrono::DateTime<chrono::Utc> {
    instant("now", local, SERVICE_TIMEZONE).unwrap()
}

fn clocked(local: &str, world: World) -> Config {
    Config {
        now: Some(at(local)),
        world,
        ..Config::default()
    }
}

fn keys(object: &Value) -> Vec<i64> {
    object
        .as_object()
        .map(|map| map.keys().map(|key| key.parse().unwrap()).collect())
        .unwrap_or_default()
}

async fn site_report(env: &Env, token: &str, task: u32, days: (&str, &str)) -> Value {
    let path = format!("/v2/site/report/{task}.json");
    let reply = env
        .get_auth(token, &path, &[("start_date", days.0), ("end_date", days.1)])
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    reply.json
}

/// Every fault of every point starts at or before `now`, and ends at or before it or not yet.
fn faults_so_far(report: &Value, now: i64) {
    for (id, point) in report.as_object().unwrap() {
        let Some(faults) = point["fault"].as_object() else {
            continue;
        };
        for (key, fault) in faults.iter().filter(|(key, _)| *key != "count") {
            let start: i64 = fault["start_time"].as_str().unwrap().parse().unwrap();
            assert!(
                start <= now,
                "point {id} fault {key} starts after the clock: {fault}"
            );
            let end = fault["end_time"].as_str().unwrap();
            if end != ONGOING {
                assert!(
                    end.parse::<i64>().unwrap() <= now,
                    "point {id} fault {key}: {fault}"
                );
            }
        }
    }
}

#[tokio::test]
async fn no_report_has_a_check_after_the_clock() {
    for world in [World::Realistic, World::Stressed] {
        let env = start_with(clocked("2026-11-01 10:02", world)).await;
        assert_eq!(env.emu.today().to_string(), "2026-11-01");
        let token = env.login().await;
        for (task, step) in [
            (20001, 300),
            (20002, 600),
            (20003, 900),
            (20004, 1800),
            (20005, 60),
        ] {
            // Today by explicit dates and by leaving them out, and a range from before it.
            let path = format!("/v2/site/report/{task}.json");
            let omitted = env.get_auth(&token, &path, &[]).await.json;
            for report in [
                site_report(&env, &token, task, ("2026-11-01", "2026-11-01")).await,
                omitted,
                site_report(&env, &token, task, ("2026-10-31", "2026-11-01")).await,
            ] {
                for (id, point) in report.as_object().unwrap() {
                    for series in ["uprate", "resptime"] {
                        let times = keys(&point[series]);
                        let last = *times.iter().max().unwrap();
                        assert!(last <= TEN_OH_TWO, "{world:?} {task} {id} {series}: {last}");
                        // Every check up to the clock is there: the last one is 10:00 or 10:02.
                        assert!(last > TEN_OH_TWO - step, "{world:?} {task} {id} {series}: {last}");
                    }
                }
                faults_so_far(&report, TEN_OH_TWO);
            }
            // The distribution counts the checks up to the clock only.
            let path = format!("/v2/site/respose_time_distribute/{task}.json");
            let buckets = env.get_auth(&token, &path, &[]).await.json;
            let counted: u64 = buckets
                .as_object()
                .unwrap()
                .values()
                .map(|bucket| bucket["count"].as_u64().unwrap())
                .sum();
            let day_start = day_start("2026-11-01");
            assert_eq!(counted, ((TEN_OH_TWO - day_start) / step + 1) as u64, "{task}");
        }

        // Service reports: records up to 10:02 (a one-minute task) or 10:00 (a five-minute one).
        let tasks = all_service_tasks(&env, &token).await;
        for task in &tasks {
            let listed = task["last_check_time"].as_str().unwrap();
            assert!(listed < "2026-11-01 10:02:00", "{task}");
        }
        for (frequency, last, count) in [("1", "10:02", 603), ("5", "10:00", 121)] {
            let task = tasks.iter().find(|t| t["frequency"] == frequency).unwrap();
            let path = format!("/v2/service/report/{}.json", task["task_id"].as_str().unwrap());
            let report = env.get_auth(&token, &path, &[]).await.json;
            for (series, records) in report.as_object().unwrap() {
                let records = records.as_array().unwrap();
                assert_eq!(records.len(), count, "{series}");
                assert_eq!(records.last().unwrap()["time"], last, "{series}");
            }
        }
        // The site task list's last checks are before the clock too.
        let sites = env.get_auth(&token, "/v2/site/lists.json", &[]).await.json;
        for site in sites.as_array().unwrap() {
            assert!(site["last_check_time"].as_str().unwrap() < "2026-11-01 10:02:00");
        }
    }
}

#[tokio::test]
async fn a_day_after_the_clock_has_no_checks() {
    let env = start_with(clocked("2026-11-01 10:02", World::Stressed)).await;
    let token = env.login().await;
    let report = site_report(&env, &token, 20001, ("2026-11-02", "2026-11-03")).await;
    for point in report.as_object().unwrap().values() {
        assert_eq!(point["uprate"], json!({}));
        assert_eq!(point["resptime"], json!({}));
        assert_eq!(point["fault"], Value::Null);
    }
    let path = "/v2/site/respose_time_distribute/20001.json";
    let query = [("start_date", "2026-11-02"), ("end_date", "2026-11-02")];
    assert_eq!(env.get_auth(&token, path, &query).await.json, json!({}));
    let report = env
        .get_auth(&token, "/v2/service/report/10001.json", &query)
        .await
        .json;
    assert!(!report.as_object().unwrap().is_empty());
    for records in report.as_object().unwrap().values() {
        assert_eq!(records, &json!([]));
    }
}

/// The first fault of a point lasting three checks or more in the 30 days to 2026-11-30,
/// as (task, point id, start, end, interval).
async fn a_long_fault(env: &Env, token: &str) -> (u32, String, i64, i64, i64) {
    for (task, step) in [(20001, 300), (20002, 600), (20003, 900), (20004, 1800)] {
        let report = site_report(env, token, task, ("2026-11-01", "2026-11-30")).await;
        for (id, point) in report.as_object().unwrap() {
            let Some(faults) = point["fault"].as_object() else {
                continue;
            };
            for fault in faults.iter().filter(|(key, _)| *key != "count").map(|(_, f)| f) {
                let start: i64 = fault["start_time"].as_str().unwrap().parse().unwrap();
                let end: i64 = fault["end_time"].as_str().unwrap().parse().unwrap();
                if end - start >= 3 * step {
                    return (task, id.clone(), start, end, step);
                }
            }
        }
    }
    panic!("no fault of three checks in 30 days");
}

#[tokio::test]
async fn a_fault_under_way_at_the_clock_has_no_end_yet() {
    let env = start_with(clocked("2026-11-30 23:59:59", World::Realistic)).await;
    let token = env.login().await;
    let (task, point, start, end, step) = a_long_fault(&env, &token).await;

    // Another emulator, started on the fault's day (its clock may not go back before it).
    let during = chrono::DateTime::from_timestamp(start + step + 30, 0).unwrap();
    let day = during.with_timezone(&SERVICE_TIMEZONE).date_naive().to_string();
    let env = start_with(clocked(&format!("{day} 00:00"), World::Realistic)).await;
    let token = env.login().await;
    // The clock in the fault's second check: it began, and has not ended.
    env.emu.set_now(Some(during)).unwrap();
    let report = site_report(&env, &token, task, (&day, &day)).await;
    faults_so_far(&report, start + step + 30);
    let faults = report[&point]["fault"].as_object().unwrap();
    let last = &faults[&(faults["count"].as_u64().unwrap() - 1).to_string()];
    assert_eq!(last["start_time"], start.to_string());
    assert_eq!(last["end_time"], ONGOING, "{last}");
    // Two checks failed so far, each counting its interval.
    let minutes = 2 * step / 60;
    assert_eq!(last["diff_time"], format!("{minutes}分钟"));
    let uprate = &report[&point]["uprate"];
    assert_eq!(uprate[start.to_string()]["uprate"], "0.00");
    assert_eq!(uprate[(start + step).to_string()]["uprate"], "0.00");
    assert_eq!(keys(uprate).into_iter().max(), Some(start + step));

    // Just before it began (on its day): not there at all. After it ended: ended.
    let before = chrono::DateTime::from_timestamp(start - 1, 0).unwrap();
    if before.with_timezone(&SERVICE_TIMEZONE).date_naive().to_string() == day {
        env.emu.set_now(Some(before)).unwrap();
    }
    let report = site_report(&env, &token, task, (&day, &day)).await;
    let starts: Vec<&Value> = report[&point]["fault"]
        .as_object()
        .map(|faults| faults.values().map(|fault| &fault["start_time"]).collect())
        .unwrap_or_default();
    assert!(!starts.contains(&&json!(start.to_string())), "{starts:?}");
    env.emu.set_now(chrono::DateTime::from_timestamp(end, 0)).unwrap();
    let report = site_report(&env, &token, task, (&day, &day)).await;
    let ended = report[&point]["fault"]
        .as_object()
        .unwrap()
        .values()
        .find(|fault| fault["start_time"] == json!(start.to_string()))
        .unwrap();
    assert_eq!(ended["end_time"], end.to_string());
}

#[tokio::test]
async fn a_failed_site_fails_from_the_clock_and_not_before() {
    let env = start_with(clocked("2026-11-01 10:02", World::Realistic)).await;
    let token = env.login().await;
    let since = env.emu.fail_site(20001).unwrap();
    assert_eq!(since, TEN_OH_TWO - 120);
    let report = site_report(&env, &token, 20001, ("2026-11-01", "2026-11-01")).await;
    assert_eq!(report["0"]["uprate"][since.to_string()]["uprate"], "0.00");
    // The clock set back before the failure: it has not begun.
    env.emu.set_now(Some(at("2026-11-01 09:00"))).unwrap();
    let report = site_report(&env, &token, 20001, ("2026-11-01", "2026-11-01")).await;
    faults_so_far(&report, TEN_OH_TWO - 62 * 60);
    assert!(keys(&report["0"]["uprate"]).iter().all(|&ts| ts < since));
}

#[tokio::test]
async fn the_clock_is_set_advanced_refused_and_reset() {
    let env = start_with(clocked("2026-11-01 10:02", World::Realistic)).await;
    let later = env.emu.advance(Duration::from_secs(3600)).unwrap();
    assert_eq!(later.timestamp(), TEN_OH_TWO + 3600);
    assert_eq!(env.emu.now(), later);

    // The hook reads and sets it.
    let clock = env.get("/_emulator/clock", &[]).await.json;
    assert_eq!(
        clock,
        json!({"now": "2026-11-01T11:02:00+08:00", "unix": TEN_OH_TWO + 3600, "fixed": true, "today": "2026-11-01"})
    );
    let put = |body: Value| {
        let env = &env;
        async move {
            let response = env
                .http
                .put(env.url("/_emulator/clock"))
                .json(&body)
                .send()
                .await
                .unwrap();
            read_reply(response).await
        }
    };
    let reply = put(json!({"now": "2026-11-02 00:00"})).await;
    assert_eq!(reply.json["today"], "2026-11-02", "{}", reply.json);
    let reply = put(json!({"advance_secs": 60})).await;
    assert_eq!(reply.json["now"], "2026-11-02T00:01:00+08:00");
    let reply = put(json!({"now": TEN_OH_TWO})).await;
    assert_eq!(reply.json["unix"], TEN_OH_TWO);

    // Before the day the task lists were built for: refused, nothing changes.
    let reply = put(json!({"now": "2026-10-31T23:59:59+08:00"})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["field"], "now");
    assert!(
        reply.json["rule"]
            .as_str()
            .unwrap()
            .starts_with("must be at or after 2026-11-01 00:00:00 +08:00"),
        "{}",
        reply.json
    );
    let error = env.emu.set_now(Some(at("2026-10-31 12:00"))).unwrap_err();
    assert_eq!(error.field(), "now");
    for (body, field) in [
        (json!({"now": "soon"}), "now"),
        (json!({"now": true}), "now"),
        (json!({"advance_secs": -5}), "advance_secs"),
        (json!({"now": TEN_OH_TWO, "advance_secs": 1}), "advance_secs"),
        (json!({"then": 1}), "then"),
        (json!({}), "now"),
        (json!([1]), "now"),
    ] {
        let reply = put(body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.json["field"], field, "{body}: {}", reply.json);
    }
    assert_eq!(env.emu.now().timestamp(), TEN_OH_TWO);

    // Back to the system clock (after the lists' day), and back as configured on reset.
    env.emu.set_now(None).unwrap();
    assert_eq!(env.get("/_emulator/clock", &[]).await.json["fixed"], false);
    env.emu.reset();
    assert_eq!(env.emu.now().timestamp(), TEN_OH_TWO);
}

#[tokio::test]
async fn the_system_clock_serves_no_check_from_the_future() {
    let env = start().await;
    let token = env.login().await;
    let today = env.emu.today().to_string();
    let report = site_report(&env, &token, 20005, (&today, &today)).await;
    let now = chrono::Utc::now().timestamp();
    for point in report.as_object().unwrap().values() {
        assert!(keys(&point["uprate"]).into_iter().all(|ts| ts <= now));
    }
    faults_so_far(&report, now);
}
