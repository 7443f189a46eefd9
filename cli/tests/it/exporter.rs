//! `monapi exporter`: its metrics against the tables, the filters, a failed refresh, the store
//! across a restart, and bad arguments. Each test runs the binary against an emulator on
//! loopback and reads `/metrics` over HTTP.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{Days, NaiveDate};
use monapi::table::arrow_array::cast::AsArray;
use monapi::table::arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampSecondType};
use monapi::table::arrow_array::{Array, StringArray};
use monapi::{Client, DateRange, Monitor};
use monapi_emulator::{Config, Emulator, Faults};

use crate::export::{client, monapi};

/// A running exporter: its address, its stderr so far; killed when dropped.
pub(crate) struct Exporter {
    child: Child,
    pub(crate) address: SocketAddr,
    pub(crate) stderr: Arc<Mutex<String>>,
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Exporter {
    /// `monapi exporter --listen 127.0.0.1:0 <args>`, once it listens.
    pub(crate) fn start(emulator: &Emulator, args: &[&str]) -> Exporter {
        let mut child = monapi(emulator)
            .env("MONAPI_MAX_RETRIES", "0")
            .args(["exporter", "--listen", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (sender, receiver) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap());
        let shared = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if let Some((_, url)) = line.split_once("monapi exporter listening on ") {
                    // http://, or https:// with a web configuration (exporter_web.rs)
                    let rest = url.split_once("://").unwrap().1;
                    let _ = sender.send(rest.split('/').next().unwrap().parse::<SocketAddr>().unwrap());
                }
                shared.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let address = receiver
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("the exporter did not listen: {}", stderr.lock().unwrap()));
        Exporter {
            child,
            address,
            stderr,
        }
    }

    fn get(&self, path: &str, gzip: bool) -> (String, Vec<u8>) {
        get(self.address, path, gzip)
    }

    fn metrics(&self) -> Metrics {
        let (_, body) = self.get("/metrics", false);
        Metrics::parse(&String::from_utf8(body).unwrap())
    }

    /// The metrics once a refresh later than `after` (its end, in seconds) has ended.
    fn refreshed_after(&self, after: f64) -> Metrics {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let metrics = self.metrics();
            if metrics
                .value("monapi_last_refresh_timestamp_seconds", &[])
                .is_some_and(|t| t > after)
            {
                return metrics;
            }
            assert!(
                Instant::now() < deadline,
                "no refresh: {}",
                self.stderr.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Asks for a refresh now (SIGHUP) and waits for it.
    fn refresh(&self, before: &Metrics) -> Metrics {
        let last = before
            .value("monapi_last_refresh_timestamp_seconds", &[])
            .unwrap();
        // SAFETY: kill(2) with a pid of our own child.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, libc::SIGHUP) }, 0);
        self.refreshed_after(last)
    }
}

/// A GET over HTTP/1.0 (the body then ends with the connection): status line and body.
pub(crate) fn get(address: SocketAddr, path: &str, gzip: bool) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let accept = if gzip { "Accept-Encoding: gzip\r\n" } else { "" };
    write!(stream, "GET {path} HTTP/1.0\r\nHost: test\r\n{accept}\r\n").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(answer[..split].to_vec()).unwrap();
    (head, answer[split + 4..].to_vec())
}

/// An exposition's samples: name, labels, value.
struct Metrics(Vec<(String, BTreeMap<String, String>, f64)>);

impl Metrics {
    fn parse(text: &str) -> Metrics {
        let samples = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .map(|line| {
                let (series, value) = line.rsplit_once(' ').unwrap();
                let (name, labels) = match series.split_once('{') {
                    Some((name, rest)) => (name, rest.strip_suffix('}').unwrap()),
                    None => (series, ""),
                };
                let labels = labels
                    .split("\",")
                    .filter(|pair| !pair.is_empty())
                    .map(|pair| {
                        let (key, value) = pair.split_once("=\"").unwrap();
                        (key.to_string(), value.trim_end_matches('"').to_string())
                    })
                    .collect();
                (name.to_string(), labels, value.parse().unwrap())
            })
            .collect();
        Metrics(samples)
    }

    /// The samples of `name` whose labels include `labels`.
    fn find<'a>(
        &'a self,
        name: &'a str,
        labels: &'a [(&str, &str)],
    ) -> impl Iterator<Item = &'a (String, BTreeMap<String, String>, f64)> {
        self.0.iter().filter(move |(n, l, _)| {
            n == name
                && labels
                    .iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
        })
    }

    fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let found: Vec<_> = self.find(name, labels).collect();
        assert!(found.len() <= 1, "{name} {labels:?}: {} samples", found.len());
        found.first().map(|(_, _, v)| *v)
    }

    fn task_ids(&self, name: &str) -> BTreeSet<String> {
        self.find(name, &[])
            .map(|(_, l, _)| l["task_id"].clone())
            .collect()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn close(actual: Option<f64>, expected: f64, what: &str) {
    let actual = actual.unwrap_or_else(|| panic!("{what}: missing"));
    assert!((actual - expected).abs() < 1e-9, "{what}: {actual} != {expected}");
}

/// What the tables say of one point of a site over its 30 days (the rows of `monitor_id`).
struct Expected {
    /// (day, uprate in percent) of each check.
    checks: Vec<(NaiveDate, f64)>,
    last_time: i64,
    last_uprate: f64,
    last_avg_ms: f64,
}

fn expected(client: &Client, task: u64, today: NaiveDate) -> BTreeMap<i64, Expected> {
    let range = DateRange::new(today - Days::new(29), today);
    let tables = runtime()
        .block_on(client.tables().site_report(task, range, Monitor::All))
        .unwrap();
    let timezone = client.timezone();
    let day = |t: i64| {
        chrono::DateTime::from_timestamp(t, 0)
            .unwrap()
            .with_timezone(&timezone)
            .date_naive()
    };
    let availability = &tables.availability;
    let ids = availability
        .column_by_name("monitor_id")
        .unwrap()
        .as_primitive::<Int64Type>();
    let times = availability
        .column_by_name("time")
        .unwrap()
        .as_primitive::<TimestampSecondType>();
    let uprate = availability
        .column_by_name("uprate")
        .unwrap()
        .as_primitive::<Float64Type>();
    let mut points: BTreeMap<i64, Expected> = BTreeMap::new();
    for row in 0..availability.num_rows() {
        let point = points.entry(ids.value(row)).or_insert(Expected {
            checks: Vec::new(),
            last_time: i64::MIN,
            last_uprate: f64::NAN,
            last_avg_ms: f64::NAN,
        });
        point.checks.push((day(times.value(row)), uprate.value(row)));
        if times.value(row) >= point.last_time {
            point.last_time = times.value(row);
            point.last_uprate = uprate.value(row);
        }
    }
    let response = &tables.response_time;
    let ids = response
        .column_by_name("monitor_id")
        .unwrap()
        .as_primitive::<Int64Type>();
    let times = response
        .column_by_name("time")
        .unwrap()
        .as_primitive::<TimestampSecondType>();
    let avg = response
        .column_by_name("resptime_avg")
        .unwrap()
        .as_primitive::<Float64Type>();
    for row in 0..response.num_rows() {
        let point = points.get_mut(&ids.value(row)).unwrap();
        if times.value(row) == point.last_time {
            point.last_avg_ms = avg.value(row);
        }
    }
    points
}

fn mean_from(checks: &[(NaiveDate, f64)], first: NaiveDate) -> f64 {
    let rates: Vec<f64> = checks
        .iter()
        .filter(|(d, _)| *d >= first)
        .map(|(_, r)| r / 100.0)
        .collect();
    rates.iter().sum::<f64>() / rates.len() as f64
}

/// A moment a few seconds behind the wall clock, for an emulator whose clock stands still
/// while the exporter reads the wall clock. Every check the emulator shows is then seconds
/// before the exporter's now, so a fault that starts at the last check has gone on for some
/// seconds (at the same second its downtime would be 0). Close to the service's midnight it
/// first waits (at most 40 s) until both clocks are well inside the same day.
fn behind_the_wall_clock() -> chrono::DateTime<chrono::Utc> {
    const BEHIND: i64 = 5;
    let now = chrono::Utc::now().with_timezone(&monapi::SERVICE_TIMEZONE);
    let into_day = i64::from(chrono::Timelike::num_seconds_from_midnight(&now));
    let wait = if into_day < 2 * BEHIND {
        2 * BEHIND - into_day
    } else if into_day > 86_400 - 30 {
        86_400 - into_day + 2 * BEHIND
    } else {
        0
    };
    std::thread::sleep(Duration::from_secs(wait.unsigned_abs()));
    chrono::Utc::now() - chrono::TimeDelta::seconds(BEHIND)
}

#[test]
fn the_metrics_equal_what_the_tables_give_and_promtool_accepts_them() {
    // The emulator's clock stands still, so that the tables read after the exporter's refresh
    // have no check it did not see.
    let config = Config {
        now: Some(behind_the_wall_clock()),
        ..Config::default()
    };
    let emulator = Emulator::spawn_thread(config).unwrap();
    let failing = 20004;
    emulator.fail_site(failing).unwrap();
    let exporter = Exporter::start(&emulator, &["--slo", "0.99"]);
    let metrics = exporter.refreshed_after(0.0);
    assert_eq!(
        metrics.value("monapi_up", &[]),
        Some(1.0),
        "{}",
        exporter.stderr.lock().unwrap()
    );
    // The exporter's requests so far (the test's own table calls come next).
    let exporters = emulator.counters().site_report;
    let client = client(&emulator);
    let today = emulator.today();
    for task in 20001..=20005u64 {
        let id = task.to_string();
        for (monitor, point) in expected(&client, task, today) {
            let monitor = monitor.to_string();
            let labels = |extra: &[(&'static str, &'static str)]| -> Vec<(&str, &str)> {
                let mut all = vec![("task_id", id.as_str()), ("monitor_id", monitor.as_str())];
                all.extend_from_slice(extra);
                all
            };
            let what = format!("task {id} point {monitor}");
            for (window, days) in [("1d", 0), ("7d", 6), ("30d", 29)] {
                let ratio = mean_from(&point.checks, today - Days::new(days));
                let name = "monapi_site_uptime_ratio";
                close(
                    metrics.value(name, &labels(&[("window", window)])),
                    ratio,
                    &format!("{what} {window}"),
                );
                let budget = (ratio - 0.99) / 0.01;
                let name = "monapi_site_error_budget_remaining_ratio";
                close(
                    metrics.value(name, &labels(&[("window", window)])),
                    budget,
                    &format!("{what} budget {window}"),
                );
            }
            let availability = metrics.value("monapi_site_availability_ratio", &labels(&[]));
            close(
                availability,
                point.last_uprate / 100.0,
                &format!("{what} availability"),
            );
            let up = if point.last_uprate > 0.0 { 1.0 } else { 0.0 };
            assert_eq!(metrics.value("monapi_site_up", &labels(&[])), Some(up), "{what}");
            let last = metrics.value("monapi_site_last_check_timestamp_seconds", &labels(&[]));
            assert_eq!(last, Some(point.last_time as f64), "{what}");
            let avg = metrics.value("monapi_site_response_time_seconds", &labels(&[("stat", "avg")]));
            close(avg, point.last_avg_ms / 1000.0, &format!("{what} avg"));
            // The average has no faults of its own; each point has its fault metrics.
            let has_faults = metrics.value("monapi_site_fault_ongoing", &labels(&[])).is_some();
            assert_eq!(has_faults, monitor != "0", "{what}");
        }
    }
    // Every point of the failing site has its ongoing fault, and each ongoing fault its
    // downtime.
    let ongoing: Vec<_> = metrics
        .find("monapi_site_fault_ongoing", &[])
        .filter(|s| s.2 == 1.0)
        .collect();
    let failing_points = metrics
        .find("monapi_site_fault_ongoing", &[("task_id", &failing.to_string())])
        .count();
    assert!(failing_points > 1);
    assert_eq!(
        ongoing
            .iter()
            .filter(|(_, l, _)| l["task_id"] == failing.to_string())
            .count(),
        failing_points
    );
    for (_, labels, _) in ongoing {
        let pick = [
            ("task_id", labels["task_id"].as_str()),
            ("monitor_id", labels["monitor_id"].as_str()),
            ("window", "1d"),
        ];
        assert!(metrics.value("monapi_site_downtime_seconds", &pick).unwrap() > 0.0);
        assert!(metrics.value("monapi_site_faults", &pick).unwrap() >= 1.0);
    }
    // Each service task's last values equal its table's last non-null value per series and metric.
    for task in [10001u64, 10002, 10050] {
        let report = runtime()
            .block_on(client.tables().service_report(task, DateRange::on(today)))
            .unwrap();
        let series = report
            .column_by_name("series")
            .unwrap()
            .as_dictionary::<Int32Type>()
            .downcast_dict::<StringArray>()
            .unwrap();
        let metric = report
            .column_by_name("metric")
            .unwrap()
            .as_dictionary::<Int32Type>()
            .downcast_dict::<StringArray>()
            .unwrap();
        let values = report
            .column_by_name("value")
            .unwrap()
            .as_primitive::<Float64Type>();
        let mut last: BTreeMap<(String, String), f64> = BTreeMap::new();
        for row in (0..report.num_rows()).filter(|&row| values.is_valid(row)) {
            use monapi::table::arrow_array::ArrayAccessor as _;
            last.insert(
                (series.value(row).into(), metric.value(row).into()),
                values.value(row),
            );
        }
        let id = task.to_string();
        let exported: BTreeMap<(String, String), f64> = metrics
            .find("monapi_service_value", &[("task_id", &id)])
            .map(|(_, l, v)| ((l["series"].clone(), l["metric"].clone()), *v))
            .collect();
        assert!(!last.is_empty());
        assert_eq!(exported, last, "service task {task}");
    }
    assert_eq!(metrics.task_ids("monapi_service_task_info").len(), 120);
    let agents = runtime().block_on(client.agents()).unwrap();
    assert_eq!(metrics.find("monapi_agent_info", &[]).count(), agents.len());
    let plugins: usize = agents.values().map(|a| a.plugin.len()).sum();
    assert_eq!(metrics.find("monapi_agent_plugin_info", &[]).count(), plugins);

    // promtool reads the exposition as Prometheus does, and lints it.
    let (head, plain) = exporter.get("/metrics", false);
    assert!(head.contains("text/plain; version=0.0.4"), "{head}");
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (make installs the prometheus package)");
    promtool.stdin.take().unwrap().write_all(&plain).unwrap();
    let checked = promtool.wait_with_output().unwrap();
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    // Gzipped: the same text, in one gzip member (curl and reqwest read only the first).
    let (head, gzipped) = exporter.get("/metrics", true);
    assert!(
        head.to_ascii_lowercase().contains("content-encoding: gzip"),
        "{head}"
    );
    let mut text = Vec::new();
    let mut member = flate2::bufread::GzDecoder::new(&gzipped[..]);
    member.read_to_end(&mut text).unwrap();
    assert_eq!(member.into_inner().len(), 0, "bytes after the gzip member");
    assert!(String::from_utf8_lossy(&text).contains("\nmonapi_up "));
    let data = |bytes: &[u8]| {
        String::from_utf8(bytes.to_vec())
            .unwrap()
            .split("# HELP monapi_api_requests_total")
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(data(&text), data(&plain));
    assert!(gzipped.len() * 4 < plain.len());
    // The page links to the metrics; liveness and readiness say so.
    let (head, page) = exporter.get("/", false);
    assert!(
        head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
        "{head}"
    );
    assert!(String::from_utf8(page).unwrap().contains(r#"href="metrics""#));
    let (head, health) = exporter.get("/health", false);
    assert!(head.contains(" 200 "), "{head}");
    assert_eq!(String::from_utf8(health).unwrap(), r#"{"status":"ok"}"#);
    let (head, ready) = exporter.get("/ready", false);
    assert!(head.contains(" 200 "), "{head}");
    assert_eq!(
        String::from_utf8(ready).unwrap(),
        r#"{"ready":true,"refreshed":true,"failed_in_a_row":0}"#
    );

    // A scrape sends nothing; a refresh fetches the unsettled days only: one report per site.
    let before = emulator.counters();
    for _ in 0..3 {
        exporter.get("/metrics", true);
    }
    assert_eq!(emulator.counters().site_report, before.site_report);
    let again = exporter.refresh(&metrics);
    assert_eq!(emulator.counters().site_report - before.site_report, 5);
    assert_eq!(again.value("monapi_up", &[]), Some(1.0));
    let requests = again.value(
        "monapi_api_requests_total",
        &[("endpoint", "site_report"), ("code", "200")],
    );
    assert_eq!(requests, Some((exporters + 5) as f64));
}

#[test]
fn filters_keep_the_tasks_asked_for_and_drop_the_excluded() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let exporter = Exporter::start(
        &emulator,
        &[
            "--site",
            "20001",
            "20002",
            "20003",
            "--exclude-site",
            "20002",
            "--service",
            "10001",
            "10002",
            "10003",
            "10004",
            "--exclude-service",
            "10004",
            "--exclude-task-type",
            "ping",
        ],
    );
    let metrics = exporter.refreshed_after(0.0);
    let types: BTreeMap<String, String> = metrics
        .find("monapi_site_task_info", &[])
        .map(|(_, l, _)| (l["task_id"].clone(), l["task_type"].clone()))
        .collect();
    // 20003 checks with ping (emulator/README.md): excluded by type.
    assert_eq!(
        types.keys().cloned().collect::<BTreeSet<_>>(),
        ["20001".to_string()].into()
    );
    assert_eq!(metrics.task_ids("monapi_site_up"), ["20001".to_string()].into());
    let services = metrics.task_ids("monapi_service_task_info");
    assert_eq!(services, ["10001", "10002", "10003"].map(String::from).into());
    // Only what was kept was asked for: the site's reports and three services'.
    assert_eq!(emulator.counters().service_report, 3);
    // By type alone.
    drop(exporter);
    let exporter = Exporter::start(&emulator, &["--task-type", "https", "--exclude-service", "10001"]);
    let metrics = exporter.refreshed_after(0.0);
    let sites = metrics.task_ids("monapi_site_task_info");
    assert!(!sites.is_empty());
    for (_, labels, _) in metrics.find("monapi_site_task_info", &[]) {
        assert_eq!(labels["task_type"], "https");
    }
    assert!(
        metrics.task_ids("monapi_service_task_info").is_empty(),
        "no service task is https"
    );
}

#[test]
fn a_failed_refresh_keeps_the_last_values_and_sets_monapi_up_to_0() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let exporter = Exporter::start(&emulator, &["--site", "20001", "--service", "10011"]);
    let metrics = exporter.refreshed_after(0.0);
    let site = |m: &Metrics| {
        m.find("monapi_site_uptime_ratio", &[])
            .map(|(_, l, v)| (l.clone(), *v))
            .collect::<Vec<_>>()
    };
    emulator
        .set_faults(Faults {
            error_500: 1.0,
            ..Faults::default()
        })
        .unwrap();
    let failed = exporter.refresh(&metrics);
    assert_eq!(failed.value("monapi_up", &[]), Some(0.0));
    assert_eq!(site(&failed), site(&metrics), "the last values stand");
    assert!(!site(&failed).is_empty());
    assert!(failed.value("monapi_last_refresh_failures", &[]).unwrap() >= 1.0);
    assert!(
        failed
            .value(
                "monapi_api_requests_total",
                &[("endpoint", "site_tasks"), ("code", "500")]
            )
            .unwrap()
            >= 1.0
    );
    let errors: f64 = failed.find("monapi_api_errors_total", &[]).map(|s| s.2).sum();
    assert!(errors >= 1.0);
    // Every failure is on stderr, and no secret anywhere.
    let stderr = exporter.stderr.lock().unwrap().clone();
    assert!(
        stderr.contains(" ERROR refresh failed (1 in a row): "),
        "{stderr}"
    );
    let (_, body) = exporter.get("/metrics", false);
    let body = String::from_utf8(body).unwrap();
    let md5 = monapi::md5_hex("123456");
    for secret in ["123456", "demo_secret", md5.expose()] {
        assert!(!leaks(secret, &stderr) && !leaks(secret, &body), "{secret}");
    }
    // Answers that are not what the service sends: bodies garbled or cut short. Still no
    // panic, the last values stand.
    emulator
        .set_faults(Faults {
            malformed_body: 0.5,
            truncated_body: 0.5,
            ..Faults::default()
        })
        .unwrap();
    let garbled = exporter.refresh(&failed);
    assert_eq!(garbled.value("monapi_up", &[]), Some(0.0));
    assert_eq!(site(&garbled), site(&metrics));
    emulator.set_faults(Faults::default()).unwrap();
    let recovered = exporter.refresh(&garbled);
    assert_eq!(recovered.value("monapi_up", &[]), Some(1.0));
}

/// The status line of a GET.
fn status(exporter: &Exporter, path: &str) -> String {
    let (head, _) = exporter.get(path, false);
    head.lines().next().unwrap().to_string()
}

/// The lines of the exporter's stderr that have `needle`.
fn lines_with(exporter: &Exporter, needle: &str) -> Vec<String> {
    let stderr = exporter.stderr.lock().unwrap();
    stderr
        .lines()
        .filter(|l| l.contains(needle))
        .map(String::from)
        .collect()
}

#[test]
fn readiness_fails_after_three_failed_refreshes_and_recovers_while_liveness_holds() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    emulator
        .set_faults(Faults {
            error_500: 1.0,
            ..Faults::default()
        })
        .unwrap();
    let exporter = Exporter::start(&emulator, &["--site", "20001"]);
    let mut metrics = exporter.refreshed_after(0.0);
    for failed in 1..=3 {
        assert_eq!(metrics.value("monapi_up", &[]), Some(0.0));
        let ready = status(&exporter, "/ready");
        if failed < 3 {
            assert!(ready.contains(" 200 "), "{failed} failed: {ready}");
            metrics = exporter.refresh(&metrics);
        } else {
            assert!(ready.contains(" 503 "), "{failed} failed: {ready}");
        }
        assert!(
            status(&exporter, "/health").contains(" 200 "),
            "an outage is no death"
        );
    }
    // One line per failed refresh (the three lists' errors alike, counted), with a time and
    // a level.
    let failures = lines_with(&exporter, "refresh failed");
    assert_eq!(failures.len(), 3, "{failures:#?}");
    for (line, n) in failures.iter().zip(1..) {
        assert!(
            line.contains(&format!(" ERROR refresh failed ({n} in a row): ")),
            "{line}"
        );
        assert!(
            line.contains("HTTP 500") && line.ends_with("(token x3)"),
            "{line}"
        );
        let time = line.split_whitespace().next().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(time).is_ok(), "{line}");
    }
    emulator.set_faults(Faults::default()).unwrap();
    let recovered = exporter.refresh(&metrics);
    assert_eq!(recovered.value("monapi_up", &[]), Some(1.0));
    assert!(status(&exporter, "/ready").contains(" 200 "));
    let again = lines_with(&exporter, "refreshed again after 3 failed refreshes: 1 sites");
    assert_eq!(again.len(), 1, "{}", exporter.stderr.lock().unwrap());
    // SIGHUP and the shutdown are logged.
    assert_eq!(lines_with(&exporter, " INFO SIGHUP: refreshing now").len(), 3);
    // SAFETY: kill(2) with a pid of our own child.
    assert_eq!(
        unsafe { libc::kill(exporter.child.id() as i32, libc::SIGTERM) },
        0
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while lines_with(&exporter, " INFO monapi exporter stopped").is_empty() {
        assert!(Instant::now() < deadline, "{}", exporter.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(lines_with(&exporter, " INFO SIGTERM: shutting down").len(), 1);
}

#[test]
fn a_wrong_password_is_one_line_per_refresh_and_never_ends_the_process() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let exporter = Exporter::start(&emulator, &["--password", "not-the-password"]);
    let mut metrics = exporter.refreshed_after(0.0);
    for _ in 0..2 {
        metrics = exporter.refresh(&metrics);
    }
    assert_eq!(metrics.value("monapi_up", &[]), Some(0.0));
    assert!(status(&exporter, "/ready").contains(" 503 "));
    assert!(status(&exporter, "/health").contains(" 200 "));
    let stderr = exporter.stderr.lock().unwrap().clone();
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains(" ERROR ")).collect();
    assert_eq!(errors.len(), 3, "{stderr}");
    assert!(
        errors
            .iter()
            .all(|l| l.contains("AUTH") || l.contains("invalid_grant")),
        "{stderr}"
    );
    assert!(!stderr.contains("not-the-password"), "{stderr}");
}

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exporter").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn with_a_store_a_restart_reads_the_settled_days_from_it() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let store = scratch("restart");
    let store = store.to_str().unwrap();
    let args = ["--store", store, "--site", "20002", "--service", "10011"];
    let first = Exporter::start(&emulator, &args);
    let before = first.refreshed_after(0.0);
    let fetched = emulator.counters().site_report;
    assert!(
        fetched >= 4,
        "30 days in runs of at most 10, and today: {fetched}"
    );
    drop(first);
    let second = Exporter::start(&emulator, &args);
    let after = second.refreshed_after(0.0);
    assert_eq!(
        emulator.counters().site_report - fetched,
        1,
        "only the days not settled"
    );
    for window in ["7d", "30d"] {
        let ratios = |m: &Metrics| {
            m.find("monapi_site_uptime_ratio", &[("window", window)])
                .map(|(_, l, v)| (l.clone(), *v))
                .collect::<Vec<_>>()
        };
        let (a, b) = (ratios(&before), ratios(&after));
        assert!(!a.is_empty());
        assert_eq!(a.len(), b.len());
        for ((la, va), (lb, vb)) in a.iter().zip(&b) {
            assert_eq!(la, lb);
            // The current day may have gained a check between the two.
            assert!((va - vb).abs() < 0.05, "{la:?}: {va} then {vb}");
        }
    }
}

#[test]
fn bad_arguments_exit_2_naming_the_rule_before_any_request() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    for (args, named) in [
        (&["--interval", "59"][..], "interval"),
        (&["--interval", "18446744073709551615"], "interval"),
        (&["--stale-after", "120"], "stale_after"),
        (&["--slo", "1"], "slo"),
        (&["--slo", "0"], "slo"),
        (&["--concurrency", "0"], "concurrency"),
    ] {
        let output = monapi(&emulator).arg("exporter").args(args).output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
    assert_eq!(emulator.counters().token, 0);
}

#[test]
fn tasks_removed_from_the_account_disappear_and_come_back() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let exporter = Exporter::start(&emulator, &["--service", "10011", "10014"]);
    let metrics = exporter.refreshed_after(0.0);
    let sites = |m: &Metrics| m.task_ids("monapi_site_uptime_ratio");
    let services = |m: &Metrics| m.task_ids("monapi_service_task_info");
    let all_sites: BTreeSet<String> = (20001..=20005).map(|id: u64| id.to_string()).collect();
    assert_eq!(sites(&metrics), all_sites);
    assert_eq!(services(&metrics), ["10011", "10014"].map(String::from).into());
    assert!(emulator.remove_task(20002).unwrap());
    assert!(emulator.remove_task(10014).unwrap());
    let removed = exporter.refresh(&metrics);
    assert_eq!(
        removed.value("monapi_up", &[]),
        Some(1.0),
        "a removal is no failure"
    );
    let mut left = all_sites.clone();
    left.remove("20002");
    assert_eq!(sites(&removed), left);
    assert!(removed
        .find("monapi_site_task_info", &[("task_id", "20002")])
        .next()
        .is_none());
    assert_eq!(services(&removed), ["10011".to_string()].into());
    assert!(emulator.restore_task(20002).unwrap());
    let restored = exporter.refresh(&removed);
    assert_eq!(sites(&restored), all_sites);
}

