//! The queue of one event loop (`LoopBridge`): what the runtime hands back to the loop (a
//! finished call, or a Python call a running one asks for), and how the loop is woken to
//! drain it: a byte on a socket pair it watches (`loop.add_reader`), or, for loops without
//! `add_reader` (e.g. the Windows proactor), `call_soon_threadsafe`. One bridge per loop,
//! kept in a registry keyed by the loop.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::errors::{panic_error, panic_message};
use crate::job::{make_call, PyCall};
use crate::runtime::lock;

/// A finished operation on its way back to the event loop: the asyncio future to resolve
/// and a closure that builds the result (or the exception) under the GIL.
pub(super) struct Completion {
    pub(super) future: Py<PyAny>,
    pub(super) finish: Finish,
}

/// What the loop is handed, in the order it was queued.
pub(super) enum Item {
    /// A Python call a running operation asked for.
    Call(PyCall),
    Done(Completion),
}

/// Builds the result of a finished operation (or its exception) under the GIL.
pub(crate) type Finish = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

enum Wake {
    /// The loop watches the reading end (`add_reader`); a byte wakes it.
    #[cfg(unix)]
    Socket(std::os::unix::net::UnixStream),
    /// `loop.call_soon_threadsafe(drain)`, taking the GIL on the runtime's thread.
    Threadsafe {
        call_soon_threadsafe: Py<PyAny>,
        drain: Py<PyAny>,
    },
}

struct BridgeShared {
    pid: u32,
    queue: Mutex<Vec<Item>>,
    /// A wake-up is pending (the loop has not drained yet).
    armed: AtomicBool,
    wake: Mutex<Option<Wake>>,
}

impl BridgeShared {
    fn push(&self, item: Item) {
        lock(&self.queue).push(item);
        if !self.armed.swap(true, Ordering::SeqCst) {
            self.wake();
        }
    }

    fn wake(&self) {
        let wake = lock(&self.wake);
        match &*wake {
            #[cfg(unix)]
            Some(Wake::Socket(socket)) => {
                use std::io::Write;
                // WouldBlock means bytes are already waiting: the loop will drain.
                let _ = (&*socket).write(&[1]);
            }
            Some(Wake::Threadsafe {
                call_soon_threadsafe,
                drain,
            }) => {
                let _ = Python::try_attach(|py| {
                    // Fails only when the loop is closed; nobody waits for the result then.
                    let _ = call_soon_threadsafe.call1(py, (drain.clone_ref(py),));
                });
            }
            None => {}
        }
    }
}

/// The reader callback registered with the event loop: makes every queued call and
/// resolves every queued future.
#[pyclass(module = "monapi._native", frozen)]
pub struct _Drain {
    shared: Arc<BridgeShared>,
    #[cfg(unix)]
    reader: Option<std::os::unix::net::UnixStream>,
}

#[pymethods]
impl _Drain {
    fn __call__(&self, py: Python<'_>) {
        // Order matters: consume the wake-up bytes first, then disarm, then take the queue.
        // A completion queued after the disarm writes a new byte (the loop calls us again);
        // one queued before the take is handled now. Disarming first could swallow the byte
        // of a completion that re-armed in between, and the next one would never wake us.
        #[cfg(unix)]
        if let Some(reader) = &self.reader {
            use std::io::Read;
            let mut buf = [0u8; 256];
            while let Ok(n) = (&*reader).read(&mut buf) {
                if n < buf.len() {
                    break;
                }
            }
        }
        self.shared.armed.store(false, Ordering::SeqCst);
        let items = std::mem::take(&mut *lock(&self.shared.queue));
        for item in items {
            let Completion { future, finish } = match item {
                Item::Call(call) => {
                    make_call(py, call);
                    continue;
                }
                Item::Done(completion) => completion,
            };
            let future = future.bind(py);
            if future
                .call_method0(pyo3::intern!(py, "done"))
                .and_then(|d| d.is_truthy())
                .unwrap_or(true)
            {
                continue; // cancelled meanwhile
            }
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| finish(py)))
                .unwrap_or_else(|panic| Err(panic_error(py, &panic_message(&*panic))));
            let _ = match result {
                Ok(value) => future.call_method1(pyo3::intern!(py, "set_result"), (value,)),
                Err(error) => {
                    future.call_method1(pyo3::intern!(py, "set_exception"), (error.into_value(py),))
                }
            };
        }
    }
}

