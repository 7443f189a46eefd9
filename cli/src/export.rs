//! `monapi export`: the service's data as typed tables in CSV, Parquet, NDJSON or Arrow files.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use clap::{Args, Subcommand, ValueEnum};
use futures::StreamExt;
use indicatif::{HumanBytes, ProgressBar, ProgressStyle};
use monapi::table::{self, BulkOptions, BulkStream, Progress, SiteTables, DEFAULT_CONCURRENCY};
use monapi::{DateRange, ErrorKind, Exit};

use crate::sink::{Format, Sink, SinkError};
use crate::{parse_monitor, Connection};

/// Write the service's data as a typed table: CSV, Parquet, NDJSON or Arrow.
#[derive(Args)]
#[command(after_help = Exit::help())]
pub(crate) struct ExportArgs {
    #[command(subcommand)]
    table: ExportTable,
}

#[derive(Subcommand)]
enum ExportTable {
    /// Service reports as one long table (task_id, series, time, metric, value).
    #[command(after_help = Exit::help())]
    ServiceReports {
        /// Service task ids (repeat the option or list several); default: every task of the list.
        #[arg(long = "task", value_name = "ID", num_args = 1..)]
        tasks: Vec<u64>,
        #[command(flatten)]
        range: Range,
        #[command(flatten)]
        fetch: Fetch,
        #[command(flatten)]
        output: Output,
        #[command(flatten)]
        connection: Connection,
    },
    /// One of the three tables of site reports.
    #[command(after_help = Exit::help())]
    SiteReports {
        /// Which table.
        #[arg(long, value_enum)]
        table: SiteTable,
        /// Site task ids (repeat the option or list several); default: every task of the
        /// site task list.
        #[arg(long = "task", value_name = "ID", num_args = 1..)]
        tasks: Vec<u64>,
        /// `all` points (default), `average`, or a monitoring-point id.
        #[arg(long, default_value = "all")]
        monitor: String,
        #[command(flatten)]
        range: Range,
        #[command(flatten)]
        fetch: Fetch,
        #[command(flatten)]
        output: Output,
        #[command(flatten)]
        connection: Connection,
    },
    /// The service task list (every page).
    #[command(after_help = Exit::help())]
    ServiceTasks {
        #[command(flatten)]
        output: Output,
        #[command(flatten)]
        connection: Connection,
    },
    /// The site task list (every page).
    #[command(after_help = Exit::help())]
    SiteTasks {
        #[command(flatten)]
        output: Output,
        #[command(flatten)]
        connection: Connection,
    },
    /// Response-time distributions of site tasks.
    #[command(after_help = Exit::help())]
    Distribution {
        /// Site task ids (repeat the option or list several).
        #[arg(long = "task", value_name = "ID", num_args = 1.., required = true)]
        tasks: Vec<u64>,
        #[command(flatten)]
        range: Range,
        #[command(flatten)]
        output: Output,
        #[command(flatten)]
        connection: Connection,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum SiteTable {
    /// task_id, monitor_id, monitor, time, uprate.
    Availability,
    /// task_id, monitor_id, monitor, time and the seven response times.
    ResponseTime,
    /// task_id, monitor_id, monitor, start_time, end_time, ongoing, duration_s, cause, ...
    Faults,
}

#[derive(Args)]
struct Range {
    /// First day, YYYY-MM-DD (default: today in --timezone).
    #[arg(long)]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today in --timezone).
    #[arg(long)]
    to: Option<String>,
}

#[derive(Args)]
struct Fetch {
    /// Tasks fetched at once.
    #[arg(long, env = "MONAPI_CONCURRENCY", default_value_t = DEFAULT_CONCURRENCY)]
    concurrency: usize,
}

#[derive(Args)]
struct Output {
    /// File format.
    #[arg(long, value_enum)]
    format: Format,
    /// The file to write; `-` is standard output (csv and ndjson). With --split, a directory.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
    /// `task`: a Hive-style directory, FILE/task_id=N/part-0.<format>, which Spark, DuckDB
    /// and Polars read as one dataset (task_id comes from the directory names).
    #[arg(long, value_enum)]
    split: Option<Split>,
    /// No progress bar (it is drawn on stderr only when stderr is a terminal).
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Split {
    /// One directory per task.
    Task,
}

/// Why an export stopped.
enum Failure {
    /// Bad input: exit code 2.
    Usage(String),
    /// Anything else: exit code 1.
    Fatal(String),
    /// Standard output was closed by its reader (`monapi export ... -o - | head`): not an
    /// error of ours, so the export ends quietly.
    OutputClosed,
}

impl From<monapi::Error> for Failure {
    fn from(error: monapi::Error) -> Self {
        match error.kind() {
            ErrorKind::InvalidInput => Failure::Usage(crate::said(&error)),
            _ => Failure::Fatal(crate::said(&error)),
        }
    }
}

impl From<SinkError> for Failure {
    fn from(error: SinkError) -> Self {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error.as_ref());
        while let Some(error) = cause {
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return Failure::OutputClosed;
            }
            cause = error.source();
        }
        Failure::Fatal(error.to_string())
    }
}

/// Runs an export and says how it went (the core's rule, [`Exit`]).
pub(crate) async fn run(args: ExportArgs) -> Exit {
    match export(args.table).await {
        Ok(written) => written.report(),
        Err(Failure::Usage(message)) => {
            eprintln!("monapi: error: {message}");
            Exit::Usage
        }
        Err(Failure::Fatal(message)) => {
            eprintln!("monapi: error: {message}");
            Exit::Failure
        }
        Err(Failure::OutputClosed) => Exit::Success,
    }
}

/// What an export wrote.
struct Written {
    destination: String,
    quiet: bool,
    tasks: usize,
    rows: usize,
    failures: Vec<(u64, monapi::Error)>,
}

impl Written {
    fn report(self) -> Exit {
        for (task_id, error) in &self.failures {
            eprintln!("monapi: task {task_id} failed: {error}");
        }
        let failed = self.failures.len();
        if !self.quiet {
            eprintln!(
                "monapi: {} rows of {} task(s) written to {}{}",
                self.rows,
                self.tasks,
                self.destination,
                if failed > 0 {
                    format!("; {failed} task(s) failed")
                } else {
                    String::new()
                }
            );
        }
        Exit::of_tasks(failed, self.tasks)
    }
}

async fn export(table: ExportTable) -> Result<Written, Failure> {
    match table {
        ExportTable::ServiceReports {
            tasks,
            range,
            fetch,
            output,
            connection,
        } => {
            let client = client(connection, &output)?;
            let tasks = task_ids(tasks);
            let range = range.parse()?;
            let bar = Bar::new(output.quiet);
            let options = bar.options(fetch.concurrency);
            let stream = client
                .tables()
                .service_reports_stream(tasks, range, options)
                .await?;
            let destination = Destination::open(&output, table::service_report_schema(client.timezone()))?;
            write_all(stream, destination, &bar, |batch| batch).await
        }
        ExportTable::SiteReports {
            table: which,
            tasks,
            monitor,
            range,
            fetch,
            output,
            connection,
        } => {
            let client = client(connection, &output)?;
            let monitor = parse_monitor(&monitor)?;
            let range = range.parse()?;
            let timezone = client.timezone();
            let (schema, pick): (SchemaRef, fn(SiteTables) -> RecordBatch) = match which {
                SiteTable::Availability => (table::site_availability_schema(timezone), |t| t.availability),
                SiteTable::ResponseTime => (table::site_response_time_schema(timezone), |t| t.response_time),
                SiteTable::Faults => (table::site_faults_schema(timezone), |t| t.faults),
            };
            let bar = Bar::new(output.quiet);
            let options = bar.options(fetch.concurrency);
            let stream = client
                .tables()
                .site_reports_stream(task_ids(tasks), range, monitor, options)
                .await?;
            let destination = Destination::open(&output, schema)?;
            write_all(stream, destination, &bar, pick).await
        }
        ExportTable::ServiceTasks { output, connection } => {
            let client = client(connection, &output)?;
            let batch = client.tables().service_tasks().await?;
            write_list(&output, &batch)
        }
        ExportTable::SiteTasks { output, connection } => {
            let client = client(connection, &output)?;
            let batch = client.tables().site_tasks().await?;
            write_list(&output, &batch)
        }
        ExportTable::Distribution {
            tasks,
            range,
            output,
            connection,
        } => {
            let client = client(connection, &output)?;
            let range = range.parse()?;
            client.login().await?;
            let mut destination = Destination::open(&output, table::distribution_schema())?;
            let (mut written, mut rows, mut failures) = (0, 0, Vec::new());
            for task_id in tasks {
                match client.tables().response_time_distribution(task_id, range).await {
                    Ok(batch) => {
                        destination.write(task_id, &batch)?;
                        written += 1;
                        rows += batch.num_rows();
                    }
                    Err(error) if error.kind() == ErrorKind::InvalidInput => return Err(error.into()),
                    Err(error) => failures.push((task_id, error)),
                }
            }
            destination.finish(written, rows, failures, output.quiet)
        }
    }
}

/// The tasks `--task` names; none is every task of the list.
fn task_ids(tasks: Vec<u64>) -> table::TaskIds {
    if tasks.is_empty() {
        table::TaskIds::All
    } else {
        table::TaskIds::Ids(tasks)
    }
}

/// A task list's table, written whole (one row per task).
fn write_list(output: &Output, batch: &RecordBatch) -> Result<Written, Failure> {
    let mut destination = Destination::open(output, batch.schema())?;
    destination.write_by_task(batch)?;
    destination.finish(batch.num_rows(), batch.num_rows(), Vec::new(), output.quiet)
}

/// The client, once the output options are known to be usable.
fn client(connection: Connection, output: &Output) -> Result<monapi::Client, Failure> {
    output.check()?;
    Ok(connection.client()?)
}

impl Range {
    fn parse(&self) -> monapi::Result<DateRange> {
        DateRange::parse(self.from.as_deref(), self.to.as_deref())
    }
}

/// Writes each task's table as it arrives (in task order), keeps the failures. The writing
/// (Parquet's encoding and compression, mostly) runs on a thread of its own, so that the
/// next reports are fetched and read meanwhile.
async fn write_all<T>(
    mut stream: BulkStream<T>,
    destination: Destination,
    bar: &Bar,
    pick: impl Fn(T) -> RecordBatch,
) -> Result<Written, Failure> {
    // A few tables may wait for the writer; more would only hold memory.
    let (sender, mut receiver) = tokio::sync::mpsc::channel::<(u64, RecordBatch)>(4);
    let writer = std::thread::spawn(move || -> Result<Destination, SinkError> {
        let mut destination = destination;
        while let Some((task_id, batch)) = receiver.blocking_recv() {
            destination.write(task_id, &batch)?;
        }
        Ok(destination)
    });
    let (mut written, mut rows, mut failures) = (0, 0, Vec::new());
    while let Some((task_id, result)) = stream.next().await {
        match result {
            Ok(tables) => {
                let batch = pick(tables);
                written += 1;
                rows += batch.num_rows();
                if sender.send((task_id, batch)).await.is_err() {
                    break; // the writer failed: its error is below
                }
            }
            Err(error) => failures.push((task_id, error)),
        }
    }
    drop(sender);
    let destination = writer.join().expect("the writer does not panic")?;
    bar.bar.finish_and_clear();
    destination.finish(written, rows, failures, bar.quiet)
}

/// One file, or a Hive-style directory with a file per task.
enum Destination {
    File {
        sink: Box<Sink>,
        shown: String,
    },
    Split {
        directory: PathBuf,
        format: Format,
        /// The schema without `task_id`, which the directory names carry.
        schema: SchemaRef,
        parts: HashMap<u64, usize>,
    },
}

impl Output {
    fn to_stdout(&self) -> bool {
        self.output == Path::new("-")
    }

