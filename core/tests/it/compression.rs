//! Compressed answers: every call asks for them (`Accept-Encoding`), and every endpoint's
//! answer, gzip or deflate, decodes to exactly what the identity answer gives; a corrupt gzip
//! body is a `DECODE` error, retried like a body cut short; an answer past
//! `max_response_bytes` fails naming the setting, and is not repeated; a slow link's bytes
//! take their time.

use chrono::NaiveDate;
use monapi::{DateRange, Error, ErrorKind, Monitor, Request};
use monapi_emulator::{Config, Emulator, Encoding, FaultKind};

use crate::common::*;

fn range() -> DateRange {
    DateRange::new(
        NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
        NaiveDate::from_ymd_opt(2026, 3, 3).unwrap(),
    )
}

/// Every read, as the service wrote it.
fn reads() -> Vec<Request> {
    vec![
        Request::Agents,
        Request::ServiceTasks { page: 1 },
        Request::ServiceReport {
            task_id: 10001,
            range: range(),
        },
        Request::SiteReport {
            task_id: 20001,
            range: range(),
            monitor: Monitor::All,
        },
        Request::ResponseTimeDistribution {
            task_id: 20001,
            range: range(),
        },
        Request::SiteTasks { page: 1 },
        Request::SiteTask { task_id: 20001 },
        Request::Monitors,
        Request::Users,
        Request::UserGroups,
    ]
}

async fn emulator_compressing(compression: Vec<Encoding>) -> Emulator {
    emulator_with(Config {
        compression,
        ..Config::default()
    })
    .await
}

async fn bodies(emu: &Emulator) -> Vec<Vec<u8>> {
    let client = client(emu);
    let mut out = Vec::new();
    for request in reads() {
        out.push(client.execute(&request).await.unwrap().body().to_vec());
    }
    out
}

#[tokio::test]
async fn every_answer_decodes_to_what_the_identity_answer_gives() {
    let identity = emulator_compressing(Vec::new()).await;
    let expected = bodies(&identity).await;
    assert_eq!(identity.counters().compressed, 0);
    for encoding in [Encoding::Gzip, Encoding::Deflate] {
        let emu = emulator_compressing(vec![encoding]).await;
        assert_eq!(bodies(&emu).await, expected, "{encoding}");
        // Every call asked, the token's too.
        let counters = emu.counters();
        assert_eq!(counters.compressed, counters.total, "{encoding}");
        assert_eq!(counters.total, reads().len() as u64 + 1);
    }
}

#[cfg(feature = "arrow")]
#[tokio::test]
async fn tables_and_typed_results_are_the_same_compressed() {
    let identity = emulator_compressing(Vec::new()).await;
    let gzip = emulator().await;
    let (plain, packed) = (client(&identity), client(&gzip));
    assert_eq!(
        plain.tables().service_report(10001, range()).await.unwrap(),
        packed.tables().service_report(10001, range()).await.unwrap()
    );
    assert_eq!(
        plain.site_report(20001, range(), Monitor::All).await.unwrap(),
        packed.site_report(20001, range(), Monitor::All).await.unwrap()
    );
    assert!(gzip.counters().compressed >= 3);
}

#[tokio::test]
async fn a_corrupt_gzip_body_is_a_decode_error_and_a_read_is_retried() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::CorruptGzip])).unwrap();
    let agents = client.agents().await.unwrap();
    assert!(!agents.is_empty());
    assert_eq!(emu.counters().agents, 2, "retried once");

    let once = builder(&emu).max_retries(0).build().unwrap();
    once.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::CorruptGzip])).unwrap();
    let error = once.agents().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode, "{error}");
    // What failed and the decompressor's cause, without the HTTP stack's layer names, and no
    // "body starts" (no body was read).
    let message = error.to_string();
    let cause = message
        .strip_prefix("GET /v2/agent/lists.json: could not decode the answer: the compressed answer does not decompress (")
        .unwrap_or_else(|| panic!("{message}"));
    for layer in ["error decoding response body", "body error", "body starts"] {
        assert!(!cause.contains(layer), "{message}");
    }
    assert!(cause.len() > 1 && cause.ends_with(')'), "{message}");
    assert_eq!(error.snippet(), Some(""));
}

#[tokio::test]
async fn an_answer_past_max_response_bytes_fails_naming_the_setting_and_is_not_repeated() {
    let emu = emulator().await;
    let small = builder(&emu).max_response_bytes(4096).build().unwrap();
    let report = Request::ServiceReport {
        task_id: 10001,
        range: range(),
    };
    let error = small.execute(&report).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode);
    let Error::Decode { message, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(
        message.contains("larger than max_response_bytes (4096 bytes once decompressed)"),
        "{message}"
    );
    assert_eq!(emu.counters().service_report, 1, "not repeated");
    // The same call within the limit.
    let whole = client(&emu).execute(&report).await.unwrap();
    assert!(whole.body().len() > 4096);
    let exact = builder(&emu)
        .max_response_bytes(whole.body().len())
        .build()
        .unwrap();
    assert_eq!(exact.execute(&report).await.unwrap().body(), whole.body());
}

#[test]
fn max_response_bytes_is_a_setting_with_bounds() {
    let error = monapi::Client::builder()
        .base_url("http://127.0.0.1:9")
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .username(USERNAME)
        .password(PASSWORD)
        .max_response_bytes(0)
        .build()
        .unwrap_err();
    assert_eq!(error.field(), Some("max_response_bytes"), "{error}");
}

#[tokio::test]
async fn an_answer_crosses_a_slow_link_at_its_bandwidth() {
    // Uncompressed, so that the bytes on the wire are the body's.
    let emu = emulator_with(Config {
        compression: Vec::new(),
        bandwidth_mbps: Some(8.0),
        ..Config::default()
    })
    .await;
    let client = client(&emu);
    client.login().await.unwrap();
    let started = std::time::Instant::now();
    let report = client
        .execute(&Request::ServiceReport {
            task_id: 10001,
            range: range(),
        })
        .await
        .unwrap();
    let size = report.body().len();
    assert!(size > 1_000_000, "{size}");
    let at_8_mbps = std::time::Duration::from_secs_f64(size as f64 * 8.0 / 8e6);
    assert!(
        started.elapsed() >= at_8_mbps,
        "{:?} < {at_8_mbps:?}",
        started.elapsed()
    );
}
