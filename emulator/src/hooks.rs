//! The test hooks under `/_emulator/`: JSON in and out (`application/json`), no access
//! token, never delayed, faulted or counted.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::App;
use crate::config::{bandwidth, check_latency, instant, rtt, ConfigError, Faults, Quirks, TimeUnit};
use crate::reports::Outage;

/// The hooks' routes, merged into the emulator's router.
pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/_emulator/counters", get(counters))
        .route("/_emulator/reset", post(reset))
        .route("/_emulator/config", put(config))
        .route("/_emulator/expire_tokens", post(expire_tokens))
        .route("/_emulator/revoke_refresh_tokens", post(revoke_refresh_tokens))
        .route("/_emulator/expire_refresh_tokens", post(expire_refresh_tokens))
        .route("/_emulator/server_tasks", get(server_tasks))
        .route("/_emulator/service_tasks", get(created_service_tasks))
        .route("/_emulator/fail_site", post(fail_site))
        .route("/_emulator/recover_site", post(recover_site))
        .route("/_emulator/remove_task", post(remove_task))
        .route("/_emulator/restore_task", post(restore_task))
        .route("/_emulator/clock", get(clock).put(set_clock))
}

async fn counters(State(app): State<Arc<App>>) -> Response {
    Json(app.counters()).into_response()
}

fn done() -> Response {
    Json(json!({"ok": true})).into_response()
}

async fn reset(State(app): State<Arc<App>>) -> Response {
    app.reset();
    done()
}

async fn expire_tokens(State(app): State<Arc<App>>) -> Response {
    app.expire_tokens();
    done()
}

async fn revoke_refresh_tokens(State(app): State<Arc<App>>) -> Response {
    app.revoke_refresh_tokens();
    done()
}

async fn expire_refresh_tokens(State(app): State<Arc<App>>) -> Response {
    app.expire_refresh_tokens();
    done()
}

async fn server_tasks(State(app): State<Arc<App>>) -> Response {
    Json(app.server_tasks()).into_response()
}

