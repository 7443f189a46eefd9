//! The core's `tracing` events (target `monapi`: requests, retries, token renewals, every
//! secret already redacted by the core) handed to a client's JavaScript `logger`.
//!
//! Each client that logs holds its own [`Dispatch`]: the futures of its calls run under it
//! (`WithSubscriber`), so its events reach its logger and no other client's. Events below the
//! client's [`LogLevel`] are dropped in Rust. The rest cross to JavaScript through a weak
//! threadsafe function, queued without ever blocking a runtime thread and without keeping
//! the process alive.

use monapi::LogLevel;
use napi::bindgen_prelude::Function;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

/// One event for the JavaScript logger: its level's name (`error`, `warn`, `info`, `debug`)
/// and its text (`message: field=value ...`).
#[napi(object)]
pub struct LogRecord {
    pub level: String,
    pub message: String,
}

/// The JavaScript side of a client's logging: called with each record.
type Sink = ThreadsafeFunction<LogRecord, (), LogRecord, Status, false, true>;

/// The dispatcher of a client's calls at `level`, handing events to `sink`; none at `off`.
pub fn dispatch(level: LogLevel, sink: Option<Function<LogRecord, ()>>) -> napi::Result<Option<Dispatch>> {
    let Some(sink) = sink.filter(|_| level != LogLevel::Off) else {
        return Ok(None);
    };
    let sink = sink
        .build_threadsafe_function::<LogRecord>()
        .callee_handled::<false>()
        .weak::<true>()
        .build()?;
    Ok(Some(Dispatch::new(NodeLogging { level, sink })))
}

fn ours(target: &str) -> bool {
    target == "monapi" || target.starts_with("monapi::") || target.starts_with("monapi_node")
}

fn level_name(level: &tracing::Level) -> &'static str {
    match *level {
        tracing::Level::ERROR => "error",
        tracing::Level::WARN => "warn",
        tracing::Level::INFO => "info",
        _ => "debug",
    }
}

struct NodeLogging {
    level: LogLevel,
    sink: Sink,
}

impl Subscriber for NodeLogging {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if ours(metadata.target()) && self.level.enables(metadata.level()) {
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event() && ours(metadata.target()) && self.level.enables(metadata.level())
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let record = LogRecord {
            level: level_name(event.metadata().level()).to_string(),
            message: monapi::event_text(event),
        };
        self.sink.call(record, ThreadsafeFunctionCallMode::NonBlocking);
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}
