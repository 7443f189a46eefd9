//! The soak benchmark: the release emulator (`monapi serve`, its own process) under sustained
//! mixed traffic on many keep-alive connections, then a fan-out of 1,000 concurrent calls per
//! client (Rust, Python, Node), each in a process of its own, round after round. The resident
//! memory (RSS) of the emulator and of each client process is sampled every 100 ms from
//! `/proc/<pid>/status`; a phase passes with no error and, where it lasts at least two
//! windows, less than 10% growth from the median RSS of its first window to that of its last.
//! The Node client is judged instead on what survives a full collection (its RSS less the free
//! space V8 keeps in its heap, which the fan-out reports after each round's `gc()`): V8 grows
//! and shrinks its heap by tens of megabytes as it sees fit, which moves the RSS with no change
//! in what the client holds; a leak, in JavaScript or in the addon, shows in what survives.
//!
//! Each phase first runs `--warmup` seconds unmeasured (its errors count): allocators, the
//! connection pools and their buffers take that long to reach their working size (measured:
//! about 30 s for the emulator under 256 connections, 45 s for the Python client), which is not
//! growth. Medians, not means or peaks: a fan-out's memory rises and falls with each round of
//! calls and with each collection of the garbage collectors.
//!
//! ```text
//! soak [--seconds 60] [--warmup 45] [--window 10] [--connections 256] [--fanout 1000]
//!      [--monapi target/release/monapi] [--python .venv/bin/python] [--node node]
//!      [--phases load,rust,python,node]
//! ```
//!
//! `make soak` runs it for 60 s a phase (the figures of `bench/RESULTS.md`); `make test` runs
//! a 5 s form. `soak fanout ...` is the Rust client's part, which the soak starts itself.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use futures::future::join_all;
use monapi::{Client, DateRange, Monitor, ServerTask, SystemType};
use serde_json::{json, Value};

/// The emulator's demo account (`monapi serve` registers it).
const CLIENT_ID: &str = "demo_id";
const CLIENT_SECRET: &str = "demo_secret";
const USERNAME: &str = "test@example.com";
const PASSWORD: &str = "123456";
const PASSWORD_MD5: &str = "e10adc3949ba59abbe56e057f20f883e";
/// The emulator's site tasks checked every 5 to 30 minutes (a day's report is 10 to 70 KiB);
/// 20005, checked every minute, is left out (a day's report is over a megabyte, and a thousand
/// of them at once would measure the size of the answers rather than the client).
const SITE_TASKS: [u64; 4] = [20001, 20002, 20003, 20004];
/// The site task whose report of every point the fan-outs fetch (checked every 30 minutes: a
/// day is 65 KiB; the others' are up to 400 KiB, and a thousand calls at once would measure the
/// size of the answers rather than the client).
const FANOUT_SITE_TASK: u64 = 20004;
/// How often RSS is sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// The largest growth of the median RSS from the first window of a phase to its last.
const MAX_GROWTH: f64 = 0.10;
/// Errors shown of each phase (all are counted).
const ERRORS_SHOWN: usize = 5;
/// Each load worker walks the mix of [`Call::pick`] (1,000 long) from its own start with this
/// stride, prime to the mix's length, so that every worker sends every kind of call.
const STRIDE: u64 = 7;

#[derive(Parser)]
#[command(about = "Soak: the release emulator under mixed traffic, then client fan-outs; RSS sampled")]
struct Args {
    /// Measured seconds of each phase (the mixed traffic, then each client's fan-out).
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Seconds each phase runs before it is measured.
    #[arg(long, default_value_t = 45)]
    warmup: u64,
    /// Seconds of the first and of the last window whose median RSS are compared; a phase
    /// shorter than two windows reports its memory without checking its growth.
    #[arg(long, default_value_t = 10.0)]
    window: f64,
    /// Concurrent keep-alive connections of the mixed traffic.
    #[arg(long, default_value_t = 256)]
    connections: usize,
    /// Concurrent calls of each fan-out round.
    #[arg(long, default_value_t = 1000)]
    fanout: usize,
    /// The `monapi` binary whose `serve` is the emulator under test.
    #[arg(long, default_value = "target/release/monapi")]
    monapi: PathBuf,
    /// Python with the monapi package installed (the Python fan-out).
    #[arg(long, default_value = ".venv/bin/python")]
    python: PathBuf,
    /// Node (the Node fan-out loads the package of this checkout).
    #[arg(long, default_value = "node")]
    node: PathBuf,
    /// Phases to run, in this order.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["load", "rust", "python", "node"])]
    phases: Vec<Phase>,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Subcommand)]
