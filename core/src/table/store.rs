//! [`Store`]: a directory of report tables kept by day, as Hive-partitioned Parquet.
//!
//! ```text
//! DIR/store.json                                   {"format": 1, "timezone": "+08:00"}
//! DIR/service_report/day=2026-11-01/task-10001.parquet
//! DIR/site_availability/day=2026-11-01/task-20001.parquet
//! DIR/site_response_time/day=2026-11-01/task-20001.parquet
//! DIR/site_faults/day=2026-11-01/task-20001.parquet
//! DIR/.tmp/       files being written (renamed into place when whole)
//! DIR/.corrupt/   files that did not read, set aside with the time they were found
//! ```
//!
//! One file holds one task's rows of one day (its schema is the table's, zstd-compressed),
//! so a file is the unit a fetch fills: it is written to `.tmp/` and renamed into place,
//! and what the store holds is the list of its file names. A file that exists is whole
//! (a writer killed before its rename leaves only a `.tmp/` file, which readers never see);
//! two writers of one task-day write the same rows, and the second rename replaces the
//! first, so nothing is doubled. The day is a Hive partition (`day=`), which DuckDB,
//! polars, pyarrow, Dask and Spark read as a date column; the task id is in the rows.
//!
//! A store keeps days in one time zone (the client's when it was first written, recorded
//! in `store.json`): a client with another one is refused rather than mixing days.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{TimestampMillisecondType, TimestampSecondType};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use chrono::{FixedOffset, NaiveDate};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::{Error, Result};

/// The version of the layout, recorded in `store.json`.
const FORMAT: u32 = 1;
/// Where files are written before they are renamed into place.
const TMP: &str = ".tmp";
/// Where files that did not read are set aside.
const CORRUPT: &str = ".corrupt";
/// Files left in `.tmp/` longer than this were abandoned (their writer died) and are removed.
const ABANDONED_SECS: u64 = 3600;

/// A table a store keeps: one dataset (a directory) each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StoreKind {
    /// Service reports (`service_report/`): [`service_report_schema`](super::service_report_schema).
    ServiceReport,
    /// Site availability (`site_availability/`): [`site_availability_schema`](super::site_availability_schema).
    SiteAvailability,
    /// Site response times (`site_response_time/`): [`site_response_time_schema`](super::site_response_time_schema).
    SiteResponseTime,
    /// Site faults (`site_faults/`), by the day they started: [`site_faults_schema`](super::site_faults_schema).
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

    /// The kinds `text` names, separated by commas: kind names, or `service` and `site` for
    /// the kinds of one report. The error names `field`.
    ///
    /// ```
    /// use monapi::table::StoreKind;
    /// assert_eq!(StoreKind::parse_list("kinds", "service,site_faults")?,
    ///            [StoreKind::ServiceReport, StoreKind::SiteFaults]);
    /// assert_eq!(StoreKind::parse_list("kinds", "sites").unwrap_err().field(), Some("kinds"));
    /// # Ok::<(), monapi::Error>(())
    /// ```
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
            StoreKind::ServiceReport => super::service_report_schema(timezone),
            StoreKind::SiteAvailability => super::site_availability_schema(timezone),
            StoreKind::SiteResponseTime => super::site_response_time_schema(timezone),
            StoreKind::SiteFaults => super::site_faults_schema(timezone),
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

/// A directory of report tables kept by day (see the module docs for the layout).
///
/// ```
/// use monapi::table::{Store, StoreKind};
/// let dir = std::env::temp_dir().join(format!("monapi-doc-store-{}", std::process::id()));
/// let store = Store::open(&dir, monapi::SERVICE_TIMEZONE)?;
/// assert!(store.contents(StoreKind::ServiceReport)?.is_empty());
/// # Ok::<(), monapi::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Store {
    root: PathBuf,
    timezone: FixedOffset,
}

impl Store {
    /// The store in `root` for days in `timezone`. Nothing is created until a day is
    /// written; a store first written in another time zone is an error.
    pub fn open(root: impl Into<PathBuf>, timezone: FixedOffset) -> Result<Store> {
        let store = Store {
            root: root.into(),
            timezone,
        };
        if let Some(recorded) = store.recorded_timezone()?
            && recorded != timezone
        {
            return Err(Error::invalid_input(
                None,
                "store",
                format!(
                    "holds days in the time zone {recorded} and this client's is {timezone}: give the client timezone=\"{recorded}\", or another store"
                ),
            ));
        }
        Ok(store)
    }

    /// The store's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The time zone of the store's days.
    pub fn timezone(&self) -> FixedOffset {
        self.timezone
    }

