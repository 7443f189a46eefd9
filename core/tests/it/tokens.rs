//! Tokens look after themselves: expiry, rejection, refresh, fallback, single-flight,
//! persistence.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;
use monapi::{Client, Endpoint, Error, ErrorKind, Token};
use monapi_emulator::{Config, Quirks};

fn short_lived() -> Config {
    Config {
        token_ttl: Duration::from_secs(1),
        ..Config::default()
    }
}

#[tokio::test]
async fn an_expired_token_is_refreshed_before_the_call() {
    let emu = emulator_with(short_lived()).await;
    let client = client(&emu);
    let first = client.login().await.unwrap();
    // Renewed tokens live an hour: the client stamps `expires_at` in whole seconds, so a
    // renewed one-second token could look stale again within milliseconds.
    emu.set_token_ttl(Duration::from_secs(3600));
    tokio::time::sleep(Duration::from_millis(1100)).await;
    client.agents().await.unwrap();
    let counters = emu.counters();
    assert_eq!((counters.token_password, counters.token_refresh), (1, 1));
    // Refreshed before the call, so the service never saw the stale token.
    assert_eq!(counters.agents, 1);
    assert_ne!(client.token().unwrap().access_token, first.access_token);
}

#[tokio::test]
async fn a_rejected_token_is_refreshed_and_the_call_repeated_once() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.expire_tokens();
    let agents = client.agents().await.unwrap();
    assert!(!agents.is_empty());
    let counters = emu.counters();
    assert_eq!((counters.token_refresh, counters.agents), (1, 2));
}

#[tokio::test]
async fn a_refused_refresh_token_falls_back_to_the_password_once() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.expire_tokens();
    emu.revoke_refresh_tokens();
    client.service_tasks(1).await.unwrap();
    let counters = emu.counters();
    assert_eq!((counters.token_password, counters.token_refresh), (2, 1));
}

#[tokio::test]
async fn without_a_password_a_refused_refresh_token_is_an_auth_error() {
    let emu = emulator().await;
    let saved = client(&emu).login().await.unwrap();
    emu.expire_tokens();
    emu.revoke_refresh_tokens();
    let client = Client::builder()
        .base_url(emu.base_url())
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .token(saved)
        .build()
        .unwrap();
    let err = client.agents().await.unwrap_err();
    assert!(
        matches!(&err, Error::Auth { error, .. } if error == "invalid_grant"),
        "{err:?}"
    );
}

#[tokio::test]
async fn concurrent_calls_across_a_server_side_expiry_make_one_token_request() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.expire_tokens();
    let before = emu.counters().token;
    let calls = (0..100).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.service_tasks(1).await.map(|t| t.len()) })
    });
    for result in futures::future::join_all(calls).await {
        assert_eq!(result.unwrap().unwrap(), 50);
    }
    assert_eq!(emu.counters().token - before, 1);
}

#[tokio::test]
async fn concurrent_calls_across_a_client_side_expiry_make_one_token_request() {
    let emu = emulator_with(short_lived()).await;
    let client = client(&emu);
    client.login().await.unwrap();
    // As above: one renewal is right only if the renewed token outlives the 100 calls.
    emu.set_token_ttl(Duration::from_secs(3600));
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let calls = (0..100).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.agents().await.map(|a| a.len()) })
    });
    for result in futures::future::join_all(calls).await {
        assert!(result.unwrap().unwrap() > 0);
    }
    let counters = emu.counters();
    assert_eq!((counters.token_password, counters.token_refresh), (1, 1));
}

#[tokio::test]
async fn concurrent_first_calls_log_in_once() {
    let emu = emulator().await;
    let client = client(&emu);
    let calls = (0..50).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.agents().await.map(|_| ()) })
    });
    for result in futures::future::join_all(calls).await {
        result.unwrap().unwrap();
    }
    assert_eq!(emu.counters().token, 1);
}

