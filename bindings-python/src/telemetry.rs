//! OpenTelemetry for every call: the core records a call's spans and measurements as plain
//! data (`monapi::telemetry::Recording`), and the caller's side replays them through the
//! host's OpenTelemetry API with their recorded times (`monapi/_telemetry.py`): the blocking
//! client in the calling thread once the call has ended (`blocking.rs`), the asyncio client
//! in the awaiting task (`bridge/`). Nothing here takes the GIL on tokio's threads.
//!
//! Whether a call is traced is decided on the caller's side when it is made
//! ([`Trace::begin`]): never unless the host has imported OpenTelemetry
//! (`opentelemetry.trace` or `opentelemetry.metrics` in `sys.modules`: two dictionary
//! look-ups, the whole cost of a call without it), then by `monapi._telemetry._begin`, which
//! says whether a real provider is set and captures the caller's context.
//!
//! A recording is complete once every future that records into it has been dropped: each
//! holds a [`Recorder`], and the drop of the last one disconnects the trace's channel. The
//! spans of a cancelled call end when its future is dropped, so the caller replays them only
//! after that: the blocking client drops it itself; the asyncio client waits, in the awaiting
//! task and without blocking the loop, for the task that ran it to be done ([`Cancelling`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::Either;
use monapi::telemetry::{
    AttributeValue, MetricRecord, Recording, Records, SpanKind, REQUEST_DURATION, REQUEST_DURATION_BUCKETS,
    RETRIES,
};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use tokio::task::JoinHandle;

use crate::job::PyCall;
use crate::logging;
use crate::runtime::{lock, runtime};

/// How long the blocking client waits for the futures of a call that ended to be dropped
/// (a report's task is dropped by the next free worker, at once) before it replays what was
/// recorded anyway.
const COMPLETE_WITHIN: Duration = Duration::from_secs(10);

static MODULES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
static BEGIN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `_native._METRICS`: the core's declarations of the instruments, by the keys the replayed
/// measurements name (`request_duration`, `retries`).
pub fn metrics(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let duration = PyDict::new(py);
    duration.set_item("name", REQUEST_DURATION.name)?;
    duration.set_item("unit", REQUEST_DURATION.unit)?;
    duration.set_item("description", REQUEST_DURATION.description)?;
    duration.set_item("buckets", REQUEST_DURATION_BUCKETS.to_vec())?;
    let retries = PyDict::new(py);
    retries.set_item("name", RETRIES.name)?;
    retries.set_item("unit", RETRIES.unit)?;
    retries.set_item("description", RETRIES.description)?;
    let metrics = PyDict::new(py);
    metrics.set_item("request_duration", duration)?;
    metrics.set_item("retries", retries)?;
    Ok(metrics)
}

/// Whether the host has imported OpenTelemetry's API (traces or metrics).
fn imported(py: Python<'_>) -> bool {
    let Ok(modules) = MODULES.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("sys")?
                .getattr("modules")?
                .cast_into::<PyDict>()?
                .unbind(),
        )
    }) else {
        return false;
    };
    let modules = modules.bind(py);
    [
        pyo3::intern!(py, "opentelemetry.trace"),
        pyo3::intern!(py, "opentelemetry.metrics"),
    ]
    .into_iter()
    .any(|name| matches!(modules.get_item(name), Ok(Some(module)) if !module.is_none()))
}

/// An error of the telemetry: an `Exception` is logged and the call goes on without it; any
/// other `BaseException` (`KeyboardInterrupt`, `SystemExit`) goes to the caller.
fn aside(py: Python<'_>, message: &str, error: PyErr) -> PyResult<()> {
    if error.is_instance_of::<PyException>(py) {
        logging::warning_with(py, message, error);
        Ok(())
    } else {
        Err(error)
    }
}

/// The telemetry of one call, held on the caller's side: the host's side of it
/// (`monapi._telemetry._Call`: the caller's context, where the spans go), the recording, and
/// the channel whose disconnection says the recording is complete.
pub struct Trace {
    call: Py<PyAny>,
    recording: Arc<Recording>,
    /// Handed to the call's future by [`Trace::record`].
    recorder: Option<Recorder>,
    complete: Receiver<()>,
}

impl Trace {
    /// The trace of a call made now, or `None` when nobody listens (the call then runs as it
    /// would without this module). Called on the caller's side, with its context current.
    pub fn begin(py: Python<'_>) -> PyResult<Option<Trace>> {
        if !imported(py) {
            return Ok(None);
        }
        match Trace::ask(py) {
            Ok(trace) => Ok(trace),
            Err(error) => {
                aside(py, "OpenTelemetry: the call goes on without telemetry", error).map(|()| None)
            }
        }
    }

