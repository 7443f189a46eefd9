//! [`Store`]: report tables kept by day, as Hive-partitioned Parquet, in a directory or a
//! bucket (`s3://`, `gs://`, `az://`, see [`StoreLocation`]).
//!
//! ```text
//! ROOT/store.json                                   {"format": 2, "timezone": "+08:00"}
//! ROOT/service_report/day=2026-11-01/task-10001.parquet
//! ROOT/site_availability/day=2026-11-01/task-20001.parquet
//! ROOT/site_response_time/day=2026-11-01/task-20001.parquet
//! ROOT/site_faults/day=2026-11-01/task-20001.parquet
//! ROOT/.tmp/       files being written, in a directory (linked into place when whole)
//! ROOT/.corrupt/   files that did not read, set aside with the time they were found
//! ```
//!
//! One file holds one task's rows of one day (its schema is the table's, zstd-compressed),
//! so a file is the unit a fetch fills. It is written once, whole, and never replaced
//! (`files.rs`): in a directory, written to `.tmp/`, flushed to the disk (`fsync`) and linked
//! to its name (a link fails when the name exists), the link flushed too; in a bucket, one
//! conditional PUT (`If-None-Match: *` on S3). What the store holds is the list of its file
//! names, and a power cut or a killed writer leaves only whole files there. Two writers of one
//! task-day fetch the same rows; the first one's file stays, so nothing is doubled.
//! The day is a Hive partition (`day=`), which DuckDB, polars, pyarrow, Dask and Spark read
//! as a date column; the task id is in the rows.
//!
//! A store keeps days in one time zone (the client's when it was first written, recorded
//! in `store.json`): a client with another one is refused rather than mixing days.
//! `store.json` is written once and never replaced, like the other files (the first writer's
//! stays, and the others read it). One that does not parse (left by an older version, which
//! wrote it in place, cut short by a power loss) is set aside in `.corrupt/` and written again
//! with the time zone of the store's files (the client's when it holds none).
//!
//! This file holds the layout and its files; `files.rs` what a store asks of a directory or a
//! bucket, `object.rs` the bucket (`object_store`, over the client's network settings);
//! `read.rs` a task's report over a range through the store (what
//! [`Tables`](crate::table::Tables) calls when the client has a store); `sync.rs`
//! [`Tables::sync`](crate::table::Tables::sync), which fills it for many tasks.

mod files;
mod migrate;
pub(crate) mod object;
pub(crate) mod read;
mod sync;

use std::collections::BTreeSet;
use std::fs::File;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use arrow_array::cast::AsArray;
use arrow_array::types::{TimestampMillisecondType, TimestampSecondType};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use chrono::{FixedOffset, NaiveDate};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::{FileMetaData, KeyValue, ParquetMetaData, ParquetMetaDataWriter};
use parquet::file::properties::WriterProperties;

use crate::{Error, Result};
use files::Backend;

pub use crate::location::StoreLocation;
pub use migrate::Migrated;
pub use read::{day_runs, last_settled_day, RUN_DAYS};
pub use sync::{SyncFailure, SyncOptions, SyncProgress, SyncProgressCallback, SyncReport, DEFAULT_SYNC_DAYS};

/// The version of the layout, recorded in `store.json`. Format 1 held ids and counts as
/// unsigned integers, which Spark, Hive, Trino and BigQuery cannot read; format 2 holds them
/// as `Int64` ([`Tables::migrate_store`](crate::table::Tables::migrate_store) rewrites a store
/// of format 1).
pub const FORMAT: u64 = 2;
/// Where files that did not read are set aside.
const CORRUPT: &str = ".corrupt";
/// The store's description: its layout's version and its days' time zone.
const DESCRIPTION: &str = "store.json";

/// A table a store keeps: one dataset (a directory) each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StoreKind {
    /// Service reports (`service_report/`): [`service_report_schema`](crate::table::service_report_schema).
    ServiceReport,
    /// Site availability (`site_availability/`): [`site_availability_schema`](crate::table::site_availability_schema).
    SiteAvailability,
    /// Site response times (`site_response_time/`): [`site_response_time_schema`](crate::table::site_response_time_schema).
    SiteResponseTime,
    /// Site faults (`site_faults/`), by the day they started: [`site_faults_schema`](crate::table::site_faults_schema).
    SiteFaults,
}

impl StoreKind {
    /// Every kind, in the order of the docs.
    pub const ALL: [StoreKind; 4] = [
        StoreKind::ServiceReport,
        StoreKind::SiteAvailability,
        StoreKind::SiteResponseTime,
        StoreKind::SiteFaults,
    ];

