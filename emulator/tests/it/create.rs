//! Batch creation of server tasks: success, partial failure, every validation rule.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::*;

/// A valid linux line, from the fixture.
fn linux() -> Value {
    fixture("create_request.json")[0].clone()
}

/// A valid windows SNMPv3 line, from the fixture.
fn windows() -> Value {
    fixture("create_request.json")[1].clone()
}

fn with(mut line: Value, changes: Value) -> Value {
    for (key, value) in changes.as_object().unwrap() {
        line[key] = value.clone();
    }
    line
}

fn without(mut line: Value, key: &str) -> Value {
    line.as_object_mut().unwrap().remove(key);
    line
}

/// Plugin ids of the demo account's agents.
async fn plugin_ids(env: &Env, token: &str) -> Vec<String> {
    let agents = env.get_auth(token, "/v2/agent/lists.json", &[]).await.json;
    agents
        .as_object()
        .unwrap()
        .values()
        .flat_map(|agent| agent["plugin"].as_array().unwrap().clone())
        .map(|plugin| plugin["plugin_task_uselist_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_fixture_batch_is_created() {
    let env = start().await;
    let token = env.login().await;
    let reply = env
        .create(&token, &fixture("create_request.json").to_string())
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(reply.json, fixture("create_response.json"));
    let stored = env.emu.server_tasks();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0]["task_id"], json!(30001));
    assert_eq!(stored[1]["task_id"], json!(30002));
    assert_eq!(stored[0]["server_name"], "web-01");
    assert_eq!(stored[1]["snmp_user"], "monitor");
    // Ids keep growing across batches.
    let reply = env.create(&token, &json!([linux()]).to_string()).await;
    assert_eq!(reply.json, json!([{"task_id": 30003}]));
    // The HTTP hook shows the same.
    let hook = env.get("/_emulator/server_tasks", &[]).await;
    assert_eq!(hook.json.as_array().unwrap().len(), 3);
    assert_eq!(hook.json[2]["task_id"], json!(30003));
}

