//! The command's log lines on stderr, as a supervisor or a container runtime collects them:
//! one line per event, as text (its time in UTC, its level and what happened) or as one JSON
//! object (`--log-format json`, what log collectors read without a parser of their own).
//!
//! Every command takes the two flags (`--log-level`, `--log-format`), each falling back to its
//! variable. The level is read by the core's rule ([`LogLevel::parse`], [`monapi::LOG_VAR`]);
//! at `debug`, the core's own events (each request, retry and token renewal, secrets already
//! redacted by the core) are shown too. The lines are made from the events' fields as the core
//! wrote them, in either format: neither adds a value of its own.

use std::sync::OnceLock;

use clap::{Args, ValueEnum};
use monapi::LogLevel;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};
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
        let _ = LINES.set(Dispatch::new(subscriber));
    }
}

/// The log lines [`LogArgs::init`] made, once the command has read its flags.
static LINES: OnceLock<Dispatch> = OnceLock::new();

/// The command's dispatcher: the lines of [`LINES`], from when they are made. [`run`] makes it
/// the default before the command starts: the process's, or where the process already has one
/// (inside the Python package, whose native module sends its events to Python's `logging`),
/// that of each thread the command runs on ([`on_this_thread`]).
///
/// [`run`]: crate::run
pub(crate) fn dispatch() -> &'static Dispatch {
    static COMMAND: OnceLock<Dispatch> = OnceLock::new();
    COMMAND.get_or_init(|| Dispatch::new(Lines))
}

/// Makes [`dispatch`] the process's default; false when the process has one already.
pub(crate) fn install() -> bool {
    tracing::dispatcher::set_global_default(dispatch().clone()).is_ok()
}

/// Makes [`dispatch`] this thread's default for the rest of its life (each thread of the
/// command's runtime, when [`install`] could not make it the process's).
pub(crate) fn on_this_thread() {
    std::mem::forget(tracing::dispatcher::set_default(dispatch()));
}

/// A subscriber that hands everything to [`LINES`] once they are made, and drops what comes
/// before (nothing does: the command makes them before its first call). Its interest in a
/// callsite is never cached, since the lines come after the callsites are registered.
struct Lines;

impl Lines {
    fn lines() -> Option<&'static Dispatch> {
        LINES.get()
    }
}

impl Subscriber for Lines {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        Lines::lines().is_some_and(|lines| lines.enabled(metadata))
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        Lines::lines().map_or(Id::from_u64(u64::MAX), |lines| lines.new_span(span))
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(lines) = Lines::lines() {
            lines.record(span, values);
        }
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        if let Some(lines) = Lines::lines() {
            lines.record_follows_from(span, follows);
        }
    }

    fn event(&self, event: &Event<'_>) {
        if let Some(lines) = Lines::lines() {
            lines.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        if let Some(lines) = Lines::lines() {
            lines.enter(span);
        }
    }

    fn exit(&self, span: &Id) {
        if let Some(lines) = Lines::lines() {
            lines.exit(span);
        }
    }

    fn clone_span(&self, span: &Id) -> Id {
        Lines::lines().map_or_else(|| span.clone(), |lines| lines.clone_span(span))
    }

    fn try_close(&self, span: Id) -> bool {
        Lines::lines().is_some_and(|lines| lines.try_close(span))
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