    /// The dataset's directory name, and the kind's name everywhere (`site_faults`).
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::ServiceReport => "service_report",
            StoreKind::SiteAvailability => "site_availability",
            StoreKind::SiteResponseTime => "site_response_time",
            StoreKind::SiteFaults => "site_faults",
        }
    }

    /// The kinds `text` names, separated by commas (blanks around each left out): kind names,
    /// or `service` and `site` for the kinds of one report; sorted, each once.
    ///
    /// ```
    /// use monapi::store::StoreKind;
    /// assert_eq!(StoreKind::parse_list("kinds", "service,site_faults")?,
    ///            [StoreKind::ServiceReport, StoreKind::SiteFaults]);
    /// assert_eq!(StoreKind::parse_list("kinds", "sites").unwrap_err().field(), Some("kinds"));
    /// # Ok::<(), monapi::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`] naming `field` when one of the names (an empty one included) is
    /// none of those.
    pub fn parse_list(field: &str, text: &str) -> Result<Vec<StoreKind>> {
        let mut kinds = Vec::new();
        for name in text.split(',').map(str::trim) {
            let named: &[StoreKind] = match name {
                "service" => &StoreKind::ALL[..1],
                "site" => &StoreKind::ALL[1..],
                _ => match StoreKind::ALL.iter().find(|kind| kind.name() == name) {
                    Some(kind) => std::slice::from_ref(kind),
                    None => {
                        return Err(Error::invalid_input(
                            None,
                            field,
                            "must name kinds of tables, separated by commas: service_report, site_availability, site_response_time, site_faults, or service and site for all of one report",
                        ));
                    }
                },
            };
            kinds.extend(named);
        }
        kinds.sort();
        kinds.dedup();
        Ok(kinds)
    }

    /// The kind's schema in `timezone`.
    pub fn schema(self, timezone: FixedOffset) -> SchemaRef {
        match self {
            StoreKind::ServiceReport => crate::table::service_report_schema(timezone),
            StoreKind::SiteAvailability => crate::table::site_availability_schema(timezone),
            StoreKind::SiteResponseTime => crate::table::site_response_time_schema(timezone),
            StoreKind::SiteFaults => crate::table::site_faults_schema(timezone),
        }
    }

    /// The column whose day (in the store's time zone) is the row's day.
    pub(crate) fn day_column(self) -> &'static str {
        match self {
            StoreKind::SiteFaults => "start_time",
            _ => "time",
        }
    }
}

/// What reading one task-day found.
#[derive(Debug)]
pub(crate) enum Read {
    /// No file.
    Missing,
    /// The file's rows.
    Held(RecordBatch),
    /// The file did not read: it was moved to `.corrupt/` (`to`); a warning says why.
    SetAside { to: PathBuf },
}

/// Report tables kept by day in a directory or a bucket (see the module docs for the layout).
///
/// Its methods are blocking (file I/O, or an object store's requests awaited on the runtime
/// that opened it): from async code, call them on the blocking pool.
///
/// ```
/// use monapi::store::{Store, StoreKind};
/// let dir = std::env::temp_dir().join(format!("monapi-doc-store-{}", std::process::id()));
/// let store = Store::open(&dir, monapi::SERVICE_TIMEZONE)?;
/// assert!(store.contents(StoreKind::ServiceReport)?.is_empty());
/// # Ok::<(), monapi::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Store {
    files: Backend,
    timezone: FixedOffset,
    /// Set once `store.json` is known to record `timezone`: the writes after the first do
    /// not read it again.
    recorded: Arc<AtomicBool>,
}

impl Store {
    /// The store in the directory `root` for days in `timezone`. Nothing is created until a
    /// day is written. This reads `store.json` (blocking file I/O: from async code, call it on
    /// the blocking pool); one that does not parse (cut short by a power cut) is set aside in
    /// `.corrupt/` and written again.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidInput`] naming `store` when the store was first written in another time
    ///   zone: open it with that one (the error names it), or use another directory.
    /// - [`Error::Store`] naming the path when `store.json` cannot be read, is JSON but not a
    ///   store's description, or does not parse and cannot be written again (a directory that is
    ///   not writable, a full disk, another writer repairing it at the same time: try again).
    pub fn open(root: impl Into<PathBuf>, timezone: FixedOffset) -> Result<Store> {
        Store::on(Backend::Local(root.into()), timezone)
    }

    /// The store at `location` (a directory, or a bucket's prefix reached with `options` over
    /// `network`), as [`open`](Store::open). Blocking, like it; an object store is opened from
    /// within a tokio runtime (its requests are awaited on it).
    pub(crate) fn open_at(
        location: &StoreLocation,
        options: &[(String, String)],
        network: &object::Network,
        timezone: FixedOffset,
    ) -> Result<Store> {
        Store::on(Backend::at(location, options, network)?, timezone)
    }

    fn on(files: Backend, timezone: FixedOffset) -> Result<Store> {
        let store = Store {
            files,
            timezone,
            recorded: Arc::default(),
        };
        if let Some(recorded) = store.recorded_timezone()? {
            store.accept(recorded)?;
        }
        Ok(store)
    }

    /// Takes `recorded`, the time zone of `store.json`, when it is the store's.
    fn accept(&self, recorded: FixedOffset) -> Result<()> {
        let timezone = self.timezone;
        if recorded != timezone {
            return Err(Error::invalid_input(
                None,
                "store",
                format!(
                    "holds days in the time zone {recorded} and this client's is {timezone}: give the client timezone=\"{recorded}\", or another store"
                ),
            ));
        }
        self.recorded.store(true, Ordering::Release);
        Ok(())
    }

    /// Where the store is: its directory, or its URL.
    pub fn location(&self) -> String {
        match &self.files {
            Backend::Local(root) => root.display().to_string(),
            Backend::Object(_) => self.files.shown("").trim_end_matches('/').to_string(),
        }
    }

    /// The time zone of the store's days.
    pub fn timezone(&self) -> FixedOffset {
        self.timezone
    }

    /// The key of one task's rows of one day, under the store's root:
    /// `service_report/day=2026-11-01/task-10001.parquet`.
    pub fn key(kind: StoreKind, task_id: u64, day: NaiveDate) -> String {
        format!("{}/day={day}/task-{task_id}.parquet", kind.name())
    }

