//! The samples of `docs/guides/rust.md`, in the order of the page; each followed by the test
//! that runs it against the emulator (see the convention in `samples/mod.rs`).

use std::path::Path;
use std::time::Duration;

use monapi::{Client, CreatedTask, ErrorKind};
use monapi_emulator::{Config, Emulator, FaultKind, Faults};

use super::{demo_env, run_in_child, Scratch, CHILD};
use crate::common::proxy::ForwardingProxy;
#[cfg(feature = "arrow")]
use crate::common::rows::rows;
use crate::common::{emulator, emulator_with};

/// An emulator and the client the page's `connect` sample makes for it.
async fn connected() -> (Emulator, Client) {
    let emulator = emulator().await;
    let client = connect(emulator.base_url()).expect("the connect sample builds a client");
    (emulator, client)
}

/// The path of a test of this module in this binary, as `--exact` names it.
fn test_path(name: &str) -> String {
    let module = module_path!().split_once("::").expect("the crate's name first").1;
    format!("{module}::{name}")
}

// The client.

fn connect(base_url: &str) -> Result<Client, monapi::Error> {
    // --8<-- [start:connect]
    use monapi::Client;

    let client = Client::builder()
        .base_url(base_url) // where the service is, e.g. "https://api.example.com"
        .client_id("demo_id") // the API client registered with the service
        .client_secret("demo_secret")
        .username("test@example.com") // the account
        .password("123456") // only its MD5 is kept and sent; or .password_md5("e10a...")
        .build()?;
    // --8<-- [end:connect]
    Ok(client)
}

#[tokio::test]
async fn connect_builds_a_client_that_logs_in_at_its_first_call() {
    let emulator = emulator().await;
    let client = connect(emulator.base_url()).unwrap();
    assert_eq!(emulator.counters().total, 0, "building sends nothing");
    assert!(!client.agents().await.unwrap().is_empty());
    assert_eq!(emulator.counters().token_password, 1);
}

fn from_env() -> Result<(Client, Client), monapi::Error> {
    // --8<-- [start:from-env]
    use std::time::Duration;

    use monapi::{Client, ClientBuilder};

    // MONAPI_BASE_URL, MONAPI_CLIENT_ID, MONAPI_CLIENT_SECRET, MONAPI_USERNAME and
    // MONAPI_PASSWORD (and MONAPI_CA_BUNDLE and MONAPI_STORE when they are set):
    let client = Client::from_env()?;

    // The same variables for what the builder is not given:
    let patient = ClientBuilder::from_env()
        .timeout(Duration::from_secs(120))
        .build()?;
    // --8<-- [end:from-env]
    Ok((client, patient))
}

#[tokio::test]
async fn from_env_reads_the_monapi_variables() {
    let emulator = emulator().await;
    let env = demo_env(&emulator);
    run_in_child(&test_path("from_env_in_a_child"), &env).await;
    assert_eq!(emulator.counters().token_password, 2, "both clients logged in");
}

#[tokio::test]
#[ignore = "run by from_env_reads_the_monapi_variables, in a child process with MONAPI_* set"]
async fn from_env_in_a_child() {
    if std::env::var_os(CHILD).is_none() {
        return; // --include-ignored: only its parent test sets the variables
    }
    let (client, patient) = from_env().unwrap();
    assert_eq!(client.username(), Some(monapi_emulator::DEMO_USERNAME));
    assert_eq!(client.settings().timeout, monapi::DEFAULT_TIMEOUT);
    assert_eq!(patient.settings().timeout, Duration::from_secs(120));
    client.login().await.unwrap();
    patient.login().await.unwrap();
}

fn settings(base_url: &str) -> Result<Client, monapi::Error> {
    // --8<-- [start:settings]
    use std::time::Duration;

    use monapi::Client;

    let client = Client::builder()
        .base_url(base_url)
        .client_id("demo_id")
        .client_secret("demo_secret")
        .username("test@example.com")
        .password_md5("e10adc3949ba59abbe56e057f20f883e") // the password's MD5, instead of it
        .timeout(Duration::from_secs(60)) // each HTTP exchange (default 30 s)
        .connect_timeout(Duration::from_secs(5)) // making a connection (default 10 s)
        .max_retries(4) // retries of a read after a transient failure (default 2)
        .refresh_leeway(Duration::from_secs(120)) // renew tokens 120 s before expiry (default 60 s)
        .max_connections(16) // connections open at once (default 100)
        .max_response_bytes(256 << 20) // the largest answer, decompressed (default 1 GiB)
        .user_agent("acme-dashboard/2.1") // the User-Agent header (default monapi-rust/<version>)
        .timezone(monapi::input::timezone("+08:00")?) // the service's days and times (the default)
        .build()?;
    // --8<-- [end:settings]
    Ok(client)
}

