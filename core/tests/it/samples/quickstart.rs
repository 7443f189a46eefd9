//! The Rust quickstart of `docs/index.md` and `README.md` (see the convention in
//! `samples/mod.rs`).

use super::{demo_env, run_in_child, CHILD};
use crate::common::emulator;

async fn quickstart() -> Result<(usize, usize), monapi::Error> {
    // --8<-- [start:quickstart]
    use futures::TryStreamExt;
    use monapi::{Client, DateRange};

    let client = Client::from_env()?; // the account from MONAPI_BASE_URL, MONAPI_CLIENT_ID, ...
    let tasks: Vec<_> = client.service_tasks_all().try_collect().await?;
    for task in &tasks {
        println!("{} {}", task.task_id, task.task_name);
    }

    let week = DateRange::parse(Some("2026-11-01"), Some("2026-11-07"))?;
    let report = client.service_report(10001, week).await?;
    println!("{} series in the week", report.series.len());
    // --8<-- [end:quickstart]
    Ok((tasks.len(), report.series.len()))
}

#[tokio::test]
async fn the_quickstart_lists_the_tasks_and_reads_a_week() {
    let emulator = emulator().await;
    let env = demo_env(&emulator);
    let path = module_path!().split_once("::").expect("the crate's name first").1;
    run_in_child(&format!("{path}::quickstart_in_a_child"), &env).await;
    assert_eq!(emulator.counters().service_report, 1);
}

#[tokio::test]
#[ignore = "run by the_quickstart_lists_the_tasks_and_reads_a_week, with MONAPI_* set"]
async fn quickstart_in_a_child() {
    if std::env::var_os(CHILD).is_none() {
        return; // --include-ignored: only its parent test sets the variables
    }
    let (tasks, series) = quickstart().await.unwrap();
    assert!(tasks > 0 && series > 0);
}
