//! The local store (feature `arrow`): table calls read the settled days it holds and fetch
//! only the others, counted by the emulator; syncs; corrupt files; unsettled days.

use std::path::Path;
use std::time::Duration;

use crate::common::*;
use chrono::{Days, NaiveDate};
use monapi::store::{Store, StoreKind, SyncOptions};
use monapi::table::arrow_array::RecordBatch;
use monapi::{DateRange, ErrorKind, Monitor};
use monapi_emulator::{Emulator, FaultKind, Faults};
use rows::rows;
use serde_json::Value;

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
        assert!(!store.holds(StoreKind::SiteFaults, 20002, today).unwrap());
        assert!(store.holds(StoreKind::SiteFaults, 20002, yesterday).unwrap());
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
    assert!(!store.holds(kind, failure.task_id, first).unwrap());
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

/// Every file of the store's datasets (not `.tmp/` or `.corrupt/`) with its bytes: a
/// task-day's file is a pure function of its rows, so equal stores have equal files.
fn datasets(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    for kind in StoreKind::ALL {
        let Ok(days) = std::fs::read_dir(dir.join(kind.name())) else {
            continue;
        };
        for day in days {
            for file in std::fs::read_dir(day.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A sync of three tasks (two service, one site) over the five days before today.
fn three_tasks(emulator: &Emulator) -> SyncOptions {
    SyncOptions::new()
        .range(range(days_ago(emulator, 5), days_ago(emulator, 1)))
        .tasks(vec![10024, 10015, 20001])
}

/// One task's file cannot be opened (a symbolic link to itself: `ELOOP`, whoever runs the
/// test, root included), which is not a file to set aside: that task fails, whole, and the
/// others are synced.
#[cfg(unix)]
#[tokio::test]
async fn a_sync_with_a_task_whose_store_fails_completes_the_others() {
    let emulator = emulator().await;
    let dir = Dir::new("task-fails");
    let stored = stored_client(&emulator, &dir.0);
    let (first, last) = (days_ago(&emulator, 5), days_ago(&emulator, 1));
    let store = Store::open(&dir.0, stored.timezone()).unwrap();
    let looped = store.file(StoreKind::ServiceReport, 10015, first);
    std::fs::create_dir_all(looped.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(looped.file_name().unwrap(), &looped).unwrap();

    let report = stored.tables().sync(three_tasks(&emulator)).await.unwrap();
    assert_eq!(report.tasks, 3);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    let failure = &report.failures[0];
    assert_eq!(
        (failure.report, failure.task_id, failure.start, failure.end),
        ("service_report", 10015, first, last)
    );
    assert!(
        failure.error.to_string().contains("task-10015"),
        "{}",
        failure.error
    );
    assert_eq!(
        (report.fetched, report.failed()),
        (10, 5),
        "the two other tasks' days"
    );
    for day in first.iter_days().take(5) {
        assert!(store.holds(StoreKind::ServiceReport, 10024, day).unwrap());
        assert!(store.holds(StoreKind::SiteFaults, 20001, day).unwrap());
    }
    assert!(report.error(monapi::table::OnFailure::Raise).is_some());
}

/// A power cut: `store.json` cut short (empty, then a prefix) and the last Parquet file
/// written cut short. The store opens, repairs, and a sync after it equals a clean one.
#[tokio::test]
async fn a_store_cut_short_by_a_power_cut_opens_repairs_and_syncs_to_a_clean_one() {
    let emulator = emulator().await;
    let clean = Dir::new("clean");
    let client = stored_client(&emulator, &clean.0);
    client.tables().sync(three_tasks(&emulator)).await.unwrap();
    let want = datasets(&clean.0);
    assert_eq!(want.len(), 2 * 5 + 3 * 5);

    let dir = Dir::new("power-cut");
    let stored = stored_client(&emulator, &dir.0);
    stored.tables().sync(three_tasks(&emulator)).await.unwrap();
    let description = dir.0.join("store.json");
    let whole = std::fs::read(&description).unwrap();
    for cut in [0, whole.len() / 2] {
        std::fs::write(&description, &whole[..cut]).unwrap();
        let newest = datasets(&dir.0)
            .keys()
            .map(|name| dir.0.join(name))
            .max_by_key(|path| std::fs::metadata(path).unwrap().modified().unwrap())
            .unwrap();
        let bytes = std::fs::read(&newest).unwrap();
        std::fs::write(&newest, &bytes[..bytes.len() / 3]).unwrap();

        let report = stored.tables().sync(three_tasks(&emulator)).await.unwrap();
        assert!(report.failures.is_empty(), "cut at {cut}: {:?}", report.failures);
        assert_eq!(report.set_aside.len(), 1, "cut at {cut}: the cut file");
        assert!(report.fetched >= 1, "cut at {cut}: its day fetched again");
        assert_eq!(std::fs::read(&description).unwrap(), whole, "cut at {cut}");
        assert_eq!(datasets(&dir.0), want, "cut at {cut}");
    }
}

/// Two clients of different time zones writing a new store at once: one records its time
/// zone, the other is refused (before, both wrote, and the store mixed days of two zones).
#[tokio::test]
async fn two_clients_of_different_time_zones_on_a_new_store_one_wins() {
    let emulator = emulator().await;
    let day = days_ago(&emulator, 3);
    for round in 0..4 {
        let dir = Dir::new("zones");
        let east = stored_client(&emulator, &dir.0);
        let utc = builder(&emulator)
            .store(&dir.0)
            .settle(Duration::from_secs(1))
            .timezone(monapi::input::timezone("UTC").unwrap())
            .build()
            .unwrap();
        let (east, utc) = (east.tables(), utc.tables());
        let (a, b) = tokio::join!(
            east.service_report(10024, range(day, day)),
            utc.service_report(10024, range(day, day)),
        );
        let won = [a.is_ok(), b.is_ok()];
        assert_eq!(
            won.iter().filter(|w| **w).count(),
            1,
            "round {round}: {a:?} {b:?}"
        );
        let error = a.err().or(b.err()).unwrap();
        assert_eq!(error.field(), Some("store"), "round {round}: {error}");
        let text = std::fs::read_to_string(dir.0.join("store.json")).unwrap();
        let zone = if won[0] { "+08:00" } else { "+00:00" };
        assert!(text.contains(zone), "round {round}: {text}");
    }
}

/// The store is opened off the runtime's thread: its `store.json` is a FIFO that a task
/// of the same single-threaded runtime writes only once the table call is under way. Read
/// on the runtime's thread, it would wait forever for that task (the watchdog says so).
#[cfg(unix)]
#[test]
fn the_store_is_opened_off_the_runtime_thread() {
    let dir = Dir::new("fifo");
    std::fs::create_dir_all(&dir.0).unwrap();
    let fifo = dir.0.join("store.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let root = dir.0.clone();
    let (done, outcome) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let rows = runtime.block_on(async move {
            let emulator = emulator().await;
            let stored = stored_client(&emulator, &root);
            let day = days_ago(&emulator, 3);
            let writer = tokio::spawn(async move {
                tokio::fs::write(fifo, "{\"format\": 2, \"timezone\": \"+08:00\"}\n").await
            });
            let table = stored.tables().service_report(10024, range(day, day)).await;
            writer.await.unwrap().unwrap();
            table.map(|table| table.num_rows())
        });
        let _ = done.send(rows);
    });
    match outcome.recv_timeout(Duration::from_secs(60)) {
        Ok(rows) => assert!(rows.unwrap() > 0),
        Err(_) => panic!("the table call held the runtime's only thread reading store.json"),
    }
}

/// Each name of a dictionary column once, in a table joined from days fetched or read from the
/// store: pandas refuses a category that stands twice.
#[tokio::test]
async fn tables_through_the_store_hold_each_name_once_in_their_dictionaries() {
    use monapi::table::arrow_array::cast::AsArray;
    use monapi::table::arrow_array::types::Int32Type;
    let emu = emulator().await;
    let dir = Dir::new("names");
    let client = stored_client(&emu, &dir.0);
    let days = range(days_ago(&emu, 6), days_ago(&emu, 2));
    for pass in ["fetched and written", "read from the store"] {
        let table = client.tables().service_report(10011, days).await.unwrap();
        for (field, column) in table.schema().fields().iter().zip(table.columns()) {
            if let Some(dictionary) = column.as_dictionary_opt::<Int32Type>() {
                let names: Vec<_> = dictionary.values().as_string::<i32>().iter().collect();
                let distinct: std::collections::BTreeSet<_> = names.iter().collect();
                assert_eq!(
                    names.len(),
                    distinct.len(),
                    "{pass}: {} holds a name twice",
                    field.name()
                );
            }
        }
    }
}

#[tokio::test]
async fn a_sync_is_one_span_with_a_child_per_task_and_its_rows() {
    use monapi::telemetry::{AttributeValue, Recording};
    let emulator = emulator().await;
    let dir = Dir::new("sync-spans");
    let stored = stored_client(&emulator, &dir.0);
    let day = days_ago(&emulator, 2);
    let options = SyncOptions::new()
        .range(range(day, day))
        .tasks(vec![10024, 20001]);
    let recording = Recording::new(None);
    let report = recording.scope(stored.tables().sync(options)).await.unwrap();
    let spans = recording.take().spans;
    let sync = spans.iter().find(|s| s.name == "monapi sync").unwrap();
    assert_eq!((sync.parent, sync.error), (None, None));
    let attribute = |span: &monapi::telemetry::SpanRecord, key: &str| {
        span.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        attribute(sync, "monapi.rows"),
        Some(AttributeValue::from(report.rows))
    );
    let mut tasks: Vec<(String, Option<AttributeValue>)> = spans
        .iter()
        .filter(|s| s.parent == Some(sync.id) && s.name.ends_with("_report"))
        .map(|s| (s.name.clone(), attribute(s, "monapi.task_id")))
        .collect();
    tasks.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        tasks,
        [
            ("monapi service_report".to_string(), Some(10024u64.into())),
            ("monapi site_report".to_string(), Some(20001u64.into())),
        ]
    );
    // Each task's attempts are under it; the task lists' under the sync.
    for task in spans
        .iter()
        .filter(|s| s.parent == Some(sync.id) && s.name.ends_with("_report"))
    {
        assert!(spans.iter().any(|s| s.parent == Some(task.id) && s.name == "GET"));
    }
}
