//! An operation of the SDK ready to run: the future (run on the runtime, without the GIL)
//! and the conversion of its result (under the GIL), waited on by the blocking client
//! (`blocking.rs`) or awaited by the asyncio one (`bridge.rs`).

use std::future::Future;
use std::pin::Pin;

use pyo3::prelude::*;

use crate::errors::{panic_error, to_pyerr};

/// What a call failed with: the SDK's error, or a panic (a bug) caught before it could take
/// the interpreter down.
pub enum Failure {
    Sdk(monapi::Error),
    Panic(String),
}

impl Failure {
    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Sdk(error) => to_pyerr(py, error),
            Failure::Panic(message) => panic_error(py, &message),
        }
    }
}

/// A boxed, sendable future of an SDK operation.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T, monapi::Error>> + Send + 'static>>;

/// Turns the result of an operation into a Python object, under the GIL.
pub type Converter<T> = Box<dyn FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static>;

/// An operation ready to run: the future (no GIL needed) and what to make of its result.
pub struct Job<T: Send + 'static> {
    pub future: BoxFuture<T>,
    pub convert: Converter<T>,
}

/// How the body of an answer becomes Python objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parse {
    /// Parsed whole on the runtime, then built on the event loop (the asyncio client: the
    /// loop only builds objects).
    Whole,
    /// A large body parsed on another thread in parts while the waiting caller already builds
    /// the objects of the first ones (the blocking client).
    WhileBuilding,
}
