//! How a client hands back its results: the blocking client waits for them, the asyncio
//! client returns an awaitable. The clients and their tables declare each method once
//! (`clients/`, `tables.rs`), for both modes.

use pyo3::prelude::*;

use crate::blocking::run_job;
use crate::bridge::Awaitable;
use crate::job::{Job, Parse};

/// The blocking or the asyncio side of a method.
pub trait Mode {
    /// How answers are parsed.
    const PARSE: Parse;
    /// What the method returns.
    type Output;

    /// Runs `job` (waits for it), or hands it to the event loop (an awaitable named `name`).
    fn finish<T: Send + 'static>(
        py: Python<'_>,
        name: &'static str,
        job: PyResult<Job<T>>,
    ) -> PyResult<Self::Output>;
}

/// `Client`: every call waits, without the GIL.
pub struct Blocking;

impl Mode for Blocking {
    const PARSE: Parse = Parse::WhileBuilding;
    type Output = Py<PyAny>;

    fn finish<T: Send + 'static>(
        py: Python<'_>,
        _name: &'static str,
        job: PyResult<Job<T>>,
    ) -> PyResult<Py<PyAny>> {
        run_job(py, job?)
    }
}

/// `AsyncClient`: every call returns an awaitable that starts when awaited.
pub struct Async;

impl Mode for Async {
    const PARSE: Parse = Parse::Whole;
    type Output = Awaitable;

    fn finish<T: Send + 'static>(
        py: Python<'_>,
        name: &'static str,
        job: PyResult<Job<T>>,
    ) -> PyResult<Awaitable> {
        Awaitable::new(py, name, job?)
    }
}