    fn ask(py: Python<'_>) -> PyResult<Option<Trace>> {
        let begin = BEGIN.get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("monapi._telemetry")?.getattr("_begin")?.unbind())
        })?;
        let call = begin.bind(py).call0()?;
        if call.is_none() {
            return Ok(None);
        }
        let traceparent: Option<String> = call.getattr(pyo3::intern!(py, "traceparent"))?.extract()?;
        let recording = Recording::new(traceparent);
        let (alive, complete) = mpsc::channel();
        Ok(Some(Trace {
            call: call.unbind(),
            recorder: Some(Recorder {
                recording: recording.clone(),
                _alive: alive,
            }),
            recording,
            complete,
        }))
    }

    /// `future`, the call, recorded here (a trace records one future: any other is returned
    /// as it is).
    pub fn record<F>(&mut self, future: F) -> Pin<Box<dyn Future<Output = F::Output> + Send>>
    where
        F: Future + Send + 'static,
    {
        match self.recorder.take() {
            Some(recorder) => Box::pin(recorder.record(future)),
            None => Box::pin(future),
        }
    }

    /// Replays the call's spans and measurements once every future of the call has been
    /// dropped, waiting for that without the GIL (the blocking client, after the call).
    pub fn finish(self, py: Python<'_>) -> PyResult<()> {
        let Trace {
            call,
            recording,
            recorder,
            complete,
        } = self;
        drop(recorder);
        if let Err(mpsc::TryRecvError::Empty) = complete.try_recv() {
            let _ = py.detach(move || complete.recv_timeout(COMPLETE_WITHIN));
        }
        replay(py, &call, recording.take())
    }

    /// Replays the call's spans and measurements now: for a call whose futures have all been
    /// dropped (the asyncio client, whose call ended or whose task is done).
    pub fn finish_now(self, py: Python<'_>) -> PyResult<()> {
        replay(py, &self.call, self.recording.take())
    }
}

/// Hands what `recording` holds to `call.replay` (`monapi/_telemetry.py`).
fn replay(py: Python<'_>, call: &Py<PyAny>, records: Records) -> PyResult<()> {
    if records.spans.is_empty() && records.metrics.is_empty() {
        return Ok(());
    }
    let built = (|| -> PyResult<_> {
        let spans = PyList::empty(py);
        for span in records.spans {
            let client = span.kind == SpanKind::Client;
            let (start, end) = (nanos(span.start), nanos(span.end));
            let attributes = attributes(py, &span.attributes)?;
            spans.append((
                span.id,
                span.parent,
                span.name,
                client,
                start,
                end,
                attributes,
                span.error,
            ))?;
        }
        let metrics = PyList::empty(py);
        for metric in records.metrics {
            let (key, value, recorded) = match metric {
                MetricRecord::RequestDuration { seconds, attributes } => {
                    ("request_duration", seconds, attributes)
                }
                MetricRecord::Retry { attributes } => ("retries", 1.0, attributes),
            };
            metrics.append((key, value, attributes(py, &recorded)?))?;
        }
        Ok((spans, metrics))
    })();
    match built {
        // `replay` logs an Exception of its own: what comes out of it is a BaseException.
        Ok(lists) => call
            .call_method1(py, pyo3::intern!(py, "replay"), lists)
            .map(drop),
        Err(error) => aside(
            py,
            "OpenTelemetry: the spans of a call could not be handed over",
            error,
        ),
    }
}

fn attributes<'py>(
    py: Python<'py>,
    attributes: &[(&'static str, AttributeValue)],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in attributes {
        match value {
            AttributeValue::Text(text) => dict.set_item(key, text.as_ref())?,
            AttributeValue::Int(number) => dict.set_item(key, number)?,
        }
    }
    Ok(dict)
}

/// Nanoseconds since the epoch, as OpenTelemetry's API takes times.
fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
}

tokio::task_local! {
    /// The recorder of the call whose future is being polled.
    static RECORDER: Recorder;
}

/// What every future recording into a trace holds: the recording, and one end of the
/// channel that the trace's [`Trace::finish`] waits on.
#[derive(Clone)]
pub struct Recorder {
    recording: Arc<Recording>,
    _alive: Sender<()>,
}

