//! Flags from their `MONAPI_*` variables, as a unit file or a container sets them: every flag
//! of the exporter (lists separated by commas), a flag given winning over its variable, a blank
//! variable counting as unset, a bad value naming its variable; `monapi sync` with its store
//! from `MONAPI_STORE`; `monapi serve` from `MONAPI_SERVE_*`.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use monapi_emulator::{Config, Emulator};
use serde_json::Value;

use crate::cli::ca_file;
use crate::export::monapi;
use crate::exporter::get;
use crate::logs::Running;

/// The address of a `listening on http://ADDRESS/...` line.
fn address(line: &str) -> SocketAddr {
    let (_, rest) = line.split_once("listening on http://").unwrap();
    rest.split('/').next().unwrap().parse().unwrap()
}

/// The exposition once the first refresh is published (its line is logged just before).
fn refreshed(address: SocketAddr) -> String {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, body) = get(address, "/metrics", false);
        let exposition = String::from_utf8(body).unwrap();
        let last = exposition
            .lines()
            .find_map(|line| line.strip_prefix("monapi_last_refresh_timestamp_seconds "))
            .and_then(|value| value.parse::<f64>().ok());
        if last.is_some_and(|last| last > 0.0) {
            return exposition;
        }
        assert!(Instant::now() < deadline, "no refresh: {exposition}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The `task_id` labels of the samples of `name` in an exposition.
fn task_ids(exposition: &str, name: &str) -> BTreeSet<String> {
    exposition
        .lines()
        .filter(|line| line.starts_with(&format!("{name}{{")))
        .filter_map(|line| line.split_once("task_id=\""))
        .map(|(_, rest)| rest.split('"').next().unwrap().to_string())
        .collect()
}

/// The id and type of each site task (`monapi sites`).
fn site_types(emulator: &Emulator) -> Vec<(String, String)> {
    let output = monapi(emulator).arg("sites").output().unwrap();
    let sites: Value = serde_json::from_slice(&output.stdout).unwrap();
    let text = |value: &Value| value.as_str().unwrap().to_string();
    sites
        .as_array()
        .unwrap()
        .iter()
        .map(|site| (text(&site["task_id"]), text(&site["task_type"])))
        .collect()
}

#[test]
fn the_exporter_takes_every_flag_from_its_variable_lists_separated_by_commas() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    // Four sites asked for: 20005 excluded by its id, 20003 (and any of its type) by its type.
    let types = site_types(&emulator);
    let (_, dropped) = types.iter().find(|(id, _)| id == "20003").unwrap();
    let expected: BTreeSet<String> = types
        .iter()
        .filter(|(id, kind)| ["20001", "20002", "20003"].contains(&id.as_str()) && kind != dropped)
        .map(|(id, _)| id.clone())
        .collect();
    assert!(!expected.is_empty(), "{types:?}");
    let mut exporter = Running::spawn(monapi(&emulator).arg("exporter").envs([
        ("MONAPI_LISTEN", "127.0.0.1:0"),
        ("MONAPI_INTERVAL", "600"),
        ("MONAPI_STALE_AFTER", "3000"),
        ("MONAPI_SLO", "0.99"),
        ("MONAPI_SITE", "20001,20002,20003,20005"),
        ("MONAPI_EXCLUDE_SITE", "20005"),
        ("MONAPI_SERVICE", "10011,10014,10010"),
        ("MONAPI_EXCLUDE_SERVICE", "10010"),
        ("MONAPI_EXCLUDE_TASK_TYPE", &format!("{dropped},no-such-type")),
        ("MONAPI_CONCURRENCY", "2"),
    ]));
    let listening = exporter.wait_for("monapi exporter listening on");
    assert!(
        listening.contains("(refresh every 600 s, values stale after 3000 s)"),
        "{listening}"
    );
    let exposition = refreshed(address(&listening));
    assert_eq!(
        task_ids(&exposition, "monapi_site_task_info"),
        expected,
        "{types:?}"
    );
    // The excluded types are sites': the services asked for are all there.
    assert_eq!(
        task_ids(&exposition, "monapi_service_task_info"),
        BTreeSet::from(["10011".to_string(), "10014".to_string()])
    );
    assert!(
        exposition.contains("monapi_site_error_budget_remaining_ratio{"),
        "MONAPI_SLO"
    );
}

