//! Python strings for the decoder: caches of the keys and short values that reports repeat
//! thousands of times, so that each is created once and put into dicts as a borrowed pointer.

use std::cell::RefCell;

use pyo3::ffi;
use pyo3::prelude::*;

/// Keys up to this length are cached (and interned when they look like names, not like ids
/// or timestamps).
pub(crate) const MAX_CACHED_KEY: usize = 48;
const KEY_SETS: usize = 1024;
/// Strings up to 7 bytes are cached by their bytes packed into one word with their length:
/// reports repeat the same short values (`"00:05"`, `"100.00"`, `"启用"`) and field names
/// (`"time"`, `"uprate"`) thousands of times. Longer values are mostly distinct
/// (measurements, timestamps), where a cache only adds misses.
pub(crate) const MAX_SHORT: usize = 7;
const SHORT_SET_BITS: u32 = 12;

/// A new Python `str` from UTF-8 bytes (the tape's strings are checked UTF-8), interned if
/// asked.
pub(crate) fn new_string<'py>(py: Python<'py>, text: &[u8], intern: bool) -> PyResult<Bound<'py, PyAny>> {
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
pub(crate) fn is_name(text: &[u8]) -> bool {
    !text.first().is_some_and(u8::is_ascii_digit)
}

/// A two-way set-associative cache of strings of up to [`MAX_SHORT`] bytes, keyed by the
/// bytes packed into one word with their length. Entries count their hits (up to
/// [`MAX_HITS`]); a miss only evicts an entry whose count has run down to zero, and counts it
/// down otherwise. Reports interleave values that recur on every record or every day (`"00:05"`,
/// `"100.00"`) with measurements that rarely recur: the former stay, the latter pass through.
pub(crate) struct ShortCache {
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
    pub fn get<'py>(&mut self, py: Python<'py>, text: &[u8], intern: bool) -> PyResult<Element<'py>> {
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
pub(crate) struct KeyCache {
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
    pub fn get(&mut self, py: Python<'_>, text: &[u8], intern: bool) -> PyResult<*mut ffi::PyObject> {
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
pub(crate) struct Caches {
    pub short_keys: ShortCache,
    pub keys: KeyCache,
    pub short_values: ShortCache,
}

impl Caches {
    pub fn new() -> Caches {
        Caches {
            short_keys: ShortCache::new(),
            keys: KeyCache::new(),
            short_values: ShortCache::new(),
        }
    }
}

thread_local! {
    pub(crate) static CACHES: RefCell<Caches> = RefCell::new(Caches::new());
}

/// A value on its way into a container: borrowed from a cache (or a singleton such as
/// `None`), or a new reference.
pub(crate) enum Element<'py> {
    Borrowed(*mut ffi::PyObject),
    Owned(Bound<'py, PyAny>),
}

impl<'py> Element<'py> {
    pub fn as_ptr(&self) -> *mut ffi::PyObject {
        match self {
            Element::Borrowed(ptr) => *ptr,
            Element::Owned(value) => value.as_ptr(),
        }
    }

    pub fn into_owned(self, py: Python<'py>) -> Bound<'py, PyAny> {
        match self {
            // SAFETY: a borrowed pointer is alive (held by a cache or static): take a reference.
            Element::Borrowed(ptr) => unsafe { Bound::from_borrowed_ptr(py, ptr) },
            Element::Owned(value) => value,
        }
    }
}
