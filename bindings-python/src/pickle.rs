//! Pickling a client: the settings the core gives back (secrets included, as a worker needs
//! them to log in) and its current token, rebuilt by `_restore` with the constructor.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

use crate::options;
use crate::shared::Shared;

/// Rebuilds a pickled client of class ``cls`` from its ``state`` (what
/// ``Client.__reduce__`` gives pickle). Not public API.
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
    let state = options::state(py, &shared.settings, shared.token().as_ref())?;
    let args = (this.get_type(), state);
    Ok((restore, args).into_pyobject(py)?.into_any())
}