#[tokio::test]
async fn scalars_may_be_json_numbers() {
    let env = start().await;
    let token = env.login().await;
    let line = with(
        linux(),
        json!({
            "server_systype": 0, "frequency": 5, "snmp_port": 161, "snmp_v": 0,
            "use_agent": 0, "server_name": 42,
            "alert_setting": {"alert": {"email": [101, "102"], "sms": 101}, "scope": 3},
        }),
    );
    let reply = env.create(&token, &json!([line]).to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

#[tokio::test]
async fn bad_lines_are_named_and_good_lines_are_still_created() {
    let env = start().await;
    let token = env.login().await;
    let bad_plugin = with(
        linux(),
        json!({"use_agent": "1", "plugin_task_uselist_id": "999999"}),
    );
    let batch = json!([linux(), bad_plugin, windows()]);
    let reply = env.create(&token, &batch.to_string()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(reply.json, fixture("create_error.json"));
    let stored = env.emu.server_tasks();
    let ids: Vec<_> = stored.iter().map(|t| t["task_id"].clone()).collect();
    assert_eq!(ids, [json!(30001), json!(30002)]);
    assert_eq!(stored[1]["server_name"], "win-db-02");
    // Several bad lines: indexes comma-separated, texts joined with "; ".
    let batch = json!([
        with(linux(), json!({"frequency": "0"})),
        linux(),
        with(linux(), json!({"private_ip": "300.1.1.1"})),
        with(windows(), json!({"task_type": ["cpu"]})),
    ]);
    let reply = env.create(&token, &batch.to_string()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["err_key"], "0,2,3");
    let texts: Vec<&str> = reply.json["err_content"].as_str().unwrap().split("; ").collect();
    assert_eq!(texts.len(), 3, "{}", reply.json);
    assert!(texts[0].starts_with("frequency"));
    assert!(texts[1].starts_with("private_ip"));
    assert!(texts[2].starts_with("task_type cpu"));
    assert_eq!(shape(&reply.json), shape(&fixture("create_error.json")));
    // The one good line got the next id.
    let stored = env.emu.server_tasks();
    assert_eq!(stored.len(), 3);
    assert_eq!(stored[2]["task_id"], json!(30003));
    // All bad: nothing stored, ids not consumed.
    let reply = env
        .create(
            &token,
            &json!([with(linux(), json!({"server_name": ""}))]).to_string(),
        )
        .await;
    assert_eq!(reply.json["err_key"], "0");
    let reply = env.create(&token, &json!([linux()]).to_string()).await;
    assert_eq!(reply.json, json!([{"task_id": 30004}]));
}

/// Each case breaks one rule of a valid line; the error names the field.
#[tokio::test]
async fn every_validation_rule_is_enforced() {
    let env = start().await;
    let token = env.login().await;
    let alert = |extra: Value| {
        let mut setting = json!({"alert": {"email": "101"}, "scope": "3"});
        for (k, v) in extra.as_object().unwrap() {
            setting[k] = v.clone();
        }
        setting
    };
    let cases: Vec<(Value, &str)> = vec![
        (without(linux(), "server_name"), "server_name must not be empty"),
        (
            with(linux(), json!({"server_name": "  "})),
            "server_name must not be empty",
        ),
        (
            with(linux(), json!({"private_ip": ""})),
            "private_ip must not be empty",
        ),
        (
            with(linux(), json!({"private_ip": "192.168.1"})),
            "private_ip must be a valid IPv4 or IPv6 address",
        ),
        (
            with(linux(), json!({"server_ip": "example.com"})),
            "server_ip must be a valid IPv4 or IPv6 address",
        ),
        (without(linux(), "server_ip"), "server_ip must not be empty"),
        (
            with(linux(), json!({"server_systype": "2"})),
            "server_systype must be 0 or 1",
        ),
        (
            without(linux(), "server_systype"),
            "server_systype must be 0 or 1",
        ),
        (
            with(linux(), json!({"frequency": "0"})),
            "frequency must be an integer from 1 to 1440",
        ),
        (
            with(linux(), json!({"frequency": "1441"})),
            "frequency must be an integer from 1 to 1440",
        ),
        (
            with(linux(), json!({"frequency": "5.5"})),
            "frequency must be an integer from 1 to 1440",
        ),
        (
            with(linux(), json!({"frequency": 5.5})),
            "frequency must be an integer from 1 to 1440",
        ),
        (
            with(linux(), json!({"frequency": "-5"})),
            "frequency must be an integer from 1 to 1440",
        ),
        (
            with(linux(), json!({"snmp_port": "0"})),
            "snmp_port must be an integer from 1 to 65535",
        ),
        (
            with(linux(), json!({"snmp_port": 65536})),
            "snmp_port must be an integer from 1 to 65535",
        ),
        (
            with(linux(), json!({"snmp_port": "abc"})),
            "snmp_port must be an integer from 1 to 65535",
        ),
        (with(linux(), json!({"snmp_v": "2"})), "snmp_v must be 0 or 1"),
        (
            with(linux(), json!({"snmp_comm": ""})),
            "snmp_comm must not be empty when snmp_v is 0",
        ),
        (
            with(windows(), json!({"snmp_user": ""})),
            "snmp_user must not be empty when snmp_v is 1",
        ),
        (
            without(windows(), "snmp_pass"),
            "snmp_pass must not be empty when snmp_v is 1",
        ),
        (
            with(windows(), json!({"snmp_authtype": "2"})),
            "snmp_authtype must be 0 or 1 when snmp_v is 1",
        ),
        (
            with(linux(), json!({"use_agent": "yes"})),
            "use_agent must be 0 or 1",
        ),
        (
            with(linux(), json!({"use_agent": "1", "plugin_task_uselist_id": ""})),
            "plugin_task_uselist_id must not be empty when use_agent is 1",
        ),
        (
            with(linux(), json!({"use_agent": "1", "plugin_task_uselist_id": []})),
            "plugin_task_uselist_id must not be empty when use_agent is 1",
        ),
        (
            with(
                linux(),
                json!({"use_agent": "1", "plugin_task_uselist_id": [{"id": 1}]}),
            ),
            "plugin_task_uselist_id must be a string or an array of ids",
        ),
        (
            with(
                linux(),
                json!({"use_agent": "1", "plugin_task_uselist_id": "9001,999999"}),
            ),
            "plugin_task_uselist_id 999999 is not a plugin of this account",
        ),
        // Given values are checked even where they are not used (version 2c, no agent).
        (
            with(linux(), json!({"snmp_v": "0", "snmp_authtype": "2"})),
            "snmp_authtype must be 0 or 1 (0 MD5, 1 SHA)",
        ),
        (
            with(linux(), json!({"use_agent": "0", "plugin_task_uselist_id": {}})),
            "plugin_task_uselist_id must be a string or an array of ids",
        ),
        (
            without(linux(), "alert_setting"),
            "alert_setting must be an object",
        ),
        (
            with(linux(), json!({"alert_setting": "3"})),
            "alert_setting must be an object",
        ),
        (
            with(linux(), json!({"alert_setting": alert(json!({"scope": "5"}))})),
            "alert_setting.scope must be 1, 2, 3 or 4",
        ),
        (
            with(linux(), json!({"alert_setting": {"alert": {}}})),
            "alert_setting.scope must be 1, 2, 3 or 4",
        ),
        (
            with(linux(), json!({"alert_setting": alert(json!({"scope": "2"}))})),
            "alert_setting.organization must not be empty when scope is 2",
        ),
        (
            with(
                linux(),
                json!({"alert_setting": alert(json!({"scope": "4", "user_ids": ""}))}),
            ),
            "alert_setting.user_ids must not be empty when scope is 4",
        ),
        (
            with(
                linux(),
                json!({"alert_setting": alert(json!({"scope": "4", "user_ids": []}))}),
            ),
            "alert_setting.user_ids must not be empty when scope is 4",
        ),
        (
            with(linux(), json!({"alert_setting": alert(json!({"alert": "101"}))})),
            "alert_setting.alert must be an object",
        ),
        (
            with(
                linux(),
                json!({"alert_setting": alert(json!({"alert": {"sms": {"id": 1}}}))}),
            ),
            "alert_setting.alert.sms must be a string",
        ),
        (
            with(
                linux(),
                json!({"alert_setting": alert(json!({"alert": {"remind": true}}))}),
            ),
            "alert_setting.alert.remind must be a string",
        ),
        (
            with(linux(), json!({"task_type": []})),
            "task_type must be a non-empty array",
        ),
        (
            with(linux(), json!({"task_type": "cpu"})),
            "task_type must be a non-empty array",
        ),
        (
            without(linux(), "task_type"),
            "task_type must be a non-empty array",
        ),
        (
            with(linux(), json!({"task_type": ["cpu", "cpu_windows"]})),
            "task_type cpu_windows is not allowed for server_systype 0 (linux)",
        ),
        (
            with(windows(), json!({"task_type": ["diskio"]})),
            "task_type diskio is not allowed for server_systype 1 (windows)",
        ),
        (
            with(linux(), json!({"task_type": [1]})),
            "task_type 1 is not allowed",
        ),
        (json!("not an object"), "a task must be a JSON object"),
    ];
    for (line, expected) in cases {
        let reply = env.create(&token, &json!([line]).to_string()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "expected {expected}");
        assert_eq!(reply.json["err_key"], "0");
        let text = reply.json["err_content"].as_str().unwrap();
        assert!(text.starts_with(expected), "got {text:?}, expected {expected:?}");
    }
    assert!(env.emu.server_tasks().is_empty());
}

#[tokio::test]
async fn valid_variants_are_accepted() {
    let env = start().await;
    let token = env.login().await;
    let plugins = plugin_ids(&env, &token).await;
    assert!(plugins.len() >= 2);
    let numbers: Vec<Value> = plugins
        .iter()
        .map(|id| json!(id.parse::<u64>().unwrap()))
        .collect();
    let variants = vec![
        with(
            linux(),
            json!({"use_agent": "1", "plugin_task_uselist_id": plugins[0]}),
        ),
        with(
            linux(),
            json!({"use_agent": "1", "plugin_task_uselist_id": format!("{}, {}", plugins[0], plugins[1])}),
        ),
        with(
            linux(),
            json!({"use_agent": "1", "plugin_task_uselist_id": plugins[..2]}),
        ),
        with(
            linux(),
            json!({"use_agent": 1, "plugin_task_uselist_id": numbers}),
        ),
        // use_agent 0 ignores plugin ids.
        with(
            linux(),
            json!({"use_agent": "0", "plugin_task_uselist_id": "999999"}),
        ),
        with(
            linux(),
            json!({"private_ip": "fe80::1", "server_ip": "2001:db8::10"}),
        ),
        with(linux(), json!({"frequency": "1", "snmp_port": "65535"})),
        with(linux(), json!({"frequency": "1440", "snmp_port": "1"})),
        with(linux(), json!({"alert_setting": {"scope": "1"}})),
        with(
            linux(),
            json!({"alert_setting": {"scope": "2", "organization": "7"}}),
        ),
        with(linux(), json!({"alert_setting": {"scope": 2, "organization": 7}})),
        with(
            linux(),
            json!({"alert_setting": {"scope": "4", "user_ids": ["101", 102]}}),
        ),
        with(
            linux(),
            json!({"alert_setting": {"scope": "4", "user_ids": "101,102"}, "task_type": ["cpu"]}),
        ),
        with(
            windows(),
            json!({"task_type": ["cpu_windows", "mem_windows", "netio", "diskstore", "procsum"]}),
        ),
        // SNMPv3 does not need a community; v2c does not need user or pass.
        without(without(windows(), "snmp_comm"), "snmp_comm"),
        without(without(linux(), "snmp_user"), "snmp_pass"),
    ];
    let count = variants.len();
    let reply = env.create(&token, &Value::Array(variants).to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(reply.json.as_array().unwrap().len(), count);
}

#[tokio::test]
async fn data_must_be_a_json_array() {
    let env = start().await;
    let token = env.login().await;
    for data in ["{\"server_name\":\"x\"}", "not json", "\"[]\"", "42"] {
        let reply = env.create(&token, data).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{data}");
        assert_eq!(reply.json["code"], json!(400));
        assert!(reply.json["msg"].as_str().unwrap().contains("data"));
    }
    let response = env
        .http
        .post(env.url("/v2/server/create.json"))
        .query(&[("access_token", &token)])
        .form(&[("tasks", "[]")])
        .send()
        .await
        .unwrap();
    let reply = read_reply(response).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.json,
        json!({"code": 400, "msg": "form field data is missing"})
    );
    // An empty batch creates nothing and fails nothing.
    let reply = env.create(&token, "[]").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json, json!([]));
}

#[tokio::test]
async fn oversized_bodies_are_413() {
    let env = start().await;
    let token = env.login().await;
    let huge = "x".repeat(17 << 20);
    let reply = env.create(&token, &huge).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.json["code"], json!(413));
    let reply = env
        .token_request(&[("grant_type", "password"), ("pad", &huge)])
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.json["code"], json!(413));
}

