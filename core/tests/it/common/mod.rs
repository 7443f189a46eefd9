//! Shared set-up: an emulator on 127.0.0.1, port 0, and a client for its demo account.
#![allow(dead_code)] // each test binary uses a different part of this module

use std::path::PathBuf;
use std::time::Duration;

use monapi::{Client, ClientBuilder};
use monapi_emulator::{Config, Emulator, FaultKind, Faults};

pub const CLIENT_ID: &str = "demo_id";
pub const CLIENT_SECRET: &str = "demo_secret";
pub const USERNAME: &str = "test@example.com";
pub const PASSWORD: &str = "123456";
pub const PASSWORD_MD5: &str = "e10adc3949ba59abbe56e057f20f883e";

pub async fn emulator() -> Emulator {
    emulator_with(Config::default()).await
}

/// The emulator's stressed world (a point of every site down since a morning hour today, faults
/// in every report) with its clock fixed at 23:59:59 today (`+08:00`): every check of today is
/// there, whatever the hour the test runs.
pub fn stressed_evening() -> Config {
    let zone = monapi_emulator::SERVICE_TIMEZONE;
    let evening = chrono::Utc::now()
        .with_timezone(&zone)
        .date_naive()
        .and_hms_opt(23, 59, 59);
    let now = evening.unwrap().and_local_timezone(zone).unwrap();
    Config {
        world: monapi_emulator::World::Stressed,
        now: Some(now.with_timezone(&chrono::Utc)),
        ..Config::default()
    }
}

pub async fn emulator_with(config: Config) -> Emulator {
    Emulator::start(config)
        .await
        .expect("emulator starts on 127.0.0.1:0")
}

/// Faults that answer the next requests with `faults`, one each, in order; no random share.
pub fn next_faults(faults: &[FaultKind]) -> Faults {
    Faults {
        next: faults.to_vec(),
        ..Faults::default()
    }
}

/// A builder for the demo account, with short retry delays left at their defaults.
pub fn builder(emulator: &Emulator) -> ClientBuilder {
    builder_at(emulator.base_url())
}

/// [`builder`] for a service at `base_url` (a listener of a test's own).
pub fn builder_at(base_url: &str) -> ClientBuilder {
    Client::builder()
        .base_url(base_url)
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .username(USERNAME)
        .password(PASSWORD)
        .timeout(Duration::from_secs(10))
}

pub fn client(emulator: &Emulator) -> Client {
    builder(emulator).build().expect("valid configuration")
}

/// A builder of the demo account with its store at `s3://lake/{prefix}` on `server`; days
/// settle a second after they end.
pub fn s3_builder(emulator: &Emulator, server: &moto::S3Server, prefix: &str) -> ClientBuilder {
    builder(emulator)
        .store(format!("s3://lake/{prefix}"))
        .storage_option("aws_endpoint_url", server.endpoint())
        .storage_option("aws_access_key_id", "test")
        .storage_option("aws_secret_access_key", moto::SECRET_KEY)
        .storage_option("aws_region", "us-east-1")
        .settle(Duration::from_secs(1))
}

/// A client of the demo account with a store in `dir`; days settle a second after they end.
pub fn stored_client(emulator: &Emulator, dir: &std::path::Path) -> Client {
    builder(emulator)
        .store(dir)
        .settle(Duration::from_secs(1))
        .build()
        .unwrap()
}

/// A fresh directory under the system's temporary one, removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("monapi-store-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        Dir(path)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Fails if any known secret, or the given tokens, appear in `text`.
pub fn assert_no_secret(text: &str, tokens: &[&str]) {
    for secret in [CLIENT_SECRET, PASSWORD, PASSWORD_MD5].iter().chain(tokens) {
        assert!(!text.contains(secret), "secret leaked into: {text}");
    }
}
#[cfg(feature = "arrow")]
pub mod azurite;
pub mod moto;
pub mod proxy;
#[cfg(feature = "arrow")]
pub mod rows;
