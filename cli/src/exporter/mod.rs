//! `monapi exporter`: the account's sites, services and agents as Prometheus metrics.
//!
//! A background refresh ([`refresh`]) asks the service every `--interval` and renders the
//! exposition once ([`metrics`]); a scrape ([`server`]) only hands over the last rendering, so
//! any number of Prometheus replicas costs the account nothing more.

mod auth;
mod metrics;
mod refresh;
mod server;
mod tls;
mod web_config;

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use monapi::health;
use monapi::table::DEFAULT_CONCURRENCY;
use monapi::{Exit, LogLevel};
use tracing::Instrument;
use tracing_subscriber::Layer as _;

use crate::logs::{LogArgs, Otlp};
use crate::stop::StopSignals;
use crate::{exit_of, Connection};
use metrics::Exposition;
use refresh::{Failure, Filters, Outcome, Refresher, Shown};

/// The default port. The Prometheus wiki's "Default port allocations" list gave exporters
/// 9100-9999, and that range has been full since 2023; exporters since pick a port outside it
/// and register it there. This one is ours (to be registered with the first release).
pub(crate) const DEFAULT_PORT: u16 = 39126;

const AFTER_HELP: &str = "\
Metrics (labels task_id, task_name, task_type, monitor_id, monitor on every site series;
monitor_id 0 is the average of the points):
  monapi_site_up, monapi_site_availability_ratio, monapi_site_uptime_ratio{window},
  monapi_site_response_time_seconds{stat},
  monapi_site_response_phase_seconds{phase}, monapi_site_fault_ongoing, monapi_site_faults{window},
  monapi_site_downtime_seconds{window}, monapi_site_error_budget_remaining_ratio{window} (--slo),
  monapi_site_last_check_timestamp_seconds, monapi_site_task_info,
  monapi_service_value{series,metric}, monapi_service_task_info, monapi_agent_info,
  monapi_agent_plugin_info, and the exporter's own: monapi_up, monapi_last_refresh_*,
  monapi_api_requests_total, monapi_api_errors_total. Windows are calendar days of the
  client's time zone ending now (1d: today). See the documentation's \"The exporter\".

Endpoints: /metrics; /health, liveness (503 only when the refresh loop has died: the process
then exits 1); /ready, readiness (503 until the first refresh has ended, and while the last 3
refreshes have all failed). Log lines on stderr carry a time and a level (--log-level or
MONAPI_LOG sets the level, default info; --log-format json, or MONAPI_LOG_FORMAT=json, writes
each as one JSON object).

Every flag falls back to its MONAPI_* variable, shown as [env: ...] (lists separated by
commas: MONAPI_EXCLUDE_TASK_TYPE=ping,dns); a flag given wins.

SIGHUP refreshes at once; SIGTERM or SIGINT (Ctrl-C) stops it. On Microsoft Windows, which has
no SIGHUP, Ctrl-C stops it and it refreshes on its interval only. Example:
  monapi exporter --listen 0.0.0.0:39126 --store /data/monapi --slo 0.999 --exclude-task-type ping";

