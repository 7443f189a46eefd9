//! The asyncio bridge: awaiting an `AsyncClient` call runs its future on the runtime and
//! hands the result back to the event loop.
//!
//! Async calls do not take the GIL on tokio's threads: a finished call is queued on its
//! event loop's queue (`queue.rs`) and the loop is woken through a socket pair it watches
//! (`loop.add_reader`), so the Python objects are built on the loop's own thread, many
//! results per wake-up. Loops without `add_reader` (e.g. the Windows proactor) are woken
//! with `call_soon_threadsafe` instead. The Python calls a running operation asks for (its
//! progress callback, `job::call_soon`) travel the same way, queued in order before its
//! result.
//!
//! A traced call (`telemetry.rs`) replays its spans in the awaiting task: when its result is
//! taken, or, cancelled while it ran (`task.cancel()` throws into it), once the runtime has
//! dropped its future: the awaitable then waits on another asyncio future, resolved through
//! the same queue, before it raises the cancellation.
//!
//! This bridge stands in for the usual crate, pyo3-async-runtimes: that crate resolves each
//! asyncio future from a tokio thread that takes the GIL and calls `call_soon_threadsafe`
//! once per completion, so with 1,000 calls in flight the runtime's threads queue for the
//! GIL behind the event loop, one wake-up per result. Here the runtime never waits for the
//! GIL, and the loop drains every finished call in one go. It stays only while it measurably
//! beats that crate on the same calls: `bench/python/bridge.py` (`make python-bench`, which
//! builds the cargo feature `bench-bridge`) compares the two; figures in `bench/RESULTS.md`.

mod queue;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use pyo3::exceptions::{PyRuntimeError, PyStopIteration};
use pyo3::prelude::*;
use tokio::task::{AbortHandle, JoinHandle};

pub(crate) use self::queue::Finish;
use self::queue::{bridge_for, running_loop, Completion, Item, LoopBridge};
use crate::blocking::convert_guarded;
use crate::errors::panic_message;
use crate::job::{with_calls, CallSink, Failure, Job};
use crate::runtime::{lock, runtime};
use crate::telemetry::{Cancelling, Trace};

/// A [`Job`] whose result type is erased: it runs the operation (no GIL needed) and resolves
/// to what builds its result under the GIL. A panic of the operation is caught here.
pub(crate) type ErasedJob = Pin<Box<dyn Future<Output = Finish> + Send>>;

fn erase<T: Send + 'static>(job: Job<T>) -> ErasedJob {
    let Job {
        future: work,
        convert,
    } = job;
    Box::pin(async move {
        let outcome = match AssertUnwindSafe(work).catch_unwind().await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(Failure::Sdk(error)),
            Err(panic) => Err(Failure::Panic(panic_message(&*panic))),
        };
        let finish: Finish = Box::new(move |py| match outcome {
            Ok(value) => convert_guarded(py, convert, value),
            Err(failure) => Err(failure.into_pyerr(py)),
        });
        finish
    })
}

/// Work an [`Awaitable`] resolves to.
enum Pending {
    /// Not started: starts on the first `send()`, inside the running loop; with its trace
    /// when the host has OpenTelemetry.
    Start(ErasedJob, Option<Trace>),
    /// Already known (an item buffered by an iterator, or an error).
    Ready(PyResult<Py<PyAny>>),
    /// Running on the runtime; `future` is the asyncio future the loop waits on.
    Running {
        future: Py<PyAny>,
        abort: AbortHandle,
        traced: Option<Traced>,
    },
    /// A traced call cancelled while it ran: the awaiting task waits on `waiter` until the
    /// runtime has dropped the call's future, then replays its spans and raises `error`.
    Cancelling {
        cancelling: Cancelling,
        trace: Trace,
        error: PyErr,
        waiter: Py<PyAny>,
    },
    Finished,
}

/// A traced call running: its trace, its task and the bridge of its loop.
struct Traced {
    trace: Trace,
    task: JoinHandle<()>,
    bridge: LoopBridge,
}

impl Traced {
    /// Aborts the call; the bridge tells the loop once its future is dropped.
    fn cancel(self) -> (Cancelling, Trace) {
        let bridge = self.bridge;
        let cancelling = Cancelling::start(self.task, move |call| bridge.push(Item::Call(call)));
        (cancelling, self.trace)
    }
}

/// What `AsyncClient` methods return: a coroutine object (`await` it, or hand it to
/// `asyncio.create_task`, `gather` or `run`). The request starts when it is first awaited.
#[pyclass(module = "monapi._native", frozen)]
pub struct Awaitable {
    name: &'static str,
    state: Mutex<Pending>,
}

