//! A store of format 1 (unsigned ids and counts), written by monapi 0.1 into
//! `tests/fixtures/store-format-1/` (3 tasks, 2 days, 14 files): refused by every call, naming
//! the migration; migrated once, in a directory and in a bucket; a migration stopped half-way
//! finished by the next; a garbled file set aside and fetched again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::moto::S3Server;
use crate::common::*;
use chrono::NaiveDate;
use monapi::store::{StoreKind, SyncOptions, FORMAT};
use monapi::table::arrow_array::RecordBatch;
use monapi::table::arrow_schema::DataType;
use monapi::{DateRange, ErrorKind};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rows::rows;

const FILES: usize = 14;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/store-format-1")
}

/// Every file of the store in `dir`, by key, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, above: &str, found: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let key = if above.is_empty() {
                name
            } else {
                format!("{above}/{name}")
            };
            if entry.file_type().unwrap().is_dir() {
                if !key.starts_with('.') {
                    walk(&entry.path(), &key, found);
                }
            } else {
                found.insert(key, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut found = BTreeMap::new();
    walk(dir, "", &mut found);
    found
}

/// A copy of the fixture in a fresh directory (removed when dropped).
fn copy(name: &str) -> Dir {
    let dir = Dir::new(&format!("migrate-{name}"));
    for (key, bytes) in files(&fixture()) {
        let path = dir.0.join(&key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// The fixture's days and tasks.
fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
}

fn fixture_range() -> DateRange {
    DateRange::new(day(24), day(25))
}

/// A Parquet file's rows as stored (any schema), as sorted JSON text, and its integer types.
fn stored_rows(bytes: &[u8]) -> (Vec<String>, Vec<DataType>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::copy_from_slice(bytes)).unwrap();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().collect::<Result<_, _>>().unwrap();
    let mut set: Vec<String> = batches
        .iter()
        .flat_map(|batch| rows(batch).into_iter().map(|row| row.to_string()))
        .collect();
    set.sort();
    let types = schema
        .fields()
        .iter()
        .map(|field| field.data_type().clone())
        .filter(|kind| kind.is_integer())
        .collect();
    (set, types)
}

fn format_of(description: &[u8]) -> u64 {
    let value: serde_json::Value = serde_json::from_slice(description).unwrap();
    value["format"].as_u64().unwrap()
}

/// Checks that `migrated` holds the fixture's files with the same rows, in signed types.
fn assert_migrated(migrated: &BTreeMap<String, Vec<u8>>) {
    let old = files(&fixture());
    assert_eq!(
        old.keys().collect::<Vec<_>>(),
        migrated.keys().collect::<Vec<_>>(),
        "the same files"
    );
    assert_eq!(format_of(&migrated["store.json"]), FORMAT);
    for (key, bytes) in old.iter().filter(|(key, _)| key.ends_with(".parquet")) {
        let (old_rows, old_types) = stored_rows(bytes);
        let (new_rows, new_types) = stored_rows(&migrated[key]);
        assert_eq!(old_rows, new_rows, "{key}: the same rows");
        assert!(
            old_types.iter().any(|t| t.is_unsigned_integer()),
            "{key}: {old_types:?}"
        );
        assert!(
            new_types.iter().all(|t| *t == DataType::Int64),
            "{key}: {new_types:?}"
        );
        // The checksum and the schema a store checks on every read.
        let kind = StoreKind::ALL
            .into_iter()
            .find(|kind| key.starts_with(&format!("{}/", kind.name())))
            .unwrap();
        monapi::store::read_stored_file(kind, monapi::SERVICE_TIMEZONE, migrated[key].clone())
            .unwrap_or_else(|why| panic!("{key}: {why}"));
    }
}

#[tokio::test]
async fn a_store_of_format_1_is_refused_naming_the_migration_and_nothing_is_sent() {
    let emulator = emulator().await;
    let copy = copy("refused");
    let client = stored_client(&emulator, &copy.0);
    let read = client.tables().service_report(10011, fixture_range()).await;
    let sync = client
        .tables()
        .sync(SyncOptions::new().range(fixture_range()).tasks(vec![10011]))
        .await;
    for error in [read.unwrap_err(), sync.unwrap_err()] {
        assert_eq!(error.kind(), ErrorKind::Store, "{error}");
        let text = error.to_string();
        assert!(text.contains("store.json"), "{text}");
        assert!(text.contains("is of format 1"), "{text}");
        assert!(
            text.contains(&format!("monapi sync --migrate {}", copy.0.display())),
            "{text}"
        );
    }
    assert_eq!(emulator.counters().service_report, 0);
    assert_eq!(files(&copy.0), files(&fixture()), "nothing written");
}

#[tokio::test]
async fn a_migration_rewrites_every_file_once_with_the_same_rows_and_then_the_store_serves() {
    let emulator = emulator().await;
    let copy = copy("whole");
    let client = stored_client(&emulator, &copy.0);
    let migrated = client.tables().migrate_store().await.unwrap();
    assert_eq!(
        (migrated.from_format, migrated.rewritten, migrated.current),
        (Some(1), FILES as u64, 0)
    );
    assert!(migrated.set_aside.is_empty());
    assert_eq!(
        migrated.summary(),
        format!("from format 1 to {FORMAT}: {FILES} files rewritten, 0 already in format {FORMAT}")
    );
    let after = files(&copy.0);
    assert_migrated(&after);

    // Once only: a second migration changes nothing.
    let again = client.tables().migrate_store().await.unwrap();
    assert_eq!(
        again.summary(),
        format!("already in format {FORMAT}, nothing to migrate")
    );
    assert_eq!(files(&copy.0), after);

    // The store serves its days: read without a request, and a sync finds them whole.
    let table = client
        .tables()
        .service_report(10011, fixture_range())
        .await
        .unwrap();
    assert!(table.num_rows() > 0);
    let report = client
        .tables()
        .sync(
            SyncOptions::new()
                .range(fixture_range())
                .tasks(vec![10011, 20003, 20004]),
        )
        .await
        .unwrap();
    assert_eq!((report.fetched, report.reused), (0, 6));
    let counters = emulator.counters();
    assert_eq!(counters.service_report + counters.site_report, 0);
}

#[tokio::test]
async fn a_migration_stopped_half_way_is_refused_then_finished_by_the_next() {
    let emulator = emulator().await;
    let whole = copy("reference");
    stored_client(&emulator, &whole.0)
        .tables()
        .migrate_store()
        .await
        .unwrap();
    let reference = files(&whole.0);

    // What a migration killed after 7 files leaves: those rewritten, store.json still format 1.
    let half = copy("half");
    let parquet: Vec<&String> = reference.keys().filter(|k| k.ends_with(".parquet")).collect();
    for key in parquet.iter().step_by(2) {
        std::fs::write(half.0.join(key), &reference[*key]).unwrap();
    }
    let client = stored_client(&emulator, &half.0);
    let refused = client.tables().service_report(10011, fixture_range()).await;
    assert!(refused.unwrap_err().to_string().contains("--migrate"));

    let finished = client.tables().migrate_store().await.unwrap();
    assert_eq!((finished.rewritten, finished.current), (7, 7));
    assert_eq!(
        files(&half.0),
        reference,
        "the same store, byte for byte, as one migration"
    );
}

#[tokio::test]
async fn a_file_that_does_not_read_is_set_aside_and_the_next_sync_fetches_it() {
    let emulator = emulator().await;
    let copy = copy("garbled");
    let key = "site_faults/day=2026-11-25/task-20004.parquet";
    let mut bytes = std::fs::read(copy.0.join(key)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(copy.0.join(key), bytes).unwrap();

    let client = stored_client(&emulator, &copy.0);
    let migrated = client.tables().migrate_store().await.unwrap();
    assert_eq!(
        (migrated.rewritten, migrated.set_aside.len()),
        (FILES as u64 - 1, 1)
    );
    assert!(migrated
        .summary()
        .ends_with(", 1 files did not read (set aside; the next sync fetches them again)"));
    assert!(!copy.0.join(key).exists());

    let report = client
        .tables()
        .sync(SyncOptions::new().range(fixture_range()).tasks(vec![20004]))
        .await
        .unwrap();
    assert_eq!((report.fetched, report.reused), (1, 1), "{report:?}");
    assert!(copy.0.join(key).exists());
}

#[tokio::test]
async fn a_store_in_a_bucket_is_migrated_in_place() {
    let (emulator, server) = (emulator().await, S3Server::start(&["lake"]));
    for (key, bytes) in files(&fixture()) {
        server.put("lake", &format!("old/{key}"), bytes).await;
    }
    let client = s3_builder(&emulator, &server, "old").build().unwrap();
    let refused = client.tables().service_report(10011, fixture_range()).await;
    let refused = refused.unwrap_err().to_string();
    assert!(
        refused.contains("monapi sync --migrate s3://lake/old"),
        "{refused}"
    );

    let migrated = client.tables().migrate_store().await.unwrap();
    assert_eq!((migrated.rewritten, migrated.current), (FILES as u64, 0));
    let mut after = BTreeMap::new();
    for key in server.keys("lake", "old/").await {
        let bytes = server.get("lake", &key).await.to_vec();
        after.insert(key.strip_prefix("old/").unwrap().to_string(), bytes);
    }
    assert_migrated(&after);
    client
        .tables()
        .service_report(10011, fixture_range())
        .await
        .unwrap();
    assert_eq!(emulator.counters().service_report, 0);
}
