//! The command's log lines on stderr, as a supervisor or a container runtime collects them:
//! one line per event, as text (its time in UTC, its level and what happened) or as one JSON
//! object (`--log-format json`, what log collectors read without a parser of their own).
//!
//! Every command takes the two flags (`--log-level`, `--log-format`), each falling back to its
//! variable. The level is read by the core's rule ([`LogLevel::parse`], [`monapi::LOG_VAR`]);
//! at `debug`, the core's own events (each request, retry and token renewal, secrets already
//! redacted by the core) are shown too. The lines are made from the events' fields as the core
//! wrote them, in either format: neither adds a value of its own.
//!
//! The exporter's traces go here too ([`Otlp`]): with `--otlp-endpoint`, each refresh is a
//! span whose children are the core's operations (`monapi site_report`, with the task id) and
//! their HTTP attempts, sent over OTLP with the core's metrics. The log lines show no span.

use std::sync::OnceLock;

use clap::{Args, ValueEnum};
use monapi::LogLevel;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};
use tracing_subscriber::filter::{FilterExt as _, LevelFilter, Targets};
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
            // them; no spans.
            LogFormat::Json => tracing_subscriber::fmt::layer()
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .with_writer(std::io::stderr)
                .boxed(),
        };
        // Events only: a line shows no span (the core's operations and attempts are spans).
        let events = tracing_subscriber::filter::filter_fn(|metadata| metadata.is_event());
        let subscriber = tracing_subscriber::registry()
            .with(layer)
            .with(lines.with_filter(shown.and(events)));
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

/// The exporter's telemetry over OTLP (http/protobuf): the spans of its refreshes and the
/// core's metrics (`http.client.request.duration`, `monapi.client.retries`), to an
/// OpenTelemetry collector. Its service name is `monapi-exporter` unless `OTEL_SERVICE_NAME`
/// says otherwise (the SDK reads it and `OTEL_RESOURCE_ATTRIBUTES`).
pub(crate) struct Otlp {
    tracer_provider: opentelemetry_sdk::trace::SdkTracerProvider,
    meter_provider: opentelemetry_sdk::metrics::SdkMeterProvider,
}

impl Otlp {
    /// Sends to the collector at `endpoint` (its base URL: `/v1/traces` and `/v1/metrics` are
    /// added, as for `OTEL_EXPORTER_OTLP_ENDPOINT`) through `runtime`; returns the layer that
    /// hands the spans of the targets `monapi…` at INFO (every span of the exporter and the
    /// core) to it. The metrics go through the global meter provider, set here.
    pub(crate) fn start<S>(
        endpoint: &str,
        runtime: tokio::runtime::Handle,
    ) -> Result<(Otlp, impl Layer<S> + use<S>), Box<dyn std::error::Error>>
    where
        S: Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        use opentelemetry::trace::TracerProvider as _;
        use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig, WithHttpConfig};

        let base = reqwest::Url::parse(endpoint)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
            .ok_or_else(|| {
                let rule = "must be an http or https URL, such as http://127.0.0.1:4318 (OTLP over HTTP)";
                monapi::Error::invalid_input(None, "--otlp-endpoint", rule)
            })?;
        let signal = |path: &str| format!("{}/{path}", base.as_str().trim_end_matches('/'));
        let sender = || Sender {
            http: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(10))
                .build()
                .expect("a client without settings builds"),
            runtime: runtime.clone(),
        };
        let spans = SpanExporter::builder()
            .with_http()
            .with_http_client(sender())
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(signal("v1/traces"))
            .build()
            .map_err(|e| format!("cannot send traces to {endpoint}: {e}"))?;
        let metrics = MetricExporter::builder()
            .with_http()
            .with_http_client(sender())
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(signal("v1/metrics"))
            .build()
            .map_err(|e| format!("cannot send metrics to {endpoint}: {e}"))?;
        let mut resource = opentelemetry_sdk::Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("monapi-exporter");
        }
        let resource = resource.build();
        let tracer_provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let meter_provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
            .with_periodic_exporter(metrics)
            .with_resource(resource)
            .build();
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        monapi::telemetry::use_global_meter_provider();
        let tracer = tracer_provider.tracer("monapi-exporter");
        let shown = Targets::new().with_target("monapi", LevelFilter::INFO);
        let layer = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(shown);
        let otlp = Otlp {
            tracer_provider,
            meter_provider,
        };
        Ok((otlp, layer))
    }

    /// Sends what is left, off the runtime's threads (the exports run on the runtime).
    pub(crate) async fn shutdown(self) {
        let _ = tokio::task::spawn_blocking(move || {
            let _ = self.tracer_provider.shutdown();
            let _ = self.meter_provider.shutdown();
        })
        .await;
    }
}

/// OpenTelemetry's HTTP client: the core's reqwest, each request sent on the command's
/// runtime (the SDK's export threads have none).
#[derive(Debug)]
struct Sender {
    http: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for Sender {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, opentelemetry_http::HttpError> {
        let request = reqwest::Request::try_from(request)?;
        let http = self.http.clone();
        let sent = self.runtime.spawn(async move {
            let response = http.execute(request).await?;
            let mut answer = http::Response::builder().status(response.status());
            if let Some(headers) = answer.headers_mut() {
                *headers = response.headers().clone();
            }
            let body = response.bytes().await?;
            Ok::<_, opentelemetry_http::HttpError>(answer.body(body)?)
        });
        sent.await?
    }
}