#[tokio::test]
async fn settings_are_the_client_s() {
    let emulator = emulator().await;
    let client = settings(emulator.base_url()).unwrap();
    let settings = client.settings();
    assert_eq!(settings.timeout, Duration::from_secs(60));
    assert_eq!(settings.connect_timeout, Duration::from_secs(5));
    assert_eq!(settings.max_retries, 4);
    assert_eq!(settings.refresh_leeway, Duration::from_secs(120));
    assert_eq!(settings.max_connections, 16);
    assert_eq!(settings.max_response_bytes, 256 << 20);
    assert_eq!(settings.user_agent, "acme-dashboard/2.1");
    assert_eq!(settings.timezone, monapi::SERVICE_TIMEZONE);
    assert!(!client.agents().await.unwrap().is_empty(), "the MD5 logs in");
}

// Operations.

/// Service tasks, site report points, distribution buckets, agents, monitoring points.
type Counts = (usize, usize, usize, usize, usize);

async fn operations(client: &Client) -> Result<Counts, monapi::Error> {
    // --8<-- [start:operations]
    use futures::TryStreamExt;
    use monapi::{DateRange, Monitor};

    let tasks: Vec<_> = client.service_tasks_all().try_collect().await?; // page after page
    for task in tasks.iter().take(3) {
        let report = client.service_report(task.task_id, DateRange::today()).await?;
        println!(
            "{} ({}): {} series today",
            task.task_name,
            task.task_type,
            report.series.len()
        );
    }

    let week = DateRange::parse(Some("2026-11-01"), Some("2026-11-07"))?;
    let site = client.site_report(20001, week, Monitor::All).await?; // every point, and the average (0)
    for (id, point) in &site.points {
        println!("point {id} {}: {} checks", point.name, point.uprate.len());
    }
    let distribution = client.response_time_distribution(20001, week).await?;
    // The collector agents (by id, with their plugins) and the account's monitoring points:
    let agents = client.agents().await?;
    let points = client.monitors().await?;
    // --8<-- [end:operations]
    Ok((
        tasks.len(),
        site.points.len(),
        distribution.buckets.len(),
        agents.len(),
        points.len(),
    ))
}

#[tokio::test]
async fn operations_read_the_account() {
    let (emulator, client) = connected().await;
    let (tasks, points, buckets, agents, monitors) = operations(&client).await.unwrap();
    assert_eq!(tasks, 120, "Config::default() seeds 120 service tasks");
    assert!(points >= 2, "the average and the site's points: {points}");
    assert!(buckets > 0 && agents > 0 && monitors > 0);
    let counters = emulator.counters();
    assert_eq!((counters.service_report, counters.site_report), (3, 1));
}

async fn create(client: &Client) -> Result<Vec<CreatedTask>, monapi::Error> {
    // --8<-- [start:create]
    use monapi::{NewServiceTask, ServerTask, ServiceType, SystemType};

    // Four fields are required; the others take the defaults of ServerTask::new.
    let mut web = ServerTask::new("web-01", "192.168.1.10", "203.0.113.10", SystemType::Linux);
    web.frequency = 10; // minutes
    let servers = client.create_server_tasks(&[web]).await?;

    // A service task needs the fields of its type: for nginx, its status page.
    let mut nginx = NewServiceTask::new("nginx-front", ServiceType::Nginx);
    nginx.status_url = Some("http://203.0.113.10/nginx_status".into());
    let services = client.create_service_tasks(&[nginx]).await?;
    for created in servers.iter().chain(&services) {
        println!("created task {}", created.task_id);
    }
    // --8<-- [end:create]
    Ok(servers.into_iter().chain(services).collect())
}

#[tokio::test]
async fn create_sends_one_batch_of_each() {
    let (emulator, client) = connected().await;
    assert_eq!(create(&client).await.unwrap().len(), 2);
    let servers = emulator.server_tasks();
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0]["server_name"], "web-01");
    assert_eq!(servers[0]["frequency"], "10");
    let services = emulator.created_service_tasks();
    assert_eq!(services.len(), 1);
    assert_eq!(services[0]["task_name"], "nginx-front");
}

