//! The log lines: with `--log-format json` (or `MONAPI_LOG_FORMAT=json`) every line of stderr
//! is one JSON object with its level and message, at the level `--log-level` (or `MONAPI_LOG`)
//! asks, from a one-shot command and from the exporter; no secret in any of them; a bad value
//! is a usage error (exit code 2, nothing sent) naming the flag, the values it takes and, when
//! it came from one, the variable.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use monapi_emulator::{Config, Emulator};
use serde_json::{Map, Value};

use crate::export::monapi;

/// Variables of a run.
type Vars = &'static [(&'static str, &'static str)];

/// The demo account's secrets, as sent (the client secret, the password's MD5) and as given.
const SECRETS: [&str; 3] = ["demo_secret", "e10adc3949ba59abbe56e057f20f883e", "123456"];

/// A long-running `monapi` (the exporter, the emulator), its stderr read as it comes; killed
/// when dropped.
pub(crate) struct Running {
    child: Child,
    lines: Receiver<String>,
    /// The lines read so far.
    pub(crate) seen: Vec<String>,
}

impl Running {
    pub(crate) fn spawn(command: &mut Command) -> Running {
        let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// The first line with `needle`, once it is written (the process must write it within
    /// two minutes: a first refresh of the default world takes seconds).
    pub(crate) fn wait_for(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        if let Some(line) = self.seen.iter().find(|line| line.contains(needle)) {
            return line.clone();
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {needle:?} in {:#?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().unwrap();
                    panic!("exited ({status}) before {needle:?}: {:#?}", self.seen)
                }
            }
        }
    }

    /// SIGTERM, then every line the process wrote until it exited, and how it exited.
    pub(crate) fn stop(mut self) -> (ExitStatus, Vec<String>) {
        let status = terminate(&mut self.child);
        // The pipe ends with the process: the reader then ends too.
        let rest: Vec<String> = self.lines.iter().collect();
        self.seen.extend(rest);
        (status, std::mem::take(&mut self.seen))
    }
}

/// Sends SIGTERM to a long-running `monapi` and waits for it to end: bounded, as it must stop
/// by itself (the graceful stop of `serve` and `exporter`).
pub(crate) fn terminate(child: &mut Child) -> ExitStatus {
    // SAFETY: kill(2) with a pid of our own child, not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "{:?} ignored SIGTERM", child.id());
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Each line as a JSON object with a level and a message, and no secret in any of its text
/// values (the time aside: its digits are no secret; a secret is never a number).
fn json_lines(lines: &[String]) -> Vec<Map<String, Value>> {
    assert!(!lines.is_empty(), "no log line");
    lines
        .iter()
        .map(|line| {
            let Ok(Value::Object(object)) = serde_json::from_str(line) else {
                panic!("not a JSON object: {line}");
            };
            assert!(
                matches!(object.get("level"), Some(Value::String(level)) if !level.is_empty()),
                "{line}"
            );
            assert!(
                matches!(object.get("message"), Some(Value::String(message)) if !message.is_empty()),
                "{line}"
            );
            for (key, value) in object.iter().filter(|(key, _)| *key != "timestamp") {
                let Value::String(value) = value else { continue };
                for secret in SECRETS {
                    assert!(!value.contains(secret), "{key}: {line}");
                }
            }
            object
        })
        .collect()
}

fn stderr_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8(stderr.to_vec())
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// Whether some line is a `level` event whose message starts with `message`.
fn has(lines: &[Map<String, Value>], level: &str, message: &str) -> bool {
    lines.iter().any(|line| {
        line["level"] == level && line["message"].as_str().is_some_and(|m| m.starts_with(message))
    })
}

#[test]
fn json_lines_at_debug_from_the_flags_before_or_after_the_command_or_from_the_variables() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let flags = ["--log-format", "json", "--log-level", "debug"];
    let runs: [(Vec<&str>, Vars); 3] = [
        ([&flags[..], &["sites"]].concat(), &[]),
        ([&["sites"], &flags[..]].concat(), &[]),
        (
            vec!["sites"],
            &[("MONAPI_LOG_FORMAT", "json"), ("MONAPI_LOG", "debug")],
        ),
    ];
    for (args, vars) in runs {
        let output = monapi(&emulator)
            .args(&args)
            .envs(vars.iter().copied())
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?} {vars:?}: {output:?}");
        // The answer is on stdout alone.
        let sites: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(sites.as_array().unwrap().len(), 5);
        let lines = json_lines(&stderr_lines(&output.stderr));
        // The core's events, their fields beside the message.
        assert!(has(&lines, "DEBUG", "requesting a token"), "{lines:#?}");
        let response = lines
            .iter()
            .find(|line| line["message"] == "response")
            .unwrap_or_else(|| panic!("{lines:#?}"));
        assert_eq!(response["status"], 200, "{response:?}");
        assert!(response["endpoint"].is_string(), "{response:?}");
        assert!(response["target"].as_str().unwrap().starts_with("monapi"));
        assert!(response["timestamp"].as_str().unwrap().ends_with('Z'));
    }
}

