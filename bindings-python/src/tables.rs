//! `client.tables`: the calls that return tables (`monapi::table::Tables`), blocking on
//! `Client`, awaitable on `AsyncClient`. The core fetches, builds the tables and runs the
//! bulk calls; this module converts the arguments and the results.

use std::sync::Arc;

use monapi::table::arrow_array::RecordBatch;
use monapi::table::arrow_schema::SchemaRef;
use monapi::table::{self as core_table, BulkOptions, BulkTables, Progress, SiteTables, TaskIds};
use monapi::{input, DateRange, Monitor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

use crate::args::{date_range, Day, MonitorArg, Number, TaskId};
use crate::async_client::awaitable;
use crate::errors::{to_pyerr, validation};
use crate::logging;
use crate::runtime::{run_job, Awaitable, Job};
use crate::shared::Shared;
use crate::table::{Failures, Table};

/// `monapi.tables.<name>`, the pure-Python side of the tables.
fn python_side<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("monapi.tables")?.getattr(name)
}

fn table_py(py: Python<'_>, batch: RecordBatch) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, Table::new(batch))?.into_any())
}

/// A `monapi.SiteTables` of three tables (and the failed tasks of a bulk call).
fn site_tables_py(py: Python<'_>, tables: [Table; 3], failures: Bound<'_, PyList>) -> PyResult<Py<PyAny>> {
    let [availability, response_time, faults] = tables.map(|t| Py::new(py, t));
    let args = (availability?, response_time?, faults?, failures);
    Ok(python_side(py, "SiteTables")?.call1(args)?.unbind())
}

/// What a bulk call does with failed tasks: `errors="raise"` or `"collect"`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OnErrors {
    Raise,
    Collect,
}

impl OnErrors {
    fn parse(py: Python<'_>, text: &str) -> PyResult<OnErrors> {
        match text {
            "raise" => Ok(OnErrors::Raise),
            "collect" => Ok(OnErrors::Collect),
            _ => Err(validation(
                py,
                None,
                "errors",
                "must be \"raise\" (PartialResultError when a task fails) or \"collect\" (failures on the result)",
            )),
        }
    }
}

/// The settings of a bulk call as Python gave them.
struct Bulk {
    options: BulkOptions,
    on_errors: OnErrors,
}

