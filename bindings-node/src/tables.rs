//! `client.tables`: the core's Arrow tables (`monapi::table`) for JavaScript.
//!
//! A table stays in Rust memory ([`NativeTable`], one record batch). JavaScript reads it
//! column by column as typed arrays whose memory Rust hands over (no object per cell), or as
//! the Arrow IPC stream bytes; `index.js` builds rows from the columns. Every value is as the
//! core built it: nothing is parsed again in JavaScript.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampSecondType};
use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use monapi::input;
use monapi::table::{self, BulkOptions, BulkTables, OnFailure, Progress, SiteTables, TaskIds};
use monapi::Client;
use napi::bindgen_prelude::{
    BigInt64Array, Buffer, Either, Float64Array, Function, Int32Array, Object, PromiseRaw, Uint8Array,
};
use napi::Env;
use napi_derive::napi;

use crate::boundary::guard;
use crate::call::NativeCall;
use crate::client::{id, range, task_and_range, NativeClient};
use crate::errors::{failure, invalid_input, Result, Settled};

/// One table (an Arrow record batch) held in Rust memory.
#[napi]
pub struct NativeTable {
    batch: RecordBatch,
}

/// A column's name, Arrow type (as Arrow writes it, e.g. `Timestamp(s, "+08:00")`) and
/// whether it may hold nulls.
#[napi(object)]
pub struct NativeField {
    pub name: String,
    pub r#type: String,
    pub nullable: bool,
}

/// A column as typed arrays. `kind` says which are set:
/// - `number` (floats, and integers other than `task_id`): `numbers`, NaN for null;
/// - `id` (`task_id`, the key of every report table): `ids`, and `numbers` (the same, exact
///   up to 2^53);
/// - `timestamp`: `numbers`, milliseconds since the epoch, NaN for null;
/// - `string`: `keys` into `strings`, -1 for null;
/// - `boolean`: `flags`, 0 false, 1 true, 2 null.
#[napi(object, object_from_js = false)]
pub struct NativeColumn {
    pub kind: String,
    pub numbers: Option<Float64Array>,
    pub ids: Option<BigInt64Array>,
    pub keys: Option<Int32Array>,
    pub strings: Option<Vec<String>>,
    pub flags: Option<Uint8Array>,
}

impl NativeColumn {
    fn new(kind: &str) -> NativeColumn {
        NativeColumn {
            kind: kind.into(),
            numbers: None,
            ids: None,
            keys: None,
            strings: None,
            flags: None,
        }
    }
}

fn numbers(values: impl Iterator<Item = Option<f64>>) -> Float64Array {
    Float64Array::new(values.map(|v| v.unwrap_or(f64::NAN)).collect())
}

/// A text column: `keys` into `strings` (-1 for null).
fn texts(keys: Vec<i32>, strings: &StringArray) -> NativeColumn {
    let mut out = NativeColumn::new("string");
    out.keys = Some(Int32Array::new(keys));
    out.strings = Some(
        strings
            .iter()
            .map(|s| s.unwrap_or_default().to_string())
            .collect(),
    );
    out
}

