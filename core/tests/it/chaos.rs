//! Chaos: 10,000 calls against the emulator while 20% of its answers are faults (every kind the
//! emulator has, in equal shares), with `max_retries = 3` and `Retry-After: 0`.
//!
//! Every kind of read and creates, one call at a time and 32 at once. A read's result must
//! equal the same call's without faults (references fetched before the faults are switched on):
//! no wrong result, every failure an [`Error`] (there is no other way for a call to fail in
//! Rust, short of a panic, which fails the test), at least 99% of the reads successful. A create
//! carries a `server_name` of its own, and the emulator must have stored each at most once, and
//! exactly once when the client saw it succeed.
//!
//! The split: 250 calls one at a time, 9,750 with 32 in flight. One at a time, the backoff's
//! waits add up (a retry after a 500, a broken connection or an error page waits 100 to 200 ms
//! before its first repeat, a 429 or 503 its `Retry-After` of 0): about 25 s per 1,000 calls,
//! which made this test the longest of the suite at 1,000; 32 at once overlap their waits.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::Mutex;

use crate::common::*;
use bytes::Bytes;
use futures::StreamExt;
use monapi::{Client, DateRange, Error, Monitor, Request, ServerTask, SystemType};
use monapi_emulator::Faults;
use serde_json::Value;

/// Share of the answers that are faults, split evenly over the emulator's seven kinds.
const FAULT_SHARE: f64 = 0.2;
/// Every tenth call is a create.
const CREATE_EVERY: usize = 10;
/// A past day: its reports do not change while the suite runs.
const DAY: &str = "2026-11-01";

/// What the calls of a suite came to.
#[derive(Default)]
struct Tally {
    calls: u64,
    successes: u64,
    /// Failures by [`monapi::ErrorKind`].
    failures: BTreeMap<String, u64>,
    /// Successes whose data differ from the reference (each described).
    wrong: Vec<String>,
    reads: u64,
    read_successes: u64,
    /// `server_name` of every create the client saw succeed.
    created: Vec<String>,
}

impl Tally {
    fn failed(&mut self, error: &Error) {
        *self.failures.entry(error.kind().to_string()).or_default() += 1;
    }
}

/// The reads of the suite, with their answers' bodies without faults. A body is compared byte
/// for byte: every layer above the transport decodes what it hands over. The reports are of
/// tasks checked every 10 minutes or less often (a few tens of kilobytes a day), so that 10,000
/// calls stay quick in a debug build.
async fn references(client: &Client) -> Vec<(Request, Bytes)> {
    let range = DateRange::parse(Some(DAY), Some(DAY)).unwrap();
    let mut requests: Vec<Request> = (1..=4).map(|page| Request::ServiceTasks { page }).collect();
    requests.push(Request::Agents);
    let tasks = client.service_tasks(1).await.unwrap();
    let small = tasks.iter().filter(|task| task.frequency >= Some(10)).take(3);
    requests.extend(small.map(|task| Request::ServiceReport {
        task_id: task.task_id,
        range,
    }));
    for task_id in [20002, 20003, 20004] {
        for monitor in [Monitor::All, Monitor::Average] {
            requests.push(Request::SiteReport {
                task_id,
                range,
                monitor,
            });
        }
        requests.push(Request::ResponseTimeDistribution { task_id, range });
    }
    let mut references = Vec::new();
    for request in requests {
        let answer = client.execute(&request).await.unwrap();
        answer.json::<Value>().expect("a reference is JSON");
        references.push((request, answer.body().clone()));
    }
    references
}

/// `calls` calls, `concurrency` at a time, by a client that logs in under the faults.
async fn run(
    emu: &monapi_emulator::Emulator,
    references: &[(Request, Bytes)],
    calls: std::ops::Range<usize>,
    concurrency: usize,
    tally: &Mutex<Tally>,
) {
    let client = builder(emu).max_retries(3).build().unwrap();
    futures::stream::iter(calls)
        .for_each_concurrent(concurrency, |i| {
            let client = &client;
            async move {
                if i % CREATE_EVERY == CREATE_EVERY - 1 {
                    let name = format!("chaos-rust-{i}");
                    let task = ServerTask::new(name.as_str(), "10.0.0.1", "10.0.0.1", SystemType::Linux);
                    let result = client.create_server_tasks(&[task]).await;
                    let mut tally = tally.lock().unwrap();
                    tally.calls += 1;
                    match result {
                        Ok(_) => {
                            tally.successes += 1;
                            tally.created.push(name);
                        }
                        Err(error) => tally.failed(&error),
                    }
                    return;
                }
                let (request, reference) = &references[i % references.len()];
                let result = client.execute(request).await;
                let mut tally = tally.lock().unwrap();
                tally.calls += 1;
                tally.reads += 1;
                match result {
                    Ok(answer) if answer.body() == reference => {
                        tally.successes += 1;
                        tally.read_successes += 1;
                    }
                    Ok(answer) => tally.wrong.push(format!(
                        "{request:?}: {} instead of {}",
                        short(answer.body()),
                        short(reference)
                    )),
                    Err(error) => tally.failed(&error),
                }
            }
        })
        .await;
}

fn short(body: &[u8]) -> String {
    String::from_utf8_lossy(body).chars().take(200).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_calls_under_twenty_percent_faults() {
    let emu = emulator().await;
    let references = references(&client(&emu)).await;
    let share = FAULT_SHARE / 7.0;
    emu.set_faults(Faults {
        error_500: share,
        error_503: share,
        error_429: share,
        retry_after_secs: 0,
        drop_connection: share,
        truncated_body: share,
        malformed_body: share,
        corrupt_gzip: share,
        next: Vec::new(),
    })
    .unwrap();
    let tally = Mutex::new(Tally::default());
    let started = std::time::Instant::now();
    run(&emu, &references, 0..250, 1, &tally).await;
    run(&emu, &references, 250..10_000, 32, &tally).await;
    let elapsed = started.elapsed();
    emu.set_faults(Faults::default()).unwrap();
    let tally = tally.into_inner().unwrap();

    // Each create is stored at most once, and exactly once when the client saw it succeed.
    let mut stored: HashMap<String, usize> = HashMap::new();
    for task in emu.server_tasks() {
        *stored
            .entry(task["server_name"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let twice: Vec<_> = stored.iter().filter(|(_, count)| **count > 1).collect();
    let lost: Vec<_> = tally
        .created
        .iter()
        .filter(|name| stored.get(*name) != Some(&1))
        .collect();

    let read_rate = tally.read_successes as f64 / tally.reads as f64;
    // Straight to stderr, past the test harness's capture: the counts show in every run.
    let _ = writeln!(
        std::io::stderr(),
        "chaos (Rust): {} calls in {:.1} s, {} successes, typed failures {:?}, wrong: {}; reads {}/{} ({:.2}%); creates stored twice: {}, lost: {}",
        tally.calls,
        elapsed.as_secs_f64(),
        tally.successes,
        tally.failures,
        tally.wrong.len(),
        tally.read_successes,
        tally.reads,
        read_rate * 100.0,
        twice.len(),
        lost.len(),
    );
    assert_eq!(tally.calls, 10_000);
    assert!(tally.wrong.is_empty(), "wrong results: {:#?}", tally.wrong);
    assert!(
        read_rate >= 0.99,
        "only {:.2}% of the reads succeeded",
        read_rate * 100.0
    );
    assert!(twice.is_empty(), "creates applied twice: {twice:?}");
    assert!(
        lost.is_empty(),
        "creates the client saw succeed but not stored once: {lost:?}"
    );
}
