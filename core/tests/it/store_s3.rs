//! The store in a bucket (`s3://`), against moto's S3 server on loopback: syncs, concurrent
//! writers, the conditional create, a garbled object, the client's proxy, errors.

use crate::common::moto::{S3Server, SECRET_KEY};
use crate::common::proxy::ForwardingProxy;
use crate::common::*;
use chrono::{Days, NaiveDate};
use monapi::store::{Store, StoreKind, SyncOptions};
use monapi::table::arrow_array::RecordBatch;
use monapi::{Client, DateRange, ErrorKind};
use monapi_emulator::Emulator;
use rows::rows;

/// Rows as sorted JSON text: the same rows in any order compare equal.
fn row_set(batch: &RecordBatch) -> Vec<String> {
    let mut rows: Vec<String> = rows(batch).iter().map(serde_json::Value::to_string).collect();
    rows.sort();
    rows
}

fn s3_client(emulator: &Emulator, server: &S3Server, prefix: &str) -> Client {
    s3_builder(emulator, server, prefix).build().unwrap()
}

/// The client's store, opened on the blocking pool (its methods block).
async fn store_of(client: &Client) -> Store {
    let tables = client.tables();
    tokio::task::spawn_blocking(move || tables.store().unwrap().unwrap())
        .await
        .unwrap()
}

fn days_ago(emulator: &Emulator, n: u64) -> NaiveDate {
    emulator.today() - Days::new(n)
}

/// Four settled days of a service task and a site task.
fn options(emulator: &Emulator) -> SyncOptions {
    SyncOptions::new()
        .range(DateRange::new(days_ago(emulator, 4), days_ago(emulator, 1)))
        .tasks(vec![10011, 20001])
}

fn reports(emulator: &Emulator) -> u64 {
    let counters = emulator.counters();
    counters.service_report + counters.site_report
}

#[tokio::test]
async fn a_sync_to_s3_then_another_sends_no_report_request() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    let client = s3_client(&emulator, &server, "a");
    let first = client.tables().sync(options(&emulator)).await.unwrap();
    assert!(first.failures.is_empty(), "{:?}", first.failures);
    assert_eq!((first.fetched, first.reused), (8, 0));

    let before = reports(&emulator);
    let second = client.tables().sync(options(&emulator)).await.unwrap();
    assert_eq!((second.fetched, second.reused, second.rows), (0, 8, 0));
    assert_eq!(reports(&emulator), before, "a warm sync sends no report request");

    // One object per kind, task and day, and the description: nothing else (no part, no temporary).
    let keys = server.keys("lake", "a/").await;
    assert_eq!(keys.len(), 1 + 4 + 3 * 4, "{keys:?}");
    assert!(keys.contains(&"a/store.json".to_string()));
    let store = store_of(&client).await;
    let held = tokio::task::spawn_blocking(move || store.contents(StoreKind::ServiceReport).unwrap())
        .await
        .unwrap();
    let want: Vec<_> = (1..=4).rev().map(|n| (10011, days_ago(&emulator, n))).collect();
    assert_eq!(held, want);

    // A table call reads what the sync wrote, and sends nothing.
    let range = DateRange::new(days_ago(&emulator, 4), days_ago(&emulator, 1));
    let before = reports(&emulator);
    let stored = client.tables().service_report(10011, range).await.unwrap();
    assert_eq!(reports(&emulator), before);
    let plain = client_of(&emulator)
        .tables()
        .service_report(10011, range)
        .await
        .unwrap();
    assert_eq!(row_set(&stored), row_set(&plain));
}

fn client_of(emulator: &Emulator) -> Client {
    client(emulator)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_syncs_at_once_into_one_prefix_equal_one() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    let (one, two) = (
        s3_client(&emulator, &server, "both"),
        s3_client(&emulator, &server, "both"),
    );
    let (tables_one, tables_two) = (one.tables(), two.tables());
    let (a, b) = tokio::join!(
        tables_one.sync(options(&emulator)),
        tables_two.sync(options(&emulator))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.failures.is_empty() && b.failures.is_empty());
    s3_client(&emulator, &server, "alone")
        .tables()
        .sync(options(&emulator))
        .await
        .unwrap();

    let both = server.keys("lake", "both/").await;
    let alone = server.keys("lake", "alone/").await;
    let strip = |keys: &[String], prefix: &str| -> Vec<String> {
        keys.iter()
            .map(|key| key.strip_prefix(prefix).unwrap().to_string())
            .collect()
    };
    assert_eq!(strip(&both, "both/"), strip(&alone, "alone/"));
    for key in strip(&alone, "alone/") {
        let (x, y) = (
            server.get("lake", &format!("both/{key}")).await,
            server.get("lake", &format!("alone/{key}")).await,
        );
        assert_eq!(x, y, "{key}: one whole file");
    }
}

#[tokio::test]
async fn a_file_already_there_is_kept_the_conditional_create_refused() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    let client = s3_client(&emulator, &server, "kept");
    let range = DateRange::new(days_ago(&emulator, 3), days_ago(&emulator, 3));
    let day = range.start.unwrap();
    let plain = client_of(&emulator);
    let table = plain.tables().service_report(10011, range).await.unwrap();
    let other = plain.tables().service_report(10012, range).await.unwrap();
    assert_ne!(rows(&table), rows(&other));

    let store = store_of(&client).await;
    let (written, again) = tokio::task::spawn_blocking(move || {
        let kind = StoreKind::ServiceReport;
        let written = store.write(kind, 10011, day, &table).unwrap();
        // Another writer's table under the same name: S3 answers 412, and the first stays.
        let again = store.write(kind, 10011, day, &other).unwrap();
        (written, again)
    })
    .await
    .unwrap();
    assert!(written, "the first write creates the object");
    assert!(!again, "the second finds it there");
    let before = reports(&emulator);
    let read = client.tables().service_report(10011, range).await.unwrap();
    assert_eq!(reports(&emulator), before);
    assert_eq!(
        rows(&read),
        rows(&plain.tables().service_report(10011, range).await.unwrap())
    );
}