fn column(name: &str, array: &dyn Array) -> Result<NativeColumn> {
    let mut out;
    match array.data_type() {
        DataType::Float64 => {
            out = NativeColumn::new("number");
            out.numbers = Some(numbers(array.as_primitive::<Float64Type>().iter()));
        }
        DataType::Int64 if name == "task_id" => {
            out = NativeColumn::new("id");
            let values = array.as_primitive::<Int64Type>();
            out.numbers = Some(numbers(values.iter().map(|v| v.map(|v| v as f64))));
            out.ids = Some(BigInt64Array::new(values.values().to_vec()));
        }
        DataType::Int64 => {
            out = NativeColumn::new("number");
            let values = array.as_primitive::<Int64Type>().iter();
            out.numbers = Some(numbers(values.map(|v| v.map(|v| v as f64))));
        }
        DataType::Timestamp(TimeUnit::Second, _) => {
            out = NativeColumn::new("timestamp");
            let values = array.as_primitive::<TimestampSecondType>().iter();
            out.numbers = Some(numbers(values.map(|v| v.map(|s| s as f64 * 1000.0))));
        }
        DataType::Dictionary(_, _) => {
            let dictionary = array.as_dictionary::<Int32Type>();
            let keys = dictionary.keys().iter().map(|k| k.unwrap_or(-1)).collect();
            out = texts(keys, dictionary.values().as_string::<i32>());
        }
        DataType::Utf8 => {
            // A plain text column is its own dictionary, in row order.
            let strings = array.as_string::<i32>();
            let keys = (0..strings.len())
                .map(|i| if strings.is_null(i) { -1 } else { i as i32 })
                .collect();
            out = texts(keys, strings);
        }
        DataType::Boolean => {
            out = NativeColumn::new("boolean");
            let flags = array.as_boolean().iter().map(|b| b.map_or(2, u8::from)).collect();
            out.flags = Some(Uint8Array::new(flags));
        }
        other => {
            // The core's schemas use only the types above.
            return Err(invalid_input(
                "table",
                &format!("has a column of type {other}, which this package cannot hand over"),
            ));
        }
    }
    Ok(out)
}

#[napi]
impl NativeTable {
    /// How many rows.
    #[napi(catch_unwind, getter)]
    pub fn num_rows(&self) -> u32 {
        self.batch.num_rows() as u32
    }

    /// The columns' names and types, in order.
    #[napi(catch_unwind)]
    pub fn fields(&self) -> Vec<NativeField> {
        self.batch
            .schema()
            .fields()
            .iter()
            .map(|field| NativeField {
                name: field.name().clone(),
                r#type: field.data_type().to_string(),
                nullable: field.is_nullable(),
            })
            .collect()
    }

    /// Column `index` as typed arrays.
    #[napi(catch_unwind)]
    pub fn column(&self, env: Env, index: u32) -> napi::Result<NativeColumn> {
        guard(&env, || {
            let index = index as usize;
            let array = self
                .batch
                .columns()
                .get(index)
                .ok_or_else(|| invalid_input("column", "is not a column of this table"))?;
            column(self.batch.schema().field(index).name(), array.as_ref())
        })
    }

    /// The table in the Arrow IPC stream format.
    #[napi(catch_unwind)]
    pub fn to_ipc(&self, env: Env) -> napi::Result<Buffer> {
        guard(&env, || {
            let mut bytes = Vec::new();
            let written = (|| {
                let mut writer = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &self.batch.schema())?;
                writer.write(&self.batch)?;
                writer.finish()
            })();
            written.map_err(|e| invalid_input("table", &format!("cannot be written as Arrow IPC: {e}")))?;
            Ok(Buffer::from(bytes))
        })
    }
}

fn native(batch: RecordBatch) -> NativeTable {
    NativeTable { batch }
}

fn site_tables(tables: SiteTables) -> Vec<NativeTable> {
    vec![
        native(tables.availability),
        native(tables.response_time),
        native(tables.faults),
    ]
}

/// How far a bulk call has come (`onProgress`).
#[napi(object)]
pub struct NativeProgress {
    pub done: u32,
    pub total: u32,
    pub failed: u32,
    pub bytes: f64,
    pub rows: f64,
}

impl From<Progress> for NativeProgress {
    fn from(progress: Progress) -> Self {
        NativeProgress {
            done: progress.done as u32,
            total: progress.total as u32,
            failed: progress.failed as u32,
            bytes: progress.bytes as f64,
            rows: progress.rows as f64,
        }
    }
}

/// What a bulk call brings back: the tables of the tasks that succeeded, each kind
/// concatenated in task order (one table, or the three of a site report), the tasks that
/// failed, and the error the call fails with (`errors: 'raise'` and a task failed).
#[napi]
pub struct NativeBulk {
    tables: Vec<RecordBatch>,
    failures: Vec<(u64, monapi::Error)>,
    raised: Option<monapi::Error>,
}

