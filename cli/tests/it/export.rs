//! `monapi export`: every format read back equals the core's table, the Hive layout of
//! `--split task`, failed tasks and exit codes, the progress bar only on a terminal.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use monapi::table::arrow_array::RecordBatch;
use monapi::table::arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use monapi::table::{self, BulkOptions, SiteTables};
use monapi::{Client, DateRange, Monitor};
use monapi_emulator::{Config, Emulator};
use serde_json::Value;

use crate::rows;

const BIN: &str = env!("CARGO_BIN_EXE_monapi");
const FROM: &str = "2026-11-30";
const TO: &str = "2026-12-01";

/// The emulator's clock after `TO`: it sends no data from the future.
fn emulator() -> Emulator {
    let after = monapi_emulator::instant("now", "2026-12-02 00:00", monapi::SERVICE_TIMEZONE);
    Emulator::spawn_thread(Config {
        now: Some(after.unwrap()),
        ..Config::default()
    })
    .unwrap()
}

/// The binary with the demo account of `emulator` in its environment.
pub(crate) fn monapi(emulator: &Emulator) -> Command {
    let mut command = Command::new(BIN);
    command
        .env("MONAPI_BASE_URL", emulator.base_url())
        .env("MONAPI_CLIENT_ID", "demo_id")
        .env("MONAPI_CLIENT_SECRET", "demo_secret")
        .env("MONAPI_USERNAME", "test@example.com")
        .env("MONAPI_PASSWORD", "123456");
    command
}

fn run(emulator: &Emulator, args: &[&str]) -> Output {
    monapi(emulator).args(args).output().unwrap()
}

