//! The `monapi` binary: help, serve, calls against the served emulator, one-line errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};

use crate::logs::terminate;

const BIN: &str = env!("CARGO_BIN_EXE_monapi");

/// `monapi serve --port 0`, stopped when dropped.
struct Served {
    child: Child,
    base_url: String,
    /// The private CA's file, when serving HTTPS.
    ca_path: Option<String>,
}

impl Served {
    fn start() -> Served {
        Served::with(&[])
    }

    /// `monapi serve` with more arguments.
    fn with(more: &[&str]) -> Served {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", "0", "--seed", "7"])
            .args(more)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base_url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:") || w.starts_with("https://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        let ca_path = ca_file(&line);
        Served {
            child,
            base_url,
            ca_path,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    /// `monapi ARGS` with these environment variables (and the demo account's).
    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(BIN)
            .args(args)
            .envs(env.iter().copied())
            .env("MONAPI_BASE_URL", &self.base_url)
            .env("MONAPI_CLIENT_ID", "demo_id")
            .env("MONAPI_CLIENT_SECRET", "demo_secret")
            .env("MONAPI_USERNAME", "test@example.com")
            .env("MONAPI_PASSWORD", "123456")
            .output()
            .unwrap()
    }
}

impl Served {
    /// Sets the emulator's quirks through its test hook (`PUT /_emulator/config`).
    fn set_quirks(&self, quirks: &str) {
        let address = self.base_url.trim_start_matches("http://");
        let body = format!(r#"{{"quirks":{quirks}}}"#);
        let mut stream = TcpStream::connect(address).unwrap();
        write!(
            stream,
            "PUT /_emulator/config HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
}

/// The private CA's file that `monapi serve --tls` names in the line saying it listens.
pub(crate) fn ca_file(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("private CA certificate: ")?;
    rest.split(';').next().map(str::to_string)
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn help_on_every_command() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["token", "--help"],
        vec!["tasks", "--help"],
        vec!["agents", "--help"],
        vec!["sites", "--help"],
        vec!["site", "--help"],
        vec!["monitors", "--help"],
        vec!["users", "--help"],
        vec!["groups", "--help"],
        vec!["create-service-tasks", "--help"],
        vec!["report", "--help"],
        vec!["request", "--help"],
    ] {
        let output = Command::new(BIN).args(&args).output().unwrap();
        assert!(output.status.success(), "{args:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("Usage: monapi"), "{args:?}: {text}");
    }
}

#[test]
fn calls_against_the_served_emulator() {
    let served = Served::start();
    let tasks = json(&served.run(&["tasks"]));
    assert_eq!(tasks.as_array().unwrap().len(), 120);
    assert_eq!(tasks[0]["task_id"], "10001");
    let page = json(&served.run(&["tasks", "--page", "3"]));
    assert_eq!(page.as_array().unwrap().len(), 20);
    let agents = json(&served.run(&["agents"]));
    assert!(agents.as_object().unwrap().len() >= 3);
    let report = json(&served.run(&["report", "site", "20001", "--monitor", "average"]));
    assert_eq!(report.as_object().unwrap().keys().collect::<Vec<_>>(), ["0"]);
    let dist = json(&served.run(&[
        "report",
        "distribution",
        "20001",
        "--from",
        "2026-11-01",
        "--to",
        "2026-11-02",
    ]));
    assert!(dist.as_object().unwrap().values().all(|b| b["count"].is_number()));
    let service = json(&served.run(&["report", "service", "10001"]));
    assert!(!service.as_object().unwrap().is_empty());
    let token = json(&served.run(&["token"]));
    assert_eq!(token["token_type"], "bearer");
}

#[test]
fn the_operations_the_spec_only_names() {
    let served = Served::with(&["--site-tasks", "120"]);
    let sites = json(&served.run(&["sites"]));
    let ids: Vec<&str> = sites
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 120);
    assert_eq!((ids[0], ids[119]), ("20001", "20120"));
    let page = json(&served.run(&["sites", "--page", "3"]));
    assert_eq!(page.as_array().unwrap().len(), 20);
    // A keyed answer: one page as sent, every page as one list.
    served.set_quirks(r#"{"keyed_lists":true}"#);
    let keyed = json(&served.run(&["sites", "--page", "3"]));
    assert_eq!(keyed.as_object().unwrap().len(), 20);
    assert_eq!(json(&served.run(&["sites"])), sites);
    served.set_quirks("{}");
    let site = json(&served.run(&["site", "20002"]));
    assert_eq!(site["task_id"], "20002");
    assert!(!site["monitors"].as_array().unwrap().is_empty());
    let monitors = json(&served.run(&["monitors"]));
    assert_eq!(monitors.as_array().unwrap().len(), 8);
    assert_eq!(monitors[0]["monitor_name"], "北京电信");
    let users = json(&served.run(&["users"]));
    assert_eq!(users[0]["user_email"], "test@example.com");
    let groups = json(&served.run(&["groups"]));
    assert_eq!(groups.as_array().unwrap().len(), 3);
}

#[test]
fn create_service_tasks_from_a_file_or_standard_input() {
    let served = Served::start();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/service_create_request.json"
    );
    let created = json(&served.run(&["create-service-tasks", fixture]));
    assert_eq!(
        created,
        serde_json::json!([{"task_id": 200001}, {"task_id": 200002}])
    );
    let mut child = Command::new(BIN)
        .args(["create-service-tasks", "-"])
        .env("MONAPI_BASE_URL", &served.base_url)
        .env("MONAPI_CLIENT_ID", "demo_id")
        .env("MONAPI_CLIENT_SECRET", "demo_secret")
        .env("MONAPI_USERNAME", "test@example.com")
        .env("MONAPI_PASSWORD", "123456")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"[{"task_name":"w","task_type":"iis","logPath":"C:/inetpub/logs"}]"#)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(json(&output), serde_json::json!([{"task_id": 200003}]));
    // Checked before anything is sent: every problem, never the password.
    let bad = std::env::temp_dir().join(format!("monapi-bad-tasks-{}.json", std::process::id()));
    std::fs::write(
        &bad,
        r#"[{"task_name":"db","task_type":"mysql","ip":"nope","port":3306,"password":"hunter2-secret"},
            {"task_name":"","task_type":"postgres"}]"#,
    )
    .unwrap();
    let output = served.run(&["create-service-tasks", bad.to_str().unwrap()]);
    std::fs::remove_file(&bad).unwrap();
    assert_eq!(output.status.code(), Some(2), "bad input: usage");
    let stderr = String::from_utf8(output.stderr).unwrap();
    for needle in ["task 0: `ip`", "task 0: `user`", "task 1: `task_type`"] {
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    assert!(!stderr.contains("hunter2"), "{stderr}");
    let missing = served.run(&["create-service-tasks", "/no/such/file.json"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /no/such/file.json"));
}

#[test]
fn request_reaches_any_operation() {
    let served = Served::start();
    let agents = json(&served.run(&["request", "GET", "/v2/agent/lists.json"]));
    assert_eq!(agents, json(&served.run(&["agents"])));
    let page = json(&served.run(&["request", "get", "/v2/service/lists.json", "-q", "page=3"]));
    assert_eq!(page.as_array().unwrap().len(), 20);
    let task = r#"[{"server_name":"cli","private_ip":"10.0.0.1","server_ip":"10.0.0.1","server_systype":"0","frequency":"5","snmp_port":"161","snmp_v":"0","snmp_comm":"public","use_agent":"0","alert_setting":{"scope":"3"},"task_type":["cpu"]}]"#;
    let created = json(&served.run(&[
        "request",
        "POST",
        "/v2/server/create.json",
        "--form",
        &format!("data={task}"),
    ]));
    assert_eq!(created, serde_json::json!([{"task_id": 30001}]));
    for (args, needle, code) in [
        (
            vec!["request", "GET", "v2/agent/lists.json"],
            "`path` must be a path",
            2,
        ),
        (
            vec!["request", "GET", "/v2/agent/lists.json", "-q", "access_token=x"],
            "`query` must not hold access_token",
            2,
        ),
        (
            vec!["request", "DELETE", "/v2/agent/lists.json"],
            "`method` must be GET or POST",
            2,
        ),
        (
            vec!["request", "GET", "/v2/alert/lists.json"],
            "GET /v2/alert/lists.json: the service answered HTTP 404",
            1,
        ),
    ] {
        let output = served.run(&args);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    let output = served.run(&["request", "GET", "/v2/agent/lists.json", "-q", "novalue"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("expected KEY=VALUE"));
}

#[test]
fn serve_refuses_settings_beyond_the_emulators_bounds_naming_the_flag() {
    for (flag, value, rule) in [
        (
            "--latency-ms",
            "2147483648",
            "must be a number of milliseconds from 0 to 2147483647",
        ),
        (
            "--service-tasks",
            "100001",
            "must be a number of tasks from 0 to 100000",
        ),
    ] {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", "0", flag, value])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Bounded: a server that took the setting would run until killed.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("monapi serve {flag} {value} was not refused");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!("monapi: error: {flag} {rule}")),
            "{stderr}"
        );
    }
}

#[test]
fn errors_are_one_line_and_exit_by_the_cores_rule() {
    let served = Served::start();
    // A value only a flag gives is named by that flag, not by the core's parameter.
    for (args, needle, code) in [
        (
            vec!["report", "site", "20001", "--monitor", "north"],
            "`--monitor` must be",
            2,
        ),
        (
            vec!["report", "service", "10001", "--from", "2026-02-30"],
            "`--from` must be a real date",
            2,
        ),
        (
            vec![
                "report",
                "service",
                "10001",
                "--to",
                "2026-02-01",
                "--from",
                "2026-02-03",
            ],
            "`--from` must not be after the end date",
            2,
        ),
        (
            vec![
                "export",
                "service-reports",
                "--format",
                "csv",
                "-o",
                "-",
                "--to",
                "2026-2-1",
            ],
            "`--to` must be a real date",
            2,
        ),
        (
            vec!["sync", "--from", "yesterday"],
            "`--from` must be a real date",
            2,
        ),
        (vec!["tasks", "--page", "0"], "`--page` must be a whole number", 2),
        (vec!["report", "service", "999999"], "404", 1),
    ] {
        let output = served.run(&args);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("monapi: error: ") && stderr.contains(needle),
            "{stderr}"
        );
    }
    // A setting missing is a usage error too: nothing was sent.
    let output = Command::new(BIN).arg("agents").env_clear().output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("base_url") && stderr.contains("MONAPI_BASE_URL"),
        "{stderr}"
    );

    let output = served.run(&["agents", "--client-secret", "wrong-secret"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("invalid_client") && !stderr.contains("wrong-secret"),
        "{stderr}"
    );
}

#[test]
fn the_task_list_ends_at_an_empty_page_however_it_is_written() {
    // Two full pages: the list asks for page 3, past the end.
    let served = Served::with(&["--service-tasks", "100"]);
    for quirk in ["array", "object", "null"] {
        served.set_quirks(&format!(r#"{{"past_end_page":"{quirk}"}}"#));
        let tasks = json(&served.run(&["tasks"]));
        assert_eq!(tasks.as_array().unwrap().len(), 100, "{quirk}");
        assert_eq!(
            json(&served.run(&["tasks", "--page", "3"])),
            serde_json::json!([]),
            "{quirk}"
        );
    }
    served.set_quirks(r#"{"past_end_page":"status"}"#);
    for args in [vec!["tasks"], vec!["tasks", "--page", "3"]] {
        let output = served.run(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("could not decode the answer: expected a list of tasks"),
            "{stderr}"
        );
    }
}

#[test]
fn keyed_maps_written_as_empty_lists_are_printed_as_objects() {
    let served = Served::start();
    served.set_quirks(r#"{"no_agents":true,"no_checks":true}"#);
    assert_eq!(json(&served.run(&["agents"])), serde_json::json!({}));
    let day = ["--from", "2026-11-01", "--to", "2026-11-01"];
    let report = |kind: &str, id: &str| json(&served.run(&[&["report", kind, id][..], &day[..]].concat()));
    assert_eq!(report("service", "10001"), serde_json::json!({}));
    assert_eq!(report("distribution", "20001"), serde_json::json!({}));
    let site =
        json(&served.run(&[&["report", "site", "20001", "--monitor", "average"][..], &day[..]].concat()));
    assert_eq!(
        site,
        serde_json::json!({"0": {"name": "平均", "uprate": {}, "fault": {}, "resptime": {}}})
    );
}

/// Text of a failed run (one line on stderr, exit code non-zero).
fn failure(output: &Output) -> String {
    assert!(!output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stderr).to_string()
}

#[test]
fn https_with_a_private_ca_from_the_option_or_the_environment() {
    let mut served = Served::with(&["--tls"]);
    assert!(served.base_url.starts_with("https://"), "{}", served.base_url);
    let ca = served.ca_path.clone().expect("serve --tls prints its CA's file");
    assert!(std::fs::read_to_string(&ca)
        .unwrap()
        .contains("BEGIN CERTIFICATE"));

    let untrusted = failure(&served.run(&["agents"]));
    for words in ["not trusted", "unknown issuer", "--ca-bundle", "SSL_CERT_FILE"] {
        assert!(untrusted.contains(words), "{words:?} missing from {untrusted}");
    }
    json(&served.run(&["agents", "--ca-bundle", &ca]));
    for variable in ["SSL_CERT_FILE", "MONAPI_CA_BUNDLE"] {
        json(&served.run_with(&["agents"], &[(variable, &ca)]));
        let missing = failure(&served.run_with(&["agents"], &[(variable, "/no/such/ca.pem")]));
        assert!(
            missing.contains(variable) && missing.contains("does not exist"),
            "{missing}"
        );
    }
    let dir = std::path::Path::new(&ca)
        .parent()
        .unwrap()
        .join(format!("monapi-cli-ca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&ca, dir.join("company.pem")).unwrap();
    json(&served.run_with(&["agents"], &[("SSL_CERT_DIR", dir.to_str().unwrap())]));
    std::fs::remove_dir_all(&dir).unwrap();

    // SIGTERM (a supervisor's, a test harness's) stops it as Ctrl-C does: exit code 0, and the
    // CA's file removed.
    let status = terminate(&mut served.child);
    assert!(status.success(), "{status:?}");
    assert!(!std::path::Path::new(&ca).exists(), "{ca} left behind");
}

#[test]
fn proxies_from_the_environment_unless_told_otherwise() {
    let served = Served::start();
    // A proxy that is not there: calls that use it fail, calls that bypass it work.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = format!("http://me:pr0xy-pass@{closed}");
    for variable in ["HTTP_PROXY", "http_proxy", "ALL_PROXY"] {
        let through = failure(&served.run_with(&["agents", "--max-retries", "0"], &[(variable, &proxy)]));
        assert!(!through.contains("pr0xy-pass"), "{through}");
    }
    json(&served.run_with(&["agents"], &[("HTTP_PROXY", &proxy), ("NO_PROXY", "127.0.0.1")]));
    json(&served.run_with(&["agents"], &[("http_proxy", &proxy), ("no_proxy", "127.0.0.1")]));
    json(&served.run_with(&["agents", "--no-proxy"], &[("HTTP_PROXY", &proxy)]));
    let option = failure(&served.run(&["agents", "--max-retries", "0", "--proxy", &proxy]));
    assert!(!option.contains("pr0xy-pass"), "{option}");
    let bad = failure(&served.run(&["agents", "--proxy", "proxy.corp:3128"]));
    assert!(bad.contains("proxy"), "{bad}");
    json(&served.run(&["agents", "--max-connections", "2"]));
    let zero = failure(&served.run(&["agents", "--max-connections", "0"]));
    assert!(zero.contains("max_connections"), "{zero}");
}

#[test]
fn secrets_come_from_files_and_systemd_credentials_never_from_the_command_line() {
    let served = Served::start();
    let dir = std::env::temp_dir().join(format!("monapi-cli-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("password"), "123456\n").unwrap();
    std::fs::write(dir.join("secret"), "demo_secret\n").unwrap();
    // `monapi agents ARGS` with the account but no secret in the environment, besides `env`.
    let agents = |args: &[&str], env: &[(&str, &std::ffi::OsStr)]| {
        Command::new(BIN)
            .arg("agents")
            .args(args)
            .env_remove("MONAPI_PASSWORD")
            .env_remove("MONAPI_CLIENT_SECRET")
            .env("MONAPI_BASE_URL", &served.base_url)
            .env("MONAPI_CLIENT_ID", "demo_id")
            .env("MONAPI_USERNAME", "test@example.com")
            .envs(env.iter().copied())
            .output()
            .unwrap()
    };
    let succeeded = |output: Output| {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let password = dir.join("password").to_string_lossy().into_owned();
    let secret = dir.join("secret").to_string_lossy().into_owned();

    succeeded(agents(
        &["--password-file", &password, "--client-secret-file", &secret],
        &[],
    ));
    succeeded(agents(
        &[],
        &[
            ("MONAPI_PASSWORD_FILE", password.as_ref()),
            ("MONAPI_CLIENT_SECRET_FILE", secret.as_ref()),
        ],
    ));

    std::fs::rename(dir.join("password"), dir.join("monapi.password")).unwrap();
    std::fs::rename(dir.join("secret"), dir.join("monapi.client_secret")).unwrap();
    succeeded(agents(&[], &[("CREDENTIALS_DIRECTORY", dir.as_os_str())]));

    // A file that is not there: a usage error naming the flag's setting, nothing sent.
    let credential = dir.join("monapi.client_secret").to_string_lossy().into_owned();
    let output = agents(
        &[
            "--password-file",
            "/nonexistent/password",
            "--client-secret-file",
            &credential,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("password_file") && stderr.contains("/nonexistent/password"),
        "{stderr}"
    );
    assert!(!stderr.contains("demo_secret"), "{stderr}");

    let help = Command::new(BIN).args(["agents", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for variable in [
        "MONAPI_PASSWORD_FILE",
        "MONAPI_CLIENT_SECRET_FILE",
        "MONAPI_PASSWORD_MD5",
        "MONAPI_TIMEOUT",
    ] {
        assert!(help.contains(variable), "--help does not name {variable}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
