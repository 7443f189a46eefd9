//! The service's empty answers, shaped as PHP writes them (the emulator's quirks), arrive in one
//! shape: a last page of `[]`, `{}` or `null` ends the task list, any other non-list is a
//! decode error; keyed maps written `[]` are empty maps. The Python, Node and CLI suites feed
//! the same answers.

use crate::common::*;
use futures::TryStreamExt;
use monapi::{DateRange, ErrorKind, Monitor, Request};
use monapi_emulator::{Config, PastEndPage, Quirks};

/// Two full pages, so that the iteration asks for the page past the end (page 3).
async fn two_full_pages(past_end_page: PastEndPage) -> monapi_emulator::Emulator {
    emulator_with(Config {
        service_tasks: 100,
        quirks: Quirks {
            past_end_page,
            ..Quirks::default()
        },
        ..Config::default()
    })
    .await
}

#[tokio::test]
async fn an_empty_last_page_ends_the_list_however_it_is_written() {
    for past_end_page in [PastEndPage::Array, PastEndPage::Object, PastEndPage::Null] {
        let emu = two_full_pages(past_end_page).await;
        let client = client(&emu);
        let tasks: Vec<_> = client.service_tasks_all().try_collect().await.unwrap();
        assert_eq!(tasks.len(), 100, "{past_end_page:?}");
        assert_eq!(emu.counters().service_tasks, 3, "{past_end_page:?}");
        assert!(client.service_tasks(3).await.unwrap().is_empty());
        let page = client.service_task_page(3).await.unwrap();
        assert_eq!((page.len(), page.next()), (0, None));
        // The faithful form too is a list.
        let raw: serde_json::Value = client
            .execute(&Request::ServiceTasks { page: 3 })
            .await
            .unwrap()
            .json()
            .unwrap();
        assert_eq!(raw, serde_json::json!([]), "{past_end_page:?}");
    }
}

#[tokio::test]
async fn a_last_page_that_is_an_object_is_a_decode_error() {
    let emu = two_full_pages(PastEndPage::Status).await;
    let client = client(&emu);
    let err = client
        .service_tasks_all()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_eq!((err.kind(), err.code()), (ErrorKind::Decode, "DECODE"));
    assert_eq!(err.endpoint().unwrap().as_str(), "GET /v2/service/lists.json");
    assert!(err.to_string().contains("expected a list of tasks"), "{err}");
    assert_eq!(client.service_tasks(3).await.unwrap_err().code(), "DECODE");
}

#[tokio::test]
async fn keyed_maps_written_as_empty_lists_are_empty_maps() {
    let emu = emulator_with(Config {
        quirks: Quirks {
            no_agents: true,
            no_checks: true,
            ..Quirks::default()
        },
        ..Config::default()
    })
    .await;
    let client = client(&emu);
    let day = DateRange::parse(Some("2026-11-01"), Some("2026-11-01")).unwrap();
    assert!(client.agents().await.unwrap().is_empty());
    assert!(client.service_report(10001, day).await.unwrap().series.is_empty());
    assert!(client
        .response_time_distribution(20001, day)
        .await
        .unwrap()
        .buckets
        .is_empty());
    let site = client.site_report(20001, day, Monitor::All).await.unwrap();
    assert!(site.points.len() >= 2);
    for point in site.points.values() {
        assert!(point.uprate.is_empty() && point.resptime.is_empty() && point.fault.is_none());
    }
    // The faithful forms hold objects where the service's documentation describes them.
    let faithful = |request: Request| {
        let client = client.clone();
        async move {
            let value: serde_json::Value = client.execute(&request).await.unwrap().json().unwrap();
            value
        }
    };
    assert_eq!(faithful(Request::Agents).await, serde_json::json!({}));
    let report = faithful(Request::ServiceReport {
        task_id: 10001,
        range: day,
    })
    .await;
    assert_eq!(report, serde_json::json!({}));
    let distribution = faithful(Request::ResponseTimeDistribution {
        task_id: 20001,
        range: day,
    })
    .await;
    assert_eq!(distribution, serde_json::json!({}));
    let site = faithful(Request::SiteReport {
        task_id: 20001,
        range: day,
        monitor: Monitor::Average,
    })
    .await;
    assert_eq!(
        site,
        serde_json::json!({"0": {"name": "平均", "uprate": {}, "fault": {}, "resptime": {}}})
    );
    // A call of request() is handed back as sent.
    let raw = faithful(Request::raw(monapi::Method::Get, "/v2/agent/lists.json")).await;
    assert_eq!(raw, serde_json::json!([]));
}
