//! What each call did, for the caller's traces and metrics (OpenTelemetry).
//!
//! Every operation is a span named `monapi <operation>` (`monapi service_report`), with a
//! CLIENT child per HTTP attempt, named by its method, and a span per token request; a bulk
//! call and a sync are one span with a child per task. The attempts also give the metrics
//! `http.client.request.duration` ([`REQUEST_DURATION`]) and the counter of retries
//! ([`RETRIES`]). All of it goes out two ways, and costs next to nothing when nobody listens:
//!
//! - as [`tracing`] spans (target `monapi`, level INFO) whose fields carry OpenTelemetry's
//!   names (`otel.name`, `otel.kind`, `otel.status_code`, the stable HTTP attributes), which
//!   `tracing-opentelemetry` hands to an OpenTelemetry SDK; with the cargo feature
//!   `opentelemetry`, the metrics go to `opentelemetry::global`'s meter provider once
//!   `use_global_meter_provider` is called;
//! - into a [`Recording`], for a future run in [`Recording::scope`]: plain data (name,
//!   attributes, start and end times, status) that the Python and Node packages replay
//!   through their host's OpenTelemetry API, on the caller's side and with the recorded times.
//!
//! No attribute holds a secret: `url.full` has the access token replaced by `REDACTED`, and
//! every other secret the client knows is redacted as in its errors.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), monapi::Error> {
//! # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
//! # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
//! #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
//! use monapi::telemetry::{Recording, SpanKind};
//! let recording = Recording::new(None);
//! recording.scope(client.agents()).await?;
//! let records = recording.take();
//! let names: Vec<_> = records.spans.iter().map(|s| s.name.as_str()).collect();
//! // The token request and the call, each with its attempt; the spans end in that order.
//! assert_eq!(names, ["POST", "monapi token", "GET", "monapi agents"]);
//! let agents = records.spans.last().unwrap();
//! assert_eq!((agents.parent, agents.kind), (None, SpanKind::Internal));
//! # Ok(()) }
//! ```

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tracing::field::Empty;
use tracing::Instrument;

use crate::error::Error;

/// The histogram of each HTTP attempt's duration, in seconds, as OpenTelemetry's HTTP
/// semantic conventions name and bucket it.
pub const REQUEST_DURATION: Metric = Metric {
    name: "http.client.request.duration",
    unit: "s",
    description: "Duration of HTTP client requests.",
};

/// The semantic conventions' advice for [`REQUEST_DURATION`]'s buckets, in seconds.
pub const REQUEST_DURATION_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// The counter of retries, by operation (`monapi.operation`) and reason (`error.type` of the
/// attempt that failed).
pub const RETRIES: Metric = Metric {
    name: "monapi.client.retries",
    unit: "{retry}",
    description: "HTTP attempts of monapi calls repeated after a transient failure.",
};

/// A metric's name, unit and description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    /// Its name.
    pub name: &'static str,
    /// Its unit, in UCUM.
    pub unit: &'static str,
    /// What it counts.
    pub description: &'static str,
}

/// An attribute's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttributeValue {
    /// Text.
    Text(Cow<'static, str>),
    /// A whole number.
    Int(i64),
}

impl From<&'static str> for AttributeValue {
    fn from(text: &'static str) -> Self {
        AttributeValue::Text(Cow::Borrowed(text))
    }
}

impl From<String> for AttributeValue {
    fn from(text: String) -> Self {
        AttributeValue::Text(Cow::Owned(text))
    }
}

impl From<i64> for AttributeValue {
    fn from(number: i64) -> Self {
        AttributeValue::Int(number)
    }
}

impl From<u64> for AttributeValue {
    fn from(number: u64) -> Self {
        AttributeValue::Int(i64::try_from(number).unwrap_or(i64::MAX))
    }
}

impl From<u16> for AttributeValue {
    fn from(number: u16) -> Self {
        AttributeValue::Int(number.into())
    }
}

/// Attributes by their OpenTelemetry names.
pub type Attributes = Vec<(&'static str, AttributeValue)>;

/// What a span stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Work of the client: an operation, a token request, a task of a bulk call.
    Internal,
    /// One HTTP attempt.
    Client,
}

