//! [`Tables`]: the client's calls that fetch and build tables, one task or many.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use arrow_array::RecordBatch;
use chrono::{FixedOffset, NaiveDate, Utc};
use futures::future::BoxFuture;
use futures::stream::{BoxStream, FuturesUnordered, Stream, StreamExt, TryStreamExt};

use super::{Body, SiteTables};
use crate::store::read::{self, Report};
use crate::store::Store;
use crate::telemetry;
use crate::Decoder;
use crate::{Client, DateRange, Error, Monitor, RawResponse, Request, Result, TaskList};

/// Tasks fetched at once by the bulk calls unless [`BulkOptions::concurrency`] says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

impl Client {
    /// The calls that return tables (see [`table`](crate::table)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let tasks = client.tables().service_tasks().await?;
    /// assert_eq!(tasks.num_rows(), 120);
    /// # Ok(()) }
    /// ```
    pub fn tables(&self) -> Tables {
        Tables { client: self.clone() }
    }
}

/// Fetches reports and builds their tables (see [`table`](crate::table) for the schemas).
/// Cheap to clone; made by [`Client::tables`].
///
/// Dates left out of a [`DateRange`] are today in the client's time zone, and are sent as
/// such, so the dates a table is built with are the dates the service was asked for.
#[derive(Clone, Debug)]
pub struct Tables {
    pub(crate) client: Client,
}

/// Which tasks a bulk call fetches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskIds {
    /// Every task of the list (all pages, listed first): the service task list for service
    /// reports, the site task list for site reports.
    All,
    /// These tasks, in this order.
    Ids(Vec<u64>),
}

impl From<Vec<u64>> for TaskIds {
    fn from(ids: Vec<u64>) -> Self {
        TaskIds::Ids(ids)
    }
}

impl From<&[u64]> for TaskIds {
    fn from(ids: &[u64]) -> Self {
        TaskIds::Ids(ids.to_vec())
    }
}

impl<const N: usize> From<[u64; N]> for TaskIds {
    fn from(ids: [u64; N]) -> Self {
        TaskIds::Ids(ids.to_vec())
    }
}

impl<const N: usize> From<&[u64; N]> for TaskIds {
    fn from(ids: &[u64; N]) -> Self {
        TaskIds::Ids(ids.to_vec())
    }
}

/// How far a bulk call has come, handed to [`BulkOptions::on_progress`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Tasks finished, whether they succeeded or failed.
    pub done: usize,
    /// Tasks in the call.
    pub total: usize,
    /// Tasks that failed so far.
    pub failed: usize,
    /// Bytes of the bodies received so far.
    pub bytes: u64,
    /// Rows of the tables built so far (for a site report, all three tables).
    pub rows: u64,
}

/// A function called with the [`Progress`] of a bulk call: once before the first task
/// (`done` 0), then each time a task finishes. It runs inside the call's future: keep it
/// short.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// Settings of a bulk call: how many tasks are fetched at once, and who hears of progress.
///
/// ```
/// let options = monapi::table::BulkOptions::new()
///     .concurrency(4)
///     .on_progress(|p| eprintln!("{}/{} tasks, {} bytes", p.done, p.total, p.bytes));
/// ```
#[derive(Clone)]
pub struct BulkOptions {
    concurrency: usize,
    on_progress: Option<ProgressCallback>,
}

impl Default for BulkOptions {
    fn default() -> Self {
        BulkOptions {
            concurrency: DEFAULT_CONCURRENCY,
            on_progress: None,
        }
    }
}

impl fmt::Debug for BulkOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BulkOptions")
            .field("concurrency", &self.concurrency)
            .field("on_progress", &self.on_progress.is_some())
            .finish()
    }
}

impl BulkOptions {
    /// The defaults: [`DEFAULT_CONCURRENCY`] tasks at once, no progress callback.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks are fetched at once (1 or more; 0 is refused by the call).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Called with the progress: once at the start, then after each task.
    pub fn on_progress(mut self, callback: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }

    fn validate(&self) -> Result<()> {
        check_concurrency(self.concurrency)
    }
}

