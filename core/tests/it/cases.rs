//! The shared case table (`tests/fixtures/cases.json`), run whole against the emulator: each
//! case is accepted, or refused with every problem named and nothing sent. The Python and Node
//! suites run the same table.

use std::time::Duration;

use crate::common::*;
use monapi::input::{self, Id};
use monapi::{
    Client, ClientBuilder, DateRange, Error, Language, Method, NewServiceTask, Options, Request, ServerTask,
};
use monapi_emulator::{Config, ConfigError, Emulator, Faults, TimeUnit};
use serde_json::{Map, Value};

fn table() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/cases.json");
    let text = std::fs::read_to_string(path).expect("the case table");
    let doc: Value = serde_json::from_str(&text).expect("the case table is JSON");
    doc["cases"].as_array().expect("a list of cases").clone()
}

fn text(args: &Map<String, Value>, key: &str) -> Option<String> {
    args.get(key).and_then(Value::as_str).map(String::from)
}

fn number(args: &Map<String, Value>, key: &str) -> Option<f64> {
    args.get(key).and_then(Value::as_f64)
}

/// A JSON id as another language hands it over: integers, floats and strings.
fn id(value: &Value) -> Id<'_> {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => Id::Int(n.as_i64().map_or(i128::MAX, i128::from)),
        Value::Number(n) => Id::Float(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Id::Text(s),
        other => panic!("not an id in the table: {other}"),
    }
}

