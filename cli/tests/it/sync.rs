//! `monapi sync DIR` and `--store`: what a re-run sends, failures and exit codes, a sync
//! killed at random moments, two syncs of one store at once, and `monapi export --store`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use chrono::{Days, NaiveDate};
use monapi_emulator::{Config, Emulator, FaultKind, Faults};

use crate::export::monapi;

// The core's S3 server for its store tests (moto's, on loopback); this file uses part of it.
#[allow(dead_code)]
#[path = "../../../core/tests/it/common/moto.rs"]
mod moto;

/// Three service tasks (checks every 15, 15 and 5 minutes: little data, quick tests) and two sites.
const TASKS: [&str; 5] = ["10011", "10014", "10010", "20001", "20002"];

fn emulator(latency: Duration) -> Emulator {
    Emulator::spawn_thread(Config {
        latency,
        ..Config::default()
    })
    .unwrap()
}

/// `monapi sync DIR --task ... --from --to` with the demo account of `emulator`, over the
/// four settled days before yesterday.
fn sync(emulator: &Emulator, dir: &Path, extra: &[&str]) -> Command {
    let (from, to) = days(emulator);
    let mut command = monapi(emulator);
    command
        .arg("sync")
        .arg(dir)
        .args(["--from", &from.to_string(), "--to", &to.to_string(), "--task"])
        .args(TASKS)
        .args(extra);
    command
}

fn days(emulator: &Emulator) -> (NaiveDate, NaiveDate) {
    let today = emulator.today();
    (today - Days::new(5), today - Days::new(2))
}

