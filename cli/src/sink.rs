//! Writers of record batches in the export formats: CSV, NDJSON, Parquet, Arrow IPC.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use clap::ValueEnum;
use monapi::store::{milliseconds_schema, try_in_milliseconds};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

/// RFC 3339 with the offset, e.g. `2026-11-01T00:05:00+08:00` (CSV and NDJSON).
const TIMESTAMP_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%:z";

/// The file formats of `monapi export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Comma-separated values with a header line; times in RFC 3339 with the offset.
    Csv,
    /// Apache Parquet (zstd), with the Arrow schema (types, time zone) inside; times in
    /// milliseconds, Parquet's coarsest unit.
    Parquet,
    /// One JSON object per line, every column present (null where empty).
    Ndjson,
    /// Arrow IPC file (Feather v2).
    Arrow,
}

impl Format {
    /// The file name extension of a partition file.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Parquet => "parquet",
            Format::Ndjson => "ndjson",
            Format::Arrow => "arrow",
        }
    }

    /// Whether the format is text, which may go to standard output.
    pub(crate) fn is_text(self) -> bool {
        matches!(self, Format::Csv | Format::Ndjson)
    }
}

/// Anything a writer fails with.
pub(crate) type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// Batches of one schema on their way into one file (or standard output).
pub(crate) enum Sink {
    Csv(arrow_csv::Writer<Box<dyn Write + Send>>),
    Ndjson(arrow_json::LineDelimitedWriter<Box<dyn Write + Send>>),
    Parquet(ArrowWriter<Box<dyn Write + Send>>),
    /// An Arrow IPC file holds one dictionary per column for all its batches: the batches
    /// are kept until the end, then written with their dictionaries merged.
    Arrow {
        out: Box<dyn Write + Send>,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    },
}

impl Sink {
    /// A sink writing `schema`'s batches to `path` (`None`: standard output).
    pub(crate) fn create(format: Format, path: Option<&Path>, schema: SchemaRef) -> Result<Sink, SinkError> {
        let out: Box<dyn Write + Send> = match path {
            Some(path) => Box::new(BufWriter::new(File::create(path).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot create {}: {e}", path.display()))
            })?)),
            None => Box::new(BufWriter::new(io::stdout())),
        };
        Ok(match format {
            Format::Csv => {
                let mut writer = arrow_csv::WriterBuilder::new()
                    .with_header(true)
                    .with_timestamp_tz_format(TIMESTAMP_FORMAT.into())
                    .build(out);
                // The header goes with the first batch: an empty one, so that a table without
                // rows still has it.
                writer.write(&RecordBatch::new_empty(schema))?;
                Sink::Csv(writer)
            }
            Format::Ndjson => Sink::Ndjson(
                arrow_json::WriterBuilder::new()
                    .with_explicit_nulls(true)
                    .with_timestamp_tz_format(TIMESTAMP_FORMAT.into())
                    .build(out),
            ),
            Format::Parquet => {
                let properties = WriterProperties::builder()
                    .set_compression(Compression::ZSTD(ZstdLevel::default()))
                    .build();
                Sink::Parquet(ArrowWriter::try_new(
                    out,
                    milliseconds_schema(&schema),
                    Some(properties),
                )?)
            }
            Format::Arrow => Sink::Arrow {
                out,
                schema,
                batches: Vec::new(),
            },
        })
    }

    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<(), SinkError> {
        match self {
            Sink::Csv(writer) => writer.write(batch)?,
            Sink::Ndjson(writer) => writer.write(batch)?,
            Sink::Parquet(writer) => writer.write(&try_in_milliseconds(batch)?)?,
            Sink::Arrow { batches, .. } => batches.push(batch.clone()),
        }
        Ok(())
    }

    /// Writes what is left (a CSV header, Parquet's footer, ...) and flushes.
    pub(crate) fn finish(self) -> Result<(), SinkError> {
        match self {
            Sink::Csv(writer) => writer.into_inner().flush()?,
            Sink::Ndjson(mut writer) => {
                writer.finish()?;
                writer.into_inner().flush()?;
            }
            Sink::Parquet(writer) => {
                writer.into_inner()?.flush()?;
            }
            Sink::Arrow { out, schema, batches } => {
                let mut writer = arrow_ipc::writer::FileWriter::try_new(out, &schema)?;
                for batch in merge_dictionaries(&schema, &batches)? {
                    writer.write(&batch)?;
                }
                writer.finish()?;
                writer.into_inner()?.flush()?;
            }
        }
        Ok(())
    }
}

/// The same batches, each `Dictionary(Int32, Utf8)` column now indexing one dictionary shared
/// by all of them (each distinct string once, in order of first sight).
fn merge_dictionaries(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<Vec<RecordBatch>, ArrowError> {
    let mut columns: Vec<Vec<ArrayRef>> = batches.iter().map(|b| b.columns().to_vec()).collect();
    for (index, field) in schema.fields().iter().enumerate() {
        if !matches!(field.data_type(), DataType::Dictionary(key, value)
            if **key == DataType::Int32 && **value == DataType::Utf8)
        {
            continue;
        }
        let mut positions: HashMap<String, i32> = HashMap::new();
        let mut values: Vec<String> = Vec::new();
        let mut keys_of_batches = Vec::with_capacity(batches.len());
        for batch in batches {
            let dictionary = batch.column(index).as_dictionary::<Int32Type>();
            let strings = dictionary.values().as_string::<i32>();
            let moved: Vec<i32> = (0..strings.len())
                .map(|i| {
                    let text = strings.value(i);
                    *positions.entry(text.to_string()).or_insert_with(|| {
                        values.push(text.to_string());
                        values.len() as i32 - 1
                    })
                })
                .collect();
            let keys: Int32Array = dictionary
                .keys()
                .iter()
                .map(|key| key.map(|k| moved[k as usize]))
                .collect();
            keys_of_batches.push(keys);
        }
        let shared: ArrayRef = Arc::new(StringArray::from_iter_values(&values));
        for (batch_columns, keys) in columns.iter_mut().zip(keys_of_batches) {
            batch_columns[index] = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, shared.clone())?);
        }
    }
    columns
        .into_iter()
        .map(|columns| RecordBatch::try_new(schema.clone(), columns))
        .collect()
}
