//! [`Tables::sync`]: brings a store up to date, the step a daily job runs.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{Days, NaiveDate};
use futures::stream::{self, StreamExt};

use super::read::{self, days_from, Report};
use super::StoreKind;
use crate::table::client::{fetch, last_settled};
use crate::table::{check_concurrency, OnFailure, Tables, DEFAULT_CONCURRENCY};
use crate::{telemetry, DateRange, Error, Result};

/// Days a sync covers when its range is left out: the last 30 settled days.
pub const DEFAULT_SYNC_DAYS: u64 = 30;

/// How far a sync has come, handed to [`SyncOptions::on_progress`]: once before the first
/// task (nothing done), then after each task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncProgress {
    /// Task-days in the sync (tasks times days).
    pub total: u64,
    /// Task-days done: fetched, found in the store, or failed.
    pub done: u64,
    /// Task-days fetched.
    pub fetched: u64,
    /// Task-days the store already held.
    pub reused: u64,
    /// Task-days whose fetch failed.
    pub failed: u64,
    /// Rows fetched.
    pub rows: u64,
    /// Bytes of the bodies fetched.
    pub bytes: u64,
}

/// A function called with a sync's [`SyncProgress`]; it runs inside the sync: keep it short.
pub type SyncProgressCallback = Arc<dyn Fn(SyncProgress) + Send + Sync>;

/// What a sync covers: days, tasks, kinds of tables, and how many tasks at once.
///
/// ```
/// use monapi::store::{StoreKind, SyncOptions};
/// let options = SyncOptions::new()
///     .tasks(vec![10001, 20001])
///     .kinds(vec![StoreKind::ServiceReport])
///     .concurrency(4);
/// ```
#[derive(Clone)]
pub struct SyncOptions {
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
    tasks: Option<Vec<u64>>,
    kinds: Vec<StoreKind>,
    concurrency: usize,
    verify: bool,
    on_progress: Option<SyncProgressCallback>,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            start: None,
            end: None,
            tasks: None,
            kinds: StoreKind::ALL.to_vec(),
            concurrency: DEFAULT_CONCURRENCY,
            verify: false,
            on_progress: None,
        }
    }
}

impl fmt::Debug for SyncOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncOptions")
            .field("start", &self.start)
            .field("end", &self.end)
            .field("tasks", &self.tasks)
            .field("kinds", &self.kinds)
            .field("concurrency", &self.concurrency)
            .field("verify", &self.verify)
            .field("on_progress", &self.on_progress.is_some())
            .finish()
    }
}

impl SyncOptions {
    /// The defaults: the last [`DEFAULT_SYNC_DAYS`] settled days, every task, every kind,
    /// [`DEFAULT_CONCURRENCY`] tasks at once.
    pub fn new() -> Self {
        Self::default()
    }

    /// The days to cover; a date left out is the default's. Days not settled yet are left
    /// out (a store keeps only settled days).
    pub fn range(mut self, range: DateRange) -> Self {
        self.start = range.start;
        self.end = range.end;
        self
    }

    /// These tasks (service or site task ids) rather than every task of the account.
    pub fn tasks(mut self, tasks: Vec<u64>) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// These kinds of tables rather than all (a site report is fetched whole, and the kinds
    /// asked kept).
    pub fn kinds(mut self, kinds: Vec<StoreKind>) -> Self {
        self.kinds = kinds;
        self
    }

    /// How many tasks are fetched at once (1 or more).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Whether every file of the range is read whole and its checksum checked, not only
    /// listed: those that fail are set aside in `.corrupt/` and fetched again
    /// ([`SyncReport::verified`], [`SyncReport::set_aside`]). A file garbled after it was
    /// written (a disk, a copy, a hand) is otherwise found only when a read meets it.
    pub fn verify(mut self, verify: bool) -> Self {
        self.verify = verify;
        self
    }

    /// Called with the progress: once at the start, then after each task.
    pub fn on_progress(mut self, callback: impl Fn(SyncProgress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }
}

/// A run of days of one task whose fetch (or write) failed: not recorded as held, so the
/// next sync fetches it again.
#[derive(Debug)]
pub struct SyncFailure {
    /// `service_report` or `site_report`.
    pub report: &'static str,
    /// The task.
    pub task_id: u64,
    /// The run's first and last days.
    pub start: NaiveDate,
    /// The run's last day.
    pub end: NaiveDate,
    /// Why.
    pub error: Error,
}

/// What a sync did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// The days covered (`None` when no day of the range asked is settled yet).
    pub start: Option<NaiveDate>,
    /// The last day covered.
    pub end: Option<NaiveDate>,
    /// `(report, task)` pairs synced.
    pub tasks: usize,
    /// Task-days fetched.
    pub fetched: u64,
    /// Task-days the store already held.
    pub reused: u64,
    /// Rows fetched.
    pub rows: u64,
    /// Bytes of the bodies fetched.
    pub bytes: u64,
    /// Runs of task-days that failed (the next sync retries them).
    pub failures: Vec<SyncFailure>,
    /// Files that did not read, set aside in `.corrupt/` and fetched again.
    pub set_aside: Vec<PathBuf>,
    /// Files read whole and checked by a sync with [`SyncOptions::verify`] (0 without).
    pub verified: u64,
}