#[napi]
impl NativeBulk {
    /// The tables (one, or a site report's three).
    #[napi(catch_unwind)]
    pub fn tables(&self) -> Vec<NativeTable> {
        self.tables.iter().cloned().map(native).collect()
    }

    /// The ids of the tasks that failed, in task order.
    #[napi(catch_unwind)]
    pub fn failed_tasks(&self) -> Vec<f64> {
        self.failures.iter().map(|(task_id, _)| *task_id as f64).collect()
    }

    /// The error of the `index`-th task that failed.
    #[napi(catch_unwind, ts_return_type = "Error")]
    pub fn failure<'e>(&self, env: &'e Env, index: u32) -> napi::Result<Object<'e>> {
        match self.failures.get(index as usize) {
            Some((_, error)) => failure(error).into_js(env),
            None => invalid_input("index", "is not a failed task").into_js(env),
        }
    }

    /// The `PARTIAL_RESULT` error the call fails with (`errors: 'raise'` and a task failed),
    /// or `null`.
    #[napi(catch_unwind, ts_return_type = "Error | null")]
    pub fn raised<'e>(&self, env: &'e Env) -> napi::Result<Option<Object<'e>>> {
        self.raised
            .as_ref()
            .map(|error| failure(error).into_js(env))
            .transpose()
    }
}

/// The batches of many tasks as one, in their order (the schema's empty table when none).
fn concat(schema: SchemaRef, batches: impl IntoIterator<Item = RecordBatch>) -> Result<RecordBatch> {
    let batches: Vec<RecordBatch> = batches.into_iter().collect();
    table::concat_batches(&schema, &batches)
        .map_err(|e| invalid_input("table", &format!("cannot be joined: {e}")))
}

fn bulk_of<T>(bulk: BulkTables<T>, on_failure: OnFailure, tables: Vec<RecordBatch>) -> NativeBulk {
    NativeBulk {
        raised: bulk.error(on_failure),
        failures: bulk.failures,
        tables,
    }
}

/// The options of a bulk call, read by the core's rules; `onProgress` as the core's callback
/// (queued to JavaScript, never blocking, a bounded queue: `sync::progress_callback`).
fn bulk_options(
    concurrency: Option<f64>,
    on_progress: Option<Function<NativeProgress, ()>>,
    errors: Option<String>,
) -> Result<(BulkOptions, OnFailure)> {
    let on_failure = errors
        .as_deref()
        .map(OnFailure::parse)
        .transpose()?
        .unwrap_or_default();
    let mut options = BulkOptions::new();
    if let Some(concurrency) = concurrency {
        options = options.concurrency(input::concurrency(concurrency)?);
    }
    if let Some(callback) = on_progress {
        options = options.on_progress(crate::sync::progress_callback::<Progress, NativeProgress>(
            callback,
        )?);
    }
    Ok((options, on_failure))
}

/// The tasks a bulk call names: these ids, or (unset) every task of the list.
fn tasks_of(ids: Option<&[Either<f64, String>]>) -> Result<TaskIds> {
    let Some(ids) = ids else {
        return Ok(TaskIds::All);
    };
    Ok(TaskIds::Ids(
        ids.iter()
            .map(|task| input::task_id(id(task)))
            .collect::<monapi::Result<_>>()?,
    ))
}

#[napi]
impl NativeClient {
    /// Every service task as one table.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeTable>")]
    pub fn table_service_tasks<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeTable>>> {
        self.start(env, call, |client| {
            Ok(async move { Ok(native(client.tables().service_tasks().await?)) })
        })
    }

    /// Every site task as one table.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeTable>")]
    pub fn table_site_tasks<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeTable>>> {
        self.start(env, call, |client| {
            Ok(async move { Ok(native(client.tables().site_tasks().await?)) })
        })
    }

    /// The monitoring points as a table.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeTable>")]
    pub fn table_monitors<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeTable>>> {
        self.start(env, call, |client| {
            Ok(async move { Ok(native(client.tables().monitors().await?)) })
        })
    }

