//! `monapi::telemetry::Recording`: what the Python and Node packages replay, recorded for the
//! calls made in its scope; and the `traceparent` a client sends only when asked.

use monapi::telemetry::{AttributeValue, MetricRecord, Recording, SpanKind, SpanRecord};
use monapi_emulator::FaultKind;

use crate::common::*;

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn attribute<'a>(span: &'a SpanRecord, key: &str) -> Option<&'a AttributeValue> {
    span.attributes.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

#[tokio::test]
async fn a_call_records_its_spans_and_measurements_with_parents_and_attributes() {
    let emulator = emulator().await;
    let client = client(&emulator);
    client.login().await.unwrap();
    emulator.set_faults(next_faults(&[FaultKind::Error500])).unwrap();
    let recording = Recording::new(None);
    let report = monapi::DateRange::parse(Some("2026-11-01"), Some("2026-11-01")).unwrap();
    recording
        .scope(client.service_report(10001, report))
        .await
        .unwrap();
    let records = recording.take();
    let names: Vec<_> = records.spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["GET", "GET", "monapi service_report"]);
    let (failed, repeated, operation) = (&records.spans[0], &records.spans[1], &records.spans[2]);
    assert_eq!(
        (operation.kind, operation.parent, operation.error),
        (SpanKind::Internal, None, None)
    );
    assert_eq!(attribute(operation, "monapi.task_id"), Some(&10001u64.into()));
    for attempt in [failed, repeated] {
        assert_eq!(attempt.kind, SpanKind::Client);
        assert_eq!(attempt.parent, Some(operation.id));
        assert!(attempt.start >= operation.start && attempt.end <= operation.end);
        let url = attribute(attempt, "url.full").unwrap();
        let AttributeValue::Text(url) = url else {
            panic!("{url:?}")
        };
        assert!(url.starts_with(&format!("{}/v2/service/report/10001.json?", emulator.base_url())));
        assert!(url.ends_with("&access_token=REDACTED"), "{url}");
    }
    assert_eq!(failed.error, Some("API_ERROR"));
    assert_eq!(attribute(failed, "error.type"), Some(&"500".into()));
    assert_eq!(
        attribute(failed, "http.response.status_code"),
        Some(&500u16.into())
    );
    assert_eq!(
        attribute(repeated, "http.request.resend_count"),
        Some(&1u64.into())
    );
    assert_eq!(repeated.error, None);
    // A duration per attempt, and the retry.
    let durations = records
        .metrics
        .iter()
        .filter(|m| matches!(m, MetricRecord::RequestDuration { .. }))
        .count();
    assert_eq!(durations, 2);
    let retry = records
        .metrics
        .iter()
        .find_map(|m| match m {
            MetricRecord::Retry { attributes } => Some(attributes),
            _ => None,
        })
        .unwrap();
    assert!(retry.contains(&("monapi.operation", "service_report".into())));
    assert!(retry.contains(&("error.type", "500".into())));
    // Taken: the next call starts a new record.
    assert_eq!(recording.take(), Default::default());
}

#[tokio::test]
async fn the_trace_context_goes_out_only_when_the_client_is_told_to_send_it() {
    let emulator = emulator().await;
    let quiet = client(&emulator);
    Recording::new(Some(TRACEPARENT.into()))
        .scope(quiet.agents())
        .await
        .unwrap();
    assert_eq!(emulator.counters().traced, 0);
    let told = builder(&emulator).propagate_trace_context(true).build().unwrap();
    // Outside a recording there is no caller's context to send.
    told.agents().await.unwrap();
    assert_eq!(emulator.counters().traced, 0);
    Recording::new(Some(TRACEPARENT.into()))
        .scope(told.agents())
        .await
        .unwrap();
    let counters = emulator.counters();
    // The call (its client logged in before, outside the recording).
    assert_eq!((counters.traced, counters.token), (1, 2));
    assert_eq!(counters.traceparent.as_deref(), Some(TRACEPARENT));
}
