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

/// The Python exception for an SDK error: one class per variant (see `errors.py`).
pub fn to_pyerr(py: Python<'_>, error: monapi::Error) -> PyErr {
    match fields(py, &error) {
        Ok((class, dict)) => make(py, class, &error.to_string(), &dict),
        Err(e) => e,
    }
}

fn fields<'py>(py: Python<'py>, error: &monapi::Error) -> PyResult<(&'static str, Bound<'py, PyDict>)> {
    use monapi::Error;
    let dict = PyDict::new(py);
    let class = match error {
        Error::Auth {
            endpoint,
            error,
            description,
            status,
        } => {
            dict.set_item("endpoint", endpoint.as_str())?;
            dict.set_item("error", error)?;
            dict.set_item("description", description)?;
            dict.set_item("status_code", status)?;
            match error.as_str() {
                "invalid_client" => "InvalidClientError",
                "invalid_grant" => "InvalidGrantError",
                _ => "AuthError",
            }
        }
        Error::Api {
            endpoint,
            status,
            code,
            error,
            message,
            retry_after,
        } => {
            dict.set_item("status_code", status)?;
            dict.set_item("code", code)?;
            dict.set_item("message", message)?;
            dict.set_item("error", error)?;
            dict.set_item("endpoint", endpoint.as_str())?;
            dict.set_item("retry_after", retry_after.map(|d| d.as_secs_f64()))?;
            "ApiError"
        }
        Error::PartialCreate(partial) => {
            dict.set_item("err_key", &partial.err_key)?;
            dict.set_item("failed_indices", PyList::new(py, &partial.failed_indices)?)?;
            dict.set_item("err_content", &partial.err_content)?;
            dict.set_item("submitted", partial.submitted)?;
            dict.set_item("created", partial.created())?;
            "PartialCreateError"
        }
        Error::InvalidInput { index, field, rule } => {
            dict.set_item("index", index)?;
            dict.set_item("field", field)?;
            dict.set_item("rule", rule)?;
            "ValidationError"
        }
        Error::Timeout { endpoint, after } => {
            dict.set_item("endpoint", endpoint.as_str())?;
            dict.set_item("timeout", after.map(|d| d.as_secs_f64()))?;
            "TimeoutError"
        }
        Error::Connection { endpoint, .. } => {
            dict.set_item("endpoint", endpoint.as_str())?;
            "ConnectionError"
        }
        Error::Decode {
            endpoint, snippet, ..
        } => {
            dict.set_item("endpoint", endpoint.as_str())?;
            dict.set_item("snippet", snippet)?;
            "DecodeError"
        }
        _ => "MonapiError",
    };
    Ok((class, dict))
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
