//! The operations the spec names without describing them: the site task list and a site
//! task's settings, the monitoring points, the users and groups, and service task creation.

use crate::common::*;
use futures::TryStreamExt;
use monapi::table::arrow_array::{Array, RecordBatch};
use monapi::table::{BulkOptions, TaskIds};
use monapi::{DateRange, ErrorKind, Monitor, NewServiceTask, Request, ServiceType, TaskList, PAGE_SIZE};
use monapi_emulator::{Config, PastEndPage, Quirks};
use serde_json::Value;

fn sites(count: usize) -> Config {
    Config {
        site_tasks: count,
        ..Config::default()
    }
}

#[tokio::test]
async fn the_site_task_list_page_by_page_and_whole() {
    let emu = emulator_with(sites(120)).await;
    let client = client(&emu);
    let mut paged = Vec::new();
    for (page, expected) in [(1, PAGE_SIZE), (2, PAGE_SIZE), (3, 20)] {
        let tasks = client.site_tasks(page).await.unwrap();
        assert_eq!(tasks.len(), expected, "page {page}");
        paged.extend(tasks);
    }
    let all: Vec<_> = client.site_tasks_all().try_collect().await.unwrap();
    assert_eq!(all, paged);
    let ids: Vec<u64> = all.iter().map(|t| t.task_id).collect();
    assert_eq!(ids, (20001..=20120).collect::<Vec<_>>());
    // Typed from strings, with the Chinese text as sent.
    let first = &all[0];
    assert_eq!((first.frequency, first.task_status.as_str()), (Some(5), "启用"));
    assert!(first.last_resp_time.is_some_and(|ms| ms > 0.0));
    assert_eq!(first.task_type, "http");
    // 3 pages above, 3 for the stream (the short third page ends it).
    assert_eq!(emu.counters().site_tasks, 6);
}

#[tokio::test]
async fn a_site_list_ending_on_a_full_page_ends_at_any_empty_page() {
    let emu = emulator_with(sites(100)).await;
    let client = client(&emu);
    for past_end_page in [PastEndPage::Array, PastEndPage::Object, PastEndPage::Null] {
        emu.set_quirks(Quirks {
            past_end_page,
            ..Quirks::default()
        });
        assert!(
            client.site_tasks(3).await.unwrap().is_empty(),
            "{past_end_page:?}"
        );
        let all: Vec<_> = client.site_tasks_all().try_collect().await.unwrap();
        assert_eq!(all.len(), 100, "{past_end_page:?}");
        let page = client.task_page(TaskList::Site, 3).await.unwrap();
        assert_eq!((page.len(), page.next()), (0, None));
        assert_eq!(page.records().body().as_ref(), b"[]");
    }
}

#[tokio::test]
async fn keyed_lists_read_as_the_lists() {
    let emu = emulator_with(sites(60)).await;
    let client = client(&emu);
    let sites: Vec<_> = client.site_tasks_all().try_collect().await.unwrap();
    let (monitors, users, groups) = (
        client.monitors().await.unwrap(),
        client.users().await.unwrap(),
        client.user_groups().await.unwrap(),
    );
    emu.set_quirks(Quirks {
        keyed_lists: true,
        ..Quirks::default()
    });
    let keyed = client.execute(&Request::SiteTasks { page: 1 }).await.unwrap();
    let body: Value = keyed.json().unwrap();
    assert_eq!(body.as_object().unwrap().len(), PAGE_SIZE, "sent as an object");
    let page = client.task_page(TaskList::Site, 1).await.unwrap();
    assert_eq!((page.len(), page.next()), (PAGE_SIZE, Some(2)));
    let again: Vec<_> = client.site_tasks_all().try_collect().await.unwrap();
    assert_eq!(again, sites);
    assert_eq!(client.monitors().await.unwrap(), monitors);
    assert_eq!(client.users().await.unwrap(), users);
    assert_eq!(client.user_groups().await.unwrap(), groups);
    let table = client.tables().site_tasks().await.unwrap();
    assert_eq!(table.num_rows(), 60);
}