/// The rule of a bulk call's, a sync's or the exporter's `concurrency`: 1 or more.
///
/// # Errors
///
/// [`Error::InvalidInput`] naming `concurrency` when it is 0.
pub fn check_concurrency(concurrency: usize) -> Result<()> {
    if concurrency == 0 {
        return Err(Error::invalid_input(
            None,
            "concurrency",
            "must be 1 or more (the number of tasks fetched at once)",
        ));
    }
    Ok(())
}

/// What a bulk call brings back: the table of every task that succeeded, in the order the
/// tasks were asked for (each exactly what the single call gives), and every task that
/// failed with its error. Together they hold every task asked for, once.
#[derive(Debug)]
pub struct BulkTables<T> {
    /// `(task_id, table)` of each task that succeeded, in task order.
    pub tables: Vec<(u64, T)>,
    /// `(task_id, error)` of each task that failed, in task order.
    pub failures: Vec<(u64, Error)>,
}

impl<T> BulkTables<T> {
    /// The error of a call that wants every task or none: [`Error::PartialResult`] when a
    /// task failed (naming the first), `None` when all succeeded.
    ///
    /// ```
    /// let bulk = monapi::table::BulkTables::<()> {
    ///     tables: vec![(1, ())],
    ///     failures: vec![(2, monapi::Error::Aborted)],
    /// };
    /// assert_eq!(bulk.partial_error().unwrap().code(), "PARTIAL_RESULT");
    /// ```
    pub fn partial_error(&self) -> Option<Error> {
        let (first_task, first_error) = self.failures.first()?;
        Some(Error::PartialResult {
            failed: self.failures.len(),
            total: self.failures.len() + self.tables.len(),
            first_task: *first_task,
            first_error: first_error.to_string(),
        })
    }
}

/// What a bulk call does when some tasks failed, as every language words it (`errors=` in
/// Python, `errors:` in JavaScript): raise [`Error::PartialResult`], which carries what
/// succeeded, or collect the failures beside the tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnFailure {
    /// Fail the call with [`Error::PartialResult`] (the default: nothing fails unnoticed).
    #[default]
    Raise,
    /// Return the tables with the failures beside them.
    Collect,
}

impl OnFailure {
    /// `"raise"` or `"collect"`; the error names `errors`.
    ///
    /// ```
    /// use monapi::table::OnFailure;
    /// assert_eq!(OnFailure::parse("collect").unwrap(), OnFailure::Collect);
    /// assert_eq!(OnFailure::parse("throw").unwrap_err().field(), Some("errors"));
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming `errors` for any other text.
    pub fn parse(text: &str) -> Result<OnFailure> {
        match text {
            "raise" => Ok(OnFailure::Raise),
            "collect" => Ok(OnFailure::Collect),
            _ => Err(Error::invalid_input(
                None,
                "errors",
                "must be \"raise\" (fail the call when a task failed) or \"collect\" (return the failures beside the tables)",
            )),
        }
    }
}

impl<T> BulkTables<T> {
    /// The error the call fails with when some tasks failed and `on_failure` is
    /// [`OnFailure::Raise`]: [`partial_error`](BulkTables::partial_error); `None` otherwise.
    pub fn error(&self, on_failure: OnFailure) -> Option<Error> {
        match on_failure {
            OnFailure::Raise => self.partial_error(),
            OnFailure::Collect => None,
        }
    }
}

/// The tasks of a bulk call as they finish, in task order: `(task_id, table or error)`.
/// Fetches run only while the stream is polled, at most the concurrency at once; dropping the
/// stream stops every fetch in flight (nothing runs on after it).
pub struct BulkStream<T> {
    total: usize,
    inner: BoxStream<'static, (u64, Result<T>)>,
}

impl<T> fmt::Debug for BulkStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BulkStream")
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl<T> BulkStream<T> {
    /// How many tasks the stream yields.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Every task's outcome: the tables of those that succeeded, the errors of the others.
    pub async fn collect(self) -> BulkTables<T> {
        let mut bulk = BulkTables {
            tables: Vec::new(),
            failures: Vec::new(),
        };
        let mut stream = self.inner;
        while let Some((task_id, result)) = stream.next().await {
            match result {
                Ok(table) => bulk.tables.push((task_id, table)),
                Err(error) => bulk.failures.push((task_id, error)),
            }
        }
        bulk
    }
}

