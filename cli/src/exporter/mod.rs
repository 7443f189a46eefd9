//! `monapi exporter`: the account's sites, services and agents as Prometheus metrics.
//!
//! A background refresh ([`refresh`]) asks the service every `--interval` and renders the
//! exposition once ([`metrics`]); a scrape ([`server`]) only hands over the last rendering, so
//! any number of Prometheus replicas costs the account nothing more.

mod metrics;
mod refresh;
mod server;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use monapi::table::DEFAULT_CONCURRENCY;
use monapi::ErrorKind;

use crate::Connection;
use metrics::Exposition;
use refresh::{Filters, Refresher};

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
  client's time zone ending now (1d: today). See README, \"Prometheus and Grafana\".

SIGHUP refreshes at once. Example:
  monapi exporter --listen 0.0.0.0:39126 --store /data/monapi --slo 0.999 --exclude-task-type ping";

/// Serve the account's sites, services and agents as Prometheus metrics on /metrics,
/// refreshed in the background (a scrape never calls the service).
#[derive(Args)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct ExporterArgs {
    /// Address and port to listen on.
    #[arg(long, default_value_t = SocketAddr::from(([0, 0, 0, 0], DEFAULT_PORT)))]
    listen: SocketAddr,
    /// Seconds between refreshes (at least 60, the service's finest check frequency).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    interval: u64,
    /// Availability objective (a ratio, e.g. 0.999): adds the remaining error budget per
    /// window.
    #[arg(long)]
    slo: Option<f64>,
    /// Only these site tasks (repeat the option or list several).
    #[arg(long = "site", value_name = "ID", num_args = 1..)]
    sites: Vec<u64>,
    /// Not these site tasks.
    #[arg(long = "exclude-site", value_name = "ID", num_args = 1..)]
    exclude_sites: Vec<u64>,
    /// Only these service tasks.
    #[arg(long = "service", value_name = "ID", num_args = 1..)]
    services: Vec<u64>,
    /// Not these service tasks.
    #[arg(long = "exclude-service", value_name = "ID", num_args = 1..)]
    exclude_services: Vec<u64>,
    /// Only tasks of these types (site: http, https, ping...; service: apache, mysql...).
    #[arg(long = "task-type", value_name = "TYPE", num_args = 1..)]
    task_types: Vec<String>,
    /// Not tasks of these types.
    #[arg(long = "exclude-task-type", value_name = "TYPE", num_args = 1..)]
    exclude_task_types: Vec<String>,
    /// Tasks fetched at once during a refresh.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY)]
    concurrency: usize,
    #[command(flatten)]
    connection: Connection,
}

/// Runs the exporter until SIGINT or SIGTERM: exit code 0; 2 for a bad argument (nothing
/// sent); 1 when the client cannot be made or the address not bound.
pub(crate) async fn run(args: ExporterArgs) -> ExitCode {
    limit_arenas();
    match serve(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("monapi: error: {error}");
            let usage = error
                .downcast_ref::<monapi::Error>()
                .is_some_and(|e| e.kind() == ErrorKind::InvalidInput);
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

async fn serve(args: ExporterArgs) -> Result<(), Box<dyn std::error::Error>> {
    monapi::table::health::check_refresh_interval("interval", Duration::from_secs(args.interval))?;
    if let Some(slo) = args.slo {
        monapi::table::health::check_slo("slo", slo)?;
    }
    monapi::table::check_concurrency(args.concurrency)?;
    let filters = Filters {
        sites: args.sites,
        exclude_sites: args.exclude_sites,
        services: args.services,
        exclude_services: args.exclude_services,
        task_types: args.task_types,
        exclude_task_types: args.exclude_task_types,
    };
    let exposition = Arc::new(Exposition::new());
    metrics::count_requests(&exposition);
    let client = args.connection.client()?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let address = listener.local_addr()?;
    eprintln!(
        "monapi exporter listening on http://{address}/metrics (refresh every {} s)",
        args.interval
    );
    let refresher = Refresher::new(client, filters, args.slo, args.concurrency);
    let refreshing = tokio::spawn(refresh_loop(
        refresher,
        exposition.clone(),
        Duration::from_secs(args.interval),
    ));
    let served = server::serve(listener, exposition, shutdown()).await;
    refreshing.abort();
    Ok(served?)
}

/// Refreshes every `interval` (measured from the start of the last one), and at once on
/// SIGHUP, publishing each outcome.
async fn refresh_loop(mut refresher: Refresher, exposition: Arc<Exposition>, interval: Duration) {
    let mut hangup =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).expect("a SIGHUP handler");
    loop {
        let started = tokio::time::Instant::now();
        let outcome = refresher.refresh().await;
        for error in &outcome.failures {
            eprintln!("monapi exporter: refresh: {error}");
        }
        let publishing = exposition.clone();
        // Rendering a thousand sites' series is CPU work: off the runtime's threads.
        tokio::task::spawn_blocking(move || {
            publishing.publish(outcome);
            give_back_free_memory();
        })
        .await
        .expect("rendering does not panic");
        tokio::select! {
            _ = tokio::time::sleep_until(started + interval) => {}
            _ = hangup.recv() => {}
        }
    }
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

/// Resolves on SIGINT or SIGTERM.
async fn shutdown() {
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("a SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
}