    /// The file of one task's rows of one day: its path in a directory, its URL in a bucket.
    pub fn file(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> PathBuf {
        PathBuf::from(self.files.shown(&Store::key(kind, task_id, day)))
    }

    /// Whether the store holds a task-day (its file exists; a file that exists is whole).
    ///
    /// # Errors
    ///
    /// An [`Error::Store`] when the file cannot be read (a bucket that does not answer).
    pub fn holds(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> Result<bool> {
        let key = Store::key(kind, task_id, day);
        match &self.files {
            Backend::Local(root) => Ok(root.join(key).is_file()),
            Backend::Object(_) => self.files.get(&key).map(|bytes| bytes.is_some()),
        }
    }

    /// Every `(task_id, day)` the store holds of `kind`, sorted: read from the names of
    /// the files (one listing), none opened.
    ///
    /// # Errors
    ///
    /// An [`Error::Store`] naming the directory when the kind's directory or the directory of one
    /// of its days cannot be listed (one that does not exist holds nothing).
    pub fn contents(&self, kind: StoreKind) -> Result<Vec<(u64, NaiveDate)>> {
        let mut held: Vec<(u64, NaiveDate)> = self
            .files
            .list(kind.name())?
            .iter()
            .filter_map(|key| {
                let (day, file) = key.split_once('/')?;
                Some((task_of(file)?, day.strip_prefix("day=")?.parse().ok()?))
            })
            .collect();
        held.sort_unstable();
        Ok(held)
    }

    /// Reads one task-day. A file that does not read as the kind's table (truncated,
    /// corrupt, another schema) is moved to `.corrupt/` and reported, so that the day is
    /// fetched again.
    pub(crate) fn read(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> Result<Read> {
        let key = Store::key(kind, task_id, day);
        let Some(bytes) = self.files.get(&key)? else {
            return Ok(Read::Missing);
        };
        match read_stored_file(kind, self.timezone, bytes) {
            Ok(batch) => Ok(Read::Held(batch)),
            Err(why) => self.set_aside(&key, &why).map(|to| Read::SetAside { to }),
        }
    }

    /// What one listing of `kind`'s `day` finds: the tasks whose file is whole, the files set
    /// aside, and the tasks whose file could not be checked. A bucket's objects are whole by
    /// the way they are written (one PUT); on a disk, each file's footer and schema are
    /// checked too (a truncated file is found here, a garbled page when the file is read).
    /// With `verify`, each file is read whole and its checksum checked, in a bucket too.
    pub(crate) fn whole_on(&self, kind: StoreKind, day: NaiveDate, verify: bool) -> Result<Listed> {
        let dir = format!("{}/day={day}", kind.name());
        let mut listed = Listed::default();
        for name in self.files.list(&dir)? {
            let Some(task) = task_of(&name) else { continue };
            if verify {
                listed.verified += 1;
                match self.read(kind, task, day) {
                    Ok(Read::Held(_)) => {
                        listed.whole.insert(task);
                    }
                    Ok(Read::Missing) => {}
                    Ok(Read::SetAside { to }) => listed.set_aside.push(to),
                    Err(error) => listed.failed.push((task, error)),
                }
                continue;
            }
            if let Backend::Local(root) = &self.files {
                let key = format!("{dir}/{name}");
                let path = root.join(&key);
                // A file that cannot be opened (not a damaged one): its task fails.
                let file = match File::open(&path) {
                    Ok(file) => file,
                    Err(error) => {
                        listed
                            .failed
                            .push((task, files::io_error(&path, "could not be opened", &error)));
                        continue;
                    }
                };
                if let Err(why) = check_footer(file, kind, self.timezone) {
                    listed.set_aside.push(self.set_aside(&key, &why)?);
                    continue;
                }
            }
            listed.whole.insert(task);
        }
        Ok(listed)
    }

    fn set_aside(&self, key: &str, why: &str) -> Result<PathBuf> {
        let to = corrupt_key(key);
        self.files.rename(key, &to)?;
        let (file, to) = (self.files.shown(key), PathBuf::from(self.files.shown(&to)));
        tracing::warn!(target: "monapi", %file, set_aside = %to.display(), %why, "a stored file did not read; it is set aside and fetched again");
        Ok(to)
    }

    /// Writes one task-day's table (`kind`'s schema) whole, or not at all, unless the store
    /// holds that task-day already: then its file stays, and this returns `false` (a task-day's
    /// rows are the same whoever fetched them). Only a settled day belongs in a store: a sync
    /// and the table calls write those alone.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidInput`] naming `batch` when its schema is not the kind's in the store's
    ///   time zone, or naming `store` when the store holds days in another time zone;
    /// - [`Error::Store`] naming the file when the table cannot be encoded (a time too far from
    ///   1970) or the file cannot be written.
    pub fn write(&self, kind: StoreKind, task_id: u64, day: NaiveDate, batch: &RecordBatch) -> Result<bool> {
        if batch.schema().fields() != kind.schema(self.timezone).fields() {
            return Err(Error::invalid_input(
                None,
                "batch",
                format!(
                    "must have the schema of {} in the store's time zone ({})",
                    kind.name(),
                    self.timezone
                ),
            ));
        }
        self.record_timezone()?;
        let key = Store::key(kind, task_id, day);
        let bytes = encode_file(batch).map_err(|error| Error::Store {
            path: self.files.shown(&key),
            message: format!("could not be written: {error}"),
        })?;
        self.files.create(&key, bytes)
    }

    /// Removes what writers killed mid-way left (in a directory's `.tmp/`).
    pub(crate) fn sweep(&self) {
        self.files.sweep();
    }

    /// The time zone `store.json` records; `None` when there is none yet. One that does not
    /// parse is replaced first ([`repair`](Store::repair)).
    fn recorded_timezone(&self) -> Result<Option<FixedOffset>> {
        match self.description()? {
            Description::Missing => Ok(None),
            Description::Recorded(timezone) => Ok(Some(timezone)),
            Description::Garbled => self.repair().map(Some),
        }
    }

    fn description(&self) -> Result<Description> {
        match self.files.get(DESCRIPTION)? {
            Some(bytes) => describe(&self.files.shown(DESCRIPTION), &bytes),
            None => Ok(Description::Missing),
        }
    }

    /// Makes sure `store.json` records the store's time zone before its first day is written:
    /// writes it when there is none, refuses another one.
    fn record_timezone(&self) -> Result<()> {
        if self.recorded.load(Ordering::Acquire) {
            return Ok(());
        }
        let recorded = match self.recorded_timezone()? {
            Some(recorded) => recorded,
            None => self.create_description(self.timezone)?,
        };
        self.accept(recorded)
    }

    /// Writes `store.json` for `timezone` unless another writer did first; returns the time
    /// zone it records. Written once and never replaced, like every file of the store.
    fn create_description(&self, timezone: FixedOffset) -> Result<FixedOffset> {
        let text = format!("{{\"format\": {FORMAT}, \"timezone\": \"{timezone}\"}}\n");
        if self.files.create(DESCRIPTION, text.into_bytes())? {
            return Ok(timezone);
        }
        match self.description()? {
            Description::Recorded(recorded) => Ok(recorded),
            // Only a writer of an older version, writing in place, leaves one now: the next
            // call repairs it.
            Description::Garbled => Err(Error::Store {
                path: self.files.shown(DESCRIPTION),
                message: "is being written by another writer".into(),
            }),
            Description::Missing => Err(Error::Store {
                path: self.files.shown(DESCRIPTION),
                message: "was removed while it was written".into(),
            }),
        }
    }

    /// Replaces a `store.json` that does not parse: it is set aside in `.corrupt/`, then
    /// written again for the time zone of the store's files (the client's when it holds
    /// none), as a new one is ([`create_description`](Store::create_description)). Two
    /// repairs at once: the second may set aside the first's new description; it finds it
    /// whole and writes it back, so both take it.
    fn repair(&self) -> Result<FixedOffset> {
        let to = corrupt_key(DESCRIPTION);
        self.files.rename(DESCRIPTION, &to)?;
        let moved = self.files.get(&to)?;
        let shown = self.files.shown(DESCRIPTION);
        if let Some(bytes) = moved
            && let Ok(Description::Recorded(_)) = describe(&shown, &bytes)
        {
            self.files.create(DESCRIPTION, bytes)?;
            return match self.description()? {
                Description::Recorded(recorded) => Ok(recorded),
                _ => Err(Error::Store {
                    path: shown,
                    message: "is being repaired by another writer".into(),
                }),
            };
        }
        tracing::warn!(target: "monapi", file = %shown, set_aside = %self.files.shown(&to), "the store's description did not parse (a write cut short); it is set aside and written again");
        let timezone = self.timezone_of_files()?.unwrap_or(self.timezone);
        self.create_description(timezone)
    }

    /// The time zone of the first of the store's files that reads (from its schema).
    fn timezone_of_files(&self) -> Result<Option<FixedOffset>> {
        for kind in StoreKind::ALL {
            for name in self.files.list(kind.name())? {
                let Some(bytes) = self.files.get(&format!("{}/{name}", kind.name()))? else {
                    continue;
                };
                let zone = unpanicked(|| {
                    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
                        .map_err(|e| e.to_string())?;
                    let field = builder
                        .schema()
                        .field_with_name(kind.day_column())
                        .map_err(|e| e.to_string())?;
                    match field.data_type() {
                        DataType::Timestamp(_, Some(zone)) => {
                            zone.parse::<FixedOffset>().map_err(|e| e.to_string())
                        }
                        _ => Err("no time zone".into()),
                    }
                });
                if let Ok(zone) = zone {
                    return Ok(Some(zone));
                }
            }
        }
        Ok(None)
    }
}

/// The task of a file's name (`task-10001.parquet`).
fn task_of(name: &str) -> Option<u64> {
    name.strip_prefix("task-")?.strip_suffix(".parquet")?.parse().ok()
}

/// Where a file of the store is set aside: `.corrupt/` and its key, with the time it was
/// found.
fn corrupt_key(key: &str) -> String {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{CORRUPT}/{key}.{stamp}")
}

/// What one listing of a kind's day found ([`Store::whole_on`]).
#[derive(Debug, Default)]
pub(crate) struct Listed {
    pub(crate) whole: BTreeSet<u64>,
    pub(crate) set_aside: Vec<PathBuf>,
    pub(crate) failed: Vec<(u64, Error)>,
    pub(crate) verified: u64,
}

/// Checks a file on a disk without reading its pages: its Parquet footer and schema.
fn check_footer(file: File, kind: StoreKind, timezone: FixedOffset) -> std::result::Result<(), String> {
    let schema = kind.schema(timezone);
    unpanicked(|| {
        ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|error| error.to_string())
            .and_then(|builder| same_schema(builder.schema(), &milliseconds_schema(&schema)))
    })
}

/// What the bytes of a `store.json` shown as `path` describe, for a store of this version's
/// [`FORMAT`].
fn describe(path: &str, bytes: &[u8]) -> Result<Description> {
    let (format, timezone) = match read_description(path, bytes)? {
        Some(recorded) => recorded,
        None => return Ok(Description::Garbled),
    };
    if format == FORMAT {
        return Ok(Description::Recorded(timezone));
    }
    let store = path
        .strip_suffix(DESCRIPTION)
        .unwrap_or(path)
        .trim_end_matches(['/', '\\']);
    let message = if format < FORMAT {
        format!(
            "is of format {format}, whose ids and counts are unsigned integers (Spark and other JVM engines cannot read them); this monapi reads format {FORMAT}: rewrite the store once with `monapi sync --migrate {store}`"
        )
    } else {
        format!("is of format {format}, written by a newer monapi; this one reads format {FORMAT}: upgrade monapi")
    };
    Err(Error::Store {
        path: path.to_string(),
        message,
    })
}

/// The format and time zone a `store.json` shown as `path` records; `None` when it is not
/// JSON at all (empty, or cut short: a write torn by a power cut). JSON of another shape is
/// not ours to replace: an error.
fn read_description(path: &str, bytes: &[u8]) -> Result<Option<(u64, FixedOffset)>> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Ok(None);
    };
    let timezone = value
        .get("timezone")
        .and_then(|zone| zone.as_str()?.parse::<FixedOffset>().ok());
    match (value.get("format").and_then(serde_json::Value::as_u64), timezone) {
        (Some(format), Some(timezone)) => Ok(Some((format, timezone))),
        _ => Err(Error::Store {
            path: path.to_string(),
            message: format!(
                "is not a store's description ({{\"format\": {FORMAT}, \"timezone\": \"+08:00\"}})"
            ),
        }),
    }
}