    /// Refuses what cannot be written, before anything is sent.
    fn check(&self) -> Result<(), Failure> {
        if self.to_stdout() && !self.format.is_text() {
            return Err(Failure::Usage(format!(
                "--format {} cannot go to standard output (-o -): give a file name",
                self.format.extension()
            )));
        }
        if self.to_stdout() && self.split.is_some() {
            return Err(Failure::Usage("--split task needs a directory, not -o -".into()));
        }
        Ok(())
    }
}

impl Destination {
    fn open(output: &Output, schema: SchemaRef) -> Result<Destination, Failure> {
        let stdout = output.to_stdout();
        if output.split.is_some() {
            std::fs::create_dir_all(&output.output).map_err(|e| {
                Failure::Fatal(format!(
                    "cannot create the directory {}: {e}",
                    output.output.display()
                ))
            })?;
            let fields = schema.fields().iter().skip(1).cloned().collect::<Vec<_>>();
            return Ok(Destination::Split {
                directory: output.output.clone(),
                format: output.format,
                schema: std::sync::Arc::new(arrow_schema::Schema::new(fields)),
                parts: HashMap::new(),
            });
        }
        let path = (!stdout).then_some(output.output.as_path());
        Ok(Destination::File {
            sink: Box::new(Sink::create(output.format, path, schema)?),
            shown: if stdout {
                "standard output".into()
            } else {
                output.output.display().to_string()
            },
        })
    }