#[tokio::test]
async fn reset_forgets_created_tasks_and_restarts_ids() {
    let env = start().await;
    let token = env.login().await;
    env.create(&token, &json!([linux(), linux()]).to_string()).await;
    assert_eq!(env.emu.server_tasks().len(), 2);
    env.emu.reset();
    assert!(env.emu.server_tasks().is_empty());
    let token = env.login().await;
    let reply = env.create(&token, &json!([linux()]).to_string()).await;
    assert_eq!(reply.json, json!([{"task_id": 30001}]));
}

/// The fixture batch of service tasks.
fn service_batch() -> Value {
    fixture("service_create_request.json")
}

#[tokio::test]
async fn service_tasks_are_created_from_a_form_or_a_json_body() {
    let env = start().await;
    let token = env.login().await;
    let reply = env.create_service(&token, &service_batch().to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(reply.json, json!([{"task_id": 200001}, {"task_id": 200002}]));
    // The same batch as a JSON body, bare or as {"data": [...]}.
    for body in [service_batch(), json!({"data": service_batch()})] {
        let reply = env
            .http
            .post(env.url("/v2/service/create.json"))
            .query(&[("access_token", &token)])
            .json(&body)
            .send()
            .await
            .unwrap();
        let reply = read_reply(reply).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
        assert_eq!(reply.json.as_array().unwrap().len(), 2);
    }
    let stored = env.emu.created_service_tasks();
    assert_eq!(stored.len(), 6);
    assert_eq!(stored[0]["task_id"], json!(200001));
    assert_eq!(stored[5]["task_id"], json!(200006));
    assert_eq!(stored[1]["task_type"], "mysql");
    let hook = env.get("/_emulator/service_tasks", &[]).await;
    assert_eq!(hook.json.as_array().unwrap().len(), 6);
    // Server tasks are a store of their own.
    assert!(env.emu.server_tasks().is_empty());
}

#[tokio::test]
async fn a_service_batch_with_bad_lines_creates_the_others() {
    let env = start().await;
    let token = env.login().await;
    let good = service_batch()[0].clone();
    let batch = json!([
        good,
        without(service_batch()[1].clone(), "password"),
        with(good.clone(), json!({"task_type": "postgres"})),
    ]);
    let reply = env.create_service(&token, &batch.to_string()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["err_key"], "1,2");
    let content = reply.json["err_content"].as_str().unwrap();
    assert!(content.contains("password"), "{content}");
    assert!(content.contains("task_type must be one of"), "{content}");
    assert!(!content.contains("s3cret"), "{content}");
    assert_eq!(env.emu.created_service_tasks().len(), 1);
}

#[tokio::test]
async fn every_service_task_rule_is_checked() {
    let env = start().await;
    let token = env.login().await;
    let nginx = service_batch()[0].clone();
    let mysql = service_batch()[1].clone();
    let cases = [
        (without(nginx.clone(), "task_name"), "task_name"),
        (with(nginx.clone(), json!({"frequency": "0"})), "frequency"),
        (without(nginx.clone(), "status_url"), "status_url"),
        (
            with(nginx.clone(), json!({"status_url": "ftp://host/"})),
            "status_url",
        ),
        (without(nginx.clone(), "alert_setting"), "open_scope"),
        (
            with(
                nginx.clone(),
                json!({"use_agent": "1", "plugin_task_uselist_id": "999999"}),
            ),
            "plugin_task_uselist_id",
        ),
        (with(mysql.clone(), json!({"ip": "not-an-ip"})), "ip"),
        (with(mysql.clone(), json!({"port": "70000"})), "port"),
        (with(mysql.clone(), json!({"open_scope": "5"})), "open_scope"),
        (without(mysql.clone(), "organization"), "organization"),
        (with(mysql.clone(), json!({"open_scope": "4"})), "user_ids"),
        (
            json!({"task_name": "x", "task_type": "iis", "frequency": "5", "use_agent": "0", "open_scope": "1"}),
            "logPath",
        ),
        (
            json!({"task_name": "x", "task_type": "oracle", "frequency": "5", "use_agent": "0", "open_scope": "3", "user": "u", "password": "p"}),
            "appname",
        ),
        (json!("nginx"), "object"),
    ];
    for (line, named) in cases {
        let reply = env.create_service(&token, &json!([line]).to_string()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{line}");
        let content = reply.json["err_content"].as_str().unwrap();
        assert!(content.contains(named), "{line}: {content}");
    }
    assert!(env.emu.created_service_tasks().is_empty());
    // Each type with its own fields.
    let lines = json!([
        {"task_name": "w", "task_type": "iis", "frequency": 5, "use_agent": 0, "open_scope": 1, "logPath": "D:\\logs"},
        {"task_name": "o", "task_type": "oracle", "frequency": 5, "use_agent": 0, "open_scope": 4, "user_ids": "101,103",
         "user": "u", "password": "p", "appname": "ORCL"},
        {"task_name": "t", "task_type": "tomcat", "frequency": 1, "use_agent": 0, "open_scope": 3,
         "status_url": "https://tomcat.example.com/manager/status", "user": "u", "password": "p", "appname": "shop"},
        {"task_name": "s", "task_type": "sqlserver", "frequency": 30, "use_agent": 0, "open_scope": 3,
         "ip": "::1", "port": 1433, "user": "sa", "password": "p", "appname": "MSSQLSERVER"},
    ]);
    let reply = env.create_service(&token, &lines.to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}