#[tokio::test]
async fn a_refresh_answer_without_a_refresh_token_keeps_the_current_one() {
    // The service's OAuth server, by default, sends no new refresh token and leaves the one
    // used valid (RFC 6749 section 6: the client keeps it).
    let emu = emulator().await;
    let client = client(&emu);
    let first = client.login().await.unwrap();
    assert!(first.refresh_token.is_some());
    let second = client.refresh().await.unwrap();
    assert_ne!(first.access_token, second.access_token);
    assert_eq!(second.refresh_token, first.refresh_token);
    assert_eq!(client.token().unwrap().refresh_token, first.refresh_token);
    client.refresh().await.unwrap();
    let counters = emu.counters();
    assert_eq!((counters.token_password, counters.token_refresh), (1, 2));
}

#[tokio::test]
async fn a_rotating_service_retires_the_refresh_token_used() {
    let emu = emulator_with(Config {
        quirks: Quirks {
            rotating_refresh_tokens: true,
            ..Quirks::default()
        },
        ..Config::default()
    })
    .await;
    let client = client(&emu);
    let first = client.login().await.unwrap();
    let second = client.refresh().await.unwrap();
    assert_ne!(first.refresh_token, second.refresh_token);
    let stale = Client::builder()
        .base_url(emu.base_url())
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .token(first)
        .build()
        .unwrap();
    let err = stale.refresh().await.unwrap_err();
    assert!(
        matches!(&err, Error::Auth { error, .. } if error == "invalid_grant"),
        "{err:?}"
    );
}

/// A client resumed from a saved token, without a username or password.
fn resumed(emu: &monapi_emulator::Emulator, saved: Token) -> Client {
    Client::builder()
        .base_url(emu.base_url())
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .token(saved)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_resumed_client_without_a_password_outlives_every_expiry() {
    let emu = emulator().await;
    let saved = client(&emu).login().await.unwrap();
    let client = resumed(&emu, saved);
    for expiry in 1..=3 {
        emu.expire_tokens();
        client
            .agents()
            .await
            .unwrap_or_else(|e| panic!("expiry {expiry}: {e}"));
    }
    let counters = emu.counters();
    assert_eq!((counters.token_password, counters.token_refresh), (1, 3));
}

#[tokio::test]
async fn on_token_always_receives_the_refresh_token() {
    let emu = emulator().await;
    let seen: Arc<Mutex<Vec<Token>>> = Arc::default();
    let sink = seen.clone();
    let client = builder(&emu)
        .on_token(move |t| sink.lock().unwrap().push(t.clone()))
        .build()
        .unwrap();
    client.login().await.unwrap();
    emu.expire_tokens();
    client.agents().await.unwrap();
    client.refresh().await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert!(seen[0].refresh_token.is_some());
    assert!(seen.iter().all(|t| t.refresh_token == seen[0].refresh_token));
    // What a caller saved last resumes, without a password.
    let again = resumed(&emu, seen[2].clone());
    emu.expire_tokens();
    again.agents().await.unwrap();
}

#[tokio::test]
async fn an_expired_refresh_token_with_a_password_logs_in_once() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.expire_tokens();
    emu.expire_refresh_tokens();
    client.agents().await.unwrap();
    let counters = emu.counters();
    assert_eq!((counters.token_password, counters.token_refresh), (2, 1));
}

#[tokio::test]
async fn an_expired_refresh_token_without_a_password_says_a_login_is_needed() {
    let emu = emulator().await;
    let saved = client(&emu).login().await.unwrap();
    emu.expire_tokens();
    emu.expire_refresh_tokens();
    let err = resumed(&emu, saved).agents().await.unwrap_err();
    assert_eq!(err.code(), "AUTH_INVALID_GRANT");
    let message = err.to_string();
    for part in [
        "expired or was refused",
        "Refresh token has expired",
        "username and password",
    ] {
        assert!(message.contains(part), "{part:?} missing from {message}");
    }
    assert_eq!(emu.counters().token_password, 1);
}

#[tokio::test]
async fn the_service_refresh_token_lifetime_is_honoured() {
    let emu = emulator_with(Config {
        refresh_token_ttl: Duration::from_secs(1),
        ..Config::default()
    })
    .await;
    let saved = client(&emu).login().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let err = resumed(&emu, saved).refresh().await.unwrap_err();
    assert_eq!(err.code(), "AUTH_INVALID_GRANT");
}