#[test]
fn a_flag_given_wins_a_blank_variable_is_unset_and_a_bad_value_names_its_variable() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    // MONAPI_INTERVAL is below the core's bound: the flag wins over it.
    let mut exporter = Running::spawn(
        monapi(&emulator)
            .args(["exporter", "--listen", "127.0.0.1:0", "--interval", "900"])
            .envs([("MONAPI_INTERVAL", "5"), ("MONAPI_SLO", ""), ("MONAPI_SITE", " ")]),
    );
    let listening = exporter.wait_for("monapi exporter listening on");
    assert!(listening.contains("(refresh every 900 s"), "{listening}");
    // Stopped once it runs (its signal handlers set).
    exporter.wait_for("refreshed: ");
    let (status, lines) = exporter.stop();
    assert!(status.success(), "{status}: {lines:#?}");

    let logins = emulator.counters().token;
    for (var, value, needles) in [
        (
            "MONAPI_CONCURRENCY",
            "lots",
            ["--concurrency", "MONAPI_CONCURRENCY"],
        ),
        ("MONAPI_SITE", "20001;20002", ["--site", "MONAPI_SITE"]),
        ("MONAPI_LISTEN", "localhost", ["--listen", "MONAPI_LISTEN"]),
    ] {
        let output = monapi(&emulator)
            .arg("exporter")
            .env(var, value)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{var}={value}: {output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        for needle in needles {
            assert!(stderr.contains(needle), "{needle}: {stderr}");
        }
    }
    assert_eq!(emulator.counters().token, logins, "a usage error sends nothing");
}

#[test]
fn sync_takes_its_store_from_monapi_store_and_refuses_without_one() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("variables")
        .join("store");
    let _ = std::fs::remove_dir_all(&dir);
    let today = emulator.today();
    let day = (today - chrono::Days::new(3)).to_string();
    let sync = ["sync", "--task", "10011", "--from", &day, "--to", &day];

    let output = monapi(&emulator).args(sync).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("store") && stderr.contains("MONAPI_STORE"),
        "{stderr}"
    );
    assert_eq!(emulator.counters().token, 0, "nothing sent without a store");

    let output = monapi(&emulator)
        .args(sync)
        .env("MONAPI_STORE", &dir)
        .env("MONAPI_CONCURRENCY", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let kept = dir
        .join("service_report")
        .join(format!("day={day}"))
        .join("task-10011.parquet");
    assert!(kept.is_file(), "{}", kept.display());
}

#[test]
fn serve_takes_its_address_and_tls_from_its_variables() {
    let mut served = Running::spawn(
        std::process::Command::new(env!("CARGO_BIN_EXE_monapi"))
            .arg("serve")
            .envs([
                ("MONAPI_SERVE_HOST", "127.0.0.1"),
                ("MONAPI_SERVE_PORT", "0"),
                ("MONAPI_SERVE_SEED", "7"),
                ("MONAPI_SERVE_TLS", "true"),
            ]),
    );
    let line = served.wait_for("monapi emulator listening on");
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("https://127.0.0.1:"))
        .unwrap_or_else(|| panic!("{line}"));
    // Port 0 asked for a free one, not the default 8080.
    assert!(!url.contains(":8080"), "{line}");
    // Stopped as a supervisor stops it (SIGTERM): exit code 0, its CA's file gone with it.
    let ca = ca_file(&line).unwrap_or_else(|| panic!("no CA file in {line}"));
    let (status, lines) = served.stop();
    assert!(status.success(), "{status:?}: {lines:#?}");
    assert!(!Path::new(&ca).exists(), "{ca} left behind");
}
