//! The core's `tracing` events (target `monapi`, level debug: requests, retries, token
//! renewals, all redacted by the core) forwarded to Python's `logging.getLogger("monapi")`;
//! the emulator's go to `monapi.emulator`.
//!
//! Cheap when the logger is not enabled: the effective level of `monapi` is read (under the
//! GIL, where it is cheap) at the start of every call and kept in an atomic; events below it
//! are dropped without touching Python.

use std::sync::atomic::{AtomicU8, Ordering};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// Python's effective level of the `monapi` logger (10 = DEBUG ...), refreshed at each call.
static LEVEL: AtomicU8 = AtomicU8::new(30);

static LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static EMULATOR_LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn logger(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    Ok(LOGGER
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("logging")?
                    .call_method1("getLogger", ("monapi",))?
                    .unbind(),
            )
        })?
        .bind(py))
}

fn emulator_logger(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    Ok(EMULATOR_LOGGER
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("logging")?
                    .call_method1("getLogger", ("monapi.emulator",))?
                    .unbind(),
            )
        })?
        .bind(py))
}

/// Reads the `monapi` logger's effective level (call with the GIL, before an operation).
pub fn refresh(py: Python<'_>) {
    if let Ok(level) = logger(py)
        .and_then(|l| l.call_method0(pyo3::intern!(py, "getEffectiveLevel")))
        .and_then(|l| l.extract::<i64>())
    {
        LEVEL.store(level.clamp(0, 255) as u8, Ordering::Relaxed);
    }
}

/// Logs a warning with the current exception's traceback (`exc_info`).
pub fn warning_with(py: Python<'_>, message: &str, error: PyErr) {
    if let Ok(logger) = logger(py) {
        let kwargs = pyo3::types::PyDict::new(py);
        let _ = kwargs.set_item("exc_info", error.into_value(py));
        let _ = logger.call_method("warning", (message,), Some(&kwargs));
    }
}

fn python_level(level: &Level) -> u8 {
    match *level {
        Level::TRACE => 5,
        Level::DEBUG => 10,
        Level::INFO => 20,
        Level::WARN => 30,
        Level::ERROR => 40,
    }
}

fn ours(target: &str) -> bool {
    target == "monapi"
        || target.starts_with("monapi::")
        || target == "monapi_emulator"
        || target.starts_with("monapi_emulator::")
        || target.starts_with("monapi_python")
}

/// The `tracing` subscriber of this extension: forwards to Python's `logging`.
pub struct PythonLogging;

impl Subscriber for PythonLogging {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if ours(metadata.target()) {
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event()
            && ours(metadata.target())
            && python_level(metadata.level()) >= LEVEL.load(Ordering::Relaxed)
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        let message = monapi::event_text(event);
        let level = python_level(metadata.level());
        let emulator = metadata.target().starts_with("monapi_emulator");
        // Never block a thread of the runtime on an interpreter that is shutting down.
        let _ = Python::try_attach(|py| {
            let logger = if emulator { emulator_logger(py) } else { logger(py) };
            if let Ok(logger) = logger {
                let _ = logger.call_method1(pyo3::intern!(py, "log"), (level, message));
            }
        });
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// Installs the forwarding subscriber (once per process; a no-op if one is set).
pub fn install() {
    let _ = tracing::subscriber::set_global_default(PythonLogging);
}
