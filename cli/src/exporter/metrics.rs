//! The exposition: the data metrics rendered once per refresh (Prometheus text format 0.0.4,
//! written by the `prometheus` crate's encoder straight into deflate: a thousand sites' text is
//! 20 MB, compressed 2), and the exporter's own metrics, rendered at each scrape and compressed
//! after the data's, into one gzip member ([`Rendered::member`]).
//!
//! Series per site task: (points + 1, the average) x (1 up + 1 availability + 3 uptime + 3
//! response time + 4 phases + 1 last check), plus points x (1 ongoing + 3 faults + 3
//! downtime), plus 3 per point and the average with `--slo`, plus 1 info. Per service task: one per series and
//! metric of its report, plus 1 info. Per agent: 1, plus 1 per plugin.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, RwLock};

use bytes::Bytes;
use flate2::write::DeflateEncoder;
use flate2::{Compression, CrcWriter};
use prometheus::proto::{Gauge, LabelPair, Metric, MetricFamily, MetricType};
use prometheus::{Encoder, IntCounterVec, Opts, Registry, TextEncoder};

use super::refresh::{Outcome, PointState, SiteState, Snapshot, Task, WINDOWS};

/// The content type of the text format.
pub(crate) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// One rendering of the data metrics: the start of a gzip member, made once per refresh. A
/// scrape ends the member with the exporter's own metrics ([`Rendered::member`]).
///
/// One member, not the data's and the exporter's own as two: RFC 1952 allows several, but
/// curl, reqwest, flate2's `GzDecoder` and others read the first only, and lost the exporter's
/// own metrics. Deflate blocks may follow one another from two compressors as long as the
/// first stream was flushed to a byte boundary and not ended (as pigz joins its pieces), so
/// the data's blocks are compressed once and the exporter's follow them at each scrape; the
/// member's trailer, the CRC-32 and length of the whole text, continues the data's.
pub(crate) struct Rendered {
    /// The gzip header and the data's deflate blocks, sync-flushed, none of them final.
    head: Bytes,
    /// CRC-32 of the data's text.
    crc: u32,
    /// Its length (modulo 2^32, as the trailer has it).
    len: u32,
}

/// The gzip header: deflate, no flags, no time, no extra field, operating system unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

/// Compression of the exposition: the fastest level (the data's 20 MB are compressed at every
/// refresh, and scrapes come on a local network).
const LEVEL: Compression = Compression::fast();

impl Rendered {
    /// The text `write` writes, compressed as the start of a member.
    fn new(write: impl FnOnce(&mut dyn std::io::Write)) -> Rendered {
        let mut encoder = CrcWriter::new(DeflateEncoder::new(GZIP_HEADER.to_vec(), LEVEL));
        write(&mut encoder);
        let (crc, len) = (encoder.crc().sum(), encoder.crc().amount());
        let mut deflate = encoder.into_inner();
        // A sync flush: every block so far written out, ending on a byte boundary, none final.
        deflate.flush().expect("writing to memory");
        // (Dropped, the encoder ends its stream into the emptied vector, which goes with it.)
        let head = std::mem::take(deflate.get_mut());
        Rendered {
            head: Bytes::from(head),
            crc,
            len,
        }
    }

    /// The whole gzip member of the data, then `own`: the head made at the refresh, and
    /// `own`'s deflate blocks (the last one final) with the trailer of the whole text.
    pub(crate) fn member(&self, own: &[u8]) -> [Bytes; 2] {
        let mut tail = DeflateEncoder::new(Vec::with_capacity(own.len() / 4 + 16), LEVEL);
        tail.write_all(own).expect("writing to memory");
        let mut tail = tail.finish().expect("writing to memory");
        let mut crc = crc32fast::Hasher::new_with_initial(self.crc);
        crc.update(own);
        tail.extend_from_slice(&crc.finalize().to_le_bytes());
        tail.extend_from_slice(&self.len.wrapping_add(own.len() as u32).to_le_bytes());
        [self.head.clone(), Bytes::from(tail)]
    }
}

