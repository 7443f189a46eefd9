//! `client.sync()`: the core's [`Tables::sync`](monapi::table::Tables::sync), which brings the
//! client's local store up to date, for JavaScript.
//!
//! The options are read by the core's rules (dates as the table calls read them, task ids as
//! the other calls, `kinds` by [`StoreKind::parse_list`], `errors` by [`OnFailure::parse`]);
//! `onProgress` is queued to JavaScript, never blocking the sync, a bounded number at a time
//! ([`progress_callback`]). The report stays in Rust ([`NativeSync`]) until the TypeScript
//! layer reads it: its numbers, its failures (each error made a JavaScript `Error` on the
//! JavaScript thread) and the error the call fails with.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use monapi::input;
use monapi::store::{StoreKind, SyncOptions, SyncProgress, SyncReport};
use monapi::table::OnFailure;
use napi::bindgen_prelude::{Either, Function, Object, PromiseRaw, ToNapiValue};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::{Env, Status};
use napi_derive::napi;

use crate::call::NativeCall;
use crate::client::{id, range, NativeClient};
use crate::errors::{failure, invalid_input, Result, Settled};

/// How far a sync has come (`onProgress`): task-days (tasks times days) in all, done,
/// fetched, found in the store, failed; rows and bytes fetched.
#[napi(object)]
pub struct NativeSyncProgress {
    pub total: f64,
    pub done: f64,
    pub fetched: f64,
    pub reused: f64,
    pub failed: f64,
    pub rows: f64,
    pub bytes: f64,
}

impl From<SyncProgress> for NativeSyncProgress {
    fn from(progress: SyncProgress) -> Self {
        NativeSyncProgress {
            total: progress.total as f64,
            done: progress.done as f64,
            fetched: progress.fetched as f64,
            reused: progress.reused as f64,
            failed: progress.failed as f64,
            rows: progress.rows as f64,
            bytes: progress.bytes as f64,
        }
    }
}

/// The numbers of a sync's report (`SyncReport` in the TypeScript layer, without its failures);
/// `start` and `end` are `null` when no day of the range asked is settled yet.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct NativeSyncReport {
    pub start: Option<String>,
    pub end: Option<String>,
    pub tasks: f64,
    pub fetched: f64,
    pub reused: f64,
    pub rows: f64,
    pub bytes: f64,
    pub failed: f64,
    pub set_aside: Vec<String>,
    pub verified: f64,
    pub summary: String,
}

/// A run of task-days that failed, without its error (`NativeSync.failure(i)`).
#[napi(object, object_from_js = false)]
pub struct NativeSyncFailure {
    /// `service_report` or `site_report`.
    pub report: String,
    pub task_id: f64,
    pub start: String,
    pub end: String,
}

/// What a sync did, and the error it fails with (`errors: 'raise'` and some task-days failed).
#[napi]
pub struct NativeSync {
    report: SyncReport,
    raised: Option<monapi::Error>,
}

#[napi]
impl NativeSync {
    /// The report's numbers and its summary line.
    #[napi(catch_unwind)]
    pub fn report(&self) -> NativeSyncReport {
        let report = &self.report;
        NativeSyncReport {
            start: report.start.map(|day| day.to_string()),
            end: report.end.map(|day| day.to_string()),
            tasks: report.tasks as f64,
            fetched: report.fetched as f64,
            reused: report.reused as f64,
            rows: report.rows as f64,
            bytes: report.bytes as f64,
            failed: report.failed() as f64,
            set_aside: report
                .set_aside
                .iter()
                .map(|path| path.display().to_string())
                .collect(),
            verified: report.verified as f64,
            summary: report.summary(),
        }
    }

    /// The runs of task-days that failed, in the core's order (report, task, first day).
    #[napi(catch_unwind)]
    pub fn failures(&self) -> Vec<NativeSyncFailure> {
        self.report
            .failures
            .iter()
            .map(|f| NativeSyncFailure {
                report: f.report.to_string(),
                task_id: f.task_id as f64,
                start: f.start.to_string(),
                end: f.end.to_string(),
            })
            .collect()
    }

    /// The error of the `index`-th failure.
    #[napi(catch_unwind, ts_return_type = "Error")]
    pub fn failure<'e>(&self, env: &'e Env, index: u32) -> napi::Result<Object<'e>> {
        match self.report.failures.get(index as usize) {
            Some(f) => failure(&f.error).into_js(env),
            None => invalid_input("index", "is not a failure of this sync").into_js(env),
        }
    }

    /// The `PARTIAL_RESULT` error the sync fails with (`errors: 'raise'` and some task-days
    /// failed), or `null`.
    #[napi(catch_unwind, ts_return_type = "Error | null")]
    pub fn raised<'e>(&self, env: &'e Env) -> napi::Result<Option<Object<'e>>> {
        self.raised
            .as_ref()
            .map(|error| failure(error).into_js(env))
            .transpose()
    }
}