async fn created_service_tasks(State(app): State<Arc<App>>) -> Response {
    Json(app.created_service_tasks()).into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigUpdate {
    token_ttl_secs: Option<u64>,
    refresh_token_ttl_secs: Option<u64>,
    latency_ms: Option<u64>,
    faults: Option<Faults>,
    quirks: Option<Quirks>,
    /// Given as `null`: no limit.
    #[serde(default, deserialize_with = "given")]
    bandwidth_mbps: Option<Option<f64>>,
    rtt_ms: Option<u64>,
}

/// A field that is present, `null` included (`Some(None)`), as opposed to left out (`None`).
fn given<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A 400 `{"error","field","rule"}` naming the setting and the rule it breaks.
fn bad_setting(field: &str, rule: &str) -> Response {
    refusal(StatusCode::BAD_REQUEST, field, rule)
}

/// `{"error","field","rule"}` with `status`.
fn refusal(status: StatusCode, field: &str, rule: &str) -> Response {
    let body = json!({"error": format!("{field}: {rule}"), "field": field, "rule": rule});
    (status, Json(body)).into_response()
}

/// `PUT /_emulator/config`: changes the given settings, answers with all of them. A bad
/// body changes nothing and is a 400 `{"error","field","rule"}` naming the setting (its
/// path in the body, e.g. `quirks.past_end_page`) and the rule it breaks.
async fn config(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let mut json = serde_json::Deserializer::from_slice(&body);
    let update: ConfigUpdate = match serde_path_to_error::deserialize(&mut json) {
        Ok(update) => update,
        Err(error) => {
            let inner = error.inner();
            // The position in a one-line body says nothing the field does not.
            let position = format!(" at line {} column {}", inner.line(), inner.column());
            let text = inner.to_string();
            let rule = text.strip_suffix(&position).unwrap_or(&text);
            return bad_setting(&error.path().to_string(), rule);
        }
    };
    // Checked before anything changes.
    if let Some(ms) = update.latency_ms
        && let Err(error) = check_latency("latency_ms", Duration::from_millis(ms))
    {
        return bad_setting(error.field(), error.rule());
    }
    if let Some(Some(mbps)) = update.bandwidth_mbps
        && let Err(error) = bandwidth("bandwidth_mbps", mbps)
    {
        return bad_setting(error.field(), error.rule());
    }
    if let Some(ms) = update.rtt_ms
        && let Err(error) = rtt("rtt_ms", ms as f64, TimeUnit::Milliseconds)
    {
        return bad_setting(error.field(), error.rule());
    }
    if let Some(faults) = update.faults
        && let Err(error) = app.set_faults(faults)
    {
        let error = error.within("faults");
        return bad_setting(error.field(), error.rule());
    }
    let mut knobs = app.knobs();
    if let Some(secs) = update.token_ttl_secs {
        knobs.token_ttl = Duration::from_secs(secs);
    }
    if let Some(secs) = update.refresh_token_ttl_secs {
        knobs.refresh_token_ttl = Duration::from_secs(secs);
    }
    if let Some(ms) = update.latency_ms {
        knobs.latency = Duration::from_millis(ms);
    }
    if let Some(quirks) = update.quirks {
        knobs.quirks = quirks;
    }
    let (bandwidth_mbps, rtt) = app.link.settings();
    let bandwidth_mbps = update.bandwidth_mbps.unwrap_or(bandwidth_mbps);
    let rtt = update.rtt_ms.map_or(rtt, Duration::from_millis);
    app.link.set(bandwidth_mbps, rtt);
    Json(json!({
        "token_ttl_secs": knobs.token_ttl.as_secs(),
        "refresh_token_ttl_secs": knobs.refresh_token_ttl.as_secs(),
        "latency_ms": knobs.latency.as_millis() as u64,
        "faults": knobs.faults,
        "quirks": knobs.quirks,
        "bandwidth_mbps": bandwidth_mbps,
        "rtt_ms": rtt.as_millis() as u64,
    }))
    .into_response()
}

/// What the `task_id` of a hook's body names, for its refusals.
struct Named {
    /// "site task", "task".
    task: &'static str,
    example: u64,
    /// What the hook does to it.
    to: &'static str,
}

const SITE: Named = Named {
    task: "site task",
    example: 20001,
    to: "fail or recover",
};

const TASK: Named = Named {
    task: "task",
    example: 10001,
    to: "remove or restore",
};

/// The task id of a body `{"task_id": 20001}` (a number, or a string of digits as the service
/// writes ids), or what is wrong with the body.
fn task_id(body: &[u8], named: &Named) -> Result<u64, ConfigError> {
    let Named { task, example, to } = named;
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Err(ConfigError::new(
            "task_id",
            format!(r#"the body must be a JSON object {{"task_id": {example}}}"#),
        ));
    };
    if let Some(other) = fields.keys().find(|key| *key != "task_id") {
        return Err(ConfigError::new(
            other,
            "unknown field, the body has only task_id",
        ));
    }
    let id = match fields.get("task_id") {
        None => {
            return Err(ConfigError::new(
                "task_id",
                format!("missing: the {task} to {to}"),
            ))
        }
        Some(Value::Number(number)) => number.as_u64(),
        Some(Value::String(text)) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            // Digits past u64 name no task either.
            Some(text.parse().unwrap_or(u64::MAX))
        }
        Some(_) => None,
    };
    id.ok_or_else(|| {
        let rule = format!(
            "must be a {task} id, a number such as {example}, got {}",
            fields["task_id"]
        );
        ConfigError::new("task_id", rule)
    })
}

/// `{"task_id","start_time","end_time"}` of an outage (unix seconds; `end_time` `null` while
/// the site is failing), or of none (both `null`). A task id that is no site task is a 404
/// `{"error","field","rule"}` naming it; a bad body a 400.
fn outage_answer(
    id: Result<u64, ConfigError>,
    outage: impl FnOnce(u64) -> Result<Option<Outage>, ConfigError>,
) -> Response {
    let id = match id {
        Ok(id) => id,
        Err(error) => return bad_setting(error.field(), error.rule()),
    };
    match outage(id) {
        Ok(outage) => Json(json!({
            "task_id": id,
            "start_time": outage.map(|o| o.start),
            "end_time": outage.and_then(|o| o.end),
        }))
        .into_response(),
        Err(error) => refusal(StatusCode::NOT_FOUND, error.field(), error.rule()),
    }
}

/// `POST /_emulator/fail_site` `{"task_id": 20001}`: the site fails from now on (see
/// `Emulator::fail_site`). Answers `{"task_id","start_time","end_time":null}`.
async fn fail_site(State(app): State<Arc<App>>, body: Bytes) -> Response {
    outage_answer(task_id(&body, &SITE), |id| {
        app.fail_site(id, app.clock.unix()).map(Some)
    })
}