/// What a scrape serves: the last rendering and the exporter's own metrics.
pub(crate) struct Exposition {
    data: RwLock<Arc<Rendered>>,
    own: Registry,
    up: prometheus::Gauge,
    last_refresh: prometheus::Gauge,
    last_duration: prometheus::Gauge,
    last_failures: prometheus::IntGauge,
    pub(crate) requests: IntCounterVec,
    errors: IntCounterVec,
    refreshed: AtomicBool,
    /// Refreshes in a row that failed as a whole (the service did not answer).
    failed_in_a_row: AtomicU32,
    /// Whether the refresh loop runs (liveness).
    refreshing: AtomicBool,
}

/// Refreshes in a row that fail as a whole before the exporter says it is not ready.
pub(crate) const UNREADY_AFTER: u32 = 3;

impl Exposition {
    pub(crate) fn new() -> Self {
        let own = Registry::new();
        let gauge = |name: &str, help: &str| {
            let gauge = prometheus::Gauge::new(name, help).expect("a valid name");
            own.register(Box::new(gauge.clone())).expect("registered once");
            gauge
        };
        let up = gauge(
            "monapi_up",
            "1 when the last refresh succeeded in every part, 0 when a part failed (its last values stand).",
        );
        let last_refresh = gauge(
            "monapi_last_refresh_timestamp_seconds",
            "When the last refresh ended, in seconds since the epoch.",
        );
        let last_duration = gauge(
            "monapi_last_refresh_duration_seconds",
            "How long the last refresh took.",
        );
        let last_failures = prometheus::IntGauge::new(
            "monapi_last_refresh_failures",
            "Calls of the last refresh that failed.",
        )
        .expect("a valid name");
        own.register(Box::new(last_failures.clone()))
            .expect("registered once");
        let counter = |name: &str, help: &str| {
            let counter =
                IntCounterVec::new(Opts::new(name, help), &["endpoint", "code"]).expect("a valid name");
            own.register(Box::new(counter.clone())).expect("registered once");
            counter
        };
        let requests = counter(
            "monapi_api_requests_total",
            "Answers of the service, by operation and HTTP status (retries included).",
        );
        let errors = counter(
            "monapi_api_errors_total",
            "Calls that failed after their retries, by operation and monapi error code.",
        );
        let build = prometheus::IntGaugeVec::new(
            Opts::new("monapi_exporter_build_info", "The exporter's version."),
            &["version"],
        )
        .expect("a valid name");
        build.with_label_values(&[env!("CARGO_PKG_VERSION")]).set(1);
        own.register(Box::new(build)).expect("registered once");
        Exposition {
            // Before the first refresh: no data metric (an empty text).
            data: RwLock::new(Arc::new(Rendered::new(|_| {}))),
            own,
            up,
            last_refresh,
            last_duration,
            last_failures,
            requests,
            errors,
            refreshed: AtomicBool::new(false),
            failed_in_a_row: AtomicU32::new(0),
            refreshing: AtomicBool::new(true),
        }
    }

    /// Renders a refresh's snapshot and makes it what scrapes serve.
    pub(crate) fn publish(&self, outcome: Outcome) {
        let rendered = Rendered::new(|out| render(&outcome.snapshot, out));
        *self.data.write().expect("never poisoned") = Arc::new(rendered);
        for failure in &outcome.failures {
            let error = &failure.error;
            let endpoint = error.endpoint().map_or("none", |e| e.name());
            self.errors.with_label_values(&[endpoint, error.code()]).inc();
        }
        self.up.set(if outcome.failures.is_empty() { 1.0 } else { 0.0 });
        self.last_failures.set(outcome.failures.len() as i64);
        self.last_duration.set(outcome.took.as_secs_f64());
        self.last_refresh
            .set(chrono::Utc::now().timestamp_millis() as f64 / 1000.0);
        if outcome.reached {
            self.failed_in_a_row.store(0, Ordering::Release);
        } else {
            self.failed_in_a_row.fetch_add(1, Ordering::AcqRel);
        }
        self.refreshed.store(true, Ordering::Release);
    }

