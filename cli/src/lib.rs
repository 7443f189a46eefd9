//! `monapi`: run the emulator, or call the service (real or emulated) and print JSON.
//!
//! The command is this library's [`run`]: the binary (`src/main.rs`) calls it, and so do the
//! Python and Node packages' `monapi` commands ([`run_embedded`]), so that each is the same
//! command with the same subcommands, flags and exit codes.

mod connection;
mod export;
mod exporter;
mod logs;
#[cfg(test)]
mod reference;
mod sink;
mod stop;
mod sync;
mod variables;

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use connection::Connection;
use monapi::input::{self, Id};
use monapi::{Client, DateRange, Exit, LogLevel, Monitor, NewServiceTask, Request, TaskList};
use monapi_emulator::{Config, Emulator};
use serde_json::Value;
use stop::StopSignals;

mod request;

/// Client and local emulator of the monitoring service API.
#[derive(Parser)]
#[command(name = "monapi", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    logs: logs::LogArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the emulator of the service on this machine until interrupted.
    ///
    /// SIGTERM (what supervisors, container runtimes and test harnesses send) or SIGINT (Ctrl-C)
    /// stops it cleanly: exit code 0, and with --tls its CA certificate's file removed. On
    /// Microsoft Windows, Ctrl-C.
    Serve(ServeArgs),
    /// Log in and print the token as JSON (it holds secrets: keep the output safe).
    Token {
        #[command(flatten)]
        connection: Connection,
    },
    /// Print the service task list as JSON (every page, or one).
    Tasks {
        /// Print only this page (from 1); by default every page, as one list.
        #[arg(long)]
        page: Option<u32>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print the collector agents and their plugins as JSON.
    Agents {
        #[command(flatten)]
        connection: Connection,
    },
    /// Print the site task list as JSON (every page, or one).
    Sites {
        /// Print only this page (from 1), as sent; by default every page, as one list.
        #[arg(long)]
        page: Option<u32>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print one site task's settings as JSON.
    Site {
        /// Site task id.
        task_id: u64,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print the monitoring points (the ids of site reports) as JSON.
    Monitors {
        #[command(flatten)]
        connection: Connection,
    },
    /// Print every user of the account as JSON.
    Users {
        #[command(flatten)]
        connection: Connection,
    },
    /// Print the user groups of the account as JSON.
    Groups {
        #[command(flatten)]
        connection: Connection,
    },
    /// Create service monitoring tasks from a JSON file (a list of task objects; `-` reads
    /// standard input) and print their ids as JSON. Every task is checked before anything is
    /// sent.
    CreateServiceTasks {
        /// The JSON file, or `-` for standard input.
        file: PathBuf,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print a report of a task as JSON.
    Report(ReportArgs),
    /// Call any operation of the service and print its answer as JSON.
    Request(request::RequestArgs),
    /// Write reports of many tasks (or the task list) as a table: CSV, Parquet, NDJSON or Arrow.
    Export(export::ExportArgs),
    /// Bring a local Parquet store up to date (the last 30 settled days by default).
    Sync(sync::SyncArgs),
    /// Serve the account's sites, services and agents as Prometheus metrics.
    Exporter(exporter::ExporterArgs),
}

#[derive(Args)]
struct ServeArgs {
    // What a container of the emulator (a CI job's service container takes variables, not
    // arguments) sets also comes from a variable, prefixed MONAPI_SERVE_: the emulator's
    // settings are not the client's, which the other MONAPI_* variables are.
    /// Address to listen on.
    #[arg(long, env = "MONAPI_SERVE_HOST", default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, env = "MONAPI_SERVE_PORT", default_value_t = 8080)]
    port: u16,
    /// Seed of the generated data: the same seed gives the same data.
    #[arg(long, env = "MONAPI_SERVE_SEED", default_value_t = 42)]
    seed: u64,
    /// Lifetime of access tokens, in seconds.
    #[arg(long, default_value_t = 3600)]
    token_ttl: u64,
    /// Delay added to every answer, in milliseconds (at most 2147483647, about 24.9 days).
    #[arg(long, default_value_t = 0)]
    latency_ms: u64,
    /// Number of service tasks (at most 100000).
    #[arg(long, default_value_t = 120)]
    service_tasks: usize,
    /// Number of site tasks (at most 100000).
    #[arg(long, default_value_t = 5)]
    site_tasks: usize,
    /// Monitoring points of every site task (1 to 8); 4 to 6, drawn per task, when left out.
    #[arg(long)]
    site_points: Option<usize>,
    /// Lifetime of refresh tokens, in seconds (14 days by default, as the service's).
    #[arg(long, default_value_t = monapi_emulator::DEFAULT_REFRESH_TOKEN_TTL.as_secs())]
    refresh_token_ttl: u64,
    /// Serve HTTPS, with a certificate signed by a private CA made at start; the CA's
    /// certificate is written to a file whose path is printed (give it to clients with
    /// --ca-bundle, ca_bundle, caBundle or SSL_CERT_FILE).
    #[arg(long, env = "MONAPI_SERVE_TLS", value_parser = clap::builder::BoolishValueParser::new())]
    tls: bool,
    /// Time zone of the emulator's days and clock times, as an offset from UTC.
    #[arg(long, value_parser = timezone, default_value_t = monapi_emulator::SERVICE_TIMEZONE)]
    timezone: chrono::FixedOffset,
    /// Encodings answers are compressed with when a request accepts them, the first accepted
    /// winning, as the service's front end gzips; `none` never compresses.
    #[arg(long, value_delimiter = ',', default_value = "gzip,deflate")]
    compression: Vec<String>,
    /// Bandwidth of a modelled wide-area link, in Mbit/s (0.01 to 100000): answers are
    /// written paced, all connections sharing it. Unlimited when left out.
    #[arg(long)]
    bandwidth_mbps: Option<f64>,
    /// Round trip of that link, in milliseconds (at most 10000): each new connection waits
    /// it once (twice with --tls), each answer once more.
    #[arg(long, default_value_t = 0)]
    rtt_ms: u64,
    /// The world of the site reports: `realistic` (sites up at almost every check, rare
    /// faults) or `stressed` (faults in every report, a point of each site down today).
    #[arg(long, default_value_t = monapi_emulator::World::Realistic)]
    world: monapi_emulator::World,
    /// Fix the emulator's clock at this instant (RFC 3339, or a date and time in its time
    /// zone: `2026-11-01 10:02`): no report has a check after it. The system clock when left
    /// out.
    #[arg(long)]
    now: Option<String>,
}

/// A `--timezone` (the core's rule: `+08:00`, `-05:30`, `UTC`).
fn timezone(text: &str) -> Result<chrono::FixedOffset, String> {
    monapi::input::timezone(text).map_err(|e| e.to_string())
}

#[derive(Args)]
struct ReportArgs {
    /// Which report.
    kind: ReportKind,
    /// Task id (a service task for `service`, a site task for `site` and `distribution`).
    task_id: u64,
    /// First day, YYYY-MM-DD (default: today, as the service decides).
    #[arg(long)]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today, as the service decides).
    #[arg(long)]
    to: Option<String>,
    /// Site reports only: `all` points (default), `average`, or a monitoring-point id.
    #[arg(long, default_value = "all")]
    monitor: String,
    #[command(flatten)]
    connection: Connection,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportKind {
    /// Service task report.
    Service,
    /// Site task report.
    Site,
    /// Response-time distribution of a site task.
    Distribution,
}

/// Runs the `monapi` command with `args` (the program's name first, as
/// [`std::env::args_os`] gives them) on a runtime of its own, and returns its exit code (the
/// core's rule, [`Exit`]). `--help`, `--version` and usage errors are printed here, as clap
/// prints them, rather than ending the process.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let cli: Cli = match variables::parse_from(&args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all();
    // The command's log lines: the process's default dispatcher, or where the process has one
    // already (the Python package's), the default of every thread the command runs on.
    let own_process = logs::install();
    if !own_process {
        runtime.on_thread_start(logs::on_this_thread);
    }
    let runtime = runtime.build().expect("a tokio runtime");
    let _main_thread = (!own_process).then(|| tracing::dispatcher::set_default(logs::dispatch()));
    runtime.block_on(command(cli)).code()
}

/// [`run`] from inside a process that another program started and set up: the Python and
/// Node packages' `monapi` commands. First it gives the process what a new one has, so that
/// the command behaves as the binary does: the default action of SIGINT, SIGTERM and SIGHUP
/// (Node and Python install their own, which would swallow a Ctrl-C or turn the exporter's
/// graceful stop into an abrupt one), and blocking standard streams (Node may leave them
/// non-blocking, and a full pipe would then fail a write).
pub fn run_embedded<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString>,
{
    #[cfg(unix)]
    as_a_new_process();
    run(args)
}

#[cfg(unix)]
fn as_a_new_process() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: restores the default action of a signal; no handler of ours is replaced.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
    for fd in 0..=2 {
        // SAFETY: fcntl(2) on the standard descriptors; one that is closed fails harmlessly.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 && flags & libc::O_NONBLOCK != 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
}

async fn command(cli: Cli) -> Exit {
    // The exporter makes its log lines itself, with its own layer and default level.
    if !matches!(cli.command, Command::Exporter(_)) {
        cli.logs
            .init(LogLevel::default(), tracing_subscriber::layer::Identity::new());
    }
    match cli.command {
        Command::Export(args) => return export::run(args).await,
        Command::Sync(args) => return sync::run(args).await,
        Command::Exporter(args) => return exporter::run(args, cli.logs).await,
        _ => {}
    }
    match run_command(cli).await {
        Ok(()) => Exit::Success,
        Err(error) => {
            eprintln!("monapi: error: {}", said(error.as_ref()));
            exit_of(error.as_ref())
        }
    }
}

/// The core's names of values that only a flag gives here, and those flags: an error names
/// what the user typed (`--from`, not the core's `start_date`). A setting keeps its name
/// (`base_url`, as `Setting::name_in` says), since a flag or a `MONAPI_*` variable may have
/// given it; so does `concurrency`, which `MONAPI_CONCURRENCY` may give.
const FLAG_NAMES: &[(&str, &str)] = &[
    ("start_date", "--from"),
    ("end_date", "--to"),
    ("monitor", "--monitor"),
    ("page", "--page"),
];

/// An error as the command prints it: a core error's message with the flags' names.
pub(crate) fn said(error: &(dyn std::error::Error + 'static)) -> String {
    match error.downcast_ref::<monapi::Error>() {
        Some(error) => error.message_with_names(&|name| {
            FLAG_NAMES
                .iter()
                .find(|(core, _)| *core == name)
                .map(|(_, flag)| *flag)
        }),
        None => error.to_string(),
    }
}

/// How a command that stopped with `error` ended: the core's rule for its errors, usage for a
/// setting of `monapi serve` beyond the emulator's bounds, a failure otherwise.
pub(crate) fn exit_of(error: &(dyn std::error::Error + 'static)) -> Exit {
    if let Some(error) = error.downcast_ref::<monapi::Error>() {
        return Exit::of_error(error);
    }
    match error.downcast_ref::<std::io::Error>() {
        Some(error) if error.kind() == std::io::ErrorKind::InvalidInput => Exit::Usage,
        _ => Exit::Failure,
    }
}

async fn run_command(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let output = match cli.command {
        Command::Serve(args) => return Ok(serve(args).await?),
        Command::Token { connection } => serde_json::to_value(connection.client()?.login().await?)?,
        Command::Tasks { page, connection } => list(connection.client()?, TaskList::Service, page).await?,
        Command::Agents { connection } => fetch(&connection.client()?, &Request::Agents).await?,
        Command::Sites { page, connection } => list(connection.client()?, TaskList::Site, page).await?,
        Command::Site { task_id, connection } => {
            fetch(&connection.client()?, &Request::SiteTask { task_id }).await?
        }
        Command::Monitors { connection } => fetch(&connection.client()?, &Request::Monitors).await?,
        Command::Users { connection } => fetch(&connection.client()?, &Request::Users).await?,
        Command::Groups { connection } => fetch(&connection.client()?, &Request::UserGroups).await?,
        Command::CreateServiceTasks { file, connection } => create_service_tasks(&file, connection).await?,
        Command::Report(args) => report(args).await?,
        Command::Request(args) => request::run(args).await?,
        Command::Export(_) | Command::Sync(_) | Command::Exporter(_) => {
            unreachable!("command() runs exports, syncs and the exporter")
        }
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&output).expect("JSON values serialize")
    );
    Ok(())
}

/// The answer in its faithful form (the service's keys and values, in its order).
async fn fetch(client: &Client, request: &Request) -> monapi::Result<Value> {
    client.execute(request).await?.json()
}

/// One page of a task list as sent, or every task of every page as one list.
async fn list(client: Client, list: TaskList, page: Option<u32>) -> monapi::Result<Value> {
    if let Some(page) = page {
        return client.task_page(list, page).await?.response().json();
    }
    let mut all = Vec::new();
    let mut pages = client.task_pages(list);
    while let Some(page) = pages.next().await? {
        let tasks: Vec<Value> = page.records().json()?;
        all.extend(tasks);
    }
    Ok(Value::Array(all))
}

/// Reads a batch of service tasks (JSON) from `file`, checks it whole and creates it.
async fn create_service_tasks(
    file: &Path,
    connection: Connection,
) -> Result<Value, Box<dyn std::error::Error>> {
    let text = if file == Path::new("-") {
        std::io::read_to_string(std::io::stdin())?
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?
    };
    let json: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", file.display()))?;
    let tasks = NewServiceTask::batch_from_json(json)?;
    let created = connection.client()?.create_service_tasks(&tasks).await?;
    Ok(serde_json::to_value(created)?)
}

async fn report(args: ReportArgs) -> monapi::Result<Value> {
    let range = DateRange::parse(args.from.as_deref(), args.to.as_deref())?;
    let monitor = parse_monitor(&args.monitor)?;
    let task_id = args.task_id;
    let request = match args.kind {
        ReportKind::Service => Request::ServiceReport { task_id, range },
        ReportKind::Site => Request::SiteReport {
            task_id,
            range,
            monitor,
        },
        ReportKind::Distribution => Request::ResponseTimeDistribution { task_id, range },
    };
    fetch(&args.connection.client()?, &request).await
}

/// `all`, `average` (or `0`), or a monitoring-point id.
fn parse_monitor(text: &str) -> monapi::Result<Monitor> {
    Ok(match text {
        "all" => Monitor::All,
        "average" => Monitor::Average,
        id => input::monitor(Some(Id::Text(id)))?,
    })
}

async fn serve(args: ServeArgs) -> std::io::Result<()> {
    let refused = |error: monapi_emulator::ConfigError| {
        // Named as the flag that set it.
        let flag = match error.field() {
            "latency" => "latency-ms".to_string(),
            "rtt" => "rtt-ms".to_string(),
            field => field.replace('_', "-"),
        };
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("--{flag} {}", error.rule()),
        )
    };
    let compression = match args.compression.as_slice() {
        [none] if none == "none" => Vec::new(),
        names => monapi_emulator::encodings(names).map_err(refused)?,
    };
    let config = Config {
        seed: args.seed,
        token_ttl: Duration::from_secs(args.token_ttl),
        latency: Duration::from_millis(args.latency_ms),
        service_tasks: args.service_tasks,
        site_tasks: args.site_tasks,
        site_points: args.site_points,
        refresh_token_ttl: Duration::from_secs(args.refresh_token_ttl),
        tls: args.tls,
        timezone: args.timezone,
        compression,
        bandwidth_mbps: args.bandwidth_mbps,
        rtt: Duration::from_millis(args.rtt_ms),
        world: args.world,
        now: args
            .now
            .as_deref()
            .map(|now| monapi_emulator::instant("now", now, args.timezone))
            .transpose()
            .map_err(refused)?,
        ..Config::default()
    };
    // Refused by the emulator's own rule.
    config.check().map_err(refused)?;
    let emulator = Emulator::bind(config, SocketAddr::new(args.host, args.port)).await?;
    let ca = match emulator.ca_path() {
        Some(path) => format!(
            " (private CA certificate: {}; trust it with --ca-bundle or SSL_CERT_FILE)",
            path.display()
        ),
        None => String::new(),
    };
    // Listened for before the line says how to stop it: a signal sent on reading it then finds
    // the handler, not the default action (which would leave the CA's file behind).
    let stop = StopSignals::listen()?;
    eprintln!(
        "monapi emulator listening on {}{ca} (demo account: client_id {}, username {}; see emulator/README.md); Ctrl-C stops it",
        emulator.base_url(),
        monapi_emulator::DEMO_CLIENT_ID,
        monapi_emulator::DEMO_USERNAME,
    );
    stop.wait().await;
    emulator.stop().await;
    Ok(())
}