impl SyncReport {
    /// Task-days whose fetch failed.
    pub fn failed(&self) -> u64 {
        self.failures.iter().map(|f| days_from(f.start, f.end)).sum()
    }

    /// The error a sync fails with when some task-days failed and `on_failure` is
    /// [`OnFailure::Raise`]: an [`Error::PartialResult`] counting tasks, naming the first
    /// failure; `None` otherwise.
    ///
    /// ```
    /// use monapi::store::{SyncFailure, SyncReport};
    /// use monapi::table::OnFailure;
    /// let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
    /// let failure = SyncFailure { report: "service_report", task_id: 10001, start: day, end: day, error: monapi::Error::Aborted };
    /// let report = SyncReport { tasks: 3, failures: vec![failure], ..Default::default() };
    /// assert_eq!(report.error(OnFailure::Raise).unwrap().code(), "PARTIAL_RESULT");
    /// assert!(report.error(OnFailure::Collect).is_none());
    /// ```
    pub fn error(&self, on_failure: OnFailure) -> Option<Error> {
        let first = self.failures.first().filter(|_| on_failure == OnFailure::Raise)?;
        let mut failed: Vec<u64> = self.failures.iter().map(|f| f.task_id).collect();
        failed.dedup();
        Some(Error::PartialResult {
            failed: failed.len(),
            total: self.tasks,
            first_task: first.task_id,
            first_error: format!(
                "{} from {} to {}: {}",
                first.report, first.start, first.end, first.error
            ),
        })
    }

    /// The one line a sync ends with.
    ///
    /// ```
    /// let report = monapi::store::SyncReport { fetched: 30, reused: 3570, rows: 41_000, bytes: 2_500_000, ..Default::default() };
    /// assert_eq!(report.summary(), "30 task-days fetched, 3570 reused, 41000 rows, 2500000 bytes, 0 failed");
    /// ```
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{} task-days fetched, {} reused, {} rows, {} bytes, {} failed",
            self.fetched,
            self.reused,
            self.rows,
            self.bytes,
            self.failures
                .iter()
                .map(|f| days_from(f.start, f.end))
                .sum::<u64>()
        );
        if self.verified > 0 {
            line.push_str(&format!(", {} files verified", self.verified));
        }
        if !self.set_aside.is_empty() {
            line.push_str(&format!(", {} corrupt files set aside", self.set_aside.len()));
        }
        line
    }
}

impl Tables {
    /// Brings the client's store up to date: every settled day of the range, for every task
    /// asked, in every kind asked. Task-days the store holds (found by one listing of each
    /// kind's day; in a directory each file's footer is checked, and with
    /// [`SyncOptions::verify`] every file is read whole) are not fetched; a task's missing days are fetched in runs of consecutive
    /// days (at most 10 days each), one request each, and written as they come (memory holds
    /// the runs in flight, never the range). A run that fails is listed in [`SyncReport::failures`] and the
    /// others go on; it is not recorded, so the next sync fetches it.
    ///
    /// Input is checked, a token obtained and the task lists read before any report is asked
    /// for; a failure there is the call's error.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// let dir = std::env::temp_dir().join(format!("monapi-doc-sync-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    ///     .client_secret("demo_secret").username("test@example.com").password("123456")
    ///     .store(&dir).build()?;
    /// let options = monapi::store::SyncOptions::new().tasks(vec![10001]);
    /// let report = client.tables().sync(options.clone()).await?;
    /// assert_eq!(report.fetched, 30);
    /// assert_eq!(client.tables().sync(options).await?.reused, 30); // nothing fetched again
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// A run that fails is no error of the call (see [`SyncReport::error`] to make it one).
    /// The call fails, before any report is asked for, with:
    ///
    /// - [`Error::InvalidInput`](crate::Error::InvalidInput) when the client has no store, the
    ///   concurrency is 0, no kind is asked, the range starts after it ends, or a task asked is
    ///   in none of the task lists of the kinds asked;
    /// - the errors of [`Store::open`](super::Store::open) when the store cannot be opened;
    /// - those of every call of the client (see [`Client`](crate::Client#errors)) when no token
    ///   or task list can be had.
    pub async fn sync(&self, options: SyncOptions) -> Result<SyncReport> {
        let rows = |report: &SyncReport| Some(report.rows as usize);
        telemetry::operation("sync", None, self.sync_unseen(options), rows).await
    }