/// What `store.json` holds.
enum Description {
    Missing,
    Recorded(FixedOffset),
    /// Not JSON: cut short.
    Garbled,
}

/// The key of the CRC-32 of a file's pages (every byte before its footer), in its footer.
/// Parquet's own page checksums are optional and not written by the Rust writer; without
/// one, a garbled page can decode into other values without an error.
const CHECKSUM_KEY: &str = "monapi.crc32";

/// `batch` as a stored file: Parquet (zstd), its timestamps in milliseconds, the CRC-32 of
/// its pages in its footer.
///
/// The pages are encoded once: the file is written whole, then its footer is cut off and
/// written again with the checksum of the bytes before it among its key-value pairs. The
/// footer's offsets point before it, so they hold; the file is the one an encoding with
/// the checksum known beforehand would make (a test compares them), and files written
/// before stay readable.
fn encode_file(batch: &RecordBatch) -> std::result::Result<Vec<u8>, String> {
    let batch = &try_in_milliseconds(batch).map_err(|e| e.to_string())?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let write_path_in_schema = properties.write_path_in_schema();
    let mut writer =
        ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties)).map_err(|e| e.to_string())?;
    writer.write(batch).map_err(|e| e.to_string())?;
    let written = writer.finish().map_err(|e| e.to_string())?;
    let mut bytes = std::mem::take(writer.inner_mut());
    let end = pages_end(&bytes).ok_or("the Parquet writer wrote no footer")?;
    let checksum = crc32fast::hash(&bytes[..end]);
    bytes.truncate(end);
    let file = written.file_metadata();
    let mut pairs = file.key_value_metadata().cloned().unwrap_or_default();
    pairs.push(KeyValue::new(CHECKSUM_KEY.into(), checksum.to_string()));
    let file = FileMetaData::new(
        file.version(),
        file.num_rows(),
        file.created_by().map(str::to_string),
        Some(pairs),
        file.schema_descr_ptr(),
        file.column_orders().cloned(),
    );
    // Without the page indexes (they are before the footer, already written): the footer
    // alone, its offsets to them kept from the row groups.
    let footer = ParquetMetaData::new(file, written.row_groups().to_vec());
    ParquetMetaDataWriter::new(&mut bytes, &footer)
        .with_write_path_in_schema(write_path_in_schema)
        .finish()
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Where a Parquet file's footer starts (its length is in the 4 bytes before the closing
/// `PAR1`).
fn pages_end(bytes: &[u8]) -> Option<usize> {
    let tail = bytes.len().checked_sub(8)?;
    let footer = u32::from_le_bytes(bytes[tail..tail + 4].try_into().ok()?) as usize;
    tail.checked_sub(footer)
}

