//! Conversions: parsed response bodies (tapes) to Python objects, Python values to JSON for
//! requests, tokens, dates.

use std::cell::RefCell;
use std::sync::mpsc::Receiver;

use bytes::Bytes;
use monapi::RawResponse;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use crate::errors::{panic_error, to_pyerr, validation};
use crate::tape::{parse_chunked, Node, Tape, CHUNK_NODES};

// ---------------------------------------------------------------------------------------
// JSON bytes -> Python
// ---------------------------------------------------------------------------------------

/// Keys up to this length are cached (and interned when they look like names, not like ids
/// or timestamps).
const MAX_CACHED_KEY: usize = 48;
const KEY_SETS: usize = 1024;
/// Strings up to 7 bytes are cached by their bytes packed into one word with their length:
/// reports repeat the same short values (`"00:05"`, `"100.00"`, `"启用"`) and field names
/// (`"time"`, `"uprate"`) thousands of times. Longer values are mostly distinct
/// (measurements, timestamps), where a cache only adds misses.
const MAX_SHORT: usize = 7;
const SHORT_SET_BITS: u32 = 12;

/// A new Python `str` from UTF-8 bytes (the tape's strings are checked UTF-8), interned if
/// asked.
fn new_string<'py>(py: Python<'py>, text: &[u8], intern: bool) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the GIL is held; the pointer and length describe `text`.
    unsafe {
        let mut ptr = ffi::PyUnicode_FromStringAndSize(text.as_ptr().cast(), text.len() as ffi::Py_ssize_t);
        if intern && !ptr.is_null() {
            ffi::PyUnicode_InternInPlace(&mut ptr);
        }
        Bound::from_owned_ptr_or_err(py, ptr)
    }
}

/// Whether a key is a name worth interning: not an id or a timestamp (`"1795219200"`), of
/// which there are too many to keep for the life of the process.
fn is_name(text: &[u8]) -> bool {
    !text.first().is_some_and(u8::is_ascii_digit)
}

/// A two-way set-associative cache of strings of up to [`MAX_SHORT`] bytes, keyed by the
/// bytes packed into one word with their length. Entries count their hits (up to
/// [`MAX_HITS`]); a miss only evicts an entry whose count has run down to zero, and counts it
/// down otherwise. Reports interleave values that recur on every record or every day (`"00:05"`,
/// `"100.00"`) with measurements that rarely recur: the former stay, the latter pass through.
struct ShortCache {
    slots: Box<[ShortEntry]>,
}

#[derive(Default)]
struct ShortEntry {
    packed: u64,
    hits: u32,
    string: Option<Py<PyAny>>,
}

impl ShortEntry {
    fn holds(&self, packed: u64) -> bool {
        self.packed == packed && self.string.is_some()
    }

    fn hit(&mut self) -> *mut ffi::PyObject {
        self.hits = (self.hits + 1).min(MAX_HITS);
        self.string.as_ref().map_or(std::ptr::null_mut(), Py::as_ptr)
    }
}

const MAX_HITS: u32 = 8;

/// Up to 7 bytes and their length in one word, without a call to `memcpy`: two overlapping
/// 4-byte reads, or three 1-byte reads.
#[inline]
fn pack(text: &[u8]) -> u64 {
    let n = text.len();
    debug_assert!(n <= MAX_SHORT);
    let bytes = if n >= 4 {
        let low = u32::from_le_bytes([text[0], text[1], text[2], text[3]]);
        let high = u32::from_le_bytes([text[n - 4], text[n - 3], text[n - 2], text[n - 1]]);
        u64::from(low) | (u64::from(high) << ((n - 4) * 8))
    } else if n > 0 {
        u64::from(text[0])
            | (u64::from(text[n / 2]) << (n / 2 * 8))
            | (u64::from(text[n - 1]) << ((n - 1) * 8))
    } else {
        0
    };
    bytes | ((n as u64) << 56)
}

impl ShortCache {
    fn new() -> ShortCache {
        ShortCache {
            slots: (0..2usize << SHORT_SET_BITS)
                .map(|_| ShortEntry::default())
                .collect(),
        }
    }

