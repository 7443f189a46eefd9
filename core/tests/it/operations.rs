//! Every operation against the emulator, typed and faithful.

use crate::common::*;
use chrono::{Duration as Days, Utc};
use futures::TryStreamExt;
use monapi::{DateRange, Error, FaultEnd, Monitor, Request, ServerTask, SystemType, PAGE_SIZE};

#[tokio::test]
async fn login_returns_a_bearer_token_and_caches_it() {
    let emu = emulator().await;
    let client = client(&emu);
    assert!(client.token().is_none());
    let token = client.login().await.unwrap();
    assert_eq!(token.token_type, "bearer");
    assert_eq!(token.expires_in, 3600);
    assert!(token.refresh_token.is_some());
    assert!(token.expires_at.unwrap() > 1_700_000_000);
    assert_eq!(client.token().unwrap(), token);
    assert_eq!(emu.counters().token_password, 1);
}

#[tokio::test]
async fn first_call_logs_in_once() {
    let emu = emulator().await;
    let client = client(&emu);
    client.agents().await.unwrap();
    client.agents().await.unwrap();
    let counters = emu.counters();
    assert_eq!((counters.token, counters.agents), (1, 2));
}

#[tokio::test]
async fn service_tasks_page_by_page_and_all() {
    let emu = emulator().await;
    let client = client(&emu);
    let first = client.service_tasks(1).await.unwrap();
    assert_eq!(first.len(), PAGE_SIZE);
    assert!(first
        .iter()
        .all(|t| t.task_id > 0 && !t.task_name.is_empty() && t.frequency.is_some()));

    let all: Vec<_> = client.service_tasks_all().try_collect().await.unwrap();
    assert_eq!(all.len(), 120);
    assert_eq!(&all[..PAGE_SIZE], &first[..]);
    let types: std::collections::BTreeSet<_> = all.iter().map(|t| t.task_type.as_str()).collect();
    assert_eq!(types.len(), 8, "{types:?}");
    // 1 page above + 3 pages for the stream, which stopped at the short third page.
    assert_eq!(emu.counters().service_tasks, 4);
}

#[tokio::test]
async fn paging_stops_at_an_exactly_full_last_page_with_one_empty_page() {
    let emu = emulator_with(monapi_emulator::Config {
        service_tasks: 100,
        ..Default::default()
    })
    .await;
    let all: Vec<_> = client(&emu).service_tasks_all().try_collect().await.unwrap();
    assert_eq!(all.len(), 100);
    assert_eq!(emu.counters().service_tasks, 3);
}

#[tokio::test]
async fn agents_with_plugins_and_download_urls() {
    let emu = emulator().await;
    let agents = client(&emu).agents().await.unwrap();
    assert!(agents.len() >= 3);
    assert!(agents.values().any(|a| a.plugin.is_empty()));
    for (id, agent) in &agents {
        assert!(id.parse::<u64>().is_ok(), "{id}");
        assert!(agent.agent_url.linux.starts_with("http"), "{:?}", agent.agent_url);
        assert_ne!(agent.agent_url.linux, agent.agent_url.windows);
        for plugin in &agent.plugin {
            assert!(!plugin.plugin_task_uselist_id.is_empty());
        }
    }
}

#[tokio::test]
async fn service_report_of_every_service_type() {
    let emu = emulator().await;
    let client = client(&emu);
    let tasks: Vec<_> = client.service_tasks_all().try_collect().await.unwrap();
    let day = Utc::now().date_naive() - Days::days(3);
    let mut seen = std::collections::BTreeSet::new();
    for task in tasks {
        if !seen.insert(task.task_type.clone()) {
            continue;
        }
        let report = client
            .service_report(task.task_id, DateRange::on(day))
            .await
            .unwrap();
        let prefix = format!("{}_", task.task_type);
        assert!(!report.series.is_empty());
        let per_day = 1440 / task.frequency.unwrap() as usize;
        for (name, records) in &report.series {
            assert!(name.starts_with(&prefix), "{name} in a {} report", task.task_type);
            assert_eq!(records.len(), per_day, "{name}");
            assert!(records.iter().all(|r| !r.values.is_empty()), "{name}");
        }
    }
    assert_eq!(seen.len(), 8);
}

#[tokio::test]
async fn multi_day_report_has_one_record_per_check() {
    let emu = emulator().await;
    let client = client(&emu);
    let task = client.service_tasks(1).await.unwrap().remove(0);
    let end = Utc::now().date_naive() - Days::days(1);
    let range = DateRange::new(end - Days::days(2), end);
    let report = client.service_report(task.task_id, range).await.unwrap();
    let checks = 3 * 1440 / task.frequency.unwrap() as usize;
    assert!(report.series.values().all(|r| r.len() == checks));
}