/// Serve the account's sites, services and agents as Prometheus metrics on /metrics,
/// refreshed in the background (a scrape never calls the service).
#[derive(Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct ExporterArgs {
    /// Address and port to listen on.
    #[arg(long, env = "MONAPI_LISTEN", default_value_t = SocketAddr::from(([0, 0, 0, 0], DEFAULT_PORT)))]
    listen: SocketAddr,
    /// Seconds between refreshes (from 60, the service's finest check frequency, to 86400).
    #[arg(long, value_name = "SECONDS", env = "MONAPI_INTERVAL", default_value_t = 300)]
    interval: u64,
    /// Seconds a value stands without a refresh that confirms it; older values are dropped,
    /// not frozen (default: three intervals).
    #[arg(long, value_name = "SECONDS", env = "MONAPI_STALE_AFTER")]
    stale_after: Option<u64>,
    /// Availability objective (a ratio, e.g. 0.999): adds the remaining error budget per
    /// window.
    #[arg(long, env = "MONAPI_SLO")]
    slo: Option<f64>,
    // The lists: the option repeated, several values after it, or values separated by commas
    // (the one way a variable can hold several).
    /// Only these site tasks (repeat the option, list several, or separate them by commas).
    #[arg(long = "site", value_name = "ID", num_args = 1.., value_delimiter = ',', env = "MONAPI_SITE")]
    sites: Vec<u64>,
    /// Not these site tasks.
    #[arg(long = "exclude-site", value_name = "ID", num_args = 1.., value_delimiter = ',', env = "MONAPI_EXCLUDE_SITE")]
    exclude_sites: Vec<u64>,
    /// Only these service tasks.
    #[arg(long = "service", value_name = "ID", num_args = 1.., value_delimiter = ',', env = "MONAPI_SERVICE")]
    services: Vec<u64>,
    /// Not these service tasks.
    #[arg(long = "exclude-service", value_name = "ID", num_args = 1.., value_delimiter = ',', env = "MONAPI_EXCLUDE_SERVICE")]
    exclude_services: Vec<u64>,
    /// Only tasks of these types (site: http, https, ping...; service: apache, mysql...).
    #[arg(long = "task-type", value_name = "TYPE", num_args = 1.., value_delimiter = ',', env = "MONAPI_TASK_TYPE")]
    task_types: Vec<String>,
    /// Not tasks of these types.
    #[arg(long = "exclude-task-type", value_name = "TYPE", num_args = 1.., value_delimiter = ',', env = "MONAPI_EXCLUDE_TASK_TYPE")]
    exclude_task_types: Vec<String>,
    /// Tasks fetched at once during a refresh.
    #[arg(long, env = "MONAPI_CONCURRENCY", default_value_t = DEFAULT_CONCURRENCY)]
    concurrency: usize,
    /// Who may scrape: a web configuration in the format of Prometheus' exporter-toolkit,
    /// `tls_server_config` (`cert_file`, `key_file`) for HTTPS and `basic_auth_users` (user:
    /// bcrypt hash) for a password on /metrics; read at start, any other key refused.
    #[arg(long, value_name = "PATH", env = "MONAPI_WEB_CONFIG_FILE")]
    web_config_file: Option<PathBuf>,
    /// An OpenTelemetry collector to send traces and metrics to, over OTLP http/protobuf
    /// (its base URL, e.g. http://127.0.0.1:4318): each refresh is a trace, with a span per
    /// task and HTTP attempt.
    #[arg(long, value_name = "URL", env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    #[command(flatten)]
    connection: Connection,
}

/// Runs the exporter until SIGINT or SIGTERM (Ctrl-C on Windows): exit code 0; 2 for a bad
/// argument (nothing sent); 1 when the client cannot be made, the address not bound, or the
/// refresh loop died. `logs`: the log flags, at `info` unless they say otherwise.
pub(crate) async fn run(args: ExporterArgs, logs: LogArgs) -> Exit {
    limit_arenas();
    match serve(args, logs).await {
        Ok(()) => Exit::Success,
        Err(error) => {
            eprintln!("monapi: error: {}", crate::said(error.as_ref()));
            exit_of(error.as_ref())
        }
    }
}

async fn serve(args: ExporterArgs, logs: LogArgs) -> Result<(), Box<dyn std::error::Error>> {
    let interval = Duration::from_secs(args.interval);
    health::check_refresh_interval("interval", interval)?;
    let stale_after = args
        .stale_after
        .map_or_else(|| health::default_stale_after(interval), Duration::from_secs);
    health::check_stale_after("stale_after", stale_after, interval)?;
    if let Some(slo) = args.slo {
        health::check_slo("slo", slo)?;
    }
    monapi::table::check_concurrency(args.concurrency)?;
    // Read whole before anything is fetched: a bad file is a bad argument.
    let web = match &args.web_config_file {
        Some(file) => web_config::WebConfig::load(file)?,
        None => web_config::WebConfig::default(),
    };
    let filters = Filters {
        sites: args.sites,
        exclude_sites: args.exclude_sites,
        services: args.services,
        exclude_services: args.exclude_services,
        task_types: args.task_types,
        exclude_task_types: args.exclude_task_types,
    };
    let exposition = Arc::new(Exposition::new());
    let (otlp, traces) = match &args.otlp_endpoint {
        Some(endpoint) => {
            let (otlp, layer) = Otlp::start(endpoint, tokio::runtime::Handle::current())?;
            (Some(otlp), Some(layer))
        }
        None => (None, None),
    };
    logs.init(
        LogLevel::Info,
        metrics::request_counter(&exposition).and_then(traces),
    );
    let client = args.connection.client()?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let address = listener.local_addr()?;
    // Listened for before the line that says it is up: a SIGTERM or SIGHUP that came between
    // it and the first poll of a lazily made handler would end the process (their default).
    let (stop, hangups) = (StopSignals::listen()?, Hangups::new());
    tracing::info!(
        "monapi exporter listening on {}://{address}/metrics ({}refresh every {} s, values stale after {} s)",
        if web.tls.is_some() { "https" } else { "http" },
        if web.users.is_some() { "basic auth, " } else { "" },
        interval.as_secs(),
        stale_after.as_secs()
    );
    let shown = Shown {
        filters,
        slo: args.slo,
        concurrency: args.concurrency,
        stale_after,
    };
    let refresher = Refresher::new(client, shown);
    let refreshing = tokio::spawn(refresh_loop(refresher, exposition.clone(), interval, hangups));
    let serving = server::serve(listener, exposition.clone(), web, stop.wait());
    let served = supervise(refreshing, serving, &exposition).await;
    if let Some(otlp) = otlp {
        otlp.shutdown().await;
    }
    served
}