/// A span as it happened.
#[derive(Clone, Debug, PartialEq)]
pub struct SpanRecord {
    /// Its number within its recording, from 1.
    pub id: u64,
    /// The span of the recording it is a child of; `None`: the caller's span.
    pub parent: Option<u64>,
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: SpanKind,
    /// When it started.
    pub start: SystemTime,
    /// When it ended (at the cancellation, for a call cancelled while it ran).
    pub end: SystemTime,
    /// Its attributes.
    pub attributes: Attributes,
    /// For a span that failed (status ERROR), the monapi error code (`TIMEOUT`; `ABORTED`
    /// for one cancelled); `None` for one that succeeded (status unset).
    pub error: Option<&'static str>,
}

/// A metric's measurement.
#[derive(Clone, Debug, PartialEq)]
pub enum MetricRecord {
    /// One value of [`REQUEST_DURATION`], in seconds.
    RequestDuration {
        /// The attempt's duration.
        seconds: f64,
        /// `http.request.method`, `server.address`, `server.port` and, where there is one,
        /// `http.response.status_code` and `error.type`.
        attributes: Attributes,
    },
    /// One retry, to add to [`RETRIES`].
    Retry {
        /// `monapi.operation` and `error.type`.
        attributes: Attributes,
    },
}

/// What a recording holds: spans in the order they ended, measurements in the order made.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Records {
    /// The spans.
    pub spans: Vec<SpanRecord>,
    /// The measurements.
    pub metrics: Vec<MetricRecord>,
}

/// Collects the spans and measurements of the calls of a future run in its
/// [`scope`](Recording::scope), as plain data.
#[derive(Debug, Default)]
pub struct Recording {
    traceparent: Option<String>,
    next_id: AtomicU64,
    records: Mutex<Records>,
}

impl Recording {
    /// A recording whose calls, when the client's `propagate_trace_context` is on, send
    /// `traceparent`: the W3C trace context of the caller's span
    /// (`00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`). Anything else is not sent.
    pub fn new(traceparent: Option<String>) -> Arc<Recording> {
        Arc::new(Recording {
            traceparent: traceparent.filter(|t| is_traceparent(t)),
            ..Recording::default()
        })
    }

    /// Runs `future` with its calls recorded here, each span without a parent in the
    /// recording being a child of the caller's.
    pub fn scope<F: Future>(self: &Arc<Self>, future: F) -> impl Future<Output = F::Output> + use<F> {
        let current = Current {
            recording: Some(self.clone()),
            parent: None,
            in_operation: false,
        };
        CURRENT.scope(current, future)
    }