/// Progress events that may wait for the JavaScript thread. Beyond them the newest replaces
/// the last one waiting (only the latest progress matters): a busy thread never makes them pile
/// up, and a thread that keeps up gets every one.
const PROGRESS_QUEUED: usize = 32;

/// The core's progress callback for `callback`: each progress queued to the JavaScript thread
/// in order, never blocking the call (it runs inside the call's future, on a worker of the
/// runtime). At most [`PROGRESS_QUEUED`] wait; beyond them the newest replaces the last waiting,
/// so the last progress always comes. For the progress of a sync, and of a bulk call.
pub(crate) fn progress_callback<P, N>(
    callback: Function<'_, N, ()>,
) -> napi::Result<impl Fn(P) + Send + Sync + 'static>
where
    P: Into<N> + Send + 'static,
    N: ToNapiValue + 'static,
{
    let waiting = Arc::new(Mutex::new(VecDeque::<P>::with_capacity(PROGRESS_QUEUED)));
    let taken = waiting.clone();
    // One call is queued per progress waiting, so each call finds one (`None` cannot happen:
    // it would reach JavaScript as `null`).
    let tsfn = callback
        .build_threadsafe_function::<()>()
        .callee_handled::<false>()
        .weak::<true>()
        .build_callback(move |_| Ok(lock(&taken).pop_front().map(Into::into)))?;
    Ok(move |progress: P| {
        let mut waiting = lock(&waiting);
        if waiting.len() >= PROGRESS_QUEUED {
            if let Some(last) = waiting.back_mut() {
                *last = progress;
            }
            return;
        }
        waiting.push_back(progress);
        if tsfn.call((), ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
            // JavaScript is going away: nobody will take it.
            waiting.pop_back();
        }
    })
}

/// Locks a mutex, ignoring poisoning (the queue stays consistent).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The options of a sync, read by the core's rules; `onProgress` as the core's callback.
#[allow(clippy::too_many_arguments)]
fn sync_options(
    start_date: Option<String>,
    end_date: Option<String>,
    tasks: Option<&[Either<f64, String>]>,
    kinds: Option<&str>,
    concurrency: Option<f64>,
    on_progress: Option<Function<NativeSyncProgress, ()>>,
    errors: Option<&str>,
    verify: Option<bool>,
) -> Result<(SyncOptions, OnFailure)> {
    let mut options = SyncOptions::new()
        .range(range(start_date, end_date)?)
        .verify(verify.unwrap_or(false));
    if let Some(tasks) = tasks {
        let ids = tasks
            .iter()
            .map(|task| input::task_id(id(task)))
            .collect::<monapi::Result<_>>()?;
        options = options.tasks(ids);
    }
    if let Some(kinds) = kinds {
        options = options.kinds(StoreKind::parse_list("kinds", kinds)?);
    }
    if let Some(concurrency) = concurrency {
        options = options.concurrency(input::concurrency(concurrency)?);
    }
    if let Some(callback) = on_progress {
        options = options.on_progress(progress_callback::<SyncProgress, _>(callback)?);
    }
    let on_failure = errors.map(OnFailure::parse).transpose()?.unwrap_or_default();
    Ok((options, on_failure))
}

#[napi]
impl NativeClient {
    /// Brings the client's store up to date (`Tables::sync`): dates `YYYY-MM-DD` (unset: the
    /// core's default range), `tasks` ids (unset: every task), `kinds` comma-separated (unset:
    /// every kind), `errors` `"raise"` (default) or `"collect"`, `verify` (every file read whole).
    #[napi(catch_unwind, ts_return_type = "Promise<NativeSync>")]
    #[allow(clippy::too_many_arguments)]
    pub fn sync<'e>(
        &self,
        env: &'e Env,
        start_date: Option<String>,
        end_date: Option<String>,
        tasks: Option<Vec<Either<f64, String>>>,
        kinds: Option<String>,
        concurrency: Option<f64>,
        on_progress: Option<Function<NativeSyncProgress, ()>>,
        errors: Option<String>,
        verify: Option<bool>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeSync>>> {
        self.start(env, call, |client| {
            let (options, on_failure) = sync_options(
                start_date,
                end_date,
                tasks.as_deref(),
                kinds.as_deref(),
                concurrency,
                on_progress,
                errors.as_deref(),
                verify,
            )?;
            Ok(async move {
                let report = client.tables().sync(options).await?;
                Ok(NativeSync {
                    raised: report.error(on_failure),
                    report,
                })
            })
        })
    }
}
