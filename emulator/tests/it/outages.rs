//! `fail_site` / `recover_site` and their hooks: a site whose every monitoring point fails
//! from a moment on, in its reports (and their cache), until it recovers or a reset.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::*;

/// The service's fault causes (the emulator's catalog).
const CAUSES: [&str; 6] = [
    "连接超时",
    "无法解析域名",
    "连接被拒绝",
    "HTTP 502 错误",
    "HTTP 503 错误",
    "响应内容不匹配",
];

const ONGOING: &str = "未结束";

/// Seconds east of UTC of the default zone, `+08:00`.
const OFFSET: i64 = 8 * 3600;

/// A site report of today (as explicit dates, so that every request has one cache key).
async fn report(env: &Env, token: &str, task: u32) -> Reply {
    report_on(env, token, task, env.emu.today()).await
}

/// A site report of `day`.
async fn report_on(env: &Env, token: &str, task: u32, day: chrono::NaiveDate) -> Reply {
    let day = day.format("%Y-%m-%d").to_string();
    let path = format!("/v2/site/report/{task}.json");
    let reply = env
        .get_auth(token, &path, &[("start_date", &day), ("end_date", &day)])
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    reply
}

async fn distribution(env: &Env, token: &str, task: u32) -> Value {
    let day = env.emu.today().format("%Y-%m-%d").to_string();
    let path = format!("/v2/site/respose_time_distribute/{task}.json");
    env.get_auth(token, &path, &[("start_date", &day), ("end_date", &day)])
        .await
        .json
}

async fn hook(env: &Env, path: &str, body: &str) -> Reply {
    let response = env
        .http
        .post(env.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    read_reply(response).await
}

fn checks(point: &Value) -> Vec<i64> {
    let uprate = point["uprate"].as_object().unwrap();
    uprate.keys().map(|ts| ts.parse().unwrap()).collect()
}

/// The fault records of a point, in order (none for `null`).
fn faults(point: &Value) -> Vec<Value> {
    let Some(faults) = point["fault"].as_object() else {
        return Vec::new();
    };
    let count = faults["count"].as_u64().unwrap();
    (0..count).map(|i| faults[&i.to_string()].clone()).collect()
}

fn time(record: &Value, field: &str) -> Option<i64> {
    record[field].as_str().unwrap().parse().ok()
}

/// Every check of every point is down exactly when one of its fault records covers it, the
/// records are ordered and do not overlap, and the average is the share of points up.
fn faults_explain_uprate(report: &Value) {
    let points: Vec<(&String, &Value)> = report
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "0")
        .collect();
    for (id, point) in &points {
        let records = faults(point);
        let spans: Vec<(i64, Option<i64>)> = records
            .iter()
            .map(|r| {
                let end = r["end_time"].as_str().unwrap();
                assert!(end == ONGOING || is_digits(end), "point {id}: {r}");
                (time(r, "start_time").unwrap(), time(r, "end_time"))
            })
            .collect();
        for pair in spans.windows(2) {
            let end = pair[0].1.expect("only the last fault may be ongoing");
            assert!(end <= pair[1].0, "point {id}: faults overlap: {spans:?}");
        }
        for ts in checks(point) {
            let covered = spans
                .iter()
                .any(|&(start, end)| ts >= start && end.is_none_or(|end| ts < end));
            let rate = &point["uprate"][ts.to_string()]["uprate"];
            assert_eq!(
                rate,
                if covered { "0.00" } else { "100.00" },
                "point {id} at {ts}"
            );
        }
    }
    for ts in checks(&report["0"]) {
        let up = points
            .iter()
            .filter(|(_, p)| p["uprate"][ts.to_string()]["uprate"] == "100.00")
            .count();
        let share = format!("{:.2}", 100.0 * up as f64 / points.len() as f64);
        assert_eq!(
            report["0"]["uprate"][ts.to_string()]["uprate"],
            json!(share),
            "average at {ts}"
        );
    }
}

