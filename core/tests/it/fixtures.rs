//! The service's documented payloads (tests/fixtures) decode both faithfully and typed.

use std::path::PathBuf;

use monapi::{
    Agents, CreatedTask, Distribution, FaultEnd, ServerTask, ServiceReport, ServiceTask, SiteReport, Token,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decodes typed, and checks that the faithful form keeps every key and value in order.
fn both<T: DeserializeOwned>(name: &str) -> (T, Value) {
    let bytes = fixture(name);
    let typed = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let compact: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        serde_json::to_string(&compact).unwrap()
    );
    (typed, value)
}

#[test]
fn token() {
    let (token, value): (Token, _) = both("token.json");
    assert_eq!(token.expires_in, 3600);
    assert_eq!(token.token_type, "bearer");
    assert_eq!(token.refresh_token.unwrap().expose(), value["refresh_token"]);
    assert!(value["scope"].is_null());
}

#[test]
fn create_request_and_response() {
    let (tasks, _): (Vec<ServerTask>, _) = both("create_request.json");
    ServerTask::validate_batch(&tasks).unwrap();
    assert_eq!(tasks[0].alert_setting.alert.email, ["101", "102"]);
    assert_eq!(tasks[1].alert_setting.user_ids, ["101", "103"]);
    let sent = serde_json::to_value(&tasks).unwrap();
    assert_eq!(sent[0]["frequency"], "5");
    assert_eq!(sent[0]["alert_setting"]["alert"]["email"], "101,102");
    let (created, _): (Vec<CreatedTask>, _) = both("create_response.json");
    assert_eq!(
        created.iter().map(|c| c.task_id).collect::<Vec<_>>(),
        [30001, 30002]
    );
}

#[test]
fn service_tasks() {
    let (tasks, value): (Vec<ServiceTask>, _) = both("service_tasks.json");
    assert_eq!(tasks[0].task_id, 10001);
    assert_eq!(tasks[1].frequency, Some(1));
    assert_eq!(tasks[0].task_status, "启用");
    assert_eq!(value[0]["task_id"], "10001");
}

#[test]
fn agents() {
    let (agents, value): (Agents, _) = both("agents.json");
    assert_eq!(agents.keys().collect::<Vec<_>>(), ["501", "502"]);
    assert_eq!(agents["501"].plugin[1].plugin_task_uselist_id, "9002");
    assert!(agents["502"].plugin.is_empty());
    assert_eq!(agents["501"].agent_url.linux, value["501"]["agentUrl"]["linux"]);
}

#[test]
fn service_report() {
    let (report, _): (ServiceReport, _) = both("service_report_apache.json");
    assert_eq!(
        report.series.keys().collect::<Vec<_>>(),
        ["apache_rps", "apache_curr_reqs", "apache_curr_reqs_status"]
    );
    let status = &report.series["apache_curr_reqs_status"][1];
    assert_eq!(status.time.as_deref(), Some("00:05"));
    assert_eq!(status.values["s__"], 40.0);
}

#[test]
fn site_report() {
    let (report, value): (SiteReport, _) = both("site_report.json");
    let average = &report.points[&0];
    assert_eq!(average.name, "平均");
    assert!(average.fault.is_none());
    assert_eq!(average.uprate[&1763769900].uprate, 50.0);
    let beijing = &report.points[&3];
    let faults = beijing.fault.as_ref().unwrap();
    assert_eq!(faults.count, 2);
    assert_eq!(faults.records[&0].end_time, FaultEnd::Ended(1763763000));
    assert!(faults.records[&1].end_time.is_ongoing());
    assert_eq!(beijing.resptime[&1763769600].resptime_avg, Some(190.0));
    assert_eq!(value["3"]["fault"]["1"]["end_time"], "未结束");
}

#[test]
fn distribution() {
    let (dist, value): (Distribution, _) = both("response_time_distribution.json");
    assert_eq!(
        dist.buckets.keys().copied().collect::<Vec<_>>(),
        [0, 100, 200, 500, 2000]
    );
    assert_eq!(dist.buckets[&100].percent, 52.08);
    assert!(value["100"]["count"].is_number() && value["100"]["percent"].is_string());
}

#[test]
fn loose_shapes_the_real_service_may_send() {
    // Numbers as numbers, PHP's [] for empty objects, extra fields, fault [] and a numeric end_time.
    let json = r#"{"7":{"name":"x","uprate":[],"fault":[],"resptime":{"1":{"resptime_avg":12}},"extra":1}}"#;
    let report: SiteReport = serde_json::from_str(json).unwrap();
    let point = &report.points[&7];
    assert!(point.uprate.is_empty() && point.fault.is_none());
    assert_eq!(point.resptime[&1].resptime_avg, Some(12.0));
    assert_eq!(point.extra["extra"], 1);
    let task: ServiceTask =
        serde_json::from_str(r#"{"task_id":5,"frequency":5,"new_field":"kept"}"#).unwrap();
    assert_eq!((task.task_id, task.frequency), (5, Some(5)));
    assert_eq!(task.extra["new_field"], "kept");
    let empty: ServiceReport = serde_json::from_str("[]").unwrap();
    assert!(empty.series.is_empty());
}
