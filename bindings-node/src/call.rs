//! What one call may carry besides its arguments: an abort (the JavaScript `signal`), its
//! own timeout (`timeoutMs`), a recording of its spans (`telemetry.rs`), and the client's
//! logging.
//!
//! The layer (`ts/lib/args.ts`) makes a [`NativeCall`] for a call that has a `signal` or a
//! `timeoutMs`, or that the host's OpenTelemetry sees, and calls its `abort()` when the signal
//! fires. The call's future then resolves at once with an `ABORTED` error and is dropped, with
//! everything it owns: the request in flight (reqwest cancels it), a bulk call's pending tasks
//! (the core's bulk stream owns them), its open spans (ended as cancelled). The Promise
//! settles after that drop, so that the records `takeRecords()` gives then are complete.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{AbortHandle, AbortRegistration, Abortable};
use monapi::input::{self, Unit};
use monapi::telemetry::Recording;
use monapi::Client;
use napi::bindgen_prelude::{PromiseRaw, ToNapiValue};
use napi::Env;
use napi_derive::napi;
use tracing::instrument::WithSubscriber;
use tracing::Dispatch;

use crate::boundary::{guard, spawn};
use crate::errors::{invalid_input, Result, Settled};
use crate::telemetry::NativeRecords;

/// The abort switch, the timeout and the recording of one call.
#[napi]
pub struct NativeCall {
    handle: AbortHandle,
    registration: Mutex<Option<AbortRegistration>>,
    timeout: Option<Duration>,
    recording: Option<Arc<Recording>>,
}

#[napi]
impl NativeCall {
    /// A call with its own timeout in milliseconds (checked as the client's `timeoutMs`), or
    /// the client's. With `record`, its spans and measurements are recorded (`takeRecords`),
    /// and `traceparent` (the caller's span as W3C trace context; anything else is dropped)
    /// is what its requests carry when the client's `propagateTraceContext` is on.
    #[napi(catch_unwind, constructor)]
    pub fn new(
        env: Env,
        timeout_ms: Option<f64>,
        record: Option<bool>,
        traceparent: Option<String>,
    ) -> napi::Result<Self> {
        guard(&env, || {
            let timeout = timeout_ms
                .map(|ms| input::timeout("timeout", ms, Unit::Milliseconds))
                .transpose()?;
            let (handle, registration) = AbortHandle::new_pair();
            Ok(NativeCall {
                handle,
                registration: Mutex::new(Some(registration)),
                timeout,
                recording: record.unwrap_or(false).then(|| Recording::new(traceparent)),
            })
        })
    }

    /// Stops the call: its Promise rejects with `ABORTED` and nothing of it runs on.
    #[napi(catch_unwind)]
    pub fn abort(&self) {
        self.handle.abort();
    }

    /// What the call recorded so far, taken out (complete once its Promise has settled);
    /// `null` for a call not recorded.
    #[napi(catch_unwind)]
    pub fn take_records(&self) -> Option<NativeRecords> {
        self.recording.as_ref().map(|recording| recording.take().into())
    }
}

/// A call ready to start: the client (with the call's timeout), its abort registration, its
/// recording and the client's logging.
pub(crate) struct Context {
    pub client: Client,
    registration: Option<AbortRegistration>,
    /// The call was aborted before it started (its signal had already fired).
    aborted: bool,
    recording: Option<Arc<Recording>>,
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
                recording: None,
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
            recording: call.recording.clone(),
            dispatch,
        })
    }

    /// Starts the future `prepare` makes from the call's client on the runtime, under the
    /// client's logging, abortable, recorded when the call is; returns its Promise. A failure
    /// of `prepare` (arguments the core refused) rejects it, and so does an abort before the
    /// start: nothing is sent (nor recorded).
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
        // Boxed at once: a call's future is large (tens of KiB in a debug build), and each
        // layer below would copy it on the JavaScript thread's stack, whose depth V8 bounds
        // (JavaScript run from there, such as async hooks' on the Promise made, would throw).
        let future = match prepare(self.client) {
            Ok(future) => Box::pin(future),
            Err(failure) => return spawn(env, async move { Err(failure) }),
        };
        let registration = self.registration;
        let recording = self.recording;
        // The future is dropped inside `await` (an abort: its spans end as cancelled), before
        // the Promise settles.
        let abortable = async move {
            match registration {
                Some(registration) => Abortable::new(future, registration)
                    .await
                    .unwrap_or_else(|_| Err(monapi::Error::Aborted.into())),
                None => future.await,
            }
        };
        // Recorded inside the task spawned: the recording is a task-local of the core's.
        let abortable = async move {
            match recording {
                Some(recording) => recording.scope(abortable).await,
                None => abortable.await,
            }
        };
        match self.dispatch {
            Some(dispatch) => spawn(env, abortable.with_subscriber(dispatch)),
            None => spawn(env, abortable),
        }
    }
}
