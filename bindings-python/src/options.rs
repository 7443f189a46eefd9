//! The constructor's keyword arguments, handed to the core's declaration of the settings as
//! they are (`monapi::settings`): it finds each setting by its Python name, reads its value,
//! and the builder applies the `MONAPI_*` variables, the defaults and every bound. Only
//! `token` and `on_token` are the package's own. Pickling stores the settings the core gives
//! back (`Settings::values`).

use monapi::settings::{self, Setting};
use monapi::{ClientBuilder, Language, Options, Settings, Token, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString};

use crate::errors::to_pyerr;
use crate::token::{token_from_py, token_to_py};

/// What the caller of `Client(...)` / `AsyncClient(...)` gave.
pub struct Given {
    /// The core builder with every setting given, falling back to the environment.
    pub builder: ClientBuilder,
    /// The `on_token` callable, when given.
    pub on_token: Option<Py<PyAny>>,
}

/// Reads the keyword arguments of a client's constructor.
pub fn given(py: Python<'_>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Given> {
    let mut options = Options {
        language: Some(Language::Python),
        ..Options::default()
    };
    let mut token = None;
    let mut on_token = None;
    for (key, value) in kwargs.into_iter().flat_map(|kwargs| kwargs.iter()) {
        let name = key.cast::<PyString>()?.to_str()?.to_string();
        match name.as_str() {
            "token" if !value.is_none() => token = Some(token_from_py(py, &value)?),
            "on_token" if !value.is_none() => {
                if !value.is_callable() {
                    return Err(PyTypeError::new_err(
                        "on_token must be callable (it receives the new token)",
                    ));
                }
                on_token = Some(value.unbind());
            }
            "token" | "on_token" => {}
            _ => {
                // An unknown keyword is a TypeError in Python, with the core's words: the
                // setting it was likely meant to be, and the list of them.
                let setting = settings::find(Language::Python, &name).map_err(|e| {
                    let rule = e.rule().unwrap_or_default();
                    PyTypeError::new_err(format!("unexpected keyword argument '{name}': {rule}"))
                })?;
                let value = setting_value(setting, &value)?;
                options
                    .set(Language::Python, &name, value)
                    .map_err(|e| to_pyerr(py, e))?;
            }
        }
    }
    let builder = ClientBuilder::from_env().options(options);
    Ok(Given {
        builder: match token {
            Some(token) => builder.token(token),
            None => builder,
        },
        on_token,
    })
}

/// A Python value as the core's [`Value`]; a type the setting never takes is a `TypeError`
/// worded by the core (`Setting::expects`).
fn setting_value(setting: &Setting, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let read = if value.is_none() {
        Some(Value::Null)
    } else if let Ok(flag) = value.cast::<PyBool>() {
        Some(Value::Bool(flag.is_true()))
    } else if let Ok(float) = value.cast::<PyFloat>() {
        Some(Value::Number(float.value()))
    } else if value.is_instance_of::<PyInt>() {
        // Beyond i128 the bound is long passed: infinity says so.
        let whole = value.extract::<i128>().map_or(f64::INFINITY, |n| n as f64);
        let negative = value.lt(0i32).unwrap_or(false);
        Some(Value::Number(if negative && whole.is_infinite() {
            -whole
        } else {
            whole
        }))
    } else if let Ok(text) = value.cast::<PyString>() {
        Some(Value::Text(text.to_str()?.to_string()))
    } else if let Ok(bytes) = value.cast::<PyBytes>() {
        Some(Value::Bytes(bytes.as_bytes().to_vec()))
    } else if let Ok(dict) = value.cast::<PyDict>() {
        // Names and values of text only; another type is the TypeError below.
        let pairs: Option<Vec<(String, String)>> = dict
            .iter()
            .map(|(key, value)| Some((key.extract::<String>().ok()?, value.extract::<String>().ok()?)))
            .collect();
        pairs.map(Value::Map)
    } else {
        fspath(value)?.map(Value::Text)
    };
    match read {
        Some(value) if setting.takes(&value, Language::Python) => Ok(value),
        _ => Err(PyTypeError::new_err(format!(
            "{} {}, not {}",
            setting.name,
            setting.expects(Language::Python),
            value.get_type().name()?
        ))),
    }
}

static FSPATH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static PATH_LIKE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The path of an `os.PathLike` (as text), or `None` for any other object.
fn fspath(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let py = value.py();
    let path_like = PATH_LIKE.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("os")?.getattr("PathLike")?.unbind())
    })?;
    if !value.is_instance(path_like.bind(py))? {
        return Ok(None);
    }
    let fspath = FSPATH.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("os")?.getattr("fspath")?.unbind())
    })?;
    let path = fspath.bind(py).call1((value,))?;
    Ok(Some(path.cast::<PyString>()?.to_str()?.to_string()))
}

static REDACTED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The keyword arguments that build an equal client in another process (pickling): the
/// settings as the core gives them back, secrets as `monapi._token._Redacted` (a `str`
/// whose repr hides it), and the token.
pub fn state<'py>(
    py: Python<'py>,
    settings: &Settings,
    token: Option<&Token>,
) -> PyResult<Bound<'py, PyDict>> {
    let redacted = REDACTED.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("monapi._token")?.getattr("_Redacted")?.unbind())
    })?;
    let state = PyDict::new(py);
    for (name, value) in settings.values(Language::Python) {
        let secret = settings::find(Language::Python, name)
            .is_ok_and(|s| matches!(s.kind, settings::Kind::Secret | settings::Kind::Proxy));
        match value {
            Value::Null => state.set_item(name, py.None())?,
            Value::Bool(flag) => state.set_item(name, flag)?,
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => state.set_item(name, n as i64)?,
            Value::Number(n) => state.set_item(name, n)?,
            Value::Text(text) if secret => state.set_item(name, redacted.bind(py).call1((text,))?)?,
            Value::Text(text) => state.set_item(name, text)?,
            Value::Bytes(bytes) => state.set_item(name, PyBytes::new(py, &bytes))?,
            Value::Map(pairs) => {
                let dict = PyDict::new(py);
                for (key, value) in pairs {
                    if settings::is_secret_option(&key) {
                        dict.set_item(key, redacted.bind(py).call1((value,))?)?;
                    } else {
                        dict.set_item(key, value)?;
                    }
                }
                state.set_item(name, dict)?;
            }
        }
    }
    state.set_item("token", token.map(|t| token_to_py(py, t)).transpose()?)?;
    Ok(state)
}
