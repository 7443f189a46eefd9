//! What one call may carry besides its arguments: an abort (the JavaScript `signal`) and its
//! own timeout (`timeoutMs`), and the client's logging.
//!
//! `index.js` makes a [`NativeCall`] for a call that has a `signal` or a `timeoutMs` and calls
//! its `abort()` when the signal fires. The call's future then resolves at once with an
//! `ABORTED` error and is dropped, with everything it owns: the request in flight (reqwest
//! cancels it), a bulk call's pending tasks (the core's bulk stream owns them).

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::{AbortHandle, AbortRegistration, Abortable};
use monapi::input::{self, Unit};
use monapi::Client;
use napi::bindgen_prelude::{PromiseRaw, ToNapiValue};
use napi::Env;
use napi_derive::napi;
use tracing::instrument::WithSubscriber;
use tracing::Dispatch;

use crate::boundary::{guard, spawn};
use crate::errors::{invalid_input, Result, Settled};

/// The abort switch and the timeout of one call.
#[napi]
pub struct NativeCall {
    handle: AbortHandle,
    registration: Mutex<Option<AbortRegistration>>,
    timeout: Option<Duration>,
}

#[napi]
impl NativeCall {
    /// A call with its own timeout in milliseconds (checked as the client's `timeoutMs`), or
    /// the client's.
    #[napi(catch_unwind, constructor)]
    pub fn new(env: Env, timeout_ms: Option<f64>) -> napi::Result<Self> {
        guard(&env, || {
            let timeout = timeout_ms
                .map(|ms| input::timeout("timeout", ms, Unit::Milliseconds))
                .transpose()?;
            let (handle, registration) = AbortHandle::new_pair();
            Ok(NativeCall {
                handle,
                registration: Mutex::new(Some(registration)),
                timeout,
            })
        })
    }

    /// Stops the call: its Promise rejects with `ABORTED` and nothing of it runs on.
    #[napi(catch_unwind)]
    pub fn abort(&self) {
        self.handle.abort();
    }
}

/// A call ready to start: the client (with the call's timeout), its abort registration and
/// the client's logging.
pub(crate) struct Context {
    pub client: Client,
    registration: Option<AbortRegistration>,
    /// The call was aborted before it started (its signal had already fired).
    aborted: bool,
    dispatch: Option<Dispatch>,
}

impl Context {
    /// The context of a call of `client` with `call`'s settings (a `NativeCall` serves one
    /// call: a second use is refused).
    pub fn new(client: &Client, call: Option<&NativeCall>, dispatch: Option<Dispatch>) -> Result<Context> {
        let Some(call) = call else {
            return Ok(Context {
                client: client.clone(),
                registration: None,
                aborted: false,
                dispatch,
            });
        };
        let client = match call.timeout {
            Some(timeout) => client.with_timeout(timeout)?,
            None => client.clone(),
        };
        let registration = call.registration.lock().unwrap_or_else(|e| e.into_inner()).take();
        if registration.is_none() {
            return Err(invalid_input("call", "was already used"));
        }
        Ok(Context {
            client,
            registration,
            aborted: call.handle.is_aborted(),
            dispatch,
        })
    }

    /// Starts the future `prepare` makes from the call's client on the runtime, under the
    /// client's logging, abortable; returns its Promise. A failure of `prepare` (arguments
    /// the core refused) rejects it, and so does an abort before the start: nothing is sent.
    pub fn spawn<'e, T, F, Fut>(self, env: &'e Env, prepare: F) -> napi::Result<PromiseRaw<'e, Settled<T>>>
    where
        T: ToNapiValue + Send + 'static,
        F: FnOnce(Client) -> Result<Fut>,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        // A call aborted before it starts is ABORTED, whatever its arguments: nothing is sent.
        if self.aborted {
            return spawn(env, async move { Err(monapi::Error::Aborted.into()) });
        }
        let future = match prepare(self.client) {
            Ok(future) => future,
            Err(failure) => return spawn(env, async move { Err(failure) }),
        };
        let registration = self.registration;
        let abortable = async move {
            match registration {
                Some(registration) => Abortable::new(future, registration)
                    .await
                    .unwrap_or_else(|_| Err(monapi::Error::Aborted.into())),
                None => future.await,
            }
        };
        match self.dispatch {
            Some(dispatch) => spawn(env, abortable.with_subscriber(dispatch)),
            None => spawn(env, abortable),
        }
    }
}