impl<T> Stream for BulkStream<T> {
    type Item = (u64, Result<T>);

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// A table with what it cost, for the progress.
struct Fetched<T> {
    table: T,
    bytes: usize,
    rows: usize,
}

impl Tables {
    /// The time zone of the tables' timestamps and of "today" (the client's).
    pub fn timezone(&self) -> FixedOffset {
        self.client.timezone()
    }

    /// Every service task (all pages) as one table.
    ///
    /// # Errors
    ///
    /// Those of every call of the client (see [`Client`](crate::Client#errors)). A page that fails fails
    /// the call.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let tasks = client.tables().service_tasks().await?;
    /// assert_eq!(tasks.num_rows(), 120);
    /// # Ok(()) }
    /// ```
    pub async fn service_tasks(&self) -> Result<RecordBatch> {
        let call = async {
            let tasks: Vec<_> = self.client.service_tasks_all().try_collect().await?;
            Ok(super::service_tasks(&tasks, self.timezone()))
        };
        telemetry::operation("service_tasks", None, call, rows).await
    }

    /// Every site task (all pages) as one table: [`site_tasks_schema`](super::site_tasks_schema).
    ///
    /// # Errors
    ///
    /// As for [`service_tasks`](Tables::service_tasks).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let sites = client.tables().site_tasks().await?;
    /// assert!(sites.schema().field_with_name("task_id").is_ok());
    /// # Ok(()) }
    /// ```
    pub async fn site_tasks(&self) -> Result<RecordBatch> {
        let call = async {
            let tasks: Vec<_> = self.client.site_tasks_all().try_collect().await?;
            Ok(super::site_tasks(&tasks, self.timezone()))
        };
        telemetry::operation("site_tasks", None, call, rows).await
    }

    /// The monitoring points as a table: [`monitors_schema`](super::monitors_schema).
    ///
    /// # Errors
    ///
    /// Those of every call of the client (see [`Client`](crate::Client#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let points = client.tables().monitors().await?;
    /// assert!(points.num_rows() > 0);
    /// # Ok(()) }
    /// ```
    pub async fn monitors(&self) -> Result<RecordBatch> {
        let call = async { Ok(super::monitors(&self.client.monitors().await?)) };
        telemetry::operation("monitors", None, call, rows).await
    }

    /// The client's store, when it has one (see [`ClientBuilder::store`](crate::ClientBuilder::store)).
    /// It reads the store's `store.json` (blocking I/O; a store in a bucket is opened from
    /// within a tokio runtime, on its blocking pool): the async calls open it with
    /// `open_store`, on the blocking pool.
    ///
    /// # Errors
    ///
    /// [`Error::Store`](crate::Error::Store) when the store's directory or its `store.json`
    /// cannot be read, or `store.json` is not a store's (the error names the path).
    pub fn store(&self) -> Result<Option<Store>> {
        let settings = self.client.settings();
        let Some(location) = &settings.store else {
            return Ok(None);
        };
        Store::open_at(
            location,
            &settings.storage_options,
            &self.network(),
            settings.timezone,
        )
        .map(Some)
    }

    /// What the store's requests to a bucket take from the client's settings.
    fn network(&self) -> crate::store::object::Network {
        let settings = self.client.settings();
        crate::store::object::Network {
            extra_ca_pem: settings.extra_ca_pem.clone(),
            proxy: settings.proxy.clone(),
            timeout: settings.timeout,
            connect_timeout: settings.connect_timeout,
            user_agent: settings.user_agent.clone(),
            max_retries: settings.max_retries,
        }
    }