/// Serves until shutdown. The refresh loop never returns: should it end (a panic), the
/// exporter says so (`/health` fails from then on) and exits with an error, so that its
/// supervisor restarts it rather than serve metrics that no longer move.
async fn supervise(
    mut refreshing: tokio::task::JoinHandle<()>,
    serving: impl Future<Output = std::io::Result<()>>,
    exposition: &Exposition,
) -> Result<(), Box<dyn std::error::Error>> {
    tokio::select! {
        served = serving => {
            refreshing.abort();
            served?;
            tracing::info!("monapi exporter stopped");
            Ok(())
        }
        ended = &mut refreshing => {
            exposition.refresh_loop_ended();
            let why = match ended {
                Err(error) if error.is_panic() => panic_text(error.into_panic().as_ref()),
                _ => "it returned".to_string(),
            };
            tracing::error!("the refresh loop ended ({why}); exiting");
            Err(format!("the refresh loop ended: {why}").into())
        }
    }
}

/// A panic's message, when it has one.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .map_or_else(|| "a panic".into(), |text| format!("panic: {text}"))
}

/// Refreshes every `interval` (measured from the start of the last one, bounded by the
/// core's rule), and at once on SIGHUP (not on Windows), publishing and logging each outcome.
/// Never returns; a panic here or in the rendering ends the task, which [`supervise`] sees.
async fn refresh_loop(
    mut refresher: Refresher,
    exposition: Arc<Exposition>,
    interval: Duration,
    mut hangup: Hangups,
) {
    loop {
        let started = tokio::time::Instant::now();
        let span =
            tracing::info_span!(target: "monapi::exporter", "refresh", otel.name = "monapi exporter refresh");
        let outcome = refresher.refresh(chrono::Utc::now()).instrument(span).await;
        log_outcome(&outcome, exposition.failed_in_a_row());
        let publishing = exposition.clone();
        // Rendering a thousand sites' series is CPU work: off the runtime's threads.
        let published = tokio::task::spawn_blocking(move || {
            publishing.publish(outcome);
            give_back_free_memory();
        })
        .await;
        match published {
            Ok(()) => {}
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(_) => return, // the runtime is shutting down
        }
        tokio::select! {
            _ = tokio::time::sleep_until(started + interval) => {}
            _ = hangup.next() => tracing::info!("SIGHUP: refreshing now"),
        }
    }
}

/// The SIGHUPs that ask for a refresh now. Windows has no SIGHUP: there none ever comes, and
/// the exporter refreshes on its interval (its `--help` says so).
struct Hangups {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Hangups {
    fn new() -> Hangups {
        Hangups {
            #[cfg(unix)]
            signal: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
                .expect("a SIGHUP handler"),
        }
    }

    /// Resolves at the next SIGHUP.
    async fn next(&mut self) {
        #[cfg(unix)]
        self.signal.recv().await;
        #[cfg(not(unix))]
        std::future::pending::<()>().await;
    }
}

/// One line of what a refresh found.
fn summary(outcome: &Outcome) -> String {
    let snapshot = &outcome.snapshot;
    let failed = match outcome.failures.len() {
        0 => String::new(),
        n => format!(", {n} calls failed"),
    };
    format!(
        "{} sites, {} services, {} agents in {:.1} s{failed}",
        snapshot.sites.len(),
        snapshot.services.len(),
        snapshot.agents.len(),
        outcome.took.as_secs_f64()
    )
}

/// Logs a refresh (`failed_before`: the refreshes in a row before it that failed as a whole):
/// one line per distinct cause, with the calls it ended and their tasks (a thousand sites
/// failing alike make one line, not a thousand), then what it found, or a recovery.
fn log_outcome(outcome: &Outcome, failed_before: u32) {
    let head = if outcome.reached {
        "refresh".to_string()
    } else {
        format!("refresh failed ({} in a row)", failed_before + 1)
    };
    for group in group_failures(&outcome.failures) {
        if outcome.reached {
            tracing::warn!("{head}: {group}");
        } else {
            tracing::error!("{head}: {group}");
        }
    }
    if outcome.reached {
        match failed_before {
            0 => tracing::info!("refreshed: {}", summary(outcome)),
            n => tracing::info!("refreshed again after {n} failed refreshes: {}", summary(outcome)),
        }
    }
}

/// The failures of one cause.
#[derive(Debug, Default, PartialEq)]
struct Group {
    /// The error's text without the operation it names.
    cause: String,
    /// The operations it ended, each with its count.
    calls: BTreeMap<&'static str, usize>,
    /// The tasks of those calls, in order.
    tasks: Vec<u64>,
}

impl std::fmt::Display for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let calls: Vec<String> = self
            .calls
            .iter()
            .map(|(name, n)| {
                if *n > 1 {
                    format!("{name} x{n}")
                } else {
                    name.to_string()
                }
            })
            .collect();
        write!(f, "{} ({}", self.cause, calls.join(", "))?;
        match self.tasks.len() {
            0 => {}
            1 => write!(f, "; task {}", self.tasks[0])?,
            n if n <= 10 => write!(f, "; tasks {}", join(&self.tasks))?,
            n => write!(f, "; tasks {} and {} more", join(&self.tasks[..10]), n - 10)?,
        }
        f.write_str(")")
    }
}

