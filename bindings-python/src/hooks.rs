//! Test hooks of the native module (not public API).

use pyo3::prelude::*;

use crate::blocking::run_job;
use crate::bridge::Awaitable;
use crate::job::Job;

/// A test hook that panics inside the native module, to show that a panic is a
/// ``MonapiError`` and never takes the interpreter down. ``where`` is ``"call"`` (the future
/// of a blocking call), ``"convert"`` (building its result), ``"async"`` (the future of an
/// awaited call) or ``"async_convert"``; the async ones return an awaitable. Not public API.
#[pyfunction]
pub fn _panic(py: Python<'_>, r#where: &str) -> PyResult<Py<PyAny>> {
    fn job(in_future: bool) -> Job<()> {
        Job {
            future: Box::pin(async move {
                if in_future {
                    panic!("deliberate panic in a future, for the test suite");
                }
                Ok(())
            }),
            convert: Box::new(|_, ()| panic!("deliberate panic in a conversion, for the test suite")),
        }
    }
    match r#where {
        "call" => run_job(py, job(true)),
        "convert" => run_job(py, job(false)),
        "async" => Ok(Py::new(py, Awaitable::new(py, "_panic", job(true))?)?.into_any()),
        "async_convert" => Ok(Py::new(py, Awaitable::new(py, "_panic", job(false))?)?.into_any()),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "where must be call, convert, async or async_convert, not {other:?}"
        ))),
    }
}
