//! Reads recover from 429/500/502/503/504, broken connections, bodies cut short and error
//! pages; creates are never repeated once they may have reached the service; the password
//! grant is repeated like a read, the refresh grant only when the service cannot have used up
//! the refresh token.

use std::time::{Duration, Instant};

use crate::common::*;
use monapi::{Error, ErrorKind, ServerTask, SystemType};
use monapi_emulator::{FaultKind, Faults, Quirks};

#[tokio::test]
async fn reads_retry_503_and_429() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::Error503, FaultKind::Error429]))
        .unwrap();
    assert_eq!(client.service_tasks(1).await.unwrap().len(), 50);
    assert_eq!(emu.counters().service_tasks, 3);
}

#[tokio::test]
async fn reads_retry_dropped_connections_and_truncated_bodies() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[
        FaultKind::DropConnection,
        FaultKind::TruncatedBody,
    ]))
    .unwrap();
    assert!(!client.agents().await.unwrap().is_empty());
    assert_eq!(emu.counters().agents, 3);
}

#[tokio::test]
async fn retries_are_bounded() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(1).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::Error503; 5])).unwrap();
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
async fn reads_retry_500_and_error_pages() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(3).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[
        FaultKind::Error500,
        FaultKind::MalformedBody,
        FaultKind::Error500,
    ]))
    .unwrap();
    assert!(!client.agents().await.unwrap().is_empty());
    assert_eq!(emu.counters().agents, 4);
}

#[tokio::test]
async fn an_error_page_is_a_decode_error_once_retries_are_used_up() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(1).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::MalformedBody; 2]))
        .unwrap();
    let err = client.agents().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode, "{err:?}");
    assert_eq!(emu.counters().agents, 2);
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
    let client = builder(&emu).max_retries(3).build().unwrap();
    client.login().await.unwrap();
    let task = ServerTask::new("web-01", "10.0.0.1", "10.0.0.1", SystemType::Linux);
    for fault in [
        FaultKind::Error500,
        FaultKind::Error503,
        FaultKind::Error429,
        FaultKind::DropConnection,
        FaultKind::TruncatedBody,
        FaultKind::MalformedBody,
    ] {
        emu.set_faults(next_faults(&[fault])).unwrap();
        let before = emu.counters().create;
        let err = client
            .create_server_tasks(std::slice::from_ref(&task))
            .await
            .unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Api | ErrorKind::Connection | ErrorKind::Decode
            ),
            "{err:?}"
        );
        assert_eq!(emu.counters().create - before, 1, "{fault:?} must not be retried");
    }
    // The truncated answer was the only one whose create ran (the other faults answer
    // before the emulator handles the request): stored once, never twice.
    assert_eq!(emu.server_tasks().len(), 1);
}

#[tokio::test]
async fn the_password_grant_is_retried_like_a_read() {
    let emu = emulator().await;
    let client = client(&emu);
    emu.set_faults(next_faults(&[FaultKind::Error500, FaultKind::DropConnection]))
        .unwrap();
    client.login().await.unwrap();
    assert_eq!(emu.counters().token_password, 3);
}

#[tokio::test]
async fn the_refresh_grant_is_retried_only_when_the_service_refused_it() {
    let emu = emulator().await;
    // Each refresh retires the token it used (not the service's default, but OAuth servers
    // may): a lost answer then costs the refresh token.
    emu.set_quirks(Quirks {
        rotating_refresh_tokens: true,
        ..Quirks::default()
    });
    let client = client(&emu);
    client.login().await.unwrap();

    // 503 and 429 say the request was not handled: the same refresh token is still live.
    emu.set_faults(next_faults(&[FaultKind::Error503, FaultKind::Error429]))
        .unwrap();
    client.refresh().await.unwrap();
    assert_eq!(emu.counters().token_refresh, 3);

    // A lost answer may have used the refresh token up: not sent again.
    for fault in [
        FaultKind::Error500,
        FaultKind::DropConnection,
        FaultKind::TruncatedBody,
        FaultKind::MalformedBody,
    ] {
        emu.set_faults(next_faults(&[fault])).unwrap();
        let before = emu.counters().token_refresh;
        let err = client.refresh().await.unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Api | ErrorKind::Connection | ErrorKind::Decode
            ),
            "{fault:?}: {err:?}"
        );
        assert_eq!(emu.counters().token_refresh - before, 1, "{fault:?}");
    }

    // The truncated answer retired the refresh token: the next renewal finds it refused and
    // logs in with the password instead.
    emu.expire_tokens();
    let logins = emu.counters().token_password;
    client.agents().await.unwrap();
    assert_eq!(emu.counters().token_password - logins, 1);
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