    /// Rewrites the client's store once into this version's format
    /// ([`store::FORMAT`](crate::store::FORMAT)), as `monapi sync --migrate` does: a store of
    /// an older format is refused by every other call, with an error that names this. Each file
    /// of the old format is read (its checksum checked), converted and written whole over
    /// itself, then `store.json`. Killed half-way, the store is still refused, and the next
    /// migration finishes it (the files rewritten already are skipped). A store in this
    /// format, or without `store.json`, is left as it is. No request goes to the service.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidInput`](crate::Error::InvalidInput) naming `store` when the client has
    ///   none;
    /// - [`Error::Store`](crate::Error::Store) naming the file when one cannot be read or
    ///   written, or when `store.json` is of a newer format or not a store's description.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let dir = std::env::temp_dir().join(format!("monapi-migrate-doc-{}", std::process::id()));
    /// let client = monapi::Client::builder()
    ///     .base_url("https://api.example.com").client_id("demo_id").client_secret("demo_secret")
    ///     .username("test@example.com").password("123456")
    ///     .store(&dir)
    ///     .build()?;
    /// let migrated = client.tables().migrate_store().await?;
    /// assert_eq!(migrated.summary(), "no store.json: an empty store, nothing to migrate");
    /// # Ok(()) }
    /// ```
    pub async fn migrate_store(&self) -> Result<crate::store::Migrated> {
        let Some(location) = self.client.settings().store.clone() else {
            return Err(Error::invalid_input(
                None,
                "store",
                "is required to migrate: give the store's directory or URL (store, MONAPI_STORE, or the STORE of `monapi sync --migrate STORE`)",
            ));
        };
        let (options, network) = (self.client.settings().storage_options.clone(), self.network());
        tokio::task::spawn_blocking(move || Store::migrate(&location, &options, &network))
            .await
            .unwrap_or_else(|error| {
                Err(Error::Store {
                    path: "(in memory)".into(),
                    message: format!("the migration stopped: {error}"),
                })
            })
    }

    /// [`store`](Tables::store) on the blocking pool, off the runtime's threads (a slow or
    /// network disk would hold every task of a runtime thread while `store.json` is read).
    pub(crate) async fn open_store(&self) -> Result<Option<Store>> {
        if self.client.settings().store.is_none() {
            return Ok(None);
        }
        let tables = self.clone();
        tokio::task::spawn_blocking(move || tables.store())
            .await
            .unwrap_or_else(|error| {
                Err(Error::Store {
                    path: "(in memory)".into(),
                    message: format!("the opening of the store stopped: {error}"),
                })
            })
    }

    /// The long table of a service task's report over `range`. With a store, the settled
    /// days it holds are read from it and only the others fetched (see [`Store`]).
    ///
    /// # Errors
    ///
    /// Those of [`Client::service_report`](crate::Client::service_report); with a store, also
    /// [`Error::Store`](crate::Error::Store) when it cannot be read or written (a garbled file is set
    /// aside and fetched again, not an error).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::DateRange;
    /// let table = client.tables().service_report(10001, DateRange::today()).await?;
    /// println!("{} rows: {:?}", table.num_rows(), table.schema().fields().iter().map(|f| f.name()).collect::<Vec<_>>());
    /// # Ok(()) }
    /// ```
    pub async fn service_report(&self, task_id: u64, range: DateRange) -> Result<RecordBatch> {
        let call = async {
            let range = self.resolve(range)?;
            let store = self.open_store().await?;
            Ok(
                service_report_through(&self.client, store.as_ref(), task_id, range)
                    .await?
                    .table,
            )
        };
        telemetry::operation("service_report", Some(task_id), call, rows).await
    }

    /// The three tables of a site task's report over `range`, for the points `monitor`
    /// selects. With a store, as [`service_report`](Tables::service_report) (the store
    /// keeps every point; the days it lacks are fetched for every point, and kept).
    ///
    /// # Errors
    ///
    /// As for [`service_report`](Tables::service_report), with
    /// [`Client::site_report`](crate::Client::site_report)'s.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::{DateRange, Monitor};
    /// let site = client.tables().site_report(20001, DateRange::today(), Monitor::All).await?;
    /// println!("{} availability rows", site.availability.num_rows());
    /// # Ok(()) }
    /// ```
    pub async fn site_report(&self, task_id: u64, range: DateRange, monitor: Monitor) -> Result<SiteTables> {
        let call = async {
            let range = self.resolve(range)?;
            let store = self.open_store().await?;
            Ok(
                site_report_through(&self.client, store.as_ref(), task_id, range, monitor)
                    .await?
                    .table,
            )
        };
        telemetry::operation("site_report", Some(task_id), call, |site| Some(site.rows())).await
    }

