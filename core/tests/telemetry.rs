//! The calls as OpenTelemetry sees them through `tracing-opentelemetry` (spans) and the global
//! meter provider (metrics, the `opentelemetry` feature), with the real SDK's in-memory
//! exporters.
//!
//! A test binary of its own: it installs a global `tracing` subscriber and global OpenTelemetry
//! providers, which would reach the other tests' calls. The tests run one at a time (`SERIAL`),
//! each clearing the exporters first. The `wire_up` function is the documentation's sample
//! (`docs/guides/telemetry.md`).

#[path = "it/common/mod.rs"]
mod common;

use std::sync::OnceLock;
use std::time::Duration;

use common::*;
use monapi_emulator::{FaultKind, Faults};
use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing::Instrument;

// --8<-- [start:wire-up]
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::PeriodicReader;
use opentelemetry_sdk::trace::SpanExporter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Sends monapi's spans to `spans` through `tracing-opentelemetry`, and its metrics (cargo
/// feature `opentelemetry`) to `metrics` through the global meter provider.
fn wire_up(
    spans: impl SpanExporter + 'static,
    metrics: impl PushMetricExporter,
) -> (SdkTracerProvider, SdkMeterProvider) {
    let tracer_provider = SdkTracerProvider::builder().with_simple_exporter(spans).build();
    let tracer = tracer_provider.tracer("my-pipeline");
    tracing_subscriber::registry()
        // monapi's spans are at INFO under the target `monapi`.
        .with(
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_filter(EnvFilter::new("info")),
        )
        .init();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics).build())
        .build();
    opentelemetry::global::set_meter_provider(meter_provider.clone());
    monapi::telemetry::use_global_meter_provider();
    (tracer_provider, meter_provider)
}
// --8<-- [end:wire-up]