    /// What was recorded so far, taken out.
    pub fn take(&self) -> Records {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Records> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn is_traceparent(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let hex = |part: &str, len: usize| {
        part.len() == len
            && part
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    parts.len() == 4
        && hex(parts[0], 2)
        && parts[0] != "ff"
        && hex(parts[1], 32)
        && parts[1].bytes().any(|b| b != b'0')
        && hex(parts[2], 16)
        && parts[2].bytes().any(|b| b != b'0')
        && hex(parts[3], 2)
}

#[derive(Clone)]
struct Current {
    recording: Option<Arc<Recording>>,
    parent: Option<u64>,
    /// Inside an operation's span: a request made there is not an operation of its own.
    in_operation: bool,
}

tokio::task_local! {
    static CURRENT: Current;
}

fn current() -> Option<Current> {
    CURRENT.try_with(Current::clone).ok()
}

/// Whether no one would see this call's spans: it runs in no recording, and no `tracing`
/// subscriber takes monapi's spans. Checked first, so that such a call does nothing more.
pub(crate) fn quiet() -> bool {
    !tracing::enabled!(target: "monapi", tracing::Level::INFO)
        && CURRENT.try_with(|c| c.recording.is_none()).unwrap_or(true)
}

/// The `traceparent` header to send, if the call runs in a recording that has one.
pub(crate) fn traceparent() -> Option<String> {
    CURRENT
        .try_with(|c| c.recording.as_ref().and_then(|r| r.traceparent.clone()))
        .ok()
        .flatten()
}

/// A span being recorded; it ends when dropped (as cancelled, unless [`Span::end`] ended it).
pub(crate) struct Span {
    tracing: tracing::Span,
    open: Option<Open>,
    kind: SpanKind,
    ended: bool,
    started: std::time::Instant,
}

struct Open {
    recording: Arc<Recording>,
    id: u64,
    parent: Option<u64>,
    name: String,
    start: SystemTime,
    attributes: Attributes,
    error: Option<&'static str>,
}

impl Span {
    fn new(kind: SpanKind, name: impl FnOnce() -> String, tracing: tracing::Span) -> Span {
        let open = current().and_then(|current| {
            let recording = current.recording?;
            Some(Open {
                id: recording.next_id.fetch_add(1, Ordering::Relaxed) + 1,
                recording,
                parent: current.parent,
                name: name(),
                start: SystemTime::now(),
                attributes: Vec::new(),
                error: None,
            })
        });
        Span {
            tracing,
            open,
            kind,
            ended: false,
            started: std::time::Instant::now(),
        }
    }

    /// The span of operation `name` (`service_report`), with its task.
    pub(crate) fn operation(name: &'static str, task_id: Option<u64>) -> Span {
        let tracing = tracing::info_span!(
            target: "monapi",
            "monapi",
            otel.name = format!("monapi {name}"),
            monapi.operation = name,
            monapi.task_id = Empty,
            monapi.rows = Empty,
            error.type = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        let mut span = Span::new(SpanKind::Internal, || format!("monapi {name}"), tracing);
        if let Some(open) = &mut span.open {
            // The tracing span has it from its start.
            open.attributes.push(("monapi.operation", name.into()));
        }
        if let Some(task_id) = task_id {
            span.set("monapi.task_id", task_id);
        }
        span
    }

    /// The CLIENT span of one HTTP attempt.
    pub(crate) fn attempt(method: &'static str) -> Span {
        let tracing = tracing::info_span!(
            target: "monapi",
            "monapi attempt",
            otel.name = method,
            otel.kind = "client",
            http.request.method = method,
            server.address = Empty,
            server.port = Empty,
            url.full = Empty,
            http.request.resend_count = Empty,
            http.response.status_code = Empty,
            error.type = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        let mut span = Span::new(SpanKind::Client, || method.to_string(), tracing);
        if let Some(open) = &mut span.open {
            open.attributes.push(("http.request.method", method.into()));
        }
        span
    }

    /// Whether anyone sees this span: a recording or a `tracing` subscriber.
    pub(crate) fn listening(&self) -> bool {
        self.open.is_some() || !self.tracing.is_disabled()
    }

    /// Sets attribute `key`.
    pub(crate) fn set(&mut self, key: &'static str, value: impl Into<AttributeValue>) {
        if !self.listening() {
            return;
        }
        let value = value.into();
        match &value {
            AttributeValue::Text(text) => self.tracing.record(key, text.as_ref()),
            AttributeValue::Int(number) => self.tracing.record(key, number),
        };
        if let Some(open) = &mut self.open {
            match open.attributes.iter_mut().find(|(k, _)| *k == key) {
                Some((_, old)) => *old = value,
                None => open.attributes.push((key, value)),
            }
        }
    }

    /// Ends the span as failed with `error`: status ERROR, described by the error's code,
    /// and `error.type` (for an attempt, the HTTP status of an error answer, or the error's
    /// kind; for other spans, the error's code).
    pub(crate) fn fail(&mut self, error: &Error) {
        let error_type = match self.kind {
            SpanKind::Client => attempt_error_type(error),
            SpanKind::Internal => error.code().to_string(),
        };
        self.failed(error.code(), error_type);
    }

    fn failed(&mut self, code: &'static str, error_type: String) {
        self.set("error.type", error_type);
        self.tracing.record("otel.status_code", "error");
        self.tracing.record("otel.status_description", code);
        if let Some(open) = &mut self.open {
            open.error = Some(code);
        }
    }

    /// Runs `future` as this span's work: its spans are this span's children, and a request
    /// made in it is an operation of its own only if `in_operation` is false.
    pub(crate) fn scope<F: Future>(&self, future: F, in_operation: bool) -> impl Future<Output = F::Output> {
        let inherited = current();
        let current = Current {
            recording: self
                .open
                .as_ref()
                .map(|open| open.recording.clone())
                .or_else(|| inherited.as_ref().and_then(|c| c.recording.clone())),
            parent: self.open.as_ref().map(|open| open.id),
            in_operation,
        };
        CURRENT.scope(current, future.instrument(self.tracing.clone()))
    }

    /// Ends the span now.
    pub(crate) fn end(mut self) {
        self.ended = true;
    }

    /// The time since the span started, in seconds.
    pub(crate) fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if !self.listening() {
            return;
        }
        if !self.ended {
            let error_type = match self.kind {
                SpanKind::Client => "cancelled".to_string(),
                SpanKind::Internal => Error::Aborted.code().to_string(),
            };
            self.failed(Error::Aborted.code(), error_type);
        }
        if let Some(open) = self.open.take() {
            let record = SpanRecord {
                id: open.id,
                parent: open.parent,
                name: open.name,
                kind: self.kind,
                start: open.start,
                end: SystemTime::now(),
                attributes: open.attributes,
                error: open.error,
            };
            open.recording.lock().spans.push(record);
        }
    }
}

/// An attempt's `error.type`: the HTTP status of an error answer, else the error's kind
/// (`timeout`, `connection`, `decode`).
pub(crate) fn attempt_error_type(error: &Error) -> String {
    match error.status() {
        Some(status) if status >= 400 => status.to_string(),
        _ => error.kind().as_str().to_string(),
    }
}

/// Runs `future`, the call of operation `name`, as its span: unless it runs inside an
/// operation already (a table call's request), where it is part of that one. `rows`, for a
/// table, gives its rows.
pub(crate) async fn operation<T>(
    name: &'static str,
    task_id: Option<u64>,
    future: impl Future<Output = crate::Result<T>>,
    rows: impl FnOnce(&T) -> Option<usize>,
) -> crate::Result<T> {
    let inside = CURRENT.try_with(|c| c.in_operation).unwrap_or(false);
    if inside {
        return future.await;
    }
    child(name, task_id, future, rows).await
}

/// [`operation`], always a span of its own: a task of a bulk call, a token request.
pub(crate) async fn child<T>(
    name: &'static str,
    task_id: Option<u64>,
    future: impl Future<Output = crate::Result<T>>,
    rows: impl FnOnce(&T) -> Option<usize>,
) -> crate::Result<T> {
    let mut span = Span::operation(name, task_id);
    if !span.listening() {
        return future.await;
    }
    let result = span.scope(future, true).await;
    match &result {
        Ok(value) => {
            if let Some(rows) = rows(value) {
                span.set("monapi.rows", rows as u64);
            }
        }
        Err(error) => span.fail(error),
    }
    span.end();
    result
}

/// No rows: for calls that are not tables.
pub(crate) fn no_rows<T>(_: &T) -> Option<usize> {
    None
}

/// Whether the metrics go to `opentelemetry::global`'s meter provider (see
/// [`use_global_meter_provider`]), measured then whoever else listens.
pub(crate) fn global_metrics() -> bool {
    #[cfg(feature = "opentelemetry")]
    return global::INSTRUMENTS.get().is_some();
    #[cfg(not(feature = "opentelemetry"))]
    false
}

/// From now on, every call's metrics also go to `opentelemetry::global`'s meter provider,
/// whose instruments are made now: call it once that provider is set. Until then (and in
/// the Python and Node packages, which replay a [`Recording`]'s) the metrics cost nothing.
#[cfg(feature = "opentelemetry")]
pub fn use_global_meter_provider() {
    global::INSTRUMENTS.get_or_init(global::Instruments::new);
}

/// Adds a measurement to the recording the call runs in, if any.
fn measure(record: impl FnOnce() -> MetricRecord) {
    let _ = CURRENT.try_with(|current| {
        if let Some(recording) = &current.recording {
            recording.lock().metrics.push(record());
        }
    });
}

/// Counts a retry of operation `operation` after a failure of type `error_type`.
pub(crate) fn retry(operation: &'static str, error_type: String) {
    #[cfg(feature = "opentelemetry")]
    global::retry(operation, &error_type);
    measure(|| MetricRecord::Retry {
        attributes: vec![
            ("monapi.operation", operation.into()),
            ("error.type", error_type.into()),
        ],
    });
}

/// Records the duration of the attempt of `span`, which ends now.
pub(crate) fn request_duration(span: &Span, attributes: Attributes) {
    let seconds = span.seconds();
    #[cfg(feature = "opentelemetry")]
    global::request_duration(seconds, &attributes);
    measure(|| MetricRecord::RequestDuration { seconds, attributes });
}

/// The metrics through `opentelemetry::global`'s meter provider.
#[cfg(feature = "opentelemetry")]
mod global {
    use std::sync::OnceLock;

    use opentelemetry::metrics::{Counter, Histogram};
    use opentelemetry::KeyValue;

    use super::{AttributeValue, REQUEST_DURATION, REQUEST_DURATION_BUCKETS, RETRIES};

    pub(super) struct Instruments {
        duration: Histogram<f64>,
        retries: Counter<u64>,
    }

    /// Made by `use_global_meter_provider`, from the provider set by then.
    pub(super) static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

    impl Instruments {
        pub(super) fn new() -> Instruments {
            let meter = opentelemetry::global::meter("monapi");
            Instruments {
                duration: meter
                    .f64_histogram(REQUEST_DURATION.name)
                    .with_unit(REQUEST_DURATION.unit)
                    .with_description(REQUEST_DURATION.description)
                    .with_boundaries(REQUEST_DURATION_BUCKETS.to_vec())
                    .build(),
                retries: meter
                    .u64_counter(RETRIES.name)
                    .with_unit(RETRIES.unit)
                    .with_description(RETRIES.description)
                    .build(),
            }
        }
    }

    fn key_values(attributes: &[(&'static str, AttributeValue)]) -> Vec<KeyValue> {
        attributes
            .iter()
            .map(|(key, value)| match value {
                AttributeValue::Text(text) => KeyValue::new(*key, text.to_string()),
                AttributeValue::Int(number) => KeyValue::new(*key, *number),
            })
            .collect()
    }

    pub(super) fn request_duration(seconds: f64, attributes: &[(&'static str, AttributeValue)]) {
        if let Some(instruments) = INSTRUMENTS.get() {
            instruments.duration.record(seconds, &key_values(attributes));
        }
    }

    pub(super) fn retry(operation: &'static str, error_type: &str) {
        if let Some(instruments) = INSTRUMENTS.get() {
            let attributes = [
                KeyValue::new("monapi.operation", operation),
                KeyValue::new("error.type", error_type.to_string()),
            ];
            instruments.retries.add(1, &attributes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_valid_traceparent_is_kept() {
        let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assert_eq!(
            Recording::new(Some(good.into())).traceparent.as_deref(),
            Some(good)
        );
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r\nX: y",
        ] {
            assert_eq!(Recording::new(Some(bad.into())).traceparent, None, "{bad:?}");
        }
    }

    #[tokio::test]
    async fn a_dropped_call_ends_its_spans_as_cancelled_and_nested_spans_have_their_parents() {
        let recording = Recording::new(None);
        let call = recording.scope(operation(
            "agents",
            None,
            async {
                let attempt = Span::attempt("GET");
                std::future::pending::<()>().await;
                drop(attempt);
                Ok(())
            },
            no_rows,
        ));
        // Cancelled mid-flight: the future is dropped before it ends.
        let cancelled = tokio::time::timeout(std::time::Duration::from_millis(10), call).await;
        assert!(cancelled.is_err());
        let spans = recording.take().spans;
        assert_eq!(spans.len(), 2);
        let (attempt, operation) = (&spans[0], &spans[1]);
        assert_eq!(attempt.parent, Some(operation.id));
        assert_eq!(operation.parent, None);
        assert_eq!(attempt.error, Some("ABORTED"));
        assert!(attempt.attributes.contains(&("error.type", "cancelled".into())));
        assert_eq!(operation.error, Some("ABORTED"));
        assert!(operation.attributes.contains(&("error.type", "ABORTED".into())));
    }

    #[tokio::test]
    async fn a_request_inside_an_operation_is_part_of_it_and_a_child_is_a_span_of_its_own() {
        let recording = Recording::new(None);
        let result = recording
            .scope(operation(
                "service_reports",
                None,
                async {
                    let inner = operation("service_report", Some(7), async { Ok(1) }, no_rows);
                    let task = child("service_report", Some(8), inner, |_| Some(3));
                    task.await
                },
                |_| Some(3),
            ))
            .await;
        assert_eq!(result.unwrap(), 1);
        let spans = recording.take().spans;
        let names: Vec<_> = spans.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["monapi service_report", "monapi service_reports"]);
        assert_eq!(spans[0].parent, Some(spans[1].id));
        assert!(spans[0].attributes.contains(&("monapi.task_id", 8u64.into())));
        assert!(spans[0].attributes.contains(&("monapi.rows", 3u64.into())));
        assert!(spans[0].start >= spans[1].start && spans[0].end <= spans[1].end);
        assert_eq!(spans[1].error, None);
    }

    #[tokio::test]
    async fn without_a_recording_or_subscriber_nothing_is_recorded_and_the_call_runs() {
        assert!(!Span::operation("agents", None).listening());
        assert_eq!(
            operation("agents", None, async { Ok(5) }, no_rows).await.unwrap(),
            5
        );
        assert_eq!(traceparent(), None);
    }
}