    /// The string for `text` (at most [`MAX_SHORT`] bytes): borrowed from the cache (valid
    /// until the next call on this cache), or a new one when it is not worth caching.
    #[inline]
    fn get<'py>(&mut self, py: Python<'py>, text: &[u8], intern: bool) -> PyResult<Element<'py>> {
        let packed = pack(text);
        let set = (packed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SHORT_SET_BITS)) as usize;
        let ways = &mut self.slots[2 * set..2 * set + 2];
        if ways[0].holds(packed) {
            return Ok(Element::Borrowed(ways[0].hit()));
        }
        if ways[1].holds(packed) {
            let ptr = ways[1].hit();
            if ways[1].hits > ways[0].hits {
                ways.swap(0, 1);
            }
            return Ok(Element::Borrowed(ptr));
        }
        let string = new_string(py, text, intern)?;
        if ways[1].hits > 0 {
            ways[1].hits -= 1;
            return Ok(Element::Owned(string));
        }
        let ptr = string.as_ptr();
        ways[1] = ShortEntry {
            packed,
            hits: 1,
            string: Some(string.unbind()),
        };
        Ok(Element::Borrowed(ptr))
    }
}

/// A two-way set-associative cache (as [`ShortCache`]) of keys of up to [`MAX_CACHED_KEY`]
/// bytes, bytes kept inline.
struct KeyCache {
    slots: Box<[KeySlot]>,
}

struct KeySlot {
    len: usize,
    bytes: [u8; MAX_CACHED_KEY],
    string: Option<Py<PyAny>>,
}

impl KeySlot {
    fn holds(&self, text: &[u8]) -> bool {
        self.string.is_some() && self.len == text.len() && self.bytes[..text.len()] == *text
    }
}

impl KeyCache {
    fn new() -> KeyCache {
        KeyCache {
            slots: (0..2 * KEY_SETS)
                .map(|_| KeySlot {
                    len: 0,
                    bytes: [0; MAX_CACHED_KEY],
                    string: None,
                })
                .collect(),
        }
    }

    /// As [`ShortCache::get`], for `text` of at most [`MAX_CACHED_KEY`] bytes.
    fn get(&mut self, py: Python<'_>, text: &[u8], intern: bool) -> PyResult<*mut ffi::PyObject> {
        let set = hash(text) as usize % KEY_SETS;
        let ways = &mut self.slots[2 * set..2 * set + 2];
        if !ways[0].holds(text) {
            if ways[1].holds(text) {
                ways.swap(0, 1);
            } else {
                let string = new_string(py, text, intern)?.unbind();
                ways.swap(0, 1);
                let slot = &mut ways[0];
                slot.len = text.len();
                slot.bytes[..text.len()].copy_from_slice(text);
                slot.string = Some(string);
            }
        }
        Ok(ways[0].string.as_ref().map_or(std::ptr::null_mut(), Py::as_ptr))
    }
}

/// FxHash over the key's bytes.
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }
    h
}

/// The string caches of one thread. Keys and values have separate caches, so that a
/// value's lookup never evicts the key it is about to be stored under (see
/// [`Builder::object`]).
struct Caches {
    short_keys: ShortCache,
    keys: KeyCache,
    short_values: ShortCache,
}

impl Caches {
    fn new() -> Caches {
        Caches {
            short_keys: ShortCache::new(),
            keys: KeyCache::new(),
            short_values: ShortCache::new(),
        }
    }
}

thread_local! {
    static CACHES: RefCell<Caches> = RefCell::new(Caches::new());
}

/// A value on its way into a container: borrowed from a cache (or a singleton such as
/// `None`), or a new reference.
enum Element<'py> {
    Borrowed(*mut ffi::PyObject),
    Owned(Bound<'py, PyAny>),
}

impl<'py> Element<'py> {
    fn as_ptr(&self) -> *mut ffi::PyObject {
        match self {
            Element::Borrowed(ptr) => *ptr,
            Element::Owned(value) => value.as_ptr(),
        }
    }

    fn into_owned(self, py: Python<'py>) -> Bound<'py, PyAny> {
        match self {
            // SAFETY: a borrowed pointer is alive (held by a cache or static): take a reference.
            Element::Borrowed(ptr) => unsafe { Bound::from_borrowed_ptr(py, ptr) },
            Element::Owned(value) => value,
        }
    }
}

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
    chunks: Option<Receiver<Chunk>>,
    /// What a parse error (reported with a later chunk) becomes.
    decode_error: &'a dyn Fn(serde_json::Error) -> PyErr,
    caches: &'a mut Caches,
    /// The items of the lists being built, innermost last.
    items: Vec<Bound<'py, PyAny>>,
}

