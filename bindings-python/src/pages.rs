//! Iterators over every task of a paged list (service tasks, site tasks): they fetch the page
//! the core names next (`monapi::TaskPage::next`) until it names none; the core also decides
//! what an empty page is and reads a keyed page as its list (`TaskPage::records`), so a page
//! always arrives as a list.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use monapi::TaskList;
use pyo3::exceptions::{PyRuntimeError, PyStopAsyncIteration};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::blocking::run_job;
use crate::bridge::Awaitable;
use crate::job::Job;
use crate::runtime::lock;
use crate::shared::Shared;

/// Paging state: tasks fetched but not yet handed out, and the next page to fetch.
pub struct Pages {
    buffer: VecDeque<Py<PyAny>>,
    next_page: Option<u32>,
    busy: bool,
}

impl Default for Pages {
    fn default() -> Self {
        Pages {
            buffer: VecDeque::new(),
            next_page: Some(1),
            busy: false,
        }
    }
}

/// Clears `busy` however the fetch ends (success, error, cancellation, panic).
struct NotBusy(Arc<Mutex<Pages>>);

impl Drop for NotBusy {
    fn drop(&mut self) {
        lock(&self.0).busy = false;
    }
}

impl Pages {
    /// Takes in a fetched page (a list of tasks) and the page after it.
    fn take_page(&mut self, body: &Bound<'_, PyAny>, next: Option<u32>) -> PyResult<()> {
        let tasks = body.cast::<PyList>()?;
        self.buffer.extend(tasks.iter().map(Bound::unbind));
        self.next_page = next;
        Ok(())
    }

    /// The next page to fetch (marking a fetch as running), or `None` after the last.
    fn start(&mut self) -> PyResult<Option<u32>> {
        if self.busy {
            return Err(PyRuntimeError::new_err(
                "this iterator is already fetching a page (iterate it from one place at a time)",
            ));
        }
        if let Some(page) = self.next_page {
            self.busy = true;
            return Ok(Some(page));
        }
        Ok(None)
    }
}

/// The name of the call that makes an iterator over `list`, for errors.
fn call(list: TaskList) -> &'static str {
    match list {
        TaskList::Service => "iter_service_tasks",
        TaskList::Site => "iter_site_tasks",
    }
}

/// Iterator over every task of a list (from :meth:`Client.iter_service_tasks` and
/// :meth:`Client.iter_site_tasks`).
///
/// Pages are fetched as the iteration reaches them, without holding the GIL.
///
/// Examples
/// --------
/// >>> for task in client.iter_service_tasks():
/// ...     print(task["task_id"])
#[pyclass(module = "monapi", frozen)]
pub struct TaskIterator {
    shared: Arc<Shared>,
    list: TaskList,
    state: Arc<Mutex<Pages>>,
}

impl TaskIterator {
    pub fn new(shared: Arc<Shared>, list: TaskList) -> Self {
        TaskIterator {
            shared,
            list,
            state: Arc::default(),
        }
    }
}

#[pymethods]
impl TaskIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            let page = {
                let mut pages = lock(&self.state);
                if let Some(item) = pages.buffer.pop_front() {
                    return Ok(Some(item));
                }
                match pages.start()? {
                    Some(page) => page,
                    None => return Ok(None),
                }
            };
            let _busy = NotBusy(self.state.clone());
            let state = self.state.clone();
            let job = Job {
                future: self.shared.page(py, self.list, page)?,
                convert: Box::new(move |py, (parsed, next)| {
                    let body = parsed.into_py(py)?;
                    lock(&state).take_page(body.bind(py), next)?;
                    Ok(py.None())
                }),
            };
            run_job(py, job)?;
        }
    }
}

/// Async iterator over every task of a list (from :meth:`AsyncClient.iter_service_tasks` and
/// :meth:`AsyncClient.iter_site_tasks`).
///
/// Examples
/// --------
/// >>> async for task in client.iter_site_tasks():
/// ...     print(task["task_id"])
#[pyclass(module = "monapi", frozen)]
pub struct AsyncTaskIterator {
    shared: Arc<Shared>,
    list: TaskList,
    state: Arc<Mutex<Pages>>,
}

impl AsyncTaskIterator {
    pub fn new(shared: Arc<Shared>, list: TaskList) -> Self {
        AsyncTaskIterator {
            shared,
            list,
            state: Arc::default(),
        }
    }
}

#[pymethods]
impl AsyncTaskIterator {
    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __anext__(&self, py: Python<'_>) -> PyResult<Awaitable> {
        let page = {
            let mut pages = lock(&self.state);
            if let Some(item) = pages.buffer.pop_front() {
                return Ok(Awaitable::ready(call(self.list), Ok(item)));
            }
            match pages.start()? {
                Some(page) => page,
                None => return Err(PyStopAsyncIteration::new_err(())),
            }
        };
        // Busy until the page is stored, on the event loop: a second `__anext__` in between
        // would fetch the same page again. A fetch that fails or is cancelled drops the
        // conversion, and with it the guard.
        let busy = NotBusy(self.state.clone());
        let future = self.shared.page(py, self.list, page)?;
        let state = self.state.clone();
        Awaitable::new(
            py,
            call(self.list),
            Job {
                future,
                convert: Box::new(move |py, (parsed, next)| {
                    let _busy = busy;
                    let body = parsed.into_py(py)?;
                    let item = {
                        let mut pages = lock(&state);
                        pages.take_page(body.bind(py), next)?;
                        pages.buffer.pop_front()
                    };
                    item.ok_or_else(|| PyStopAsyncIteration::new_err(()))
                }),
            },
        )
    }
}
