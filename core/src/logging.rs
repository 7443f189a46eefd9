//! [`LogLevel`]: how much of the SDK's events a package shows, named the same in every
//! language, with its default from `MONAPI_LOG`.
//!
//! The core emits its events with `tracing` (target `monapi`: requests, retries, token
//! renewals, every secret already redacted); the Python and Node packages hand them to their
//! language's loggers, filtered by the level this module reads.

use std::fmt::{self, Write as _};

use crate::{Error, Result};

/// The environment variable that sets the default [`LogLevel`].
pub const LOG_VAR: &str = "MONAPI_LOG";

/// How much is logged: nothing, errors, warnings (the default), information, or everything
/// (`debug`: each request, retry and token renewal).
///
/// ```
/// use monapi::LogLevel;
/// assert_eq!(LogLevel::parse("logLevel", "DEBUG")?, LogLevel::Debug);
/// assert!(LogLevel::Debug.enables(&tracing::Level::DEBUG));
/// assert!(!LogLevel::Warn.enables(&tracing::Level::INFO));
/// assert!(LogLevel::parse("logLevel", "verbose").is_err());
/// # Ok::<(), monapi::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Nothing.
    Off,
    /// Errors only.
    Error,
    /// Warnings and errors (the default).
    #[default]
    Warn,
    /// Information, warnings and errors.
    Info,
    /// Everything: requests, retries, token renewals.
    Debug,
}

/// Every level, by its name.
const LEVELS: [(&str, LogLevel); 5] = [
    ("off", LogLevel::Off),
    ("error", LogLevel::Error),
    ("warn", LogLevel::Warn),
    ("info", LogLevel::Info),
    ("debug", LogLevel::Debug),
];

impl LogLevel {
    /// Reads a level by name (`off`, `error`, `warn`, `info`, `debug`, in any case, blanks
    /// around left out).
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `field` and the names
    /// allowed when `text` is none of them.
    pub fn parse(field: &str, text: &str) -> Result<LogLevel> {
        let wanted = text.trim();
        LEVELS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
            .map(|(_, level)| *level)
            .ok_or_else(|| Error::invalid_input(None, field, "must be one of off, error, warn, info, debug"))
    }

    /// The level given, else the one `MONAPI_LOG` names (a blank variable counts as unset),
    /// else [`LogLevel::Warn`].
    ///
    /// ```
    /// assert_eq!(monapi::LogLevel::resolve(Some("off"))?, monapi::LogLevel::Off);
    /// # Ok::<(), monapi::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`parse`](LogLevel::parse), naming where the bad name came from: `log_level` when
    /// given, [`LOG_VAR`] (`MONAPI_LOG`) when read from the environment.
    pub fn resolve(given: Option<&str>) -> Result<LogLevel> {
        match given {
            Some(text) => LogLevel::parse("log_level", text),
            None => match std::env::var(LOG_VAR) {
                Ok(text) if !text.trim().is_empty() => LogLevel::parse(LOG_VAR, &text),
                _ => Ok(LogLevel::default()),
            },
        }
    }

    /// The level's name: `off`, `error`, `warn`, `info` or `debug`.
    pub fn as_str(self) -> &'static str {
        LEVELS
            .iter()
            .find(|(_, level)| *level == self)
            .map_or("warn", |(name, _)| name)
    }

    /// Whether an event of `level` is shown at this level (`trace` events count as `debug`).
    pub fn enables(self, level: &tracing::Level) -> bool {
        let needed = match *level {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warn,
            tracing::Level::INFO => LogLevel::Info,
            _ => LogLevel::Debug,
        };
        self != LogLevel::Off && needed <= self
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event's text as the packages log it: its message, then ` name=value` for each other
/// field (`response: endpoint=GET /v2/agent/lists.json status=200`).
///
/// ```
/// # use std::sync::{Arc, Mutex};
/// struct Capture(Arc<Mutex<Vec<String>>>);
/// impl tracing::Subscriber for Capture {
///     fn enabled(&self, _: &tracing::Metadata<'_>) -> bool { true }
///     fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id { tracing::span::Id::from_u64(1) }
///     fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
///     fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
///     fn event(&self, event: &tracing::Event<'_>) { self.0.lock().unwrap().push(monapi::event_text(event)) }
///     fn enter(&self, _: &tracing::span::Id) {}
///     fn exit(&self, _: &tracing::span::Id) {}
/// }
/// let lines = Arc::new(Mutex::new(Vec::new()));
/// tracing::subscriber::with_default(Capture(lines.clone()), || {
///     tracing::debug!(status = 200, "response");
/// });
/// assert_eq!(lines.lock().unwrap()[0], "response: status=200");
/// ```
pub fn event_text(event: &tracing::Event<'_>) -> String {
    let mut text = Text::default();
    event.record(&mut text);
    if text.fields.is_empty() {
        text.message
    } else {
        format!("{}:{}", text.message, text.fields)
    }
}

#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl tracing::field::Visit for Text {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={}", field.name(), value);
        }
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={:?}", field.name(), value);
        }
    }
}