/// `monapi export <words...> -o <output>`: the words split on spaces, `{FROM}`/`{TO}` written
/// in by the caller.
fn export(emulator: &Emulator, words: &str, output: &str) -> Output {
    let mut args: Vec<&str> = vec!["export"];
    args.extend(words.split_whitespace());
    args.extend(["-o", output]);
    run(emulator, &args)
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn assert_exit(output: &Output, code: i32) {
    assert_eq!(output.status.code(), Some(code), "stderr: {}", stderr(output));
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs a future of the core on a runtime of its own.
fn core<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// A client of the demo account of `emulator`.
pub(crate) fn client(emulator: &Emulator) -> Client {
    Client::builder()
        .base_url(emulator.base_url())
        .client_id("demo_id")
        .client_secret("demo_secret")
        .username("test@example.com")
        .password("123456")
        .build()
        .unwrap()
}

fn range() -> DateRange {
    DateRange::parse(Some(FROM), Some(TO)).unwrap()
}

fn all_rows(batches: &[RecordBatch]) -> Vec<Value> {
    batches.iter().flat_map(rows::rows).collect()
}

/// The core's service report tables of `ids`, in task order.
fn service_reports(emulator: &Emulator, ids: &[u64]) -> Vec<RecordBatch> {
    let bulk = core(
        client(emulator)
            .tables()
            .service_reports(ids, range(), BulkOptions::new()),
    )
    .unwrap();
    assert!(bulk.failures.is_empty());
    bulk.tables.into_iter().map(|(_, table)| table).collect()
}

/// `schema` as a Parquet file holds it: timestamps in milliseconds.
fn in_milliseconds(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|field| match field.data_type() {
            DataType::Timestamp(TimeUnit::Second, zone) => field
                .as_ref()
                .clone()
                .with_data_type(DataType::Timestamp(TimeUnit::Millisecond, zone.clone())),
            _ => field.as_ref().clone(),
        })
        .collect();
    std::sync::Arc::new(Schema::new(fields))
}

fn read_parquet(path: &Path) -> (SchemaRef, Vec<RecordBatch>) {
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
            .unwrap()
            .build()
            .unwrap();
    let schema = monapi::table::arrow_array::RecordBatchReader::schema(&reader);
    (schema, reader.map(Result::unwrap).collect())
}

fn read_arrow(path: &Path) -> (SchemaRef, Vec<RecordBatch>) {
    let reader = arrow_ipc::reader::FileReader::try_new(File::open(path).unwrap(), None).unwrap();
    let schema = reader.schema();
    (schema, reader.map(Result::unwrap).collect())
}

fn read_csv(path: &Path, schema: SchemaRef) -> Vec<RecordBatch> {
    arrow_csv::ReaderBuilder::new(schema)
        .with_header(true)
        .build(File::open(path).unwrap())
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn read_ndjson(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn every_format_reads_back_as_the_cores_table() {
    let emulator = emulator();
    let dir = scratch("formats");
    let ids = [10009, 10010, 10011];
    let expected_batches = service_reports(&emulator, &ids);
    let expected = all_rows(&expected_batches);
    let schema = table::service_report_schema(monapi::SERVICE_TIMEZONE);
    assert!(expected.len() > 1000);
    let write = |format: &str, file: &Path| {
        let words = format!(
            "service-reports --task 10009 10010 --task 10011 --from {FROM} --to {TO} --format {format}"
        );
        let output = export(&emulator, &words, file.to_str().unwrap());
        assert_exit(&output, 0);
        let summary = format!("{} rows of 3 task(s)", expected.len());
        assert!(stderr(&output).contains(&summary), "{}", stderr(&output));
    };

    let parquet = dir.join("reports.parquet");
    write("parquet", &parquet);
    let (read_schema, batches) = read_parquet(&parquet);
    assert_eq!(
        read_schema,
        in_milliseconds(&schema),
        "types, nullability and time zone travel in the file"
    );
    assert_eq!(all_rows(&batches), expected);

    let arrow = dir.join("reports.arrow");
    write("arrow", &arrow);
    let (read_schema, batches) = read_arrow(&arrow);
    assert_eq!(read_schema, schema);
    assert_eq!(all_rows(&batches), expected);

    let csv = dir.join("reports.csv");
    write("csv", &csv);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("task_id,series,time,metric,value"));
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(first[2], "2026-11-30T00:00:00+08:00", "RFC 3339 with the offset");
    assert_eq!(all_rows(&read_csv(&csv, schema.clone())), expected);

    let ndjson = dir.join("reports.ndjson");
    write("ndjson", &ndjson);
    assert_eq!(read_ndjson(&std::fs::read_to_string(&ndjson).unwrap()), expected);

    // Standard output: the same bytes as the file.
    for (format, file) in [("csv", &csv), ("ndjson", &ndjson)] {
        let output = export(
            &emulator,
            &format!("service-reports --task 10009 10010 10011 --from {FROM} --to {TO} --format {format}"),
            "-",
        );
        assert_exit(&output, 0);
        assert_eq!(output.stdout, std::fs::read(file).unwrap(), "{format}");
    }
}

#[test]
fn site_tables_the_distribution_and_the_task_list() {
    let emulator = emulator();
    let dir = scratch("other-tables");
    let client = client(&emulator);
    let sites: Vec<SiteTables> = core(async {
        let mut all = Vec::new();
        for task in [20001, 20003] {
            all.push(
                client
                    .tables()
                    .site_report(task, range(), Monitor::All)
                    .await
                    .unwrap(),
            );
        }
        all
    });
    for (name, pick) in [
        (
            "availability",
            (|t: &SiteTables| t.availability.clone()) as fn(&SiteTables) -> RecordBatch,
        ),
        ("response-time", |t| t.response_time.clone()),
        ("faults", |t| t.faults.clone()),
    ] {
        let file = dir.join(format!("{name}.parquet"));
        let output = export(
            &emulator,
            &format!(
                "site-reports --table {name} --task 20001 20003 --from {FROM} --to {TO} --format parquet"
            ),
            file.to_str().unwrap(),
        );
        assert_exit(&output, 0);
        let expected: Vec<RecordBatch> = sites.iter().map(pick).collect();
        let (schema, batches) = read_parquet(&file);
        assert_eq!(schema, in_milliseconds(&expected[0].schema()), "{name}");
        assert_eq!(all_rows(&batches), all_rows(&expected), "{name}");
    }

    let distribution = core(client.tables().response_time_distribution(20002, range())).unwrap();
    let file = dir.join("distribution.csv");
    let output = export(
        &emulator,
        &format!("distribution --task 20002 --from {FROM} --to {TO} --format csv"),
        file.to_str().unwrap(),
    );
    assert_exit(&output, 0);
    assert_eq!(
        all_rows(&read_csv(&file, table::distribution_schema())),
        rows::rows(&distribution)
    );

    let tasks = core(client.tables().service_tasks()).unwrap();
    let output = export(&emulator, "service-tasks --format ndjson", "-");
    assert_exit(&output, 0);
    assert_eq!(
        read_ndjson(&String::from_utf8(output.stdout).unwrap()),
        rows::rows(&tasks)
    );

    let sites = core(client.tables().site_tasks()).unwrap();
    let output = export(&emulator, "site-tasks --format ndjson", "-");
    assert_exit(&output, 0);
    assert_eq!(
        read_ndjson(&String::from_utf8(output.stdout).unwrap()),
        rows::rows(&sites)
    );
}

#[test]
fn site_reports_without_tasks_export_every_site() {
    let emulator = emulator();
    let client = client(&emulator);
    let every: Vec<u64> = (20001..=20005).collect();
    let expected = core(
        client
            .tables()
            .site_reports(every, range(), Monitor::Average, Default::default()),
    )
    .unwrap();
    assert!(expected.failures.is_empty());
    let output = export(
        &emulator,
        &format!("site-reports --table faults --monitor average --from {FROM} --to {TO} --format ndjson"),
        "-",
    );
    assert_exit(&output, 0);
    let faults: Vec<RecordBatch> = expected.tables.iter().map(|(_, t)| t.faults.clone()).collect();
    assert_eq!(
        read_ndjson(&String::from_utf8(output.stdout).unwrap()),
        all_rows(&faults)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("of 5 task(s)"));
}

#[test]
fn split_by_task_writes_a_hive_layout() {
    let emulator = emulator();
    let ids = [10009, 10012];
    let expected = service_reports(&emulator, &ids);
    for format in ["parquet", "csv"] {
        let dir = scratch(&format!("split-{format}")).join("dataset");
        let output = export(
            &emulator,
            &format!(
                "service-reports --task 10009 10012 --from {FROM} --to {TO} --format {format} --split task"
            ),
            dir.to_str().unwrap(),
        );
        assert_exit(&output, 0);
        let mut entries: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        entries.sort();
        assert_eq!(entries, ["task_id=10009", "task_id=10012"]);
        for (task_id, table) in ids.iter().zip(&expected) {
            let partition = dir.join(format!("task_id={task_id}"));
            let files: Vec<_> = std::fs::read_dir(&partition)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            assert_eq!(files, [format!("part-0.{format}")]);
            // The directory names carry task_id; the files hold the other columns.
            let without_task_id = table
                .project(&(1..table.num_columns()).collect::<Vec<_>>())
                .unwrap();
            let schema: SchemaRef =
                std::sync::Arc::new(Schema::new(without_task_id.schema().fields().clone()));
            let file = partition.join(format!("part-0.{format}"));
            let read = match format {
                "parquet" => {
                    let (read_schema, batches) = read_parquet(&file);
                    assert_eq!(read_schema, in_milliseconds(&schema));
                    batches
                }
                _ => read_csv(&file, schema),
            };
            assert_eq!(
                all_rows(&read),
                rows::rows(&without_task_id),
                "{format} {task_id}"
            );
        }
    }
    let output = export(&emulator, "service-tasks --format csv --split task", "-");
    assert_exit(&output, 2);
}

#[test]
fn failed_tasks_are_listed_and_the_others_written() {
    let emulator = emulator();
    let dir = scratch("failures");
    let file = dir.join("reports.parquet");
    let output = export(
        &emulator,
        &format!("service-reports --task 10009 424242 10010 --from {FROM} --to {TO} --format parquet"),
        file.to_str().unwrap(),
    );
    assert_exit(&output, 3);
    let text = stderr(&output);
    let failed: Vec<&str> = text.lines().filter(|line| line.contains("failed:")).collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert!(
        failed[0].starts_with("monapi: task 424242 failed: ") && failed[0].contains("404"),
        "{text}"
    );
    assert!(
        text.contains("of 2 task(s) written") && text.contains("1 task(s) failed"),
        "{text}"
    );
    let expected = service_reports(&emulator, &[10009, 10010]);
    assert_eq!(all_rows(&read_parquet(&file).1), all_rows(&expected));

    // Every task failed: nothing but the schema was written.
    let output = export(&emulator, "distribution --task 999 --format csv", "-");
    assert_exit(&output, 1);
    assert!(stderr(&output).contains("task 999 failed"), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "task_id,start_ms,end_ms,count,percent\n"
    );
}

#[test]
fn usage_errors_exit_2_before_any_request() {
    let emulator = emulator();
    let dir = scratch("usage");
    let file = dir.join("x.parquet");
    let file = file.to_str().unwrap();
    for (args, needle) in [
        (vec!["--format", "parquet", "-o", "-"], "standard output"),
        (vec!["--format", "xlsx", "-o", file], "xlsx"),
        (
            vec!["--format", "csv", "-o", file, "--from", "2026-02-30"],
            "`--from` must be a real date",
        ),
        (
            vec!["--format", "csv", "-o", file, "--concurrency", "0"],
            "concurrency",
        ),
        (
            vec!["--format", "csv", "-o", file, "--timezone", "Mars/Olympus"],
            "timezone",
        ),
        (vec!["--format", "csv", "-o", file, "--task", "ten"], "ten"),
    ] {
        let mut full = vec!["export", "service-reports"];
        full.extend(args);
        let output = run(&emulator, &full);
        assert_exit(&output, 2);
        assert!(stderr(&output).contains(needle), "{full:?}: {}", stderr(&output));
    }
    assert_eq!(emulator.counters().total, 0);
    assert!(!Path::new(file).exists());

    // The service cannot be reached: exit 1, nothing written.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let output = monapi(&emulator)
        .env("MONAPI_BASE_URL", &closed)
        .args(["export", "service-tasks", "--format", "parquet", "-o", file])
        .output()
        .unwrap();
    assert_exit(&output, 1);
    assert!(!Path::new(file).exists());
}

#[test]
fn help_documents_the_exit_codes() {
    for args in [
        vec!["export", "--help"],
        vec!["export", "service-reports", "--help"],
    ] {
        let output = Command::new(BIN).args(&args).output().unwrap();
        assert_exit(&output, 0);
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.contains("Exit codes") && text.contains("3  some tasks failed"),
            "{text}"
        );
    }
    let text = String::from_utf8(
        Command::new(BIN)
            .args(["export", "--help"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    for command in [
        "service-reports",
        "site-reports",
        "service-tasks",
        "site-tasks",
        "distribution",
    ] {
        assert!(text.contains(command), "{text}");
    }
}

/// Runs an export of ten tasks (with some latency, so that it lasts long enough to be drawn)
/// with stderr on a pseudo-terminal, and returns what reached the terminal.
fn on_a_terminal(emulator: &Emulator, extra: &[&str]) -> String {
    let dir = scratch(&format!("terminal{}", extra.len()));
    let file = dir.join("reports.csv");
    let mut args = vec![
        "export",
        "service-reports",
        "--task",
        "10009",
        "10010",
        "10011",
        "10012",
        "10013",
        "10014",
        "10015",
        "10016",
        "10017",
        "10018",
        "--from",
        FROM,
        "--to",
        FROM,
        "--concurrency",
        "1",
        "--format",
        "csv",
        "-o",
        file.to_str().unwrap(),
    ];
    args.extend(extra);
    let mut command = monapi(emulator);
    command.args(&args);
    terminal_stderr(command)
}

/// Runs `command` (which must succeed) with stderr on a pseudo-terminal, and returns what
/// reached the terminal.
pub(crate) fn terminal_stderr(mut command: Command) -> String {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two file descriptors, which are then owned here.
    let status = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(status, 0);
    // SAFETY: both descriptors were just opened and are not used elsewhere.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = command.stderr(Stdio::from(slave)).spawn().unwrap();
    // The command holds the terminal's other end until dropped: the reader would never end.
    drop(command);
    let reader = std::thread::spawn(move || {
        let mut terminal = File::from(master);
        let mut seen = Vec::new();
        let mut buffer = [0; 4096];
        // Reading ends with an error once the last writer (the child) has closed the terminal.
        while let Ok(n) = terminal.read(&mut buffer) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..n]);
        }
        seen
    });
    assert!(child.wait().unwrap().success());
    String::from_utf8_lossy(&reader.join().unwrap()).into_owned()
}

#[test]
fn the_progress_bar_shows_on_a_terminal_only() {
    let emulator = emulator();
    emulator.set_latency(Duration::from_millis(60));
    let shown = on_a_terminal(&emulator, &[]);
    assert!(
        shown.contains("/10 tasks") && shown.contains("rows") && shown.contains('\u{1b}'),
        "{shown:?}"
    );
    let quiet = on_a_terminal(&emulator, &["--quiet"]);
    assert!(!quiet.contains("tasks") && !quiet.contains('\u{1b}'), "{quiet:?}");

    // Not a terminal: a plain summary line and nothing else.
    let dir = scratch("piped");
    let file = dir.join("reports.csv");
    let output = export(
        &emulator,
        &format!("service-reports --task 10009 10010 --from {FROM} --to {FROM} --format csv"),
        file.to_str().unwrap(),
    );
    assert_exit(&output, 0);
    let text = stderr(&output);
    assert!(
        !text.contains('\r') && !text.contains('\u{1b}') && !text.contains("ETA"),
        "{text:?}"
    );
    assert_eq!(BufReader::new(text.as_bytes()).lines().count(), 1, "{text:?}");
}