/// Reads the bytes of one stored file as `kind`'s table in `timezone`, with every check a
/// store makes: the CRC-32 of its pages, its schema. The error says why it does not read
/// (a store then sets the file aside and fetches its day again). Never panics: the parquet
/// crate's panics on malformed input are caught (a `catch_unwind` around every Parquet
/// read). Any bytes may be given.
///
/// ```
/// use monapi::store::{read_stored_file, StoreKind};
/// let why = read_stored_file(StoreKind::ServiceReport, monapi::SERVICE_TIMEZONE, b"PAR1".to_vec());
/// assert!(why.unwrap_err().contains("too short"));
/// ```
///
/// # Errors
///
/// Why the bytes do not read as the table: they are too short to be a Parquet file, their
/// pages do not match the checksum recorded in the footer (or none is), their schema is not
/// the kind's in `timezone`, or the Parquet reader failed (or panicked) on them.
pub fn read_stored_file(
    kind: StoreKind,
    timezone: FixedOffset,
    bytes: Vec<u8>,
) -> std::result::Result<RecordBatch, String> {
    let schema = kind.schema(timezone);
    unpanicked(|| read_table(bytes, &schema))
}

/// `read`, with a panic of the parquet crate on malformed input turned into the error that
/// sets a file aside. arrow-rs returns errors for most malformed files, but some still
/// panic (apache/arrow-rs#2855: a corrupt `ARROW:schema` in the footer, open upstream; and
/// #9705, a truncated footer, fixed in a later version than some users build with); a
/// stored file is input from the disk, which a power cut or a bad sector can garble.
/// The panic's message still goes to the panic hook (stderr, by default).
fn unpanicked<T>(read: impl FnOnce() -> std::result::Result<T, String>) -> std::result::Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(read)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|m| m.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(format!("the Parquet reader failed on it: {message}"))
    })
}

