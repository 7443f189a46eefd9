//! Counters, reset, latency, determinism, the HTTP hooks and the server's lifecycle.

use std::time::{Duration, Instant};

use monapi_emulator::{Config, Counters, Emulator, FaultKind, Faults};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn counters_count_every_api_request() {
    let env = start().await;
    let tokens = env.password_grant().await.json;
    env.refresh_grant(tokens["refresh_token"].as_str().unwrap()).await;
    env.token_request(&[("grant_type", "nope")]).await;
    let token = env.login().await;
    env.get_auth(&token, "/v2/service/lists.json", &[]).await;
    env.get_auth(&token, "/v2/service/lists.json", &[("page", "x")])
        .await; // 400
    env.get("/v2/agent/lists.json", &[]).await; // 401
    env.get_auth(&token, "/v2/service/report/10001.json", &[]).await;
    env.get_auth(&token, "/v2/service/report/99999.json", &[]).await; // 404
    env.get_auth(&token, "/v2/site/report/20001.json", &[]).await;
    env.get_auth(&token, "/v2/site/respose_time_distribute/20001.json", &[])
        .await;
    env.request(Method::POST, "/v2/site/respose_time_distribute/20001.json", &[])
        .await; // 405
    env.create(&token, "[]").await;
    env.get_auth(&token, "/v2/site/lists.json", &[]).await;
    env.get_auth(&token, "/v2/site/info/20001.json", &[]).await;
    env.get_auth(&token, "/v2/site/info/1.json", &[]).await; // 404
    env.get_auth(&token, "/v2/site/monitors.json", &[]).await;
    env.get_auth(&token, "/v2/user/lists.json", &[]).await;
    env.get_auth(&token, "/v2/user/organization.json", &[]).await;
    env.create_service(&token, "[]").await;
    // Neither hooks nor unknown paths count.
    env.get("/_emulator/counters", &[]).await;
    env.get("/v2/unknown.json", &[]).await;
    let expected = Counters {
        token: 4,
        token_password: 2,
        token_refresh: 1,
        create: 1,
        service_tasks: 2,
        agents: 1,
        service_report: 2,
        site_report: 1,
        distribution: 2,
        site_tasks: 1,
        site_task: 2,
        monitors: 1,
        users: 1,
        groups: 1,
        create_service: 1,
        total: 20,
        // However many the test's HTTP client opened (it keeps connections alive).
        connections: env.emu.counters().connections,
        peak_in_progress: 1, // one request at a time
        compressed: 0,       // the test's client asks for no compression
        traced: 0,
        traceparent: None,
    };
    assert!(expected.connections >= 1);
    assert_eq!(env.emu.counters(), expected);
    let over_http = env.get("/_emulator/counters", &[]).await;
    assert_eq!(over_http.header("content-type"), Some("application/json"));
    let read = serde_json::from_value::<Counters>(over_http.json).unwrap();
    assert_eq!(
        Counters {
            connections: expected.connections,
            ..read
        },
        expected
    );
    assert!(read.connections >= expected.connections);
}

#[tokio::test]
async fn requests_with_a_trace_context_are_counted_and_the_last_one_kept() {
    let env = start().await;
    let token = env.login().await;
    let url = env.url("/v2/agent/lists.json");
    let first = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let last = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
    for parent in [first, last] {
        let sent = env
            .http
            .get(&url)
            .query(&[("access_token", token.as_str())])
            .header("traceparent", parent)
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 200);
    }
    env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    let counters = env.emu.counters();
    assert_eq!((counters.agents, counters.traced), (3, 2));
    assert_eq!(counters.traceparent.as_deref(), Some(last));
    env.emu.reset();
    let counters = env.emu.counters();
    assert_eq!((counters.traced, counters.traceparent), (0, None));
}

