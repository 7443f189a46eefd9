//! Pickling a client: its resolved settings (secrets included, as a worker needs them to log
//! in) and its current token, rebuilt by `_restore` with the constructor.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use crate::shared::Shared;

static REDACTED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A secret for the pickled state: a `str` subclass whose repr hides it.
fn redacted<'py>(py: Python<'py>, secret: Option<&monapi::Secret>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let class = REDACTED.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("monapi._token")?.getattr("_Redacted")?.unbind())
    })?;
    secret.map(|s| class.bind(py).call1((s.expose(),))).transpose()
}

/// The keyword arguments that build an equal client (see `_restore`).
fn state<'py>(py: Python<'py>, shared: &Shared) -> PyResult<Bound<'py, PyDict>> {
    let s = &shared.settings;
    let state = PyDict::new(py);
    state.set_item("base_url", &s.base_url)?;
    state.set_item("client_id", &s.client_id)?;
    state.set_item("client_secret", redacted(py, Some(&s.client_secret))?)?;
    state.set_item("username", &s.username)?;
    state.set_item("password_md5", redacted(py, s.password_md5.as_ref())?)?;
    state.set_item("token", shared.token_py(py)?)?;
    state.set_item("timeout", s.timeout.as_secs_f64())?;
    state.set_item("connect_timeout", s.connect_timeout.as_secs_f64())?;
    state.set_item("max_retries", s.max_retries)?;
    state.set_item("user_agent", &s.user_agent)?;
    state.set_item("max_connections", s.max_connections)?;
    if !s.extra_ca_pem.is_empty() {
        state.set_item("ca_bundle", pyo3::types::PyBytes::new(py, &s.extra_ca_pem))?;
    }
    match &s.proxy {
        Some(monapi::Proxy::Url(url)) => state.set_item("proxy", redacted(py, Some(url))?)?,
        Some(monapi::Proxy::Off) => state.set_item("proxy", py.None())?,
        None => {}
    }
    state.set_item("timezone", s.timezone.to_string())?;
    Ok(state)
}

/// `_restore(cls, state)`: rebuilds a pickled client (see `Client.__reduce__`).
#[pyfunction]
pub fn _restore(cls: &Bound<'_, PyType>, state: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
    Ok(cls.call((), Some(state))?.unbind())
}

/// `__reduce__` of `Client` and `AsyncClient`.
pub fn reduce<'py>(
    py: Python<'py>,
    this: &Bound<'py, PyAny>,
    shared: &Shared,
) -> PyResult<Bound<'py, PyAny>> {
    let restore = py.import("monapi._native")?.getattr("_restore")?;
    let args = (this.get_type(), state(py, shared)?);
    Ok((restore, args).into_pyobject(py)?.into_any())
}