impl Drop for Awaitable {
    fn drop(&mut self) {
        let state = std::mem::replace(&mut *lock(&self.state), Pending::Finished);
        let given_up = match state {
            Pending::Running {
                abort, traced: None, ..
            } => {
                abort.abort();
                None
            }
            Pending::Running {
                traced: Some(traced), ..
            } => Some(traced.cancel()),
            Pending::Cancelling {
                cancelling, trace, ..
            } => Some((cancelling, trace)),
            _ => None,
        };
        if let Some(trace) = given_up.and_then(|(cancelling, trace)| cancelling.orphan(trace)) {
            let _ = Python::try_attach(|py| trace.finish_now(py));
        }
    }
}

impl Awaitable {
    /// An awaitable running `job` on the runtime and converting its result on the loop;
    /// traced when the host has OpenTelemetry (the caller's context is taken now).
    pub fn new<T: Send + 'static>(py: Python<'_>, name: &'static str, job: Job<T>) -> PyResult<Awaitable> {
        let trace = Trace::begin(py)?;
        Ok(Awaitable {
            name,
            state: Mutex::new(Pending::Start(erase(job), trace)),
        })
    }

    /// The job of an awaitable not yet started, to run it through another asyncio bridge
    /// (the benchmark of this one against pyo3-async-runtimes). It then cannot be awaited.
    #[cfg(feature = "bench-bridge")]
    pub(crate) fn take_job(&self) -> Option<ErasedJob> {
        let mut state = lock(&self.state);
        match std::mem::replace(&mut *state, Pending::Finished) {
            Pending::Start(job, _) => Some(job),
            other => {
                *state = other;
                None
            }
        }
    }

    /// An awaitable whose result is already known.
    pub fn ready(name: &'static str, value: PyResult<Py<PyAny>>) -> Awaitable {
        Awaitable {
            name,
            state: Mutex::new(Pending::Ready(value)),
        }
    }

    fn step(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut state = lock(&self.state);
        match std::mem::replace(&mut *state, Pending::Finished) {
            Pending::Start(job, trace) => {
                drop(state);
                let event_loop = running_loop(py)?;
                let bridge = bridge_for(py, &event_loop)?;
                let future = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
                let (abort, traced) = match trace {
                    None => (
                        spawn_job(bridge, future.clone().unbind(), job).abort_handle(),
                        None,
                    ),
                    Some(mut trace) => {
                        let task = spawn_job(bridge.clone(), future.clone().unbind(), trace.record(job));
                        let abort = task.abort_handle();
                        (abort, Some(Traced { trace, task, bridge }))
                    }
                };
                future.setattr(pyo3::intern!(py, "_asyncio_future_blocking"), true)?;
                *lock(&self.state) = Pending::Running {
                    future: future.clone().unbind(),
                    abort,
                    traced,
                };
                Ok(future.unbind())
            }
            Pending::Ready(Ok(value)) => Err(PyStopIteration::new_err((value,))),
            Pending::Ready(Err(error)) => Err(error),
            Pending::Running {
                future,
                abort,
                traced,
            } => {
                let bound = future.bind(py);
                if bound.call_method0(pyo3::intern!(py, "done"))?.is_truthy()? {
                    drop(state);
                    // Its result was queued after its future was dropped: the spans are all there.
                    if let Some(traced) = traced {
                        traced.trace.finish_now(py)?;
                    }
                    let value = bound.call_method0(pyo3::intern!(py, "result"))?;
                    Err(PyStopIteration::new_err((value.unbind(),)))
                } else {
                    // Woken early: wait on the same future again.
                    bound.setattr(pyo3::intern!(py, "_asyncio_future_blocking"), true)?;
                    *state = Pending::Running {
                        future: future.clone_ref(py),
                        abort,
                        traced,
                    };
                    Ok(future)
                }
            }
            Pending::Cancelling {
                cancelling,
                trace,
                error,
                waiter,
            } => {
                if cancelling.done() {
                    drop(state);
                    trace.finish_now(py)?;
                    return Err(error);
                }
                // Woken early: wait on the same future again.
                waiter
                    .bind(py)
                    .setattr(pyo3::intern!(py, "_asyncio_future_blocking"), true)?;
                let waiting = waiter.clone_ref(py);
                *state = Pending::Cancelling {
                    cancelling,
                    trace,
                    error,
                    waiter,
                };
                Ok(waiting)
            }
            Pending::Finished => Err(PyRuntimeError::new_err(format!(
                "cannot reuse an already awaited {}() call",
                self.name
            ))),
        }
    }

    /// Stops the call; a traced one that ran is returned, its task being aborted, for its
    /// spans to be replayed once its future is dropped.
    fn stop(&self, py: Python<'_>) -> Option<(Cancelling, Trace)> {
        let previous = std::mem::replace(&mut *lock(&self.state), Pending::Finished);
        match previous {
            Pending::Running {
                future,
                abort,
                traced,
            } => {
                let cancelled = match traced {
                    None => {
                        abort.abort();
                        None
                    }
                    Some(traced) => Some(traced.cancel()),
                };
                let _ = future.bind(py).call_method0("cancel");
                cancelled
            }
            Pending::Cancelling {
                cancelling,
                trace,
                waiter,
                ..
            } => {
                let _ = waiter.bind(py).call_method0("cancel");
                Some((cancelling, trace))
            }
            _ => None,
        }
    }

    /// After `throw` stopped a traced call: waits, in the awaiting task, until its future is
    /// dropped (the loop goes on meanwhile), to replay its spans and raise `error` then.
    fn raise_when_dropped(
        &self,
        py: Python<'_>,
        (cancelling, trace): (Cancelling, Trace),
        error: PyErr,
    ) -> PyResult<Py<PyAny>> {
        let waiter = match running_loop(py).and_then(|event_loop| cancelling.wait(&event_loop)) {
            Ok(Some(waiter)) => waiter,
            Ok(None) => {
                trace.finish_now(py)?;
                return Err(error);
            }
            // No loop to wait in: the loop the call ran on replays its spans.
            Err(_) => {
                if let Some(trace) = cancelling.orphan(trace) {
                    trace.finish_now(py)?;
                }
                return Err(error);
            }
        };
        waiter.setattr(pyo3::intern!(py, "_asyncio_future_blocking"), true)?;
        *lock(&self.state) = Pending::Cancelling {
            cancelling,
            trace,
            error,
            waiter: waiter.clone().unbind(),
        };
        Ok(waiter.unbind())
    }
}

