//! The log lines of a long-running command (`monapi exporter`) on stderr, as a supervisor
//! collects them: one line per event with its time (UTC), its level and what happened.
//!
//! The level is `info` unless `MONAPI_LOG` (the core's [`monapi::LOG_VAR`]) says otherwise;
//! at `debug`, the core's own events (each request, retry and token renewal, secrets already
//! redacted) are shown too.

use monapi::LogLevel;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::{Layer, Registry};

/// Makes the process's log lines: this command's events at the level of `MONAPI_LOG`
/// (default `info`), beside `layer`, which sees every event of the core (the exporter counts
/// the service's answers with it). A bad `MONAPI_LOG` is refused, naming the variable.
pub(crate) fn init<L>(layer: L) -> monapi::Result<()>
where
    L: Layer<Registry> + Send + Sync + 'static,
{
    let level = match std::env::var(monapi::LOG_VAR) {
        Ok(text) => LogLevel::parse(monapi::LOG_VAR, &text)?,
        Err(_) => LogLevel::Info,
    };
    // The prefix `monapi` is this command's targets (`monapi_cli::…`) and the core's.
    let shown = Targets::new().with_target("monapi", filter(level));
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .with_filter(shown);
    let subscriber = tracing_subscriber::registry().with(layer).with(lines);
    // Only the first command of a process sets it (the unit tests start several).
    let _ = tracing::subscriber::set_global_default(subscriber);
    Ok(())
}

fn filter(level: LogLevel) -> LevelFilter {
    match level {
        LogLevel::Off => LevelFilter::OFF,
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
    }
}
