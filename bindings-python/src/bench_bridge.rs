//! Built only with the cargo feature `bench-bridge` (by `make python-bench`; never in a
//! shipped wheel): the same async calls resolved through pyo3-async-runtimes instead of the
//! package's own asyncio bridge (`runtime.rs`), for `bench/python/bridge.py`.
//!
//! An `AsyncClient` method returns an awaitable that has not started; `_bench_via_library`
//! takes its job (the core future and the conversion of its result, exactly what awaiting
//! it would run) and hands it to `pyo3_async_runtimes::tokio::future_into_py` on the same
//! tokio runtime. Only the way the result reaches the event loop differs.

use std::sync::Once;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::bridge::{Awaitable, Finish};
use crate::runtime::runtime;

/// The result of a job, built under the GIL where pyo3-async-runtimes converts it.
struct Built(Finish);

impl<'py> IntoPyObject<'py> for Built {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (self.0)(py).map(|value| value.into_bound(py))
    }
}

static SHARE_RUNTIME: Once = Once::new();

/// `_bench_via_library(awaitable)`: an asyncio future resolved by pyo3-async-runtimes with
/// the result the awaitable (not yet awaited) would have given. Not public API.
#[pyfunction]
pub fn _bench_via_library<'py>(
    py: Python<'py>,
    awaitable: &Bound<'py, Awaitable>,
) -> PyResult<Bound<'py, PyAny>> {
    let job = awaitable
        .get()
        .take_job()
        .ok_or_else(|| PyRuntimeError::new_err("the call was already awaited"))?;
    SHARE_RUNTIME.call_once(|| {
        // Both bridges drive their futures on the package's runtime.
        let _ = pyo3_async_runtimes::tokio::init_with_runtime(runtime());
    });
    pyo3_async_runtimes::tokio::future_into_py(py, async move { Ok(Built(job.await)) })
}
