//! The bulk calls of `client.tables` as Python gives and takes them: their options
//! (`concurrency`, `progress`, `errors`, read by the core's rules) and their results (one table
//! of every task that succeeded, the failures beside it, or `PartialResultError`).

use std::sync::Arc;

use monapi::input;
use monapi::table::arrow_array::RecordBatch;
use monapi::table::arrow_schema::SchemaRef;
use monapi::table::{BulkOptions, BulkTables, OnFailure, Progress, SiteTables};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

use crate::args::Number;
use crate::errors::to_pyerr;
use crate::job::call_soon;
use crate::logging;
use crate::table::{Failures, Table};

/// `monapi.tables.<name>`, the pure-Python side of the tables.
fn python_side<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("monapi.tables")?.getattr(name)
}

pub(crate) fn table_py(py: Python<'_>, batch: RecordBatch) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, Table::new(batch))?.into_any())
}

/// A `monapi.SiteTables` of three tables (and the failed tasks of a bulk call).
pub(crate) fn site_tables_py(
    py: Python<'_>,
    tables: [Table; 3],
    failures: Bound<'_, PyList>,
) -> PyResult<Py<PyAny>> {
    let [availability, response_time, faults] = tables.map(|t| Py::new(py, t));
    let args = (availability?, response_time?, faults?, failures);
    Ok(python_side(py, "SiteTables")?.call1(args)?.unbind())
}

/// The settings of a bulk call as Python gave them.
pub struct Bulk {
    pub options: BulkOptions,
    pub on_failure: OnFailure,
}

impl Bulk {
    pub fn new(
        py: Python<'_>,
        concurrency: Option<Number>,
        progress: Option<&Bound<'_, PyAny>>,
        errors: &str,
    ) -> PyResult<Bulk> {
        let on_failure = OnFailure::parse(errors).map_err(|e| to_pyerr(py, e))?;
        let mut options = BulkOptions::new();
        if let Some(Number(concurrency)) = concurrency {
            options = options.concurrency(input::concurrency(concurrency).map_err(|e| to_pyerr(py, e))?);
        }
        if let Some(callback) = progress.map(|p| progress_callback(py, p)).transpose()?.flatten() {
            let callback = Arc::new(callback);
            options = options.on_progress(move |progress| notify(&callback, progress));
        }
        Ok(Bulk { options, on_failure })
    }
}

/// `progress=`: `False`/`None` (none), `True` (a tqdm bar, `monapi.tables._progress_bar`) or
/// a callable.
fn progress_callback(py: Python<'_>, progress: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
    if progress.is_none() {
        return Ok(None);
    }
    if let Ok(flag) = progress.cast::<PyBool>() {
        return if flag.is_true() {
            Ok(Some(python_side(py, "_progress_bar")?.call0()?.unbind()))
        } else {
            Ok(None)
        };
    }
    if progress.is_callable() {
        return Ok(Some(progress.clone().unbind()));
    }
    Err(PyTypeError::new_err(
        "progress must be True (a tqdm bar), False or a callable (it receives a Progress dict)",
    ))
}

/// Hands the core's progress to the Python callback as a `monapi.types.Progress` dict, queued
/// for the thread that waits for the call (`call_soon`). An exception it raises is logged at
/// WARNING; the call goes on.
fn notify(callback: &Arc<Py<PyAny>>, progress: Progress) {
    let callback = callback.clone();
    call_soon(move |py| {
        let call = || -> PyResult<()> {
            let dict = PyDict::new(py);
            dict.set_item("done", progress.done)?;
            dict.set_item("total", progress.total)?;
            dict.set_item("failed", progress.failed)?;
            dict.set_item("bytes", progress.bytes)?;
            dict.set_item("rows", progress.rows)?;
            callback.call1(py, (dict,))?;
            Ok(())
        };
        if let Err(error) = call() {
            logging::warning_with(
                py,
                "the progress callback raised an exception; the call goes on",
                error,
            );
        }
    });
}

/// The failed tasks as `[(task_id, MonapiError), ...]`.
fn failures_py(py: Python<'_>, failures: Vec<(u64, monapi::Error)>) -> Failures {
    failures
        .into_iter()
        .map(|(id, error)| (id, to_pyerr(py, error).into_value(py).into_any()))
        .collect()
}

fn clone_failures(py: Python<'_>, failures: &Failures) -> Failures {
    failures.iter().map(|(id, e)| (*id, e.clone_ref(py))).collect()
}

/// The result of a bulk call, or the core's `PartialResult` error (`errors="raise"` and a
/// task failed: `BulkTables::error`) as a `PartialResultError` carrying it and the failures.
fn bulk_result(
    py: Python<'_>,
    result: Py<PyAny>,
    raised: Option<monapi::Error>,
    failures: &Failures,
) -> PyResult<Py<PyAny>> {
    let Some(partial) = raised else {
        return Ok(result);
    };
    let error = to_pyerr(py, partial);
    let value = error.value(py);
    value.setattr("table", result)?;
    value.setattr("failures", PyList::new(py, clone_failures(py, failures))?)?;
    Err(error)
}

pub(crate) fn service_bulk_convert(
    schema: SchemaRef,
    on_failure: OnFailure,
) -> impl FnOnce(Python<'_>, BulkTables<RecordBatch>) -> PyResult<Py<PyAny>> + Send + 'static {
    move |py, bulk| {
        let raised = bulk.error(on_failure);
        let failures = failures_py(py, bulk.failures);
        let batches = bulk.tables.into_iter().map(|(_, table)| table).collect();
        let table = Table::chunked(schema, batches, clone_failures(py, &failures));
        bulk_result(py, Py::new(py, table)?.into_any(), raised, &failures)
    }
}

pub(crate) fn site_bulk_convert(
    schemas: [SchemaRef; 3],
    on_failure: OnFailure,
) -> impl FnOnce(Python<'_>, BulkTables<SiteTables>) -> PyResult<Py<PyAny>> + Send + 'static {
    move |py, bulk| {
        let raised = bulk.error(on_failure);
        let failures = failures_py(py, bulk.failures);
        let mut parts: [Vec<RecordBatch>; 3] = Default::default();
        for (_, site) in bulk.tables {
            parts[0].push(site.availability);
            parts[1].push(site.response_time);
            parts[2].push(site.faults);
        }
        let mut tables = schemas.into_iter().zip(parts);
        let mut next = || {
            let (schema, batches) = tables.next().expect("three tables");
            Table::chunked(schema, batches, Vec::new())
        };
        let list = PyList::new(py, clone_failures(py, &failures))?;
        let site = site_tables_py(py, [next(), next(), next()], list)?;
        bulk_result(py, site, raised, &failures)
    }
}
