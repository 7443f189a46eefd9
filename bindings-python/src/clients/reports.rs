//! The reports of `monapi.Client` and `monapi.AsyncClient` (service, site, response-time
//! distribution) and `sync()`, which keeps them in the store.

use monapi::{Monitor, Request};
use pyo3::prelude::*;

use super::{AsyncClient, Client};
use crate::args::{date_range, Day, MonitorArg, Number, TaskId};
use crate::bridge::Awaitable;
use crate::mode::{Async, Blocking, Mode};
use crate::sync::{Kinds, SyncCall};

/// The methods of this file in both client classes (`$mode`, `$output` and `$pages` as in
/// `client_methods!` of `mod.rs`).
macro_rules! report_methods {
    ($class:ident, $mode:ty, $output:ty) => {
        #[pymethods]
        impl $class {
            /// The monitoring data of a service task.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A service task id (the list's string ids are accepted).
            /// start_date, end_date : datetime.date or str, optional
            ///     The period, ``"YYYY-MM-DD"`` or dates (a ``datetime`` counts as its own calendar
            ///     date); each defaults to today (service side).
            ///
            /// Returns
            /// -------
            /// dict
            ///     One series per key (e.g. ``"apache_rps"``), each a list of records whose
            ///     values are strings, as sent.
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
            ///
            /// Examples
            /// --------
            /// >>> import datetime
            /// >>> report = client.service_report(10001, start_date=datetime.date(2026, 11, 1),
            /// ...                                end_date="2026-11-02")
            /// >>> for series, records in report.items():   # e.g. "apache_rps", "mysql_qpc"
            /// ...     print(series, len(records), records[0])
            #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
            fn service_report(
                &self,
                py: Python<'_>,
                task_id: TaskId,
                start_date: Option<Day>,
                end_date: Option<Day>,
            ) -> PyResult<$output> {
                let request = Request::ServiceReport {
                    task_id: task_id.0,
                    range: date_range(py, start_date, end_date)?,
                };
                <$mode>::finish(py, "service_report", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Availability, faults and response times of a site task.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A site task id.
            /// start_date, end_date : datetime.date or str, optional
            ///     The period; each defaults to today (service side).
            /// monitor : int or str, optional
            ///     ``None`` (default): every monitoring point and the average; ``0``: only the
            ///     average; another id: that monitoring point.
            ///
            /// Returns
            /// -------
            /// dict
            ///     Keyed by monitoring-point id (``"0"`` is the average), each with ``name``,
            ///     ``uprate``, ``fault`` and ``resptime``, as sent.
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
            ///
            /// Examples
            /// --------
            /// >>> average = client.site_report(20001, monitor=0)["0"]
            /// >>> sorted(average)
            /// ['fault', 'name', 'resptime', 'uprate']
            #[pyo3(signature = (task_id, *, start_date=None, end_date=None, monitor=None))]
            fn site_report(
                &self,
                py: Python<'_>,
                task_id: TaskId,
                start_date: Option<Day>,
                end_date: Option<Day>,
                monitor: Option<MonitorArg>,
            ) -> PyResult<$output> {
                let request = Request::SiteReport {
                    task_id: task_id.0,
                    range: date_range(py, start_date, end_date)?,
                    monitor: monitor.map_or(Monitor::All, |m| m.0),
                };
                <$mode>::finish(py, "site_report", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// The response-time distribution of a site task.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A site task id.
            /// start_date, end_date : datetime.date or str, optional
            ///     The period; each defaults to today (service side).
            ///
            /// Returns
            /// -------
            /// dict
            ///     Keyed by bucket lower bound, each ``{"start", "end", "count", "percent"}``
            ///     (milliseconds; numbers and strings as sent).
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
            ///
            /// Examples
            /// --------
            /// >>> buckets = client.response_time_distribution(20001, start_date="2026-11-01")
            /// >>> sum(b["count"] for b in buckets.values()) > 0
            /// True
            #[pyo3(signature = (task_id, *, start_date=None, end_date=None))]
            fn response_time_distribution(
                &self,
                py: Python<'_>,
                task_id: TaskId,
                start_date: Option<Day>,
                end_date: Option<Day>,
            ) -> PyResult<$output> {
                let request = Request::ResponseTimeDistribution {
                    task_id: task_id.0,
                    range: date_range(py, start_date, end_date)?,
                };
                <$mode>::finish(py, "response_time_distribution", self.shared.raw(py, request, <$mode>::PARSE))
            }

            /// Bring the client's store (``store=``) up to date: every settled day of the range,
            /// for every task asked, in every kind of table asked.
            ///
            /// Task-days the store already holds (listed once per kind and day) are
            /// not fetched; a task's missing days are fetched in runs of consecutive days (at
            /// most 10 days each), one request each, and written as they come. The arguments are
            /// checked, a token is obtained and the task lists are read before any report is
            /// asked for. Ctrl-C stops the call; what was written stays, and the next sync goes on
            /// from there.
            ///
            /// Parameters
            /// ----------
            /// start_date, end_date : datetime.date or str, optional
            ///     The days to cover (``"YYYY-MM-DD"`` or dates). Left out: the last 30 settled
            ///     days. Days not settled yet (see ``settle``) are left out.
            /// tasks : list of int or str, optional
            ///     These service or site task ids rather than every task of the account; an id
            ///     that is not a task of the kinds asked raises :class:`ValidationError`
            ///     (nothing is fetched).
            /// kinds : list of str or str, optional
            ///     The tables to keep, as a list or one comma-separated string:
            ///     ``"service_report"``, ``"site_availability"``, ``"site_response_time"``,
            ///     ``"site_faults"``, or ``"service"`` and ``"site"`` for all of one report
            ///     (default: all four).
            /// concurrency : int, default 8
            ///     Tasks fetched at once, 1 to 256.
            /// on_progress : callable, optional
            ///     Receives a :class:`monapi.types.SyncProgress` dict (``total``, ``done``,
            ///     ``fetched``, ``reused``, ``failed``, ``rows``, ``bytes``; counts of task-days)
            ///     before the first task and after each, on the thread that waits for the sync
            ///     (the event loop's, with ``AsyncClient``). An exception it raises is logged at
            ///     WARNING; the sync goes on.
            /// errors : {"raise", "collect"}, default "raise"
            ///     When task-days fail: ``"raise"`` a :class:`PartialResultError` whose
            ///     ``table`` is the :class:`monapi.types.SyncReport`; ``"collect"``: return the
            ///     report, with the failures in its ``failures``. Either way, what succeeded is
            ///     in the store and the failed task-days are fetched by the next sync.
            /// verify : bool, default False
            ///     Read every file of the range whole and check its checksum, not only list it:
            ///     those that fail are set aside in ``.corrupt/`` and fetched again (a file garbled
            ///     after it was written is otherwise found only when a read meets it).
            ///
            /// Returns
            /// -------
            /// SyncReport
            ///     ``start``, ``end``, ``tasks``, ``fetched``, ``reused``, ``rows``, ``bytes``,
            ///     ``failed``, ``failures``, ``set_aside`` (files that did not read, moved to
            ///     ``.corrupt/`` and fetched again), ``verified`` (files read whole, with
            ///     ``verify=True``) and ``summary``, one line.
            ///
            /// Raises
            /// ------
            /// PartialResultError
            ///     Some task-days failed (``errors="raise"``).
            /// ValidationError
            ///     The client has no store, or an argument breaks a rule (nothing is fetched).
            /// StoreError
            ///     The store cannot be read or written.
            /// MonapiError
            ///     The token or the task lists could not be obtained, before any report was asked
            ///     for (:class:`AuthError`, :class:`ApiError`, :class:`TimeoutError` ...); a report
            ///     that fails is one of the ``failures`` instead.
            ///
            /// Examples
            /// --------
            /// >>> client = monapi.Client(store="reports/")   # MONAPI_* for the rest
            /// >>> report = client.sync(start_date="2026-11-01", end_date="2026-11-07",
            /// ...                      kinds="service_report")
            /// >>> print(report["summary"])   # 120 tasks, 7 days
            /// 840 task-days fetched, 0 reused, ... rows, ... bytes, 0 failed
            /// >>> client.sync(start_date="2026-11-01", end_date="2026-11-07")["fetched"]
            /// 35
            /// >>> import duckdb
            /// >>> duckdb.sql("SELECT day, count(*) FROM read_parquet("
            /// ...            "'reports/service_report/**/*.parquet', hive_partitioning = true)"
            /// ...            " GROUP BY day ORDER BY day")
            #[pyo3(
                signature = (start_date=None, end_date=None, *, tasks=None, kinds=None, concurrency=Number(8.0), on_progress=None, errors="raise", verify=false),
                text_signature = "($self, start_date=None, end_date=None, *, tasks=None, kinds=None, concurrency=8, on_progress=None, errors='raise', verify=False)"
            )]
            #[allow(clippy::too_many_arguments)]
            fn sync(
                &self,
                py: Python<'_>,
                start_date: Option<Day>,
                end_date: Option<Day>,
                tasks: Option<Vec<TaskId>>,
                kinds: Option<Kinds>,
                concurrency: Number,
                on_progress: Option<&Bound<'_, PyAny>>,
                errors: &str,
                verify: bool,
            ) -> PyResult<$output> {
                let range = date_range(py, start_date, end_date)?;
                let call = SyncCall::new(py, range, tasks, kinds, concurrency, on_progress, errors, verify)?;
                <$mode>::finish(py, "sync", call.job(py, &self.shared))
            }
        }
    };
}

report_methods!(Client, Blocking, Py<PyAny>);
report_methods!(AsyncClient, Async, Awaitable);