#[tokio::test]
async fn a_garbled_object_is_set_aside_and_fetched_again() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    let client = s3_client(&emulator, &server, "garbled");
    client.tables().sync(options(&emulator)).await.unwrap();
    let day = days_ago(&emulator, 2);
    let key = format!("garbled/{}", Store::key(StoreKind::ServiceReport, 10011, day));
    let whole = server.garble("lake", &key).await;

    let range = DateRange::new(days_ago(&emulator, 4), days_ago(&emulator, 1));
    let before = emulator.counters().service_report;
    let read = client.tables().service_report(10011, range).await.unwrap();
    assert_eq!(
        emulator.counters().service_report - before,
        1,
        "the garbled day alone is fetched"
    );
    assert_eq!(
        row_set(&read),
        row_set(
            &client_of(&emulator)
                .tables()
                .service_report(10011, range)
                .await
                .unwrap()
        )
    );
    let aside = server.keys("lake", "garbled/.corrupt/").await;
    assert_eq!(
        aside.len(),
        1,
        "{aside:?} {:?}",
        server.keys("lake", "garbled/").await
    );
    assert!(aside[0].starts_with(&format!(
        "garbled/.corrupt/{}",
        Store::key(StoreKind::ServiceReport, 10011, day)
    )));
    let again = server.get("lake", &key).await;
    assert_eq!(again, whole, "the day is written again whole");
}

#[tokio::test]
async fn the_storage_traffic_goes_through_the_clients_proxy() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    let proxy = ForwardingProxy::start(None).await;
    let client = s3_builder(&emulator, &server, "proxied")
        .proxy(proxy.url())
        .build()
        .unwrap();
    let report = client.tables().sync(options(&emulator)).await.unwrap();
    assert_eq!(report.fetched, 8);
    let to_s3 = format!("127.0.0.1:{}", server.port);
    assert!(
        proxy.destinations().contains(&to_s3),
        "{:?}",
        proxy.destinations()
    );
    assert_eq!(server.keys("lake", "proxied/").await.len(), 1 + 4 + 3 * 4);
}

#[tokio::test]
async fn storage_errors_name_the_store_and_show_no_secret() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    // A bucket that does not exist.
    let client = builder(&emulator)
        .store("s3://nowhere/a")
        .storage_option("aws_endpoint_url", server.endpoint())
        .storage_option("aws_access_key_id", "test")
        .storage_option("aws_secret_access_key", SECRET_KEY)
        .storage_option("aws_region", "us-east-1")
        .build()
        .unwrap();
    let error = client.tables().sync(options(&emulator)).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Store, "{error}");
    let text = format!("{error} {error:?}");
    assert!(text.contains("s3://nowhere/a/"), "{text}");
    assert!(text.contains("NoSuchBucket"), "{text}");
    assert!(!text.contains(SECRET_KEY), "{text}");
    assert_no_secret(&text, &[]);

    // Before any request: an option the store does not have, and a URL it cannot take.
    let before = emulator.counters().total;
    let error = s3_builder(&emulator, &server, "a")
        .storage_option("aws_no_such_option", "1")
        .build()
        .unwrap_err();
    assert_eq!(error.field(), Some("storage_options"));
    assert!(error.to_string().contains("aws_no_such_option"), "{error}");
    let error = builder(&emulator).store("ftp://lake/a").build().unwrap_err();
    assert_eq!(error.field(), Some("store"));
    let debug = format!("{:?}", s3_client(&emulator, &server, "a").settings());
    assert!(!debug.contains(SECRET_KEY), "{debug}");
    assert_eq!(emulator.counters().total, before, "nothing reached the service");
}

#[tokio::test]
async fn a_sync_that_verifies_finds_a_garbled_object_a_plain_one_does_not() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    let client = s3_client(&emulator, &server, "verify");
    client.tables().sync(options(&emulator)).await.unwrap();
    let key = format!(
        "verify/{}",
        Store::key(StoreKind::SiteAvailability, 20001, days_ago(&emulator, 3))
    );
    let whole = server.garble("lake", &key).await;

    let before = reports(&emulator);
    let plain = client.tables().sync(options(&emulator)).await.unwrap();
    assert_eq!((plain.fetched, plain.reused, plain.verified), (0, 8, 0));
    assert!(plain.set_aside.is_empty());
    assert_eq!(reports(&emulator), before, "a listing trusts the names");

    let verified = client
        .tables()
        .sync(options(&emulator).verify(true))
        .await
        .unwrap();
    assert_eq!(
        verified.verified,
        4 * 4,
        "every file of the range read: 4 kinds' files on 4 days"
    );
    assert_eq!(verified.set_aside.len(), 1, "{:?}", verified.set_aside);
    assert!(verified.set_aside[0]
        .display()
        .to_string()
        .starts_with("s3://lake/verify/.corrupt/"));
    assert_eq!((verified.fetched, verified.reused), (1, 7));
    assert!(
        verified
            .summary()
            .ends_with(", 16 files verified, 1 corrupt files set aside"),
        "{}",
        verified.summary()
    );
    let again = server.get("lake", &key).await;
    assert_eq!(again, whole, "fetched again and written whole");
}