    /// The response-time distribution of a site task over `range`.
    ///
    /// # Errors
    ///
    /// Those of [`Client::response_time_distribution`](crate::Client::response_time_distribution).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::DateRange;
    /// let table = client.tables().response_time_distribution(20001, DateRange::today()).await?;
    /// assert!(table.num_rows() > 0);
    /// # Ok(()) }
    /// ```
    pub async fn response_time_distribution(&self, task_id: u64, range: DateRange) -> Result<RecordBatch> {
        let call = async {
            let range = self.resolve(range)?;
            let request = Request::ResponseTimeDistribution { task_id, range };
            // Small: read whole.
            let decoder = Decoder::new(true, move |body| super::distribution::build(task_id, body));
            let (_, table) = self.client.execute_decoded(&request, &decoder).await?;
            Ok(table)
        };
        telemetry::operation("response_time_distribution", Some(task_id), call, rows).await
    }

    /// The service reports of many tasks over one `range`: see [`BulkTables`].
    ///
    /// Input is checked, a token obtained and (for [`TaskIds::All`]) the task list read
    /// before any report is asked for; a failure there is the call's error. After that, a
    /// task that fails is listed in [`BulkTables::failures`] and the others go on.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::table::BulkOptions;
    /// use monapi::DateRange;
    ///
    /// let range = DateRange::parse(Some("2026-11-01"), Some("2026-11-01"))?;
    /// let bulk = client
    ///     .tables()
    ///     .service_reports(vec![10001, 10002, 999], range, BulkOptions::new().concurrency(2))
    ///     .await?;
    /// assert_eq!(bulk.tables.len(), 2);
    /// assert_eq!(bulk.failures[0].0, 999); // no such task
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// Only before the first report is asked for: [`Error::InvalidInput`] when `options` or
    /// `range` breaks a rule (nothing is sent), and otherwise those of every call of the client
    /// (see [`Client`](crate::Client#errors)) while the token is obtained and, for
    /// [`TaskIds::All`], the task list read. A task that fails after that is not the call's error:
    /// it is in [`BulkTables::failures`] (use [`BulkTables::error`] for a call that wants every task
    /// or none).
    pub async fn service_reports(
        &self,
        tasks: impl Into<TaskIds>,
        range: DateRange,
        options: BulkOptions,
    ) -> Result<BulkTables<RecordBatch>> {
        let call = async {
            Ok(self
                .service_reports_stream(tasks, range, options)
                .await?
                .collect()
                .await)
        };
        telemetry::operation("service_reports", None, call, |bulk| {
            Some(bulk.tables.iter().map(|(_, table)| table.num_rows()).sum())
        })
        .await
    }

    /// [`service_reports`](Tables::service_reports) as a stream of each task's outcome, in
    /// task order, for callers that write tables as they come.
    ///
    /// # Errors
    ///
    /// As for [`service_reports`](Tables::service_reports); each task's error is its item of the
    /// stream.
    pub async fn service_reports_stream(
        &self,
        tasks: impl Into<TaskIds>,
        range: DateRange,
        options: BulkOptions,
    ) -> Result<BulkStream<RecordBatch>> {
        options.validate()?;
        let range = self.resolve(range)?;
        let task_ids = self.task_ids(tasks.into(), TaskList::Service).await?;
        self.ready(&task_ids, |task_id| Request::ServiceReport { task_id, range })
            .await?;
        let (client, store) = (self.client.clone(), self.open_store().await?);
        Ok(bulk("service_report", task_ids, &options, move |task_id| {
            let (client, store) = (client.clone(), store.clone());
            async move { service_report_through(&client, store.as_ref(), task_id, range).await }
        }))
    }