/// `POST /_emulator/recover_site` `{"task_id": 20001}`: the failure ends (see
/// `Emulator::recover_site`). Answers `{"task_id","start_time","end_time"}` of the outage
/// ended, both `null` when the site was not failing.
async fn recover_site(State(app): State<Arc<App>>, body: Bytes) -> Response {
    outage_answer(task_id(&body, &SITE), |id| app.recover_site(id, app.clock.unix()))
}

/// `{"task_id","changed"}`: whether `change` changed anything. An id that is no seeded task is
/// a 404 `{"error","field","rule"}` naming it; a bad body a 400.
fn change_answer(body: &[u8], change: impl FnOnce(u64) -> Result<bool, ConfigError>) -> Response {
    let id = match task_id(body, &TASK) {
        Ok(id) => id,
        Err(error) => return bad_setting(error.field(), error.rule()),
    };
    match change(id) {
        Ok(changed) => Json(json!({"task_id": id, "changed": changed})).into_response(),
        Err(error) => refusal(StatusCode::NOT_FOUND, error.field(), error.rule()),
    }
}

/// `POST /_emulator/remove_task` `{"task_id": 10001}`: the task is taken out of the account
/// (see `Emulator::remove_task`).
async fn remove_task(State(app): State<Arc<App>>, body: Bytes) -> Response {
    change_answer(&body, |id| app.remove_task(id))
}

/// `POST /_emulator/restore_task` `{"task_id": 10001}`: the removed task is back (see
/// `Emulator::restore_task`).
async fn restore_task(State(app): State<Arc<App>>, body: Bytes) -> Response {
    change_answer(&body, |id| app.restore_task(id))
}

/// `{"now","unix","fixed","today"}`: the clock's reading (RFC 3339 in the emulator's time zone,
/// and unix seconds), whether it is fixed, and its day.
fn clock_answer(app: &App) -> Response {
    let now = app.clock.now();
    Json(json!({
        "now": now.with_timezone(&app.timezone).to_rfc3339(),
        "unix": now.timestamp(),
        "fixed": app.clock.fixed().is_some(),
        "today": app.clock.today().to_string(),
    }))
    .into_response()
}

/// `GET /_emulator/clock`: the emulator's clock.
async fn clock(State(app): State<Arc<App>>) -> Response {
    clock_answer(&app)
}

/// `PUT /_emulator/clock` `{"now": ...}` or `{"advance_secs": n}`: fixes the clock at an
/// instant (unix seconds, RFC 3339, or a local date and time in the emulator's zone), makes it
/// follow the system clock again (`"now": null`), or moves it on by `n` seconds (see
/// `Emulator::set_now`). Answers as `GET`; a bad body changes nothing: a 400
/// `{"error","field","rule"}`.
async fn set_clock(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let fields = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(fields)) => fields,
        _ => {
            return bad_setting(
                "now",
                r#"the body must be a JSON object {"now": "2026-11-01T10:02:00+08:00"} or {"advance_secs": 60}"#,
            )
        }
    };
    if let Some(other) = fields.keys().find(|key| *key != "now" && *key != "advance_secs") {
        return bad_setting(other, "unknown field, the body has now or advance_secs");
    }
    let done = match (fields.get("now"), fields.get("advance_secs")) {
        (Some(_), Some(_)) => Err(ConfigError::new("advance_secs", "must not be given with now")),
        (Some(now), None) => clock_instant(now, &app).and_then(|now| app.clock.set("now", now)),
        (None, Some(secs)) => match secs.as_u64() {
            Some(secs) => app.clock.advance(Duration::from_secs(secs)).map(|_| ()),
            None => Err(ConfigError::new(
                "advance_secs",
                format!("must be a whole number of seconds from 0, got {secs}"),
            )),
        },
        (None, None) => Err(ConfigError::new("now", "missing: the instant, or advance_secs")),
    };
    match done {
        Ok(()) => clock_answer(&app),
        Err(error) => bad_setting(error.field(), error.rule()),
    }
}

/// The `now` of a clock body: `null` (the system clock), unix seconds, or text.
fn clock_instant(now: &Value, app: &App) -> Result<Option<chrono::DateTime<chrono::Utc>>, ConfigError> {
    match now {
        Value::Null => Ok(None),
        Value::Number(number) => number
            .as_i64()
            .and_then(|secs| chrono::DateTime::from_timestamp(secs, 0))
            .map(Some)
            .ok_or_else(|| ConfigError::new("now", format!("must be unix seconds, got {number}"))),
        Value::String(text) => instant("now", text, app.timezone).map(Some),
        other => Err(ConfigError::new(
            "now",
            format!("must be an instant (unix seconds or RFC 3339 text) or null, got {other}"),
        )),
    }
}
