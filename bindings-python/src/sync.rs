//! `client.sync(...)` as Python gives and takes it: its arguments (`kinds`, `tasks`,
//! `concurrency`, `on_progress`, `errors`, read by the core's rules), the progress dicts, and
//! its result (a `monapi.types.SyncReport` dict, or `PartialResultError` carrying it). The
//! core's `Tables::sync` does the work.

use std::sync::Arc;

use monapi::input;
use monapi::store::{StoreKind, SyncOptions, SyncProgress, SyncReport};
use monapi::table::OnFailure;
use monapi::DateRange;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::args::{Number, TaskId};
use crate::errors::to_pyerr;
use crate::job::{call_soon, Job};
use crate::logging;
use crate::shared::Shared;

/// `kinds`: a list of kind names, or one string of them separated by commas (the core's
/// `StoreKind::parse_list` reads each).
pub struct Kinds(pub Vec<StoreKind>);

impl<'a, 'py> FromPyObject<'a, 'py> for Kinds {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = value.py();
        let parse = |text: &str| StoreKind::parse_list("kinds", text).map_err(|e| to_pyerr(py, e));
        if let Ok(text) = value.cast::<PyString>() {
            return Ok(Kinds(parse(text.to_str()?)?));
        }
        let names: Vec<String> = value
            .extract()
            .map_err(|_| PyTypeError::new_err("kinds must be a list of str or a comma-separated str"))?;
        let mut kinds = Vec::new();
        for name in &names {
            kinds.extend(parse(name)?);
        }
        kinds.sort();
        kinds.dedup();
        Ok(Kinds(kinds))
    }
}

/// The arguments of a sync as Python gave them, read by the core's rules.
pub struct SyncCall {
    options: SyncOptions,
    on_failure: OnFailure,
}

impl SyncCall {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        py: Python<'_>,
        range: DateRange,
        tasks: Option<Vec<TaskId>>,
        kinds: Option<Kinds>,
        concurrency: Number,
        on_progress: Option<&Bound<'_, PyAny>>,
        errors: &str,
        verify: bool,
    ) -> PyResult<SyncCall> {
        let on_failure = OnFailure::parse(errors).map_err(|e| to_pyerr(py, e))?;
        let concurrency = input::concurrency(concurrency.0).map_err(|e| to_pyerr(py, e))?;
        let mut options = SyncOptions::new()
            .range(range)
            .concurrency(concurrency)
            .verify(verify);
        if let Some(tasks) = tasks {
            options = options.tasks(tasks.into_iter().map(|id| id.0).collect());
        }
        if let Some(Kinds(kinds)) = kinds {
            options = options.kinds(kinds);
        }
        if let Some(callback) = on_progress.filter(|c| !c.is_none()) {
            if !callback.is_callable() {
                return Err(PyTypeError::new_err(
                    "on_progress must be None or a callable (it receives a SyncProgress dict)",
                ));
            }
            let callback = Arc::new(callback.clone().unbind());
            options = options.on_progress(move |progress| notify(&callback, progress));
        }
        Ok(SyncCall { options, on_failure })
    }

    /// The job of `client.sync`: the core's sync, then its report as a dict (or the
    /// `PartialResultError` carrying it).
    pub fn job(self, py: Python<'_>, shared: &Shared) -> PyResult<Job<SyncReport>> {
        let tables = shared.client(py)?.tables();
        let SyncCall { options, on_failure } = self;
        Ok(Job {
            future: Box::pin(async move { tables.sync(options).await }),
            convert: Box::new(move |py, report| report_result(py, report, on_failure)),
        })
    }
}

/// Hands the core's progress to the Python callback as a `monapi.types.SyncProgress` dict, as
/// the bulk calls do theirs: queued for the thread that waits for the sync (`call_soon`). An
/// exception it raises is logged at WARNING; the sync goes on.
fn notify(callback: &Arc<Py<PyAny>>, progress: SyncProgress) {
    let callback = callback.clone();
    call_soon(move |py| {
        let call = || -> PyResult<()> {
            let dict = PyDict::new(py);
            dict.set_item("total", progress.total)?;
            dict.set_item("done", progress.done)?;
            dict.set_item("fetched", progress.fetched)?;
            dict.set_item("reused", progress.reused)?;
            dict.set_item("failed", progress.failed)?;
            dict.set_item("rows", progress.rows)?;
            dict.set_item("bytes", progress.bytes)?;
            callback.call1(py, (dict,))?;
            Ok(())
        };
        if let Err(error) = call() {
            logging::warning_with(
                py,
                "the on_progress callback raised an exception; the sync goes on",
                error,
            );
        }
    });
}

/// The report as a `monapi.types.SyncReport` dict; with `errors="raise"` and failures, the
/// core's `PartialResult` error (`SyncReport::error`) as a `PartialResultError` whose `table`
/// is that dict and `failures` the `(task_id, error)` pairs.
fn report_result(py: Python<'_>, report: SyncReport, on_failure: OnFailure) -> PyResult<Py<PyAny>> {
    let raised = report.error(on_failure);
    let (failed, summary) = (report.failed(), report.summary());
    let dict = PyDict::new(py);
    dict.set_item("start", report.start.map(|day| day.to_string()))?;
    dict.set_item("end", report.end.map(|day| day.to_string()))?;
    dict.set_item("tasks", report.tasks)?;
    dict.set_item("fetched", report.fetched)?;
    dict.set_item("reused", report.reused)?;
    dict.set_item("rows", report.rows)?;
    dict.set_item("bytes", report.bytes)?;
    dict.set_item("failed", failed)?;
    let failures = PyList::empty(py);
    let pairs = PyList::empty(py);
    for failure in report.failures {
        let error = to_pyerr(py, failure.error).into_value(py).into_any();
        let item = PyDict::new(py);
        item.set_item("report", failure.report)?;
        item.set_item("task_id", failure.task_id)?;
        item.set_item("start", failure.start.to_string())?;
        item.set_item("end", failure.end.to_string())?;
        item.set_item("error", &error)?;
        failures.append(item)?;
        pairs.append((failure.task_id, error))?;
    }
    dict.set_item("failures", failures)?;
    let set_aside: Vec<String> = report
        .set_aside
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    dict.set_item("set_aside", set_aside)?;
    dict.set_item("verified", report.verified)?;
    dict.set_item("summary", summary)?;
    let Some(partial) = raised else {
        return Ok(dict.into_any().unbind());
    };
    let error = to_pyerr(py, partial);
    let value = error.value(py);
    value.setattr("table", dict)?;
    value.setattr("failures", pairs)?;
    Err(error)
}