/// A chunk of a tape from [`parse_chunked`], or the error that ended the parse.
type Chunk = Result<Tape, serde_json::Error>;

enum Current<'a> {
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
        let Some(chunks) = self.chunks.take() else {
            return Err(PyValueError::new_err("malformed tape: it ends inside a value"));
        };
        let (chunks, message) = self.py.detach(move || {
            let message = chunks.recv();
            (chunks, message)
        });
        self.chunks = Some(chunks);
        match message {
            Ok(Ok(chunk)) => {
                self.tape = Current::Chunk(chunk);
                self.pos = 0;
                Ok(())
            }
            Ok(Err(error)) => Err((self.decode_error)(error)),
            // The parse panicked (a bug): an error, as every other panic.
            Err(_) => Err(panic_error(self.py, "the thread parsing the response stopped")),
        }
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
/// or its first chunk with `chunks` bringing the rest.
fn build<'py>(
    py: Python<'py>,
    body: &[u8],
    tape: Current<'_>,
    chunks: Option<Receiver<Chunk>>,
    decode_error: &dyn Fn(serde_json::Error) -> PyErr,
) -> PyResult<Bound<'py, PyAny>> {
    // The objects built here hold no reference cycles: the cyclic garbage collector, which
    // allocating thousands of dicts would otherwise set off again and again, has nothing to
    // find in them. It is paused for large bodies and resumed after (its counts still add up).
    let large = body.len() >= GC_PAUSE_FROM;
    let _paused = large.then(GcPause::new);
    let run = |caches: &mut Caches| {
        let mut builder = Builder {
            py,
            body,
            tape,
            pos: 0,
            chunks,
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
    build(py, bytes, Current::Whole(&tape), None, &value_error)
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
            Parsed::Whole { raw, tape } => {
                let decode_error = |error: serde_json::Error| to_pyerr(py, raw.decode_error(error));
                let tape = tape.map_err(decode_error)?;
                build(py, raw.body(), Current::Whole(&tape), None, &decode_error).map(Bound::unbind)
            }
            Parsed::Streamed { raw, chunks } => {
                let decode_error = |error: serde_json::Error| to_pyerr(py, raw.decode_error(error));
                build(
                    py,
                    raw.body(),
                    Current::Chunk(Tape::default()),
                    Some(chunks),
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

/// `_loads(data)`: the response decoder on its own, for benchmarks and tests (what every
/// operation applies to the body it receives).
#[pyfunction]
pub fn _loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    json_to_py(py, data)
}

/// `_loads_chunked(data, chunk_nodes)`: the decoder as the blocking client runs it on a
/// large body (parsed on another thread in chunks of `chunk_nodes` nodes while this thread
/// builds), for tests: small chunks put chunk boundaries everywhere.
#[pyfunction]
pub fn _loads_chunked<'py>(py: Python<'py>, data: &[u8], chunk_nodes: usize) -> PyResult<Bound<'py, PyAny>> {
    let spawn = |parse: Box<dyn FnOnce() + Send>| drop(std::thread::spawn(parse));
    let chunks = spawn_parser(spawn, Bytes::copy_from_slice(data), chunk_nodes);
    let value_error = |error: serde_json::Error| PyValueError::new_err(error.to_string());
    build(
        py,
        data,
        Current::Chunk(Tape::default()),
        Some(chunks),
        &value_error,
    )
}

/// A `serde_json::Value` as Python objects (through its text: rare and small).
pub fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_vec(value).map_err(|e| PyTypeError::new_err(e.to_string()))?;
    json_to_py(py, &text)
}

// ---------------------------------------------------------------------------------------
// Python -> JSON
// ---------------------------------------------------------------------------------------

/// Why a Python value cannot be sent: where it is (`task_type[2]`) and what it is.
pub struct NotJson {
    pub path: String,
    pub rule: String,
}

/// A Python value as JSON: `dict` (str keys), `list`/`tuple` (and other sequences), `str`,
/// `int`, `float`, `bool`, `None`.
pub fn py_to_json(value: &Bound<'_, PyAny>) -> Result<Value, NotJson> {
    let mut path = String::new();
    to_json(value, &mut path, 0)
}

