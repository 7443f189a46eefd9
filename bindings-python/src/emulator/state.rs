//! What `monapi.testing.Emulator` holds and lets a test change: its counters, the tasks
//! created through it, the sites made to fail and the tasks removed.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use super::clock::refused;
use super::Emulator;
use crate::args::TaskId;
use crate::decode::value_to_py;

#[pymethods]
impl Emulator {
    /// Requests served so far, by endpoint.
    ///
    /// Returns
    /// -------
    /// dict
    ///     ``token``, ``token_password``, ``token_refresh``, ``create``,
    ///     ``service_tasks``, ``agents``, ``service_report``, ``site_report``,
    ///     ``distribution``, ``site_tasks``, ``site_task``, ``monitors``, ``users``,
    ///     ``groups``, ``create_service`` and ``total``; ``connections`` counts the TCP connections
    ///     accepted (over HTTPS too, even when the client refused the certificate),
    ///     ``peak_in_progress`` the most API requests in progress at once, ``compressed`` the
    ///     answers sent compressed, ``traced`` the API requests that carried a
    ///     ``traceparent`` header, and ``traceparent`` the last one's (``None`` before any).
    ///
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> emulator.counters()["token_refresh"]
    /// 0
    fn counters(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let counters = self.with(|e| e.counters())?;
        let value = serde_json::to_value(counters).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(value_to_py(py, &value)?.unbind())
    }

    /// The server tasks created so far, as stored (the submitted fields plus ``task_id``).
    ///
    /// Returns
    /// -------
    /// list of dict
    ///     One dict per task created through this emulator.
    ///
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> [t["server_name"] for t in emulator.server_tasks()]
    /// ['web-01']
    fn server_tasks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let tasks = self.with(|e| e.server_tasks())?;
        Ok(value_to_py(py, &serde_json::Value::Array(tasks))?.unbind())
    }

    /// The service tasks created so far, as stored (the submitted fields plus ``task_id``).
    ///
    /// Returns
    /// -------
    /// list of dict
    ///     One dict per task created through this emulator.
    ///
    /// Raises
    /// ------
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> [t["task_type"] for t in emulator.created_service_tasks()]
    /// ['nginx']
    fn created_service_tasks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let tasks = self.with(|e| e.created_service_tasks())?;
        Ok(value_to_py(py, &serde_json::Value::Array(tasks))?.unbind())
    }

    /// Make site task ``task_id`` fail from now on, at every monitoring point.
    ///
    /// From the site's last check at or before this moment (the moment rounded down to its
    /// frequency), every check of every point fails: ``uprate`` ``"0.00"`` (the average's
    /// too) and response times of ``"0.00"``; each point has an ongoing fault (``end_time``
    /// ``"未结束"``) starting at that check, with a cause of the service's. Until
    /// :meth:`recover_site` or :meth:`reset`; a site already failing stays as it is.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task of this emulator (20001, 20002, ...).
    ///
    /// Returns
    /// -------
    /// int
    ///     The unix time of the first failed check (the faults' ``start_time``).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its site tasks (``field`` is ``"task_id"``).
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> since = emulator.fail_site(20001)
    /// >>> report = client.site_report(20001)
    /// >>> report["0"]["uprate"][str(since)]["uprate"]
    /// '0.00'
    fn fail_site(&self, py: Python<'_>, task_id: TaskId) -> PyResult<i64> {
        self.with(|e| e.fail_site(task_id.0))?.map_err(|e| refused(py, e))
    }

    /// End the failure of site task ``task_id`` (:meth:`fail_site`).
    ///
    /// Its last check at or before this moment failed still; the check after it is up again
    /// and is the faults' ``end_time`` (no longer ``"未结束"``), and the checks from it on are
    /// as before the failure.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A site task of this emulator.
    ///
    /// Returns
    /// -------
    /// int or None
    ///     The unix time of the first check up again, or ``None`` when the site was not
    ///     failing (nothing changes).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its site tasks.
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> up = emulator.recover_site(20001)
    fn recover_site(&self, py: Python<'_>, task_id: TaskId) -> PyResult<Option<i64>> {
        self.with(|e| e.recover_site(task_id.0))?
            .map_err(|e| refused(py, e))
    }

    /// Take seeded task ``task_id`` out of the account, as a user deleting it in the
    /// service's console.
    ///
    /// From the next request on, its list (:meth:`monapi.Client.service_tasks` or
    /// :meth:`monapi.Client.site_tasks`) is paged without it, 50 a page (the later pages
    /// shift), and every operation naming it (reports, response-time distribution,
    /// :meth:`monapi.Client.site_task`) answers as for an id that does not exist. Until
    /// :meth:`restore_task` or :meth:`reset`.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A service task (10001, 10002, ...) or a site task (20001, 20002, ...) of this
    ///     emulator.
    ///
    /// Returns
    /// -------
    /// bool
    ///     Whether anything changed (``False`` for a task removed already).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its seeded tasks (``field`` is ``"task_id"``).
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> emulator.remove_task(20002)
    /// True
    /// >>> [t["task_id"] for t in client.site_tasks()]
    /// ['20001', '20003', '20004', '20005']
    fn remove_task(&self, py: Python<'_>, task_id: TaskId) -> PyResult<bool> {
        self.with(|e| e.remove_task(task_id.0))?
            .map_err(|e| refused(py, e))
    }

    /// Bring back task ``task_id`` taken out by :meth:`remove_task`, at its place in its list.
    ///
    /// Parameters
    /// ----------
    /// task_id : int or str
    ///     A seeded task of this emulator.
    ///
    /// Returns
    /// -------
    /// bool
    ///     Whether anything changed (``False`` for a task that was not removed).
    ///
    /// Raises
    /// ------
    /// ValidationError
    ///     ``task_id`` is not one of its seeded tasks.
    /// RuntimeError
    ///     The emulator is stopped.
    ///
    /// Examples
    /// --------
    /// >>> emulator.restore_task(20002)
    /// True
    fn restore_task(&self, py: Python<'_>, task_id: TaskId) -> PyResult<bool> {
        self.with(|e| e.restore_task(task_id.0))?
            .map_err(|e| refused(py, e))
    }
}