    /// Whether a refresh has ended (before it, `/metrics` has only the exporter's own).
    pub(crate) fn refreshed(&self) -> bool {
        self.refreshed.load(Ordering::Acquire)
    }

    /// Refreshes in a row that failed as a whole, up to now.
    pub(crate) fn failed_in_a_row(&self) -> u32 {
        self.failed_in_a_row.load(Ordering::Acquire)
    }

    /// Readiness: a refresh has ended, and the last [`UNREADY_AFTER`] did not all fail.
    pub(crate) fn ready(&self) -> bool {
        self.refreshed() && self.failed_in_a_row() < UNREADY_AFTER
    }

    /// Liveness: the refresh loop runs.
    pub(crate) fn alive(&self) -> bool {
        self.refreshing.load(Ordering::Acquire)
    }

    /// The refresh loop has ended: liveness fails from now on.
    pub(crate) fn refresh_loop_ended(&self) {
        self.refreshing.store(false, Ordering::Release);
    }

    /// The data rendering, and the exporter's own metrics now (plain text).
    pub(crate) fn scrape(&self) -> (Arc<Rendered>, String) {
        let data = self.data.read().expect("never poisoned").clone();
        let mut own = Vec::new();
        TextEncoder::new()
            .encode(&self.own.gather(), &mut own)
            .expect("metrics encode");
        (data, String::from_utf8(own).expect("the text format is UTF-8"))
    }
}

/// Writes the text of every data metric of `snapshot` to `out`, family after family (only
/// one family's series are in memory at once).
pub(crate) fn render(snapshot: &Snapshot, out: &mut dyn std::io::Write) {
    let mut family = Family { out };
    site_families(&mut family, snapshot);
    service_families(&mut family, snapshot);
    agent_families(&mut family, snapshot);
}

/// Writes families one by one.
struct Family<'a> {
    out: &'a mut dyn std::io::Write,
}

