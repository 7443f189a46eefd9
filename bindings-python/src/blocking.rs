//! Blocking calls: the future runs on the runtime while the calling thread waits without
//! the GIL, checking for Ctrl-C; the result is converted on the calling thread.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use pyo3::prelude::*;

use crate::errors::{panic_error, panic_message, to_pyerr};
use crate::job::{BoxFuture, Converter, Job};
use crate::runtime::runtime;

/// Runs `future` on the runtime while this thread waits without the GIL, checking for
/// Ctrl-C (signals) every 100 ms. Panics become a `MonapiError`.
pub fn block_on<T: Send + 'static>(py: Python<'_>, future: BoxFuture<T>) -> PyResult<T> {
    enum Outcome<T> {
        Done(Result<T, monapi::Error>),
        Interrupted(PyErr),
        Panicked(String),
    }
    let runtime = runtime();
    let outcome = py.detach(move || {
        let run = AssertUnwindSafe(|| {
            runtime.block_on(async move {
                let mut future = AssertUnwindSafe(future).catch_unwind();
                loop {
                    match tokio::time::timeout(Duration::from_millis(100), &mut future).await {
                        Ok(Ok(result)) => return Outcome::Done(result),
                        Ok(Err(panic)) => return Outcome::Panicked(panic_message(&*panic)),
                        Err(_elapsed) => {
                            if let Some(Err(error)) = Python::try_attach(|py| py.check_signals()) {
                                return Outcome::Interrupted(error);
                            }
                        }
                    }
                }
            })
        });
        std::panic::catch_unwind(run).unwrap_or_else(|panic| Outcome::Panicked(panic_message(&*panic)))
    });
    match outcome {
        Outcome::Done(Ok(value)) => Ok(value),
        Outcome::Done(Err(error)) => Err(to_pyerr(py, error)),
        Outcome::Interrupted(error) => Err(error),
        Outcome::Panicked(message) => Err(panic_error(py, &message)),
    }
}

/// Runs a job to completion on this thread (GIL released while waiting) and converts.
pub fn run_job<T: Send + 'static>(py: Python<'_>, job: Job<T>) -> PyResult<Py<PyAny>> {
    let value = block_on(py, job.future)?;
    convert_guarded(py, job.convert, value)
}

/// Calls a converter, turning a panic into a `MonapiError`.
pub(crate) fn convert_guarded<T>(py: Python<'_>, convert: Converter<T>, value: T) -> PyResult<Py<PyAny>> {
    std::panic::catch_unwind(AssertUnwindSafe(|| convert(py, value)))
        .unwrap_or_else(|panic| Err(panic_error(py, &panic_message(&*panic))))
}