    /// The file of one task's rows of one day.
    pub fn file(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> PathBuf {
        self.root
            .join(kind.name())
            .join(format!("day={day}"))
            .join(format!("task-{task_id}.parquet"))
    }

    /// Whether the store holds a task-day (its file exists; a file that exists is whole).
    pub fn holds(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> bool {
        self.file(kind, task_id, day).is_file()
    }

    /// Every `(task_id, day)` the store holds of `kind`, sorted: read from the names of
    /// the files, none opened.
    pub fn contents(&self, kind: StoreKind) -> Result<Vec<(u64, NaiveDate)>> {
        let mut held = Vec::new();
        for day_dir in read_dir(&self.root.join(kind.name()))? {
            let Some(day) = day_dir
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| name.strip_prefix("day="))
                .and_then(|day| day.parse::<NaiveDate>().ok())
            else {
                continue;
            };
            for file in read_dir(&day_dir)? {
                let task = file
                    .file_name()
                    .and_then(|name| name.to_str())
                    .and_then(|name| name.strip_prefix("task-"))
                    .and_then(|name| name.strip_suffix(".parquet"))
                    .and_then(|id| id.parse::<u64>().ok());
                if let Some(task) = task {
                    held.push((task, day));
                }
            }
        }
        held.sort_unstable();
        Ok(held)
    }

    /// Reads one task-day. A file that does not read as the kind's table (truncated,
    /// corrupt, another schema) is moved to `.corrupt/` and reported, so that the day is
    /// fetched again.
    pub(crate) fn read(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> Result<Read> {
        let path = self.file(kind, task_id, day);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Read::Missing),
            Err(error) => return Err(io_error(&path, "could not be read", &error)),
        };
        match read_table(bytes, &kind.schema(self.timezone)) {
            Ok(batch) => Ok(Read::Held(batch)),
            Err(why) => self.set_aside(&path, why),
        }
    }

    /// Checks one task-day's file without reading its pages (its Parquet footer and schema):
    /// `Held` with an empty table when whole, as [`read`](Store::read) otherwise. A truncated
    /// file is found here; a garbled page when the file is read.
    pub(crate) fn check(&self, kind: StoreKind, task_id: u64, day: NaiveDate) -> Result<Read> {
        let path = self.file(kind, task_id, day);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Read::Missing),
            Err(error) => return Err(io_error(&path, "could not be opened", &error)),
        };
        let schema = kind.schema(self.timezone);
        let checked = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|error| error.to_string())
            .and_then(|builder| same_schema(builder.schema(), &milliseconds_schema(&schema)));
        match checked {
            Ok(()) => Ok(Read::Held(RecordBatch::new_empty(schema))),
            Err(why) => self.set_aside(&path, why),
        }
    }

    fn set_aside(&self, path: &Path, why: String) -> Result<Read> {
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let to = self
            .root
            .join(CORRUPT)
            .join(format!("{}.{stamp}", relative.display()));
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error(parent, "could not be created", &e))?;
        }
        match fs::rename(path, &to) {
            Ok(()) => {}
            // Another reader set it aside (or a writer replaced it) first.
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(io_error(path, "could not be set aside", &error)),
        }
        tracing::warn!(target: "monapi", file = %path.display(), set_aside = %to.display(), %why, "a stored file did not read; it is set aside and fetched again");
        Ok(Read::SetAside { to })
    }

    /// Writes one task-day whole, or not at all: into `.tmp/`, then renamed into place.
    /// Returns the file's size.
    pub(crate) fn write(
        &self,
        kind: StoreKind,
        task_id: u64,
        day: NaiveDate,
        batch: &RecordBatch,
    ) -> Result<u64> {
        self.record_timezone()?;
        let path = self.file(kind, task_id, day);
        let tmp_dir = self.root.join(TMP);
        for dir in [&tmp_dir, path.parent().expect("a file has a directory")] {
            fs::create_dir_all(dir).map_err(|e| io_error(dir, "could not be created", &e))?;
        }
        let tmp = tmp_dir.join(unique_name(&format!("{}-{task_id}-{day}", kind.name())));
        let written = write_table(&tmp, batch).and_then(|size| {
            fs::rename(&tmp, &path).map_err(|e| io_error(&path, "could not be put in place", &e))?;
            Ok(size)
        });
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }

    /// Removes what writers killed mid-way left in `.tmp/` (files older than an hour: a
    /// live writer's are younger).
    pub(crate) fn sweep(&self) {
        let Ok(files) = read_dir(&self.root.join(TMP)) else {
            return;
        };
        for file in files {
            let old = fs::metadata(&file)
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age.as_secs() > ABANDONED_SECS);
            if old {
                let _ = fs::remove_file(&file);
            }
        }
    }

    fn recorded_timezone(&self) -> Result<Option<FixedOffset>> {
        let path = self.root.join("store.json");
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(io_error(&path, "could not be read", &error)),
        };
        let timezone = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|value| value.get("timezone")?.as_str()?.parse::<FixedOffset>().ok());
        match timezone {
            Some(timezone) => Ok(Some(timezone)),
            None => Err(Error::Store {
                path: path.display().to_string(),
                message: "is not a store's description ({\"format\": 1, \"timezone\": \"+08:00\"})".into(),
            }),
        }
    }

    /// Writes `store.json` the first time a day is written.
    fn record_timezone(&self) -> Result<()> {
        let path = self.root.join("store.json");
        if path.is_file() {
            return Ok(());
        }
        fs::create_dir_all(&self.root).map_err(|e| io_error(&self.root, "could not be created", &e))?;
        let tmp = self.root.join(unique_name(".store.json"));
        let text = format!("{{\"format\": {FORMAT}, \"timezone\": \"{}\"}}\n", self.timezone);
        fs::write(&tmp, text)
            .and_then(|()| fs::rename(&tmp, &path))
            .map_err(|e| io_error(&path, "could not be written", &e))
    }
}

