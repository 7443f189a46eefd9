//! The local store (feature `arrow`): table calls read the settled days it holds and fetch
//! only the others, counted by the emulator; syncs; corrupt files; unsettled days.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::*;
use chrono::{Days, NaiveDate};
use monapi::table::arrow_array::RecordBatch;
use monapi::table::{Store, StoreKind, SyncOptions};
use monapi::{Client, DateRange, ErrorKind, Monitor};
use monapi_emulator::{Emulator, FaultKind, Faults};
use rows::rows;
use serde_json::Value;

/// A fresh directory under the system's temporary one, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("monapi-store-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        Dir(path)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A client of the demo account with a store in `dir`; days settle a second after they end.
fn stored_client(emulator: &Emulator, dir: &Path) -> Client {
    builder(emulator)
        .store(dir)
        .settle(Duration::from_secs(1))
        .build()
        .unwrap()
}

/// Rows as sorted JSON text: the same rows in any order compare equal.
fn row_set(batch: &RecordBatch) -> Vec<String> {
    let mut rows: Vec<String> = rows(batch).iter().map(Value::to_string).collect();
    rows.sort();
    rows
}

fn days_ago(emulator: &Emulator, n: u64) -> NaiveDate {
    emulator.today() - Days::new(n)
}

fn range(first: NaiveDate, last: NaiveDate) -> DateRange {
    DateRange::new(first, last)
}

#[tokio::test]
async fn a_hit_sends_nothing_and_a_miss_fetches_only_the_missing_days() {
    let emulator = emulator().await;
    let dir = Dir::new("hits");
    let plain = client(&emulator);
    let stored = stored_client(&emulator, &dir.0);
    let (first, last) = (days_ago(&emulator, 6), days_ago(&emulator, 2));
    let expected = row_set(
        &plain
            .tables()
            .service_report(10011, range(first, last))
            .await
            .unwrap(),
    );
    let asked = || emulator.counters().service_report;

    let before = asked();
    let cold = stored
        .tables()
        .service_report(10011, range(first, last))
        .await
        .unwrap();
    assert_eq!(asked() - before, 1, "five missing days are one request");
    assert_eq!(row_set(&cold), expected);
    let store = Store::open(&dir.0, stored.timezone()).unwrap();
    let held: Vec<_> = store.contents(StoreKind::ServiceReport).unwrap();
    let days: Vec<NaiveDate> = first.iter_days().take(5).collect();
    assert_eq!(held, days.iter().map(|day| (10011, *day)).collect::<Vec<_>>());

    let before = asked();
    let warm = stored
        .tables()
        .service_report(10011, range(first, last))
        .await
        .unwrap();
    assert_eq!(asked() - before, 0, "every day is held");
    assert_eq!(row_set(&warm), expected);
    // By day, oldest first.
    assert_eq!(rows(&warm), rows(&cold));

    // A day taken out of the middle is fetched alone; a wider range fetches its two ends.
    std::fs::remove_file(store.file(StoreKind::ServiceReport, 10011, days[2])).unwrap();
    let before = asked();
    let again = stored
        .tables()
        .service_report(10011, range(first, last))
        .await
        .unwrap();
    assert_eq!(asked() - before, 1);
    assert_eq!(row_set(&again), expected);
    let (wide_first, wide_last) = (days_ago(&emulator, 8), days_ago(&emulator, 1));
    let before = asked();
    let wide = stored
        .tables()
        .service_report(10011, range(wide_first, wide_last))
        .await
        .unwrap();
    assert_eq!(
        asked() - before,
        2,
        "the days before and after the held ones: two runs"
    );
    let wide_plain = plain
        .tables()
        .service_report(10011, range(wide_first, wide_last))
        .await
        .unwrap();
    assert_eq!(row_set(&wide), row_set(&wide_plain));
}

