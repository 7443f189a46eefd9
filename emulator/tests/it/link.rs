//! The modelled wide-area link: answers paced at its bandwidth, shared by every connection, and
//! its round trip on each connection and each answer. Times are lower bounds only.

use std::time::{Duration, Instant};

use monapi_emulator::Config;
use reqwest::StatusCode;
use serde_json::json;

use crate::common::*;

/// A service report of `days` days of the every-minute task 10001, as its path and query.
fn report(days: u32) -> (&'static str, Vec<(&'static str, String)>) {
    let end = chrono::NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
    let start = end - chrono::Days::new(u64::from(days) - 1);
    (
        "/v2/service/report/10001.json",
        vec![("start_date", start.to_string()), ("end_date", end.to_string())],
    )
}

async fn fetch(env: &Env, http: &reqwest::Client, token: &str, days: u32) -> usize {
    let (path, query) = report(days);
    let response = http
        .get(env.url(path))
        .query(&query)
        .query(&[("access_token", token)])
        .send()
        .await
        .unwrap();
    let reply = read_reply(response).await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.bytes.len()
}

/// Sets the link through the config hook (`null`: no limit).
async fn set_bandwidth(env: &Env, mbps: Option<f64>) {
    let reply = env.put_config(&json!({ "bandwidth_mbps": mbps })).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

async fn limited(mbps: f64, rtt: Duration) -> Env {
    start_with(Config {
        bandwidth_mbps: Some(mbps),
        rtt,
        ..Config::default()
    })
    .await
}

#[tokio::test]
async fn an_answer_takes_its_size_at_the_bandwidth() {
    let env = limited(8.0, Duration::ZERO).await;
    let token = env.login().await;
    // Generated and cached first, at full speed: only the transfer is timed.
    set_bandwidth(&env, None).await;
    let size = fetch(&env, &env.http, &token, 2).await;
    assert!(size > 1_000_000, "{size}");
    set_bandwidth(&env, Some(8.0)).await;
    let started = Instant::now();
    assert_eq!(fetch(&env, &env.http, &token, 2).await, size);
    let at_8_mbps = Duration::from_secs_f64(size as f64 * 8.0 / 8e6);
    assert!(
        started.elapsed() >= at_8_mbps,
        "{:?} < {at_8_mbps:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn connections_share_the_bandwidth_as_one_link() {
    let env = limited(16.0, Duration::ZERO).await;
    let token = env.login().await;
    set_bandwidth(&env, None).await;
    let size = fetch(&env, &env.http, &token, 1).await;
    set_bandwidth(&env, Some(16.0)).await;
    // Four answers at once on four connections (a client each): together, four times one
    // answer's bytes.
    let clients: Vec<reqwest::Client> = (0..4).map(|_| client()).collect();
    let started = Instant::now();
    let sizes = futures::future::join_all(clients.iter().map(|http| fetch(&env, http, &token, 1))).await;
    assert_eq!(sizes, vec![size; 4]);
    let together = Duration::from_secs_f64(4.0 * size as f64 * 8.0 / 16e6);
    assert!(
        started.elapsed() >= together,
        "{:?} < {together:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_new_connection_waits_the_round_trip_and_each_answer_once_more() {
    // Wide enough that "not behind the link" holds on a loaded machine too (the test waits it
    // three times, without CPU).
    let rtt = Duration::from_millis(600);
    let env = limited(100_000.0, rtt).await;
    let started = Instant::now();
    env.login().await;
    assert!(started.elapsed() >= 2 * rtt, "{:?}", started.elapsed());
    // The same kept-alive connection: one round trip.
    let started = Instant::now();
    env.get("/v2/agent/lists.json", &[]).await;
    assert!(started.elapsed() >= rtt, "{:?}", started.elapsed());
    // The hooks are not behind the link.
    let started = Instant::now();
    env.get("/_emulator/counters", &[]).await;
    assert!(started.elapsed() < rtt, "{:?}", started.elapsed());
}

#[tokio::test]
async fn the_config_hook_sets_the_link_and_refuses_what_is_out_of_range() {
    let env = start().await;
    let reply = env.put_config(&json!({"bandwidth_mbps": 50, "rtt_ms": 40})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(
        (reply.json["bandwidth_mbps"].clone(), reply.json["rtt_ms"].clone()),
        (json!(50.0), json!(40))
    );
    // Left out, they stay; null lifts the limit.
    let reply = env.put_config(&json!({"latency_ms": 0})).await;
    assert_eq!(reply.json["bandwidth_mbps"], json!(50.0));
    let reply = env.put_config(&json!({"bandwidth_mbps": null})).await;
    assert_eq!(reply.json["bandwidth_mbps"], json!(null));
    assert_eq!(reply.json["rtt_ms"], json!(40));
    for (body, field) in [
        (json!({"bandwidth_mbps": 0}), "bandwidth_mbps"),
        (json!({"bandwidth_mbps": 1e9}), "bandwidth_mbps"),
        (json!({"rtt_ms": 10_001}), "rtt_ms"),
    ] {
        let reply = env.put_config(&body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.json["field"], field);
    }
    // Reset: as at start.
    env.get("/_emulator/counters", &[]).await;
    env.emu.reset();
    let reply = env.put_config(&json!({})).await;
    assert_eq!(
        (reply.json["bandwidth_mbps"].clone(), reply.json["rtt_ms"].clone()),
        (json!(null), json!(0))
    );
}

#[test]
fn the_start_settings_are_checked() {
    for (config, field) in [
        (
            Config {
                bandwidth_mbps: Some(0.001),
                ..Config::default()
            },
            "bandwidth_mbps",
        ),
        (
            Config {
                rtt: Duration::from_secs(11),
                ..Config::default()
            },
            "rtt",
        ),
    ] {
        assert_eq!(config.check().unwrap_err().field(), field);
    }
}