#[tokio::test]
async fn reset_returns_to_the_start_state() {
    let config = Config {
        latency: Duration::from_millis(0),
        faults: Faults {
            retry_after_secs: 3,
            ..Faults::default()
        },
        ..Config::default()
    };
    let env = start_with(config).await;
    let tokens = env.password_grant().await.json;
    let token = tokens["access_token"].as_str().unwrap();
    env.create(token, &json!([fixture("create_request.json")[0]]).to_string())
        .await;
    env.emu.set_latency(Duration::from_secs(3));
    env.emu.set_token_ttl(Duration::from_secs(5));
    env.emu
        .set_faults(Faults {
            next: vec![FaultKind::Error500; 3],
            ..Faults::default()
        })
        .unwrap();
    env.emu.reset();
    assert_eq!(env.emu.counters(), Counters::default());
    assert!(env.emu.server_tasks().is_empty());
    // Tokens are revoked, faults and latency are back to the configuration.
    let started = Instant::now();
    let reply = env.get_auth(token, "/v2/agent/lists.json", &[]).await;
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "latency back to 0"
    );
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.json["error_description"],
        "The access token provided is invalid"
    );
    assert_eq!(
        env.refresh_grant(tokens["refresh_token"].as_str().unwrap())
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    let fresh = env.password_grant().await;
    assert_eq!(fresh.status, StatusCode::OK);
    assert_eq!(fresh.json["expires_in"], json!(3600));
    // Over HTTP too.
    let reply = env.request(Method::POST, "/_emulator/reset", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(env.emu.counters(), Counters::default());
}

#[tokio::test]
async fn latency_delays_api_endpoints_only() {
    // Wide margins: "not delayed" means well under the latency even on a loaded machine.
    let latency = Duration::from_millis(1500);
    let env = start_with(Config {
        latency,
        ..Config::default()
    })
    .await;
    let started = Instant::now();
    let token = env.login().await;
    assert!(started.elapsed() >= latency, "token endpoint delayed");
    let started = Instant::now();
    env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert!(started.elapsed() >= latency);
    let started = Instant::now();
    env.get("/_emulator/counters", &[]).await;
    assert!(started.elapsed() < latency / 2, "hooks are not delayed");
    env.emu.set_latency(Duration::ZERO);
    let started = Instant::now();
    env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert!(started.elapsed() < latency / 2);
    // Set over HTTP.
    let reply = env.put_config(&json!({"latency_ms": 300})).await;
    assert_eq!(reply.json["latency_ms"], json!(300));
    let started = Instant::now();
    env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert!(started.elapsed() >= Duration::from_millis(300));
}

/// Every data endpoint with explicit dates.
async fn data_bodies(env: &Env) -> Vec<bytes::Bytes> {
    let token = env.login().await;
    let dates = [("start_date", "2026-01-01"), ("end_date", "2026-01-02")];
    let mut bodies = Vec::new();
    for (path, query) in [
        ("/v2/service/lists.json", vec![("page", "1")]),
        ("/v2/service/lists.json", vec![("page", "3")]),
        ("/v2/agent/lists.json", vec![]),
        ("/v2/service/report/10001.json", dates.to_vec()),
        ("/v2/service/report/10050.json", dates.to_vec()),
        ("/v2/site/report/20001.json", dates.to_vec()),
        (
            "/v2/site/report/20003.json",
            [dates.as_slice(), &[("monitor", "0")]].concat(),
        ),
        ("/v2/site/respose_time_distribute/20002.json", dates.to_vec()),
    ] {
        let reply = env.get_auth(&token, path, &query).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        bodies.push(reply.bytes);
    }
    bodies
}

#[tokio::test]
async fn same_seed_same_bytes_other_seed_other_bytes() {
    let seeded = |seed| Config {
        seed,
        ..Config::default()
    };
    let a = data_bodies(&start_with(seeded(42)).await).await;
    let b = data_bodies(&start_with(seeded(42)).await).await;
    assert_eq!(a, b);
    let c = data_bodies(&start_with(seeded(7)).await).await;
    for (i, (a, c)) in a.iter().zip(&c).enumerate() {
        assert_ne!(a, c, "body {i} does not depend on the seed");
    }
    // Repeated requests on one emulator (now from the cache) give the same bytes.
    let env = start_with(seeded(42)).await;
    assert_eq!(data_bodies(&env).await, a);
    assert_eq!(data_bodies(&env).await, a);
}

#[tokio::test]
async fn concurrent_requests_for_one_report_get_one_body() {
    let env = start().await;
    let token = env.login().await;
    let requests = (0..16).map(|_| {
        env.get_auth(
            &token,
            "/v2/site/report/20005.json",
            &[("start_date", "2026-02-01"), ("end_date", "2026-02-03")],
        )
    });
    let replies = futures::future::join_all(requests).await;
    assert!(replies
        .iter()
        .all(|r| r.status == StatusCode::OK && r.bytes == replies[0].bytes));
    assert!(replies[0].bytes.len() > 1_000_000);
}

#[tokio::test]
async fn many_small_requests_on_one_connection() {
    // Speed is measured in bench/; this checks that 500 requests in a row all get their answer.
    let env = start().await;
    let token = env.login().await;
    for _ in 0..500 {
        let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
        assert_eq!(reply.status, StatusCode::OK);
    }
    assert_eq!(env.emu.counters().agents, 500);
}

#[tokio::test]
async fn hooks_over_http() {
    let env = start().await;
    let tokens = env.password_grant().await.json;
    let access = tokens["access_token"].as_str().unwrap();
    let reply = env.request(Method::POST, "/_emulator/expire_tokens", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        env.get_auth(access, "/v2/agent/lists.json", &[]).await.json["error_description"],
        "The access token provided has expired"
    );
    let reply = env
        .request(Method::POST, "/_emulator/revoke_refresh_tokens", &[])
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        env.refresh_grant(tokens["refresh_token"].as_str().unwrap())
            .await
            .json["error"],
        "invalid_grant"
    );
    let reply = env.put_config(&json!({"token_ttl_secs": 60})).await;
    assert_eq!(reply.json["token_ttl_secs"], json!(60));
    assert_eq!(reply.json["latency_ms"], json!(0));
    assert_eq!(env.password_grant().await.json["expires_in"], json!(60));
    let server_tasks = env.get("/_emulator/server_tasks", &[]).await;
    assert_eq!(server_tasks.json, json!([]));
    // Bad config bodies are refused without changing anything.
    for body in [
        json!({"token_ttl": 5}),
        json!({"latency_ms": "slow"}),
        json!({"faults": {"next": ["boom"]}}),
    ] {
        let reply = env.put_config(&body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert!(reply.json["error"].is_string());
    }
    assert_eq!(env.password_grant().await.json["expires_in"], json!(60));
    assert_eq!(
        env.request(Method::GET, "/_emulator/reset", &[]).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn stop_and_drop_end_the_server() {
    let env = start().await;
    let addr = env.emu.addr();
    assert!(env.emu.base_url().ends_with(&addr.port().to_string()));
    assert!(!env.emu.base_url().ends_with('/'));
    env.emu.stop().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "stopped");
    let emu = Emulator::start(Config::default()).await.unwrap();
    let addr = emu.addr();
    drop(emu);
    // Drop signals the server task; it stops accepting almost at once.
    let mut refused = false;
    for _ in 0..50 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused);
}

#[tokio::test]
async fn stop_lets_an_in_flight_request_finish() {
    let env = start_with(Config {
        latency: Duration::from_millis(300),
        ..Config::default()
    })
    .await;
    let http = env.http.clone();
    let url = env.url("/v2/agent/lists.json");
    let pending = tokio::spawn(async move { http.get(url).send().await.map(|r| r.status()) });
    tokio::time::sleep(Duration::from_millis(100)).await;
    env.emu.stop().await;
    assert_eq!(pending.await.unwrap().unwrap(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn bind_uses_the_given_address() {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = probe.local_addr().unwrap();
    drop(probe);
    let emu = Emulator::bind(Config::default(), addr).await.unwrap();
    assert_eq!(emu.addr(), addr);
    assert_eq!(emu.base_url(), format!("http://{addr}"));
    // A second bind on the same address fails.
    assert!(Emulator::bind(Config::default(), addr).await.is_err());
}

#[test]
fn spawn_thread_serves_without_a_runtime_and_drop_joins() {
    let emu = Emulator::spawn_thread(Config::default()).unwrap();
    let addr = emu.addr();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let status = runtime.block_on(async {
        let env_client = client();
        env_client
            .get(format!("{}/v2/agent/lists.json", emu.base_url()))
            .send()
            .await
            .unwrap()
            .status()
    });
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(emu.counters().agents, 1);
    // Keep-alive connection from the client above is still open: drop must not hang.
    let started = Instant::now();
    drop(emu);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(std::net::TcpStream::connect(addr).is_err());
    drop(runtime);
}

#[tokio::test]
async fn spawn_thread_stops_from_async() {
    let emu = Emulator::spawn_thread(Config::default()).unwrap();
    let env = Env { emu, http: client() };
    let token = env.login().await;
    assert_eq!(
        env.get_auth(&token, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
    let addr = env.emu.addr();
    env.emu.stop().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn debug_output_hides_secrets() {
    let config = Config::default();
    let text = format!("{config:?}");
    assert!(text.contains("demo_id") && text.contains("test@example.com"));
    assert!(
        !text.contains("demo_secret") && !text.contains("123456"),
        "{text}"
    );
    let emu = Emulator::start(config).await.unwrap();
    assert!(format!("{emu:?}").contains(emu.base_url()));
}