impl Bulk {
    fn new(
        py: Python<'_>,
        concurrency: Option<Number>,
        progress: &Bound<'_, PyAny>,
        errors: &str,
    ) -> PyResult<Bulk> {
        let on_errors = OnErrors::parse(py, errors)?;
        let mut options = BulkOptions::new();
        if let Some(Number(concurrency)) = concurrency {
            options = options.concurrency(input::concurrency(concurrency).map_err(|e| to_pyerr(py, e))?);
        }
        if let Some(callback) = progress_callback(py, progress)? {
            options = options.on_progress(move |progress| notify(&callback, progress));
        }
        Ok(Bulk { options, on_errors })
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

/// Hands the core's progress to the Python callback as a `monapi.types.Progress` dict. An
/// exception it raises is logged at WARNING; the call goes on.
fn notify(callback: &Py<PyAny>, progress: Progress) {
    Python::try_attach(|py| {
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

/// The result of a bulk call, or (`errors="raise"`, a task failed) the core's
/// `PartialResult` error as a `PartialResultError` carrying it and the failures.
fn bulk_result(
    py: Python<'_>,
    result: Py<PyAny>,
    partial: Option<monapi::Error>,
    failures: &Failures,
    on_errors: OnErrors,
) -> PyResult<Py<PyAny>> {
    let Some(partial) = partial.filter(|_| on_errors == OnErrors::Raise) else {
        return Ok(result);
    };
    let error = to_pyerr(py, partial);
    let value = error.value(py);
    value.setattr("table", result)?;
    value.setattr("failures", PyList::new(py, clone_failures(py, failures))?)?;
    Err(error)
}

fn service_bulk_convert(
    schema: SchemaRef,
    on_errors: OnErrors,
) -> impl FnOnce(Python<'_>, BulkTables<RecordBatch>) -> PyResult<Py<PyAny>> + Send + 'static {
    move |py, bulk| {
        let partial = bulk.partial_error();
        let failures = failures_py(py, bulk.failures);
        let batches = bulk.tables.into_iter().map(|(_, table)| table).collect();
        let table = Table::chunked(schema, batches, clone_failures(py, &failures));
        bulk_result(py, Py::new(py, table)?.into_any(), partial, &failures, on_errors)
    }
}

fn site_bulk_convert(
    schemas: [SchemaRef; 3],
    on_errors: OnErrors,
) -> impl FnOnce(Python<'_>, BulkTables<SiteTables>) -> PyResult<Py<PyAny>> + Send + 'static {
    move |py, bulk| {
        let partial = bulk.partial_error();
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
        bulk_result(py, site, partial, &failures, on_errors)
    }
}

/// The jobs of `client.tables`, shared by the blocking and the asyncio side.
struct Jobs<'a>(&'a Shared);

impl Jobs<'_> {
    fn tables(&self, py: Python<'_>) -> PyResult<core_table::Tables> {
        Ok(self.0.client(py)?.tables())
    }

    fn service_tasks(&self, py: Python<'_>) -> PyResult<Job<RecordBatch>> {
        let tables = self.tables(py)?;
        Ok(Job {
            future: Box::pin(async move { tables.service_tasks().await }),
            convert: Box::new(table_py),
        })
    }

    fn service_report(&self, py: Python<'_>, task_id: u64, range: DateRange) -> PyResult<Job<RecordBatch>> {
        let tables = self.tables(py)?;
        Ok(Job {
            future: Box::pin(async move { tables.service_report(task_id, range).await }),
            convert: Box::new(table_py),
        })
    }

    fn site_report(
        &self,
        py: Python<'_>,
        task_id: u64,
        range: DateRange,
        monitor: Monitor,
    ) -> PyResult<Job<SiteTables>> {
        let tables = self.tables(py)?;
        Ok(Job {
            future: Box::pin(async move { tables.site_report(task_id, range, monitor).await }),
            convert: Box::new(|py, site| {
                let tables = [site.availability, site.response_time, site.faults].map(Table::new);
                site_tables_py(py, tables, PyList::empty(py))
            }),
        })
    }

    fn distribution(&self, py: Python<'_>, task_id: u64, range: DateRange) -> PyResult<Job<RecordBatch>> {
        let tables = self.tables(py)?;
        Ok(Job {
            future: Box::pin(async move { tables.response_time_distribution(task_id, range).await }),
            convert: Box::new(table_py),
        })
    }

    fn service_reports(
        &self,
        py: Python<'_>,
        task_ids: TaskIds,
        range: DateRange,
        bulk: Bulk,
    ) -> PyResult<Job<BulkTables<RecordBatch>>> {
        let tables = self.tables(py)?;
        let schema = core_table::service_report_schema(tables.timezone());
        let Bulk { options, on_errors } = bulk;
        Ok(Job {
            future: Box::pin(async move { tables.service_reports(task_ids, range, options).await }),
            convert: Box::new(service_bulk_convert(schema, on_errors)),
        })
    }

    fn site_reports(
        &self,
        py: Python<'_>,
        task_ids: Vec<u64>,
        range: DateRange,
        monitor: Monitor,
        bulk: Bulk,
    ) -> PyResult<Job<BulkTables<SiteTables>>> {
        let tables = self.tables(py)?;
        let zone = tables.timezone();
        let schemas = [
            core_table::site_availability_schema(zone),
            core_table::site_response_time_schema(zone),
            core_table::site_faults_schema(zone),
        ];
        let Bulk { options, on_errors } = bulk;
        Ok(Job {
            future: Box::pin(async move { tables.site_reports(&task_ids, range, monitor, options).await }),
            convert: Box::new(site_bulk_convert(schemas, on_errors)),
        })
    }
}

fn task_ids(ids: Option<Vec<TaskId>>) -> TaskIds {
    match ids {
        None => TaskIds::All,
        Some(ids) => TaskIds::Ids(ids.into_iter().map(|id| id.0).collect()),
    }
}

fn ids(ids: Vec<TaskId>) -> Vec<u64> {
    ids.into_iter().map(|id| id.0).collect()
}

fn monitor(monitor: Option<MonitorArg>) -> Monitor {
    monitor.map_or(Monitor::All, |m| m.0)
}

/// ``client.tables`` of a :class:`Client`: the reports as :class:`Table` objects, built by
/// monapi's core (times tz-aware in the client's ``timezone``, numbers ``float64``, ids
/// integers). Each call blocks without holding the GIL; Ctrl-C stops it, and a bulk call
/// then cancels every request in flight.
///
/// The date parameters are those of the client's methods; dates left out are today in the
/// client's time zone.
///
/// Examples
/// --------
/// >>> df = client.tables.service_report(10001, start_date="2026-11-01").to_pandas()
/// >>> site = client.tables.site_report(20001, start_date="2026-11-01")
/// >>> site.availability.to_pandas().pivot(index="time", columns="monitor", values="uprate")
#[pyclass(module = "monapi", frozen)]
pub struct Tables {
    shared: Arc<Shared>,
}

impl Tables {
    pub fn new(shared: Arc<Shared>) -> Tables {
        Tables { shared }
    }
}

#[pymethods]
impl Tables {
    /// The time zone of the tables' times (the client's ``timezone``), e.g. ``"+08:00"``.
    ///
    /// Examples
    /// --------
    /// >>> client.tables.timezone
    /// '+08:00'
    #[getter]
    fn timezone(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.shared.client(py)?.timezone().to_string())
    }

    /// Every service task (all pages) as one table.
    ///
    /// Returns
    /// -------
    /// Table
    ///     ``task_id``, ``task_name``, ``task_type``, ``frequency``, ``last_check_time``,
    ///     ``task_status``.
    ///
    /// Examples
    /// --------
    /// >>> client.tables.service_tasks().num_rows
    /// 120
    fn service_tasks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        run_job(py, Jobs(&self.shared).service_tasks(py)?)
    }

    /// A service task's report as a long table: one row per record and metric.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A service task id.
    /// start_date, end_date : datetime.date or str, optional
    ///     The period; each defaults to today in the client's time zone.
    ///
    /// Returns
    /// -------
    /// Table
    ///     ``task_id``, ``series``, ``time``, ``metric``, ``value``.
    ///
    /// Examples
    /// --------
    /// >>> t = client.tables.service_report(10001, start_date="2026-11-01", end_date="2026-11-07")
    /// >>> t.to_pandas().pivot_table(index="time", columns="metric", values="value")
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
    fn service_report(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
    ) -> PyResult<Py<PyAny>> {
        let range = date_range(py, start_date, end_date)?;
        run_job(py, Jobs(&self.shared).service_report(py, task_id.0, range)?)
    }

    /// A site task's report as three tables.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task id.
    /// start_date, end_date : datetime.date or str, optional
    ///     The period; each defaults to today in the client's time zone.
    /// monitor : int or str, optional
    ///     ``None`` (every monitoring point and the average), ``0`` (the average) or a
    ///     point's id.
    ///
    /// Returns
    /// -------
    /// SiteTables
    ///     ``availability``, ``response_time`` and ``faults``.
    ///
    /// Examples
    /// --------
    /// >>> availability, response_time, faults = client.tables.site_report(20001)
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None, monitor=None))]
    fn site_report(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
        monitor: Option<MonitorArg>,
    ) -> PyResult<Py<PyAny>> {
        let range = date_range(py, start_date, end_date)?;
        run_job(
            py,
            Jobs(&self.shared).site_report(py, task_id.0, range, self::monitor(monitor))?,
        )
    }