    async fn sync_unseen(&self, options: SyncOptions) -> Result<SyncReport> {
        let store = self.open_store().await?.ok_or_else(|| {
            Error::invalid_input(
                None,
                "store",
                "is required to sync: give the client a store directory (store, MONAPI_STORE, or the directory of `monapi sync DIR`)",
            )
        })?;
        check_concurrency(options.concurrency)?;
        if options.kinds.is_empty() {
            return Err(Error::invalid_input(
                None,
                "kinds",
                "must name at least one kind of table",
            ));
        }
        DateRange {
            start: options.start,
            end: options.end,
        }
        .validate()?;
        let settled = last_settled(&self.client);
        let end = options.end.unwrap_or(settled).min(settled);
        let start = options
            .start
            .unwrap_or_else(|| settled - Days::new(DEFAULT_SYNC_DAYS - 1));
        let mut report = SyncReport::default();
        if start > end {
            return Ok(report);
        }
        (report.start, report.end) = (Some(start), Some(end));
        let range = DateRange::new(start, end);
        self.client.ensure_token().await?;
        let jobs = self.jobs(&options).await?;
        report.tasks = jobs.len();
        // Listing, stat and removal: off the runtime's threads. The sweep is a clean-up: a
        // failure of it is no failure of the sync.
        let sweeping = store.clone();
        let _ = tokio::task::spawn_blocking(move || sweeping.sweep()).await;
        // What the store holds already: one listing per kind and day, for every task (and
        // each file read whole when verifying), several days at once.
        let mut held = read::held(&store, &options.kinds, range, options.verify, options.concurrency).await?;
        report.set_aside.append(&mut held.set_aside);
        report.verified = held.verified;

        let days = days_from(start, end);
        let mut progress = SyncProgress {
            total: days * jobs.len() as u64,
            ..SyncProgress::default()
        };
        let tell = |progress: SyncProgress| {
            if let Some(callback) = &options.on_progress {
                callback(progress);
            }
        };
        tell(progress);
        let kinds = &options.kinds;
        let (store, held) = (&store, &held);
        let mut done = stream::iter(jobs)
            .map(|(report, task)| async move {
                let fetch = fetch(&self.client, report, task);
                let syncing = read::sync_task(store, report, kinds, task, range, held, &fetch);
                let through = telemetry::child(report.name(), Some(task), syncing, |t| Some(t.rows)).await;
                (report, task, through)
            })
            .buffer_unordered(options.concurrency);
        while let Some((kind, task, through)) = done.next().await {
            // A task whose store failed (a file that could not be opened, a directory that
            // could not be listed) fails whole, as a run of every day; the others go on.
            let through = through.unwrap_or_else(|error| read::Through {
                failures: vec![(start, end, error)],
                ..read::Through::default()
            });
            let failed: u64 = through
                .failures
                .iter()
                .map(|(first, last, _)| days_from(*first, *last))
                .sum();
            progress.fetched += through.fetched as u64;
            progress.reused += through.reused as u64;
            progress.failed += failed;
            progress.done += through.fetched as u64 + through.reused as u64 + failed;
            progress.rows += through.rows as u64;
            progress.bytes += through.bytes as u64;
            report.set_aside.extend(through.set_aside);
            report.failures.extend(
                through
                    .failures
                    .into_iter()
                    .map(|(start, end, error)| SyncFailure {
                        report: kind.name(),
                        task_id: task,
                        start,
                        end,
                        error,
                    }),
            );
            tell(progress);
        }
        report.failures.sort_by_key(|f| (f.report, f.task_id, f.start));
        report.fetched = progress.fetched;
        report.reused = progress.reused;
        report.rows = progress.rows;
        report.bytes = progress.bytes;
        Ok(report)
    }

    /// The `(report, task)` pairs a sync covers: every task of the lists its kinds need, or
    /// the ones asked (each found in a list, or an error naming it).
    async fn jobs(&self, options: &SyncOptions) -> Result<Vec<(Report, u64)>> {
        let mut jobs = Vec::new();
        for (report, list) in [
            (Report::Service, crate::TaskList::Service),
            (Report::Site, crate::TaskList::Site),
        ] {
            if report.kinds().iter().any(|kind| options.kinds.contains(kind)) {
                let ids = self.task_ids(crate::table::TaskIds::All, list).await?;
                jobs.extend(ids.into_iter().map(|id| (report, id)));
            }
        }
        if let Some(asked) = &options.tasks {
            if let Some(unknown) = asked.iter().find(|id| !jobs.iter().any(|(_, task)| task == *id)) {
                return Err(Error::invalid_input(
                    None,
                    "tasks",
                    format!("has {unknown}, which is not a task of the kinds asked (not in the account's service or site task list)"),
                ));
            }
            jobs.retain(|(_, task)| asked.contains(task));
        }
        Ok(jobs)
    }
}
