//! Quirks: answers shaped as the real service's PHP writes them, set at start, by method and
//! over the hook; the default answers stay as they are.

use monapi_emulator::{Config, PastEndPage, Quirks};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::*;

const PAST_END_BODIES: [(PastEndPage, &str, &str); 4] = [
    (PastEndPage::Array, "array", "[]"),
    (PastEndPage::Object, "object", "{}"),
    (PastEndPage::Null, "null", "null"),
    (
        PastEndPage::Status,
        "status",
        r#"{"code":0,"msg":"no more data"}"#,
    ),
];

const DAY: [(&str, &str); 2] = [("start_date", "2026-03-01"), ("end_date", "2026-03-01")];

#[tokio::test]
async fn a_page_past_the_end_is_each_shape_asked_for() {
    let env = start().await;
    let token = env.login().await;
    assert_eq!(env.emu.quirks(), Quirks::default());
    for (past_end_page, name, body) in PAST_END_BODIES {
        env.emu.set_quirks(Quirks {
            past_end_page,
            ..Quirks::default()
        });
        for n in ["4", "99"] {
            let reply = env
                .get_auth(&token, "/v2/service/lists.json", &[("page", n)])
                .await;
            assert_eq!(reply.status, StatusCode::OK, "{name}");
            assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
            assert_eq!(&reply.bytes[..], body.as_bytes(), "{name}, page {n}");
        }
        // Pages that exist are untouched: 50, 50, 20 tasks.
        for (n, len) in [("1", 50), ("3", 20)] {
            let reply = env
                .get_auth(&token, "/v2/service/lists.json", &[("page", n)])
                .await;
            assert_eq!(reply.json.as_array().unwrap().len(), len, "{name}");
        }
        assert_eq!(name.parse::<PastEndPage>().unwrap(), past_end_page);
        assert_eq!(past_end_page.body(), body);
    }
}

