//! Injected faults: the queue, the shares, every kind, on the wire.

use std::time::Duration;

use monapi_emulator::{Config, ConfigError, Emulator, FaultKind, Faults};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::*;

fn queue(kinds: &[FaultKind]) -> Faults {
    Faults {
        next: kinds.to_vec(),
        retry_after_secs: 2,
        ..Faults::default()
    }
}

/// Everything the server sends for one raw HTTP/1.1 request, until it closes.
async fn raw_exchange(env: &Env, path_and_query: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect(env.emu.addr()).await.unwrap();
    let request = format!("GET {path_and_query} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut received)).await;
    // A reset instead of an orderly close is fine too: either way the peer is gone.
    let _ = read.expect("the server closes the connection");
    received
}

fn split_head(raw: &[u8]) -> (String, Vec<u8>) {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("complete head");
    (
        String::from_utf8(raw[..end].to_vec()).unwrap(),
        raw[end + 4..].to_vec(),
    )
}

fn content_length(head: &str) -> usize {
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("content-length header")
}

#[tokio::test]
async fn the_queue_serves_each_kind_in_order() {
    let env = start().await;
    let token = env.login().await;
    env.emu
        .set_faults(queue(&[
            FaultKind::Error500,
            FaultKind::Error503,
            FaultKind::Error429,
            FaultKind::MalformedBody,
        ]))
        .unwrap();
    let path = "/v2/agent/lists.json";
    let reply = env.get_auth(&token, path, &[]).await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(reply.json, json!({"code": 500, "msg": "internal error"}));
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(reply.header("retry-after"), None);
    let reply = env.get_auth(&token, path, &[]).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(reply.json["code"], json!(503));
    assert!(reply.json["msg"].is_string());
    assert_eq!(reply.header("retry-after"), Some("2"));
    let reply = env.get_auth(&token, path, &[]).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(reply.json["code"], json!(429));
    assert_eq!(reply.header("retry-after"), Some("2"));
    let reply = env.get_auth(&token, path, &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(serde_json::from_slice::<Value>(&reply.bytes).is_err(), "not JSON");
    assert!(std::str::from_utf8(&reply.bytes).unwrap().contains("Fatal error"));
    // The queue is used up: normal service again.
    let reply = env.get_auth(&token, path, &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.json.is_object());
    assert_eq!(env.emu.counters().agents, 5, "faulted requests are counted");
}

#[tokio::test]
async fn drop_connection_closes_without_a_response() {
    let env = start().await;
    let token = env.login().await;
    env.emu.set_faults(queue(&[FaultKind::DropConnection])).unwrap();
    let raw = raw_exchange(&env, &format!("/v2/agent/lists.json?access_token={token}")).await;
    assert!(raw.is_empty(), "got {:?}", String::from_utf8_lossy(&raw));
    // A client sees a transport error, not a status.
    env.emu.set_faults(queue(&[FaultKind::DropConnection])).unwrap();
    let error = env
        .http
        .get(env.url("/v2/agent/lists.json"))
        .query(&[("access_token", &token)])
        .send()
        .await
        .unwrap_err();
    assert!(error.status().is_none());
    assert!(!error.is_timeout());
    // The server keeps serving.
    assert_eq!(
        env.get_auth(&token, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn truncated_body_sends_half_then_closes() {
    let env = start().await;
    let token = env.login().await;
    let full = env.get_auth(&token, "/v2/service/lists.json", &[]).await.bytes;
    env.emu.set_faults(queue(&[FaultKind::TruncatedBody])).unwrap();
    let raw = raw_exchange(&env, &format!("/v2/service/lists.json?access_token={token}")).await;
    let (head, body) = split_head(&raw);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(content_length(&head), full.len());
    assert_eq!(body.len(), full.len() / 2);
    assert_eq!(&body[..], &full[..full.len() / 2]);
    // A client gets the status but fails reading the body.
    env.emu.set_faults(queue(&[FaultKind::TruncatedBody])).unwrap();
    let response = env
        .http
        .get(env.url("/v2/service/lists.json"))
        .query(&[("access_token", &token)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.bytes().await.is_err());
    assert_eq!(
        env.get_auth(&token, "/v2/service/lists.json", &[]).await.bytes,
        full
    );
}

#[tokio::test]
async fn faults_apply_to_the_token_endpoint_but_not_to_hooks() {
    let env = start().await;
    env.emu
        .set_faults(queue(&[FaultKind::Error503, FaultKind::Error500]))
        .unwrap();
    // Hooks are never faulted and do not consume the queue.
    let counters = env.get("/_emulator/counters", &[]).await;
    assert_eq!(counters.status, StatusCode::OK);
    let reply = env.password_grant().await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(reply.json["code"], json!(503));
    let reply = env.password_grant().await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(env.password_grant().await.status, StatusCode::OK);
    let counters = env.emu.counters();
    assert_eq!((counters.token, counters.token_password), (3, 3));
}

#[tokio::test]
async fn shares_fault_about_that_share_of_requests() {
    let env = start().await;
    let token = env.login().await;
    let shares = Faults {
        error_500: 0.2,
        error_503: 0.1,
        error_429: 0.1,
        ..Faults::default()
    };
    env.emu.set_faults(shares.clone()).unwrap();
    let mut statuses = Vec::new();
    for _ in 0..300 {
        statuses.push(
            env.get_auth(&token, "/v2/agent/lists.json", &[])
                .await
                .status
                .as_u16(),
        );
    }
    let count = |code: u16| statuses.iter().filter(|s| **s == code).count();
    assert!((30..=90).contains(&count(500)), "500: {}", count(500));
    assert!((10..=50).contains(&count(503)), "503: {}", count(503));
    assert!((10..=50).contains(&count(429)), "429: {}", count(429));
    assert_eq!(count(200) + count(500) + count(503) + count(429), 300);
    // Setting the same faults again re-seeds: the same sequence.
    env.emu.set_faults(shares).unwrap();
    let mut again = Vec::new();
    for _ in 0..300 {
        again.push(
            env.get_auth(&token, "/v2/agent/lists.json", &[])
                .await
                .status
                .as_u16(),
        );
    }
    assert_eq!(again, statuses);
}

#[tokio::test]
async fn share_draws_are_deterministic_per_seed() {
    async fn sequence(seed: u64) -> Vec<u16> {
        let env = start_with(Config {
            seed,
            ..Config::default()
        })
        .await;
        let token = env.login().await;
        env.emu
            .set_faults(Faults {
                error_500: 0.5,
                ..Faults::default()
            })
            .unwrap();
        let mut statuses = Vec::new();
        for _ in 0..64 {
            statuses.push(
                env.get_auth(&token, "/v2/agent/lists.json", &[])
                    .await
                    .status
                    .as_u16(),
            );
        }
        statuses
    }
    let a = sequence(42).await;
    assert_eq!(a, sequence(42).await);
    assert_ne!(a, sequence(43).await);
}

#[tokio::test]
async fn full_shares_of_every_kind() {
    let env = start().await;
    let token = env.login().await;
    let path = "/v2/service/lists.json";
    let url = format!("{path}?access_token={token}");
    env.emu
        .set_faults(Faults {
            drop_connection: 1.0,
            ..Faults::default()
        })
        .unwrap();
    for _ in 0..3 {
        assert!(raw_exchange(&env, &url).await.is_empty());
    }
    env.emu
        .set_faults(Faults {
            truncated_body: 1.0,
            ..Faults::default()
        })
        .unwrap();
    for _ in 0..3 {
        let (head, body) = split_head(&raw_exchange(&env, &url).await);
        assert!(body.len() < content_length(&head));
    }
    env.emu
        .set_faults(Faults {
            malformed_body: 1.0,
            ..Faults::default()
        })
        .unwrap();
    for _ in 0..3 {
        let reply = env.get_auth(&token, path, &[]).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert!(reply.json.is_null(), "body is not JSON");
    }
    env.emu
        .set_faults(Faults {
            error_429: 1.0,
            retry_after_secs: 0,
            ..Faults::default()
        })
        .unwrap();
    let reply = env.get_auth(&token, path, &[]).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(reply.header("retry-after"), Some("0"));
    env.emu.set_faults(Faults::default()).unwrap();
    assert_eq!(env.get_auth(&token, path, &[]).await.status, StatusCode::OK);
}

#[tokio::test]
async fn configured_faults_apply_from_the_start() {
    let env = start_with(Config {
        faults: queue(&[FaultKind::Error500]),
        ..Config::default()
    })
    .await;
    assert_eq!(
        env.password_grant().await.status,
        StatusCode::INTERNAL_SERVER_ERROR
    );
    assert_eq!(env.password_grant().await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_config_hook_sets_faults() {
    let env = start().await;
    let token = env.login().await;
    let reply = env
        .put_config(&json!({"faults": {"next": ["error503", "drop_connection"], "retry_after_secs": 7}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(
        reply.json["faults"]["next"],
        json!(["error503", "drop_connection"])
    );
    assert_eq!(reply.json["faults"]["error_500"], json!(0.0));
    let faulted = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(faulted.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(faulted.header("retry-after"), Some("7"));
    assert!(
        raw_exchange(&env, &format!("/v2/agent/lists.json?access_token={token}"))
            .await
            .is_empty()
    );
    assert_eq!(
        env.get_auth(&token, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
    // The spelling of the Faults fields is accepted for the kinds too.
    let reply = env.put_config(&json!({"faults": {"next": ["error_500"]}})).await;
    assert_eq!(reply.json["faults"]["next"], json!(["error500"]));
    assert_eq!(
        env.get_auth(&token, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::INTERNAL_SERVER_ERROR
    );
}

/// Every share, set to `value`, the others at 0.
fn each_share(value: f64) -> [(&'static str, Faults); 7] {
    let base = Faults::default;
    [
        (
            "error_500",
            Faults {
                error_500: value,
                ..base()
            },
        ),
        (
            "error_503",
            Faults {
                error_503: value,
                ..base()
            },
        ),
        (
            "error_429",
            Faults {
                error_429: value,
                ..base()
            },
        ),
        (
            "drop_connection",
            Faults {
                drop_connection: value,
                ..base()
            },
        ),
        (
            "truncated_body",
            Faults {
                truncated_body: value,
                ..base()
            },
        ),
        (
            "malformed_body",
            Faults {
                malformed_body: value,
                ..base()
            },
        ),
        (
            "corrupt_gzip",
            Faults {
                corrupt_gzip: value,
                ..base()
            },
        ),
    ]
}

const OUT_OF_RANGE: [f64; 6] = [-0.01, 1.01, 2.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

#[tokio::test]
async fn shares_outside_zero_to_one_are_refused_by_the_method_and_change_nothing() {
    let env = start().await;
    let token = env.login().await;
    env.emu.set_faults(queue(&[FaultKind::Error500])).unwrap();
    for value in OUT_OF_RANGE {
        for (field, faults) in each_share(value) {
            let error = env.emu.set_faults(faults.clone()).unwrap_err();
            assert_eq!(error.field(), field, "{faults:?}");
            assert_eq!(
                error.rule(),
                format!("must be a share of requests from 0.0 to 1.0, got {value}")
            );
            assert_eq!(error.to_string(), format!("{field} {}", error.rule()));
            assert_eq!(faults.check(), Err(error));
        }
    }
    // The bounds themselves are shares.
    for value in [0.0, 1.0] {
        for (_, faults) in each_share(value) {
            assert_eq!(faults.check(), Ok(()));
        }
    }
    // The queued fault set before is still there: the refusals changed nothing.
    let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
}

#[tokio::test]
async fn a_config_with_a_bad_share_does_not_start() {
    for value in OUT_OF_RANGE {
        for (field, faults) in each_share(value) {
            let config = Config {
                faults,
                ..Config::default()
            };
            assert_eq!(config.check().unwrap_err().field(), format!("faults.{field}"));
            for error in [
                Emulator::start(config.clone()).await.unwrap_err(),
                Emulator::spawn_thread(config).unwrap_err(),
            ] {
                assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
                let inner = error.get_ref().unwrap().downcast_ref::<ConfigError>().unwrap();
                assert_eq!(inner.field(), format!("faults.{field}"));
                assert!(error
                    .to_string()
                    .contains("must be a share of requests from 0.0 to 1.0"));
            }
        }
    }
}

#[tokio::test]
async fn the_config_hook_refuses_bad_shares_naming_the_field_and_changes_nothing() {
    let env = start().await;
    let token = env.login().await;
    for value in [json!(-0.5), json!(1.5), json!(1e300)] {
        for field in [
            "error_500",
            "error_503",
            "error_429",
            "drop_connection",
            "truncated_body",
            "malformed_body",
            "corrupt_gzip",
        ] {
            // Latency and quirks in the same body are not applied either.
            let body = json!({"latency_ms": 5000, "quirks": {"no_agents": true}, "faults": {field: value}});
            let reply = env.put_config(&body).await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
            let rule = format!(
                "must be a share of requests from 0.0 to 1.0, got {}",
                value.as_f64().unwrap()
            );
            assert_eq!(
                reply.json,
                json!({"error": format!("faults.{field}: {rule}"), "field": format!("faults.{field}"), "rule": rule})
            );
        }
    }
    // Not a number, or an unknown share, is refused too, naming it.
    for (body, field) in [
        (json!({"faults": {"error_500": "half"}}), "faults.error_500"),
        (json!({"faults": {"error_500": null}}), "faults.error_500"),
        (json!({"faults": {"error_501": 0.5}}), "faults.error_501"),
    ] {
        let reply = env.put_config(&body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.json["field"], field, "{}", reply.json);
    }
    let started = std::time::Instant::now();
    let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "latency unchanged"
    );
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json.as_object().unwrap().len(), 3, "quirks unchanged");
    // The bounds are accepted.
    let reply = env
        .put_config(&json!({"faults": {"error_500": 1.0, "error_503": 0}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

#[test]
fn fault_kinds_parse_by_name_and_unknown_ones_name_the_queue() {
    for (name, kind) in [
        ("error500", FaultKind::Error500),
        ("error_503", FaultKind::Error503),
        ("error429", FaultKind::Error429),
        ("drop_connection", FaultKind::DropConnection),
        ("truncated_body", FaultKind::TruncatedBody),
        ("malformed_body", FaultKind::MalformedBody),
        ("corrupt_gzip", FaultKind::CorruptGzip),
    ] {
        assert_eq!(name.parse::<FaultKind>(), Ok(kind));
    }
    let error = "dropConnection".parse::<FaultKind>().unwrap_err();
    assert_eq!(error.field(), "next");
    assert!(error.rule().contains("drop_connection"), "{error}");
    assert!(error.rule().ends_with("got \"dropConnection\""), "{error}");
}
