//! `monapi::Error` to the Python exception classes of `monapi/errors.py`.

use std::any::Any;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(ERRORS
        .get_or_try_init(py, || Ok::<_, PyErr>(py.import("monapi.errors")?.unbind()))?
        .bind(py))
}

/// Instantiates `monapi.errors.<class>(text, **fields)`.
fn make(py: Python<'_>, class: &str, text: &str, fields: &Bound<'_, PyDict>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let exception = errors_module(py)?.getattr(class)?.call((text,), Some(fields))?;
        Ok(PyErr::from_value(exception))
    };
    build().unwrap_or_else(|e| e)
}

/// A `monapi.errors` exception of class `class` with `text` and `fields`.
pub fn new_error(py: Python<'_>, class: &str, text: &str, fields: &[(&str, Bound<'_, PyAny>)]) -> PyErr {
    let dict = PyDict::new(py);
    for (key, value) in fields {
        if let Err(e) = dict.set_item(*key, value) {
            return e;
        }
    }
    make(py, class, text, &dict)
}

/// The exception class of each of the core's error codes (`monapi.errors`).
fn class_of(code: &str) -> &'static str {
    // Declared once, with the code, in the core (`monapi::ERRORS`); an error the core does not
    // declare (none should) is the base class.
    monapi::ERRORS
        .iter()
        .find(|declared| declared.code == code)
        .map_or("MonapiError", |declared| declared.python)
}

/// The Python exception for an SDK error: the class of its code, with the fields that class
/// takes (see `errors.py`), read through the core's accessors.
pub fn to_pyerr(py: Python<'_>, error: monapi::Error) -> PyErr {
    match fields(py, &error) {
        Ok(dict) => make(py, class_of(error.code()), &error.to_string(), &dict),
        Err(e) => e,
    }
}

fn fields<'py>(py: Python<'py>, error: &monapi::Error) -> PyResult<Bound<'py, PyDict>> {
    use monapi::ErrorKind;
    let dict = PyDict::new(py);
    let endpoint = error.endpoint().map(monapi::Endpoint::as_str);
    let seconds = |d: Option<std::time::Duration>| d.map(|d| d.as_secs_f64());
    match error.kind() {
        ErrorKind::Auth => {
            dict.set_item("endpoint", endpoint)?;
            dict.set_item("error", error.oauth_error())?;
            dict.set_item("description", error.service_message())?;
            dict.set_item("status_code", error.status())?;
        }
        ErrorKind::Api => {
            dict.set_item("status_code", error.status())?;
            dict.set_item("code", error.api_code())?;
            dict.set_item("message", error.service_message())?;
            dict.set_item("error", error.oauth_error())?;
            dict.set_item("endpoint", endpoint)?;
            dict.set_item("retry_after", seconds(error.retry_after()))?;
        }
        ErrorKind::PartialCreate => {
            if let Some(partial) = error.partial_create() {
                dict.set_item("err_key", &partial.err_key)?;
                dict.set_item("failed_indices", PyList::new(py, &partial.failed_indices)?)?;
                dict.set_item("err_content", &partial.err_content)?;
                dict.set_item("submitted", partial.submitted)?;
                dict.set_item("created", partial.created())?;
            }
        }
        ErrorKind::InvalidInput => {
            dict.set_item("index", error.index())?;
            dict.set_item("field", error.field())?;
            dict.set_item("rule", error.rule())?;
            let problems = PyList::empty(py);
            for problem in error.problems() {
                let item = PyDict::new(py);
                item.set_item("index", problem.index)?;
                item.set_item("field", &problem.field)?;
                item.set_item("rule", &problem.rule)?;
                problems.append(item)?;
            }
            dict.set_item("errors", problems)?;
        }
        ErrorKind::Timeout => {
            dict.set_item("endpoint", endpoint)?;
            dict.set_item("timeout", seconds(error.timeout()))?;
        }
        ErrorKind::Connection => dict.set_item("endpoint", endpoint)?,
        ErrorKind::Decode => {
            dict.set_item("endpoint", endpoint)?;
            dict.set_item("snippet", error.snippet())?;
        }
        ErrorKind::Store => {
            if let monapi::Error::Store { path, .. } = error {
                dict.set_item("path", path)?;
            }
        }
        _ => {}
    }
    Ok(dict)
}

/// A `ValidationError` raised by the binding itself (argument checks).
pub fn validation(py: Python<'_>, index: Option<usize>, field: &str, rule: &str) -> PyErr {
    to_pyerr(py, monapi::Error::invalid_input(index, field, rule))
}

/// The error for a panic (a bug): a `MonapiError`, so that callers catching the SDK's errors
/// catch it too, and the interpreter goes on.
pub fn panic_error(py: Python<'_>, message: &str) -> PyErr {
    new_error(
        py,
        "MonapiError",
        &format!("internal error in monapi (please report it): {message}"),
        &[],
    )
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}
