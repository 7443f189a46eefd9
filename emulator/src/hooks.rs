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
use serde_json::json;

use crate::app::App;
use crate::config::{bandwidth, check_latency, rtt, Faults, Quirks, TimeUnit};

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
    let body = json!({"error": format!("{field}: {rule}"), "field": field, "rule": rule});
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
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
