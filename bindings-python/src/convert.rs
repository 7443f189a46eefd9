//! Conversions: response bodies straight to Python objects (a serde `DeserializeSeed` that
//! builds dicts, lists, strings and numbers while parsing), Python values to JSON for
//! requests, tokens, dates.

use std::cell::RefCell;
use std::fmt;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::errors::validation;

// ---------------------------------------------------------------------------------------
// JSON bytes -> Python
// ---------------------------------------------------------------------------------------

/// Keys up to this length that look like names (not ids or timestamps) are interned and
/// cached.
const MAX_CACHED_KEY: usize = 48;
const KEY_SLOTS: usize = 1024;
/// String values up to this length are cached (not interned): reports repeat the same
/// short values (`"00:05"`, `"100.00"`, `"启用"`) thousands of times. Longer values are
/// mostly distinct (measurements, timestamps), where a cache only adds misses.
const MAX_CACHED_VALUE: usize = 6;
const VALUE_SLOTS: usize = 4096;

/// A direct-mapped cache of Python strings: the same few field names (and many short
/// values) repeat in every record of a report, so most cost a hash and a comparison instead
/// of a new object. Identical `str` objects are shared; equal values, as sent.
struct StrCache<const N: usize> {
    slots: Vec<Slot<N>>,
    intern: bool,
}

/// A cached string: its UTF-8 bytes inline (no allocation per entry) and the object.
struct Slot<const N: usize> {
    len: usize,
    bytes: [u8; N],
    string: Option<Py<PyString>>,
}

impl<const N: usize> StrCache<N> {
    fn new(slots: usize, intern: bool) -> StrCache<N> {
        StrCache {
            slots: (0..slots)
                .map(|_| Slot {
                    len: 0,
                    bytes: [0; N],
                    string: None,
                })
                .collect(),
            intern,
        }
    }

    /// `text` must be at most `N` bytes long.
    fn get<'py>(&mut self, py: Python<'py>, text: &str) -> Bound<'py, PyString> {
        let bytes = text.as_bytes();
        let len = self.slots.len();
        let slot = &mut self.slots[hash(bytes) as usize % len];
        if let Some(string) = &slot.string {
            if slot.len == bytes.len() && &slot.bytes[..bytes.len()] == bytes {
                return string.bind(py).clone();
            }
        }
        let string = if self.intern {
            PyString::intern(py, text)
        } else {
            PyString::new(py, text)
        };
        slot.len = bytes.len();
        slot.bytes[..bytes.len()].copy_from_slice(bytes);
        slot.string = Some(string.clone().unbind());
        string
    }
}

/// The string caches of one thread.
struct KeyCache {
    keys: StrCache<MAX_CACHED_KEY>,
    values: StrCache<MAX_CACHED_VALUE>,
}

impl KeyCache {
    fn new() -> KeyCache {
        KeyCache {
            keys: StrCache::new(KEY_SLOTS, true),
            values: StrCache::new(VALUE_SLOTS, false),
        }
    }

    fn key<'py>(&mut self, py: Python<'py>, key: &str) -> Bound<'py, PyString> {
        let cacheable =
            key.len() <= MAX_CACHED_KEY && !key.as_bytes().first().is_some_and(u8::is_ascii_digit);
        if cacheable {
            self.keys.get(py, key)
        } else {
            PyString::new(py, key)
        }
    }

    fn value<'py>(&mut self, py: Python<'py>, value: &str) -> Bound<'py, PyString> {
        if value.len() <= MAX_CACHED_VALUE {
            self.values.get(py, value)
        } else {
            PyString::new(py, value)
        }
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

thread_local! {
    static KEYS: RefCell<KeyCache> = RefCell::new(KeyCache::new());
}

