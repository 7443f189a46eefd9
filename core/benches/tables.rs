//! Building the long service-report table from a body, against decoding the same body into
//! `serde_json::Value` (and, for reference, into the typed `ServiceReport`, and reading it
//! with serde_json keeping nothing: the floor of any decoder built on it).
//!
//! `cargo bench -p monapi --features arrow --bench tables` (or `make tables-bench`): the
//! 30-day report of the emulator's every-minute task of each service type, best of seven
//! rounds. Without
//! `--bench` (as `cargo test --all-targets` runs it) it checks itself on one day, once.

use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::{Days, NaiveDate};
use monapi::{table, Client, DateRange, Request, ServiceReport, SERVICE_TIMEZONE};
use monapi_emulator::{Config, Emulator};

const ROUNDS: usize = 7;

/// The best and the median of `rounds` runs of `work`.
fn time(rounds: usize, mut work: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[times.len() / 2])
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn main() {
    let full = std::env::args().any(|arg| arg == "--bench");
    let (days, rounds) = if full { (30, ROUNDS) } else { (1, 1) };
    let emulator = Emulator::spawn_thread(Config::default()).expect("the emulator starts");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let client = Client::builder()
        .base_url(emulator.base_url())
        .client_id(monapi_emulator::DEMO_CLIENT_ID)
        .client_secret(monapi_emulator::DEMO_CLIENT_SECRET)
        .username(monapi_emulator::DEMO_USERNAME)
        .password(monapi_emulator::DEMO_PASSWORD)
        .build()
        .expect("a client");
    let start = NaiveDate::from_ymd_opt(2026, 10, 1).expect("a date");
    let range = DateRange::new(start, start + Days::new(days - 1));
    let tasks = runtime.block_on(client.service_tasks(1)).expect("the task list");

    println!(
        "| task (type) | body | rows | JSON read, nothing kept | serde_json::Value | typed ServiceReport | table | Value / table |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    // The first eight tasks: one of each service type, each checked every minute.
    for task in tasks.iter().take(8) {
        assert_eq!(task.frequency, Some(1));
        let task_id = task.task_id;
        let raw = runtime
            .block_on(client.execute(&Request::ServiceReport { task_id, range }))
            .expect("the report");
        let body = raw.body().clone();
        let table = table::service_report(task_id, &body, start, SERVICE_TIMEZONE).expect("a table");
        let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        let records: usize = value
            .as_object()
            .expect("an object")
            .values()
            .map(|series| series.as_array().expect("a list").len())
            .sum();
        assert!(table.num_rows() >= records, "a row per record and metric");

        let (parse_best, _) = time(rounds, || {
            black_box(serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&body)).expect("JSON"));
        });
        let (value_best, _) = time(rounds, || {
            black_box(serde_json::from_slice::<serde_json::Value>(black_box(&body)).expect("JSON"));
        });
        let (typed_best, _) = time(rounds, || {
            black_box(serde_json::from_slice::<ServiceReport>(black_box(&body)).expect("typed"));
        });
        let (table_best, _) = time(rounds, || {
            black_box(
                table::service_report(task_id, black_box(&body), start, SERVICE_TIMEZONE).expect("a table"),
            );
        });
        println!(
            "| {task_id} ({}) | {:.1} MB | {} | {} | {} | {} | {} | {:.2}x |",
            task.task_type,
            body.len() as f64 / 1e6,
            table.num_rows(),
            ms(parse_best),
            ms(value_best),
            ms(typed_best),
            ms(table_best),
            value_best.as_secs_f64() / table_best.as_secs_f64(),
        );
    }
}