async fn raw(client: &Client) -> Result<(serde_json::Value, serde_json::Value), monapi::Error> {
    // --8<-- [start:raw]
    use monapi::{Method, Request};

    // Any operation by its method and path, with the same tokens, retries and errors:
    let request = Request::raw(Method::Get, "/v2/site/lists.json").query("page", "1");
    let sites: serde_json::Value = client.execute(&request).await?.json()?;

    // A typed operation's answer as the service sent it: every key and value, in their order.
    let answer = client.execute(&Request::Agents).await?;
    let agents: serde_json::Value = answer.json()?;
    println!("{} bytes: {agents}", answer.body().len());
    // --8<-- [end:raw]
    Ok((sites, agents))
}

#[tokio::test]
async fn raw_returns_the_bodies_as_sent() {
    let (emulator, client) = connected().await;
    let (sites, agents) = raw(&client).await.unwrap();
    assert_eq!(sites.as_array().map(Vec::len), Some(5), "{sites}");
    assert!(
        agents.as_object().is_some_and(|agents| !agents.is_empty()),
        "{agents}"
    );
    let counters = emulator.counters();
    assert_eq!((counters.site_tasks, counters.agents, counters.token), (1, 1, 1));
}

// Errors.

async fn errors(client: &Client) -> Result<Option<monapi::Error>, monapi::Error> {
    // --8<-- [start:errors]
    use monapi::{DateRange, ErrorKind, NewServiceTask, ServiceType};

    match client.service_report(99999, DateRange::today()).await {
        Ok(report) => println!("{} series", report.series.len()),
        // The service's own error: the call, its HTTP status, its code and message.
        Err(err) if err.kind() == ErrorKind::Api && err.api_code() == Some(404) => {
            println!("no such task: {err} (HTTP {:?})", err.status());
        }
        Err(err) => return Err(err), // any other: err.code() names it
    }

    // Bad input is refused before anything is sent, naming every problem.
    let mysql = NewServiceTask::new("db-main", ServiceType::Mysql); // no ip, port, user, password
    let refused = client.create_service_tasks(&[mysql]).await;
    if let Err(err) = &refused {
        println!("{}: {err}", err.code()); // INVALID_INPUT: ...
        for problem in err.problems() {
            println!("task {:?}: `{}` {}", problem.index, problem.field, problem.rule);
        }
    }
    // --8<-- [end:errors]
    Ok(refused.err())
}

#[tokio::test]
async fn errors_are_told_apart_by_kind_and_code() {
    let (emulator, client) = connected().await;
    let refused = errors(&client)
        .await
        .expect("the 404 is handled")
        .expect("refused");
    assert_eq!(refused.kind(), ErrorKind::InvalidInput);
    let fields: Vec<_> = refused.problems().iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["ip", "port", "user", "password"]);
    let counters = emulator.counters();
    assert_eq!(counters.service_report, 1, "a 404 is not retried");
    assert_eq!(counters.create_service, 0, "nothing was sent");
}

async fn retries(base_url: &str) -> Result<(usize, usize), monapi::Error> {
    // --8<-- [start:retries]
    use std::time::Duration;

    use monapi::{Client, DateRange};

    let client = Client::builder()
        .base_url(base_url)
        .client_id("demo_id")
        .client_secret("demo_secret")
        .username("test@example.com")
        .password("123456")
        .max_retries(4) // a read is tried up to 5 times (default: 3)
        .build()?;
    // A connection dropped, a body cut short, 429, 5xx: tried again after a backoff.
    let agents = client.agents().await?;

    // A call with a timeout of its own; the client's other calls keep theirs (30 s).
    let patient = client.with_timeout(Duration::from_secs(300))?;
    let week = DateRange::parse(Some("2026-11-01"), Some("2026-11-07"))?;
    let report = patient.service_report(10001, week).await?;
    // --8<-- [end:retries]
    Ok((agents.len(), report.series.len()))
}

#[tokio::test]
async fn retries_carry_reads_over_transient_failures() {
    let emulator = emulator().await;
    let faults = [
        FaultKind::DropConnection,
        FaultKind::Error503,
        FaultKind::TruncatedBody,
    ];
    emulator
        .set_faults(Faults {
            next: faults.to_vec(),
            ..Faults::default()
        })
        .unwrap();
    let (agents, series) = retries(emulator.base_url()).await.unwrap();
    assert!(agents > 0 && series > 0);
    // The three faults, then the token, the agents and the report.
    assert_eq!(emulator.counters().total, 6);
}

// Tokens.