fn to_json(value: &Bound<'_, PyAny>, path: &mut String, depth: usize) -> Result<Value, NotJson> {
    let fail = |path: &str, rule: String| NotJson {
        path: path.to_string(),
        rule,
    };
    if depth > 64 {
        return Err(fail(path, "is nested too deeply".into()));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        let text = s.to_str().map_err(|_| fail(path, "must be valid text".into()))?;
        return Ok(Value::String(text.to_string()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = value.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(fail(path, "is an integer too large to send".into()));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| fail(path, "must be a finite number".into()));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            map.insert(json_key(&key, path)?, child(path, &key, &item, depth)?);
        }
        return Ok(Value::Object(map));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return sequence(value, path, depth);
    }
    if let Ok(mapping) = value.cast::<PyMapping>() {
        let mut map = Map::new();
        let items = mapping
            .items()
            .map_err(|e| fail(path, format!("cannot be read as a mapping: {e}")))?;
        for pair in items.iter() {
            let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair
                .extract()
                .map_err(|_| fail(path, "has a malformed item".into()))?;
            map.insert(json_key(&key, path)?, child(path, &key, &item, depth)?);
        }
        return Ok(Value::Object(map));
    }
    if value.cast::<PySequence>().is_ok() && !value.is_instance_of::<pyo3::types::PyBytes>() {
        return sequence(value, path, depth);
    }
    let type_name = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    Err(fail(
        path,
        format!("must be a str, int, float, bool, None, list or dict, not {type_name}"),
    ))
}

fn json_key(key: &Bound<'_, PyAny>, path: &str) -> Result<String, NotJson> {
    key.cast::<PyString>()
        .ok()
        .and_then(|k| k.to_str().ok().map(str::to_string))
        .ok_or_else(|| NotJson {
            path: path.to_string(),
            rule: "must have string keys".into(),
        })
}

fn child(
    path: &mut String,
    key: &Bound<'_, PyAny>,
    item: &Bound<'_, PyAny>,
    depth: usize,
) -> Result<Value, NotJson> {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(&key.to_string());
    let value = to_json(item, path, depth + 1);
    path.truncate(len);
    value
}

fn sequence(value: &Bound<'_, PyAny>, path: &mut String, depth: usize) -> Result<Value, NotJson> {
    let iter = value.try_iter().map_err(|_| NotJson {
        path: path.clone(),
        rule: "cannot be iterated".into(),
    })?;
    let mut out = Vec::new();
    for (i, item) in iter.enumerate() {
        let item = item.map_err(|e| NotJson {
            path: path.clone(),
            rule: format!("cannot be iterated: {e}"),
        })?;
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        let converted = to_json(&item, path, depth + 1);
        path.truncate(len);
        out.push(converted?);
    }
    Ok(Value::Array(out))
}

/// A create batch from Python: a list (or other sequence) of dicts, each checked by the
/// core (`ServerTask::batch_from_json`: errors name the task's index and the field).
pub fn server_tasks(py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Vec<monapi::ServerTask>> {
    if tasks.is_instance_of::<PyString>()
        || tasks.is_instance_of::<PyDict>()
        || tasks.cast::<PySequence>().is_err()
    {
        return Err(PyTypeError::new_err(
            "tasks must be a list of task dicts (one dict per server task)",
        ));
    }
    let mut values = Vec::new();
    for (index, task) in tasks.try_iter()?.enumerate() {
        let task = task?;
        let value = py_to_json(&task).map_err(|e| validation(py, Some(index), &e.path, &e.rule))?;
        values.push(value);
    }
    let batch = Value::Array(values);
    monapi::ServerTask::batch_from_json(batch).map_err(|e| crate::errors::to_pyerr(py, e))
}

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

static TOKEN_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A token as `monapi.Token` (a dict whose repr shows only the expiry).
pub fn token_to_py<'py>(py: Python<'py>, token: &monapi::Token) -> PyResult<Bound<'py, PyAny>> {
    let dict = PyDict::new(py);
    dict.set_item("access_token", token.access_token.expose())?;
    dict.set_item("refresh_token", token.refresh_token.as_ref().map(|t| t.expose()))?;
    dict.set_item("expires_in", token.expires_in)?;
    dict.set_item("expires_at", token.expires_at)?;
    dict.set_item("token_type", &token.token_type)?;
    match &token.scope {
        Some(scope) => dict.set_item("scope", value_to_py(py, scope)?)?,
        None => dict.set_item("scope", py.None())?,
    }
    let class = TOKEN_CLASS.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("monapi._token")?.getattr("Token")?.unbind())
    })?;
    class.bind(py).call1((dict,))
}

