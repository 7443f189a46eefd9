//! The `monapi` Python package's native module, `monapi._native`: `Client`, `AsyncClient`
//! and the bundled emulator (`monapi.testing.Emulator`), over the Rust crate `monapi`.
//!
//! The pure-Python side (`bindings-python/python/monapi/`) holds the exception classes,
//! the `Token` dict type and the typed stubs.

use monapi::settings::{Kind, SETTINGS};
use monapi::Language;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

mod args;
mod arriving;
#[cfg(feature = "bench-bridge")]
mod bench_bridge;
mod blocking;
mod bridge;
mod bulk;
mod clients;
mod command;
mod decode;
mod emulator;
mod encode;
mod errors;
mod hooks;
mod job;
mod logging;
mod mode;
mod options;
mod pages;
mod pickle;
mod runtime;
mod shared;
mod strings;
mod sync;
mod table;
mod tables;
mod tape;
mod telemetry;
mod token;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    logging::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PAGE_SIZE", monapi::PAGE_SIZE)?;
    // The settings a client takes by keyword, as the core declares them.
    let settings = SETTINGS.iter().map(|s| s.name_in(Language::Python));
    m.add("SETTINGS", PyTuple::new(m.py(), settings)?)?;
    m.add("DEMO_CLIENT_ID", monapi_emulator::DEMO_CLIENT_ID)?;
    m.add("DEMO_CLIENT_SECRET", monapi_emulator::DEMO_CLIENT_SECRET)?;
    m.add("DEMO_USERNAME", monapi_emulator::DEMO_USERNAME)?;
    m.add("DEMO_PASSWORD", monapi_emulator::DEMO_PASSWORD)?;
    // The instruments of the calls' metrics, as the core declares them (monapi/_telemetry.py).
    m.add("_METRICS", telemetry::metrics(m.py())?)?;
    m.add_class::<clients::Client>()?;
    m.add_class::<clients::AsyncClient>()?;
    // The constructors take `**options`; `inspect.signature` and `help()` show the settings.
    let signature = keyword_signature(m.py())?;
    for class in ["Client", "AsyncClient"] {
        m.getattr(class)?.setattr("__signature__", &signature)?;
    }
    m.add_class::<pages::TaskIterator>()?;
    m.add_class::<pages::AsyncTaskIterator>()?;
    m.add_class::<bridge::Awaitable>()?;
    m.add_class::<emulator::Emulator>()?;
    m.add_class::<table::Table>()?;
    m.add_class::<tables::Tables>()?;
    m.add_class::<tables::AsyncTables>()?;
    m.add_function(wrap_pyfunction!(table::_table_from_ipc, m)?)?;
    m.add_function(wrap_pyfunction!(pickle::_restore, m)?)?;
    m.add_function(wrap_pyfunction!(decode::_loads, m)?)?;
    m.add_function(wrap_pyfunction!(decode::_loads_chunked, m)?)?;
    m.add_function(wrap_pyfunction!(hooks::_panic, m)?)?;
    m.add_function(wrap_pyfunction!(command::_run_command, m)?)?;
    #[cfg(feature = "bench-bridge")]
    m.add_function(wrap_pyfunction!(bench_bridge::_bench_via_library, m)?)?;
    Ok(())
}

/// The signature of the clients' constructors: every setting the core declares, keyword-only,
/// then `token` and `on_token`. Left out, a setting is `None` (its variable, then its
/// default); a proxy is `...` (the environment's), as `None` means no proxy.
fn keyword_signature(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let inspect = py.import("inspect")?;
    let parameter = inspect.getattr("Parameter")?;
    let keyword_only = parameter.getattr("KEYWORD_ONLY")?;
    let names = SETTINGS
        .iter()
        .map(|s| (s.name_in(Language::Python), s.kind == Kind::Proxy))
        .chain([("token", false), ("on_token", false)]);
    let mut parameters = Vec::new();
    for (name, environment) in names {
        let options = PyDict::new(py);
        options.set_item("default", if environment { py.Ellipsis() } else { py.None() })?;
        parameters.push(parameter.call((name, &keyword_only), Some(&options))?);
    }
    inspect.getattr("Signature")?.call1((parameters,))
}
