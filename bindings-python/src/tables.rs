//! `client.tables`: the calls that return tables (`monapi::table::Tables`), declared once in
//! `tables_methods!` for the blocking `Tables` of a `Client` and the awaitable `AsyncTables`
//! of an `AsyncClient`. The core fetches, builds the tables and runs the bulk calls; this
//! module converts the arguments and the results.

use std::sync::Arc;

use monapi::table::arrow_array::RecordBatch;
use monapi::table::{self as core_table, BulkTables, SiteTables, TaskIds};
use monapi::{DateRange, Monitor};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::args::{date_range, Day, MonitorArg, Number, TaskId};
use crate::bridge::Awaitable;
use crate::bulk::{service_bulk_convert, site_bulk_convert, site_tables_py, table_py, Bulk};
use crate::job::Job;
use crate::mode::{Async, Blocking, Mode};
use crate::shared::Shared;
use crate::table::Table;

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

    fn site_tasks(&self, py: Python<'_>) -> PyResult<Job<RecordBatch>> {
        let tables = self.tables(py)?;
        Ok(Job {
            future: Box::pin(async move { tables.site_tasks().await }),
            convert: Box::new(table_py),
        })
    }

    fn monitors(&self, py: Python<'_>) -> PyResult<Job<RecordBatch>> {
        let tables = self.tables(py)?;
        Ok(Job {
            future: Box::pin(async move { tables.monitors().await }),
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
        let Bulk { options, on_failure } = bulk;
        Ok(Job {
            future: Box::pin(async move { tables.service_reports(task_ids, range, options).await }),
            convert: Box::new(service_bulk_convert(schema, on_failure)),
        })
    }

    fn site_reports(
        &self,
        py: Python<'_>,
        task_ids: TaskIds,
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
        let Bulk { options, on_failure } = bulk;
        Ok(Job {
            future: Box::pin(async move { tables.site_reports(task_ids, range, monitor, options).await }),
            convert: Box::new(site_bulk_convert(schemas, on_failure)),
        })
    }
}

fn task_ids(ids: Option<Vec<TaskId>>) -> TaskIds {
    match ids {
        None => TaskIds::All,
        Some(ids) => TaskIds::Ids(ids.into_iter().map(|id| id.0).collect()),
    }
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

/// The methods of `client.tables`, once for both modes (see `client_methods!` in
/// `clients/mod.rs`); `$client` names the owning client's class in the `repr`.
macro_rules! tables_methods {
    ($class:ident, $mode:ty, $output:ty, $client:literal) => {
        #[pymethods]
        impl $class {
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
            /// Raises
            /// ------
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``).
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a read is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            ///
            /// Examples
            /// --------
            /// >>> client.tables.service_tasks().num_rows
            /// 120
            fn service_tasks(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(
                    py,
                    "tables.service_tasks",
                    Jobs(&self.shared).service_tasks(py),
                )
            }

            /// Every site task (all pages) as one table.
            ///
            /// Returns
            /// -------
            /// Table
            ///     ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ///     ``task_create_time``, ``frequency``, ``task_status``, ``group_id``,
            ///     ``last_resp_time`` (ms), ``last_resp_result``, ``last_resp_status``,
            ///     ``threshold_result``, ``last_check_time``; null where the service left a
            ///     field out.
            ///
            /// Raises
            /// ------
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``).
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a read is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            ///
            /// Examples
            /// --------
            /// >>> client.tables.site_tasks().to_pandas()[["task_id", "task_name", "frequency"]]
            fn site_tasks(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "tables.site_tasks", Jobs(&self.shared).site_tasks(py))
            }

            /// The monitoring points as a table.
            ///
            /// Returns
            /// -------
            /// Table
            ///     ``monitor_id``, ``monitor_name``, ``isp_id``, ``isp_name``, ``location_code``,
            ///     ``location_name``, ``china_region``, ``world_region``; null where absent.
            ///
            /// Raises
            /// ------
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``).
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a read is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            ///
            /// Examples
            /// --------
            /// >>> client.tables.monitors().to_pandas().set_index("monitor_id")["monitor_name"]
            fn monitors(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(py, "tables.monitors", Jobs(&self.shared).monitors(py))
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
            /// Raises
            /// ------
            /// ValidationError
            ///     ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ///     ``start_date`` is after ``end_date`` (nothing is sent).
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``),
            ///     e.g. for a task the account does not have.
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a read is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            /// StoreError
            ///     The client's store (``store=``) cannot be read or written.
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
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                <$mode>::finish(
                    py,
                    "tables.service_report",
                    Jobs(&self.shared).service_report(py, task_id.0, range),
                )
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
            /// Raises
            /// ------
            /// ValidationError
            ///     ``task_id`` or ``monitor`` is not a valid id, a date is not ``"YYYY-MM-DD"``, or
            ///     ``start_date`` is after ``end_date`` (nothing is sent).
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``),
            ///     e.g. for a task the account does not have.
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a read is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            /// StoreError
            ///     The client's store (``store=``) cannot be read or written.
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
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                <$mode>::finish(
                    py,
                    "tables.site_report",
                    Jobs(&self.shared).site_report(py, task_id.0, range, self::monitor(monitor)),
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
            /// Raises
            /// ------
            /// ValidationError
            ///     ``task_id`` is not a whole number above 0, a date is not ``"YYYY-MM-DD"``, or
            ///     ``start_date`` is after ``end_date`` (nothing is sent).
            /// ApiError
            ///     The service answered with an error (``status_code``, ``code``, ``message``),
            ///     e.g. for a task the account does not have.
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``.
            /// ConnectionError
            ///     No connection, or it broke (a read is retried ``max_retries`` times first).
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            /// StoreError
            ///     The client's store (``store=``) cannot be read or written.
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
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                <$mode>::finish(
                    py,
                    "tables.response_time_distribution",
                    Jobs(&self.shared).distribution(py, task_id.0, range),
                )
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
            ///     task, on the thread that waits for the call (the event loop's, with AsyncClient).
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
            /// MonapiError
            ///     No token or no task list, before any report (:class:`AuthError`, :class:`ApiError`,
            ///     :class:`TimeoutError` ...); a task that fails is one of the failures instead.
            ///
            /// Examples
            /// --------
            /// >>> week = client.tables.service_reports(start_date="2026-11-01", end_date="2026-11-07",
            /// ...                                      progress=True)
            /// >>> week.to_pandas().groupby(["task_id", "metric"])["value"].max()
            #[pyo3(signature = (task_ids=None, *, start_date=None, end_date=None, concurrency=None, progress=None, errors="raise"))]
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
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                let bulk = Bulk::new(py, concurrency, progress, errors)?;
                <$mode>::finish(
                    py,
                    "tables.service_reports",
                    Jobs(&self.shared).service_reports(py, self::task_ids(task_ids), range, bulk),
                )
            }

            /// The site reports of many tasks as one :class:`SiteTables`, fetched ``concurrency`` at
            /// a time (the same ``monitor`` for every task).
            ///
            /// Parameters
            /// ----------
            /// task_ids : list of int or str, optional
            ///     The tasks; ``None`` (default) is every site task (the site task list is read
            ///     first).
            /// start_date, end_date : datetime.date or str, optional
            ///     The period, the same for every task.
            /// monitor : int or str, optional
            ///     ``None`` (every monitoring point and the average), ``0`` (the average) or a
            ///     point's id, the same for every task.
            /// concurrency : int, optional
            ///     Tasks fetched at once, 1 to 256 (default 8, the core's).
            /// progress : bool or callable, optional
            ///     ``True``: a tqdm bar; a callable receives a :class:`monapi.types.Progress` dict
            ///     at the start and after each task (as for :meth:`service_reports`).
            /// errors : {"raise", "collect"}, default "raise"
            ///     When tasks fail: ``"raise"`` a :class:`PartialResultError` carrying the tables of
            ///     the others and the failures; ``"collect"``: return the tables, with the failures
            ///     in its ``failures``.
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
            /// ValidationError
            ///     A bad argument (nothing is sent).
            /// MonapiError
            ///     No token or no task list, before any report (:class:`AuthError`, :class:`ApiError`,
            ///     :class:`TimeoutError` ...); a task that fails is one of the failures instead.
            ///
            /// Examples
            /// --------
            /// >>> site = client.tables.site_reports([20001, 20002], start_date="2026-11-01")
            /// >>> site.faults.to_pandas()
            /// >>> every_site = client.tables.site_reports(start_date="2026-11-01")
            #[pyo3(signature = (task_ids=None, *, start_date=None, end_date=None, monitor=None, concurrency=None, progress=None, errors="raise"))]
            #[allow(clippy::too_many_arguments)]
            fn site_reports(
                &self,
                py: Python<'_>,
                task_ids: Option<Vec<TaskId>>,
                start_date: Option<Day>,
                end_date: Option<Day>,
                monitor: Option<MonitorArg>,
                concurrency: Option<Number>,
                progress: Option<&Bound<'_, PyAny>>,
                errors: &str,
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                let bulk = Bulk::new(py, concurrency, progress, errors)?;
                let job = Jobs(&self.shared).site_reports(
                    py,
                    self::task_ids(task_ids),
                    range,
                    self::monitor(monitor),
                    bulk,
                );
                <$mode>::finish(py, "tables.site_reports", job)
            }

            fn __repr__(&self) -> String {
                format!("<monapi tables of {}>", self.shared.repr($client))
            }
        }
    };
}

tables_methods!(Tables, Blocking, Py<PyAny>, "Client");
tables_methods!(AsyncTables, Async, Awaitable, "AsyncClient");