impl Family<'_> {
    fn gauge(
        &mut self,
        name: &str,
        help: &str,
        series: impl IntoIterator<Item = (Vec<(&'static str, String)>, f64)>,
    ) {
        let mut family = MetricFamily::default();
        family.set_name(name.into());
        family.set_help(help.into());
        family.set_field_type(MetricType::GAUGE);
        let metrics: Vec<Metric> = series
            .into_iter()
            .map(|(labels, value)| {
                let mut metric = Metric::default();
                metric.set_label(
                    labels
                        .into_iter()
                        .map(|(name, value)| {
                            let mut pair = LabelPair::default();
                            pair.set_name(name.into());
                            pair.set_value(value);
                            pair
                        })
                        .collect(),
                );
                let mut gauge = Gauge::default();
                gauge.set_value(value);
                metric.set_gauge(gauge);
                metric
            })
            .collect();
        if metrics.is_empty() {
            return;
        }
        family.set_metric(metrics);
        TextEncoder::new()
            .encode(&[family], &mut self.out)
            .expect("metrics encode");
    }
}

type Labels = Vec<(&'static str, String)>;

/// A value of a point, with the label that tells it from the point's others (a window, a
/// stat); `None` when the point lacks it.
type Valued = (Option<(&'static str, &'static str)>, Option<f64>);

fn task_labels(site: &SiteState) -> Labels {
    vec![
        ("task_id", site.task.task_id.to_string()),
        ("task_name", site.task.task_name.clone()),
        ("task_type", site.task.task_type.clone()),
    ]
}

fn point_labels(site: &SiteState, point: &PointState) -> Labels {
    let mut labels = task_labels(site);
    labels.push(("monitor_id", point.monitor_id.to_string()));
    labels.push(("monitor", point.monitor.clone()));
    labels
}

fn with(mut labels: Labels, name: &'static str, value: &str) -> Labels {
    labels.push((name, value.to_string()));
    labels
}

/// Every point of every site, with `values` of each (a label added, and its value; none for
/// a value the point lacks).
fn per_point(snapshot: &Snapshot, values: impl Fn(&PointState) -> Vec<Valued>) -> Vec<(Labels, f64)> {
    let mut series = Vec::new();
    for site in &snapshot.sites {
        for point in &site.points {
            for (label, value) in values(point) {
                let Some(value) = value else { continue };
                let labels = point_labels(site, point);
                let labels = match label {
                    Some((name, text)) => with(labels, name, text),
                    None => labels,
                };
                series.push((labels, value));
            }
        }
    }
    series
}

const WINDOW_NAMES: [&str; WINDOWS.len()] = ["1d", "7d", "30d"];
const STATS: [(&str, &str); 3] = [
    ("max", "resptime_max"),
    ("avg", "resptime_avg"),
    ("min", "resptime_min"),
];
const PHASES: [(&str, &str); 4] = [
    ("process", "resp_process_time"),
    ("connect", "resp_connect_time"),
    ("dns", "resp_dns_time"),
    ("download", "resp_download_time"),
];

fn response(point: &PointState, field: &str) -> Option<f64> {
    let index = monapi::table::RESPONSE_TIME_FIELDS
        .iter()
        .position(|f| *f == field)?;
    point.response[index]
}

fn per_window(value: impl Fn(usize) -> Option<f64>) -> Vec<Valued> {
    (0..WINDOWS.len())
        .map(|i| (Some(("window", WINDOW_NAMES[i])), value(i)))
        .collect()
}

fn site_families(family: &mut Family, snapshot: &Snapshot) {
    let bool_value = |b: bool| if b { 1.0 } else { 0.0 };
    family.gauge(
        "monapi_site_up",
        "1 when the last check succeeded from this point (monitor_id 0, the average: from at least one point), 0 when it failed.",
        per_point(snapshot, |p| vec![(None, p.up.map(bool_value))]),
    );
    family.gauge(
        "monapi_site_availability_ratio",
        "Availability of the last check, from 0 to 1 (monitor_id 0, the average: the share of points up).",
        per_point(snapshot, |p| vec![(None, p.availability)]),
    );
    family.gauge(
        "monapi_site_uptime_ratio",
        "Mean availability of the checks of the window (calendar days of the client's time zone ending now; 1d is today), from 0 to 1.",
        per_point(snapshot, |p| per_window(|i| p.windows[i].uptime)),
    );
    family.gauge(
        "monapi_site_response_time_seconds",
        "Response time of the last check (max, avg, min over its attempts).",
        per_point(snapshot, |p| {
            STATS
                .iter()
                .map(|(stat, field)| (Some(("stat", *stat)), response(p, field)))
                .collect()
        }),
    );
    family.gauge(
        "monapi_site_response_phase_seconds",
        "The parts of the last check's response time: dns, connect, process (the server's), download.",
        per_point(snapshot, |p| {
            PHASES
                .iter()
                .map(|(phase, field)| (Some(("phase", *phase)), response(p, field)))
                .collect()
        }),
    );
    family.gauge(
        "monapi_site_last_check_timestamp_seconds",
        "When the last check of this point was made, in seconds since the epoch.",
        per_point(snapshot, |p| vec![(None, p.last_check.map(|t| t as f64))]),
    );
    // The average (monitor 0) has no faults of its own: the fault metrics are the points'.
    let faulty = |p: &PointState| p.monitor_id != 0;
    family.gauge(
        "monapi_site_fault_ongoing",
        "1 while a fault of this point goes on.",
        per_point(snapshot, move |p| {
            vec![(None, faulty(p).then(|| bool_value(p.fault_ongoing)))]
        }),
    );
    family.gauge(
        "monapi_site_faults",
        "Faults of this point under way at some moment of the window.",
        per_point(snapshot, move |p| {
            per_window(|i| faulty(p).then(|| p.windows[i].faults as f64))
        }),
    );
    family.gauge(
        "monapi_site_downtime_seconds",
        "Time of the window its faults cover (an ongoing fault until now).",
        per_point(snapshot, move |p| {
            per_window(|i| faulty(p).then(|| p.windows[i].downtime as f64))
        }),
    );
    if let Some(slo) = snapshot.slo {
        family.gauge(
            "monapi_site_error_budget_remaining_ratio",
            "Share of the error budget of the --slo objective left over the window: (uptime - slo) / (1 - slo); below 0 when overspent.",
            per_point(snapshot, move |p| {
                per_window(|i| p.windows[i].uptime.map(|ratio| monapi::health::error_budget_remaining(ratio, slo)))
            }),
        );
    }
    family.gauge(
        "monapi_site_task_info",
        "A site task's settings as labels (always 1).",
        snapshot.sites.iter().map(|site| {
            let task = &site.task;
            let mut labels = task_labels(site);
            labels.push(("task_summary", task.task_summary.clone()));
            labels.push(("status", task.task_status.clone()));
            labels.push((
                "frequency_minutes",
                task.frequency.map(|f| f.to_string()).unwrap_or_default(),
            ));
            (labels, 1.0)
        }),
    );
}

fn service_families(family: &mut Family, snapshot: &Snapshot) {
    let labels = |task: &Task| -> Labels {
        vec![
            ("task_id", task.task_id.to_string()),
            ("task_name", task.task_name.clone()),
            ("task_type", task.task_type.clone()),
        ]
    };
    family.gauge(
        "monapi_service_value",
        "The last value of each metric of each series of a service task's report today, as the service sent it.",
        snapshot.services.iter().flat_map(|service| {
            service.values.iter().map(move |value| {
                let mut labels = labels(&service.task);
                labels.push(("series", value.series.clone()));
                labels.push(("metric", value.metric.clone()));
                (labels, value.value)
            })
        }),
    );
    family.gauge(
        "monapi_service_task_info",
        "A service task's status and check frequency as labels (always 1).",
        snapshot.services.iter().map(|service| {
            let mut labels = labels(&service.task);
            labels.push(("status", service.task.task_status.clone()));
            labels.push((
                "frequency_minutes",
                service.task.frequency.map(|f| f.to_string()).unwrap_or_default(),
            ));
            (labels, 1.0)
        }),
    );
}

fn agent_families(family: &mut Family, snapshot: &Snapshot) {
    family.gauge(
        "monapi_agent_info",
        "A collector agent (always 1).",
        snapshot
            .agents
            .iter()
            .map(|(id, agent)| (vec![("agent_id", id.clone()), ("agent", agent.name.clone())], 1.0)),
    );
    family.gauge(
        "monapi_agent_plugin_info",
        "A plugin of a collector agent (always 1); plugin_task_uselist_id is what a server task names.",
        snapshot.agents.iter().flat_map(|(id, agent)| {
            agent.plugin.iter().map(move |plugin| {
                (
                    vec![
                        ("agent_id", id.clone()),
                        ("agent", agent.name.clone()),
                        ("plugin_id", plugin.plugin_id.clone()),
                        ("plugin", plugin.plugin_name.clone()),
                        ("plugin_task_uselist_id", plugin.plugin_task_uselist_id.clone()),
                    ],
                    1.0,
                )
            })
        }),
    );
}

/// A `tracing` layer that counts the service's answers by operation and status in
/// `exposition`, reading the core's `response` events (target `monapi`).
pub(crate) fn request_counter(
    exposition: &Arc<Exposition>,
) -> impl tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync + 'static {
    use tracing_subscriber::Layer as _;
    let counter = RequestCounter {
        requests: exposition.requests.clone(),
    };
    let only_monapi = tracing_subscriber::filter::Targets::new().with_target("monapi", tracing::Level::DEBUG);
    counter.with_filter(only_monapi)
}

struct RequestCounter {
    requests: IntCounterVec,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for RequestCounter {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut fields = ResponseFields::default();
        event.record(&mut fields);
        if let (Some(endpoint), Some(status)) = (fields.endpoint, fields.status) {
            // The event shows the endpoint as its method and path; the label is its name.
            let name = monapi::Endpoint::ALL
                .iter()
                .find(|e| e.as_str() == endpoint)
                .map_or("request", |e| e.name());
            self.requests
                .with_label_values(&[name, &status.to_string()])
                .inc();
        }
    }
}

/// The fields of the core's `response` event that the counter reads.
#[derive(Default)]
struct ResponseFields {
    endpoint: Option<String>,
    status: Option<u64>,
}

impl tracing::field::Visit for ResponseFields {
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        if field.name() == "status" {
            self.status = Some(value);
        }
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "endpoint" {
            self.endpoint = Some(format!("{value:?}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exporter::refresh::{ServiceState, WindowState};
    use monapi::health::LastValue;

    fn point(monitor_id: i64, monitor: &str) -> PointState {
        let window = |uptime: f64, faults: usize, downtime: i64| WindowState {
            uptime: Some(uptime),
            faults,
            downtime,
        };
        PointState {
            monitor_id,
            monitor: monitor.into(),
            up: Some(false),
            availability: Some(0.0),
            last_check: Some(1_764_518_400),
            response: [
                Some(0.3),
                Some(0.2),
                Some(0.1),
                Some(0.04),
                Some(0.03),
                Some(0.02),
                Some(0.01),
            ],
            fault_ongoing: true,
            windows: [window(0.5, 1, 600), window(0.9, 2, 900), window(0.99, 3, 1200)],
        }
    }

    fn snapshot() -> Snapshot {
        let site = serde_json::json!({"task_id": "20001", "task_name": "shop \"main\"", "task_type": "https",
            "task_summary": "https://shop.example", "task_status": "启用", "frequency": "5"});
        let service = serde_json::json!({"task_id": "10001", "task_name": "db", "task_type": "mysql",
            "frequency": "1", "task_status": "启用", "last_check_time": ""});
        let agents = serde_json::json!({"7": {"name": "bj-01", "plugin": [{"plugin_id": "1", "plugin_name": "mysql", "plugin_task_uselist_id": "9"}]}});
        Snapshot {
            slo: Some(0.99),
            sites: vec![SiteState {
                task: serde_json::from_value::<monapi::SiteTask>(site).unwrap().into(),
                points: vec![point(0, "平均"), point(3, "广州移动")],
            }],
            services: vec![ServiceState {
                task: serde_json::from_value::<monapi::ServiceTask>(service)
                    .unwrap()
                    .into(),
                values: vec![LastValue {
                    series: "main".into(),
                    metric: "qps".into(),
                    time: None,
                    value: 12.5,
                }],
            }],
            agents: serde_json::from_value(agents).unwrap(),
        }
    }

    fn rendered() -> String {
        let mut text = Vec::new();
        render(&snapshot(), &mut text);
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn names_labels_and_values_follow_prometheus_conventions() {
        let text = rendered();
        let labels = r#"task_id="20001",task_name="shop \"main\"",task_type="https""#;
        for line in [
            format!(r#"monapi_site_up{{{labels},monitor_id="3",monitor="广州移动"}} 0"#),
            format!(r#"monapi_site_uptime_ratio{{{labels},monitor_id="0",monitor="平均",window="7d"}} 0.9"#),
            format!(r#"monapi_site_response_time_seconds{{{labels},monitor_id="3",monitor="广州移动",stat="avg"}} 0.2"#),
            format!(r#"monapi_site_response_phase_seconds{{{labels},monitor_id="3",monitor="广州移动",phase="dns"}} 0.02"#),
            format!(r#"monapi_site_downtime_seconds{{{labels},monitor_id="3",monitor="广州移动",window="30d"}} 1200"#),
            format!(r#"monapi_site_faults{{{labels},monitor_id="3",monitor="广州移动",window="1d"}} 1"#),
            format!(r#"monapi_site_last_check_timestamp_seconds{{{labels},monitor_id="0",monitor="平均"}} 1764518400"#),
            r#"monapi_service_value{task_id="10001",task_name="db",task_type="mysql",series="main",metric="qps"} 12.5"#.to_string(),
            r#"monapi_service_task_info{task_id="10001",task_name="db",task_type="mysql",status="启用",frequency_minutes="1"} 1"#.to_string(),
            r#"monapi_agent_plugin_info{agent_id="7",agent="bj-01",plugin_id="1",plugin="mysql",plugin_task_uselist_id="9"} 1"#.to_string(),
            "# TYPE monapi_site_uptime_ratio gauge".to_string(),
        ] {
            assert!(text.lines().any(|l| l == line), "missing: {line}\n{text}");
        }
        // (0.5 - 0.99) / 0.01, the 1-day budget: overspent.
        let budget = text
            .lines()
            .find(|l| {
                l.starts_with("monapi_site_error_budget_remaining_ratio")
                    && l.contains(r#"monitor_id="0""#)
                    && l.contains(r#"window="1d""#)
            })
            .unwrap();
        let value: f64 = budget.rsplit_once(' ').unwrap().1.parse().unwrap();
        assert!((value + 49.0).abs() < 1e-9, "{budget}");
        // The average has no faults of its own.
        assert!(!text
            .lines()
            .any(|l| l.starts_with("monapi_site_fault") && l.contains(r#"monitor_id="0""#)));
        // Every name in base units; no counter among the data metrics.
        for line in text.lines().filter(|l| l.starts_with("# TYPE")) {
            assert!(line.ends_with(" gauge"), "{line}");
        }
    }

    #[test]
    fn without_an_objective_there_is_no_budget_and_the_own_metrics_come_at_scrape() {
        let mut snapshot = snapshot();
        snapshot.slo = None;
        let mut text = Vec::new();
        render(&snapshot, &mut text);
        assert!(!String::from_utf8(text).unwrap().contains("error_budget"));
        let exposition = Exposition::new();
        let (_, own) = exposition.scrape();
        assert!(own.contains("monapi_up 0"), "{own}");
        assert!(own.contains("monapi_exporter_build_info{version="), "{own}");
        assert!(!exposition.refreshed());
    }

    #[test]
    fn a_scrape_is_one_gzip_member_that_decoders_of_one_member_read_whole() {
        let own = "monapi_up 1\n";
        // A text of many deflate blocks, and the empty one of before the first refresh.
        for data in [rendered().repeat(200), String::new()] {
            let rendered = Rendered::new(|out| out.write_all(data.as_bytes()).unwrap());
            // Two scrapes of one rendering, each with the exporter's own metrics of its time.
            for own in [own, "monapi_up 0\n"] {
                let [head, tail] = rendered.member(own.as_bytes());
                let member = [&head[..], &tail[..]].concat();
                // A decoder of one member, which checks the trailer (CRC-32 and length)...
                let mut decoder = flate2::bufread::GzDecoder::new(&member[..]);
                let mut text = String::new();
                std::io::Read::read_to_string(&mut decoder, &mut text).unwrap();
                assert!(text == format!("{data}{own}"), "{} bytes", text.len());
                // ... reads the whole answer.
                assert_eq!(decoder.into_inner().len(), 0);
            }
        }
    }
}
