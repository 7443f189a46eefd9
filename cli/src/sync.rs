//! `monapi sync DIR`: brings a local store up to date, the step a daily job runs.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use indicatif::{HumanBytes, ProgressBar, ProgressStyle};
use monapi::table::{StoreKind, SyncOptions, SyncProgress, DEFAULT_CONCURRENCY};
use monapi::{DateRange, ErrorKind};

use crate::Connection;

const EXIT_CODES: &str = "\
Exit codes:
  0  the store holds every settled task-day of the range
  1  nothing was synced (connection, login, listing or the store failed)
  2  usage: a bad argument (dates, task ids, --kinds, --concurrency), nothing was sent
  3  some task-days failed (each is listed on stderr with its error); the next sync retries them

Example, a cron line that keeps the last 30 settled days at 03:00 each night:
  0 3 * * *  monapi sync /data/monapi >> /var/log/monapi-sync.log 2>&1";

/// Bring a local store up to date: fetch each settled task-day it lacks (the last 30 settled
/// days by default), and nothing it holds. A table call or `monapi export --store DIR` then
/// reads them from it; DuckDB, polars, pyarrow, Dask and Spark read it as Hive-partitioned
/// Parquet (see README, "Store").
#[derive(Args)]
#[command(after_help = EXIT_CODES)]
pub(crate) struct SyncArgs {
    /// The store's directory (made when missing); it replaces --store.
    dir: PathBuf,
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
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY)]
    concurrency: usize,
    /// No progress bar (it is drawn on stderr only when stderr is a terminal).
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    connection: Connection,
}

/// Runs a sync and says how it went (see [`EXIT_CODES`]).
pub(crate) async fn run(args: SyncArgs) -> ExitCode {
    match sync(args).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("monapi: error: {error}");
            match error.kind() {
                ErrorKind::InvalidInput => ExitCode::from(2),
                _ => ExitCode::FAILURE,
            }
        }
    }
}

async fn sync(args: SyncArgs) -> monapi::Result<ExitCode> {
    let range = DateRange::parse(args.from.as_deref(), args.to.as_deref())?;
    let kinds = StoreKind::parse_list("kinds", &args.kinds)?;
    let client = args.connection.builder()?.store(&args.dir).build()?;
    let bar = bar(args.quiet);
    let moving = bar.clone();
    let mut options = SyncOptions::new()
        .range(range)
        .kinds(kinds)
        .concurrency(args.concurrency)
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
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
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
