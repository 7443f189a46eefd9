//! The command's log lines on stderr, as a supervisor or a container runtime collects them:
//! one line per event, as text (its time in UTC, its level and what happened) or as one JSON
//! object (`--log-format json`, what log collectors read without a parser of their own).
//!
//! Every command takes the two flags (`--log-level`, `--log-format`), each falling back to its
//! variable. The level is read by the core's rule ([`LogLevel::parse`], [`monapi::LOG_VAR`]);
//! at `debug`, the core's own events (each request, retry and token renewal, secrets already
//! redacted by the core) are shown too. The lines are made from the events' fields as the core
//! wrote them, in either format: neither adds a value of its own.

use clap::{Args, ValueEnum};
use monapi::LogLevel;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::{Layer, Registry};

/// The variable of `--log-format`.
const FORMAT_VAR: &str = "MONAPI_LOG_FORMAT";

/// The log flags, which every command takes (before or after its name).
#[derive(Args, Clone, Copy, Debug)]
pub(crate) struct LogArgs {
    /// Which log lines go to stderr: off, error, warn, info or debug (adds each request, retry
    /// and token renewal). Default: info for `monapi exporter`, warn for the other commands.
    #[arg(long, global = true, value_name = "LEVEL", env = monapi::LOG_VAR, value_parser = level)]
    log_level: Option<LogLevel>,
    /// The log lines' format on stderr.
    #[arg(long, global = true, value_name = "FORMAT", env = FORMAT_VAR, default_value = "text")]
    log_format: LogFormat,
}

/// How a log line is written.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LogFormat {
    /// `2026-11-01T02:03:04.123456Z  INFO refreshed: ...`, for people.
    Text,
    /// One JSON object per line: timestamp (RFC 3339, UTC), level, target, message and the
    /// event's other fields, for log collectors.
    Json,
}

/// `--log-level` (or its variable) by the core's rule; clap's error then names the flag and the
/// levels accepted (exit code 2).
fn level(text: &str) -> Result<LogLevel, String> {
    LogLevel::parse("--log-level", text)
        .map_err(|error| error.rule().map_or_else(|| error.to_string(), str::to_string))
}

impl LogArgs {
    /// Makes the process's log lines: this command's and the core's events at the level asked
    /// (`default` when neither the flag nor the variable says), beside `layer`, which sees
    /// every event of the core (the exporter counts the service's answers with it).
    pub(crate) fn init<L>(self, default: LogLevel, layer: L)
    where
        L: Layer<Registry> + Send + Sync + 'static,
    {
        let level = self.log_level.unwrap_or(default);
        // The prefix `monapi` is this command's targets (`monapi::…`), the core's and the
        // emulator's (`monapi_emulator::…`).
        let shown = Targets::new().with_target("monapi", filter(level));
        let lines = match self.log_format {
            LogFormat::Text => tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .with_target(false)
                .boxed(),
            // The message and the fields at the top of the object, where collectors look for
            // them; no spans (the command opens none).
            LogFormat::Json => tracing_subscriber::fmt::layer()
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .with_writer(std::io::stderr)
                .boxed(),
        };
        let subscriber = tracing_subscriber::registry()
            .with(layer)
            .with(lines.with_filter(shown));
        // Only the first command of a process sets it (the unit tests start several).
        let _ = tracing::subscriber::set_global_default(subscriber);
    }
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
