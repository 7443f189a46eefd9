//! The asyncio bridge: awaiting an `AsyncClient` call runs its future on the runtime and
//! hands the result back to the event loop.
//!
//! Async calls do not take the GIL on tokio's threads: a finished call is queued on its
//! event loop's [`LoopBridge`] and the loop is woken through a socket pair it watches
//! (`loop.add_reader`), so the Python objects are built on the loop's own thread, many
//! results per wake-up. Loops without `add_reader` (e.g. the Windows proactor) are woken
//! with `call_soon_threadsafe` instead. The Python calls a running operation asks for (its
//! progress callback, `job::call_soon`) travel the same way, queued in order before its
//! result.
//!
//! This bridge stands in for the usual crate, pyo3-async-runtimes: that crate resolves each
//! asyncio future from a tokio thread that takes the GIL and calls `call_soon_threadsafe`
//! once per completion, so with 1,000 calls in flight the runtime's threads queue for the
//! GIL behind the event loop, one wake-up per result. Here the runtime never waits for the
//! GIL, and the loop drains every finished call in one go. It stays only while it measurably
//! beats that crate on the same calls: `bench/python/bridge.py` (`make python-bench`, which
//! builds the cargo feature `bench-bridge`) compares the two; figures in `bench/RESULTS.md`.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use pyo3::exceptions::{PyRuntimeError, PyStopIteration};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tokio::task::AbortHandle;

use crate::blocking::convert_guarded;
use crate::errors::{panic_error, panic_message};
use crate::job::{make_call, with_calls, CallSink, Failure, Job, PyCall};
use crate::runtime::{lock, runtime};

/// A finished operation on its way back to the event loop: the asyncio future to resolve
/// and a closure that builds the result (or the exception) under the GIL.
struct Completion {
    future: Py<PyAny>,
    finish: Finish,
}

/// What the loop is handed, in the order it was queued.
enum Item {
    /// A Python call a running operation asked for.
    Call(PyCall),
    Done(Completion),
}

/// Builds the result of a finished operation (or its exception) under the GIL.
pub(crate) type Finish = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

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
struct LoopBridge {
    shared: Arc<BridgeShared>,
}

static BRIDGES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ASYNCIO_GET_RUNNING_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Holds a bridge in the per-loop registry (a `WeakKeyDictionary` keyed by the loop).
#[pyclass(module = "monapi._native", frozen)]
struct _BridgeRef {
    bridge: LoopBridge,
}

fn running_loop(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
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

fn bridge_for(py: Python<'_>, event_loop: &Bound<'_, PyAny>) -> PyResult<LoopBridge> {
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

/// Work an [`Awaitable`] resolves to.
enum Pending {
    /// Not started: starts on the first `send()`, inside the running loop.
    Start(ErasedJob),
    /// Already known (an item buffered by an iterator, or an error).
    Ready(PyResult<Py<PyAny>>),
    /// Running on the runtime; `future` is the asyncio future the loop waits on.
    Running {
        future: Py<PyAny>,
        abort: AbortHandle,
    },
    Finished,
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
        if let Pending::Running { abort, .. } = &*lock(&self.state) {
            abort.abort();
        }
    }
}

impl Awaitable {
    /// An awaitable running `job` on the runtime and converting its result on the loop.
    pub fn new<T: Send + 'static>(name: &'static str, job: Job<T>) -> Awaitable {
        Awaitable {
            name,
            state: Mutex::new(Pending::Start(erase(job))),
        }
    }

    /// The job of an awaitable not yet started, to run it through another asyncio bridge
    /// (the benchmark of this one against pyo3-async-runtimes). It then cannot be awaited.
    #[cfg(feature = "bench-bridge")]
    pub(crate) fn take_job(&self) -> Option<ErasedJob> {
        let mut state = lock(&self.state);
        match std::mem::replace(&mut *state, Pending::Finished) {
            Pending::Start(job) => Some(job),
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
            Pending::Start(job) => {
                drop(state);
                let event_loop = running_loop(py)?;
                let bridge = bridge_for(py, &event_loop)?;
                let future = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
                let abort = spawn_job(bridge, future.clone().unbind(), job);
                future.setattr(pyo3::intern!(py, "_asyncio_future_blocking"), true)?;
                *lock(&self.state) = Pending::Running {
                    future: future.clone().unbind(),
                    abort,
                };
                Ok(future.unbind())
            }
            Pending::Ready(Ok(value)) => Err(PyStopIteration::new_err((value,))),
            Pending::Ready(Err(error)) => Err(error),
            Pending::Running { future, abort } => {
                let bound = future.bind(py);
                if bound.call_method0(pyo3::intern!(py, "done"))?.is_truthy()? {
                    drop(state);
                    let value = bound.call_method0(pyo3::intern!(py, "result"))?;
                    Err(PyStopIteration::new_err((value.unbind(),)))
                } else {
                    // Woken early: wait on the same future again.
                    bound.setattr(pyo3::intern!(py, "_asyncio_future_blocking"), true)?;
                    *state = Pending::Running {
                        future: future.clone_ref(py),
                        abort,
                    };
                    Ok(future)
                }
            }
            Pending::Finished => Err(PyRuntimeError::new_err(format!(
                "cannot reuse an already awaited {}() call",
                self.name
            ))),
        }
    }

    fn stop(&self, py: Python<'_>) {
        let previous = std::mem::replace(&mut *lock(&self.state), Pending::Finished);
        if let Pending::Running { future, abort } = previous {
            abort.abort();
            let _ = future.bind(py).call_method0("cancel");
        }
    }
}

fn spawn_job(bridge: LoopBridge, future: Py<PyAny>, job: ErasedJob) -> AbortHandle {
    let shared = bridge.shared.clone();
    let sink: CallSink = Arc::new(move |call| shared.push(Item::Call(call)));
    let handle = runtime().spawn(with_calls(sink, async move {
        let finish = job.await;
        bridge.shared.push(Item::Done(Completion { future, finish }));
    }));
    handle.abort_handle()
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
        self.stop(py);
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
        Err(PyErr::from_value(exception))
    }

    /// Part of the coroutine protocol: cancel the call (nothing of it runs on).
    ///
    /// Examples
    /// --------
    /// >>> awaitable = client.agents()
    /// >>> awaitable.close()   # never awaited: no request is made
    fn close(&self, py: Python<'_>) {
        self.stop(py);
    }

    fn __repr__(&self) -> String {
        format!("<monapi awaitable {}()>", self.name)
    }
}
