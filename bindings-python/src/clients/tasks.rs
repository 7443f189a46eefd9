//! The task lists, the account's lists and task creation of `monapi.Client` and
//! `monapi.AsyncClient`.

use monapi::{Request, TaskList};
use pyo3::prelude::*;

use super::{AsyncClient, Client};
use crate::args::{Page, TaskId};
use crate::bridge::Awaitable;
use crate::encode::{server_tasks, service_tasks};
use crate::mode::{Async, Blocking, Mode};
use crate::pages::{AsyncTaskIterator, TaskIterator};

/// The methods of this file in both client classes (`$mode`, `$output` and `$pages` as in
/// `client_methods!` of `mod.rs`).
macro_rules! task_methods {
    ($class:ident, $mode:ty, $output:ty, $pages:ident) => {
        #[pymethods]
        impl $class {
            /// Create server monitoring tasks in one batch.
            ///
            /// The whole batch is checked against the service's rules first; nothing is sent when a
            /// task breaks one, and the error names every problem of every task.
            ///
            /// Parameters
            /// ----------
            /// tasks : list of dict
            ///     Server tasks with the API's fields. Only ``server_name``, ``private_ip``,
            ///     ``server_ip`` and ``server_systype`` are required: every other field left out
            ///     (``frequency``, ``snmp_port``, ``snmp_v``, ``snmp_comm``, ``use_agent``,
            ///     ``alert_setting``, ``task_type`` ...) takes the default of the Rust core's
            ///     ``ServerTask::new``, where the table of defaults is (every 5 minutes, SNMP v2c on
            ///     port 161 with community ``public``, no agent plugins, alerts for the creator only,
            ///     every indicator the system allows). Numbers may be given as ints or strings. A key
            ///     the service does not know is refused (a misspelt field would otherwise take its
            ///     default unnoticed).
            ///
            /// Returns
            /// -------
            /// list of dict
            ///     One ``{"task_id": ...}`` per created task, as sent by the service.
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ///     ``rule``); ``index`` and ``field`` are the first one's.
            /// PartialCreateError
            ///     Some tasks failed (``failed_indices``); all the others were created.
            /// ApiError
            ///     The service refused the batch with another error.
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``. The batch is never sent twice: once sent,
            ///     some of its tasks may have been created.
            /// ConnectionError
            ///     No connection, or it broke; once the batch was sent, as for a timeout.
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            ///
            /// Examples
            /// --------
            /// >>> client.create_server_tasks([{
            /// ...     "server_name": "web-01", "private_ip": "192.168.1.10",
            /// ...     "server_ip": "203.0.113.10", "server_systype": 0, "frequency": 5,
            /// ...     "task_type": ["cpu", "mem"]}])
            /// [{'task_id': 30001}]
            fn create_server_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<$output> {
                let request = Request::CreateServerTasks(server_tasks(py, tasks)?);
                <$mode>::finish(
                    py,
                    "create_server_tasks",
                    self.shared.raw(py, request, <$mode>::PARSE),
                )
            }

            /// Create service monitoring tasks in one batch.
            ///
            /// The whole batch is checked first against the rules of the service's documentation:
            /// nothing is sent when a task breaks one, and the error names every problem. The
            /// ``password`` of a task never appears in an error, a ``repr`` or a log line.
            ///
            /// Parameters
            /// ----------
            /// tasks : list of dict
            ///     Service tasks: ``task_name`` and ``task_type`` (apache, lighttpd, nginx,
            ///     mongodb, redis, memcache, mysql, tomcat, iis, sqlserver, oracle), the fields of
            ///     that type (``status_url``; ``ip``, ``port``, ``user``, ``password``;
            ///     ``appname``; ``logPath``), and optionally ``frequency`` (default 5),
            ///     ``use_agent`` and ``plugin_task_uselist_id``, and ``alert_setting`` (as for
            ///     server tasks; default: alerts for the creator only) or, without alerts,
            ///     ``open_scope`` (1-4) with ``organization`` or ``user_ids``.
            ///
            /// Returns
            /// -------
            /// list of dict
            ///     One ``{"task_id": ...}`` per created task, as sent by the service.
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     Tasks break rules: ``errors`` lists every problem (``index``, ``field``,
            ///     ``rule``).
            /// PartialCreateError
            ///     Some tasks failed (``failed_indices``); all the others were created. The batch
            ///     is never sent twice.
            /// ApiError
            ///     The service refused the batch with another error.
            /// AuthError
            ///     The service refused the credentials (:class:`InvalidClientError`,
            ///     :class:`InvalidGrantError`).
            /// TimeoutError
            ///     No complete answer within ``timeout``. The batch is never sent twice: once sent,
            ///     some of its tasks may have been created.
            /// ConnectionError
            ///     No connection, or it broke; once the batch was sent, as for a timeout.
            /// DecodeError
            ///     The answer is not the JSON the operation returns.
            ///
            /// Examples
            /// --------
            /// >>> client.create_service_tasks([{
            /// ...     "task_name": "orders-db", "task_type": "mysql", "ip": "192.168.1.20",
            /// ...     "port": 3306, "user": "monitor", "password": "..."}])
            /// [{'task_id': 200001}]
            fn create_service_tasks(&self, py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<$output> {
                let request = Request::CreateServiceTasks(service_tasks(py, tasks)?);
                <$mode>::finish(
                    py,
                    "create_service_tasks",
                    self.shared.raw(py, request, <$mode>::PARSE),
                )
            }

            /// One page of the service task list (50 tasks a page).
            ///
            /// Parameters
            /// ----------
            /// page : int, default 1
            ///     The page, counting from 1.
            ///
            /// Returns
            /// -------
            /// list of dict
            ///     Tasks with ``task_id``, ``task_name``, ``task_type``, ``frequency``,
            ///     ``last_check_time`` and ``task_status``, as sent (ids are strings).
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     ``page`` is not a whole number from 1 (nothing is sent).
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
            /// >>> tasks = client.service_tasks(page=1)
            /// >>> tasks[0]["task_id"]
            /// '10001'
            #[pyo3(signature = (page = Page(1)), text_signature = "($self, page=1)")]
            fn service_tasks(&self, py: Python<'_>, page: Page) -> PyResult<$output> {
                let request = Request::ServiceTasks { page: page.0 };
                <$mode>::finish(
                    py,
                    "service_tasks",
                    self.shared.raw(py, request, <$mode>::PARSE),
                )
            }

            /// Every service task, page after page, fetched as the iteration reaches them.
            ///
            /// Stops after the first page with fewer than 50 tasks; an empty page, however the
            /// service writes it (``[]``, ``{}`` or ``null``), is the last. A page that is neither
            /// a list nor empty raises :class:`DecodeError`.
            ///
            /// Returns
            /// -------
            /// TaskIterator
            ///     An iterator of task dicts.
            ///
            /// Raises
            /// ------
            /// DecodeError
            ///     While iterating: a page is neither a list nor empty.
            /// RuntimeError
            ///     While iterating: the iterator is already fetching a page elsewhere (iterate it
            ///     from one place at a time).
            /// MonapiError
            ///     While iterating: the errors of :meth:`service_tasks`, when it fetches a page.
            ///
            /// Examples
            /// --------
            /// >>> names = [task["task_name"] for task in client.iter_service_tasks()]
            fn iter_service_tasks(&self) -> $pages {
                $pages::new(self.shared.clone(), TaskList::Service)
            }

            /// One page of the site task list (up to 50 tasks a page), as sent.
            ///
            /// Parameters
            /// ----------
            /// page : int, default 1
            ///     The page, counting from 1.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Tasks with ``task_id``, ``task_name``, ``task_summary``, ``task_type``,
            ///     ``frequency``, ``task_status``, ``last_resp_time``, ``last_check_time`` ... as
            ///     sent (ids are strings); a page the service sends as an object keyed by task id
            ///     stays one (:meth:`iter_site_tasks` and ``tables.site_tasks()`` read both).
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     ``page`` is not a whole number from 1 (nothing is sent).
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
            /// >>> sites = client.site_tasks(page=1)
            /// >>> sites[0]["task_id"]
            /// '20001'
            #[pyo3(signature = (page = Page(1)), text_signature = "($self, page=1)")]
            fn site_tasks(&self, py: Python<'_>, page: Page) -> PyResult<$output> {
                let request = Request::SiteTasks { page: page.0 };
                <$mode>::finish(
                    py,
                    "site_tasks",
                    self.shared.raw(py, request, <$mode>::PARSE),
                )
            }

            /// Every site task, page after page, fetched as the iteration reaches them (the rule
            /// of :meth:`iter_service_tasks`; a page keyed by task id yields its tasks in order).
            ///
            /// Returns
            /// -------
            /// TaskIterator
            ///     An iterator of task dicts.
            ///
            /// Raises
            /// ------
            /// DecodeError
            ///     While iterating: a page is neither a list nor empty.
            /// RuntimeError
            ///     While iterating: the iterator is already fetching a page elsewhere (iterate it
            ///     from one place at a time).
            /// MonapiError
            ///     While iterating: the errors of :meth:`site_tasks`, when it fetches a page.
            ///
            /// Examples
            /// --------
            /// >>> ids = [int(task["task_id"]) for task in client.iter_site_tasks()]
            fn iter_site_tasks(&self) -> $pages {
                $pages::new(self.shared.clone(), TaskList::Site)
            }

            /// One site task's settings: the fields of the list and the monitoring points it uses.
            ///
            /// Parameters
            /// ----------
            /// task_id : int or str
            ///     A site task id.
            ///
            /// Returns
            /// -------
            /// dict
            ///     As sent: ``task_id``, ``task_name``, ``frequency`` ... and the monitoring points
            ///     it uses.
            ///
            /// Raises
            /// ------
            /// ValidationError
            ///     ``task_id`` is not a whole number above 0 (nothing is sent).
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
            /// >>> client.site_task(20001)["task_name"]
            /// 'site-01'
            fn site_task(&self, py: Python<'_>, task_id: TaskId) -> PyResult<$output> {
                let request = Request::SiteTask { task_id: task_id.0 };
                <$mode>::finish(
                    py,
                    "site_task",
                    self.shared.raw(py, request, <$mode>::PARSE),
                )
            }

            /// The monitoring points of the account: their ids are the keys of a site report.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Points with ``monitor_id``, ``monitor_name``, ``isp_name``, ``location_name``
            ///     ... as sent (a list, or an object keyed by id).
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
            /// >>> {p["monitor_id"]: p["monitor_name"] for p in client.monitors()}["1"]
            /// '北京电信'
            fn monitors(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(
                    py,
                    "monitors",
                    self.shared.raw(py, Request::Monitors, <$mode>::PARSE),
                )
            }

            /// Every user of the account: their ids are what ``alert_setting`` names.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Users with ``user_id``, ``user_email``, ``user_name``, ``user_status``,
            ///     ``role_id``, ``organization`` ... as sent.
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
            /// >>> [u["user_email"] for u in client.users()][:1]
            /// ['test@example.com']
            fn users(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(
                    py,
                    "users",
                    self.shared.raw(py, Request::Users, <$mode>::PARSE),
                )
            }

            /// The user groups of the account: their ids are what ``organization`` names.
            ///
            /// Returns
            /// -------
            /// list of dict or dict
            ///     Groups with ``organization_id``, ``organization_name``,
            ///     ``parent_organization_id``, ``user_num``, as sent.
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
            /// >>> [g["organization_name"] for g in client.user_groups()][:1]
            /// ['运维部']
            fn user_groups(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(
                    py,
                    "user_groups",
                    self.shared.raw(py, Request::UserGroups, <$mode>::PARSE),
                )
            }

            /// The collector agents with their plugins, keyed by agent id.
            ///
            /// Returns
            /// -------
            /// dict
            ///     ``{agent_id: {"name", "agentUrl": {"windows", "linux"}, "plugin": [...]}}``.
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
            /// >>> for agent_id, agent in client.agents().items():
            /// ...     print(agent_id, agent["name"], len(agent["plugin"]))
            fn agents(&self, py: Python<'_>) -> PyResult<$output> {
                <$mode>::finish(
                    py,
                    "agents",
                    self.shared.raw(py, Request::Agents, <$mode>::PARSE),
                )
            }
        }
    };
}

task_methods!(Client, Blocking, Py<PyAny>, TaskIterator);
task_methods!(AsyncClient, Async, Awaitable, AsyncTaskIterator);
