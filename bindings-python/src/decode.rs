//! Response bodies to Python objects: the body is parsed into a tape without the GIL
//! (`tape.rs`), and the thread that holds the GIL builds the objects from it.

use std::sync::mpsc::Receiver;

use bytes::Bytes;
use monapi::RawResponse;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};
use serde_json::Value;

use crate::errors::{panic_error, to_pyerr};
use crate::strings::{is_name, new_string, Caches, Element, CACHES, MAX_CACHED_KEY, MAX_SHORT};
use crate::tape::{parse_chunked, Node, Tape, CHUNK_NODES};

/// Builds Python objects from a tape, with the GIL held. Most time goes into creating the
/// objects, so the hot paths use the C API directly: cached strings go into dicts as
/// borrowed pointers (no reference-count calls), and list items are moved, not copied.
struct Builder<'a, 'py> {
    py: Python<'py>,
    body: &'a [u8],
    /// The tape, or the chunk of it being read.
    tape: Current<'a>,
    pos: usize,
    /// Where the next chunks come from, when the body is parsed while this builds.
    source: Source<'a>,
    /// What a parse error (reported with a later chunk) becomes.
    decode_error: &'a dyn Fn(serde_json::Error) -> PyErr,
    caches: &'a mut Caches,
    /// The items of the lists being built, innermost last.
    items: Vec<Bound<'py, PyAny>>,
}

/// A chunk of a tape from [`parse_chunked`], or the error that ended the parse.
type Chunk = Result<Tape, serde_json::Error>;

/// Where the chunks of a tape after the first come from.
pub enum Source<'a> {
    /// Nowhere: the tape is whole.
    Whole,
    /// A whole body parsed on another thread ([`parse_chunked`]).
    Parsed(Receiver<Chunk>),
    /// A body parsed as it arrives; a build it interrupts fails, and it knows why.
    Arriving(&'a mut (dyn Arriving + 'static)),
}

/// An answer whose tape comes as the body arrives (`arriving.rs`).
pub trait Arriving: Send {
    /// The next chunk of the tape being built; None when something else came (the build is
    /// interrupted).
    fn next_chunk(&mut self, py: Python<'_>) -> PyResult<Option<Tape>>;

    /// Its Python objects, once the call has ended.
    fn into_py(self: Box<Self>, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

pub enum Current<'a> {
    Whole(&'a Tape),
    Chunk(Tape),
}

impl Current<'_> {
    fn get(&self) -> &Tape {
        match self {
            Current::Whole(tape) => tape,
            Current::Chunk(tape) => tape,
        }
    }
}

impl<'py> Builder<'_, 'py> {
    fn next(&mut self) -> PyResult<Node> {
        loop {
            if let Some(&node) = self.tape.get().nodes.get(self.pos) {
                self.pos += 1;
                return Ok(node);
            }
            self.next_chunk()?;
        }
    }

    /// Waits (without the GIL) for the next chunk of the tape.
    #[cold]
    fn next_chunk(&mut self) -> PyResult<()> {
        let chunk = match &mut self.source {
            Source::Whole => return Err(PyValueError::new_err("malformed tape: it ends inside a value")),
            // Moved in as `&mut`: a shared `Receiver` cannot cross threads.
            Source::Parsed(chunks) => match self.py.detach(move || chunks.recv()) {
                Ok(Ok(chunk)) => chunk,
                Ok(Err(error)) => return Err((self.decode_error)(error)),
                // The parse panicked (a bug): an error, as every other panic.
                Err(_) => return Err(panic_error(self.py, "the thread parsing the response stopped")),
            },
            Source::Arriving(arrival) => match arrival.next_chunk(self.py)? {
                Some(chunk) => chunk,
                None => return Err(PyValueError::new_err("the build was interrupted")),
            },
        };
        self.tape = Current::Chunk(chunk);
        self.pos = 0;
        Ok(())
    }

    fn value(&mut self, node: Node) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match node {
            Node::Int(v) => PyInt::new(py, v).into_any(),
            Node::UInt(v) => PyInt::new(py, v).into_any(),
            Node::Float(v) => PyFloat::new(py, v).into_any(),
            Node::BigInt { .. } => {
                let digits = self.tape.get().text(self.body, node);
                let digits = std::str::from_utf8(digits).map_err(|e| PyValueError::new_err(e.to_string()))?;
                py.get_type::<PyInt>().call1((digits,))?
            }
            Node::Array => self.array()?,
            Node::Object => self.object()?,
            _ => self.element(node)?.into_owned(py),
        })
    }

    /// A dict value or a scalar: strings and singletons borrowed where possible.
    fn element(&mut self, node: Node) -> PyResult<Element<'py>> {
        // SAFETY (the singletons): the GIL is held; None, True and False live forever.
        Ok(match node {
            Node::Str { .. } | Node::Unescaped { .. } => {
                let text = self.tape.get().text(self.body, node);
                if text.len() <= MAX_SHORT {
                    self.caches.short_values.get(self.py, text, false)?
                } else {
                    Element::Owned(new_string(self.py, text, false)?)
                }
            }
            Node::Null => Element::Borrowed(unsafe { ffi::Py_None() }),
            Node::Bool(true) => Element::Borrowed(unsafe { ffi::Py_True() }),
            Node::Bool(false) => Element::Borrowed(unsafe { ffi::Py_False() }),
            Node::End => return Err(PyValueError::new_err("malformed tape: unexpected end")),
            _ => Element::Owned(self.value(node)?),
        })
    }

    fn key(&mut self, node: Node) -> PyResult<Element<'py>> {
        let text = self.tape.get().text(self.body, node);
        Ok(if text.len() <= MAX_SHORT {
            self.caches.short_keys.get(self.py, text, is_name(text))?
        } else if text.len() <= MAX_CACHED_KEY {
            Element::Borrowed(self.caches.keys.get(self.py, text, is_name(text))?)
        } else {
            Element::Owned(new_string(self.py, text, false)?)
        })
    }

    fn object(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        // SAFETY: the GIL is held; a NULL result is turned into the pending exception.
        let dict = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDict_New())? };
        loop {
            let key = self.next()?;
            if let Node::End = key {
                return Ok(dict);
            }
            let value = self.next()?;
            let (key, value) = match value {
                // A container: the key now, as its own reference (its text may be in a chunk
                // that is gone once the container is built, and building it may evict the
                // key from the cache).
                Node::Array | Node::Object => {
                    let key = Element::Owned(self.key(key)?.into_owned(py));
                    (key, Element::Owned(self.value(value)?))
                }
                // A scalar (in the same chunk as its key): the value first, so that looking
                // up the key cannot evict it (keys and values have separate caches).
                _ => {
                    let value = self.element(value)?;
                    (self.key(key)?, value)
                }
            };
            // SAFETY: three live objects; PyDict_SetItem takes its own references.
            if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) } != 0 {
                return Err(PyErr::fetch(py));
            }
        }
    }

    fn array(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let first = self.items.len();
        loop {
            let node = self.next()?;
            if let Node::End = node {
                break;
            }
            let item = self.value(node)?;
            self.items.push(item);
        }
        let len = self.items.len() - first;
        // SAFETY: the GIL is held; a NULL result is turned into the pending exception.
        let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len as ffi::Py_ssize_t))? };
        for (index, item) in self.items.drain(first..).enumerate() {
            // SAFETY: `index` is within the new list, whose slot is empty; the item's
            // reference moves into the list (PyList_SetItem steals it).
            unsafe { ffi::PyList_SetItem(list.as_ptr(), index as ffi::Py_ssize_t, item.into_ptr()) };
        }
        Ok(list)
    }
}