/// A name no other writer (thread or process) uses at the same time.
fn unique_name(stem: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let next = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{stem}.{}-{next}.part", std::process::id())
}

/// The key of the CRC-32 of a file's pages (every byte before its footer), in its footer.
/// Parquet's own page checksums are optional and not written by the Rust writer; without
/// one, a garbled page can decode into other values without an error.
const CHECKSUM_KEY: &str = "monapi.crc32";

fn write_table(path: &Path, batch: &RecordBatch) -> Result<u64> {
    let failed = |error: &dyn std::fmt::Display| Error::Store {
        path: path.display().to_string(),
        message: format!("could not be written: {error}"),
    };
    let batch = &in_milliseconds(batch);
    // The pages do not depend on the footer: encoded once to learn their checksum, then again
    // with it in the footer.
    let pages = encode(batch, None).map_err(|e| failed(&e))?;
    let checksum = crc32fast::hash(&pages[..pages_end(&pages).ok_or_else(|| failed(&"no footer"))?]);
    let bytes = encode(batch, Some(checksum)).map_err(|e| failed(&e))?;
    if pages_end(&bytes).map(|end| crc32fast::hash(&bytes[..end])) != Some(checksum) {
        return Err(failed(&"its pages were not encoded the same way twice"));
    }
    fs::write(path, &bytes).map_err(|e| failed(&e))?;
    Ok(bytes.len() as u64)
}

/// `batch` as a Parquet file (zstd), with `checksum` in its footer when given.
fn encode(batch: &RecordBatch, checksum: Option<u32>) -> parquet::errors::Result<Vec<u8>> {
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties))?;
    writer.write(batch)?;
    if let Some(checksum) = checksum {
        writer.append_key_value_metadata(KeyValue::new(CHECKSUM_KEY.into(), checksum.to_string()));
    }
    writer.into_inner()
}

/// Where a Parquet file's footer starts (its length is in the 4 bytes before the closing
/// `PAR1`).
fn pages_end(bytes: &[u8]) -> Option<usize> {
    let tail = bytes.len().checked_sub(8)?;
    let footer = u32::from_le_bytes(bytes[tail..tail + 4].try_into().ok()?) as usize;
    tail.checked_sub(footer)
}

/// The rows of a stored file, which must have `schema` and the checksum of its pages; the
/// error says why not.
fn read_table(bytes: Vec<u8>, schema: &SchemaRef) -> std::result::Result<RecordBatch, String> {
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
    let stored = milliseconds_schema(schema);
    same_schema(builder.schema(), &stored)?;
    // The whole file as one batch: no batches to concatenate after.
    let rows = builder.metadata().file_metadata().num_rows().max(1) as usize;
    let reader = builder.with_batch_size(rows).build().map_err(|e| e.to_string())?;
    let mut batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let batch = match batches.len() {
        1 => batches.remove(0),
        _ => arrow_select::concat::concat_batches(&stored, &batches).map_err(|e| e.to_string())?,
    };
    in_seconds(&batch, schema).map_err(|e| e.to_string())
}

/// `schema` with its timestamps in milliseconds. Parquet has no timestamp unit of seconds: a
/// `Timestamp(Second)` column would be written as a bare integer, which readers other than
/// arrow-rs (pandas, Spark, DuckDB, pyarrow) take for a number rather than a time.
///
/// ```
/// use monapi::table::{milliseconds_schema, service_report_schema};
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
/// [`milliseconds_schema`]).
pub fn in_milliseconds(batch: &RecordBatch) -> RecordBatch {
    let columns = batch
        .columns()
        .iter()
        .map(|column| match column.data_type() {
            DataType::Timestamp(TimeUnit::Second, zone) => Arc::new(
                column
                    .as_primitive::<TimestampSecondType>()
                    .unary::<_, TimestampMillisecondType>(|seconds| seconds * 1000)
                    .with_timezone_opt(zone.clone()),
            ) as ArrayRef,
            _ => column.clone(),
        })
        .collect();
    RecordBatch::try_new(milliseconds_schema(&batch.schema()), columns)
        .expect("the same columns, in milliseconds")
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

/// The entries of a directory; none when it does not exist.
fn read_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(io_error(dir, "could not be listed", &error)),
    };
    entries
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<io::Result<Vec<_>>>()
        .map_err(|error| io_error(dir, "could not be listed", &error))
}

fn io_error(path: &Path, what: &str, error: &io::Error) -> Error {
    Error::Store {
        path: path.display().to_string(),
        message: format!("{what}: {error}"),
    }
}
