//! An operation of the SDK ready to run: the future (run on the runtime, without the GIL)
//! and the conversion of its result (under the GIL), waited on by the blocking client
//! (`blocking.rs`) or awaited by the asyncio one (`bridge/`); and the Python calls it asks
//! for while it runs (its progress callback), which its waiter makes ([`call_soon`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use pyo3::prelude::*;

use crate::errors::{panic_error, panic_message, to_pyerr};

/// What a call failed with: the SDK's error, or a panic (a bug) caught before it could take
/// the interpreter down.
pub enum Failure {
    Sdk(monapi::Error),
    Panic(String),
}

impl Failure {
    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Sdk(error) => to_pyerr(py, error),
            Failure::Panic(message) => panic_error(py, &message),
        }
    }
}

/// A boxed, sendable future of an SDK operation.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T, monapi::Error>> + Send + 'static>>;

/// Turns the result of an operation into a Python object, under the GIL.
pub type Converter<T> = Box<dyn FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static>;

/// An operation ready to run: the future (no GIL needed) and what to make of its result.
pub struct Job<T: Send + 'static> {
    pub future: BoxFuture<T>,
    pub convert: Converter<T>,
}

/// How the body of an answer becomes Python objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parse {
    /// Parsed whole on the runtime, then built on the event loop (the asyncio client: the
    /// loop only builds objects).
    Whole,
    /// A large body parsed on another thread in parts while the waiting caller already builds
    /// the objects of the first ones (the blocking client).
    WhileBuilding,
}

/// A Python call that a running operation asks for (a progress callback), made under the GIL.
pub type PyCall = Box<dyn FnOnce(Python<'_>) + Send>;

/// Where the Python calls of a running operation go: the queue its blocking waiter drains
/// between its waits (`blocking.rs`), or its event loop's bridge (`bridge/`).
pub type CallSink = Arc<dyn Fn(PyCall) + Send + Sync>;

tokio::task_local! {
    /// The sink of the operation whose future is being polled.
    static CALLS: CallSink;
}

/// `future`, with the Python calls it asks for ([`call_soon`]) handed to `sink`.
pub fn with_calls<F: Future>(sink: CallSink, future: F) -> impl Future<Output = F::Output> {
    CALLS.scope(sink, future)
}

/// Queues `call` for the thread that waits for the running operation, which makes it under the
/// GIL: the calling thread of the blocking client, the event loop's thread of the asyncio one.
/// Calls are made in the order asked, each before the operation's result is delivered; no
/// Python code runs on tokio's threads, and the runtime never waits for the GIL (a slow
/// callback holds up its caller, never the transfers).
///
/// For the core's callbacks, which run inside the operation's future
/// (`BulkOptions::on_progress`, `SyncOptions::on_progress`).
pub fn call_soon(call: impl FnOnce(Python<'_>) + Send + 'static) {
    if CALLS.try_with(|sink| sink(Box::new(call))).is_err() {
        // Only if the core ever called back from a task of its own: nobody waits there.
        tracing::warn!(target: "monapi", "a callback was called outside of its call's future; it is not made");
    }
}

/// Makes a call that [`call_soon`] queued (on the thread that waits for its operation, under
/// the GIL). A call handles its own errors (a progress callback's are logged); a panic is a
/// bug of ours, which must not unwind into Python.
pub fn make_call(py: Python<'_>, call: PyCall) {
    if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(|| call(py))) {
        tracing::error!(target: "monapi", "a callback panicked: {}", panic_message(&*panic));
    }
}