    /// Writes the table of one task.
    fn write(&mut self, task_id: u64, batch: &RecordBatch) -> Result<(), SinkError> {
        match self {
            Destination::File { sink, .. } => sink.write(batch),
            Destination::Split {
                directory,
                format,
                schema,
                parts,
            } => {
                let directory = directory.join(format!("task_id={task_id}"));
                std::fs::create_dir_all(&directory)?;
                let part = parts.entry(task_id).or_insert(0);
                let path = directory.join(format!("part-{part}.{}", format.extension()));
                *part += 1;
                let columns: Vec<usize> = (1..batch.num_columns()).collect();
                let mut sink = Sink::create(*format, Some(&path), schema.clone())?;
                sink.write(&batch.project(&columns)?)?;
                sink.finish()
            }
        }
    }

    /// Writes a table holding several tasks: split by its `task_id` column when splitting.
    fn write_by_task(&mut self, batch: &RecordBatch) -> Result<(), SinkError> {
        if let Destination::File { sink, .. } = self {
            return sink.write(batch);
        }
        let ids = batch
            .column(0)
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .ok_or("the first column is not task_id")?;
        for row in 0..batch.num_rows() {
            let task_id = u64::try_from(ids.value(row)).map_err(|_| "a task_id below 0")?;
            self.write(task_id, &batch.slice(row, 1))?;
        }
        Ok(())
    }