#[tokio::test]
async fn a_failing_site_is_down_at_every_point_from_the_moment_on() {
    let env = start().await;
    let token = env.login().await;
    // Fetched (and cached) before the knob.
    let before = report(&env, &token, 20001).await;
    let other = report(&env, &token, 20002).await;
    let past = env
        .get_auth(
            &token,
            "/v2/site/report/20001.json",
            &[("start_date", &yesterday()), ("end_date", &yesterday())],
        )
        .await;
    let distribution_before = distribution(&env, &token, 20001).await;

    let now = chrono::Utc::now().timestamp();
    let start = env.emu.fail_site(20001).unwrap();
    // Rounded down to a check of the five-minute task.
    assert_eq!((start + OFFSET) % 300, 0);
    assert!(start <= now + 1 && now < start + 300, "start {start}, now {now}");
    assert_eq!(
        env.emu.fail_site(20001).unwrap(),
        start,
        "already failing: unchanged"
    );

    let after = report(&env, &token, 20001).await;
    assert_ne!(
        after.bytes, before.bytes,
        "the cached body is not served after the knob"
    );
    let start_text = start.to_string();
    let mut causes = Vec::new();
    for (id, point) in after.json.as_object().unwrap() {
        let old = &before.json[id];
        assert_eq!(point["name"], old["name"]);
        for ts in checks(point) {
            let key = ts.to_string();
            if ts < start {
                assert_eq!(
                    point["uprate"][&key], old["uprate"][&key],
                    "point {id} at {ts}: unchanged before"
                );
                assert_eq!(point["resptime"][&key], old["resptime"][&key]);
            } else {
                assert_eq!(point["uprate"][&key]["uprate"], "0.00", "point {id} at {ts}");
                let record = point["resptime"][&key].as_object().unwrap();
                assert_eq!(record.len(), 7);
                assert!(
                    record.values().all(|v| v == "0.00"),
                    "point {id} at {ts}: {record:?}"
                );
            }
        }
        if id == "0" {
            assert!(point["fault"].is_null(), "the average has no faults of its own");
            continue;
        }
        let records = faults(point);
        let ongoing: Vec<&Value> = records.iter().filter(|r| r["end_time"] == ONGOING).collect();
        assert_eq!(ongoing.len(), 1, "point {id}: one ongoing fault: {records:?}");
        let fault = ongoing[0];
        assert_eq!(fault["start_time"], json!(start_text), "point {id}");
        assert!(!fault["diff_time"].as_str().unwrap().is_empty());
        assert_eq!(fault["diff_time"], fault["current_fault_period"]);
        assert!(
            CAUSES.contains(&fault["fault_status"].as_str().unwrap()),
            "{fault}"
        );
        causes.push(fault["fault_status"].clone());
        // Every other fault ended by the moment.
        for record in records.iter().filter(|r| r["end_time"] != ONGOING) {
            assert!(time(record, "end_time").unwrap() <= start, "point {id}: {record}");
        }
    }
    causes.dedup();
    assert_eq!(causes.len(), 1, "one cause for the whole site");
    faults_explain_uprate(&after.json);

    // Only the average, as monitor=0 asks: 0.00 from the moment on.
    let day = env.emu.today().format("%Y-%m-%d").to_string();
    let average = env
        .get_auth(
            &token,
            "/v2/site/report/20001.json",
            &[("start_date", &day), ("end_date", &day), ("monitor", "0")],
        )
        .await;
    assert_eq!(average.json["0"]["uprate"], after.json["0"]["uprate"]);

    // The response-time distribution counts the failed checks' zeros.
    let distribution_after = distribution(&env, &token, 20001).await;
    assert_ne!(distribution_after, distribution_before);
    let checks_after = checks(&after.json["0"]).iter().filter(|&&ts| ts >= start).count() as u64;
    assert!(distribution_after["0"]["count"].as_u64().unwrap() >= checks_after);

    // Other sites and other days are as they were.
    assert_eq!(report(&env, &token, 20002).await.bytes, other.bytes);
    let past_after = env
        .get_auth(
            &token,
            "/v2/site/report/20001.json",
            &[("start_date", &yesterday()), ("end_date", &yesterday())],
        )
        .await;
    assert_eq!(past_after.bytes, past.bytes);
}