fn pairs(args: &Map<String, Value>, key: &str) -> Vec<(String, String)> {
    let Some(Value::Object(map)) = args.get(key) else {
        return Vec::new();
    };
    map.iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// A client of the demo account with `args` on top (a null leaves a value out), built as the
/// bindings build theirs: each value handed to the core's declaration of the settings.
fn build(base_url: &str, args: &Map<String, Value>) -> monapi::Result<Client> {
    let mut values: Map<String, Value> = serde_json::json!({
        "base_url": base_url, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
        "username": USERNAME, "password": PASSWORD,
    })
    .as_object()
    .unwrap()
    .clone();
    for (key, value) in args {
        values.insert(key.clone(), value.clone());
    }
    let values = values.into_iter().map(|(key, value)| {
        let value = match value {
            Value::Null => monapi::Value::Null,
            Value::Bool(b) => monapi::Value::Bool(b),
            Value::Number(n) => monapi::Value::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => monapi::Value::Text(s),
            other => panic!("not a setting's value in the table: {other}"),
        };
        (key, value)
    });
    ClientBuilder::new()
        .options(Options::from_values(Language::Rust, values)?)
        .build()
}

/// Sets the emulator's fault shares from `args`, then turns faults off again; a setting the
/// emulator refuses is the error.
fn set_faults(emu: &Emulator, args: &Map<String, Value>) -> monapi::Result<()> {
    let share = |key: &str| number(args, key).unwrap_or(0.0);
    let faults = Faults {
        error_500: share("error_500"),
        error_503: share("error_503"),
        error_429: share("error_429"),
        drop_connection: share("drop_connection"),
        truncated_body: share("truncated_body"),
        malformed_body: share("malformed_body"),
        corrupt_gzip: share("corrupt_gzip"),
        ..Faults::default()
    };
    emu.set_faults(faults)
        .map_err(|e| Error::invalid_input(None, e.field(), e.rule()))?;
    emu.set_faults(Faults::default()).expect("no faults");
    Ok(())
}

/// A setting the emulator refused, as the bindings report it.
fn refused(error: &ConfigError) -> Error {
    Error::invalid_input(None, error.field(), error.rule())
}

/// Sets the emulator's latency or token lifetime from `args["seconds"]` by the emulator's own
/// rule (the one the Python and Node emulators apply), then sets it back.
fn set_knob(emu: &Emulator, call: &str, args: &Map<String, Value>) -> monapi::Result<()> {
    let seconds = number(args, "seconds").expect("seconds");
    if call == "set_latency" {
        let latency = monapi_emulator::latency("seconds", seconds, TimeUnit::Seconds);
        emu.set_latency(latency.map_err(|e| refused(&e))?);
        emu.set_latency(Duration::ZERO);
    } else {
        let ttl = monapi_emulator::token_ttl("seconds", seconds, TimeUnit::Seconds);
        emu.set_token_ttl(ttl.map_err(|e| refused(&e))?);
        emu.set_token_ttl(Config::default().token_ttl);
    }
    Ok(())
}

/// Starts an emulator with `args["service_tasks"]`, then stops it.
async fn start_emulator(args: &Map<String, Value>) -> monapi::Result<()> {
    let config = Config {
        service_tasks: number(args, "service_tasks").expect("service_tasks") as usize,
        ..Config::default()
    };
    let emu = Emulator::start(config).await.map_err(|error| {
        let inner = error.get_ref().and_then(|e| e.downcast_ref::<ConfigError>());
        refused(inner.expect("a setting the emulator refused"))
    })?;
    emu.stop().await;
    Ok(())
}

/// Runs one case; `Ok` when the call (or the construction) succeeded.
async fn run(emu: &Emulator, client: &Client, call: &str, args: &Map<String, Value>) -> monapi::Result<()> {
    let range = || {
        DateRange::parse(
            text(args, "start_date").as_deref(),
            text(args, "end_date").as_deref(),
        )
    };
    let task_id = || input::task_id(id(&args["task_id"]));
    let request = match call {
        "client" => return build(emu.base_url(), args).map(drop),
        "set_faults" => return set_faults(emu, args),
        "set_latency" | "set_token_ttl" => return set_knob(emu, call, args),
        "emulator" => return start_emulator(args).await,
        "service_tasks" => {
            let page = input::page(number(args, "page").expect("a page"))?;
            return client.service_tasks(page).await.map(drop);
        }
        "service_report" => Request::ServiceReport {
            task_id: task_id()?,
            range: range()?,
        },
        "site_report" => Request::SiteReport {
            task_id: task_id()?,
            range: range()?,
            monitor: input::monitor(args.get("monitor").map(id))?,
        },
        "response_time_distribution" => Request::ResponseTimeDistribution {
            task_id: task_id()?,
            range: range()?,
        },
        "create_server_tasks" => {
            let tasks = ServerTask::batch_from_json(args["tasks"].clone())?;
            return client.create_server_tasks(&tasks).await.map(drop);
        }
        "create_service_tasks" => {
            let tasks = NewServiceTask::batch_from_json(args["tasks"].clone())?;
            return client.create_service_tasks(&tasks).await.map(drop);
        }
        "site_tasks" => {
            let page = input::page(number(args, "page").expect("a page"))?;
            return client.site_tasks(page).await.map(drop);
        }
        "site_task" => Request::SiteTask { task_id: task_id()? },
        "request" => Request::Raw {
            method: Method::parse(&text(args, "method").expect("a method"))?,
            path: text(args, "path").expect("a path"),
            query: pairs(args, "query"),
            form: pairs(args, "form"),
        },
        other => panic!("unknown call {other:?} in the case table"),
    };
    client.execute(&request).await.map(drop)
}

fn problems(error: &Error) -> Vec<(Option<usize>, String, String)> {
    error
        .problems()
        .iter()
        .map(|p| (p.index, p.field.clone(), p.rule.clone()))
        .collect()
}

/// A call that builds or sets something and sends no request.
fn is_setting(call: &str) -> bool {
    matches!(
        call,
        "client" | "set_faults" | "set_latency" | "set_token_ttl" | "emulator"
    )
}

#[tokio::test]
async fn every_case_of_the_table() {
    let emu = emulator().await;
    let client = client(&emu);
    let cases = table();
    assert!(cases.len() >= 60, "the table holds {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let call = case["call"].as_str().unwrap();
        let args = case["args"].as_object().unwrap();
        let before = emu.counters().total;
        let outcome = run(&emu, &client, call, args).await;
        let sent = emu.counters().total != before;
        match (&case["expect"], outcome) {
            (Value::String(accepted), Ok(())) if accepted == "accepted" => {
                if !is_setting(call) && !sent {
                    failures.push(format!("{name}: accepted but nothing was sent"));
                }
            }
            (Value::Object(expect), Err(error)) if expect.contains_key("refused") => {
                let expected: Vec<(Option<usize>, String, String)> = expect["refused"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| {
                        let index = p["index"].as_u64().map(|i| i as usize);
                        (
                            index,
                            p["field"].as_str().unwrap().into(),
                            p["rule"].as_str().unwrap().into(),
                        )
                    })
                    .collect();
                let found = problems(&error);
                let same = found.len() == expected.len()
                    && found
                        .iter()
                        .zip(&expected)
                        .all(|(f, e)| f.0 == e.0 && f.1 == e.1 && f.2.starts_with(&e.2));
                if !same {
                    failures.push(format!("{name}: expected {expected:?}, got {found:?} ({error})"));
                }
                if sent {
                    failures.push(format!("{name}: refused, yet a request was sent"));
                }
            }
            (expect, outcome) => failures.push(format!("{name}: expected {expect}, got {outcome:?}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