/// A saved token (a dict with at least `access_token` and `expires_in`) for the core.
pub fn token_from_py(py: Python<'_>, token: &Bound<'_, PyAny>) -> PyResult<monapi::Token> {
    if token.cast::<PyMapping>().is_err() && !token.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(
            "token must be a dict as returned by client.token (or passed to on_token)",
        ));
    }
    let value = py_to_json(token).map_err(|e| validation(py, None, &format!("token.{}", e.path), &e.rule))?;
    serde_json::from_value::<monapi::Token>(value).map_err(|e| {
        // serde's text names the field and the expected type, never a token value (the
        // values it could quote are numbers or the wrong type).
        validation(py, None, "token", &format!("is not a saved token: {e}"))
    })
}

// ---------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------

static DATE_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A `datetime.date` (or `datetime`), or a `"YYYY-MM-DD"` string, as that string.
pub fn date_text(py: Python<'_>, value: Option<&Bound<'_, PyAny>>, field: &str) -> PyResult<Option<String>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Some(text.to_str()?.to_string()));
    }
    let date_type = DATE_TYPE.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("datetime")?.getattr("date")?.unbind())
    })?;
    if value.is_instance(date_type.bind(py))? {
        let year: i32 = value.getattr("year")?.extract()?;
        let month: u32 = value.getattr("month")?.extract()?;
        let day: u32 = value.getattr("day")?.extract()?;
        return Ok(Some(format!("{year:04}-{month:02}-{day:02}")));
    }
    Err(PyTypeError::new_err(format!(
        "{field} must be a datetime.date or a 'YYYY-MM-DD' string"
    )))
}

/// The report period from the two optional dates; errors name `start_date` or `end_date`.
pub fn date_range(
    py: Python<'_>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
) -> PyResult<monapi::DateRange> {
    let start = date_text(py, start, "start_date")?;
    let end = date_text(py, end, "end_date")?;
    monapi::DateRange::parse(start.as_deref(), end.as_deref()).map_err(|e| crate::errors::to_pyerr(py, e))
}

/// A whole number of 0 or more given as an `int` or a string of digits (the service's lists
/// send ids as strings); `None` for anything else.
fn whole_number(value: &Bound<'_, PyAny>) -> Option<u64> {
    if value.is_instance_of::<PyBool>() {
        return None;
    }
    if value.is_instance_of::<PyInt>() {
        return value.extract::<u64>().ok();
    }
    value.cast::<PyString>().ok()?.to_str().ok()?.trim().parse().ok()
}

/// A task id: a positive `int`, or a string of its digits.
pub fn task_id(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    match whole_number(value) {
        Some(id) if id > 0 => Ok(id),
        _ if value.is_instance_of::<PyBool>() => Err(PyTypeError::new_err(
            "task_id must be an int or a string of digits",
        )),
        _ if value.is_instance_of::<PyInt>() => {
            Err(validation(py, None, "task_id", "must be a positive whole number"))
        }
        _ => match value.cast::<PyString>() {
            Ok(text) => Err(validation(
                py,
                None,
                "task_id",
                &format!("must be a positive whole number, not {:?}", text.to_str()?),
            )),
            Err(_) => Err(PyTypeError::new_err(
                "task_id must be an int or a string of digits",
            )),
        },
    }
}

/// `monitor`: None = every point, 0 = the average, n = one point.
pub fn monitor(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<monapi::Monitor> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(monapi::Monitor::All);
    };
    let id = whole_number(value).ok_or_else(|| {
        validation(
            py,
            None,
            "monitor",
            "must be None (every point), 0 (the average) or a monitoring point id",
        )
    })?;
    Ok(if id == 0 {
        monapi::Monitor::Average
    } else {
        monapi::Monitor::Point(id)
    })
}
