//! What `Client` and `AsyncClient` share: the resolved settings, the token callback, and the
//! core client of this process (built again in a child after `fork()`), with the jobs each
//! operation runs.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use monapi::{ClientBuilder, Request, Settings, TaskList, Token};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::PyTraverseError;

use crate::arriving::Arrival;
use crate::decode::Parsed;
use crate::errors::{new_error, to_pyerr};
use crate::job::{BoxFuture, Job, Parse};
use crate::logging;
use crate::options::Given;
use crate::runtime::lock;
use crate::token::token_to_py;

enum Slot {
    /// The core client of process `pid` (a forked child builds its own).
    Open {
        pid: u32,
        client: monapi::Client,
    },
    Closed {
        token: Option<Token>,
    },
}

/// The user's `on_token`, held in one place: the core client's callback reaches it through
/// here, and the owning `Client`/`AsyncClient` shows it to Python's cyclic garbage collector
/// (`self.client = Client(on_token=self.save)` is a reference cycle that must be collectable).
#[derive(Default)]
pub struct TokenCallback(Mutex<Option<Py<PyAny>>>);

impl TokenCallback {
    pub fn is_set(&self) -> bool {
        lock(&self.0).is_some()
    }

    /// `__traverse__`: the callback, if set. Never blocks (the collector holds the GIL, and
    /// the lock is only taken with the GIL held, so it is free unless this thread has it).
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        match self.0.try_lock() {
            Ok(callback) => visit.call(callback.as_ref()),
            Err(_) => Ok(()),
        }
    }

    /// `__clear__`: drops the callback, breaking the cycle.
    pub fn clear(&self) {
        let callback = lock(&self.0).take();
        drop(callback);
    }

    /// Calls the callback with the new token; an exception (or a panic) is logged at WARNING
    /// and goes no further.
    pub fn notify(&self, token: &Token) {
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
            Python::try_attach(|py| {
                // Taken out of the lock before the call: the callback may run any Python code.
                let Some(callback) = lock(&self.0).as_ref().map(|c| c.clone_ref(py)) else {
                    return;
                };
                let result = token_to_py(py, token).and_then(|t| callback.call1(py, (t,)));
                if let Err(error) = result {
                    logging::warning_with(
                        py,
                        "the on_token callback raised an exception; the new token is in use but was not saved",
                        error,
                    );
                }
            })
        }));
    }
}

/// What `Client` and `AsyncClient` share: settings, the token callback, the core client.
pub struct Shared {
    /// What the core built the client from, every fallback resolved (for a forked child
    /// and for pickling).
    pub settings: Settings,
    pub on_token: Arc<TokenCallback>,
    slot: Mutex<Slot>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // A core client inherited through fork() holds connections of the parent's runtime:
        // leaked rather than torn down in a process where that runtime does not run.
        let slot = self.slot.get_mut().unwrap_or_else(|e| e.into_inner());
        if matches!(slot, Slot::Open { pid, .. } if *pid != std::process::id()) {
            std::mem::forget(std::mem::replace(slot, Slot::Closed { token: None }));
        }
    }
}

impl Shared {
    /// Builds the core client from the caller's keyword arguments (the core checks them all).
    pub fn new(py: Python<'_>, given: Given) -> PyResult<Shared> {
        let on_token = Arc::new(TokenCallback(Mutex::new(given.on_token)));
        let client = build(py, given.builder, &on_token)?;
        Ok(Shared {
            settings: client.settings().clone(),
            on_token,
            slot: Mutex::new(Slot::Open {
                pid: std::process::id(),
                client,
            }),
        })
    }

    /// The core client of this process: built again in a forked child, whose copy of the
    /// parent's holds connections of a runtime that does not run there (it is leaked).
    pub fn client(&self, py: Python<'_>) -> PyResult<monapi::Client> {
        logging::refresh(py);
        let pid = std::process::id();
        let mut slot = lock(&self.slot);
        match &*slot {
            Slot::Open { pid: owner, client } if *owner == pid => Ok(client.clone()),
            Slot::Open { client, .. } => {
                let fresh = build(py, rebuild(&self.settings, client.token()), &self.on_token)?;
                let inherited = std::mem::replace(
                    &mut *slot,
                    Slot::Open {
                        pid,
                        client: fresh.clone(),
                    },
                );
                std::mem::forget(inherited);
                Ok(fresh)
            }
            Slot::Closed { .. } => Err(new_error(
                py,
                "MonapiError",
                "the client is closed; create a new one",
                &[],
            )),
        }
    }