/// Parses a JSON body into Python objects: dicts (keys in the order sent), lists, `str`,
/// `int`, `float`, `bool`, `None`, values exactly as sent.
pub fn json_to_py<'py>(py: Python<'py>, bytes: &[u8]) -> Result<Bound<'py, PyAny>, serde_json::Error> {
    // The objects built here hold no reference cycles: the cyclic garbage collector, which
    // allocating thousands of dicts would otherwise set off again and again, has nothing to
    // find in them. It is paused for large bodies and resumed after (its counts still add up).
    let _paused = (bytes.len() >= GC_PAUSE_FROM).then(GcPause::new);
    KEYS.with(|cache| match cache.try_borrow_mut() {
        Ok(mut cache) => parse(py, bytes, &mut cache),
        // Re-entered (a finalizer ran Python code that decoded again): use a fresh cache.
        Err(_) => parse(py, bytes, &mut KeyCache::new()),
    })
}

/// Bodies from this size on are decoded with the cyclic GC paused.
const GC_PAUSE_FROM: usize = 16 * 1024;

/// Pauses Python's cyclic GC while alive (if it was enabled). Needs the GIL (held by the
/// caller of [`json_to_py`] for the guard's whole life).
struct GcPause {
    was_enabled: bool,
}

impl GcPause {
    fn new() -> GcPause {
        // SAFETY: called with the GIL held (json_to_py takes `Python`).
        GcPause {
            was_enabled: unsafe { pyo3::ffi::PyGC_Disable() } == 1,
        }
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: as in `new`.
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

fn parse<'py>(
    py: Python<'py>,
    bytes: &[u8],
    keys: &mut KeyCache,
) -> Result<Bound<'py, PyAny>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = PySeed { py, keys }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

struct PySeed<'a, 'py> {
    py: Python<'py>,
    keys: &'a mut KeyCache,
}

impl<'de, 'py> DeserializeSeed<'de> for PySeed<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn py_error<E: de::Error>(error: PyErr) -> E {
    E::custom(format!("cannot build the Python value: {error}"))
}

impl<'de, 'py> Visitor<'de> for PySeed<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.py, v).to_owned().into_any())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(PyInt::new(self.py, v).into_any())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(PyInt::new(self.py, v).into_any())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(PyFloat::new(self.py, v).into_any())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.keys.value(self.py, v).into_any())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let PySeed { py, keys } = self;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element_seed(PySeed { py, keys: &mut *keys })? {
            items.push(item);
        }
        Ok(PyList::new(py, items).map_err(py_error)?.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let PySeed { py, keys } = self;
        let dict = PyDict::new(py);
        while let Some(key) = map.next_key_seed(KeySeed { py, keys: &mut *keys })? {
            let value = map.next_value_seed(PySeed { py, keys: &mut *keys })?;
            dict.set_item(key, value).map_err(py_error)?;
        }
        Ok(dict.into_any())
    }
}

struct KeySeed<'a, 'py> {
    py: Python<'py>,
    keys: &'a mut KeyCache,
}

impl<'de, 'py> DeserializeSeed<'de> for KeySeed<'_, 'py> {
    type Value = Bound<'py, PyString>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'py> Visitor<'_> for KeySeed<'_, 'py> {
    type Value = Bound<'py, PyString>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.keys.key(self.py, v))
    }
}

/// `_loads(data)`: the response decoder on its own, for benchmarks and tests (what every
/// operation applies to the body it receives).
#[pyfunction]
pub fn _loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    json_to_py(py, data).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// A `serde_json::Value` as Python objects (through its text: rare and small).
pub fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_vec(value).map_err(|e| PyTypeError::new_err(e.to_string()))?;
    json_to_py(py, &text).map_err(|e| PyTypeError::new_err(e.to_string()))
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

/// A task id: an `int`, or a string of digits (the service task list sends ids as strings).
pub fn task_id(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "task_id must be an int or a string of digits",
        ));
    }
    if value.is_instance_of::<PyInt>() {
        return value
            .extract::<u64>()
            .map_err(|_| validation(py, None, "task_id", "must be a positive whole number"));
    }
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_str()?;
        return text.trim().parse::<u64>().map_err(|_| {
            validation(
                py,
                None,
                "task_id",
                &format!("must be a whole number, not {text:?}"),
            )
        });
    }
    Err(PyTypeError::new_err(
        "task_id must be an int or a string of digits",
    ))
}

/// `monitor`: None = every point, 0 = the average, n = one point.
pub fn monitor(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<monapi::Monitor> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(monapi::Monitor::All);
    };
    let id = task_id(py, value).map_err(|_| {
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
