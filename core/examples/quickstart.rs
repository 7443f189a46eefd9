//! Quickstart: log in, list tasks and agents, fetch each kind of report.
//!
//! Reads the service and the account from MONAPI_BASE_URL, MONAPI_CLIENT_ID,
//! MONAPI_CLIENT_SECRET, MONAPI_USERNAME and MONAPI_PASSWORD. Against the bundled emulator:
//!
//! ```sh
//! monapi serve --port 8080 &
//! MONAPI_BASE_URL=http://127.0.0.1:8080 MONAPI_CLIENT_ID=demo_id MONAPI_CLIENT_SECRET=demo_secret \
//!   MONAPI_USERNAME=test@example.com MONAPI_PASSWORD=123456 cargo run -p monapi --example quickstart
//! ```

use futures::TryStreamExt;
use monapi::{Client, DateRange, Monitor};

#[tokio::main]
async fn main() -> Result<(), monapi::Error> {
    let client = Client::from_env()?;

    let token = client.login().await?;
    println!("logged in; the token expires in {} s", token.expires_in);

    let tasks: Vec<_> = client.service_tasks_all().try_collect().await?;
    println!(
        "{} service tasks, e.g. {} ({})",
        tasks.len(),
        tasks[0].task_name,
        tasks[0].task_type
    );

    let agents = client.agents().await?;
    let plugins: usize = agents.values().map(|a| a.plugin.len()).sum();
    println!("{} agents with {plugins} plugins", agents.len());

    let report = client
        .service_report(tasks[0].task_id, DateRange::today())
        .await?;
    for (series, records) in &report.series {
        println!("  {series}: {} records", records.len());
    }

    let site_id = 20001;
    let site = client
        .site_report(site_id, DateRange::today(), Monitor::All)
        .await?;
    for (id, point) in &site.points {
        let faults = point.fault.as_ref().map_or(0, |f| f.count);
        println!(
            "  point {id} {}: {} checks, {faults} faults",
            point.name,
            point.uprate.len()
        );
    }

    let distribution = client
        .response_time_distribution(site_id, DateRange::today())
        .await?;
    for bucket in distribution.buckets.values() {
        println!(
            "  {:>5}-{:<5} ms: {:>6.2} %",
            bucket.start, bucket.end, bucket.percent
        );
    }
    Ok(())
}