#[tokio::test]
async fn site_reports_through_the_store_equal_the_plain_call_for_every_monitor() {
    let emulator = emulator().await;
    let dir = Dir::new("sites");
    let plain = client(&emulator);
    let stored = stored_client(&emulator, &dir.0);
    let (first, last) = (days_ago(&emulator, 4), days_ago(&emulator, 1));
    let all = plain
        .tables()
        .site_report(20001, range(first, last), Monitor::All)
        .await
        .unwrap();
    let point = rows(&all.availability)
        .iter()
        .map(|row| row["monitor_id"].as_u64().unwrap())
        .find(|&id| id != 0)
        .unwrap();
    for monitor in [
        Monitor::All,
        Monitor::Average,
        Monitor::Point(point),
        Monitor::All,
    ] {
        let want = plain
            .tables()
            .site_report(20001, range(first, last), monitor)
            .await
            .unwrap();
        let before = emulator.counters().site_report;
        let got = stored
            .tables()
            .site_report(20001, range(first, last), monitor)
            .await
            .unwrap();
        let sent = emulator.counters().site_report - before;
        assert_eq!(
            row_set(&got.availability),
            row_set(&want.availability),
            "{monitor:?}"
        );
        assert_eq!(
            row_set(&got.response_time),
            row_set(&want.response_time),
            "{monitor:?}"
        );
        assert_eq!(row_set(&got.faults), row_set(&want.faults), "{monitor:?}");
        // The first call fetches every point of the four days; the others read them.
        let first_call = matches!(monitor, Monitor::All) && sent > 0;
        assert_eq!(sent, u64::from(first_call), "{monitor:?}");
    }
    let store = Store::open(&dir.0, stored.timezone()).unwrap();
    for kind in [
        StoreKind::SiteAvailability,
        StoreKind::SiteResponseTime,
        StoreKind::SiteFaults,
    ] {
        assert_eq!(store.contents(kind).unwrap().len(), 4, "{kind:?}");
    }
    assert!(store.contents(StoreKind::ServiceReport).unwrap().is_empty());
}

#[tokio::test]
async fn days_not_settled_are_fetched_every_time_and_never_written() {
    let emulator = emulator().await;
    let dir = Dir::new("unsettled");
    let stored = stored_client(&emulator, &dir.0);
    let plain = client(&emulator);
    let today = emulator.today();
    let yesterday = days_ago(&emulator, 1);
    let store = Store::open(&dir.0, stored.timezone()).unwrap();
    for _ in 0..2 {
        let before = emulator.counters().site_report;
        let got = stored
            .tables()
            .site_report(20002, range(yesterday, today), Monitor::All)
            .await
            .unwrap();
        let want = plain
            .tables()
            .site_report(20002, range(yesterday, today), Monitor::All)
            .await
            .unwrap();
        // Today's ongoing fault is in the rows, and today is never kept.
        assert_eq!(row_set(&got.faults), row_set(&want.faults));
        assert_eq!(row_set(&got.availability), row_set(&want.availability));
        assert!(
            emulator.counters().site_report - before >= 2,
            "today is asked for again"
        );
        assert!(!store.holds(StoreKind::SiteFaults, 20002, today));
        assert!(store.holds(StoreKind::SiteFaults, 20002, yesterday));
    }
    // With a settle of ten days, nothing of the last ten days is written.
    let slow = builder(&emulator)
        .store(&dir.0)
        .settle(Duration::from_secs(10 * 86_400))
        .build()
        .unwrap();
    let week = range(days_ago(&emulator, 7), days_ago(&emulator, 3));
    for _ in 0..2 {
        let before = emulator.counters().service_report;
        slow.tables().service_report(10014, week).await.unwrap();
        assert_eq!(emulator.counters().service_report - before, 1);
    }
    assert!(store.contents(StoreKind::ServiceReport).unwrap().is_empty());
}