#[tokio::test]
async fn refresh_before_login_is_invalid_input() {
    let emu = emulator().await;
    let err = client(&emu).refresh().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(emu.counters().total, 0);
}

#[tokio::test]
async fn a_saved_token_is_resumed_without_logging_in() {
    let emu = emulator().await;
    let saved = client(&emu).login().await.unwrap();
    let json = serde_json::to_string(&saved).unwrap();
    let restored: Token = serde_json::from_str(&json).unwrap();
    assert_eq!(restored, saved);
    let client = builder(&emu).token(restored).build().unwrap();
    client.agents().await.unwrap();
    assert_eq!(emu.counters().token, 1, "only the first client logged in");
}

#[tokio::test]
async fn on_token_fires_on_every_new_token() {
    let emu = emulator().await;
    let seen: Arc<Mutex<Vec<Token>>> = Arc::default();
    let sink = seen.clone();
    let client = builder(&emu)
        .on_token(move |t| sink.lock().unwrap().push(t.clone()))
        .build()
        .unwrap();
    client.agents().await.unwrap();
    emu.expire_tokens();
    client.agents().await.unwrap();
    client.refresh().await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen.last().unwrap(), &client.token().unwrap());
}

#[tokio::test]
async fn password_md5_is_accepted_as_given() {
    let emu = emulator().await;
    let client = Client::builder()
        .base_url(emu.base_url())
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .username(USERNAME)
        .password_md5(PASSWORD_MD5.to_uppercase())
        .build()
        .unwrap();
    client.login().await.unwrap();
    // With the password too, the builder does not guess which one is meant.
    let err = builder(&emu).password_md5(PASSWORD_MD5).build().unwrap_err();
    assert_eq!((err.code(), err.field()), ("INVALID_INPUT", Some("password_md5")));
    assert_no_secret(&err.to_string(), &[]);
}

#[tokio::test]
async fn invalid_client_and_invalid_grant() {
    let emu = emulator().await;
    let err = builder(&emu)
        .client_secret("wrong")
        .build()
        .unwrap()
        .login()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Auth { error, endpoint: Endpoint::Token, .. } if error == "invalid_client"),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::Auth);

    let err = builder(&emu)
        .password("wrong")
        .build()
        .unwrap()
        .agents()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Auth { error, .. } if error == "invalid_grant"),
        "{err:?}"
    );
    // Login failures are not retried.
    assert_eq!(emu.counters().token, 2);
}

#[tokio::test]
async fn on_token_runs_after_the_new_token_is_cached() {
    let emu = emulator().await;
    let seen: Arc<Mutex<Vec<Option<Token>>>> = Arc::default();
    let sink = seen.clone();
    let slot: Arc<Mutex<Option<Client>>> = Arc::default();
    let inner = slot.clone();
    let client = builder(&emu)
        .on_token(move |_| {
            // The callback runs once the token is cached and the renewal gate is open.
            let client = inner.lock().unwrap().clone();
            sink.lock().unwrap().push(client.and_then(|c| c.token()));
        })
        .build()
        .unwrap();
    *slot.lock().unwrap() = Some(client.clone());
    let token = tokio::time::timeout(Duration::from_secs(5), client.login())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen.lock().unwrap().as_slice(), &[Some(token)]);
}

#[tokio::test]
async fn a_fresh_token_rejected_again_is_an_auth_error_naming_the_call() {
    let emu = emulator_with(Config {
        token_ttl: Duration::ZERO,
        ..Config::default()
    })
    .await;
    let err = builder(&emu).build().unwrap().agents().await.unwrap_err();
    assert!(
        matches!(&err, Error::Auth { error, endpoint: Endpoint::Agents, status: Some(401), .. } if error == "invalid_token"),
        "{err:?}"
    );
    // Logged in, was refused, renewed once, was refused again: no endless loop.
    assert_eq!(emu.counters().agents, 2);
}
