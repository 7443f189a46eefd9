//! Debug logs say what happened (requests, retries, renewals) and never hold a secret.

// A test binary of its own: the test sets a thread-local subscriber, and tracing caches each
// log site's interest process-wide, so beside the other tests (in tests/it) a site first hit
// on another thread could be left off and the test fail now and then.
#[path = "it/common/mod.rs"]
mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::*;
use monapi_emulator::{FaultKind, Faults};

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// A current-thread runtime keeps every task (hyper's connections too) on the thread whose
// default subscriber is set below.
#[tokio::test(flavor = "current_thread")]
async fn debug_logs_are_useful_and_redacted() {
    let buffer = Buffer::default();
    let sink = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let emu = emulator().await;
    let client = client(&emu);
    let token = client.login().await.unwrap();
    emu.set_faults(Faults {
        next: vec![FaultKind::Error503],
        ..Faults::default()
    })
    .unwrap();
    client.agents().await.unwrap();
    emu.expire_tokens();
    client.agents().await.unwrap();
    let fresh = client.token().unwrap();

    let logs = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("retrying"), "{logs}");
    assert!(logs.contains("retry=1"), "{logs}");
    assert!(logs.contains("HTTP 503 (service unavailable)"), "{logs}");
    assert!(logs.contains("refresh grant"), "{logs}");
    assert!(logs.contains("GET /v2/agent/lists.json"), "{logs}");
    let tokens = [
        token.access_token.expose(),
        token.refresh_token.as_ref().unwrap().expose(),
        fresh.access_token.expose(),
        fresh.refresh_token.as_ref().unwrap().expose(),
    ];
    assert_no_secret(&logs, &tokens);
    // The attempts' spans show their URL with the token's place marked, never the token.
    assert!(logs.contains("access_token=REDACTED"), "{logs}");
    assert!(
        !logs
            .replace("access_token=REDACTED", "")
            .contains("access_token="),
        "{logs}"
    );
}
