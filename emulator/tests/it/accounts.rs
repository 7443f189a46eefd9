//! The operations the spec only names: the site task list and a site task's settings, the
//! monitoring points, the users and the user groups, as lists and as PHP keyed arrays.

use std::collections::BTreeSet;

use monapi_emulator::{Config, PastEndPage, Quirks};
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::*;

fn ids(records: &[Value], field: &str) -> Vec<u64> {
    records
        .iter()
        .map(|r| r[field].as_str().unwrap().parse().unwrap())
        .collect()
}

/// The records of a list, or of a keyed array (checking each key is its record's id).
fn records(body: &Value, id: &str) -> Vec<Value> {
    match body {
        Value::Array(items) => items.clone(),
        Value::Object(keyed) => keyed
            .iter()
            .map(|(key, record)| {
                assert_eq!(record[id].as_str(), Some(key.as_str()));
                record.clone()
            })
            .collect(),
        other => panic!("not a list: {other}"),
    }
}

#[tokio::test]
async fn the_site_task_list_is_paged_by_fifty() {
    let env = start_with(Config {
        site_tasks: 120,
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let mut all = Vec::new();
    for (page, expected) in [("1", 50), ("2", 50), ("3", 20)] {
        let reply = env
            .get_auth(&token, "/v2/site/lists.json", &[("page", page)])
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
        let page = reply.json.as_array().unwrap();
        assert_eq!(page.len(), expected);
        assert!(page.iter().all(all_leaves_strings));
        all.extend(page.iter().cloned());
    }
    assert_eq!(ids(&all, "task_id"), (20001..=20120).collect::<Vec<_>>());
    // Without a page, the first.
    let first = env.get_auth(&token, "/v2/site/lists.json", &[]).await;
    assert_eq!(first.json.as_array().unwrap()[0], all[0]);
    // Past the last page, as the quirk says; a bad page is a 400.
    for (quirk, body) in [
        (PastEndPage::Array, "[]"),
        (PastEndPage::Object, "{}"),
        (PastEndPage::Null, "null"),
    ] {
        env.emu.set_quirks(Quirks {
            past_end_page: quirk,
            ..Quirks::default()
        });
        let reply = env
            .get_auth(&token, "/v2/site/lists.json", &[("page", "4")])
            .await;
        assert_eq!(&reply.bytes[..], body.as_bytes());
    }
    let bad = env
        .get_auth(&token, "/v2/site/lists.json", &[("page", "0")])
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    // The fields of the API's other generations, with the values PHP sends.
    let task = &all[0];
    for field in [
        "task_id",
        "task_name",
        "task_summary",
        "task_type",
        "task_create_time",
        "frequency",
        "task_status",
        "group_id",
        "last_resp_time",
        "last_resp_result",
        "last_resp_status",
        "threshold_result",
        "last_check_time",
    ] {
        assert!(task.get(field).is_some(), "{field} missing from {task}");
    }
    assert_eq!(task["frequency"], "5");
}

#[tokio::test]
async fn every_listed_site_task_has_reports_and_settings() {
    let env = start().await;
    let token = env.login().await;
    let list = env.get_auth(&token, "/v2/site/lists.json", &[]).await.json;
    let tasks = list.as_array().unwrap();
    assert_eq!(tasks.len(), 5);
    let points = env.get_auth(&token, "/v2/site/monitors.json", &[]).await.json;
    let points = records(&points, "monitor_id");
    let known: BTreeSet<(String, String)> = points
        .iter()
        .map(|p| {
            (
                p["monitor_id"].as_str().unwrap().into(),
                p["monitor_name"].as_str().unwrap().into(),
            )
        })
        .collect();
    for task in tasks {
        let id = task["task_id"].as_str().unwrap();
        let report = env
            .get_auth(&token, &format!("/v2/site/report/{id}.json"), &[])
            .await;
        assert_eq!(report.status, StatusCode::OK, "site {id}");
        let info = env
            .get_auth(&token, &format!("/v2/site/info/{id}.json"), &[])
            .await;
        assert_eq!(info.status, StatusCode::OK);
        // The settings repeat the listed fields and name the points the reports use.
        for (field, value) in task.as_object().unwrap() {
            assert_eq!(&info.json[field], value, "{field}");
        }
        let used: BTreeSet<(String, String)> = info.json["monitors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["monitor_id"].as_str().unwrap().into(),
                    p["monitor_name"].as_str().unwrap().into(),
                )
            })
            .collect();
        let reported: BTreeSet<(String, String)> = report
            .json
            .as_object()
            .unwrap()
            .iter()
            .filter(|(key, _)| *key != "0")
            .map(|(key, point)| (key.clone(), point["name"].as_str().unwrap().into()))
            .collect();
        assert_eq!(used, reported, "site {id}");
        assert!(used.is_subset(&known), "site {id}");
    }
    let missing = env.get_auth(&token, "/v2/site/info/20006.json", &[]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn users_and_groups_are_the_ids_tasks_name() {
    let env = start().await;
    let token = env.login().await;
    let users = env.get_auth(&token, "/v2/user/lists.json", &[]).await;
    assert_eq!(users.status, StatusCode::OK);
    let users = records(&users.json, "user_id");
    assert_eq!(ids(&users, "user_id"), [101, 102, 103, 104]);
    assert_eq!(users[0]["user_email"], "test@example.com");
    for field in [
        "user_name",
        "user_status",
        "mobile",
        "telephone",
        "signup_time",
        "last_visit_time",
        "role_id",
    ] {
        assert!(users[0][field].is_string(), "{field}");
    }
    let groups = env.get_auth(&token, "/v2/user/organization.json", &[]).await.json;
    let groups = records(&groups, "organization_id");
    assert_eq!(ids(&groups, "organization_id"), [1, 2, 3]);
    // Each group counts the users naming it.
    for group in &groups {
        let id = &group["organization_id"];
        let members = users
            .iter()
            .filter(|u| {
                u["organization"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|o| &o["organization_id"] == id)
            })
            .count();
        assert_eq!(group["user_num"], members.to_string());
    }
    // A task's alerts may name them.
    let mut line = fixture("service_create_request.json")[0].clone();
    line["alert_setting"] =
        serde_json::json!({"alert": {"email": "102,103"}, "scope": "2", "organization": "2"});
    let reply = env
        .create_service(&token, &Value::Array(vec![line]).to_string())
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

/// The lists that may arrive keyed, with the field of their records' ids.
const LISTS: [(&str, &str); 4] = [
    ("/v2/site/lists.json", "task_id"),
    ("/v2/site/monitors.json", "monitor_id"),
    ("/v2/user/lists.json", "user_id"),
    ("/v2/user/organization.json", "organization_id"),
];

#[tokio::test]
async fn the_keyed_lists_quirk_sends_objects_keyed_by_id() {
    let env = start().await;
    let token = env.login().await;
    let mut lists = Vec::new();
    for (path, _) in LISTS {
        lists.push(env.get_auth(&token, path, &[]).await.json);
    }
    env.emu.set_quirks(Quirks {
        keyed_lists: true,
        ..Quirks::default()
    });
    for ((path, id), list) in LISTS.into_iter().zip(lists) {
        let keyed = env.get_auth(&token, path, &[]).await.json;
        assert!(keyed.is_object(), "{path}: {keyed}");
        assert_eq!(records(&keyed, id), list.as_array().unwrap().clone(), "{path}");
    }
}

#[tokio::test]
async fn site_points_fixes_every_site_tasks_points_and_is_checked() {
    let env = start_with(Config {
        site_tasks: 3,
        site_points: Some(6),
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    for task in ["20001", "20002", "20003"] {
        let report = env
            .get_auth(&token, &format!("/v2/site/report/{task}.json"), &[])
            .await;
        let points: Vec<&String> = report
            .json
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "0")
            .collect();
        assert_eq!(points.len(), 6, "{task}: {points:?}");
    }
    for bad in [0, monapi_emulator::MOST_SITE_POINTS + 1] {
        let config = Config {
            site_points: Some(bad),
            ..Config::default()
        };
        let error = config.check().unwrap_err();
        assert_eq!(error.field(), "site_points");
        assert!(error.rule().contains("from 1 to 8"), "{}", error.rule());
    }
}