async fn tokens(base_url: &str, token_file: &Path) -> Result<Client, monapi::Error> {
    // --8<-- [start:tokens]
    use monapi::{Client, Token};

    // The token saved last time, if any: the client resumes with it instead of logging in.
    let resumed: Option<Token> = std::fs::read(token_file)
        .ok()
        .and_then(|json| serde_json::from_slice(&json).ok());

    let mut builder = Client::builder()
        .base_url(base_url)
        .client_id("demo_id")
        .client_secret("demo_secret")
        .username("test@example.com")
        .password("123456") // to log in again once the refresh token has expired
        .on_token({
            // Every new token (a login, a refresh), with its refresh token: kept for next time.
            let token_file = token_file.to_path_buf();
            move |token: &Token| {
                if let Ok(json) = serde_json::to_vec(token) {
                    let _ = std::fs::write(&token_file, json); // not saved: one login more next time
                }
            }
        });
    if let Some(token) = resumed {
        builder = builder.token(token);
    }
    let client = builder.build()?;
    // The first call logs in, or uses the saved token:
    client.agents().await?;
    // --8<-- [end:tokens]
    Ok(client)
}

#[tokio::test]
async fn tokens_are_saved_and_resumed() {
    let emulator = emulator().await;
    let dir = Scratch::new("token");
    let saved = dir.path().join("token.json");
    let first = tokens(emulator.base_url(), &saved).await.unwrap();
    assert_eq!(emulator.counters().token, 1);
    let on_disk: monapi::Token = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert!(on_disk.refresh_token.is_some());
    assert_eq!(Some(on_disk), first.token());
    let again = tokens(emulator.base_url(), &saved).await.unwrap();
    let counters = emulator.counters();
    assert_eq!(
        (counters.token, counters.agents),
        (1, 2),
        "resumed without a login"
    );
    assert_eq!(again.token(), first.token());
}

// Tables (feature `arrow`).

#[cfg(feature = "arrow")]
type SampleTables = (
    monapi::table::arrow_array::RecordBatch,
    monapi::table::BulkTables<monapi::table::SiteTables>,
    monapi::table::BulkTables<monapi::table::arrow_array::RecordBatch>,
);

#[cfg(feature = "arrow")]
async fn tables(client: &Client) -> Result<SampleTables, monapi::Error> {
    // --8<-- [start:tables]
    use monapi::table::{BulkOptions, TaskIds};
    use monapi::{DateRange, Monitor};

    let tables = client.tables();
    let days = DateRange::parse(Some("2026-11-01"), Some("2026-11-02"))?;
    let report = tables.service_report(10001, days).await?; // an Arrow RecordBatch, long form
    let site = tables.site_report(20001, days, Monitor::All).await?; // availability, response_time, faults
    println!("{} rows; {} faults", report.num_rows(), site.faults.num_rows());

    // Many tasks at once, 8 at a time: here every site task.
    let options = BulkOptions::new()
        .concurrency(8)
        .on_progress(|p| eprintln!("{}/{} tasks, {} rows", p.done, p.total, p.rows));
    let sites = tables
        .site_reports(TaskIds::All, days, Monitor::Average, options)
        .await?;
    for (task_id, error) in &sites.failures {
        eprintln!("task {task_id}: {error}"); // a task that failed is listed, never dropped
    }
    let services = tables
        .service_reports(vec![10001, 10002, 10003], days, BulkOptions::new())
        .await?;
    // --8<-- [end:tables]
    Ok((report, sites, services))
}

#[cfg(feature = "arrow")]
#[tokio::test]
async fn tables_single_and_bulk_agree() {
    let (_emulator, client) = connected().await;
    let (report, sites, services) = tables(&client).await.unwrap();
    assert!(report.num_rows() > 0);
    assert!(sites.failures.is_empty() && services.failures.is_empty());
    let site_ids: Vec<u64> = sites.tables.iter().map(|(id, _)| *id).collect();
    assert_eq!(site_ids, [20001, 20002, 20003, 20004, 20005]);
    let (first, bulk) = &services.tables[0];
    assert_eq!(*first, 10001);
    assert_eq!(
        rows(bulk),
        rows(&report),
        "a bulk call's table is the single call's"
    );
}

// The store (feature `arrow`).