#[tokio::test]
async fn a_site_tasks_settings_name_the_points_of_its_reports() {
    let emu = emulator().await;
    let client = client(&emu);
    let task = client.site_task(20003).await.unwrap();
    assert_eq!((task.task_id, task.frequency), (20003, Some(15)));
    // Fields not in the model are kept as sent.
    let points = task.extra["monitors"].as_array().unwrap();
    let report = client
        .site_report(20003, DateRange::today(), Monitor::All)
        .await
        .unwrap();
    let mut reported: Vec<u32> = report
        .points
        .keys()
        .filter(|id| **id != 0)
        .map(|id| *id as u32)
        .collect();
    let mut listed: Vec<u32> = points
        .iter()
        .map(|p| p["monitor_id"].as_str().unwrap().parse().unwrap())
        .collect();
    reported.sort_unstable();
    listed.sort_unstable();
    assert_eq!(listed, reported);
    // Every one of them is a point of the account.
    let account: Vec<u32> = client
        .monitors()
        .await
        .unwrap()
        .iter()
        .map(|p| p.monitor_id)
        .collect();
    assert!(listed.iter().all(|id| account.contains(id)));
    let missing = client.site_task(20999).await.unwrap_err();
    assert_eq!((missing.kind(), missing.status()), (ErrorKind::Api, Some(404)));
    assert_eq!(
        client.site_task(0).await.unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[tokio::test]
async fn points_users_and_groups_typed_and_faithful() {
    let emu = emulator().await;
    let client = client(&emu);
    let points = client.monitors().await.unwrap();
    assert_eq!(points.len(), 8);
    assert_eq!(
        (
            points[0].monitor_id,
            points[0].monitor_name.as_str(),
            points[0].isp_name.as_str()
        ),
        (1, "北京电信", "电信")
    );
    let users = client.users().await.unwrap();
    let ids: Vec<u64> = users.iter().map(|u| u.user_id).collect();
    assert_eq!(ids, [101, 102, 103, 104]);
    assert_eq!(users[0].user_email, "test@example.com");
    assert_eq!((users[0].user_status, users[0].role_id), (Some(1), Some(1)));
    assert_eq!(users[1].organization.len(), 2);
    let groups = client.user_groups().await.unwrap();
    assert_eq!(groups.len(), 3);
    // The faithful form is the service's text, byte for byte.
    for request in [Request::Monitors, Request::Users, Request::UserGroups] {
        let raw = client.execute(&request).await.unwrap();
        let value: Value = raw.json().unwrap();
        assert!(value.is_array(), "{request:?}");
        assert!(!raw.body().is_empty());
    }
}

/// One column of a table, as JSON values (null where null).
fn column(batch: &RecordBatch, name: &str) -> Vec<Value> {
    rows::rows(batch)
        .into_iter()
        .map(|row| row[name].clone())
        .collect()
}

#[tokio::test]
async fn the_site_task_and_point_tables_hold_the_typed_values() {
    let emu = emulator_with(sites(7)).await;
    let client = client(&emu);
    let tasks: Vec<_> = client.site_tasks_all().try_collect().await.unwrap();
    let table = client.tables().site_tasks().await.unwrap();
    assert_eq!(
        table.schema(),
        monapi::table::site_tasks_schema(client.timezone())
    );
    assert_eq!(table.num_rows(), 7);
    let expect = |value: fn(&monapi::SiteTask) -> Value| tasks.iter().map(value).collect::<Vec<_>>();
    assert_eq!(column(&table, "task_id"), expect(|t| t.task_id.into()));
    assert_eq!(column(&table, "frequency"), expect(|t| t.frequency.into()));
    assert_eq!(
        column(&table, "last_resp_time"),
        expect(|t| t.last_resp_time.into())
    );
    assert_eq!(
        column(&table, "task_type"),
        expect(|t| t.task_type.clone().into())
    );
    assert_eq!(
        column(&table, "task_summary"),
        expect(|t| t.task_summary.clone().into())
    );
    assert_eq!(
        column(&table, "threshold_result"),
        expect(|t| t.threshold_result.into())
    );
    let checked = table.column_by_name("last_check_time").unwrap();
    assert_eq!(checked.null_count(), 0);

    let points = client.tables().monitors().await.unwrap();
    assert_eq!(points.schema(), monapi::table::monitors_schema());
    assert_eq!(points.num_rows(), 8);
    assert_eq!(column(&points, "china_region")[0], "华北");
    assert_eq!(column(&points, "isp_id")[2], 3);
}

#[test]
fn fields_the_service_leaves_out_are_nulls() {
    let json = r#"[{"task_id":"7","task_name":"","frequency":""},{"task_id":8,"task_type":"ping","last_resp_time":12.5}]"#;
    let tasks: Vec<monapi::SiteTask> = serde_json::from_str(json).unwrap();
    let table = monapi::table::site_tasks(&tasks, monapi::SERVICE_TIMEZONE);
    assert_eq!(column(&table, "task_name"), [Value::Null, Value::Null]);
    assert_eq!(column(&table, "task_type"), [Value::Null, "ping".into()]);
    assert_eq!(column(&table, "last_resp_time"), [Value::Null, 12.5.into()]);
    let frequency = table.column_by_name("frequency").unwrap();
    assert_eq!(frequency.null_count(), 2);
    let group = table.column_by_name("group_id").unwrap();
    assert_eq!(group.null_count(), 2);
}

#[tokio::test]
async fn every_site_equals_the_single_calls() {
    let emu = emulator_with(sites(7)).await;
    let client = client(&emu);
    let range = DateRange::parse(Some("2026-03-01"), Some("2026-03-02")).unwrap();
    let every = client
        .tables()
        .site_reports(TaskIds::All, range, Monitor::All, BulkOptions::new())
        .await
        .unwrap();
    assert!(every.failures.is_empty());
    let ids: Vec<u64> = every.tables.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (20001..=20007).collect::<Vec<_>>());
    for (task_id, tables) in &every.tables {
        let single = client
            .tables()
            .site_report(*task_id, range, Monitor::All)
            .await
            .unwrap();
        assert_eq!(tables.availability, single.availability, "{task_id}");
        assert_eq!(tables.response_time, single.response_time, "{task_id}");
        assert_eq!(tables.faults, single.faults, "{task_id}");
    }
}

/// The fixture batch of service tasks, read by the core's rules.
fn fixture_batch() -> Vec<NewServiceTask> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/service_create_request.json"
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    NewServiceTask::batch_from_json(json).unwrap()
}