enum Sub {
    /// The Rust client's fan-out (started by the soak in a process of its own).
    Fanout(FanoutArgs),
}

/// What every fan-out process takes (the Python and Node scripts take the same options).
#[derive(clap::Args)]
struct FanoutArgs {
    #[arg(long)]
    base_url: String,
    /// Seconds of rounds before `start` is printed (the warm-up), then `seconds` more.
    #[arg(long)]
    warmup: f64,
    #[arg(long)]
    seconds: f64,
    #[arg(long)]
    fanout: usize,
    /// Service tasks whose reports are small enough to fetch a thousand at once.
    #[arg(long, value_delimiter = ',')]
    service_tasks: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Phase {
    /// Mixed traffic on `--connections` keep-alive connections (reqwest, one connection each).
    Load,
    /// The Rust client (`monapi::Client`), `--fanout` calls at once.
    Rust,
    /// The Python client (`monapi.AsyncClient` and `asyncio.gather`).
    Python,
    /// The Node client (`Client` and `Promise.allSettled`).
    Node,
}

fn main() {
    let args = Args::parse();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    if let Some(Sub::Fanout(fanout)) = &args.command {
        runtime.block_on(rust_fanout(fanout));
        return;
    }
    let passed = runtime.block_on(soak(&args));
    std::process::exit(if passed { 0 } else { 1 });
}

async fn soak(args: &Args) -> bool {
    let emulator = Emulator::start(&args.monapi);
    let http = reqwest::Client::new();
    let token = login(&http, &emulator.base_url).await;
    let service_tasks = small_service_tasks(&http, &emulator.base_url, &token).await;
    let points = site_points(&http, &emulator.base_url, &token).await;
    println!(
        "soak: emulator `{} serve` (pid {}) at {}; each phase {} s of warm-up, then {} s measured (windows of {} s); {} connections, fan-outs of {}",
        args.monapi.display(),
        emulator.pid(),
        emulator.base_url,
        args.warmup,
        args.seconds,
        args.window,
        args.connections,
        args.fanout
    );
    let mut results = Vec::new();
    for phase in &args.phases {
        let result = match phase {
            Phase::Load => {
                let started = Instant::now();
                let load = load(args, &emulator.base_url, &token, &service_tasks, &points);
                let measure = async {
                    tokio::time::sleep(Duration::from_secs(args.warmup)).await;
                    Sampler::start(emulator.pid())
                };
                let (stats, sampler) = tokio::join!(load, measure);
                let elapsed = started.elapsed();
                let server = sampler.finish();
                Outcome {
                    phase: *phase,
                    elapsed,
                    calls: stats.calls.load(Ordering::Relaxed),
                    errors: stats.errors.load(Ordering::Relaxed),
                    error_samples: stats.samples(),
                    server,
                    client: None,
                    retained: None,
                }
            }
            _ => fanout_process(args, *phase, &emulator, &service_tasks),
        };
        result.print(args.window);
        results.push(result);
    }
    emulator.stop();
    println!("\n{}", Outcome::TABLE_HEAD);
    for result in &results {
        println!("{}", result.row(args.window));
    }
    let failures: Vec<String> = results.iter().flat_map(|r| r.failures(args.window)).collect();
    for failure in &failures {
        println!("FAIL: {failure}");
    }
    if failures.is_empty() {
        let judged = if args.seconds as f64 >= 2.0 * args.window {
            format!("memory growth under {:.0}%", MAX_GROWTH * 100.0)
        } else {
            "memory not judged: the phases are shorter than two windows".to_string()
        };
        println!("soak: passed (0 errors; {judged})");
    }
    failures.is_empty()
}

/// `monapi serve` on a free port of 127.0.0.1, stopped (killed) when dropped.
struct Emulator {
    child: Child,
    base_url: String,
}

impl Emulator {
    fn start(monapi: &Path) -> Emulator {
        let mut child = Command::new(monapi)
            .args(["serve", "--port", "0", "--token-ttl", "86400"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", monapi.display()));
        let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
        let base_url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                let rest = line.split("listening on ").nth(1)?;
                Some(rest.split_whitespace().next()?.to_string())
            })
            .expect("`monapi serve` says where it listens");
        // Keep reading its log, so that a full pipe never blocks it.
        std::thread::spawn(move || lines.for_each(drop));
        Emulator { child, base_url }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

async fn login(http: &reqwest::Client, base_url: &str) -> String {
    let answer: Value = http
        .post(format!("{base_url}/v2/oauth/token.json"))
        .form(&password_grant())
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("the emulator issues a token")
        .json()
        .await
        .expect("a token answer is JSON");
    answer["access_token"]
        .as_str()
        .expect("an access token")
        .to_string()
}

fn password_grant() -> [(&'static str, &'static str); 5] {
    [
        ("grant_type", "password"),
        ("username", USERNAME),
        ("password", PASSWORD_MD5),
        ("client_id", CLIENT_ID),
        ("client_secret", CLIENT_SECRET),
    ]
}

/// Up to eight service tasks that are checked every 15 minutes or less often: a day of their
/// report is 10 to 70 KiB (a one-minute task's is megabytes).
async fn small_service_tasks(http: &reqwest::Client, base_url: &str, token: &str) -> Vec<u64> {
    let page: Value = http
        .get(format!("{base_url}/v2/service/lists.json"))
        .query(&[("access_token", token), ("page", "1")])
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("the first page of service tasks")
        .json()
        .await
        .expect("a page is JSON");
    let tasks: Vec<u64> = page
        .as_array()
        .expect("a page is an array")
        .iter()
        .filter(|task| task["frequency"].as_str().and_then(|f| f.parse::<u32>().ok()) >= Some(15))
        .filter_map(|task| task["task_id"].as_str()?.parse().ok())
        .take(8)
        .collect();
    assert!(
        !tasks.is_empty(),
        "the first page holds tasks checked every 15 minutes or less often"
    );
    tasks
}

/// A monitoring point of each site task (the tasks use different points): the first after
/// the average (`0`) in its report.
async fn site_points(http: &reqwest::Client, base_url: &str, token: &str) -> Vec<(u64, String)> {
    let mut points = Vec::new();
    for task in SITE_TASKS {
        let report: Value = http
            .get(format!("{base_url}/v2/site/report/{task}.json"))
            .query(&[("access_token", token)])
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .expect("a site report")
            .json()
            .await
            .expect("a site report is JSON");
        let point = report
            .as_object()
            .and_then(|points| points.keys().find(|key| *key != "0"))
            .expect("a site task has monitoring points besides the average");
        points.push((task, point.clone()));
    }
    points
}

/// Calls and errors of a phase, and the first few errors.
#[derive(Default)]
struct Stats {
    calls: AtomicU64,
    errors: AtomicU64,
    shown: Mutex<Vec<String>>,
}

impl Stats {
    fn record(&self, result: Result<(), String>) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if let Err(error) = result {
            self.errors.fetch_add(1, Ordering::Relaxed);
            let mut shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
            if shown.len() < ERRORS_SHOWN {
                shown.push(error);
            }
        }
    }

    fn samples(&self) -> Vec<String> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The mixed traffic: `connections` workers, each with a keep-alive connection of its own,
/// send requests back to back through the warm-up and the measured seconds.
async fn load(
    args: &Args,
    base_url: &str,
    token: &str,
    service_tasks: &[u64],
    points: &[(u64, String)],
) -> Stats {
    let stats = Arc::new(Stats::default());
    let deadline = Instant::now() + Duration::from_secs(args.warmup + args.seconds);
    let workers = (0..args.connections).map(|worker| {
        let stats = stats.clone();
        let base_url = base_url.to_string();
        let token = token.to_string();
        let service_tasks = service_tasks.to_vec();
        let points = points.to_vec();
        tokio::spawn(async move {
            let http = reqwest::Client::builder()
                .http1_only()
                .pool_max_idle_per_host(1)
                .tcp_nodelay(true)
                .build()
                .expect("an HTTP client");
            let mut n = worker as u64;
            while Instant::now() < deadline {
                let call = Call::pick(n, &service_tasks, &points, worker);
                stats.record(call.send(&http, &base_url, &token).await);
                n += STRIDE;
            }
        })
    });
    for worker in join_all(workers).await {
        worker.expect("a load worker does not panic");
    }
    Arc::try_unwrap(stats).unwrap_or_else(|_| unreachable!("every worker has ended"))
}

/// One request of the mixed traffic.
enum Call {
    Page(u32),
    Agents,
    ServiceReport(u64),
    /// A site report: every point (`None`), the average (`"0"`) or one point.
    SiteReport(u64, Option<String>),
    Distribution(u64),
    /// One server task with a name of its own; 1 call in 10,000, because the emulator keeps
    /// what it creates (its memory grows with them by design).
    Create(String),
    /// A batch of two lines that both break a rule: refused whole (HTTP 400 naming both
    /// lines), nothing stored; 1 call in 100.
    RefusedCreate,
    /// A password grant, 1 call in 10,000 (each adds a token pair to the emulator's store).
    Login,
}

impl Call {
    fn pick(n: u64, service_tasks: &[u64], points: &[(u64, String)], worker: usize) -> Call {
        let turn = (n / 20) as usize;
        let pick = |list: &[u64]| list[turn % list.len()];
        match n % 10_000 {
            0 => return Call::Create(format!("soak-{worker}-{n}")),
            5_000 => return Call::Login,
            _ if n % 100 == 50 => return Call::RefusedCreate,
            _ => {}
        }
        match n % 20 {
            // Pages 1 to 3 hold the 120 tasks; page 4 is past the end (`[]`).
            0..=3 => Call::Page(1 + (turn % 4) as u32),
            4..=6 => Call::Agents,
            7..=10 => Call::ServiceReport(pick(service_tasks)),
            11..=12 => Call::SiteReport(pick(&SITE_TASKS), None),
            13..=14 => Call::SiteReport(pick(&SITE_TASKS), Some("0".into())),
            15..=16 => {
                let (task, point) = &points[turn % points.len()];
                Call::SiteReport(*task, Some(point.clone()))
            }
            _ => Call::Distribution(pick(&SITE_TASKS)),
        }
    }

    async fn send(&self, http: &reqwest::Client, base_url: &str, token: &str) -> Result<(), String> {
        let get = |path: String| {
            http.get(format!("{base_url}{path}"))
                .query(&[("access_token", token)])
        };
        let request = match self {
            Call::Page(page) => get("/v2/service/lists.json".into()).query(&[("page", page)]),
            Call::Agents => get("/v2/agent/lists.json".into()),
            Call::ServiceReport(id) => get(format!("/v2/service/report/{id}.json")),
            Call::SiteReport(id, monitor) => {
                let request = get(format!("/v2/site/report/{id}.json"));
                match monitor {
                    Some(monitor) => request.query(&[("monitor", monitor)]),
                    None => request,
                }
            }
            Call::Distribution(id) => get(format!("/v2/site/respose_time_distribute/{id}.json")),
            Call::Create(name) => {
                let task = ServerTask::new(name.as_str(), "10.0.0.1", "10.0.0.1", SystemType::Linux);
                let data = serde_json::to_string(&[task]).expect("a task serializes");
                http.post(format!("{base_url}/v2/server/create.json"))
                    .query(&[("access_token", token)])
                    .form(&[("data", data)])
            }
            Call::RefusedCreate => {
                let line = |field: &str| {
                    let task = ServerTask::new("soak-refused", "10.0.0.1", "10.0.0.1", SystemType::Linux);
                    let mut line = serde_json::to_value(task).expect("a task serializes");
                    line[field] = json!("0");
                    line
                };
                let data = json!([line("frequency"), line("snmp_port")]).to_string();
                http.post(format!("{base_url}/v2/server/create.json"))
                    .query(&[("access_token", token)])
                    .form(&[("data", data)])
            }
            Call::Login => http
                .post(format!("{base_url}/v2/oauth/token.json"))
                .form(&password_grant()),
        };
        let response = request
            .send()
            .await
            .map_err(|e| format!("{}: {e}", self.name()))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("{}: reading the body: {e}", self.name()))?;
        if let Call::RefusedCreate = self {
            let refused = serde_json::from_slice::<Value>(&body).ok();
            let err_key = refused.as_ref().and_then(|body| body["err_key"].as_str());
            return match (status.as_u16(), err_key) {
                (400, Some("0,1")) => Ok(()),
                _ => Err(format!(
                    "refused create: HTTP {status}: {}",
                    String::from_utf8_lossy(&body[..body.len().min(200)])
                )),
            };
        }
        if !status.is_success() {
            return Err(format!(
                "{}: HTTP {status}: {}",
                self.name(),
                String::from_utf8_lossy(&body[..body.len().min(200)])
            ));
        }
        serde_json::from_slice::<serde::de::IgnoredAny>(&body)
            .map(drop)
            .map_err(|e| format!("{}: not JSON: {e}", self.name()))
    }

    fn name(&self) -> &'static str {
        match self {
            Call::Page(_) => "service task page",
            Call::Agents => "agents",
            Call::ServiceReport(_) => "service report",
            Call::SiteReport(..) => "site report",
            Call::Distribution(_) => "distribution",
            Call::Create(_) => "create",
            Call::RefusedCreate => "refused create",
            Call::Login => "login",
        }
    }
}

/// One client's fan-out in a process of its own, sampled from outside, as every client is.
fn fanout_process(args: &Args, phase: Phase, emulator: &Emulator, service_tasks: &[u64]) -> Outcome {
    let tasks: Vec<String> = service_tasks.iter().map(u64::to_string).collect();
    let common = [
        "--base-url".to_string(),
        emulator.base_url.clone(),
        "--warmup".into(),
        args.warmup.to_string(),
        "--seconds".into(),
        args.seconds.to_string(),
        "--fanout".into(),
        args.fanout.to_string(),
        "--service-tasks".into(),
        tasks.join(","),
    ];
    let mut command = match phase {
        Phase::Rust => {
            let mut command = Command::new(std::env::current_exe().expect("the soak binary's path"));
            command.arg("fanout");
            command
        }
        Phase::Python => {
            let mut command = Command::new(&args.python);
            command.arg("bench/python/soak_fanout.py");
            command
        }
        Phase::Node => {
            let mut command = Command::new(&args.node);
            command.args(["--expose-gc", "bench/node/soak_fanout.mjs"]);
            command
        }
        Phase::Load => unreachable!("the load runs in this process"),
    };
    let mut child = command
        .args(common)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the {phase:?} fan-out: {e}"));
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    let mut server = None;
    let mut client = None;
    let mut retained = Vec::new();
    let mut started = Instant::now();
    let mut summary = None;
    for line in lines.by_ref().map_while(Result::ok) {
        if line == "start" {
            // The warm-up is over: both samplers start now.
            started = Instant::now();
            server = Some(Sampler::start(emulator.pid()));
            client = Some(Sampler::start(child.id()));
        } else if let Ok(parsed) = serde_json::from_str::<Value>(&line) {
            if let Some(kib) = retained_kib(&parsed["memory"]) {
                retained.push((started.elapsed().as_secs_f64(), kib));
                continue;
            }
            summary = Some(parsed);
            break;
        }
    }
    let (server, client) = (server.map(Sampler::finish), client.map(Sampler::finish));
    let status = child.wait().expect("the fan-out process ends");
    let summary = summary.unwrap_or_else(|| json!({"calls": 0, "errors": 1, "error_samples": [format!("the {phase:?} fan-out ended ({status}) without a summary")]}));
    let count = |key: &str| summary[key].as_u64().unwrap_or(0);
    Outcome {
        phase,
        elapsed: Duration::from_secs_f64(summary["seconds"].as_f64().unwrap_or(0.0)),
        calls: count("calls"),
        errors: count("errors") + u64::from(!status.success()),
        error_samples: summary["error_samples"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|e| e.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        server: server.unwrap_or_default(),
        client,
        retained: (!retained.is_empty()).then_some(Samples(retained)),
    }
}

/// What survives a full collection, in KiB, from a fan-out's `{"memory": {rss, heapTotal,
/// heapUsed}}` (bytes, just after the collection): the RSS less the free space the collector
/// keeps reserved in its heap, i.e. the heap in use plus everything outside the heap.
fn retained_kib(memory: &Value) -> Option<u64> {
    let field = |name: &str| memory[name].as_u64();
    let (rss, total, used) = (field("rss")?, field("heapTotal")?, field("heapUsed")?);
    Some((rss.saturating_sub(total) + used) / 1024)
}

/// The Rust client's fan-out: rounds of `fanout` concurrent reads, all kinds of read mixed,
/// for `warmup` seconds, then (after printing `start`) `seconds` more; a JSON summary at the end.
async fn rust_fanout(args: &FanoutArgs) {
    let client = Client::builder()
        .base_url(&args.base_url)
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .username(USERNAME)
        .password(PASSWORD)
        .build()
        .expect("a valid configuration");
    client.login().await.expect("the emulator issues a token");
    let stats = Stats::default();
    let started = Instant::now();
    let warm = started + Duration::from_secs_f64(args.warmup);
    let deadline = warm + Duration::from_secs_f64(args.seconds);
    let mut rounds = 0u64;
    let mut measuring = false;
    while Instant::now() < deadline {
        if !measuring && Instant::now() >= warm {
            println!("start");
            measuring = true;
        }
        let calls = (0..args.fanout).map(|i| {
            let client = &client;
            async move {
                let task = |list: &[u64]| list[i / 6 % list.len()];
                let result = match i % 6 {
                    0 => client
                        .site_report(task(&SITE_TASKS), DateRange::today(), Monitor::Average)
                        .await
                        .map(drop),
                    1 => client
                        .site_report(FANOUT_SITE_TASK, DateRange::today(), Monitor::All)
                        .await
                        .map(drop),
                    2 => client
                        .response_time_distribution(task(&SITE_TASKS), DateRange::today())
                        .await
                        .map(drop),
                    3 => client
                        .service_report(task(&args.service_tasks), DateRange::today())
                        .await
                        .map(drop),
                    4 => client.agents().await.map(drop),
                    _ => client.service_tasks(1 + (i / 6 % 3) as u32).await.map(drop),
                };
                result.map_err(|e| e.to_string())
            }
        });
        for result in join_all(calls).await {
            stats.record(result);
        }
        rounds += 1;
    }
    println!(
        "{}",
        json!({
            "calls": stats.calls.load(Ordering::Relaxed),
            "errors": stats.errors.load(Ordering::Relaxed),
            "rounds": rounds,
            "seconds": started.elapsed().as_secs_f64(),
            "error_samples": stats.samples(),
        })
    );
}

/// RSS samples of one process: seconds since sampling started, and KiB.
#[derive(Default)]
struct Samples(Vec<(f64, u64)>);

impl Samples {
    /// The median RSS (KiB) of the first and of the last `window` seconds, when the samples
    /// span at least two windows.
    fn windows(&self, window: f64) -> Option<(f64, f64)> {
        let end = self.0.last()?.0;
        if end < 2.0 * window {
            return None;
        }
        let median = |keep: &dyn Fn(f64) -> bool| {
            let mut picked: Vec<u64> = self
                .0
                .iter()
                .filter(|(t, _)| keep(*t))
                .map(|(_, kib)| *kib)
                .collect();
            picked.sort_unstable();
            picked.get(picked.len() / 2).copied().unwrap_or(0) as f64
        };
        Some((median(&|t| t < window), median(&|t| t >= end - window)))
    }

    /// RSS in MiB at ten evenly spaced moments of the phase, to show its course.
    fn course(&self) -> String {
        let Some(&(end, _)) = self.0.last() else {
            return String::new();
        };
        (0..10)
            .filter_map(|tenth| {
                let at = end * f64::from(tenth) / 9.0;
                let (_, kib) = self.0.iter().find(|(t, _)| *t >= at - 1e-9)?;
                Some(format!("{:.0}", *kib as f64 / 1024.0))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn peak(&self) -> u64 {
        self.0.iter().map(|(_, kib)| *kib).max().unwrap_or(0)
    }

    /// "first → last (growth)" in MiB, or the peak when the phase is too short to compare.
    fn describe(&self, window: f64) -> String {
        match self.windows(window) {
            Some((first, last)) => format!(
                "{:.1} → {:.1} MiB ({:+.1}%)",
                first / 1024.0,
                last / 1024.0,
                (last / first - 1.0) * 100.0
            ),
            None => format!(
                "peak {:.1} MiB (phase shorter than two windows)",
                self.peak() as f64 / 1024.0
            ),
        }
    }

    /// A failure text when the memory grew by `MAX_GROWTH` or more.
    fn failure(&self, what: &str, window: f64) -> Option<String> {
        let (first, last) = self.windows(window)?;
        (last > first * (1.0 + MAX_GROWTH)).then(|| {
            format!(
                "{what}: the median grew from {:.1} MiB (first {window} s) to {:.1} MiB (last {window} s)",
                first / 1024.0,
                last / 1024.0
            )
        })
    }
}

/// Samples a process's RSS every [`SAMPLE_EVERY`] on a thread of its own until finished.
struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Samples>,
}

impl Sampler {
    fn start(pid: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let mut samples = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                if let Some(kib) = rss_kib(pid) {
                    samples.push((started.elapsed().as_secs_f64(), kib));
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
            Samples(samples)
        });
        Sampler { stop, thread }
    }

    fn finish(self) -> Samples {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("the sampler does not panic")
    }
}

/// `VmRSS` of a process in KiB, while it runs.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// What one phase did.
struct Outcome {
    phase: Phase,
    elapsed: Duration,
    calls: u64,
    errors: u64,
    error_samples: Vec<String>,
    /// The emulator's RSS during the phase.
    server: Samples,
    /// The client process's RSS (fan-out phases).
    client: Option<Samples>,
    /// What survives a collection in the client, after each round (the Node fan-out: V8 sizes
    /// its heap as it sees fit, so its RSS moves by tens of megabytes with no change in what
    /// the client holds). When present, the client's growth is judged on it, not on the RSS.
    retained: Option<Samples>,
}

impl Outcome {
    const TABLE_HEAD: &'static str = "| phase | seconds | calls | calls/s | errors | emulator RSS | client RSS |\n|---|---:|---:|---:|---:|---|---|";

    fn name(&self) -> &'static str {
        match self.phase {
            Phase::Load => "mixed traffic",
            Phase::Rust => "fan-out: Rust",
            Phase::Python => "fan-out: Python (async)",
            Phase::Node => "fan-out: Node",
        }
    }

    fn print(&self, window: f64) {
        println!("{}", self.row(window));
        println!("  emulator RSS (MiB) over the phase: {}", self.server.course());
        if let Some(client) = &self.client {
            println!("  client RSS (MiB) over the phase: {}", client.course());
        }
        if let Some(retained) = &self.retained {
            println!(
                "  client memory after a collection (MiB) over the phase: {}; {}",
                retained.course(),
                retained.describe(window)
            );
        }
        for error in &self.error_samples {
            println!("  error: {error}");
        }
    }

    fn row(&self, window: f64) -> String {
        let seconds = self.elapsed.as_secs_f64();
        format!(
            "| {} | {:.1} | {} | {:.0} | {} | {} | {} |",
            self.name(),
            seconds,
            self.calls,
            self.calls as f64 / seconds.max(1e-9),
            self.errors,
            self.server.describe(window),
            self.client_memory(window),
        )
    }

    /// The client's RSS, and what survives a collection when the client reports it.
    fn client_memory(&self, window: f64) -> String {
        let rss = self.client.as_ref().map_or(String::new(), |c| c.describe(window));
        match &self.retained {
            Some(retained) => format!("{rss}; after a collection {}", retained.describe(window)),
            None => rss,
        }
    }

    fn failures(&self, window: f64) -> Vec<String> {
        let name = self.name();
        let mut failures = Vec::new();
        if self.calls == 0 {
            failures.push(format!("{name}: no call was made"));
        }
        if self.errors > 0 {
            failures.push(format!("{name}: {} errors of {} calls", self.errors, self.calls));
        }
        failures.extend(
            self.server
                .failure(&format!("{name}: the emulator's RSS"), window),
        );
        match (&self.retained, &self.client) {
            (Some(retained), _) => failures
                .extend(retained.failure(&format!("{name}: the client's memory after a collection"), window)),
            (None, Some(client)) => {
                failures.extend(client.failure(&format!("{name}: the client's RSS"), window))
            }
            (None, None) => {}
        }
        failures
    }
}