struct Installed {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    _tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

/// The process's providers, installed once; and the lock that runs the tests one at a time.
async fn installed() -> (&'static Installed, tokio::sync::MutexGuard<'static, ()>) {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let serial = SERIAL.lock().await;
    let installed = INSTALLED.get_or_init(|| {
        let spans = InMemorySpanExporter::default();
        let metrics = InMemoryMetricExporter::default();
        let (tracer_provider, meter_provider) = wire_up(spans.clone(), metrics.clone());
        Installed {
            spans,
            metrics,
            _tracer_provider: tracer_provider,
            meter_provider,
        }
    });
    installed.spans.reset();
    (installed, serial)
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> String {
    match attribute(span, key) {
        Some(Value::String(text)) => text.to_string(),
        other => panic!("{key} of {} is {other:?}", span.name),
    }
}

fn number(span: &SpanData, key: &str) -> i64 {
    match attribute(span, key) {
        Some(Value::I64(number)) => *number,
        other => panic!("{key} of {} is {other:?}", span.name),
    }
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn children<'a>(spans: &'a [SpanData], parent: &SpanData) -> Vec<&'a SpanData> {
    spans
        .iter()
        .filter(|s| s.parent_span_id == parent.span_context.span_id())
        .collect()
}

/// Every attribute of every span, as text, holds no secret.
fn assert_no_secret_in(spans: &[SpanData], tokens: &[&str]) {
    for span in spans {
        let attributes: Vec<String> = span.attributes.iter().map(|kv| format!("{kv:?}")).collect();
        assert_no_secret(&format!("{} {attributes:?} {:?}", span.name, span.status), tokens);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_is_a_span_under_the_callers_with_a_client_child_per_attempt() {
    let (installed, _serial) = installed().await;
    let emulator = emulator().await;
    let client = client(&emulator);
    emulator
        .set_faults(Faults {
            next: vec![FaultKind::Error503],
            ..Faults::default()
        })
        .unwrap();
    let before = measured(installed);
    let parent = tracing::info_span!("nightly job");
    client.agents().instrument(parent.clone()).await.unwrap();
    drop(parent);
    let spans = installed.spans.get_finished_spans().unwrap();
    let job = named(&spans, "nightly job")[0];
    let agents = named(&spans, "monapi agents")[0];
    assert_eq!(agents.parent_span_id, job.span_context.span_id());
    assert_eq!(agents.span_kind, SpanKind::Internal);
    assert_eq!(text(agents, "monapi.operation"), "agents");
    assert_eq!(agents.status, Status::Unset);
    // The token request, whose attempt met the 503 and was repeated; then the call's.
    let token = named(&spans, "monapi token")[0];
    assert_eq!(token.parent_span_id, agents.span_context.span_id());
    let posts = children(&spans, token);
    assert_eq!(posts.len(), 2);
    let (failed, repeated) = (posts[0], posts[1]);
    assert_eq!(
        (failed.name.as_ref(), failed.span_kind.clone()),
        ("POST", SpanKind::Client)
    );
    assert_eq!(number(failed, "http.response.status_code"), 503);
    assert_eq!(text(failed, "error.type"), "503");
    assert!(matches!(failed.status, Status::Error { .. }));
    assert_eq!(attribute(failed, "http.request.resend_count"), None);
    assert_eq!(number(repeated, "http.request.resend_count"), 1);
    assert_eq!(number(repeated, "http.response.status_code"), 200);
    let get = children(&spans, agents)
        .into_iter()
        .find(|s| s.name == "GET")
        .expect("the call's attempt");
    assert_eq!(text(get, "http.request.method"), "GET");
    assert_eq!(text(get, "server.address"), "127.0.0.1");
    assert_eq!(number(get, "server.port"), i64::from(emulator.addr().port()));
    let url = text(get, "url.full");
    assert_eq!(
        url,
        format!(
            "{}/v2/agent/lists.json?access_token=REDACTED",
            emulator.base_url()
        )
    );
    let token = client.token().unwrap();
    assert_no_secret_in(&spans, &[token.access_token.expose()]);

    // The metrics (cumulative over this binary's tests): one duration per attempt, one retry
    // of the token request.
    let after = measured(installed);
    assert_eq!(after.attempts - before.attempts, emulator.counters().total);
    assert_eq!(after.token_503_retries - before.token_503_retries, 1);
    assert_eq!(after.bounds, monapi::telemetry::REQUEST_DURATION_BUCKETS);
}

#[derive(Debug, Default)]
struct Measured {
    /// The count of `http.client.request.duration`, all attributes together.
    attempts: u64,
    /// Its buckets' bounds.
    bounds: Vec<f64>,
    /// `monapi.client.retries` of the token request after a 503.
    token_503_retries: u64,
}

/// What the global meter provider has measured so far.
fn measured(installed: &Installed) -> Measured {
    installed.metrics.reset();
    installed.meter_provider.force_flush().unwrap();
    let exported = installed.metrics.get_finished_metrics().unwrap();
    let mut measured = Measured::default();
    for metric in exported
        .iter()
        .flat_map(|r| r.scope_metrics())
        .flat_map(|s| s.metrics())
    {
        match (metric.name(), metric.data()) {
            ("http.client.request.duration", AggregatedMetrics::F64(MetricData::Histogram(durations))) => {
                measured.attempts = durations.data_points().map(|p| p.count()).sum();
                measured.bounds = durations.data_points().next().unwrap().bounds().collect();
            }
            ("monapi.client.retries", AggregatedMetrics::U64(MetricData::Sum(retries))) => {
                let token_503 = [
                    KeyValue::new("monapi.operation", "token"),
                    KeyValue::new("error.type", "503"),
                ];
                measured.token_503_retries = retries
                    .data_points()
                    .filter(|p| token_503.iter().all(|kv| p.attributes().any(|a| a == kv)))
                    .map(|p| p.value())
                    .sum();
            }
            (name, data) => panic!("{name} is unexpected: {data:?}"),
        }
    }
    measured
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_call_is_one_span_with_a_child_per_task_and_a_table_has_its_rows() {
    let (installed, _serial) = installed().await;
    let emulator = emulator().await;
    let client = client(&emulator);
    let range = monapi::DateRange::parse(Some("2026-11-01"), Some("2026-11-01")).unwrap();
    let tables = client.tables();
    let bulk = tables
        .service_reports(vec![10001, 10002, 999], range, monapi::table::BulkOptions::new())
        .await
        .unwrap();
    let spans = installed.spans.get_finished_spans().unwrap();
    let reports = named(&spans, "monapi service_reports")[0];
    assert_eq!(reports.parent_span_id, SpanId::INVALID);
    let rows: i64 = bulk.tables.iter().map(|(_, t)| t.num_rows() as i64).sum();
    assert_eq!(number(reports, "monapi.rows"), rows);
    let tasks = children(&spans, reports);
    let mut ids: Vec<i64> = tasks
        .iter()
        .filter(|s| s.name == "monapi service_report")
        .map(|s| number(s, "monapi.task_id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [999, 10001, 10002]);
    for task in tasks.iter().filter(|s| s.name == "monapi service_report") {
        let attempts = children(&spans, task);
        assert_eq!(attempts.len(), 1, "{}", task.name);
        assert_eq!(attempts[0].name, "GET");
        // One span per task: its request is no operation of its own.
        assert!(children(&spans, attempts[0]).is_empty());
        if number(task, "monapi.task_id") == 999 {
            assert!(matches!(&task.status, Status::Error { description } if description == "API_ERROR"));
            assert_eq!(text(task, "error.type"), "API_ERROR");
            assert_eq!(text(attempts[0], "error.type"), "404");
        } else {
            assert_eq!(task.status, Status::Unset);
            assert!(number(task, "monapi.rows") > 0);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_login_and_a_cancelled_call_end_their_spans_as_errors() {
    let (installed, _serial) = installed().await;
    let emulator = emulator().await;
    let wrong = builder(&emulator).password("wrong").build().unwrap();
    let error = wrong.agents().await.unwrap_err();
    let spans = installed.spans.get_finished_spans().unwrap();
    let agents = named(&spans, "monapi agents")[0];
    let code = error.code();
    assert!(matches!(&agents.status, Status::Error { description } if description == code));
    assert_eq!(code, "AUTH_INVALID_GRANT");
    assert!(matches!(
        &named(&spans, "monapi token")[0].status,
        Status::Error { .. }
    ));
    assert_no_secret_in(&spans, &["wrong", monapi::md5_hex("wrong").expose()]);

    installed.spans.reset();
    let client = client(&emulator);
    client.login().await.unwrap();
    emulator.set_latency(Duration::from_secs(30));
    let cancelled = tokio::time::timeout(Duration::from_millis(200), client.agents()).await;
    assert!(cancelled.is_err());
    emulator.set_latency(Duration::ZERO);
    let spans = installed.spans.get_finished_spans().unwrap();
    let agents = named(&spans, "monapi agents")[0];
    assert!(matches!(&agents.status, Status::Error { description } if description == "ABORTED"));
    let get = named(&spans, "GET")[0];
    assert_eq!(text(get, "error.type"), "cancelled");
    let lasted = get.end_time.duration_since(get.start_time).unwrap();
    assert!(
        lasted < Duration::from_secs(10),
        "ended at the cancellation: {lasted:?}"
    );
}
