//! The `monapi` Python package's native module, `monapi._native`: `Client`, `AsyncClient`
//! and the bundled emulator (`monapi.testing.Emulator`), over the Rust crate `monapi`.
//!
//! The pure-Python side (`bindings-python/python/monapi/`) holds the exception classes,
//! the `Token` dict type and the typed stubs.

use pyo3::prelude::*;

mod args;
mod async_client;
#[cfg(feature = "bench-bridge")]
mod bench_bridge;
mod client;
mod decode;
mod emulator;
mod encode;
mod errors;
mod logging;
mod pages;
mod pickle;
mod runtime;
mod settings;
mod shared;
mod strings;
mod table;
mod tables;
mod tape;
mod token;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    logging::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PAGE_SIZE", monapi::PAGE_SIZE)?;
    m.add("DEMO_CLIENT_ID", monapi_emulator::DEMO_CLIENT_ID)?;
    m.add("DEMO_CLIENT_SECRET", monapi_emulator::DEMO_CLIENT_SECRET)?;
    m.add("DEMO_USERNAME", monapi_emulator::DEMO_USERNAME)?;
    m.add("DEMO_PASSWORD", monapi_emulator::DEMO_PASSWORD)?;
    m.add_class::<client::Client>()?;
    m.add_class::<async_client::AsyncClient>()?;
    m.add_class::<pages::ServiceTaskIterator>()?;
    m.add_class::<pages::ServiceTaskAsyncIterator>()?;
    m.add_class::<runtime::Awaitable>()?;
    m.add_class::<emulator::Emulator>()?;
    m.add_class::<table::Table>()?;
    m.add_class::<tables::Tables>()?;
    m.add_class::<tables::AsyncTables>()?;
    m.add_function(wrap_pyfunction!(table::_table_from_ipc, m)?)?;
    m.add_function(wrap_pyfunction!(pickle::_restore, m)?)?;
    m.add_function(wrap_pyfunction!(decode::_loads, m)?)?;
    m.add_function(wrap_pyfunction!(decode::_loads_chunked, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::_panic, m)?)?;
    #[cfg(feature = "bench-bridge")]
    m.add_function(wrap_pyfunction!(bench_bridge::_bench_via_library, m)?)?;
    Ok(())
}