/// Whether `secret` is in `text` as a value of its own, not inside a longer number or word: the
/// demo password 123456 is a run of digits that a figure of the exposition such as the ratio
/// 0.9984567901234568 holds by chance (on some days of the emulator's data).
fn leaks(secret: &str, text: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric();
    text.match_indices(secret).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + secret.len()..].chars().next();
        !before.is_some_and(|c| word(c) || c == '.') && !after.is_some_and(word)
    })
}

#[test]
fn a_secret_inside_a_longer_number_is_not_a_leak() {
    assert!(!leaks("123456", "ratio 0.9984567901234568\n"));
    assert!(!leaks("123456", "at 10:02:03.123456Z"));
    assert!(leaks("123456", "password=123456&"));
    assert!(leaks("123456", "123456"));
}

#[test]
fn a_signal_right_after_the_listening_line_is_handled_not_fatal() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    // SIGHUP at once: a refresh, not the end of the process (the default action of SIGHUP).
    let exporter = Exporter::start(&emulator, &[]);
    // SAFETY: kill(2) with a pid of our own child.
    assert_eq!(unsafe { libc::kill(exporter.child.id() as i32, libc::SIGHUP) }, 0);
    exporter.refreshed_after(0.0);
    assert!(status(&exporter, "/health").contains(" 200 "));

    // SIGTERM at once: the graceful stop, exit code 0.
    let mut exporter = Exporter::start(&emulator, &[]);
    // SAFETY: as above.
    assert_eq!(
        unsafe { libc::kill(exporter.child.id() as i32, libc::SIGTERM) },
        0
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = exporter.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "{}", exporter.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "{}", exporter.stderr.lock().unwrap());
}