#[tokio::test]
async fn service_tasks_are_created_and_stored_as_sent() {
    let emu = emulator().await;
    let client = client(&emu);
    let batch = fixture_batch();
    let created = client.create_service_tasks(&batch).await.unwrap();
    let ids: Vec<String> = created.iter().map(|c| c.task_id.to_string()).collect();
    assert_eq!(ids, ["200001", "200002"]);
    let stored = emu.created_service_tasks();
    for (task, stored) in batch.iter().zip(&stored) {
        for (field, value) in task.to_json() {
            assert_eq!(stored[&field], value, "{field}");
        }
    }
    // Defaults of the core for the fields left out.
    let mut nginx = NewServiceTask::new("web", ServiceType::Nginx);
    nginx.status_url = Some("https://www.example.com/status".into());
    client.create_service_tasks(&[nginx]).await.unwrap();
    let stored = emu.created_service_tasks();
    assert_eq!(stored[2]["frequency"], "5");
    assert_eq!(stored[2]["alert_setting"]["scope"], "3");
}

#[tokio::test]
async fn a_service_create_is_never_sent_twice_once_it_may_have_arrived() {
    let emu = emulator().await;
    let client = client(&emu);
    client.login().await.unwrap();
    emu.set_faults(monapi_emulator::Faults {
        next: vec![monapi_emulator::FaultKind::Error503],
        ..Default::default()
    })
    .unwrap();
    let err = client.create_service_tasks(&fixture_batch()).await.unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(emu.counters().create_service, 1);
    // A rejected token is refused before the service runs the create: renewed, sent again, once.
    emu.expire_tokens();
    let created = client.create_service_tasks(&fixture_batch()).await.unwrap();
    assert_eq!(created.len(), 2);
    assert_eq!(emu.counters().create_service, 3);
    assert_eq!(emu.created_service_tasks().len(), 2);
}

#[tokio::test]
async fn a_partly_refused_service_batch_names_the_lines() {
    let emu = emulator().await;
    let client = client(&emu);
    let mut batch = fixture_batch();
    batch[1].use_agent = true;
    batch[1].plugin_task_uselist_id = vec!["999999".into()];
    let err = client.create_service_tasks(&batch).await.unwrap_err();
    let monapi::Error::PartialCreate(partial) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(partial.endpoint, monapi::Endpoint::CreateServiceTasks);
    assert_eq!((partial.failed_indices.clone(), partial.created()), (vec![1], 1));
    assert!(err.to_string().contains("create service tasks"), "{err}");
    assert_eq!(emu.created_service_tasks().len(), 1);
}
