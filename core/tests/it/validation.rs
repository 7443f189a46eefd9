//! Bad input is refused before anything is sent, with the task index, field and rule.

use crate::common::*;
use monapi::{AuthType, DateRange, Indicator, Monitor, Request, Scope, ServerTask, SnmpVersion, SystemType};

fn linux() -> ServerTask {
    ServerTask::new("web-01", "192.168.1.10", "203.0.113.10", SystemType::Linux)
}

/// Puts `bad` at index 1 of a batch, sends it, and returns (field, rule) of the error.
async fn refused(bad: ServerTask) -> (String, String) {
    let emu = emulator().await;
    let client = client(&emu);
    let err = client.create_server_tasks(&[linux(), bad]).await.unwrap_err();
    assert_eq!(emu.counters().total, 0, "nothing may be sent");
    assert_eq!(err.kind(), monapi::ErrorKind::InvalidInput, "{err:?}");
    assert_eq!(err.index(), Some(1), "{err:?}");
    let (field, rule) = (err.field().unwrap().to_string(), err.rule().unwrap().to_string());
    assert!(
        err.to_string().contains(&format!("task 1: `{field}` {rule}")),
        "{err}"
    );
    (field, rule)
}

#[tokio::test]
async fn names_and_ips() {
    let (field, _) = refused(ServerTask {
        server_name: " ".into(),
        ..linux()
    })
    .await;
    assert_eq!(field, "server_name");
    let (field, rule) = refused(ServerTask {
        private_ip: "10.0.0".into(),
        ..linux()
    })
    .await;
    assert_eq!(field, "private_ip");
    assert!(rule.contains("IPv4 or IPv6"), "{rule}");
    let (field, _) = refused(ServerTask {
        server_ip: String::new(),
        ..linux()
    })
    .await;
    assert_eq!(field, "server_ip");
}

#[tokio::test]
async fn frequency_and_port_ranges() {
    let (field, rule) = refused(ServerTask {
        frequency: 0,
        ..linux()
    })
    .await;
    assert_eq!(field, "frequency");
    assert!(rule.contains("1 to 1440"), "{rule}");
    assert_eq!(
        refused(ServerTask {
            frequency: 1441,
            ..linux()
        })
        .await
        .0,
        "frequency"
    );
    let (field, rule) = refused(ServerTask {
        snmp_port: 70000,
        ..linux()
    })
    .await;
    assert_eq!(field, "snmp_port");
    assert!(rule.contains("1 to 65535"), "{rule}");
    assert_eq!(
        refused(ServerTask {
            snmp_port: 0,
            ..linux()
        })
        .await
        .0,
        "snmp_port"
    );
}

#[tokio::test]
async fn snmp_fields_per_version() {
    assert_eq!(
        refused(ServerTask {
            snmp_comm: String::new(),
            ..linux()
        })
        .await
        .0,
        "snmp_comm"
    );
    let v3 = ServerTask {
        snmp_v: SnmpVersion::V3,
        snmp_user: "monitor".into(),
        snmp_pass: "phrase".into(),
        snmp_authtype: AuthType::Sha,
        ..linux()
    };
    v3.validate().unwrap();
    assert_eq!(
        refused(ServerTask {
            snmp_user: String::new(),
            ..v3.clone()
        })
        .await
        .0,
        "snmp_user"
    );
    let (field, rule) = refused(ServerTask {
        snmp_pass: "".into(),
        ..v3
    })
    .await;
    assert_eq!(field, "snmp_pass");
    assert!(rule.contains("snmp_v is 1"), "{rule}");
}

#[tokio::test]
async fn plugins_when_agent_is_used() {
    let (field, rule) = refused(ServerTask {
        use_agent: true,
        ..linux()
    })
    .await;
    assert_eq!(field, "plugin_task_uselist_id");
    assert!(rule.contains("use_agent is 1"), "{rule}");
}

#[tokio::test]
async fn scope_needs_its_audience() {
    let mut group = linux();
    group.alert_setting.scope = Scope::UserGroup;
    assert_eq!(refused(group).await.0, "alert_setting.organization");
    let mut users = linux();
    users.alert_setting.scope = Scope::SelectedUsers;
    assert_eq!(refused(users).await.0, "alert_setting.user_ids");
}

#[tokio::test]
async fn indicators_must_fit_the_system_type() {
    let (field, rule) = refused(ServerTask {
        task_type: vec![Indicator::Cpu, Indicator::CpuWindows],
        ..linux()
    })
    .await;
    assert_eq!(field, "task_type");
    assert!(rule.contains("cpu_windows") && rule.contains("linux"), "{rule}");
    let windows = ServerTask::new("w", "10.0.0.1", "10.0.0.1", SystemType::Windows);
    assert_eq!(
        refused(ServerTask {
            task_type: vec![Indicator::Diskio],
            ..windows
        })
        .await
        .0,
        "task_type"
    );
    assert_eq!(
        refused(ServerTask {
            task_type: vec![],
            ..linux()
        })
        .await
        .0,
        "task_type"
    );
}

#[tokio::test]
async fn empty_batch() {
    let emu = emulator().await;
    let err = client(&emu).create_server_tasks(&[]).await.unwrap_err();
    assert!(err.field() == Some("tasks"), "{err:?}");
    assert_eq!(emu.counters().total, 0);
}

