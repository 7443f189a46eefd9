//! Blocking calls: the future runs on the runtime while the calling thread waits without
//! the GIL, checking for Ctrl-C; between its waits the calling thread makes the Python calls
//! the future asked for (`job::call_soon`), and it converts the result.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use pyo3::prelude::*;
use tokio::sync::Notify;

use crate::errors::{panic_error, panic_message, to_pyerr};
use crate::job::{make_call, with_calls, BoxFuture, CallSink, Converter, Job, PyCall};
use crate::runtime::{lock, runtime};
use crate::telemetry::Trace;

/// How often a waiting thread checks for Ctrl-C (signals).
const SIGNALS_EVERY: Duration = Duration::from_millis(100);

/// The Python calls a running operation asked for, waiting for the calling thread.
#[derive(Default)]
struct Calls {
    queue: Mutex<VecDeque<PyCall>>,
    queued: Notify,
}

impl Calls {
    fn push(&self, call: PyCall) {
        lock(&self.queue).push_back(call);
        self.queued.notify_one();
    }

    /// Makes every queued call, in order (one queued meanwhile too).
    fn make(&self, py: Python<'_>) {
        loop {
            let Some(call) = lock(&self.queue).pop_front() else {
                return;
            };
            make_call(py, call);
        }
    }
}

/// Why the calling thread stopped waiting.
enum Woken<T> {
    Done(std::thread::Result<Result<T, monapi::Error>>),
    Calls,
    Tick,
}

/// Runs `future` on the runtime while this thread waits without the GIL, checking for
/// Ctrl-C (signals) every 100 ms and making the Python calls the future asks for (in order,
/// all of them before the result). Panics become a `MonapiError`.
pub fn block_on<T: Send + 'static>(py: Python<'_>, future: BoxFuture<T>) -> PyResult<T> {
    let runtime = runtime();
    let calls = Arc::new(Calls::default());
    let sink: CallSink = {
        let calls = calls.clone();
        Arc::new(move |call| calls.push(call))
    };
    let mut future = Box::pin(with_calls(sink, AssertUnwindSafe(future).catch_unwind()));
    let outcome = loop {
        let woken = py.detach(|| {
            let wait = AssertUnwindSafe(|| {
                runtime.block_on(async {
                    tokio::select! {
                        biased;
                        outcome = &mut future => Woken::Done(outcome),
                        () = calls.queued.notified() => Woken::Calls,
                        () = tokio::time::sleep(SIGNALS_EVERY) => Woken::Tick,
                    }
                })
            });
            std::panic::catch_unwind(wait).unwrap_or_else(|panic| Woken::Done(Err(panic)))
        });
        // What the future asked for before it ended comes before its result.
        calls.make(py);
        match woken {
            Woken::Done(outcome) => break Ok(outcome),
            // Checked at every wake-up, so that a stream of calls cannot hold Ctrl-C back.
            Woken::Calls | Woken::Tick => {
                if let Err(interrupted) = py.check_signals() {
                    break Err(interrupted);
                }
            }
        }
    };
    match outcome {
        Ok(Ok(Ok(value))) => Ok(value),
        Ok(Ok(Err(error))) => Err(to_pyerr(py, error)),
        Ok(Err(panic)) => Err(panic_error(py, &panic_message(&*panic))),
        Err(interrupted) => {
            // Dropping the future cancels what it has in flight; in the runtime, without the GIL.
            py.detach(|| {
                let _runtime = runtime.enter();
                drop(future);
            });
            Err(interrupted)
        }
    }
}

/// Runs a job to completion on this thread (GIL released while waiting) and converts. A
/// traced call's spans are replayed here too, once it has ended however it ended (its future
/// dropped, Ctrl-C included), before its result is handed on.
pub fn run_job<T: Send + 'static>(py: Python<'_>, job: Job<T>) -> PyResult<Py<PyAny>> {
    let Some(mut trace) = Trace::begin(py)? else {
        let value = block_on(py, job.future)?;
        return convert_guarded(py, job.convert, value);
    };
    let future = trace.record(job.future);
    // The conversion is part of the call: a report built as it arrives is received there.
    let result = block_on(py, future).and_then(|value| convert_guarded(py, job.convert, value));
    trace.finish(py)?;
    result
}

/// Calls a converter, turning a panic into a `MonapiError`.
pub(crate) fn convert_guarded<T>(py: Python<'_>, convert: Converter<T>, value: T) -> PyResult<Py<PyAny>> {
    std::panic::catch_unwind(AssertUnwindSafe(|| convert(py, value)))
        .unwrap_or_else(|panic| Err(panic_error(py, &panic_message(&*panic))))
}