#[tokio::test]
async fn site_report_all_points_average_and_one_point() {
    let emu = emulator().await;
    let client = client(&emu);
    let all = client
        .site_report(20001, DateRange::today(), Monitor::All)
        .await
        .unwrap();
    assert!(all.points.len() >= 3);
    assert!(all.points.contains_key(&0));
    let faults: Vec<_> = all.points.values().filter_map(|p| p.fault.as_ref()).collect();
    assert!(
        all.points.values().any(|p| p.fault.is_none()),
        "some point has fault: null"
    );
    for point in all.points.values() {
        assert!(!point.name.is_empty());
        assert!(!point.uprate.is_empty());
        assert_eq!(point.uprate.len(), point.resptime.len());
    }
    for fault in &faults {
        assert_eq!(fault.count as usize, fault.records.len());
    }

    let average = client
        .site_report(20001, DateRange::today(), Monitor::Average)
        .await
        .unwrap();
    assert_eq!(average.points.keys().copied().collect::<Vec<_>>(), vec![0]);

    let id = *all.points.keys().find(|id| **id != 0).unwrap();
    let one = client
        .site_report(20001, DateRange::today(), Monitor::Point(id))
        .await
        .unwrap();
    assert_eq!(one.points.keys().copied().collect::<Vec<_>>(), vec![id]);
    assert_eq!(one.points[&id], all.points[&id]);
}

#[tokio::test]
async fn some_site_has_an_ongoing_fault_today() {
    let emu = emulator_with(stressed_evening()).await;
    let client = client(&emu);
    let mut ongoing = false;
    for task_id in 20001..20006 {
        let report = client
            .site_report(task_id, DateRange::today(), Monitor::All)
            .await
            .unwrap();
        ongoing |= report
            .points
            .values()
            .filter_map(|p| p.fault.as_ref())
            .flat_map(|f| f.records.values())
            .any(|r| matches!(&r.end_time, FaultEnd::Ongoing(text) if !text.is_empty()));
    }
    assert!(ongoing);
}

#[tokio::test]
async fn distribution_counts_every_check() {
    let emu = emulator().await;
    let client = client(&emu);
    let day = Utc::now().date_naive() - Days::days(1);
    let dist = client
        .response_time_distribution(20001, DateRange::on(day))
        .await
        .unwrap();
    assert!(!dist.buckets.is_empty());
    let mut percent = 0.0;
    for (lower, bucket) in &dist.buckets {
        assert_eq!(*lower, bucket.start);
        assert!(bucket.end > bucket.start);
        assert!(bucket.count > 0);
        percent += bucket.percent;
    }
    assert!((percent - 100.0).abs() < 0.1, "{percent}");
    let total: u64 = dist.buckets.values().map(|b| b.count).sum();
    let site = client
        .site_report(20001, DateRange::on(day), Monitor::Average)
        .await
        .unwrap();
    assert_eq!(total as usize, site.points[&0].resptime.len());
}

#[tokio::test]
async fn create_server_tasks_returns_increasing_ids_and_stores_them() {
    let emu = emulator().await;
    let client = client(&emu);
    let linux = ServerTask::new("web-01", "192.168.1.10", "203.0.113.10", SystemType::Linux);
    let mut windows = ServerTask::new("win-01", "192.168.1.11", "2001:db8::11", SystemType::Windows);
    windows.snmp_v = monapi::SnmpVersion::V3;
    windows.snmp_user = "monitor".into();
    windows.snmp_pass = "s3cret-phrase".into();
    let created = client.create_server_tasks(&[linux, windows]).await.unwrap();
    assert_eq!(created.len(), 2);
    assert!(created[1].task_id > created[0].task_id);
    let stored = emu.server_tasks();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0]["server_name"], "web-01");
    assert_eq!(stored[1]["task_type"][0], "cpu_windows");
    let again = client
        .create_server_tasks(&[ServerTask::new(
            "web-02",
            "10.0.0.2",
            "10.0.0.2",
            SystemType::Linux,
        )])
        .await
        .unwrap();
    assert!(again[0].task_id > created[1].task_id);
}

#[tokio::test]
async fn faithful_form_is_byte_for_byte_what_the_service_sent() {
    let emu = emulator().await;
    let client = client(&emu);
    let day = Utc::now().date_naive() - Days::days(2);
    let request = Request::SiteReport {
        task_id: 20002,
        range: DateRange::on(day),
        monitor: Monitor::All,
    };
    let raw = client.execute(&request).await.unwrap();
    let token = client.token().unwrap();
    let url = format!(
        "{}/v2/site/report/20002.json?start_date={day}&end_date={day}&access_token={}",
        emu.base_url(),
        token.access_token.expose()
    );
    let direct = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    assert_eq!(raw.body(), &direct);
    let value: serde_json::Value = raw.json().unwrap();
    let direct_value: serde_json::Value = serde_json::from_slice(&direct).unwrap();
    assert_eq!(value, direct_value);
    // Key order is kept too.
    assert_eq!(
        serde_json::to_vec(&value).unwrap(),
        serde_json::to_vec(&direct_value).unwrap()
    );
}

#[tokio::test]
async fn unknown_task_is_an_api_error_with_the_service_code() {
    let emu = emulator().await;
    let err = client(&emu)
        .service_report(999_999, DateRange::today())
        .await
        .unwrap_err();
    match &err {
        Error::Api {
            status,
            code,
            message,
            ..
        } => {
            assert_eq!((*status, *code), (404, Some(404)));
            assert!(message.contains("999999"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.kind(), monapi::ErrorKind::Api);
}
