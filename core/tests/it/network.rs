//! Company networks: a private CA (the emulator over HTTPS), proxies, the connection cap.
//! The environment variables are tested in a child process (the command line's tests).

use std::time::Duration;

use crate::common::proxy::ForwardingProxy;
use crate::common::*;
use futures::future::join_all;
use monapi::ErrorKind;
use monapi_emulator::{Config, Emulator};

async fn https_emulator() -> Emulator {
    emulator_with(Config {
        tls: true,
        ..Config::default()
    })
    .await
}

#[tokio::test]
async fn an_untrusted_certificate_says_how_to_fix_it_and_is_not_retried() {
    let emu = https_emulator().await;
    let client = builder(&emu).max_retries(3).build().unwrap();
    let err = client.agents().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    assert_eq!(err.code(), "CONNECTION");
    let message = err.to_string();
    for words in [
        "127.0.0.1",
        "not trusted",
        "unknown issuer",
        "ca_bundle",
        "SSL_CERT_FILE",
    ] {
        assert!(message.contains(words), "{words:?} missing from: {message}");
    }
    let counters = emu.counters();
    assert_eq!(counters.total, 0, "no request reached the service");
    // One connection: the handshake that failed, not repeated as if the network had failed.
    assert_eq!(counters.connections, 1, "{counters:?}");
}

#[tokio::test]
async fn a_private_ca_is_trusted_from_a_file_or_pem_text() {
    let emu = https_emulator().await;
    let path = emu.ca_path().unwrap();
    let from_file = builder(&emu).ca_bundle(path).build().unwrap();
    assert!(!from_file.agents().await.unwrap().is_empty());
    let from_pem = builder(&emu)
        .ca_bundle_pem(emu.ca_pem().unwrap())
        .build()
        .unwrap();
    assert!(!from_pem.service_tasks(1).await.unwrap().is_empty());
    assert_eq!(emu.counters().token, 2);
}

