//! The store in an Azure container (`az://`), against Azurite on loopback: a sync and a warm
//! one, and the conditional create (`If-None-Match: *`) answered as "already there". The
//! other cases (concurrent writers, kills, `--verify`, the proxy) run against S3
//! (`store_s3.rs`): the store's code is the same for both, only `object_store`'s client differs.

use crate::common::azurite::AzureServer;
use crate::common::*;
use chrono::{Days, NaiveDate};
use monapi::store::{StoreKind, SyncOptions};
use monapi::{Client, DateRange, Monitor};
use monapi_emulator::Emulator;
use rows::rows;

fn azure_client(emulator: &Emulator, server: &AzureServer, prefix: &str) -> Client {
    let mut builder = builder(emulator).store(format!("az://lake/{prefix}"));
    for (key, value) in server.options() {
        builder = builder.storage_option(key, value);
    }
    builder.settle(std::time::Duration::from_secs(1)).build().unwrap()
}

fn days_ago(emulator: &Emulator, n: u64) -> NaiveDate {
    emulator.today() - Days::new(n)
}

fn reports(emulator: &Emulator) -> u64 {
    let counters = emulator.counters();
    counters.service_report + counters.site_report
}

#[tokio::test]
async fn a_sync_to_azure_then_another_sends_no_report_request_and_the_tables_read_it() {
    let (emulator, server) = (emulator().await, AzureServer::start(&["lake"]));
    let client = azure_client(&emulator, &server, "a");
    let range = DateRange::new(days_ago(&emulator, 4), days_ago(&emulator, 1));
    let options = || SyncOptions::new().range(range).tasks(vec![10011, 20001]);
    let first = client.tables().sync(options()).await.unwrap();
    assert!(first.failures.is_empty(), "{:?}", first.failures);
    assert_eq!((first.fetched, first.reused), (8, 0));

    let before = reports(&emulator);
    let second = client.tables().sync(options()).await.unwrap();
    assert_eq!((second.fetched, second.reused, second.rows), (0, 8, 0));
    assert_eq!(reports(&emulator), before, "a warm sync sends no report request");

    let tables = client.tables();
    let held = tokio::task::spawn_blocking(move || {
        let store = tables.store().unwrap().unwrap();
        StoreKind::ALL.map(|kind| store.contents(kind).unwrap().len())
    })
    .await
    .unwrap();
    assert_eq!(held, [4, 4, 4, 4]);

    let stored = client
        .tables()
        .site_report(20001, range, Monitor::All)
        .await
        .unwrap();
    assert_eq!(reports(&emulator), before, "read from the container");
    let plain = client_of(&emulator)
        .tables()
        .site_report(20001, range, Monitor::All)
        .await
        .unwrap();
    // The same rows; a store's days are read one after another, so in another order.
    let set = |batch| {
        let mut rows: Vec<String> = rows(batch).iter().map(ToString::to_string).collect();
        rows.sort();
        rows
    };
    assert_eq!(set(&stored.availability), set(&plain.availability));
    assert_eq!(set(&stored.faults), set(&plain.faults));
}

fn client_of(emulator: &Emulator) -> Client {
    client(emulator)
}

#[tokio::test]
async fn a_blob_already_there_is_kept_the_conditional_create_refused() {
    let (emulator, server) = (emulator().await, AzureServer::start(&["lake"]));
    let client = azure_client(&emulator, &server, "kept");
    let day = days_ago(&emulator, 3);
    let range = DateRange::new(day, day);
    let plain = client_of(&emulator);
    let table = plain.tables().service_report(10011, range).await.unwrap();
    let other = plain.tables().service_report(10012, range).await.unwrap();
    let tables = client.tables();
    let (written, again) = tokio::task::spawn_blocking(move || {
        let store = tables.store().unwrap().unwrap();
        let kind = StoreKind::ServiceReport;
        // Another writer's table under the same name: Azure answers 409, and the first stays.
        (
            store.write(kind, 10011, day, &table).unwrap(),
            store.write(kind, 10011, day, &other).unwrap(),
        )
    })
    .await
    .unwrap();
    assert_eq!((written, again), (true, false));
    let before = reports(&emulator);
    let read = client.tables().service_report(10011, range).await.unwrap();
    assert_eq!(reports(&emulator), before);
    let want = plain.tables().service_report(10011, range).await.unwrap();
    assert_eq!(rows(&read), rows(&want));
}
