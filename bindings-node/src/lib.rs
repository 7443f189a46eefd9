//! The native part of the `monapi` npm package (napi-rs).
//!
//! It wraps the core crate [`monapi`] (and the bundled [`monapi_emulator`]) for the thin
//! JavaScript layer in `index.js`, which is the public API: the classes here
//! (`NativeClient`, `NativeEmulator`) take and return strings of JSON and plain values, and
//! every error leaves as a marked JSON payload (see [`errors`]) that `index.js` turns into a
//! `MonapiError`. No panic crosses into JavaScript: each entry point runs under
//! `catch_unwind`, so a bug rejects a Promise (code `INTERNAL`) instead of aborting Node.

#![deny(clippy::all)]

mod call;
mod client;
mod emulator;
pub mod errors;
mod logging;
mod tables;

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use napi_derive::napi;

pub use call::NativeCall;
pub use client::{endpoint_names, EndpointNames, NativeClient, NativeClientOptions};
pub use emulator::{demo_account, DemoAccount, NativeEmulator, NativeEmulatorOptions};

/// Worker threads of the tokio runtime that runs the HTTP calls (default: see [`init`]).
const THREADS_VAR: &str = "MONAPI_NODE_THREADS";

/// Gives napi a tokio runtime of our own size before the first call. Node's main thread does
/// the JSON parsing, so the default is one worker per core less that thread (at least one).
#[napi_derive::module_init]
fn init() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = std::env::var(THREADS_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| (1..=64).contains(n))
        .unwrap_or_else(|| cores.saturating_sub(1).max(1));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("monapi-node")
        .enable_all()
        .build();
    // Without it napi builds its default runtime on first use.
    if let Ok(runtime) = runtime {
        napi::bindgen_prelude::create_custom_tokio_runtime(runtime);
    }
}

/// Records per page of the service task list.
#[napi]
pub const PAGE_SIZE: u32 = monapi::PAGE_SIZE as u32;

/// The stable codes of the core's errors (`MonapiError.code`), in the core's order.
#[napi(catch_unwind)]
pub fn error_codes() -> Vec<String> {
    monapi::ERROR_CODES.iter().map(|code| code.to_string()).collect()
}

/// The package version (the Cargo workspace version).
#[napi(catch_unwind)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The error of an argument of the wrong type, caught by the JavaScript layer: the marked
/// payload of an `INVALID_INPUT` error, worded as the core words invalid input.
#[napi(catch_unwind)]
pub fn invalid_input(field: String, rule: String) -> String {
    errors::invalid_input(&field, &rule).reason
}

/// Runs `f`, turning a panic into an `INTERNAL` error.
pub(crate) fn guard<T>(f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| Err(errors::from_panic(panic)))
}

/// Starts `future` on the runtime and returns its Promise; a panic in it rejects the Promise
/// with an `INTERNAL` error.
pub(crate) fn spawn<'e, T, F>(
    env: &'e napi::Env,
    future: F,
) -> napi::Result<napi::bindgen_prelude::PromiseRaw<'e, T>>
where
    T: napi::bindgen_prelude::ToNapiValue + Send + 'static,
    F: Future<Output = napi::Result<T>> + Send + 'static,
{
    env.spawn_future(guarded(future))
}

/// Awaits `future`, turning a panic into an `INTERNAL` error (a rejected Promise).
pub(crate) async fn guarded<T>(future: impl Future<Output = napi::Result<T>>) -> napi::Result<T> {
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| Err(errors::from_panic(panic)))
}

/// Test hook: panics synchronously inside the native module, to prove that a panic becomes an
/// error and never an abort. Not public API.
#[napi(catch_unwind, js_name = "__panicSync")]
pub fn panic_sync() -> napi::Result<()> {
    guard(|| panic!("deliberate panic (sync) for the test suite"))
}

/// Test hook: panics inside a future; the Promise rejects. Not public API.
#[napi(catch_unwind, js_name = "__panicAsync")]
pub async fn panic_async() -> napi::Result<()> {
    guarded(async { panic!("deliberate panic (async) for the test suite") }).await
}

/// Test hook: panics inside a future without the binding's own guard, so napi's last line of
/// defence settles the Promise. Not public API.
#[napi(catch_unwind, js_name = "__panicUnguarded")]
pub async fn panic_unguarded() -> napi::Result<()> {
    panic!("deliberate unguarded panic for the test suite")
}