/// Builds the Python objects of a parsed body: dicts (keys in the order sent), lists,
/// `str`, `int`, `float`, `bool`, `None`, values exactly as sent. `tape` is the whole tape,
/// or its first chunk with `source` bringing the rest; `body` is the text its strings point
/// into (none when they were copied into the tape).
pub fn build<'py>(
    py: Python<'py>,
    body: &[u8],
    tape: Current<'_>,
    source: Source<'_>,
    decode_error: &dyn Fn(serde_json::Error) -> PyErr,
) -> PyResult<Bound<'py, PyAny>> {
    // The objects built here hold no reference cycles: the cyclic garbage collector, which
    // allocating thousands of dicts would otherwise set off again and again, has nothing to
    // find in them. It is paused for large bodies and resumed after (its counts still add up).
    let large = body.len() >= GC_PAUSE_FROM || matches!(source, Source::Arriving(_));
    let _paused = large.then(GcPause::new);
    let run = |caches: &mut Caches| {
        let mut builder = Builder {
            py,
            body,
            tape,
            pos: 0,
            source,
            decode_error,
            caches,
            items: Vec::new(),
        };
        let first = builder.next()?;
        builder.value(first)
    };
    CACHES.with(|caches| match caches.try_borrow_mut() {
        Ok(mut caches) => run(&mut caches),
        // Re-entered (a finalizer ran Python code that decoded again): use fresh caches.
        Err(_) => run(&mut Caches::new()),
    })
}

/// Parses and builds in one go (with the GIL held throughout).
pub fn json_to_py<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let value_error = |error: serde_json::Error| PyValueError::new_err(error.to_string());
    let tape = Tape::parse(bytes).map_err(value_error)?;
    build(py, bytes, Current::Whole(&tape), Source::Whole, &value_error)
}

/// Bodies from this size on are built with the cyclic GC paused.
const GC_PAUSE_FROM: usize = 16 * 1024;

/// Bodies from this size on are parsed on a thread of their own: in chunks while the caller
/// builds (blocking client), or whole without holding up a runtime worker (async client).
const OWN_THREAD_FROM: usize = 1 << 20;