    /// The long table of a service task's report.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeTable>")]
    pub fn table_service_report<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeTable>>> {
        self.start(env, call, |client| {
            let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
            Ok(async move { Ok(native(client.tables().service_report(task_id, range).await?)) })
        })
    }

    /// A site report's three tables: availability, response time, faults.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeTable[]>")]
    pub fn table_site_report<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        monitor: Option<Either<f64, String>>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<Vec<NativeTable>>>> {
        self.start(env, call, |client| {
            let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
            let monitor = input::monitor(monitor.as_ref().map(id))?;
            Ok(async move {
                let tables = client.tables().site_report(task_id, range, monitor).await?;
                Ok(site_tables(tables))
            })
        })
    }

    /// The response-time distribution as a table.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeTable>")]
    pub fn table_response_time_distribution<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeTable>>> {
        self.start(env, call, |client| {
            let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
            Ok(async move {
                let table = client.tables().response_time_distribution(task_id, range).await?;
                Ok(native(table))
            })
        })
    }

    /// The service reports of many tasks (`task_ids` unset: every task of the list).
    #[napi(catch_unwind, ts_return_type = "Promise<NativeBulk>")]
    #[allow(clippy::too_many_arguments)]
    pub fn table_service_reports<'e>(
        &self,
        env: &'e Env,
        task_ids: Option<Vec<Either<f64, String>>>,
        start_date: Option<String>,
        end_date: Option<String>,
        concurrency: Option<f64>,
        on_progress: Option<Function<NativeProgress, ()>>,
        errors: Option<String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeBulk>>> {
        self.start(env, call, |client: Client| {
            let tasks = tasks_of(task_ids.as_deref())?;
            let range = range(start_date, end_date)?;
            let (options, on_failure) = bulk_options(concurrency, on_progress, errors)?;
            Ok(async move {
                let timezone = client.timezone();
                let bulk = client.tables().service_reports(tasks, range, options).await?;
                let table = concat(
                    table::service_report_schema(timezone),
                    bulk.tables.iter().map(|(_, t)| t.clone()),
                )?;
                Ok(bulk_of(bulk, on_failure, vec![table]))
            })
        })
    }

    /// The site reports of many tasks (the same `monitor` for all; `task_ids` unset: every
    /// task of the site task list).
    #[napi(catch_unwind, ts_return_type = "Promise<NativeBulk>")]
    #[allow(clippy::too_many_arguments)]
    pub fn table_site_reports<'e>(
        &self,
        env: &'e Env,
        task_ids: Option<Vec<Either<f64, String>>>,
        start_date: Option<String>,
        end_date: Option<String>,
        monitor: Option<Either<f64, String>>,
        concurrency: Option<f64>,
        on_progress: Option<Function<NativeProgress, ()>>,
        errors: Option<String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<NativeBulk>>> {
        self.start(env, call, |client: Client| {
            let tasks = tasks_of(task_ids.as_deref())?;
            let range = range(start_date, end_date)?;
            let monitor = input::monitor(monitor.as_ref().map(id))?;
            let (options, on_failure) = bulk_options(concurrency, on_progress, errors)?;
            Ok(async move {
                let timezone = client.timezone();
                let bulk = client
                    .tables()
                    .site_reports(tasks, range, monitor, options)
                    .await?;
                let pick =
                    |f: fn(&SiteTables) -> &RecordBatch| bulk.tables.iter().map(move |(_, t)| f(t).clone());
                let tables = vec![
                    concat(
                        table::site_availability_schema(timezone),
                        pick(|t| &t.availability),
                    )?,
                    concat(
                        table::site_response_time_schema(timezone),
                        pick(|t| &t.response_time),
                    )?,
                    concat(table::site_faults_schema(timezone), pick(|t| &t.faults))?,
                ];
                Ok(bulk_of(bulk, on_failure, tables))
            })
        })
    }
}