fn spawn_job<F>(bridge: LoopBridge, future: Py<PyAny>, job: F) -> JoinHandle<()>
where
    F: Future<Output = Finish> + Send + 'static,
{
    let calls = bridge.clone();
    let sink: CallSink = Arc::new(move |call| calls.push(Item::Call(call)));
    runtime().spawn(with_calls(sink, async move {
        let finish = job.await;
        bridge.push(Item::Done(Completion { future, finish }));
    }))
}

#[pymethods]
impl Awaitable {
    fn __await__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.step(py)
    }

    /// Part of the coroutine protocol: advance the call (asyncio does it, sending ``None``).
    ///
    /// Parameters
    /// ----------
    /// _value : object
    ///     Ignored.
    ///
    /// Returns
    /// -------
    /// object
    ///     What the event loop waits on next, until the call ends with ``StopIteration``
    ///     carrying its result (or raises its error).
    ///
    /// Examples
    /// --------
    /// >>> awaitable = client.agents()
    /// >>> agents = await awaitable   # asyncio calls send() for you
    fn send(&self, py: Python<'_>, _value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.step(py)
    }

    /// Part of the coroutine protocol: cancel the call and raise an exception in its place.
    ///
    /// Parameters
    /// ----------
    /// typ : type or BaseException
    ///     The exception, or its class.
    /// val : object, optional
    ///     The exception, or the argument of its class.
    /// tb : traceback, optional
    ///     The traceback to give it.
    ///
    /// Raises
    /// ------
    /// BaseException
    ///     The exception given, always.
    ///
    /// Examples
    /// --------
    /// >>> task = asyncio.create_task(client.agents())
    /// >>> task.cancel()   # asyncio throws CancelledError into the call
    #[pyo3(signature = (typ, val=None, tb=None))]
    fn throw(
        &self,
        py: Python<'_>,
        typ: &Bound<'_, PyAny>,
        val: Option<&Bound<'_, PyAny>>,
        tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let stopped = self.stop(py);
        let exception = || -> PyResult<Bound<'_, PyAny>> {
            let exception = match val {
                Some(val) if !val.is_none() && val.is_instance_of::<pyo3::exceptions::PyBaseException>() => {
                    val.clone()
                }
                _ if typ.is_instance_of::<pyo3::exceptions::PyBaseException>() => typ.clone(),
                Some(val) if !val.is_none() => typ.call1((val,))?,
                _ => typ.call0()?,
            };
            if let Some(tb) = tb.filter(|tb| !tb.is_none()) {
                exception.call_method1("with_traceback", (tb,))?;
            }
            Ok(exception)
        };
        let error = exception().map_or_else(|error| error, PyErr::from_value);
        match stopped {
            None => Err(error),
            Some(stopped) => self.raise_when_dropped(py, stopped, error),
        }
    }

    /// Part of the coroutine protocol: cancel the call (nothing of it runs on).
    ///
    /// Examples
    /// --------
    /// >>> awaitable = client.agents()
    /// >>> awaitable.close()   # never awaited: no request is made
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        // Nothing can be awaited here: the loop replays the spans of a traced call.
        let stopped = self.stop(py);
        if let Some(trace) = stopped.and_then(|(cancelling, trace)| cancelling.orphan(trace)) {
            trace.finish_now(py)?;
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("<monapi awaitable {}()>", self.name)
    }
}