impl Recorder {
    /// `future` run in the recording's scope (and in this recorder's, for what it spawns),
    /// the recorder dropped with it.
    fn record<F: Future>(self, future: F) -> Recorded<impl Future<Output = F::Output>> {
        // `Recording::scope`'s future borrows the recording: this one owns it.
        let recording = self.recording.clone();
        let recorded = async move { recording.scope(future).await };
        Recorded {
            future: Some(Box::pin(RECORDER.scope(self, recorded))),
        }
    }
}

/// `future`, spawned by the call being polled now (a report built as it arrives), recorded
/// with it: the call's recording is complete only once this one is dropped too.
pub fn carry<F: Future>(future: F) -> Either<Recorded<impl Future<Output = F::Output>>, F> {
    match RECORDER.try_with(Recorder::clone) {
        Ok(recorder) => Either::Left(recorder.record(future)),
        Err(_) => Either::Right(future),
    }
}

/// A recorded future: dropped as soon as it is ready, so that every span of the call has
/// ended (and its recorder is gone) before its output is handed on.
pub struct Recorded<F> {
    future: Option<Pin<Box<F>>>,
}

impl<F: Future> Future for Recorded<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let future = self
            .future
            .as_mut()
            .expect("a recorded call is not polled after it ended");
        let output = ready!(future.as_mut().poll(cx));
        self.future = None;
        Poll::Ready(output)
    }
}

/// A traced asyncio call cancelled while it ran: its task aborted, and a watcher that tells
/// the event loop once the task is done (its future dropped, so every span has ended). The
/// awaiting task waits for that on an asyncio future ([`Cancelling::wait`]), then replays
/// the spans and raises; a trace nobody awaits any more is replayed by the loop then.
pub struct Cancelling {
    dropped: Arc<Mutex<Dropped>>,
}

#[derive(Default)]
struct Dropped {
    /// The call's task is done.
    done: bool,
    /// The asyncio future the awaiting task waits on until then.
    waiter: Option<Py<PyAny>>,
    /// A trace given up by its awaitable (closed or dropped while it waited).
    orphan: Option<Trace>,
}

impl Cancelling {
    /// Aborts `task`, the call's; `push` hands a Python call to the event loop's thread.
    pub fn start(task: JoinHandle<()>, push: impl FnOnce(PyCall) + Send + 'static) -> Cancelling {
        task.abort();
        let dropped = Arc::new(Mutex::new(Dropped::default()));
        let watched = dropped.clone();
        runtime().spawn(async move {
            // A task's handle resolves once its future has been dropped.
            let _ = task.await;
            push(Box::new(move |py| Cancelling::wake(py, &watched)));
        });
        Cancelling { dropped }
    }

    /// On the loop's thread, once the call's task is done: wakes the awaiting task, or
    /// replays a trace given up.
    fn wake(py: Python<'_>, dropped: &Mutex<Dropped>) {
        let (waiter, orphan) = {
            let mut dropped = lock(dropped);
            dropped.done = true;
            (dropped.waiter.take(), dropped.orphan.take())
        };
        if let Some(waiter) = waiter {
            let waiter = waiter.bind(py);
            if let Ok(false) = waiter.call_method0("done").and_then(|done| done.is_truthy()) {
                let _ = waiter.call_method1("set_result", (py.None(),));
            }
        }
        if let Some(trace) = orphan {
            if let Err(error) = trace.finish_now(py) {
                logging::warning_with(
                    py,
                    "OpenTelemetry: the spans of a cancelled call were not replayed",
                    error,
                );
            }
        }
    }

    /// Whether the call's task is done.
    pub fn done(&self) -> bool {
        lock(&self.dropped).done
    }

    /// A future of `event_loop` that resolves once the call's task is done (replacing any
    /// earlier one), or `None` when it is.
    pub fn wait<'py>(&self, event_loop: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.done() {
            return Ok(None);
        }
        let waiter = event_loop.call_method0(pyo3::intern!(event_loop.py(), "create_future"))?;
        // `wake` runs on the loop's thread, as this does: it cannot come in between.
        lock(&self.dropped).waiter = Some(waiter.clone().unbind());
        Ok(Some(waiter))
    }

    /// Gives `trace` up to the event loop, which replays it once the call's task is done;
    /// returned when it already is (to replay now).
    pub fn orphan(self, trace: Trace) -> Option<Trace> {
        let mut dropped = lock(&self.dropped);
        if dropped.done {
            return Some(trace);
        }
        dropped.orphan = Some(trace);
        None
    }
}