/// Pauses Python's cyclic GC while alive (if it was enabled). Needs the GIL (held by the
/// caller of [`build`] for the guard's whole life).
struct GcPause {
    was_enabled: bool,
}

impl GcPause {
    fn new() -> GcPause {
        // SAFETY: called with the GIL held (build takes `Python`).
        GcPause {
            was_enabled: unsafe { ffi::PyGC_Disable() } == 1,
        }
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: as in `new`.
            unsafe { ffi::PyGC_Enable() };
        }
    }
}

/// A response with its body parsed, or being parsed, into a tape without the GIL; turned
/// into Python objects by [`Parsed::into_py`].
pub enum Parsed {
    Whole {
        raw: RawResponse,
        tape: Result<Tape, serde_json::Error>,
    },
    Streamed {
        raw: RawResponse,
        chunks: Receiver<Chunk>,
    },
    /// Still arriving: built as it comes.
    Arriving(Box<dyn Arriving>),
}

impl Parsed {
    /// For the event loop: the whole tape, parsed on the runtime (a large body on a
    /// blocking thread, not on a worker that other requests need).
    pub async fn whole(raw: RawResponse) -> Parsed {
        if raw.body().len() < OWN_THREAD_FROM {
            let tape = Tape::parse(raw.body());
            return Parsed::Whole { raw, tape };
        }
        let body = raw.body().clone();
        match tokio::task::spawn_blocking(move || Tape::parse(&body)).await {
            Ok(tape) => Parsed::Whole { raw, tape },
            Err(join) => std::panic::resume_unwind(join.into_panic()),
        }
    }

    /// For a caller that waits for the result: a large body is parsed in chunks on another
    /// thread while the caller builds the objects of the chunks already parsed.
    pub fn streamed(raw: RawResponse) -> Parsed {
        if raw.body().len() < OWN_THREAD_FROM {
            let tape = Tape::parse(raw.body());
            return Parsed::Whole { raw, tape };
        }
        let body = raw.body().clone();
        let chunks = spawn_parser(
            |parse| drop(tokio::task::spawn_blocking(parse)),
            body,
            CHUNK_NODES,
        );
        Parsed::Streamed { raw, chunks }
    }

    pub fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Parsed::Arriving(arrival) => arrival.into_py(py),
            Parsed::Whole { raw, tape } => {
                let decode_error = |error: serde_json::Error| to_pyerr(py, raw.decode_error(error));
                let tape = tape.map_err(decode_error)?;
                build(
                    py,
                    raw.body(),
                    Current::Whole(&tape),
                    Source::Whole,
                    &decode_error,
                )
                .map(Bound::unbind)
            }
            Parsed::Streamed { raw, chunks } => {
                let decode_error = |error: serde_json::Error| to_pyerr(py, raw.decode_error(error));
                build(
                    py,
                    raw.body(),
                    Current::Chunk(Tape::default()),
                    Source::Parsed(chunks),
                    &decode_error,
                )
                .map(Bound::unbind)
            }
        }
    }
}

/// Starts the chunked parse of `body` with `spawn` (a few chunks ahead of the builder at
/// most, so that the parse cannot run away with memory); returns where the chunks arrive.
fn spawn_parser(
    spawn: impl FnOnce(Box<dyn FnOnce() + Send>),
    body: Bytes,
    chunk_nodes: usize,
) -> Receiver<Chunk> {
    let (sender, chunks) = std::sync::mpsc::sync_channel(8);
    spawn(Box::new(move || parse_chunked(&body, chunk_nodes, sender)));
    chunks
}

/// The response decoder on its own: ``data``, a JSON body, as the Python objects every
/// operation makes of the body it receives. For benchmarks and tests; not public API.
#[pyfunction]
pub fn _loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    json_to_py(py, data)
}

/// The decoder as the blocking client runs it on a large body: parsed on another thread in
/// chunks of ``chunk_nodes`` nodes while this thread builds. For tests (small chunks put
/// chunk boundaries everywhere); not public API.
#[pyfunction]
pub fn _loads_chunked<'py>(py: Python<'py>, data: &[u8], chunk_nodes: usize) -> PyResult<Bound<'py, PyAny>> {
    let spawn = |parse: Box<dyn FnOnce() + Send>| drop(std::thread::spawn(parse));
    let chunks = spawn_parser(spawn, Bytes::copy_from_slice(data), chunk_nodes);
    let value_error = |error: serde_json::Error| PyValueError::new_err(error.to_string());
    build(
        py,
        data,
        Current::Chunk(Tape::default()),
        Source::Parsed(chunks),
        &value_error,
    )
}

/// A `serde_json::Value` as Python objects (through its text: rare and small).
pub fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_vec(value).map_err(|e| PyTypeError::new_err(e.to_string()))?;
    json_to_py(py, &text)
}