#[test]
fn the_exporter_writes_every_line_as_json_from_its_start_to_its_shutdown() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    for (flags, vars) in [
        (vec!["--log-format", "json", "--log-level", "debug"], vec![]),
        (
            vec![],
            vec![("MONAPI_LOG_FORMAT", "json"), ("MONAPI_LOG", "debug")],
        ),
    ] {
        let mut exporter = Running::spawn(
            monapi(&emulator)
                .args(["exporter", "--listen", "127.0.0.1:0", "--site", "20001"])
                .args(&flags)
                .envs(vars),
        );
        exporter.wait_for("refreshed: ");
        let (status, lines) = exporter.stop();
        assert!(status.success(), "{status}: {lines:#?}");
        let lines = json_lines(&lines);
        assert!(has(
            &lines,
            "INFO",
            "monapi exporter listening on http://127.0.0.1:"
        ));
        assert!(has(&lines, "DEBUG", "response"), "{lines:#?}");
        assert!(has(&lines, "INFO", "refreshed: 1 sites"), "{lines:#?}");
        assert!(has(&lines, "INFO", "SIGTERM: shutting down"), "{lines:#?}");
        assert!(has(&lines, "INFO", "monapi exporter stopped"), "{lines:#?}");
    }
}

#[test]
fn a_bad_level_or_format_is_a_usage_error_naming_the_flag_its_values_and_the_variable() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let levels = "off, error, warn, info, debug";
    let cases: [(&[&str], Vars, &[&str]); 5] = [
        (&["--log-format", "xml"], &[], &["--log-format", "text, json"]),
        (
            &[],
            &[("MONAPI_LOG_FORMAT", "xml")],
            &["--log-format", "text, json", "MONAPI_LOG_FORMAT"],
        ),
        (&["--log-level", "verbose"], &[], &["--log-level", levels]),
        (
            &[],
            &[("MONAPI_LOG", "verbose")],
            &["--log-level", levels, "MONAPI_LOG"],
        ),
        // In the exporter too, whose default level is its own.
        (
            &["exporter", "--listen", "127.0.0.1:0"],
            &[("MONAPI_LOG", "verbose")],
            &["--log-level", levels, "MONAPI_LOG"],
        ),
    ];
    for (args, vars, needles) in cases {
        let mut command = monapi(&emulator);
        command.args(args).envs(vars.iter().copied());
        if !args.contains(&"exporter") {
            command.arg("sites");
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?} {vars:?}: {output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        for needle in needles {
            assert!(stderr.contains(needle), "{needle}: {stderr}");
        }
        // The variable is named only when the value was its.
        if vars.is_empty() {
            assert!(!stderr.contains("variable"), "{stderr}");
        }
    }
    assert_eq!(emulator.counters().token, 0, "a usage error sends nothing");
}

#[test]
fn blank_variables_count_as_unset_and_the_default_level_shows_no_line() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let output = monapi(&emulator)
        .arg("sites")
        .envs([("MONAPI_LOG", ""), ("MONAPI_LOG_FORMAT", " ")])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    // warn, the core's default: a call that goes well writes nothing on stderr.
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
}