fn run(command: &mut Command) -> Output {
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sync").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file of the store's datasets (not `.tmp/` or `.corrupt/`), by path, with its bytes.
/// A task-day's file is a pure function of its rows, so equal stores have equal files.
fn datasets(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for kind in [
        "service_report",
        "site_availability",
        "site_response_time",
        "site_faults",
    ] {
        let Ok(days) = std::fs::read_dir(dir.join(kind)) else {
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

fn reports_sent(emulator: &Emulator) -> u64 {
    let counters = emulator.counters();
    counters.service_report + counters.site_report
}

#[test]
fn a_sync_fetches_each_missing_task_day_once_and_says_so() {
    let emulator = emulator(Duration::ZERO);
    let dir = scratch("once");
    let output = run(&mut sync(&emulator, &dir, &[]));
    assert_exit(&output, 0);
    let summary = text(&output.stdout);
    // One line: 5 tasks x 4 days, a request per task.
    assert_eq!(summary.lines().count(), 1, "{summary}");
    assert!(
        summary.starts_with("monapi sync: 20 task-days fetched, 0 reused, "),
        "{summary}"
    );
    assert!(
        summary.contains(" 0 failed") && summary.contains("5 tasks"),
        "{summary}"
    );
    assert_eq!(reports_sent(&emulator), 5);
    let files = datasets(&dir);
    // 3 service tasks x 4 days, and 2 sites x 4 days x 3 kinds.
    assert_eq!(files.len(), 3 * 4 + 2 * 4 * 3, "{:?}", files.keys());
    let (from, _) = days(&emulator);
    assert!(files.contains_key(&format!("service_report/day={from}/task-10011.parquet")));

    // Nothing new: no report request, every task-day reused.
    let output = run(&mut sync(&emulator, &dir, &[]));
    assert_exit(&output, 0);
    assert!(
        text(&output.stdout).starts_with("monapi sync: 0 task-days fetched, 20 reused, 0 rows, 0 bytes"),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(reports_sent(&emulator), 5);
    assert_eq!(datasets(&dir), files);

    // A garbled page: the listing trusts the name; --verify reads every file and fetches
    // the garbled one's day again.
    let file = dir.join(format!("service_report/day={from}/task-10011.parquet"));
    let whole = std::fs::read(&file).unwrap();
    let mut garbled = whole.clone();
    let third = garbled.len() / 3;
    garbled[third..third + 32].fill(0xa5);
    std::fs::write(&file, &garbled).unwrap();
    let output = run(sync(&emulator, &dir, &[]).arg("--verify"));
    assert_exit(&output, 0);
    let summary = text(&output.stdout);
    assert!(
        summary.starts_with("monapi sync: 1 task-days fetched, 19 reused, ")
            && summary.contains(", 36 files verified, 1 corrupt files set aside"),
        "{summary}"
    );
    assert!(text(&output.stderr).contains("did not read; set aside and fetched again"));
    assert_eq!(std::fs::read(&file).unwrap(), whole);
    assert_eq!(reports_sent(&emulator), 6);

    // `monapi export --store` reads the store: no report request, the plain export's rows.
    let (from, to) = days(&emulator);
    let export = |store: Option<&Path>, file: &Path| {
        let mut args: Vec<String> = [
            "export",
            "service-reports",
            "--task",
            "10011",
            "10010",
            "--format",
            "csv",
        ]
        .map(String::from)
        .to_vec();
        args.extend(["--from".into(), from.to_string(), "--to".into(), to.to_string()]);
        args.extend(["-o".into(), file.display().to_string()]);
        if let Some(store) = store {
            args.extend(["--store".into(), store.display().to_string()]);
        }
        assert_exit(&run(monapi(&emulator).args(&args)), 0);
    };
    let before = reports_sent(&emulator);
    export(Some(&dir), &dir.join("stored.csv"));
    assert_eq!(reports_sent(&emulator), before, "every day read from the store");
    export(None, &dir.join("plain.csv"));
    let lines = |name: &str| {
        let mut lines: Vec<String> = std::fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(lines("stored.csv"), lines("plain.csv"));
}

#[test]
fn failed_task_days_are_listed_exit_3_and_are_fetched_by_the_next_sync() {
    // Slow answers, so that the fault is set while the reports are asked for.
    let emulator = emulator(Duration::from_millis(150));
    let dir = scratch("failures");
    let child = sync(&emulator, &dir, &["--max-retries", "0", "--concurrency", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first report is asked for, the next request (a report) fails.
    let deadline = Instant::now() + Duration::from_secs(30);
    while reports_sent(&emulator) == 0 {
        assert!(Instant::now() < deadline, "the sync never asked for a report");
        std::thread::sleep(Duration::from_millis(2));
    }
    let next = vec![FaultKind::Error503];
    emulator
        .set_faults(Faults {
            next,
            ..Faults::default()
        })
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let failed = one_failure_of_four_task_days(&output, "503");
    assert_eq!(
        datasets(&dir).len(),
        3 * 4 + 2 * 4 * 3 - if failed.contains("site") { 12 } else { 4 }
    );

    let output = run(&mut sync(&emulator, &dir, &[]));
    assert_exit(&output, 0);
    assert!(
        text(&output.stdout).contains("4 task-days fetched, 16 reused"),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(datasets(&dir).len(), 3 * 4 + 2 * 4 * 3);
}

#[test]
fn the_progress_bar_shows_on_a_terminal_only() {
    let emulator = emulator(Duration::from_millis(60));
    let dir = scratch("terminal");
    let mut command = sync(&emulator, &dir, &["--concurrency", "1"]);
    command.stdout(Stdio::null());
    let shown = crate::export::terminal_stderr(command);
    assert!(
        shown.contains("/20 task-days") && shown.contains("fetched") && shown.contains('\u{1b}'),
        "{shown:?}"
    );
    // Piped: the summary on stdout, nothing on stderr.
    let output = run(&mut sync(&emulator, &dir, &[]));
    assert_exit(&output, 0);
    assert_eq!(text(&output.stderr), "");
    assert_eq!(text(&output.stdout).lines().count(), 1);
}

#[test]
fn usage_errors_exit_2_before_any_request() {
    let emulator = emulator(Duration::ZERO);
    let dir = scratch("usage");
    for (args, field) in [
        (&["--kinds", "sites"][..], "kinds"),
        (&["--concurrency", "0"][..], "concurrency"),
        (&["--task", "424242"][..], "tasks"),
    ] {
        let output = run(sync(&emulator, &dir, &[]).args(args));
        assert_exit(&output, 2);
        assert!(text(&output.stderr).contains(field), "{}", text(&output.stderr));
    }
    assert_eq!(reports_sent(&emulator), 0);
    assert!(datasets(&dir).is_empty());
}

/// Five moments to kill a sync at, fractions of `took` (ms) drawn from a fixed seed
/// (`default`, or MONAPI_TEST_SEED), printed so that a failure can be run again; and the seed.
fn kill_moments(default: u64, took: u64) -> (u64, Vec<Duration>) {
    let first: u64 =
        std::env::var("MONAPI_TEST_SEED").map_or(default, |s| s.parse().expect("MONAPI_TEST_SEED"));
    eprintln!("kill moments from seed {first} (run it again with MONAPI_TEST_SEED={first})");
    let mut seed = first;
    let moments = (0..5)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Duration::from_millis((seed >> 33) % took.max(1))
        })
        .collect();
    (first, moments)
}

/// Starts `command`, output discarded, and kills it (SIGKILL) `after` it started.
fn kill_after(command: &mut Command, after: Duration) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A sync killed (SIGKILL) at random moments, five times, then run to completion, leaves
/// exactly the files of a sync never interrupted; nothing half-written is ever visible.
#[test]
fn a_sync_killed_at_random_moments_then_completed_equals_a_clean_sync() {
    let emulator = emulator(Duration::from_millis(40));
    let clean = scratch("clean");
    let started = Instant::now();
    assert_exit(&run(&mut sync(&emulator, &clean, &["--concurrency", "2"])), 0);
    let took = started.elapsed().as_millis() as u64;
    let want = datasets(&clean);

    let dir = scratch("killed");
    let (first, moments) = kill_moments(20261126, took);
    for after in moments {
        kill_after(&mut sync(&emulator, &dir, &["--concurrency", "2"]), after);
        // Whatever is in place is whole: each file is one of the clean sync's.
        for (path, bytes) in datasets(&dir) {
            assert_eq!(
                Some(&bytes),
                want.get(&path),
                "{path} after a kill at {after:?} (seed {first})"
            );
        }
    }
    assert_exit(&run(&mut sync(&emulator, &dir, &[])), 0);
    assert_eq!(datasets(&dir), want);
}

/// The same in a bucket: a sync to `s3://` killed at moments from a fixed, printed seed
/// leaves only whole objects (each one of a clean sync's), and one more sync equals the clean
/// one. Credentials and endpoint come from the AWS variables, as the AWS tools read them.
#[test]
fn a_sync_to_s3_killed_at_random_moments_then_completed_equals_a_clean_sync() {
    let emulator = emulator(Duration::from_millis(40));
    let server = moto::S3Server::start(&["lake"]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let objects = |prefix: &str| -> BTreeMap<String, Vec<u8>> {
        runtime.block_on(async {
            let mut found = BTreeMap::new();
            for key in server.keys("lake", &format!("{prefix}/")).await {
                let bytes = server.get("lake", &key).await.to_vec();
                found.insert(key[prefix.len() + 1..].to_string(), bytes);
            }
            found
        })
    };
    let s3_sync = |bucket_and_prefix: &str| {
        let store = format!("s3://{bucket_and_prefix}");
        let mut command = sync(&emulator, Path::new(&store), &["--concurrency", "2"]);
        command
            .env("AWS_ENDPOINT_URL", server.endpoint())
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", moto::SECRET_KEY)
            .env("AWS_REGION", "us-east-1");
        command
    };
    let started = Instant::now();
    let clean = run(&mut s3_sync("lake/clean"));
    assert_exit(&clean, 0);
    assert!(!text(&clean.stderr).contains(moto::SECRET_KEY));
    let took = started.elapsed().as_millis() as u64;
    let want = objects("clean");
    assert_eq!(want.len(), 1 + 3 * 4 + 2 * 4 * 3, "{:?}", want.keys());

    let (first, moments) = kill_moments(20261127, took);
    for after in moments {
        kill_after(&mut s3_sync("lake/killed"), after);
        for (key, bytes) in objects("killed") {
            assert_eq!(
                Some(&bytes),
                want.get(&key),
                "{key} after a kill at {after:?} (seed {first})"
            );
        }
    }
    assert_exit(&run(&mut s3_sync("lake/killed")), 0);
    assert_eq!(objects("killed"), want);

    // A bucket that does not exist: one clear error, exit 1, and the listings still under way
    // end with the runtime (no panic of theirs on the way out).
    let output = run(&mut s3_sync("nowhere/killed"));
    assert_exit(&output, 1);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("s3://nowhere/killed/") && stderr.contains("NoSuchBucket"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Two processes syncing one store at once end with the store one sync makes.
#[test]
fn two_syncs_of_one_store_at_once_equal_one() {
    let emulator = emulator(Duration::from_millis(20));
    let one = scratch("one");
    assert_exit(&run(&mut sync(&emulator, &one, &[])), 0);
    let dir = scratch("two");
    let children: Vec<_> = (0..2)
        .map(|_| {
            sync(&emulator, &dir, &["--concurrency", "2"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        assert_exit(&child.wait_with_output().unwrap(), 0);
    }
    assert_eq!(datasets(&dir), datasets(&one));
}

/// A task whose store fails (its file is a symbolic link to itself: it cannot be opened,
/// which is not a file to set aside): the other tasks are synced, the failure is on stderr,
/// and the sync exits 3 (partial), not 1 (nothing synced).
#[cfg(unix)]
#[test]
fn a_task_whose_store_fails_is_a_partial_sync_exit_3() {
    let emulator = emulator(Duration::ZERO);
    let dir = scratch("task-fails");
    let (from, _) = days(&emulator);
    let day_dir = dir.join("service_report").join(format!("day={from}"));
    std::fs::create_dir_all(&day_dir).unwrap();
    std::os::unix::fs::symlink("task-10014.parquet", day_dir.join("task-10014.parquet")).unwrap();
    let output = run(&mut sync(&emulator, &dir, &[]));
    one_failure_of_four_task_days(&output, "service_report of task 10014");
    // Every other task's days are in place; once the link is gone, the next sync fetches
    // the failed task's days.
    std::fs::remove_file(day_dir.join("task-10014.parquet")).unwrap();
    assert_eq!(datasets(&dir).len(), 3 * 4 + 2 * 4 * 3 - 4);
    let output = run(&mut sync(&emulator, &dir, &[]));
    assert_exit(&output, 0);
    assert!(
        text(&output.stdout).contains("4 task-days fetched, 16 reused"),
        "{}",
        text(&output.stdout)
    );
}

/// A partial sync's output: exit 3, one failure on stderr, holding `needle` (returned), and a
/// summary of 16 task-days fetched and 4 failed.
fn one_failure_of_four_task_days(output: &Output, needle: &str) -> String {
    assert_exit(output, 3);
    let stderr = text(&output.stderr);
    let failed: Vec<&str> = stderr.lines().filter(|line| line.contains(" failed: ")).collect();
    assert_eq!(failed.len(), 1, "{stderr}");
    assert!(failed[0].contains(needle), "{stderr}");
    let summary = text(&output.stdout);
    assert!(
        summary.contains("16 task-days fetched") && summary.contains(" 4 failed"),
        "{summary}"
    );
    failed[0].to_string()
}

/// A store of format 1 (written by monapi 0.1: 3 tasks, 2 days) is refused by a sync with the
/// command that migrates it; `--migrate` rewrites it and fetches nothing; the sync then finds
/// every task-day whole.
#[test]
fn a_store_of_format_1_is_refused_then_migrated_by_sync_migrate() {
    let emulator = emulator(Duration::ZERO);
    let dir = scratch("migrate");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/store-format-1");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(format!("{}/.", fixture.display()))
        .arg(&dir)
        .status();
    assert!(copied.unwrap().success());
    let old = datasets(&dir);
    let fixture_sync = |extra: &[&str]| {
        let mut command = monapi(&emulator);
        command
            .arg("sync")
            .arg(&dir)
            .args([
                "--from",
                "2026-11-24",
                "--to",
                "2026-11-25",
                "--task",
                "10011",
                "20003",
                "20004",
            ])
            .args(extra);
        run(&mut command)
    };

    let refused = fixture_sync(&[]);
    assert_exit(&refused, 1);
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains(&format!("monapi sync --migrate {}", dir.display())),
        "{stderr}"
    );
    assert_eq!(datasets(&dir), old, "nothing written");

    let both = fixture_sync(&["--migrate"]);
    assert_exit(&both, 2);
    assert!(text(&both.stderr).contains("--migrate"), "{}", text(&both.stderr));

    let migrated = run(monapi(&emulator).arg("sync").arg(&dir).arg("--migrate"));
    assert_exit(&migrated, 0);
    assert_eq!(
        text(&migrated.stdout),
        format!(
            "monapi sync --migrate: {} from format 1 to 2: 14 files rewritten, 0 already in format 2\n",
            dir.display()
        )
    );
    let new = datasets(&dir);
    assert_eq!(new.keys().collect::<Vec<_>>(), old.keys().collect::<Vec<_>>());
    assert!(
        new.iter().all(|(key, bytes)| old[key] != *bytes),
        "every file rewritten"
    );

    let warm = fixture_sync(&[]);
    assert_exit(&warm, 0);
    assert!(
        text(&warm.stdout).contains("0 task-days fetched, 6 reused"),
        "{}",
        text(&warm.stdout)
    );
    assert_eq!(reports_sent(&emulator), 0);
    assert_eq!(datasets(&dir), new);
}