#[test]
fn loose_json_enumerations_are_checked_with_index_and_field() {
    let mut base = serde_json::to_value(linux()).unwrap();
    for (field, value, expected_field) in [
        ("server_systype", serde_json::json!("2"), "server_systype"),
        ("snmp_v", serde_json::json!(5), "snmp_v"),
        ("snmp_authtype", serde_json::json!("RSA"), "snmp_authtype"),
        ("use_agent", serde_json::json!("yes"), "use_agent"),
        ("frequency", serde_json::json!("often"), "frequency"),
        ("task_type", serde_json::json!(["cpu", "gpu"]), "task_type[1]"),
    ] {
        let mut bad = base.clone();
        bad[field] = value;
        let err = ServerTask::batch_from_json(serde_json::json!([base, bad])).unwrap_err();
        assert_eq!(
            (err.index(), err.field()),
            (Some(1), Some(expected_field)),
            "{field}: {err:?}"
        );
    }
    base["alert_setting"]["scope"] = serde_json::json!("9");
    let err = ServerTask::batch_from_json(serde_json::json!([base])).unwrap_err();
    assert!(
        err.index() == Some(0)
            && err.field() == Some("alert_setting.scope")
            && err.rule().unwrap().contains("1 (all"),
        "{err:?}"
    );
}

#[tokio::test]
async fn dates_are_checked_before_sending() {
    let emu = emulator().await;
    let client = client(&emu);
    let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    let backwards = DateRange::new(day("2026-11-05"), day("2026-11-01"));
    for request in [
        Request::ServiceReport {
            task_id: 10001,
            range: backwards,
        },
        Request::SiteReport {
            task_id: 20001,
            range: backwards,
            monitor: Monitor::All,
        },
        Request::ResponseTimeDistribution {
            task_id: 20001,
            range: backwards,
        },
    ] {
        let err = client.execute(&request).await.unwrap_err();
        assert!(err.field() == Some("start_date"), "{err:?}");
    }
    let err = client.service_tasks(0).await.unwrap_err();
    assert!(err.field() == Some("page"), "{err:?}");
    assert_eq!(emu.counters().total, 0);

    for (start, end, field) in [
        (Some("2026-13-01"), None, "start_date"),
        (None, Some("2026/11/01"), "end_date"),
        (Some("2026-11-1"), None, "start_date"),
    ] {
        let err = DateRange::parse(start, end).unwrap_err();
        assert!(err.field() == Some(field), "{err:?}");
    }
}

#[test]
fn configuration_errors_name_the_setting() {
    let err = monapi::Client::builder().build().unwrap_err();
    assert!(err.field() == Some("base_url"), "{err}");
    let err = monapi::Client::builder()
        .base_url("ftp://x")
        .client_id("a")
        .client_secret("b")
        .build()
        .unwrap_err();
    assert!(err.field() == Some("base_url"), "{err}");
    let err = monapi::Client::builder()
        .base_url("http://127.0.0.1:1")
        .client_id("a")
        .client_secret("b")
        .username("u")
        .password_md5("not-an-md5")
        .build()
        .unwrap_err();
    assert!(err.field() == Some("password_md5"), "{err}");
    assert!(!err.to_string().contains("not-an-md5"));
}

#[test]
fn configuration_errors_never_echo_what_may_be_secret() {
    let build = |url: &str| {
        monapi::Client::builder()
            .base_url(url)
            .client_id("a")
            .client_secret("b")
            .username("u")
            .password("p")
            .build()
            .unwrap_err()
    };
    for url in [
        "http://user:hunter2@127.0.0.1:8080",
        "http://127.0.0.1:8080/?access_token=hunter2",
        "http://127.0.0.1:8080/#hunter2",
    ] {
        let err = build(url);
        assert!(err.field() == Some("base_url"), "{err}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
        assert!(err.to_string().contains("127.0.0.1:8080"), "{err}");
    }
    let err = build("not a url hunter2");
    assert!(!err.to_string().contains("hunter2"), "{err}");

    let err = monapi::Client::builder()
        .base_url("http://127.0.0.1:1")
        .client_id("a")
        .client_secret("b")
        .username("u")
        .password("p")
        .user_agent("bad\nagent")
        .build()
        .unwrap_err();
    assert!(err.field() == Some("user_agent"), "{err}");
}

#[test]
fn a_pass_phrase_given_as_a_number_is_its_text_and_a_bad_one_is_never_echoed() {
    let mut task = serde_json::to_value(ServerTask {
        snmp_v: SnmpVersion::V3,
        snmp_user: "monitor".into(),
        snmp_pass: "placeholder".into(),
        ..linux()
    })
    .unwrap();
    task["snmp_pass"] = serde_json::json!(73914625);
    let tasks = ServerTask::batch_from_json(serde_json::json!([task.clone()])).unwrap();
    assert_eq!(tasks[0].snmp_pass.expose(), "73914625");

    task["snmp_pass"] = serde_json::json!(true);
    let err = ServerTask::batch_from_json(serde_json::json!([task])).unwrap_err();
    assert!(
        err.index() == Some(0) && err.field() == Some("snmp_pass"),
        "{err:?}"
    );
    assert!(!err.to_string().contains("true"), "{err}");
}

/// The minimal task of `tests/fixtures/minimal_server_task.json` (the Python and Node suites
/// create the same one and compare with the same stored task).
fn minimal_fixture() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/minimal_server_task.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_minimal_task_takes_the_defaults_of_new_and_is_stored_as_in_every_language() {
    let fixture = minimal_fixture();
    let emu = emulator().await;
    let client = client(&emu);
    let read = ServerTask::batch_from_json(serde_json::json!([fixture["input"]])).unwrap();
    let mut built = ServerTask::new("web-min", "192.168.1.30", "203.0.113.30", SystemType::Linux);
    built.frequency = 10;
    built.task_type = vec![Indicator::Cpu, Indicator::Mem];
    assert_eq!(read, [built]);
    client.create_server_tasks(&read).await.unwrap();
    assert_eq!(emu.server_tasks(), [fixture["stored"].clone()]);
}