#[tokio::test]
async fn recover_site_ends_the_faults_and_later_checks_are_up_again() {
    let env = start().await;
    let token = env.login().await;
    // Every report of the day the site fails on: the recovery's check can be the next day's
    // first (from 23:30 on, in the emulator's time zone).
    let day = env.emu.today();
    let before = report_on(&env, &token, 20004, day).await; // a thirty-minute task
    assert_eq!(
        env.emu.recover_site(20004).unwrap(),
        None,
        "not failing: nothing to end"
    );
    let start = env.emu.fail_site(20004).unwrap();
    let failing = report_on(&env, &token, 20004, day).await;
    let now = chrono::Utc::now().timestamp();
    let end = env.emu.recover_site(20004).unwrap().expect("it was failing");
    // The check after the moment of recovery: the moment's own check (at `end - 1800`) failed.
    assert_eq!((end + OFFSET) % 1800, 0);
    assert!(end > now && end - 1800 <= now + 1, "end {end}, now {now}");
    assert!(end > start);
    assert_eq!(env.emu.recover_site(20004).unwrap(), None, "recovered already");
    // Until the clock reaches that check, the fault goes on: the clock is moved there.
    env.emu.set_now(chrono::DateTime::from_timestamp(end, 0)).unwrap();

    let after = report_on(&env, &token, 20004, day).await;
    assert_ne!(
        after.bytes, failing.bytes,
        "the failing body is not served after recovery"
    );
    let (start_text, end_text) = (start.to_string(), end.to_string());
    for (id, point) in after.json.as_object().unwrap() {
        let old = &before.json[id];
        for ts in checks(point) {
            let key = ts.to_string();
            if (start..end).contains(&ts) {
                assert_eq!(point["uprate"][&key]["uprate"], "0.00", "point {id} at {ts}");
            } else if !old["uprate"][&key].is_null() {
                assert_eq!(
                    point["uprate"][&key], old["uprate"][&key],
                    "point {id} at {ts}: as before"
                );
                assert_eq!(point["resptime"][&key], old["resptime"][&key]);
            }
        }
        if id == "0" {
            continue;
        }
        let records = faults(point);
        let forced: Vec<&Value> = records
            .iter()
            .filter(|r| r["start_time"] == json!(start_text))
            .collect();
        assert_eq!(forced.len(), 1, "point {id}: {records:?}");
        assert_eq!(
            forced[0]["end_time"],
            json!(end_text),
            "point {id}: ended at the recovery"
        );
        let cause = faults(&failing.json[id])
            .into_iter()
            .find(|r| r["start_time"] == json!(start_text))
            .map(|r| r["fault_status"].clone());
        assert_eq!(
            Some(forced[0]["fault_status"].clone()),
            cause,
            "point {id}: the same cause"
        );
        // Ongoing only where the seed's ongoing fault is: as it was, or, when it was under way
        // at the recovery, going on from there.
        let seeded: Vec<i64> = faults(old)
            .iter()
            .filter(|r| r["end_time"] == ONGOING)
            .map(|r| time(r, "start_time").unwrap())
            .collect();
        for record in records.iter().filter(|r| r["end_time"] == ONGOING) {
            let since = time(record, "start_time").unwrap();
            let goes_on = since == end && seeded.iter().all(|&s| s < end);
            assert!(
                seeded == [since] || (seeded.len() == 1 && goes_on),
                "point {id}: {record} (the seed's: {seeded:?})"
            );
        }
    }
    faults_explain_uprate(&after.json);

    // Failing again within the check of the recovery carries the same outage on.
    env.emu.set_now(chrono::DateTime::from_timestamp(now, 0)).unwrap();
    assert_eq!(env.emu.fail_site(20004).unwrap(), start);
    assert_eq!(report_on(&env, &token, 20004, day).await.bytes, failing.bytes);
}

#[tokio::test]
async fn reset_clears_failures() {
    // A clock that stands still (`evening`; reset keeps it): site 20005 checks every minute, so
    // with the system's clock a minute turning between the first report and the one after the
    // reset added a check to the second, and the two differed (one run in some tens under load).
    let env = start_with(evening(monapi_emulator::Config::default().world)).await;
    let token = env.login().await;
    let before = report(&env, &token, 20005).await;
    env.emu.fail_site(20005).unwrap();
    env.emu.fail_site(20003).unwrap();
    assert_ne!(report(&env, &token, 20005).await.bytes, before.bytes);
    env.emu.reset();
    let token = env.login().await;
    assert_eq!(report(&env, &token, 20005).await.bytes, before.bytes);
    assert_eq!(env.emu.recover_site(20003).unwrap(), None, "no failure left");
    // Over HTTP too.
    env.emu.fail_site(20005).unwrap();
    assert_eq!(
        env.request(Method::POST, "/_emulator/reset", &[]).await.status,
        StatusCode::OK
    );
    let token = env.login().await;
    assert_eq!(report(&env, &token, 20005).await.bytes, before.bytes);
}

#[tokio::test]
async fn unknown_site_tasks_are_refused_naming_them() {
    let env = start().await;
    for id in [0, 10001, 20006, 30001, u64::MAX] {
        let error = env.emu.fail_site(id).unwrap_err();
        assert_eq!(error.field(), "task_id");
        assert_eq!(
            error.rule(),
            format!("must be a site task (20001 to 20005), got {id}")
        );
        assert_eq!(env.emu.recover_site(id).unwrap_err(), error);
    }
    let none = start_with(monapi_emulator::Config {
        site_tasks: 0,
        ..Default::default()
    })
    .await;
    let error = none.emu.fail_site(20001).unwrap_err();
    assert_eq!(
        error.rule(),
        "must be a site task (this emulator has none), got 20001"
    );
}