/// The rows of a stored file, which must have `schema` and the checksum of its pages; the
/// error says why not.
fn read_table(bytes: Vec<u8>, schema: &SchemaRef) -> std::result::Result<RecordBatch, String> {
    let stored = milliseconds_schema(schema);
    let batch = read_checked(bytes, |found| same_schema(found, &stored))?;
    in_seconds(&batch, schema).map_err(|e| e.to_string())
}

/// The rows of a stored file as they are stored (timestamps in milliseconds), which must have
/// the checksum of its pages and a schema `check` accepts (checked before a row is read).
fn read_checked(
    bytes: Vec<u8>,
    check: impl FnOnce(&SchemaRef) -> std::result::Result<(), String>,
) -> std::result::Result<RecordBatch, String> {
    let end = pages_end(&bytes).ok_or("it is too short to be a Parquet file")?;
    let checksum = crc32fast::hash(&bytes[..end]);
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes)).map_err(|e| e.to_string())?;
    let recorded = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .and_then(|pairs| pairs.iter().find(|pair| pair.key == CHECKSUM_KEY))
        .and_then(|pair| pair.value.as_deref()?.parse::<u32>().ok());
    if recorded != Some(checksum) {
        return Err("its pages do not match their checksum".into());
    }
    let stored = builder.schema().clone();
    check(&stored)?;
    // The whole file as one batch: no batches to concatenate after.
    let rows = usize::try_from(builder.metadata().file_metadata().num_rows())
        .map_err(|_| "it counts fewer than no rows")?
        .max(1);
    let reader = builder.with_batch_size(rows).build().map_err(|e| e.to_string())?;
    let mut batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    match batches.len() {
        1 => Ok(batches.remove(0)),
        _ => crate::table::concat_batches(&stored, &batches).map_err(|e| e.to_string()),
    }
}

