//! Tokens between the core and Python: `monapi.Token` dicts out, saved token dicts in.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyMapping};

use crate::decode::value_to_py;
use crate::encode::py_to_json;
use crate::errors::validation;

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