#[tokio::test]
async fn the_hooks_fail_and_recover_a_site_over_http() {
    let env = start().await;
    let token = env.login().await;
    let before = report(&env, &token, 20002).await;
    let failed = hook(&env, "/_emulator/fail_site", r#"{"task_id": 20002}"#).await;
    assert_eq!(failed.status, StatusCode::OK);
    assert_eq!(failed.header("content-type"), Some("application/json"));
    let start = failed.json["start_time"].as_i64().unwrap();
    assert_eq!(
        failed.json,
        json!({"task_id": 20002, "start_time": start, "end_time": null})
    );
    assert_eq!((start + OFFSET) % 600, 0, "a check of the ten-minute task");
    // An id as the service writes it (a string) is taken too; failing again changes nothing.
    let again = hook(&env, "/_emulator/fail_site", r#"{"task_id": "20002"}"#).await;
    assert_eq!(again.json, failed.json);
    let failing = report(&env, &token, 20002).await;
    for point in failing.json.as_object().unwrap().values() {
        let last = checks(point)
            .into_iter()
            .filter(|&ts| ts >= start)
            .collect::<Vec<_>>();
        assert!(!last.is_empty());
        assert!(last
            .iter()
            .all(|ts| point["uprate"][ts.to_string()]["uprate"] == "0.00"));
    }

    let recovered = hook(&env, "/_emulator/recover_site", r#"{"task_id": 20002}"#).await;
    assert_eq!(recovered.status, StatusCode::OK);
    let end = recovered.json["end_time"].as_i64().unwrap();
    // The clock moved to the first check up again (until then the fault goes on).
    let response = env
        .http
        .put(env.url("/_emulator/clock"))
        .json(&json!({"now": end}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        recovered.json,
        json!({"task_id": 20002, "start_time": start, "end_time": end})
    );
    assert!(end > start && (end + OFFSET) % 600 == 0);
    let not_failing = hook(&env, "/_emulator/recover_site", r#"{"task_id": 20002}"#).await;
    assert_eq!(
        not_failing.json,
        json!({"task_id": 20002, "start_time": null, "end_time": null})
    );
    let after = report(&env, &token, 20002).await;
    assert_ne!(after.bytes, before.bytes);
    assert_ne!(after.bytes, failing.bytes);

    // An id that is no site task: a 404 naming it; a bad body: a 400 naming the field.
    for (path, id) in [
        ("/_emulator/fail_site", "99999"),
        ("/_emulator/recover_site", "10001"),
    ] {
        let reply = hook(&env, path, &format!(r#"{{"task_id": {id}}}"#)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        let rule = format!("must be a site task (20001 to 20005), got {id}");
        assert_eq!(
            reply.json,
            json!({"error": format!("task_id: {rule}"), "field": "task_id", "rule": rule})
        );
    }
    let bad = [
        (
            r#"{"task_id": "abc"}"#,
            "must be a site task id, a number such as 20001, got \"abc\"",
        ),
        (
            r#"{"task_id": -1}"#,
            "must be a site task id, a number such as 20001, got -1",
        ),
        (
            r#"{"task_id": 20001.5}"#,
            "must be a site task id, a number such as 20001, got 20001.5",
        ),
        (r#"{}"#, "missing: the site task to fail or recover"),
        ("", "the body must be a JSON object {\"task_id\": 20001}"),
        ("20001", "the body must be a JSON object {\"task_id\": 20001}"),
        (
            "{\"task_id\": 20001",
            "the body must be a JSON object {\"task_id\": 20001}",
        ),
    ];
    for (body, rule) in bad {
        let reply = hook(&env, "/_emulator/fail_site", body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.json["field"], "task_id", "{body}");
        assert_eq!(reply.json["rule"], rule, "{body}");
    }
    let unknown = hook(&env, "/_emulator/fail_site", r#"{"task_id": 20001, "at": 0}"#).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        unknown.json,
        json!({"error": "at: unknown field, the body has only task_id", "field": "at", "rule": "unknown field, the body has only task_id"})
    );
    // Refused bodies failed nothing; hooks are not counted.
    assert_eq!(env.emu.recover_site(20001).unwrap(), None);
    assert_eq!(env.emu.counters().site_report, 3);
    assert_eq!(env.emu.counters().total, 4, "the login and the three reports");
}
