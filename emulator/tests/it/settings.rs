//! The ranges of the duration and size settings: one rule, whatever the language or unit
//! (Python gives seconds, Node milliseconds for the latency, the CLI and the hook whole
//! milliseconds).

use std::time::Duration;

use monapi_emulator::{
    latency, token_ttl, Config, ConfigError, Emulator, TimeUnit, LONGEST_LATENCY, LONGEST_TOKEN_TTL,
    MOST_SERVICE_TASKS,
};
use reqwest::StatusCode;
use serde_json::json;

use crate::common::*;

const NOT_DURATIONS: [f64; 6] = [-1.0, -0.0001, f64::NAN, f64::INFINITY, 1e300, f64::MAX];

#[test]
fn a_latency_has_the_same_range_in_seconds_and_in_milliseconds() {
    assert_eq!(LONGEST_LATENCY, Duration::from_millis(2_147_483_647));
    assert_eq!(
        latency("latency", 2_147_483.647, TimeUnit::Seconds).unwrap(),
        LONGEST_LATENCY
    );
    assert_eq!(
        latency("latencyMs", 2_147_483_647.0, TimeUnit::Milliseconds).unwrap(),
        LONGEST_LATENCY
    );
    assert_eq!(
        latency("latency", 0.25, TimeUnit::Seconds).unwrap(),
        latency("latencyMs", 250.0, TimeUnit::Milliseconds).unwrap()
    );
    assert_eq!(
        latency("latency", 0.0, TimeUnit::Seconds).unwrap(),
        Duration::ZERO
    );
    let seconds = "must be a number of seconds from 0 to 2147483.647 (about 24.9 days)";
    let millis = "must be a number of milliseconds from 0 to 2147483647 (about 24.9 days)";
    for value in NOT_DURATIONS.into_iter().chain([2_147_483.648]) {
        let error = latency("latency", value, TimeUnit::Seconds).unwrap_err();
        assert_eq!((error.field(), error.rule()), ("latency", seconds), "{value}");
    }
    for value in NOT_DURATIONS.into_iter().chain([2_147_483_648.0]) {
        let error = latency("ms", value, TimeUnit::Milliseconds).unwrap_err();
        assert_eq!((error.field(), error.rule()), ("ms", millis), "{value}");
    }
}

#[test]
fn a_token_lifetime_goes_up_to_the_longest_the_emulator_issues() {
    assert_eq!(
        token_ttl("tokenTtl", 4_294_967_295.0, TimeUnit::Seconds).unwrap(),
        LONGEST_TOKEN_TTL
    );
    assert_eq!(
        token_ttl("token_ttl", 1.5, TimeUnit::Seconds).unwrap(),
        Duration::from_millis(1500)
    );
    let rule = "must be a number of seconds from 0 to 4294967295 (about 136.1 years)";
    for value in NOT_DURATIONS.into_iter().chain([4_294_967_296.0]) {
        let error = token_ttl("token_ttl", value, TimeUnit::Seconds).unwrap_err();
        assert_eq!((error.field(), error.rule()), ("token_ttl", rule), "{value}");
    }
}

#[tokio::test]
async fn a_config_beyond_the_bounds_does_not_start() {
    let too_slow = Config {
        latency: LONGEST_LATENCY + Duration::from_millis(1),
        ..Config::default()
    };
    let too_many = Config {
        service_tasks: MOST_SERVICE_TASKS + 1,
        ..Config::default()
    };
    for (config, field, rule) in [
        (
            too_slow,
            "latency",
            "must be a number of milliseconds from 0 to 2147483647 (about 24.9 days)",
        ),
        (
            too_many,
            "service_tasks",
            "must be a number of tasks from 0 to 100000",
        ),
    ] {
        let error = config.check().unwrap_err();
        assert_eq!((error.field(), error.rule()), (field, rule));
        let error = Emulator::start(config).await.unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
        let inner = error.get_ref().unwrap().downcast_ref::<ConfigError>().unwrap();
        assert_eq!(inner.field(), field);
    }
    let at_the_bounds = Config {
        latency: LONGEST_LATENCY,
        service_tasks: MOST_SERVICE_TASKS,
        ..Config::default()
    };
    assert!(at_the_bounds.check().is_ok());
}

#[tokio::test]
async fn the_config_hook_refuses_a_latency_beyond_the_bound_and_changes_nothing() {
    let env = start().await;
    let body = json!({"latency_ms": 2_147_483_648_u64, "faults": {"next": ["error_500"]}});
    let reply = env.put_config(&body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.json);
    assert_eq!(reply.json["field"], "latency_ms");
    assert_eq!(
        reply.json["rule"],
        "must be a number of milliseconds from 0 to 2147483647 (about 24.9 days)"
    );
    // Neither the latency nor the faults of that body were applied.
    let token = env.login().await;
    let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = env.put_config(&json!({"latency_ms": 2_147_483_647_u64})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(reply.json["latency_ms"], 2_147_483_647_u64);
}

#[tokio::test]
async fn set_latency_cuts_to_the_longest() {
    let emu = Emulator::start(Config::default()).await.unwrap();
    emu.set_latency(Duration::from_secs(u64::MAX));
    let env = Env { http: client(), emu };
    let reply = env.put_config(&json!({})).await;
    assert_eq!(reply.json["latency_ms"], 2_147_483_647_u64);
}