/// The bridge of one event loop.
#[derive(Clone)]
pub(super) struct LoopBridge {
    shared: Arc<BridgeShared>,
}

impl LoopBridge {
    /// Queues `item` for the loop, waking it unless a wake-up is pending.
    pub(super) fn push(&self, item: Item) {
        self.shared.push(item);
    }
}

static BRIDGES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ASYNCIO_GET_RUNNING_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Holds a bridge in the per-loop registry (a `WeakKeyDictionary` keyed by the loop).
#[pyclass(module = "monapi._native", frozen)]
struct _BridgeRef {
    bridge: LoopBridge,
}

pub(super) fn running_loop(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let get = ASYNCIO_GET_RUNNING_LOOP.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("asyncio")?.getattr("get_running_loop")?.unbind())
    })?;
    get.bind(py).call0().map_err(|_| {
        PyRuntimeError::new_err(
            "AsyncClient calls must be awaited inside a running event loop \
             (in a script: asyncio.run(main()); Jupyter already runs one)",
        )
    })
}

pub(super) fn bridge_for(py: Python<'_>, event_loop: &Bound<'_, PyAny>) -> PyResult<LoopBridge> {
    let registry = BRIDGES
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("weakref")?
                    .getattr("WeakKeyDictionary")?
                    .call0()?
                    .unbind(),
            )
        })?
        .bind(py);
    let pid = std::process::id();
    if let Ok(found) = registry.call_method1("get", (event_loop,))?.cast::<_BridgeRef>() {
        let bridge = found.get().bridge.clone();
        if bridge.shared.pid == pid {
            return Ok(bridge);
        }
    }
    let shared = Arc::new(BridgeShared {
        pid,
        queue: Mutex::new(Vec::new()),
        armed: AtomicBool::new(false),
        wake: Mutex::new(None),
    });
    let wake = socket_wake(py, event_loop, &shared).or_else(|_| threadsafe_wake(py, event_loop, &shared))?;
    *lock(&shared.wake) = Some(wake);
    let bridge = LoopBridge { shared };
    registry.set_item(
        event_loop,
        Bound::new(
            py,
            _BridgeRef {
                bridge: bridge.clone(),
            },
        )?,
    )?;
    Ok(bridge)
}

#[cfg(unix)]
fn socket_wake(py: Python<'_>, event_loop: &Bound<'_, PyAny>, shared: &Arc<BridgeShared>) -> PyResult<Wake> {
    use std::os::fd::AsRawFd;
    let (reader, writer) = std::os::unix::net::UnixStream::pair()?;
    reader.set_nonblocking(true)?;
    writer.set_nonblocking(true)?;
    let fd = reader.as_raw_fd();
    let drain = Bound::new(
        py,
        _Drain {
            shared: shared.clone(),
            reader: Some(reader),
        },
    )?;
    // The loop keeps `drain` (and so the reading end) for as long as it exists.
    event_loop.call_method1("add_reader", (fd, drain))?;
    Ok(Wake::Socket(writer))
}

#[cfg(not(unix))]
fn socket_wake(_py: Python<'_>, _loop: &Bound<'_, PyAny>, _shared: &Arc<BridgeShared>) -> PyResult<Wake> {
    Err(PyRuntimeError::new_err("no add_reader"))
}

fn threadsafe_wake(
    py: Python<'_>,
    event_loop: &Bound<'_, PyAny>,
    shared: &Arc<BridgeShared>,
) -> PyResult<Wake> {
    let drain = Bound::new(
        py,
        _Drain {
            shared: shared.clone(),
            #[cfg(unix)]
            reader: None,
        },
    )?;
    Ok(Wake::Threadsafe {
        call_soon_threadsafe: event_loop.getattr("call_soon_threadsafe")?.unbind(),
        drain: drain.into_any().unbind(),
    })
}
