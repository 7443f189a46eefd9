//! `remove_task` / `restore_task` and their hooks: a seeded task taken out of the account
//! leaves its list's pages and answers as an unknown id, until it is restored or a reset.

use monapi_emulator::{Config, PastEndPage, Quirks};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::*;

const SERVICE_LIST: &str = "/v2/service/lists.json";
const SITE_LIST: &str = "/v2/site/lists.json";

async fn page(env: &Env, token: &str, list: &str, page: u32) -> Reply {
    let reply = env.get_auth(token, list, &[("page", &page.to_string())]).await;
    assert_eq!(reply.status, StatusCode::OK, "{list} page {page}: {}", reply.json);
    reply
}

/// The raw bodies of pages 1 to `pages` of a list.
async fn bodies(env: &Env, token: &str, list: &str, pages: u32) -> Vec<bytes::Bytes> {
    let mut bodies = Vec::new();
    for n in 1..=pages {
        bodies.push(page(env, token, list, n).await.bytes);
    }
    bodies
}

fn ids(records: &Value) -> Vec<u64> {
    records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task_id"].as_str().unwrap().parse().unwrap())
        .collect()
}

async fn hook(env: &Env, path: &str, body: &str) -> Reply {
    let response = env
        .http
        .post(env.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    read_reply(response).await
}

/// Every operation that names a task: its path for `id`, and a query.
fn operations(id: u64) -> Vec<(String, Vec<(&'static str, String)>)> {
    let day = yesterday();
    let dates = vec![("start_date", day.clone()), ("end_date", day)];
    vec![
        (format!("/v2/service/report/{id}.json"), dates.clone()),
        (format!("/v2/site/report/{id}.json"), dates.clone()),
        (
            format!("/v2/site/respose_time_distribute/{id}.json"),
            dates.clone(),
        ),
        (format!("/v2/site/info/{id}.json"), Vec::new()),
        // A bad date too: the task id is checked first.
        (
            format!("/v2/service/report/{id}.json"),
            vec![("start_date", "2026-13-01".to_string())],
        ),
        (
            format!("/v2/site/report/{id}.json"),
            vec![("monitor", "x".to_string())],
        ),
    ]
}

async fn get(env: &Env, token: &str, path: &str, query: &[(&'static str, String)]) -> Reply {
    let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.get_auth(token, path, &query).await
}

#[tokio::test]
async fn removed_tasks_leave_their_lists_and_come_back_in_place() {
    let env = start().await;
    let token = env.login().await;
    let services = bodies(&env, &token, SERVICE_LIST, 3).await;
    let sites = bodies(&env, &token, SITE_LIST, 1).await;
    let all: Vec<Value> = services
        .iter()
        .flat_map(|body| serde_json::from_slice::<Vec<Value>>(body).unwrap())
        .collect();

    assert!(env.emu.remove_task(10001).unwrap());
    assert!(!env.emu.remove_task(10001).unwrap(), "removed already");
    let first = page(&env, &token, SERVICE_LIST, 1).await.json;
    assert_eq!(ids(&first), (10002..=10051).collect::<Vec<_>>());
    assert_eq!(first.as_array().unwrap()[..], all[1..51], "the same records");
    assert_eq!(
        ids(&page(&env, &token, SERVICE_LIST, 2).await.json),
        (10052..=10101).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&page(&env, &token, SERVICE_LIST, 3).await.json),
        (10102..=10120).collect::<Vec<_>>(),
        "19 tasks on the last page"
    );
    assert_eq!(&page(&env, &token, SERVICE_LIST, 4).await.bytes[..], b"[]");
    // The site task list is as it was, until a site is removed.
    assert_eq!(bodies(&env, &token, SITE_LIST, 1).await, sites);

    // A second removal further on: the pages after it shift once more.
    assert!(env.emu.remove_task(10060).unwrap());
    assert_eq!(
        ids(&page(&env, &token, SERVICE_LIST, 2).await.json),
        (10052..=10102).filter(|&id| id != 10060).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&page(&env, &token, SERVICE_LIST, 3).await.json),
        (10103..=10120).collect::<Vec<_>>()
    );

    assert!(env.emu.remove_task(20003).unwrap());
    let site_page = page(&env, &token, SITE_LIST, 1).await.json;
    assert_eq!(ids(&site_page), [20001, 20002, 20004, 20005]);
    let original: Vec<Value> = serde_json::from_slice(&sites[0]).unwrap();
    let kept: Vec<Value> = original.into_iter().filter(|r| r["task_id"] != "20003").collect();
    assert_eq!(site_page, Value::Array(kept));

    // Restored: the very bytes of before.
    assert!(env.emu.restore_task(10001).unwrap());
    assert!(env.emu.restore_task(10060).unwrap());
    assert!(env.emu.restore_task(20003).unwrap());
    assert!(!env.emu.restore_task(20003).unwrap(), "present already");
    assert_eq!(bodies(&env, &token, SERVICE_LIST, 3).await, services);
    assert_eq!(bodies(&env, &token, SITE_LIST, 1).await, sites);
}

#[tokio::test]
async fn a_page_emptied_by_removals_is_past_the_end_as_the_quirk_says() {
    let env = start().await;
    let token = env.login().await;
    env.emu.set_quirks(Quirks {
        past_end_page: PastEndPage::Status,
        ..Quirks::default()
    });
    for id in 10101..=10120 {
        assert!(env.emu.remove_task(id).unwrap());
    }
    assert_eq!(
        page(&env, &token, SERVICE_LIST, 2)
            .await
            .json
            .as_array()
            .unwrap()
            .len(),
        50
    );
    let past = page(&env, &token, SERVICE_LIST, 3).await;
    assert_eq!(&past.bytes[..], br#"{"code":0,"msg":"no more data"}"#);
    for id in 20001..=20005 {
        env.emu.remove_task(id).unwrap();
    }
    let sites = page(&env, &token, SITE_LIST, 1).await;
    assert_eq!(&sites.bytes[..], br#"{"code":0,"msg":"no more data"}"#);
}

#[tokio::test]
async fn a_removed_task_answers_as_an_unknown_id() {
    let env = start().await;
    let token = env.login().await;
    for id in [10001, 20002] {
        let before: Vec<Reply> = {
            let mut replies = Vec::new();
            for (path, query) in operations(id) {
                replies.push(get(&env, &token, &path, &query).await);
            }
            replies
        };
        assert!(env.emu.remove_task(id).unwrap());
        let unknown = id + 50_000; // no task of either kind
        for ((path, query), (unknown_path, _)) in operations(id).into_iter().zip(operations(unknown)) {
            let removed = get(&env, &token, &path, &query).await;
            let none = get(&env, &token, &unknown_path, &query).await;
            assert_eq!(none.status, StatusCode::NOT_FOUND, "{unknown_path}");
            assert_eq!(removed.status, none.status, "{path}");
            assert_eq!(removed.header("content-type"), none.header("content-type"));
            let expected = String::from_utf8(none.bytes.to_vec())
                .unwrap()
                .replace(&unknown.to_string(), &id.to_string());
            assert_eq!(removed.bytes, expected, "{path}");
            assert_eq!(
                removed.json,
                json!({"code": 404, "msg": format!("task {id} not found")})
            );
        }
        // Restored: each answer as before (the kind that exists answers 200).
        assert!(env.emu.restore_task(id).unwrap());
        for ((path, query), old) in operations(id).into_iter().zip(before) {
            let reply = get(&env, &token, &path, &query).await;
            assert_eq!((reply.status, &reply.bytes), (old.status, &old.bytes), "{path}");
        }
    }
    // The other tasks answer throughout.
    env.emu.remove_task(20001).unwrap();
    let other = get(&env, &token, "/v2/site/info/20002.json", &[]).await;
    assert_eq!(other.status, StatusCode::OK);
}

#[tokio::test]
async fn reset_restores_every_removed_task() {
    let env = start().await;
    let token = env.login().await;
    let services = bodies(&env, &token, SERVICE_LIST, 3).await;
    let sites = bodies(&env, &token, SITE_LIST, 1).await;
    for id in [10001, 10120, 20001, 20005] {
        env.emu.remove_task(id).unwrap();
    }
    env.emu.reset();
    let token = env.login().await;
    assert_eq!(bodies(&env, &token, SERVICE_LIST, 3).await, services);
    assert_eq!(bodies(&env, &token, SITE_LIST, 1).await, sites);
    assert!(!env.emu.restore_task(20005).unwrap(), "nothing removed any more");
    // Over HTTP too.
    env.emu.remove_task(20001).unwrap();
    assert_eq!(
        env.request(Method::POST, "/_emulator/reset", &[]).await.status,
        StatusCode::OK
    );
    let token = env.login().await;
    assert_eq!(bodies(&env, &token, SITE_LIST, 1).await, sites);
    let info = get(&env, &token, "/v2/site/info/20001.json", &[]).await;
    assert_eq!(info.status, StatusCode::OK);
}

#[tokio::test]
async fn keyed_lists_keys_the_remaining_site_tasks() {
    let env = start_with(Config {
        site_tasks: 60,
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let quirks = Quirks {
        keyed_lists: true,
        ..Quirks::default()
    };
    env.emu.set_quirks(quirks);
    let keyed = bodies(&env, &token, SITE_LIST, 2).await;
    let original: serde_json::Map<String, Value> = [&keyed[0], &keyed[1]]
        .into_iter()
        .flat_map(|body| serde_json::from_slice::<serde_json::Map<String, Value>>(body).unwrap())
        .collect();

    env.emu.remove_task(20002).unwrap();
    let first = page(&env, &token, SITE_LIST, 1).await.json;
    let first = first.as_object().expect("keyed");
    let keys: Vec<u64> = first.keys().map(|k| k.parse().unwrap()).collect();
    let expected: Vec<u64> = (20001..=20051).filter(|&id| id != 20002).collect();
    assert_eq!(keys, expected, "keyed by id, in order, 20051 moved up");
    for (key, record) in first {
        assert_eq!(record["task_id"], json!(key));
        assert_eq!(record, &original[key]);
    }
    let second = page(&env, &token, SITE_LIST, 2).await.json;
    let keys: Vec<&String> = second.as_object().expect("keyed").keys().collect();
    assert_eq!(keys.len(), 9);
    assert_eq!(keys[0], "20052");

    // Without the quirk, the same tasks as a list.
    env.emu.set_quirks(Quirks::default());
    assert_eq!(ids(&page(&env, &token, SITE_LIST, 1).await.json), expected);
    env.emu.set_quirks(quirks);
    env.emu.restore_task(20002).unwrap();
    assert_eq!(bodies(&env, &token, SITE_LIST, 2).await, keyed);
}

#[tokio::test]
async fn what_is_no_seeded_task_is_refused_naming_both_ranges() {
    let env = start().await;
    for id in [0, 10000, 10121, 20000, 20006, 30001, 200_001, u64::MAX] {
        let error = env.emu.remove_task(id).unwrap_err();
        assert_eq!(error.field(), "task_id");
        assert_eq!(
            error.rule(),
            format!("must be a service task (10001 to 10120) or a site task (20001 to 20005), got {id}")
        );
        assert_eq!(env.emu.restore_task(id).unwrap_err(), error);
    }
    let small = start_with(Config {
        service_tasks: 0,
        site_tasks: 1,
        ..Config::default()
    })
    .await;
    assert_eq!(
        small.emu.remove_task(10001).unwrap_err().rule(),
        "must be a service task (this emulator has none) or a site task (this emulator has 20001), got 10001"
    );
}

#[tokio::test]
async fn an_id_of_both_kinds_removes_both() {
    // 10,001 service tasks: ids 10001 to 20001, so 20001 is a service task and a site task.
    let env = start_with(Config {
        service_tasks: 10_001,
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    assert!(env.emu.remove_task(20001).unwrap());
    let day = yesterday();
    let dates = [("start_date", day.as_str()), ("end_date", day.as_str())];
    for path in ["/v2/service/report/20001.json", "/v2/site/report/20001.json"] {
        let reply = env.get_auth(&token, path, &dates).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
    }
    let last = page(&env, &token, SERVICE_LIST, 200).await.json;
    assert_eq!(ids(&last), (19951..=20000).collect::<Vec<_>>());
    assert_eq!(&page(&env, &token, SERVICE_LIST, 201).await.bytes[..], b"[]");
    assert!(env.emu.restore_task(20001).unwrap());
    assert_eq!(ids(&page(&env, &token, SERVICE_LIST, 201).await.json), [20001]);
    assert_eq!(ids(&page(&env, &token, SITE_LIST, 1).await.json)[0], 20001);
}

#[tokio::test]
async fn the_hooks_remove_and_restore_tasks_over_http() {
    let env = start().await;
    let token = env.login().await;
    let removed = hook(&env, "/_emulator/remove_task", r#"{"task_id": 10001}"#).await;
    assert_eq!(removed.status, StatusCode::OK);
    assert_eq!(removed.header("content-type"), Some("application/json"));
    assert_eq!(removed.json, json!({"task_id": 10001, "changed": true}));
    // An id as the service writes it (a string) is taken too; removing again changes nothing.
    let again = hook(&env, "/_emulator/remove_task", r#"{"task_id": "10001"}"#).await;
    assert_eq!(again.json, json!({"task_id": 10001, "changed": false}));
    assert_eq!(ids(&page(&env, &token, SERVICE_LIST, 1).await.json)[0], 10002);
    let site = hook(&env, "/_emulator/remove_task", r#"{"task_id": 20004}"#).await;
    assert_eq!(site.json, json!({"task_id": 20004, "changed": true}));
    let info = get(&env, &token, "/v2/site/info/20004.json", &[]).await;
    assert_eq!(info.status, StatusCode::NOT_FOUND);

    let restored = hook(&env, "/_emulator/restore_task", r#"{"task_id": 10001}"#).await;
    assert_eq!(restored.status, StatusCode::OK);
    assert_eq!(restored.json, json!({"task_id": 10001, "changed": true}));
    let present = hook(&env, "/_emulator/restore_task", r#"{"task_id": 10001}"#).await;
    assert_eq!(present.json, json!({"task_id": 10001, "changed": false}));
    assert_eq!(ids(&page(&env, &token, SERVICE_LIST, 1).await.json)[0], 10001);

    // An id that is no seeded task: a 404 naming it; a bad body: a 400 naming the field.
    for (path, id) in [
        ("/_emulator/remove_task", "99999"),
        ("/_emulator/restore_task", "200001"),
    ] {
        let reply = hook(&env, path, &format!(r#"{{"task_id": {id}}}"#)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        let rule =
            format!("must be a service task (10001 to 10120) or a site task (20001 to 20005), got {id}");
        assert_eq!(
            reply.json,
            json!({"error": format!("task_id: {rule}"), "field": "task_id", "rule": rule})
        );
    }
    let bad = [
        (
            r#"{"task_id": "abc"}"#,
            "must be a task id, a number such as 10001, got \"abc\"",
        ),
        (
            r#"{"task_id": -1}"#,
            "must be a task id, a number such as 10001, got -1",
        ),
        (
            r#"{"task_id": null}"#,
            "must be a task id, a number such as 10001, got null",
        ),
        (r#"{}"#, "missing: the task to remove or restore"),
        ("", "the body must be a JSON object {\"task_id\": 10001}"),
        ("[10001]", "the body must be a JSON object {\"task_id\": 10001}"),
    ];
    for (body, rule) in bad {
        for path in ["/_emulator/remove_task", "/_emulator/restore_task"] {
            let reply = hook(&env, path, body).await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path} {body}");
            assert_eq!(
                reply.json,
                json!({"error": format!("task_id: {rule}"), "field": "task_id", "rule": rule}),
                "{path} {body}"
            );
        }
    }
    let unknown = hook(&env, "/_emulator/remove_task", r#"{"task_id": 10002, "x": 1}"#).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert_eq!(unknown.json["field"], "x");
    // Refused bodies removed nothing; only 20004 is still out.
    assert_eq!(
        ids(&page(&env, &token, SERVICE_LIST, 1).await.json)[..2],
        [10001, 10002]
    );
    assert_eq!(
        ids(&page(&env, &token, SITE_LIST, 1).await.json),
        [20001, 20002, 20003, 20005]
    );
    assert!(env.emu.restore_task(20004).unwrap());
}
