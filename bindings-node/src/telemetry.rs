//! What a call did, for the host's OpenTelemetry: the core's [`Recording`] of a call as plain
//! JavaScript objects, which the TypeScript layer (`ts/lib/telemetry.ts`) replays through the
//! host's `@opentelemetry/api` with the recorded times.
//!
//! A call is recorded only when the layer asks for it (`new NativeCall(timeoutMs, true,
//! traceparent)`, made when the host has a tracer or meter provider): the call's future runs in
//! [`Recording::scope`] (`call.rs`), and the layer takes the records
//! (`NativeCall.takeRecords()`) once its Promise has settled, by then complete: the future
//! has returned, or been dropped (an abort), ending its spans as cancelled.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use monapi::telemetry::{
    AttributeValue, Attributes, MetricRecord, Records, SpanKind, SpanRecord, REQUEST_DURATION,
    REQUEST_DURATION_BUCKETS, RETRIES,
};
use napi::bindgen_prelude::Either;
use napi_derive::napi;

/// Attributes by their OpenTelemetry names: text, or a number.
type JsAttributes = BTreeMap<String, Either<String, f64>>;

/// A span of a call as it happened; see `monapi::telemetry::SpanRecord`.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct NativeSpan {
    /// Its number within the call, from 1: a parent's is smaller than its children's.
    pub id: f64,
    /// The span of the call it is a child of; `null`: the caller's span.
    pub parent: Option<f64>,
    /// Its name (`monapi agents`, `GET`).
    pub name: String,
    /// `true` for an HTTP attempt (kind CLIENT), `false` for the others (INTERNAL).
    pub client: bool,
    /// When it started: `[seconds, nanoseconds]` since the Unix epoch (OpenTelemetry's HrTime).
    pub start: (f64, u32),
    /// When it ended, as `start`.
    pub end: (f64, u32),
    /// Its attributes by their OpenTelemetry names (no secret among them).
    #[napi(ts_type = "Record<string, string | number>")]
    pub attributes: JsAttributes,
    /// For a span that failed (status ERROR), the monapi error code; `null` otherwise.
    pub error: Option<String>,
}

/// A measurement of a call: one HTTP attempt's duration in seconds (`seconds`), or one retry
/// (`seconds` `null`).
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct NativeMeasurement {
    pub seconds: Option<f64>,
    /// The attempt's method, server and outcome; for a retry, the operation and the reason.
    #[napi(ts_type = "Record<string, string | number>")]
    pub attributes: JsAttributes,
}

/// What a call recorded: its spans in the order they ended (children before their parents),
/// its measurements in the order made.
#[napi(object, object_from_js = false)]
pub struct NativeRecords {
    pub spans: Vec<NativeSpan>,
    pub measurements: Vec<NativeMeasurement>,
}

impl From<Records> for NativeRecords {
    fn from(records: Records) -> Self {
        NativeRecords {
            spans: records.spans.into_iter().map(span).collect(),
            measurements: records.metrics.into_iter().map(measurement).collect(),
        }
    }
}

fn span(record: SpanRecord) -> NativeSpan {
    NativeSpan {
        id: record.id as f64,
        parent: record.parent.map(|id| id as f64),
        name: record.name,
        client: record.kind == SpanKind::Client,
        start: hr_time(record.start),
        end: hr_time(record.end),
        attributes: attributes(record.attributes),
        error: record.error.map(String::from),
    }
}

fn measurement(record: MetricRecord) -> NativeMeasurement {
    match record {
        MetricRecord::RequestDuration {
            seconds,
            attributes: a,
        } => NativeMeasurement {
            seconds: Some(seconds),
            attributes: attributes(a),
        },
        MetricRecord::Retry { attributes: a } => NativeMeasurement {
            seconds: None,
            attributes: attributes(a),
        },
    }
}

/// `time` as OpenTelemetry's HrTime, `[seconds, nanoseconds]` since the Unix epoch.
fn hr_time(time: SystemTime) -> (f64, u32) {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    (since.as_secs() as f64, since.subsec_nanos())
}

fn attributes(attributes: Attributes) -> JsAttributes {
    attributes
        .into_iter()
        .map(|(key, value)| {
            let value = match value {
                AttributeValue::Text(text) => Either::A(text.into_owned()),
                AttributeValue::Int(number) => Either::B(number as f64),
            };
            (key.to_string(), value)
        })
        .collect()
}

/// A metric's name, unit and description, as the core declares it.
#[napi(object, object_from_js = false)]
pub struct NativeInstrument {
    pub name: String,
    pub unit: String,
    pub description: String,
}

/// The instruments the measurements go to, as the core declares them: the histogram of the
/// attempts' durations (with its buckets, in seconds) and the counter of retries.
#[napi(object, object_from_js = false)]
pub struct NativeInstruments {
    pub request_duration: NativeInstrument,
    pub request_duration_buckets: Vec<f64>,
    pub retries: NativeInstrument,
}

/// The core's instruments (`monapi::telemetry::REQUEST_DURATION`, `RETRIES`).
#[napi(catch_unwind)]
pub fn telemetry_instruments() -> NativeInstruments {
    let instrument = |metric: monapi::telemetry::Metric| NativeInstrument {
        name: metric.name.to_string(),
        unit: metric.unit.to_string(),
        description: metric.description.to_string(),
    };
    NativeInstruments {
        request_duration: instrument(REQUEST_DURATION),
        request_duration_buckets: REQUEST_DURATION_BUCKETS.to_vec(),
        retries: instrument(RETRIES),
    }
}
