//! Reads recover from 429/502/503/504 and broken connections; creates are never repeated once
//! they may have reached the service.

mod common;

use std::time::{Duration, Instant};

use common::*;
use monapi::{Error, ErrorKind, ServerTask, SystemType};
use monapi_emulator::{FaultKind, Faults};

fn next(faults: &[FaultKind]) -> Faults {
    Faults {
        next: faults.to_vec(),
        ..Faults::default()
    }
}

#[tokio::test]
async fn reads_retry_503_and_429() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(next(&[FaultKind::Error503, FaultKind::Error429]))
        .unwrap();
    assert_eq!(client.service_tasks(1).await.unwrap().len(), 50);
    assert_eq!(emu.counters().service_tasks, 3);
}

#[tokio::test]
async fn reads_retry_dropped_connections_and_truncated_bodies() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(next(&[FaultKind::DropConnection, FaultKind::TruncatedBody]))
        .unwrap();
    assert!(!client.agents().await.unwrap().is_empty());
    assert_eq!(emu.counters().agents, 3);
}

#[tokio::test]
async fn retries_are_bounded() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(1).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(next(&[FaultKind::Error503; 5])).unwrap();
    let err = client.agents().await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Api {
                status: 503,
                code: Some(503),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(emu.counters().agents, 2);
}

#[tokio::test]
async fn a_500_is_not_retried() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(next(&[FaultKind::Error500])).unwrap();
    let err = client.agents().await.unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert_eq!(emu.counters().agents, 1);
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(Faults {
        next: vec![FaultKind::Error429],
        retry_after_secs: 1,
        ..Faults::default()
    })
    .unwrap();
    let started = Instant::now();
    client.agents().await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn creates_are_not_repeated_after_reaching_the_service() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    let task = ServerTask::new("web-01", "10.0.0.1", "10.0.0.1", SystemType::Linux);
    for fault in [FaultKind::Error503, FaultKind::DropConnection] {
        emu.set_faults(next(&[fault])).unwrap();
        let before = emu.counters().create;
        let err = client
            .create_server_tasks(std::slice::from_ref(&task))
            .await
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Api | ErrorKind::Connection),
            "{err:?}"
        );
        assert_eq!(emu.counters().create - before, 1, "{fault:?} must not be retried");
    }
}

#[tokio::test]
async fn a_share_of_failures_is_absorbed() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(6).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(Faults {
        error_503: 0.2,
        drop_connection: 0.05,
        ..Faults::default()
    })
    .unwrap();
    for _ in 0..30 {
        client.agents().await.unwrap();
    }
    assert!(emu.counters().agents > 30, "some calls were retried");
}
