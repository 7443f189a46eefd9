//! `monapi sync STORE`: brings a store up to date, the step a daily job runs.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use indicatif::{HumanBytes, ProgressBar, ProgressStyle};
use monapi::store::{StoreKind, SyncOptions, SyncProgress};
use monapi::table::DEFAULT_CONCURRENCY;
use monapi::{DateRange, Exit};

use crate::Connection;

/// The command's `--help` after its flags: the exit codes (the core's rule), and a cron line.
fn after_help() -> String {
    format!(
        "{}\n\nExample, a cron line that keeps the last 30 settled days at 03:00 each night:\n  \
         0 3 * * *  monapi sync /data/monapi >> /var/log/monapi-sync.log 2>&1",
        Exit::help()
    )
}

/// Bring a store (a directory, or a bucket: s3://, gs://, az://) up to date: fetch each
/// settled task-day it lacks (the last 30 settled days by default), and nothing it holds. A
/// table call or `monapi export --store DIR` then reads them from it; DuckDB, polars, pyarrow, Dask and Spark read it as Hive-partitioned
/// Parquet (see the documentation's "The store and monapi sync", docs/guides/store.md).
#[derive(Args)]
#[command(after_help = after_help())]
pub(crate) struct SyncArgs {
    /// The store: a directory (made when missing) or a bucket's URL (s3://bucket/prefix, with
    /// --storage-option and the AWS_* variables); it replaces --store. Left out: --store, else
    /// MONAPI_STORE (the client's store setting, so that a unit file or a container sets it
    /// once for every command).
    #[arg(value_name = "STORE")]
    dir: Option<PathBuf>,
    /// First day, YYYY-MM-DD (default: 29 days before --to's default).
    #[arg(long)]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: the last settled day; later days are left out, as
    /// they are not settled).
    #[arg(long)]
    to: Option<String>,
    /// Service or site task ids (repeat the option or list several); default: every task.
    #[arg(long = "task", value_name = "ID", num_args = 1..)]
    tasks: Vec<u64>,
    /// Tables to keep, separated by commas: service_report, site_availability,
    /// site_response_time, site_faults, or service and site for all of one report.
    #[arg(long, default_value = "service,site")]
    kinds: String,
    /// Tasks fetched at once.
    #[arg(long, env = "MONAPI_CONCURRENCY", default_value_t = DEFAULT_CONCURRENCY)]
    concurrency: usize,
    /// Read every file of the range whole and check its checksum, not only list it: those
    /// that fail are set aside in .corrupt/ and fetched again (a file garbled after it was
    /// written is otherwise found only when a read meets it).
    #[arg(long, env = "MONAPI_SYNC_VERIFY")]
    verify: bool,
    /// Rewrite a store of an older format (1: unsigned ids and counts, which Spark and other
    /// JVM engines cannot read) once into this version's, and fetch nothing: every other use
    /// of such a store is refused until then. Crash-safe: run it again if it was stopped.
    #[arg(long, conflicts_with_all = ["from", "to", "tasks", "verify"])]
    migrate: bool,
    /// No progress bar (it is drawn on stderr only when stderr is a terminal).
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    connection: Connection,
}

/// Runs a sync and says how it went (the core's rule, [`Exit`]).
pub(crate) async fn run(args: SyncArgs) -> Exit {
    match sync(args).await {
        Ok(done) => done,
        Err(error) => {
            eprintln!("monapi: error: {}", crate::said(&error));
            Exit::of_error(&error)
        }
    }
}

async fn sync(args: SyncArgs) -> monapi::Result<Exit> {
    let range = DateRange::parse(args.from.as_deref(), args.to.as_deref())?;
    let kinds = StoreKind::parse_list("kinds", &args.kinds)?;
    let mut builder = args.connection.builder()?;
    if let Some(dir) = &args.dir {
        builder = builder.store(dir);
    }
    // Without a store from anywhere, the core's sync refuses, naming the three ways to give one.
    let client = builder.build()?;
    if args.migrate {
        let migrated = client.tables().migrate_store().await?;
        for path in &migrated.set_aside {
            eprintln!("monapi: {} did not read; set aside", path.display());
        }
        let store = client
            .settings()
            .store
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        println!("monapi sync --migrate: {store} {}", migrated.summary());
        return Ok(Exit::Success);
    }
    let bar = bar(args.quiet);
    let moving = bar.clone();
    let mut options = SyncOptions::new()
        .range(range)
        .kinds(kinds)
        .concurrency(args.concurrency)
        .verify(args.verify)
        .on_progress(move |progress| show(&moving, progress));
    if !args.tasks.is_empty() {
        options = options.tasks(args.tasks);
    }
    let report = client.tables().sync(options).await?;
    bar.finish_and_clear();
    for failure in &report.failures {
        eprintln!(
            "monapi: {} of task {} from {} to {} failed: {}",
            failure.report, failure.task_id, failure.start, failure.end, failure.error
        );
    }
    for path in &report.set_aside {
        eprintln!(
            "monapi: {} did not read; set aside and fetched again",
            path.display()
        );
    }
    let days = match (report.start, report.end) {
        (Some(start), Some(end)) => format!("{start} to {end}"),
        _ => "no settled day in the range".into(),
    };
    println!(
        "monapi sync: {} ({days}, {} tasks)",
        report.summary(),
        report.tasks
    );
    let done = report.fetched + report.reused;
    Ok(Exit::of_tasks(report.failed() as usize, done as usize))
}

/// The progress bar on stderr: drawn only when stderr is a terminal and not `--quiet`.
fn bar(quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{wide_bar}] {pos}/{len} task-days, {msg}, ETA {eta}",
        )
        .expect("the template is valid"),
    )
}

fn show(bar: &ProgressBar, progress: SyncProgress) {
    let failed = match progress.failed {
        0 => String::new(),
        n => format!(", {n} failed"),
    };
    // The message first: the bar is drawn when the position moves.
    bar.set_message(format!(
        "{} fetched, {} reused, {} rows, {}{failed}",
        progress.fetched,
        progress.reused,
        progress.rows,
        HumanBytes(progress.bytes)
    ));
    bar.set_length(progress.total);
    bar.set_position(progress.done);
}