    pub fn token(&self) -> Option<Token> {
        match &*lock(&self.slot) {
            Slot::Open { client, .. } => client.token(),
            Slot::Closed { token } => token.clone(),
        }
    }

    pub fn close(&self) {
        let mut slot = lock(&self.slot);
        if let Slot::Open { pid, client } = &*slot {
            let (owner, token) = (*pid, client.token());
            let previous = std::mem::replace(&mut *slot, Slot::Closed { token });
            if owner != std::process::id() {
                std::mem::forget(previous);
            }
        }
    }

    pub fn closed(&self) -> bool {
        matches!(&*lock(&self.slot), Slot::Closed { .. })
    }

    /// Sends `request`; the body is parsed without the GIL as `parse` says.
    pub fn raw(&self, py: Python<'_>, request: Request, parse: Parse) -> PyResult<Job<Parsed>> {
        let client = self.client(py)?;
        let future: BoxFuture<Parsed> = match parse {
            Parse::Whole => Box::pin(async move { Ok(Parsed::whole(client.execute(&request).await?).await) }),
            // The reports, large on a slow link: built as they arrive.
            Parse::WhileBuilding
                if matches!(
                    request,
                    Request::ServiceReport { .. } | Request::SiteReport { .. }
                ) =>
            {
                Box::pin(async move { Ok(Parsed::Arriving(Box::new(Arrival::start(client, request)))) })
            }
            Parse::WhileBuilding => {
                Box::pin(async move { client.execute(&request).await.map(Parsed::streamed) })
            }
        };
        Ok(Job {
            future,
            convert: Box::new(|py, parsed| parsed.into_py(py)),
        })
    }

    /// Fetches page `number` of `list`: its tasks as a list (a keyed page's values), parsed
    /// without the GIL, and the page after it as the core decides (`None` after the last).
    pub fn page(
        &self,
        py: Python<'_>,
        list: TaskList,
        number: u32,
    ) -> PyResult<BoxFuture<(Parsed, Option<u32>)>> {
        let client = self.client(py)?;
        Ok(Box::pin(async move {
            let page = client.task_page(list, number).await?;
            let next = page.next();
            Ok((Parsed::whole(page.records()).await, next))
        }))
    }

    pub fn login(&self, py: Python<'_>) -> PyResult<Job<Token>> {
        let client = self.client(py)?;
        Ok(Job {
            future: Box::pin(async move { client.login().await }),
            convert: Box::new(|py, token| Ok(token_to_py(py, &token)?.unbind())),
        })
    }

    pub fn refresh(&self, py: Python<'_>) -> PyResult<Job<Token>> {
        let client = self.client(py)?;
        Ok(Job {
            future: Box::pin(async move { client.refresh().await }),
            convert: Box::new(|py, token| Ok(token_to_py(py, &token)?.unbind())),
        })
    }

    pub fn token_py(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.token()
            .map(|t| token_to_py(py, &t).map(Bound::unbind))
            .transpose()
    }

    pub fn repr(&self, class: &str) -> String {
        let s = &self.settings;
        let token = if self.closed() {
            "closed".to_string()
        } else {
            match self.token() {
                None => "no token yet".to_string(),
                Some(t) => match t.expires_at {
                    Some(at) => format!("token expires at {at} (unix time)"),
                    None => "token with unknown expiry".to_string(),
                },
            }
        };
        format!(
            "<monapi.{class} base_url={:?} client_id={:?} username={:?}, {token}>",
            s.base_url,
            s.client_id,
            s.username.as_deref().unwrap_or(""),
        )
    }

    /// `__traverse__` of the owning client: the callback is its only Python reference.
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.on_token.traverse(visit)
    }
}

/// Builds the core client from `builder`, with `on_token` (if set) as its token callback.
fn build(py: Python<'_>, builder: ClientBuilder, on_token: &Arc<TokenCallback>) -> PyResult<monapi::Client> {
    let builder = if on_token.is_set() {
        let callback = on_token.clone();
        builder.on_token(move |token| callback.notify(token))
    } else {
        builder
    };
    builder.build().map_err(|e| to_pyerr(py, e))
}

/// The builder of a client equal to one built from `settings` (in a forked child), resuming
/// with `token`.
fn rebuild(settings: &Settings, token: Option<Token>) -> ClientBuilder {
    let builder = ClientBuilder::from(settings.clone());
    match token {
        Some(token) => builder.token(token),
        None => builder,
    }
}