    /// A site task's response-time distribution as a table.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task id.
    /// start_date, end_date : datetime.date or str, optional
    ///     The period; each defaults to today in the client's time zone.
    ///
    /// Returns
    /// -------
    /// Table
    ///     ``task_id``, ``start_ms``, ``end_ms``, ``count``, ``percent``.
    ///
    /// Examples
    /// --------
    /// >>> client.tables.response_time_distribution(20001).to_pandas()
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
    fn response_time_distribution(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
    ) -> PyResult<Py<PyAny>> {
        let range = date_range(py, start_date, end_date)?;
        run_job(py, Jobs(&self.shared).distribution(py, task_id.0, range)?)
    }

    /// The service reports of many tasks as one table, fetched ``concurrency`` at a time.
    ///
    /// Its rows are those of the single calls, task after task in the order asked for.
    /// Ctrl-C stops the call and cancels every request in flight.
    ///
    /// Parameters
    /// ----------
    /// task_ids : list of int or str, optional
    ///     The tasks; ``None`` (default) is every service task (the list is read first).
    /// start_date, end_date : datetime.date or str, optional
    ///     The period, the same for every task.
    /// concurrency : int, optional
    ///     Tasks fetched at once, 1 to 256 (default 8, the core's).
    /// progress : bool or callable, optional
    ///     ``True``: a tqdm bar (``tqdm.auto``, so it renders in Jupyter; ``pip install
    ///     'monapi[progress]'``). A callable receives a :class:`monapi.types.Progress` dict
    ///     (``done``, ``total``, ``failed``, ``bytes``, ``rows``) at the start and after each
    ///     task, on one of monapi's threads: keep it short.
    /// errors : {"raise", "collect"}, default "raise"
    ///     When tasks fail: ``"raise"`` a :class:`PartialResultError` carrying the table of
    ///     the others and the failures; ``"collect"``: return the table, with the failures
    ///     in its ``failures``.
    ///
    /// Returns
    /// -------
    /// Table
    ///     The rows of every task that succeeded (``failures`` lists the others).
    ///
    /// Raises
    /// ------
    /// PartialResultError
    ///     Some tasks failed (``errors="raise"``).
    /// ValidationError
    ///     A bad argument (nothing is sent).
    ///
    /// Examples
    /// --------
    /// >>> week = client.tables.service_reports(start_date="2026-11-01", end_date="2026-11-07",
    /// ...                                      progress=True)
    /// >>> week.to_pandas().groupby(["task_id", "metric"])["value"].max()
    #[pyo3(signature = (task_ids=None, *, start_date=None, end_date=None, concurrency=None,
        progress=None, errors="raise"))]
    #[allow(clippy::too_many_arguments)]
    fn service_reports(
        &self,
        py: Python<'_>,
        task_ids: Option<Vec<TaskId>>,
        start_date: Option<Day>,
        end_date: Option<Day>,
        concurrency: Option<Number>,
        progress: Option<&Bound<'_, PyAny>>,
        errors: &str,
    ) -> PyResult<Py<PyAny>> {
        let range = date_range(py, start_date, end_date)?;
        let bulk = Bulk::new(py, concurrency, &progress_arg(py, progress), errors)?;
        run_job(
            py,
            Jobs(&self.shared).service_reports(py, self::task_ids(task_ids), range, bulk)?,
        )
    }

    /// The site reports of many tasks as one :class:`SiteTables`, fetched ``concurrency`` at
    /// a time (the same ``monitor`` for every task).
    ///
    /// Parameters are those of :meth:`service_reports` and :meth:`site_report`;
    /// ``task_ids`` is required (site tasks have no list of their own here).
    ///
    /// Returns
    /// -------
    /// SiteTables
    ///     The three tables of every task that succeeded (``failures`` lists the others).
    ///
    /// Raises
    /// ------
    /// PartialResultError
    ///     Some tasks failed (``errors="raise"``).
    ///
    /// Examples
    /// --------
    /// >>> site = client.tables.site_reports([20001, 20002], start_date="2026-11-01")
    /// >>> site.faults.to_pandas()
    #[pyo3(signature = (task_ids, *, start_date=None, end_date=None, monitor=None,
        concurrency=None, progress=None, errors="raise"))]
    #[allow(clippy::too_many_arguments)]
    fn site_reports(
        &self,
        py: Python<'_>,
        task_ids: Vec<TaskId>,
        start_date: Option<Day>,
        end_date: Option<Day>,
        monitor: Option<MonitorArg>,
        concurrency: Option<Number>,
        progress: Option<&Bound<'_, PyAny>>,
        errors: &str,
    ) -> PyResult<Py<PyAny>> {
        let range = date_range(py, start_date, end_date)?;
        let bulk = Bulk::new(py, concurrency, &progress_arg(py, progress), errors)?;
        let job = Jobs(&self.shared).site_reports(py, ids(task_ids), range, self::monitor(monitor), bulk)?;
        run_job(py, job)
    }

    fn __repr__(&self) -> String {
        format!("<monapi tables of {}>", self.shared.repr("Client"))
    }
}