#[tokio::test]
async fn a_missing_or_empty_bundle_is_refused_at_construction() {
    let emu = https_emulator().await;
    let dir = std::env::temp_dir().join(format!("monapi-ca-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    for (bundle, rule) in [
        (dir.join("missing.pem"), "does not exist"),
        (empty.clone(), "no PEM certificate"),
        (dir.clone(), "a directory"),
    ] {
        let err = builder(&emu).ca_bundle(&bundle).build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(err.field(), Some("ca_bundle"), "{err}");
        assert!(err.to_string().contains(rule), "{err}");
    }
    let err = builder(&emu).ca_bundle_pem("").build().unwrap_err();
    assert_eq!(err.field(), Some("ca_bundle"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(emu.counters().connections, 0, "nothing was sent");
}

#[tokio::test]
async fn the_proxy_option_carries_every_call_with_its_credentials() {
    let emu = emulator().await;
    let proxy = ForwardingProxy::start(Some(("me", "pr0xy-secret"))).await;
    let url = format!("http://me:pr0xy-secret@{}", proxy.addr);
    let client = builder(&emu).proxy(url.as_str()).build().unwrap();
    client.agents().await.unwrap();
    client.service_tasks(1).await.unwrap();
    assert_eq!(emu.counters().total, 3);
    assert!(proxy.forwarded() >= 1);
    // Every connection the service accepted was one the proxy opened.
    assert_eq!(emu.counters().connections, proxy.forwarded());
    let shown = format!("{:?}", client.settings());
    assert!(!shown.contains("pr0xy-secret"), "{shown}");
}

#[tokio::test]
async fn https_goes_through_the_proxy_with_connect() {
    let emu = https_emulator().await;
    let proxy = ForwardingProxy::start(None).await;
    let client = builder(&emu)
        .ca_bundle(emu.ca_path().unwrap())
        .proxy(proxy.url())
        .build()
        .unwrap();
    client.agents().await.unwrap();
    assert!(proxy.forwarded() >= 1);
    assert_eq!(emu.counters().connections, proxy.forwarded());
}

#[tokio::test]
async fn a_proxy_password_never_shows_in_an_error() {
    let emu = emulator().await;
    // The proxy refuses these credentials (407), then a proxy that is not there at all.
    let proxy = ForwardingProxy::start(Some(("me", "the-right-one"))).await;
    let wrong = format!("http://me:wr0ng-p%40ss@{}", proxy.addr);
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let gone = format!("http://me:wr0ng-p%40ss@{closed}");
    for url in [wrong, gone] {
        let client = builder(&emu).proxy(url.as_str()).max_retries(0).build().unwrap();
        let err = client.agents().await.unwrap_err();
        let text = format!("{err} {err:?}");
        assert!(!text.contains("wr0ng-p"), "{text}");
    }
    assert_eq!(emu.counters().total, 0);
}

#[tokio::test]
async fn no_proxy_ignores_a_bad_proxy_setting_elsewhere() {
    // `no_proxy` after `proxy` wins: the last setting counts.
    let emu = emulator().await;
    let client = builder(&emu)
        .proxy("http://127.0.0.1:9")
        .no_proxy()
        .build()
        .unwrap();
    client.agents().await.unwrap();
    assert_eq!(emu.counters().connections, 1);
}

#[tokio::test]
async fn bad_network_settings_are_refused_naming_the_field() {
    let emu = emulator().await;
    for (url, field) in [("proxy.corp:3128", "proxy"), ("ftp://proxy.corp", "proxy")] {
        let err = builder(&emu).proxy(url).build().unwrap_err();
        assert_eq!(err.field(), Some(field), "{err}");
    }
    for n in [0, monapi::input::MAX_CONNECTIONS + 1] {
        let err = builder(&emu).max_connections(n).build().unwrap_err();
        assert_eq!(err.field(), Some("max_connections"), "{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_connections_bounds_the_connections_one_client_uses() {
    let emu = emulator().await;
    for cap in [4u64, 10] {
        emu.reset(); // counters to zero (and the latency back to none)
        emu.set_latency(Duration::from_millis(2));
        let client = builder(&emu)
            .max_connections(cap as usize)
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        client.login().await.unwrap();
        let results = join_all((0..200).map(|_| client.agents())).await;
        assert!(results.iter().all(|r| r.is_ok()), "every call succeeds");
        let counters = emu.counters();
        assert_eq!(counters.agents, 200);
        // Never more than `cap` exchanges at once, so never more connections in use.
        assert!(counters.peak_in_progress <= cap, "{counters:?}");
        // Connections are reused: without the cap, 200 calls at once open 200 of them. The
        // pool may open a replacement when a freed connection is slow to come back to it
        // (see ClientBuilder::max_connections), so the total is not pinned to `cap`.
        assert!(counters.connections <= 5 * cap, "{counters:?}");
    }
    // With the default cap (more than these calls), they all run at once.
    emu.reset();
    emu.set_latency(Duration::from_millis(20));
    let unbounded = builder(&emu).build().unwrap();
    unbounded.login().await.unwrap();
    join_all((0..50).map(|_| unbounded.agents())).await;
    assert!(emu.counters().peak_in_progress > 10, "{:?}", emu.counters());
}

#[tokio::test]
async fn waiting_for_a_connection_counts_toward_the_timeout() {
    let emu = emulator().await;
    let client = builder(&emu)
        .max_connections(1)
        .timeout(Duration::from_millis(900))
        .max_retries(0)
        .build()
        .unwrap();
    client.login().await.unwrap();
    emu.set_latency(Duration::from_millis(600));
    let results = join_all((0..3).map(|_| client.agents())).await;
    // One connection, 600 ms an answer: the first call fits, the third cannot.
    assert!(results[0].is_ok(), "{:?}", results[0]);
    let err = results[2].as_ref().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
}