#[tokio::test]
async fn a_corrupt_or_truncated_file_is_set_aside_and_fetched_again() {
    let emulator = emulator().await;
    let dir = Dir::new("corrupt");
    let stored = stored_client(&emulator, &dir.0);
    let day = days_ago(&emulator, 3);
    let want = stored
        .tables()
        .service_report(10015, range(day, day))
        .await
        .unwrap();
    let store = Store::open(&dir.0, stored.timezone()).unwrap();
    let file = store.file(StoreKind::ServiceReport, 10015, day);
    let whole = std::fs::read(&file).unwrap();
    let damages: [(&str, Vec<u8>); 3] = [
        ("truncated", whole[..whole.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("garbled", {
            let mut bytes = whole.clone();
            let middle = bytes.len() / 3;
            bytes[middle..middle + 64].fill(0xA5);
            bytes
        }),
    ];
    for (damage, bytes) in damages {
        std::fs::write(&file, bytes).unwrap();
        let before = emulator.counters().service_report;
        let got = stored
            .tables()
            .service_report(10015, range(day, day))
            .await
            .unwrap();
        assert_eq!(
            emulator.counters().service_report - before,
            1,
            "{damage}: fetched again"
        );
        assert_eq!(row_set(&got), row_set(&want), "{damage}");
        assert_eq!(
            std::fs::read(&file).unwrap().len(),
            whole.len(),
            "{damage}: written again whole"
        );
    }
    let set_aside = std::fs::read_dir(dir.0.join(".corrupt/service_report").join(format!("day={day}")))
        .unwrap()
        .count();
    assert_eq!(set_aside, 3, "each damaged file is kept in .corrupt/");
}

#[tokio::test]
async fn a_store_of_another_time_zone_is_refused() {
    let emulator = emulator().await;
    let dir = Dir::new("zone");
    let stored = stored_client(&emulator, &dir.0);
    let day = days_ago(&emulator, 2);
    stored
        .tables()
        .service_report(10024, range(day, day))
        .await
        .unwrap();
    let utc = builder(&emulator)
        .store(&dir.0)
        .timezone(monapi::input::timezone("UTC").unwrap())
        .build()
        .unwrap();
    let error = utc
        .tables()
        .service_report(10024, range(day, day))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidInput);
    assert_eq!(error.field(), Some("store"));
    assert!(error.rule().unwrap().contains("+08:00"), "{error}");
}

#[tokio::test]
async fn a_sync_fetches_what_is_missing_once_and_retries_what_failed() {
    let emulator = std::sync::Arc::new(emulator().await);
    let dir = Dir::new("sync");
    let stored = builder(&emulator)
        .store(&dir.0)
        .settle(Duration::from_secs(1))
        .max_retries(0)
        .build()
        .unwrap();
    let days = 5;
    let (first, last) = (days_ago(&emulator, days), days_ago(&emulator, 1));
    let options = SyncOptions::new()
        .range(range(first, last))
        .tasks(vec![10024, 10015, 20001]);

    // One report fails (the first asked for, once the task lists are read): its task-days
    // are listed and not recorded.
    let faulty = emulator.clone();
    let failing = options.clone().on_progress(move |progress| {
        if progress.done == 0 {
            let next = vec![FaultKind::Error503];
            faulty
                .set_faults(Faults {
                    next,
                    ..Faults::default()
                })
                .unwrap();
        }
    });
    let report = stored.tables().sync(failing).await.unwrap();
    assert_eq!(report.tasks, 3);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    let failure = &report.failures[0];
    assert_eq!((failure.start, failure.end), (first, last));
    assert_eq!(report.fetched + days, 3 * days);
    let store = Store::open(&dir.0, stored.timezone()).unwrap();
    let kind = if failure.report == "service_report" {
        StoreKind::ServiceReport
    } else {
        StoreKind::SiteFaults
    };
    assert!(!store.holds(kind, failure.task_id, first));
    assert!(
        report.summary().contains(&format!("{} failed", days)),
        "{}",
        report.summary()
    );

    // The next sync fetches only the failed task's days.
    let before = emulator.counters();
    let report = stored.tables().sync(options.clone()).await.unwrap();
    let after = emulator.counters();
    assert!(report.failures.is_empty());
    assert_eq!((report.fetched, report.reused), (days, 2 * days));
    assert_eq!(
        after.service_report + after.site_report - before.service_report - before.site_report,
        1
    );

    // Nothing new: no report request at all.
    let before = emulator.counters();
    let report = stored.tables().sync(options).await.unwrap();
    let after = emulator.counters();
    assert_eq!((report.fetched, report.reused, report.rows), (0, 3 * days, 0));
    assert_eq!(after.service_report, before.service_report);
    assert_eq!(after.site_report, before.site_report);

    // What the sync wrote is what the table calls read.
    let plain = client(&emulator);
    let want = plain
        .tables()
        .service_report(10015, range(first, last))
        .await
        .unwrap();
    let got = stored
        .tables()
        .service_report(10015, range(first, last))
        .await
        .unwrap();
    assert_eq!(row_set(&got), row_set(&want));
}

#[tokio::test]
async fn a_sync_checks_its_input_before_any_request() {
    let emulator = emulator().await;
    let dir = Dir::new("input");
    let plain = client(&emulator);
    let error = plain.tables().sync(SyncOptions::new()).await.unwrap_err();
    assert_eq!(error.field(), Some("store"));
    let stored = stored_client(&emulator, &dir.0);
    let error = stored
        .tables()
        .sync(SyncOptions::new().tasks(vec![10024, 424242]))
        .await
        .unwrap_err();
    assert_eq!(error.field(), Some("tasks"));
    assert!(error.rule().unwrap().contains("424242"));
    assert_eq!(
        emulator.counters().service_report + emulator.counters().site_report,
        0
    );
    // Only days not settled yet: nothing to do.
    let today = emulator.today();
    let report = stored
        .tables()
        .sync(SyncOptions::new().range(range(today, today)).tasks(vec![10024]))
        .await
        .unwrap();
    assert_eq!((report.start, report.fetched), (None, 0));
}