#[cfg(feature = "arrow")]
async fn store(
    base_url: &str,
    store_dir: &Path,
) -> Result<(monapi::table::arrow_array::RecordBatch, monapi::store::SyncReport), monapi::Error> {
    // --8<-- [start:store]
    use monapi::store::SyncOptions;
    use monapi::{Client, DateRange};

    let client = Client::builder()
        .base_url(base_url)
        .client_id("demo_id")
        .client_secret("demo_secret")
        .username("test@example.com")
        .password("123456")
        .store(store_dir) // a directory, e.g. "data/monapi"; or MONAPI_STORE with from_env
        .build()?;

    // The settled days the store holds are read from it; the others fetched, and kept.
    let days = DateRange::parse(Some("2026-11-01"), Some("2026-11-03"))?;
    let report = client.tables().service_report(10001, days).await?;

    // What a nightly job runs: every settled day of these tasks that the store lacks (here
    // 20001's days; 10001's are held). Without .range(...): the last 30 settled days.
    let options = SyncOptions::new().tasks(vec![10001, 20001]).range(days);
    let synced = client.tables().sync(options).await?;
    println!("{}", synced.summary()); // task-days fetched, reused, rows, bytes, failed
    for failure in &synced.failures {
        eprintln!(
            "task {} from {} to {}: {}",
            failure.task_id, failure.start, failure.end, failure.error
        );
    }
    // --8<-- [end:store]
    Ok((report, synced))
}

#[cfg(feature = "arrow")]
#[tokio::test]
async fn a_store_fetches_each_settled_day_once() {
    let emulator = emulator().await;
    let dir = Scratch::new("store");
    let (report, synced) = store(emulator.base_url(), dir.path()).await.unwrap();
    assert!(report.num_rows() > 0);
    assert!(synced.failures.is_empty(), "{synced:?}");
    assert_eq!((synced.fetched, synced.reused), (3, 3), "{}", synced.summary());
    let before = emulator.counters();
    let (again, resynced) = store(emulator.base_url(), dir.path()).await.unwrap();
    assert_eq!(rows(&again), rows(&report), "read from the store: the same rows");
    assert_eq!(
        (resynced.fetched, resynced.reused),
        (0, 6),
        "{}",
        resynced.summary()
    );
    let after = emulator.counters();
    assert_eq!(
        (after.service_report, after.site_report),
        (before.service_report, before.site_report),
        "the second run sent no report request"
    );
}

// Company networks.

async fn company_network(base_url: &str, ca_file: &Path, proxy_url: &str) -> Result<Client, monapi::Error> {
    // --8<-- [start:networks]
    use monapi::Client;

    let client = Client::builder()
        .base_url(base_url) // https://...
        .client_id("demo_id")
        .client_secret("demo_secret")
        .username("test@example.com")
        .password("123456")
        .ca_bundle(ca_file) // the company's CA (PEM), trusted besides the system's: "corp-ca.pem"
        .proxy(proxy_url) // e.g. "http://me:secret@proxy.corp:3128"; .no_proxy(): none at all
        .build()?;
    // Through the proxy, the service's certificate checked against the system's and the CA:
    client.agents().await?;
    // --8<-- [end:networks]
    Ok(client)
}

#[tokio::test]
async fn a_company_network_goes_through_its_proxy_and_trusts_its_ca() {
    let emulator = emulator_with(Config {
        tls: true,
        ..Config::default()
    })
    .await;
    let proxy = ForwardingProxy::start(Some(("me", "secret"))).await;
    let url = format!("http://me:secret@{}", proxy.addr);
    let ca = emulator.ca_path().expect("an HTTPS emulator's CA");
    company_network(emulator.base_url(), ca, &url).await.unwrap();
    assert!(proxy.forwarded() >= 1);
    assert_eq!(
        emulator.counters().connections,
        proxy.forwarded(),
        "every connection through it"
    );
}

// The emulator in a user's tests: the sample is the whole test.

// --8<-- [start:emulator]
#[tokio::test]
async fn the_dashboard_lists_every_service_task() -> Result<(), Box<dyn std::error::Error>> {
    use futures::TryStreamExt;
    use monapi::Client;
    use monapi_emulator::{Config, Emulator, FaultKind, Faults};

    // The service on 127.0.0.1, a free port; its data seeded, the same at every run.
    let emulator = Emulator::start(Config::default()).await?;
    let client = Client::builder()
        .base_url(emulator.base_url())
        .client_id(monapi_emulator::DEMO_CLIENT_ID)
        .client_secret(monapi_emulator::DEMO_CLIENT_SECRET)
        .username(monapi_emulator::DEMO_USERNAME)
        .password(monapi_emulator::DEMO_PASSWORD)
        .build()?;

    let tasks: Vec<_> = client.service_tasks_all().try_collect().await?;
    assert_eq!(tasks.len(), 120); // Config::default() seeds 120 service tasks

    // The next answer is an HTTP 503: the client tries the call again.
    emulator.set_faults(Faults {
        next: vec![FaultKind::Error503],
        ..Faults::default()
    })?;
    assert!(!client.agents().await?.is_empty());
    assert_eq!(emulator.counters().agents, 2); // the 503, then the answer

    emulator.stop().await;
    Ok(())
}
// --8<-- [end:emulator]