/// The failures grouped by cause: the error's text less the operation it starts with (the
/// three lists failing to connect are one cause).
fn group_failures(failures: &[Failure]) -> Vec<Group> {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for failure in failures {
        let text = failure.error.to_string();
        let endpoint = failure.error.endpoint();
        let cause = endpoint
            .and_then(|e| text.strip_prefix(&format!("{}: ", e.as_str())))
            .unwrap_or(&text)
            .to_string();
        let group = groups.entry(cause.clone()).or_insert_with(|| Group {
            cause,
            ..Group::default()
        });
        *group
            .calls
            .entry(endpoint.map_or("call", |e| e.name()))
            .or_default() += 1;
        group.tasks.extend(failure.task_id);
    }
    groups
        .into_values()
        .map(|mut group| {
            group.tasks.sort_unstable();
            group
        })
        .collect()
}

fn join(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// Keeps a long-running exporter's memory to what it holds. A refresh's reports come and go
/// (a 30-day start holds hundreds of megabytes at once) while the summaries it keeps are
/// allocated among them: glibc's allocator, with an arena per thread that allocates, keeps
/// the pages those few pin in every arena, and once a large buffer is freed it serves the
/// next ones from the arenas too. Two arenas, large buffers always mapped (and unmapped when
/// freed), and a trim after each refresh make the resident memory what the exporter holds
/// (bench/RESULTS.md, "Exporter").
fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's settings.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}

/// Returns the heap's free pages to the system (see [`limit_arenas`]).
fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refresh_loop_that_panics_fails_liveness_and_ends_the_process_with_an_error() {
        let exposition = Exposition::new();
        assert!(exposition.alive());
        let refreshing = tokio::spawn(async { panic!("a bug in a refresh") });
        let serving = std::future::pending::<std::io::Result<()>>();
        let ended = supervise(refreshing, serving, &exposition).await;
        let error = ended.expect_err("the exporter must not go on serving frozen metrics");
        assert_eq!(exit_of(error.as_ref()), Exit::Failure);
        assert!(error.to_string().contains("a bug in a refresh"), "{error}");
        assert!(!exposition.alive());
    }

    #[tokio::test]
    async fn a_shutdown_stops_the_refresh_loop_and_ends_well() {
        let exposition = Exposition::new();
        let refreshing = tokio::spawn(std::future::pending::<()>());
        let ended = supervise(refreshing, async { Ok(()) }, &exposition).await;
        assert!(ended.is_ok());
        assert!(exposition.alive());
    }

    #[test]
    fn failures_of_one_cause_are_one_line_with_their_calls_and_tasks() {
        let refused = |task_id: Option<u64>| Failure {
            task_id,
            error: monapi::Error::invalid_input(None, "task_id", "must be a task of the account"),
        };
        let failures: Vec<Failure> = [Some(20003), Some(20001), None, Some(20002)]
            .into_iter()
            .map(refused)
            .chain((1..=12).map(|id| Failure {
                task_id: Some(id),
                error: monapi::Error::invalid_input(None, "slo", "must be a ratio"),
            }))
            .collect();
        let groups = group_failures(&failures);
        assert_eq!(groups.len(), 2);
        let task = groups.iter().find(|g| g.cause.contains("task_id")).unwrap();
        assert_eq!(task.tasks, [20001, 20002, 20003]);
        assert_eq!(task.calls.values().sum::<usize>(), 4);
        assert!(
            task.to_string().ends_with("(call x4; tasks 20001, 20002, 20003)"),
            "{task}"
        );
        let slo = groups.iter().find(|g| g.cause.contains("slo")).unwrap();
        assert!(
            slo.to_string()
                .ends_with("; tasks 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more)"),
            "{slo}"
        );
    }
}