fn progress_arg<'py>(py: Python<'py>, progress: Option<&Bound<'py, PyAny>>) -> Bound<'py, PyAny> {
    progress.cloned().unwrap_or_else(|| py.None().into_bound(py))
}

/// ``client.tables`` of an :class:`AsyncClient`: the calls of :class:`Tables`, each
/// returning a coroutine. Cancelling the task that awaits a bulk call (``task.cancel()``)
/// cancels every request in flight.
///
/// Examples
/// --------
/// >>> tables = await asyncio.gather(
/// ...     client.tables.service_report(10001), client.tables.service_report(10002))
#[pyclass(module = "monapi", frozen)]
pub struct AsyncTables {
    shared: Arc<Shared>,
}

impl AsyncTables {
    pub fn new(shared: Arc<Shared>) -> AsyncTables {
        AsyncTables { shared }
    }
}

#[pymethods]
impl AsyncTables {
    /// The time zone of the tables' times (see :attr:`Tables.timezone`).
    ///
    /// Examples
    /// --------
    /// >>> client.tables.timezone
    /// '+08:00'
    #[getter]
    fn timezone(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.shared.client(py)?.timezone().to_string())
    }

    /// See :meth:`Tables.service_tasks`.
    ///
    /// Examples
    /// --------
    /// >>> tasks = (await client.tables.service_tasks()).to_pandas()
    fn service_tasks(&self, py: Python<'_>) -> PyResult<Awaitable> {
        awaitable("tables.service_tasks", Jobs(&self.shared).service_tasks(py))
    }

    /// See :meth:`Tables.service_report`.
    ///
    /// Examples
    /// --------
    /// >>> df = (await client.tables.service_report(10001, start_date="2026-11-01")).to_pandas()
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
    fn service_report(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
    ) -> PyResult<Awaitable> {
        let range = date_range(py, start_date, end_date)?;
        awaitable(
            "tables.service_report",
            Jobs(&self.shared).service_report(py, task_id.0, range),
        )
    }

    /// See :meth:`Tables.site_report`.
    ///
    /// Examples
    /// --------
    /// >>> availability, response_time, faults = await client.tables.site_report(20001)
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None, monitor=None))]
    fn site_report(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
        monitor: Option<MonitorArg>,
    ) -> PyResult<Awaitable> {
        let range = date_range(py, start_date, end_date)?;
        let job = Jobs(&self.shared).site_report(py, task_id.0, range, self::monitor(monitor));
        awaitable("tables.site_report", job)
    }

    /// See :meth:`Tables.response_time_distribution`.
    ///
    /// Examples
    /// --------
    /// >>> buckets = await client.tables.response_time_distribution(20001)
    #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
    fn response_time_distribution(
        &self,
        py: Python<'_>,
        task_id: TaskId,
        start_date: Option<Day>,
        end_date: Option<Day>,
    ) -> PyResult<Awaitable> {
        let range = date_range(py, start_date, end_date)?;
        let job = Jobs(&self.shared).distribution(py, task_id.0, range);
        awaitable("tables.response_time_distribution", job)
    }

    /// See :meth:`Tables.service_reports`; cancelling the awaiting task cancels every request
    /// in flight.
    ///
    /// Examples
    /// --------
    /// >>> task = asyncio.create_task(client.tables.service_reports(progress=True))
    /// >>> week = await task
    #[pyo3(signature = (task_ids=None, *, start_date=None, end_date=None, concurrency=None,
        progress=None, errors="raise"))]
    #[allow(clippy::too_many_arguments)]
    fn service_reports(
        &self,
        py: Python<'_>,
        task_ids: Option<Vec<TaskId>>,
        start_date: Option<Day>,
        end_date: Option<Day>,
        concurrency: Option<Number>,
        progress: Option<&Bound<'_, PyAny>>,
        errors: &str,
    ) -> PyResult<Awaitable> {
        let range = date_range(py, start_date, end_date)?;
        let bulk = Bulk::new(py, concurrency, &progress_arg(py, progress), errors)?;
        let job = Jobs(&self.shared).service_reports(py, self::task_ids(task_ids), range, bulk);
        awaitable("tables.service_reports", job)
    }

    /// See :meth:`Tables.site_reports`.
    ///
    /// Examples
    /// --------
    /// >>> site = await client.tables.site_reports([20001, 20002], errors="collect")
    #[pyo3(signature = (task_ids, *, start_date=None, end_date=None, monitor=None,
        concurrency=None, progress=None, errors="raise"))]
    #[allow(clippy::too_many_arguments)]
    fn site_reports(
        &self,
        py: Python<'_>,
        task_ids: Vec<TaskId>,
        start_date: Option<Day>,
        end_date: Option<Day>,
        monitor: Option<MonitorArg>,
        concurrency: Option<Number>,
        progress: Option<&Bound<'_, PyAny>>,
        errors: &str,
    ) -> PyResult<Awaitable> {
        let range = date_range(py, start_date, end_date)?;
        let bulk = Bulk::new(py, concurrency, &progress_arg(py, progress), errors)?;
        let job = Jobs(&self.shared).site_reports(py, ids(task_ids), range, self::monitor(monitor), bulk);
        awaitable("tables.site_reports", job)
    }

    fn __repr__(&self) -> String {
        format!("<monapi tables of {}>", self.shared.repr("AsyncClient"))
    }
}
