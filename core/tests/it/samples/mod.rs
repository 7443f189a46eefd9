//! The Rust samples of the documentation site (`docs/`), compiled and run by `cargo test`
//! (alone: `cargo test -p monapi --features arrow --test it samples`). One file per page
//! (`rust_guide.rs`: `docs/guides/rust.md`); a page includes a sample as a named region of its
//! file (pymdownx.snippets, `--8<-- "core/tests/it/samples/rust_guide.rs:connect"`), the
//! region's lines between `// --8<-- [start:connect]` and `// --8<-- [end:connect]`, their
//! common indentation removed (`dedent_subsections` in mkdocs.yml).
//!
//! The convention, for every page's samples:
//!
//! - A sample is the body of a function, `async fn name(...) -> Result<T, monapi::Error>`,
//!   and reads as a user's code: its `use` lines inside the region, no test scaffolding, no
//!   `unwrap`, `?` for errors. Its parameters are what the page has introduced before it, never
//!   an emulator: `client: &Client` (made as the page's `connect` sample makes it),
//!   `base_url: &str` (where the service is: a sample that makes a client writes
//!   `Client::builder().base_url(base_url)` and the rest of the builder as users do, with the
//!   emulator's demo account), a directory, a certificate file, a proxy's address. What the
//!   sample made is returned after its region, for its test to check.
//! - Below each sample, a `#[tokio::test]` starts an emulator (127.0.0.1, port 0, seeded
//!   data), calls the sample with its address, and checks what the sample did (its result, the
//!   emulator's counters): a sample that compiles but does the wrong thing fails.
//! - A sample that is a whole item (a user's own `#[tokio::test]`) is a region around the
//!   item.
//! - `Client::from_env()` reads the process's environment, which this binary's other tests
//!   share with it: its test runs it in a child process of this test binary, with the
//!   variables set there (`run_in_child`), never with `std::env::set_var` here.
//! - Deterministic: no fixed port, no sleep, no unbounded loop; fixed dates in the past (the
//!   emulator's data is seeded); files only in a [`Scratch`] directory.
//!
//! A sample that needs the `arrow` feature (tables, the store) and its test are
//! `#[cfg(feature = "arrow")]`; `cargo test --workspace` turns the feature on.

mod quickstart;
mod rust_guide;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh directory under the system's temporary one, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("monapi-sample-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a scratch directory");
        Scratch(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The variable that tells a sample's test it runs in the child process [`run_in_child`]
/// started (under `--include-ignored` without it, the test has nothing to do).
pub const CHILD: &str = "MONAPI_SAMPLE_CHILD";

/// The demo account of `emulator` as the MONAPI_* variables a child test is given.
pub fn demo_env(emulator: &monapi_emulator::Emulator) -> [(&'static str, &str); 5] {
    [
        ("MONAPI_BASE_URL", emulator.base_url()),
        ("MONAPI_CLIENT_ID", monapi_emulator::DEMO_CLIENT_ID),
        ("MONAPI_CLIENT_SECRET", monapi_emulator::DEMO_CLIENT_SECRET),
        ("MONAPI_USERNAME", monapi_emulator::DEMO_USERNAME),
        ("MONAPI_PASSWORD", monapi_emulator::DEMO_PASSWORD),
    ]
}

/// Runs the ignored test `test` (its path in this binary, e.g.
/// `samples::rust_guide::from_env_in_child`) alone in a child process of this test binary,
/// with `env` set there, and fails unless it ran and passed.
pub async fn run_in_child(test: &str, env: &[(&str, &str)]) {
    let mut command = tokio::process::Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([test, "--exact", "--ignored", "--test-threads=1"])
        .kill_on_drop(true);
    // Only what the test gives: nothing of the caller's own account, CA bundle or store.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MONAPI_") {
            command.env_remove(name);
        }
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command.env(CHILD, "1");
    let output = command.output().await.expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{test} in a child process: {}\n{stdout}\n{stderr}",
        output.status
    );
}
