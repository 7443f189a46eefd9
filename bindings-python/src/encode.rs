//! Python values to JSON, for what is sent: server and service tasks and saved tokens.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use crate::errors::validation;

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
    let batch = batch(py, tasks, "server")?;
    monapi::ServerTask::batch_from_json(batch).map_err(|e| crate::errors::to_pyerr(py, e))
}

/// A batch of service tasks: Python dicts read by the core's rules (every problem named).
pub fn service_tasks(py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Vec<monapi::NewServiceTask>> {
    let batch = batch(py, tasks, "service")?;
    monapi::NewServiceTask::batch_from_json(batch).map_err(|e| crate::errors::to_pyerr(py, e))
}

/// A list of task dicts as a JSON array (a value that cannot be sent is named by its index).
fn batch(py: Python<'_>, tasks: &Bound<'_, PyAny>, kind: &str) -> PyResult<Value> {
    if tasks.is_instance_of::<PyString>()
        || tasks.is_instance_of::<PyDict>()
        || tasks.cast::<PySequence>().is_err()
    {
        return Err(PyTypeError::new_err(format!(
            "tasks must be a list of task dicts (one dict per {kind} task)"
        )));
    }
    let mut values = Vec::new();
    for (index, task) in tasks.try_iter()?.enumerate() {
        let task = task?;
        let value = py_to_json(&task).map_err(|e| validation(py, Some(index), &e.path, &e.rule))?;
        values.push(value);
    }
    Ok(Value::Array(values))
}
