//! Where calls from JavaScript enter the native module: each runs under a guard, so that a
//! failure becomes a JavaScript error with its fields ([`crate::errors`]) and a panic an
//! `INTERNAL` error, never an abort of Node.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use napi::bindgen_prelude::PromiseRaw;
use napi::Env;

use crate::errors::{from_panic, thrown, Result, Settled};

/// Runs a synchronous call: its failure (or panic) is thrown as a JavaScript error.
pub(crate) fn guard<T>(env: &Env, f: impl FnOnce() -> Result<T>) -> napi::Result<T> {
    std::panic::catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|panic| Err(from_panic(panic)))
        .map_err(|failure| thrown(env, failure))
}

/// Starts `future` on the runtime and returns its Promise, which rejects with the JavaScript
/// error of its failure (or of its panic).
pub(crate) fn spawn<'e, T, F>(env: &'e Env, future: F) -> napi::Result<PromiseRaw<'e, Settled<T>>>
where
    T: napi::bindgen_prelude::ToNapiValue + Send + 'static,
    F: Future<Output = Result<T>> + Send + 'static,
{
    env.spawn_future(async move { Ok(Settled(guarded(future).await)) })
}

/// Awaits `future`, turning a panic into an `INTERNAL` failure.
pub(crate) async fn guarded<T>(future: impl Future<Output = Result<T>>) -> Result<T> {
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| Err(from_panic(panic)))
}