    fn finish(
        self,
        tasks: usize,
        rows: usize,
        failures: Vec<(u64, monapi::Error)>,
        quiet: bool,
    ) -> Result<Written, Failure> {
        let destination = match self {
            Destination::File { sink, shown } => {
                sink.finish()?;
                shown
            }
            Destination::Split { directory, .. } => directory.display().to_string(),
        };
        Ok(Written {
            destination,
            quiet,
            tasks,
            rows,
            failures,
        })
    }
}

/// The progress bar on stderr: drawn only when stderr is a terminal and not `--quiet`.
struct Bar {
    bar: ProgressBar,
    quiet: bool,
}

impl Bar {
    fn new(quiet: bool) -> Bar {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0).with_style(
                ProgressStyle::with_template(
                    "{spinner} {elapsed_precise} [{wide_bar}] {pos}/{len} tasks, {msg}, ETA {eta}",
                )
                .expect("the template is valid"),
            )
        };
        Bar { bar, quiet }
    }

    /// Bulk options that move the bar.
    fn options(&self, concurrency: usize) -> BulkOptions {
        let bar = self.bar.clone();
        BulkOptions::new()
            .concurrency(concurrency)
            .on_progress(move |progress: Progress| {
                let seconds = bar.elapsed().as_secs_f64().max(1e-3);
                let rate = HumanBytes((progress.bytes as f64 / seconds) as u64);
                let failed = match progress.failed {
                    0 => String::new(),
                    n => format!(", {n} failed"),
                };
                // The message first: the bar is drawn when the position moves.
                bar.set_message(format!(
                    "{} rows, {} ({rate}/s){failed}",
                    progress.rows,
                    HumanBytes(progress.bytes)
                ));
                bar.set_length(progress.total as u64);
                bar.set_position(progress.done as u64);
            })
    }
}