/// `schema` with its timestamps in milliseconds. Parquet has no timestamp unit of seconds: a
/// `Timestamp(Second)` column would be written as a bare integer, which readers other than
/// arrow-rs (pandas, Spark, DuckDB, pyarrow) take for a number rather than a time.
///
/// ```
/// use monapi::store::milliseconds_schema;
/// use monapi::table::service_report_schema;
/// use monapi::table::arrow_schema::{DataType, TimeUnit};
/// let schema = milliseconds_schema(&service_report_schema(monapi::SERVICE_TIMEZONE));
/// assert_eq!(schema.field(2).data_type(), &DataType::Timestamp(TimeUnit::Millisecond, Some("+08:00".into())));
/// ```
pub fn milliseconds_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|field| match field.data_type() {
            DataType::Timestamp(TimeUnit::Second, zone) => field
                .as_ref()
                .clone()
                .with_data_type(DataType::Timestamp(TimeUnit::Millisecond, zone.clone())),
            _ => field.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` with its timestamps in milliseconds, as Parquet files hold them (see
/// [`milliseconds_schema`]); a time too far from 1970 to count in milliseconds is an error
/// naming its column, never a wrap.
///
/// ```
/// use monapi::store::try_in_milliseconds;
/// use monapi::table::{service_report_schema, RecordBatch};
/// let empty = RecordBatch::new_empty(service_report_schema(monapi::SERVICE_TIMEZONE));
/// assert_eq!(try_in_milliseconds(&empty)?.num_rows(), 0);
/// # Ok::<(), monapi::Error>(())
/// ```
///
/// # Errors
///
/// An [`Error::Store`] (its path `(in memory)`) naming the column that holds a time more than about
/// 9.2e15 seconds from 1970.
pub fn try_in_milliseconds(batch: &RecordBatch) -> Result<RecordBatch> {
    milliseconds(batch, |seconds| seconds.checked_mul(1000)).map_err(|column| Error::Store {
        path: "(in memory)".into(),
        message: format!(
            "the column {column} has a time too far from 1970 to be written (beyond ±9.2e15 seconds)"
        ),
    })
}

/// `batch` with each second `scale`d to milliseconds; the name of the column where `scale`
/// gives none.
fn milliseconds(
    batch: &RecordBatch,
    scale: impl Fn(i64) -> Option<i64>,
) -> std::result::Result<RecordBatch, String> {
    let schema = batch.schema();
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (column, field) in batch.columns().iter().zip(schema.fields()) {
        columns.push(match column.data_type() {
            DataType::Timestamp(TimeUnit::Second, zone) => Arc::new(
                column
                    .as_primitive::<TimestampSecondType>()
                    .try_unary::<_, TimestampMillisecondType, _>(|seconds| scale(seconds).ok_or(()))
                    .map_err(|()| field.name().clone())?
                    .with_timezone_opt(zone.clone()),
            ) as ArrayRef,
            _ => column.clone(),
        });
    }
    Ok(RecordBatch::try_new(milliseconds_schema(&schema), columns)
        .expect("the same columns, in milliseconds"))
}

/// A batch read from a store's file, back in `schema`'s seconds.
fn in_seconds(batch: &RecordBatch, schema: &SchemaRef) -> std::result::Result<RecordBatch, ArrowError> {
    let columns = batch
        .columns()
        .iter()
        .map(|column| match column.data_type() {
            DataType::Timestamp(TimeUnit::Millisecond, zone) => Arc::new(
                column
                    .as_primitive::<TimestampMillisecondType>()
                    .unary::<_, TimestampSecondType>(|millis| millis.div_euclid(1000))
                    .with_timezone_opt(zone.clone()),
            ) as ArrayRef,
            _ => column.clone(),
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns)
}

fn same_schema(found: &SchemaRef, expected: &SchemaRef) -> std::result::Result<(), String> {
    if found.fields() == expected.fields() {
        Ok(())
    } else {
        Err(format!("its schema is not the table's: {found:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::sync::atomic::AtomicU64;

    /// A fresh directory, removed when dropped.
    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path =
                std::env::temp_dir().join(format!("monapi-store-unit-{name}-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn utc() -> FixedOffset {
        FixedOffset::east_opt(0).unwrap()
    }

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 1).unwrap()
    }

    /// A day of a service report (every 5 minutes), built by the table builder.
    fn service_day(timezone: FixedOffset) -> RecordBatch {
        let mut body = String::from(r#"{"apache_rps":["#);
        for i in 0..288 {
            let sep = if i == 0 { "" } else { "," };
            let (hour, minute) = (i * 5 / 60, i * 5 % 60);
            body.push_str(&format!(
                r#"{sep}{{"time":"{hour:02}:{minute:02}","rps":"{}.{}"}}"#,
                100 + i % 37,
                i % 10
            ));
        }
        body.push_str("]}");
        crate::table::service_report(10001, body.as_bytes(), day(), timezone).unwrap()
    }

    /// The encoding of before: the pages encoded twice, the second time with the checksum
    /// of the first's in the footer.
    fn encode_twice(batch: &RecordBatch) -> Vec<u8> {
        let encode = |checksum: Option<u32>| {
            let properties = WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .build();
            let batch = try_in_milliseconds(batch).unwrap();
            let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties)).unwrap();
            writer.write(&batch).unwrap();
            if let Some(checksum) = checksum {
                writer.append_key_value_metadata(KeyValue::new(CHECKSUM_KEY.into(), checksum.to_string()));
            }
            writer.into_inner().unwrap()
        };
        let pages = encode(None);
        encode(Some(crc32fast::hash(&pages[..pages_end(&pages).unwrap()])))
    }

    #[test]
    fn a_file_encoded_once_is_the_file_encoded_twice_before_and_reads_back() {
        let tz = crate::SERVICE_TIMEZONE;
        for batch in [
            service_day(tz),
            RecordBatch::new_empty(StoreKind::ServiceReport.schema(tz)),
        ] {
            let once = encode_file(&batch).unwrap();
            assert_eq!(once, encode_twice(&batch), "{} rows", batch.num_rows());
            let read = read_stored_file(StoreKind::ServiceReport, tz, once.clone()).unwrap();
            assert_eq!(read, batch);
            // The checksum is checked: a changed byte before the footer is found.
            let end = pages_end(&once).unwrap();
            let mut garbled = once;
            garbled[end / 2] ^= 0x55;
            let why = read_stored_file(StoreKind::ServiceReport, tz, garbled).unwrap_err();
            assert!(why.contains("checksum"), "{} rows: {why}", batch.num_rows());
        }
    }

    #[test]
    fn a_panic_of_the_reader_is_an_error_that_sets_the_file_aside() {
        let why = unpanicked::<()>(|| panic!("assertion failed: end <= remainder.len()")).unwrap_err();
        assert!(why.contains("end <= remainder.len()"), "{why}");
        let why = unpanicked::<()>(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert!(why.starts_with("the Parquet reader failed on it"), "{why}");
    }

    #[test]
    fn any_bytes_read_as_a_table_or_an_error_never_a_panic() {
        let tz = crate::SERVICE_TIMEZONE;
        let whole = encode_file(&service_day(tz)).unwrap();
        let seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
        eprintln!("mutations from seed {seed}");
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200 {
            let mut bytes = whole.clone();
            match next() % 3 {
                0 => bytes.truncate((next() as usize) % bytes.len()),
                1 => {
                    let at = (next() as usize) % bytes.len();
                    bytes[at] = next() as u8;
                }
                _ => {
                    // The footer, where lengths and offsets are.
                    let at = bytes.len() - 1 - (next() as usize) % 200;
                    bytes[at] = next() as u8;
                }
            }
            let _ = read_stored_file(StoreKind::ServiceReport, tz, bytes);
        }
    }

    #[test]
    fn a_time_too_far_from_1970_is_an_error_to_write_never_a_wrap() {
        use arrow_array::TimestampSecondArray;
        let schema = Arc::new(Schema::new(vec![Field::new(
            "time",
            DataType::Timestamp(TimeUnit::Second, Some("+08:00".into())),
            true,
        )]));
        let times =
            TimestampSecondArray::from(vec![Some(1), None, Some(i64::MAX / 999)]).with_timezone("+08:00");
        let batch = RecordBatch::try_new(schema, vec![Arc::new(times)]).unwrap();
        let error = try_in_milliseconds(&batch).unwrap_err();
        assert!(error.to_string().contains("time"), "{error}");
        let within = batch.slice(0, 2);
        let within = try_in_milliseconds(&within).unwrap();
        let millis = within.column(0).as_primitive::<TimestampMillisecondType>();
        use arrow_array::Array;
        assert_eq!((millis.value(0), millis.is_null(1)), (1000, true));
    }

    #[test]
    fn two_stores_of_different_time_zones_on_one_directory_one_wins_the_other_is_refused() {
        // In turn: both open an empty directory (nothing recorded yet), then both write.
        let dir = Dir::new("zones");
        let east = Store::open(&dir.0, crate::SERVICE_TIMEZONE).unwrap();
        let west = Store::open(&dir.0, utc()).unwrap();
        east.write(
            StoreKind::ServiceReport,
            10001,
            day(),
            &service_day(crate::SERVICE_TIMEZONE),
        )
        .unwrap();
        let error = west
            .write(StoreKind::ServiceReport, 10002, day(), &service_day(utc()))
            .unwrap_err();
        assert_eq!(error.field(), Some("store"), "{error}");
        assert!(error.rule().unwrap().contains("+08:00"), "{error}");
        assert!(!west.holds(StoreKind::ServiceReport, 10002, day()).unwrap());
        let text = fs::read_to_string(dir.0.join(DESCRIPTION)).unwrap();
        assert_eq!(text, "{\"format\": 2, \"timezone\": \"+08:00\"}\n");

        // At once, from two threads, on fresh directories: exactly one wins each time.
        for round in 0..8 {
            let dir = Dir::new("zones-race");
            let barrier = Arc::new(std::sync::Barrier::new(2));
            let racers: Vec<_> = [crate::SERVICE_TIMEZONE, utc()]
                .into_iter()
                .map(|timezone| {
                    let (root, barrier) = (dir.0.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        let store = Store::open(&root, timezone).unwrap();
                        let batch = service_day(timezone);
                        barrier.wait();
                        store
                            .write(StoreKind::ServiceReport, 10001, day(), &batch)
                            .map(|_| timezone)
                    })
                })
                .collect();
            let outcomes: Vec<_> = racers.into_iter().map(|racer| racer.join().unwrap()).collect();
            let winners: Vec<FixedOffset> =
                outcomes.iter().filter_map(|o| o.as_ref().ok().copied()).collect();
            assert_eq!(winners.len(), 1, "round {round}: {outcomes:?}");
            let recorded = Store::open(&dir.0, winners[0])
                .unwrap()
                .recorded_timezone()
                .unwrap();
            assert_eq!(recorded, Some(winners[0]), "round {round}");
            let loser = outcomes.iter().find_map(|o| o.as_ref().err()).unwrap();
            assert_eq!(loser.field(), Some("store"), "round {round}: {loser}");
        }
    }

    #[test]
    fn a_description_cut_short_is_written_again_with_the_time_zone_of_the_files() {
        let dir = Dir::new("garbled");
        let east = Store::open(&dir.0, crate::SERVICE_TIMEZONE).unwrap();
        east.write(
            StoreKind::ServiceReport,
            10001,
            day(),
            &service_day(crate::SERVICE_TIMEZONE),
        )
        .unwrap();
        let path = dir.0.join(DESCRIPTION);
        let whole = fs::read(&path).unwrap();
        for cut in [0, 1, whole.len() / 2, whole.len() - 3] {
            fs::write(&path, &whole[..cut]).unwrap();
            // A client of another time zone: the files say +08:00, and it is refused.
            let error = Store::open(&dir.0, utc()).unwrap_err();
            assert_eq!(error.field(), Some("store"), "cut at {cut}: {error}");
            assert_eq!(fs::read(&path).unwrap(), whole, "cut at {cut}: repaired");
            fs::write(&path, &whole[..cut]).unwrap();
            let store = Store::open(&dir.0, crate::SERVICE_TIMEZONE).unwrap();
            assert_eq!(fs::read(&path).unwrap(), whole, "cut at {cut}");
            assert!(matches!(
                store.read(StoreKind::ServiceReport, 10001, day()).unwrap(),
                Read::Held(_)
            ));
        }
        let set_aside = fs::read_dir(dir.0.join(CORRUPT)).unwrap().count();
        assert_eq!(set_aside, 8, "each cut description kept in .corrupt/");
        // Valid JSON of another shape is not a torn write: not replaced.
        fs::write(&path, "{\"format\": 2}").unwrap();
        let error = Store::open(&dir.0, crate::SERVICE_TIMEZONE).unwrap_err();
        assert!(
            error.to_string().contains("is not a store's description"),
            "{error}"
        );
        // A store without files takes the client's time zone.
        let empty = Dir::new("garbled-empty");
        fs::create_dir_all(&empty.0).unwrap();
        fs::write(empty.0.join(DESCRIPTION), "{\"format\": 1, \"time").unwrap();
        Store::open(&empty.0, utc()).unwrap();
        assert!(fs::read_to_string(empty.0.join(DESCRIPTION))
            .unwrap()
            .contains("+00:00"));
    }
}