    /// The site reports of many tasks over one `range` (the same `monitor` for all): see
    /// [`BulkTables`] and [`service_reports`](Tables::service_reports). [`TaskIds::All`]
    /// is every task of the site task list.
    ///
    /// # Errors
    ///
    /// As for [`service_reports`](Tables::service_reports).
    pub async fn site_reports(
        &self,
        tasks: impl Into<TaskIds>,
        range: DateRange,
        monitor: Monitor,
        options: BulkOptions,
    ) -> Result<BulkTables<SiteTables>> {
        let call = async {
            Ok(self
                .site_reports_stream(tasks, range, monitor, options)
                .await?
                .collect()
                .await)
        };
        telemetry::operation("site_reports", None, call, |bulk| {
            Some(bulk.tables.iter().map(|(_, tables)| tables.rows()).sum())
        })
        .await
    }

    /// [`site_reports`](Tables::site_reports) as a stream of each task's outcome, in task
    /// order.
    ///
    /// # Errors
    ///
    /// As for [`service_reports_stream`](Tables::service_reports_stream).
    pub async fn site_reports_stream(
        &self,
        tasks: impl Into<TaskIds>,
        range: DateRange,
        monitor: Monitor,
        options: BulkOptions,
    ) -> Result<BulkStream<SiteTables>> {
        options.validate()?;
        let range = self.resolve(range)?;
        let task_ids = self.task_ids(tasks.into(), TaskList::Site).await?;
        self.ready(&task_ids, |task_id| Request::SiteReport {
            task_id,
            range,
            monitor,
        })
        .await?;
        let (client, store) = (self.client.clone(), self.open_store().await?);
        Ok(bulk("site_report", task_ids, &options, move |task_id| {
            let (client, store) = (client.clone(), store.clone());
            async move { site_report_through(&client, store.as_ref(), task_id, range, monitor).await }
        }))
    }

    /// The ids `tasks` names: as given, or every task of `list` (read whole first).
    pub(crate) async fn task_ids(&self, tasks: TaskIds, list: TaskList) -> Result<Vec<u64>> {
        match (tasks, list) {
            (TaskIds::Ids(ids), _) => Ok(ids),
            (TaskIds::All, TaskList::Service) => {
                let tasks: Vec<_> = self.client.service_tasks_all().try_collect().await?;
                Ok(tasks.into_iter().map(|task| task.task_id).collect())
            }
            (TaskIds::All, TaskList::Site) => {
                let tasks: Vec<_> = self.client.site_tasks_all().try_collect().await?;
                Ok(tasks.into_iter().map(|task| task.task_id).collect())
            }
        }
    }

    /// Checks every task's request (nothing is sent when one is bad), then makes sure of a
    /// token, so that wrong credentials fail the call once rather than every task.
    async fn ready(&self, task_ids: &[u64], request: impl Fn(u64) -> Request) -> Result<()> {
        for &task_id in task_ids {
            request(task_id).prepare()?;
        }
        self.client.ensure_token().await
    }

