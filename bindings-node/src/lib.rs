//! The native part of the `monapi` npm package (napi-rs).
//!
//! It wraps the core crate [`monapi`] (and the bundled [`monapi_emulator`]) for the thin
//! TypeScript layer (`ts/`), which is the public API: the classes here (`NativeClient`,
//! `NativeEmulator`) take and return strings of JSON and plain values, and every error leaves
//! as a JavaScript `Error` whose code and fields are properties (see [`errors`]), which the
//! layer makes a `MonapiError`. No panic crosses into JavaScript: each entry point runs under
//! a guard (`boundary.rs`), so a bug is an `INTERNAL` error instead of an abort of Node.

#![deny(clippy::all)]

mod answer;
mod boundary;
mod call;
mod client;
mod emulator;
pub mod errors;
mod logging;
mod options;
mod sync;
mod tables;
mod telemetry;

use napi::bindgen_prelude::{Object, PromiseRaw};
use napi::Env;
use napi_derive::napi;

use boundary::{guard, spawn};
use errors::Settled;

pub use call::NativeCall;
pub use client::{endpoint_names, NativeClient};
pub use emulator::{demo_account, DemoAccount, NativeEmulator, NativeEmulatorOptions};
pub use options::setting_names;
pub use telemetry::telemetry_instruments;

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

/// The name of `known` that `name` was most likely meant to be, when one is close (the core's
/// rule, `monapi::input::did_you_mean`): the TypeScript layer's check of option names says it.
#[napi(catch_unwind)]
pub fn did_you_mean(name: String, known: Vec<String>) -> Option<String> {
    monapi::input::did_you_mean(&name, known.iter().map(String::as_str)).map(str::to_string)
}

/// Runs the `monapi` command with `args` (the program's name first) and returns its exit code:
/// the command of the crate monapi-cli, linked into this addon, which `npx monapi` runs
/// (`bin/monapi.js`). It holds the calling thread until the command ends, as a command's own
/// process would; the command reads and writes the process's standard streams.
#[napi(catch_unwind)]
pub fn run_command(args: Vec<String>) -> u32 {
    u32::from(monapi_cli::run_embedded(args))
}

/// The package version (the Cargo workspace version).
#[napi(catch_unwind)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The error of an argument of the wrong type, caught by the TypeScript layer: an
/// `INVALID_INPUT` error worded as the core words invalid input (the layer makes it a
/// `MonapiError`).
#[napi(catch_unwind, ts_return_type = "Error")]
pub fn invalid_input(env: &Env, field: String, rule: String) -> napi::Result<Object<'_>> {
    errors::invalid_input(&field, &rule).into_js(env)
}

/// Test hook: panics synchronously inside the native module, to prove that a panic becomes an
/// error and never an abort. Not public API.
#[napi(catch_unwind, js_name = "__panicSync")]
pub fn panic_sync(env: &Env) -> napi::Result<()> {
    guard(env, || panic!("deliberate panic (sync) for the test suite"))
}

/// Test hook: panics inside a future; the Promise rejects. Not public API.
#[napi(catch_unwind, js_name = "__panicAsync", ts_return_type = "Promise<void>")]
pub fn panic_async(env: &Env) -> napi::Result<PromiseRaw<'_, Settled<()>>> {
    spawn(env, async {
        panic!("deliberate panic (async) for the test suite")
    })
}

/// Test hook: panics inside a future without the binding's own guard, so napi's last line of
/// defence settles the Promise. Not public API.
#[napi(catch_unwind, js_name = "__panicUnguarded")]
pub async fn panic_unguarded() -> napi::Result<()> {
    panic!("deliberate unguarded panic for the test suite")
}