#[tokio::test]
async fn an_account_without_service_tasks_answers_page_one_with_the_quirk() {
    let env = start_with(Config {
        service_tasks: 0,
        quirks: Quirks {
            past_end_page: PastEndPage::Null,
            ..Quirks::default()
        },
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let reply = env.get_auth(&token, "/v2/service/lists.json", &[]).await;
    assert_eq!(&reply.bytes[..], b"null");
}

#[tokio::test]
async fn an_account_without_agents_gets_php_s_empty_array_and_no_plugins() {
    let env = start_with(Config {
        quirks: Quirks {
            no_agents: true,
            ..Quirks::default()
        },
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(&reply.bytes[..], b"[]");
    // The plugins of the agents the account would otherwise have are refused; a task
    // without plugins is created.
    let mut with_plugin = fixture("create_request.json")[0].clone();
    with_plugin["use_agent"] = json!("1");
    with_plugin["plugin_task_uselist_id"] = json!("9001");
    let without_plugin = fixture("create_request.json")[0].clone();
    let reply = env
        .create(&token, &json!([with_plugin, without_plugin]).to_string())
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.json,
        json!({"err_key": "0", "err_content": "plugin_task_uselist_id 9001 is not a plugin of this account"})
    );
    assert_eq!(env.emu.server_tasks().len(), 1);
    // Back to the agents: the same plugin is accepted.
    env.emu.set_quirks(Quirks::default());
    let agents = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(agents.json.as_object().unwrap().len(), 3);
    let reply = env.create(&token, &json!([with_plugin]).to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

#[tokio::test]
async fn reports_without_checks_are_written_as_php_does() {
    let env = start().await;
    let token = env.login().await;
    let default_site = env
        .get_auth(&token, "/v2/site/report/20001.json", &DAY)
        .await
        .json;
    env.emu.set_quirks(Quirks {
        no_checks: true,
        ..Quirks::default()
    });
    for path in [
        "/v2/service/report/10001.json",
        "/v2/service/report/10077.json",
        "/v2/site/respose_time_distribute/20003.json",
    ] {
        for query in [&DAY[..], &[]] {
            let reply = env.get_auth(&token, path, query).await;
            assert_eq!(reply.status, StatusCode::OK, "{path}");
            assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
            assert_eq!(&reply.bytes[..], b"[]", "{path}");
        }
    }
    // A site report keeps its points, in order, names included; their maps are `[]`.
    let reply = env.get_auth(&token, "/v2/site/report/20001.json", &DAY).await;
    assert_eq!(reply.status, StatusCode::OK);
    let points = reply.json.as_object().unwrap();
    let default_points = default_site.as_object().unwrap();
    assert_eq!(
        points.keys().collect::<Vec<_>>(),
        default_points.keys().collect::<Vec<_>>()
    );
    for (id, point) in points {
        assert_eq!(
            point,
            &json!({"name": default_points[id]["name"], "uprate": [], "fault": [], "resptime": []}),
            "point {id}"
        );
    }
    let text = std::str::from_utf8(&reply.bytes).unwrap();
    assert!(
        text.starts_with(r#"{"0":{"name":"平均","uprate":[],"fault":[],"resptime":[]},"#),
        "{text}"
    );
    // `monitor` still picks the points.
    let average = env
        .get_auth(&token, "/v2/site/report/20001.json", &[("monitor", "0")])
        .await;
    assert_eq!(
        average.json,
        json!({"0": {"name": "平均", "uprate": [], "fault": [], "resptime": []}})
    );
    let point = points.keys().nth(1).unwrap();
    let one = env
        .get_auth(&token, "/v2/site/report/20001.json", &[("monitor", point)])
        .await;
    assert_eq!(one.json.as_object().unwrap().keys().collect::<Vec<_>>(), [point]);
    // Errors come first, as without the quirk.
    for (path, query, status) in [
        ("/v2/service/report/99999.json", &[][..], StatusCode::NOT_FOUND),
        (
            "/v2/site/report/20001.json",
            &[("monitor", "77")],
            StatusCode::BAD_REQUEST,
        ),
        (
            "/v2/site/respose_time_distribute/20001.json",
            &[("start_date", "2026-13-01")],
            StatusCode::BAD_REQUEST,
        ),
        (
            "/v2/service/report/10001.json",
            &[("start_date", "2026-03-02"), ("end_date", "2026-03-01")],
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let reply = env.get_auth(&token, path, query).await;
        assert_eq!(reply.status, status, "{path} {query:?}");
        assert!(reply.json["msg"].is_string());
    }
    assert_eq!(
        env.get("/v2/service/report/10001.json", &[]).await.status,
        StatusCode::UNAUTHORIZED
    );
    // Off again: the data is back, byte for byte.
    env.emu.set_quirks(Quirks::default());
    let back = env.get_auth(&token, "/v2/site/report/20001.json", &DAY).await;
    assert_eq!(back.json, default_site);
}

#[tokio::test]
async fn the_hook_sets_and_shows_the_quirks_and_refuses_bad_ones() {
    let env = start().await;
    let token = env.login().await;
    let reply = env.put_config(&json!({"latency_ms": 0})).await;
    assert_eq!(
        reply.json["quirks"],
        json!({"past_end_page": "array", "no_agents": false, "no_checks": false, "keyed_lists": false, "rotating_refresh_tokens": false})
    );
    let reply = env
        .put_config(&json!({"quirks": {"past_end_page": "status", "no_agents": true}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.json["quirks"],
        json!({"past_end_page": "status", "no_agents": true, "no_checks": false, "keyed_lists": false, "rotating_refresh_tokens": false})
    );
    assert_eq!(
        env.emu.quirks(),
        Quirks {
            past_end_page: PastEndPage::Status,
            no_agents: true,
            ..Quirks::default()
        }
    );
    let page = env
        .get_auth(&token, "/v2/service/lists.json", &[("page", "9")])
        .await;
    assert_eq!(page.json, json!({"code": 0, "msg": "no more data"}));
    assert_eq!(
        &env.get_auth(&token, "/v2/agent/lists.json", &[]).await.bytes[..],
        b"[]"
    );
    // `quirks` replaces every quirk: those left out are back to their default.
    let reply = env.put_config(&json!({"quirks": {"no_checks": true}})).await;
    assert_eq!(
        reply.json["quirks"],
        json!({"past_end_page": "array", "no_agents": false, "no_checks": true, "keyed_lists": false, "rotating_refresh_tokens": false})
    );
    // Bad values are refused, naming the quirk, and change nothing.
    for (body, named) in [
        (json!({"quirks": {"past_end_page": "list"}}), "past_end_page"),
        (json!({"quirks": {"past_end_page": null}}), "past_end_page"),
        (json!({"quirks": {"no_agents": "yes"}}), "no_agents"),
        (json!({"quirks": {"no_agent": true}}), "no_agent"),
        (json!({"quirks": "none"}), "quirks"),
    ] {
        let reply = env.put_config(&body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        let error = reply.json["error"].as_str().unwrap();
        assert!(error.contains(named), "{body}: {error}");
    }
    let reply = env
        .put_config(&json!({"quirks": {"past_end_page": "list"}}))
        .await;
    let rule = "must be one of array, object, null, status, got \"list\"";
    assert_eq!(
        reply.json,
        json!({"error": format!("quirks.past_end_page: {rule}"), "field": "quirks.past_end_page", "rule": rule})
    );
    assert_eq!(
        env.emu.quirks(),
        Quirks {
            no_checks: true,
            ..Quirks::default()
        }
    );
}

#[tokio::test]
async fn reset_restores_the_configured_quirks() {
    let configured = Quirks {
        past_end_page: PastEndPage::Object,
        ..Quirks::default()
    };
    let env = start_with(Config {
        quirks: configured,
        ..Config::default()
    })
    .await;
    env.emu.set_quirks(Quirks {
        no_agents: true,
        no_checks: true,
        past_end_page: PastEndPage::Null,
        keyed_lists: true,
        rotating_refresh_tokens: true,
    });
    let reply = env.request(Method::POST, "/_emulator/reset", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(env.emu.quirks(), configured);
    let token = env.login().await;
    let page = env
        .get_auth(&token, "/v2/service/lists.json", &[("page", "4")])
        .await;
    assert_eq!(&page.bytes[..], b"{}");
}

#[test]
fn past_end_page_names_parse_and_bad_ones_name_the_field_and_the_rule() {
    for (page, name, _) in PAST_END_BODIES {
        assert_eq!(page.name(), name);
        assert_eq!(name.parse::<PastEndPage>(), Ok(page));
        assert_eq!(serde_json::to_value(page).unwrap(), json!(name));
        assert_eq!(serde_json::from_value::<PastEndPage>(json!(name)).unwrap(), page);
    }
    let error = "Array".parse::<PastEndPage>().unwrap_err();
    assert_eq!(error.field(), "past_end_page");
    assert_eq!(
        error.rule(),
        "must be one of array, object, null, status, got \"Array\""
    );
    assert_eq!(error.to_string(), format!("past_end_page {}", error.rule()));
    assert!(format!("{:?}", Config::default()).contains("quirks"));
}