    /// Both dates, today (in the client's time zone) for those left out.
    pub(super) fn resolve(&self, range: DateRange) -> Result<DateRange> {
        let today = Utc::now().with_timezone(&self.timezone()).date_naive();
        let range = DateRange::new(range.start.unwrap_or(today), range.end.unwrap_or(today));
        range.validate()?;
        Ok(range)
    }
}

/// The last day settled now, by the client's settings.
pub(crate) fn last_settled(client: &Client) -> NaiveDate {
    read::last_settled_day(Utc::now(), client.timezone(), client.settings().settle)
}

/// A task's service report, through `store` when there is one.
async fn service_report_through(
    client: &Client,
    store: Option<&Store>,
    task_id: u64,
    range: DateRange,
) -> Result<Fetched<RecordBatch>> {
    let Some(store) = store else {
        return service_report(client, task_id, range).await;
    };
    let through = read::through(
        store,
        Report::Service,
        task_id,
        range,
        last_settled(client),
        &fetch(client, Report::Service, task_id),
    )
    .await?;
    let table = through
        .tables
        .into_iter()
        .next()
        .expect("a service report has one table");
    Ok(Fetched {
        rows: table.num_rows(),
        bytes: through.bytes,
        table,
    })
}

/// A task's site report, through `store` when there is one: the store keeps every point,
/// and `monitor` picks the rows.
async fn site_report_through(
    client: &Client,
    store: Option<&Store>,
    task_id: u64,
    range: DateRange,
    monitor: Monitor,
) -> Result<Fetched<SiteTables>> {
    let Some(store) = store else {
        return site_report(client, task_id, range, monitor).await;
    };
    let through = read::through(
        store,
        Report::Site,
        task_id,
        range,
        last_settled(client),
        &fetch(client, Report::Site, task_id),
    )
    .await?;
    let mut tables = through.tables.into_iter().map(|table| only(table, monitor));
    let mut next = || tables.next().expect("a site report has three tables");
    let tables = SiteTables {
        availability: next()?,
        response_time: next()?,
        faults: next()?,
    };
    let rows = tables.availability.num_rows() + tables.response_time.num_rows() + tables.faults.num_rows();
    Ok(Fetched {
        table: tables,
        bytes: through.bytes,
        rows,
    })
}

/// The rows of the points `monitor` selects.
fn only(table: RecordBatch, monitor: Monitor) -> Result<RecordBatch> {
    let id = match monitor {
        Monitor::All => return Ok(table),
        Monitor::Average => 0,
        Monitor::Point(id) => id,
    };
    let ids = table
        .column_by_name("monitor_id")
        .and_then(|column| column.as_any().downcast_ref::<arrow_array::Int64Array>())
        .expect("site tables have an Int64 monitor_id");
    let keep: arrow_array::BooleanArray = ids
        .iter()
        .map(|point| Some(point.and_then(|point| u64::try_from(point).ok()) == Some(id)))
        .collect();
    arrow_select::filter::filter_record_batch(&table, &keep).map_err(|error| Error::Store {
        path: "(in memory)".into(),
        message: format!("the rows of monitor {id} could not be picked: {error}"),
    })
}

/// How a store fetches a task's `report` over a run of days (every point, for a site).
pub(crate) fn fetch(client: &Client, report: Report, task_id: u64) -> read::Fetch {
    let client = client.clone();
    Box::new(move |range| {
        let client = client.clone();
        Box::pin(async move {
            Ok(match report {
                Report::Service => {
                    let fetched = service_report(&client, task_id, range).await?;
                    read::Fetched {
                        tables: vec![fetched.table],
                        bytes: fetched.bytes,
                    }
                }
                Report::Site => {
                    let fetched = site_report(&client, task_id, range, Monitor::All).await?;
                    let SiteTables {
                        availability,
                        response_time,
                        faults,
                    } = fetched.table;
                    read::Fetched {
                        tables: vec![availability, response_time, faults],
                        bytes: fetched.bytes,
                    }
                }
            })
        })
    })
}

/// The first day of a range [`Tables::resolve`] made.
fn first_day(range: DateRange) -> NaiveDate {
    range.start.expect("resolved ranges have both dates")
}

async fn service_report(client: &Client, task_id: u64, range: DateRange) -> Result<Fetched<RecordBatch>> {
    let timezone = client.timezone();
    let start = first_day(range);
    let decoder = Decoder::new(true, move |body| {
        super::service::build(task_id, Body::Whole(body), start, timezone)
    })
    .with_members(move |members| super::service::build(task_id, Body::Members(members), start, timezone));
    let (raw, table) = client
        .execute_decoded(&Request::ServiceReport { task_id, range }, &decoder)
        .await?;
    Ok(fetched(&raw, table.num_rows(), table))
}

async fn site_report(
    client: &Client,
    task_id: u64,
    range: DateRange,
    monitor: Monitor,
) -> Result<Fetched<SiteTables>> {
    let request = Request::SiteReport {
        task_id,
        range,
        monitor,
    };
    let timezone = client.timezone();
    let decoder = Decoder::new(true, move |body| {
        super::site::build(task_id, Body::Whole(body), timezone)
    })
    .with_members(move |members| super::site::build(task_id, Body::Members(members), timezone));
    let (raw, tables) = client.execute_decoded(&request, &decoder).await?;
    Ok(fetched(&raw, tables.rows(), tables))
}

fn fetched<T>(raw: &RawResponse, rows: usize, table: T) -> Fetched<T> {
    Fetched {
        table,
        bytes: raw.body().len(),
        rows,
    }
}

/// Runs `fetch` for each task, at most `options.concurrency` at once, yielding in task order;
/// each task's fetch is a span of operation `operation`. Everything in flight is owned by the
/// returned stream (no spawned task), so dropping it cancels every fetch.
fn bulk<T, F, Fut>(
    operation: &'static str,
    task_ids: Vec<u64>,
    options: &BulkOptions,
    fetch: F,
) -> BulkStream<T>
where
    T: Send + 'static,
    F: Fn(u64) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Fetched<T>>> + Send + 'static,
{
    let total = task_ids.len();
    let progress = Arc::new(Mutex::new(Progress {
        total,
        ..Progress::default()
    }));
    let callback = options.on_progress.clone();
    if let Some(callback) = &callback {
        callback(Progress {
            total,
            ..Progress::default()
        });
    }
    let start = move |task_id: u64| -> Fetching<T> {
        let fetching = telemetry::child(operation, Some(task_id), fetch(task_id), |f| Some(f.rows));
        let progress = progress.clone();
        let callback = callback.clone();
        Box::pin(async move {
            let result = fetching.await;
            let now = {
                let mut progress = progress.lock().unwrap_or_else(|e| e.into_inner());
                progress.done += 1;
                match &result {
                    Ok(fetched) => {
                        progress.bytes += fetched.bytes as u64;
                        progress.rows += fetched.rows as u64;
                    }
                    Err(_) => progress.failed += 1,
                }
                *progress
            };
            if let Some(callback) = &callback {
                callback(now);
            }
            (task_id, result.map(|fetched| fetched.table))
        })
    };
    let inner = InTaskOrder {
        tasks: task_ids.into_iter(),
        start: Box::new(start),
        running: FuturesUnordered::new(),
        finished: BTreeMap::new(),
        concurrency: options.concurrency,
        started: 0,
        yielded: 0,
    }
    .boxed();
    BulkStream { total, inner }
}

/// How far past the first unfinished task new tasks start, in multiples of the concurrency.
/// `futures`' `buffered(n)` would start none beyond the first `n` not yet yielded: one large
/// report then holds back the whole window while the finished ones wait behind it
/// (bench/RESULTS.md, "Choices measured in the code"). The window bounds what waits in memory
/// for an earlier task to finish.
const WINDOW: usize = 4;

/// One task's outcome: its id, and its table or error.
type Outcome<T> = (u64, Result<T>);
/// One task's fetch, started.
type Fetching<T> = BoxFuture<'static, Outcome<T>>;

/// `concurrency` fetches always running while tasks are left (within [`WINDOW`] of the first
/// unfinished one), their outcomes yielded in task order.
struct InTaskOrder<T> {
    tasks: std::vec::IntoIter<u64>,
    start: Box<dyn Fn(u64) -> Fetching<T> + Send>,
    /// The running fetches with their positions.
    running: FuturesUnordered<BoxFuture<'static, (usize, Outcome<T>)>>,
    /// Outcomes that finished before an earlier task's, by position.
    finished: BTreeMap<usize, Outcome<T>>,
    concurrency: usize,
    /// Positions started, and yielded.
    started: usize,
    yielded: usize,
}

impl<T: Send + 'static> Stream for InTaskOrder<T> {
    type Item = Outcome<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(outcome) = this.finished.remove(&this.yielded) {
                this.yielded += 1;
                return Poll::Ready(Some(outcome));
            }
            while this.running.len() < this.concurrency
                && this.started < this.yielded + WINDOW * this.concurrency
            {
                let Some(task_id) = this.tasks.next() else { break };
                let (position, fetching) = (this.started, (this.start)(task_id));
                this.running
                    .push(Box::pin(async move { (position, fetching.await) }));
                this.started += 1;
            }
            match this.running.poll_next_unpin(cx) {
                Poll::Ready(Some((position, outcome))) => {
                    this.finished.insert(position, outcome);
                }
                // Nothing runs: every task was yielded (the one at `yielded` is always running
                // or finished while tasks are left).
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.tasks.len() + self.started - self.yielded;
        (left, Some(left))
    }
}

/// A table's rows, for its span.
fn rows(table: &RecordBatch) -> Option<usize> {
    Some(table.num_rows())
}
