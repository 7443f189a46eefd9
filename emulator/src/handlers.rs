//! The API endpoints other than the token endpoint (`auth.rs`): the lists, the reports and
//! the creation of server and service tasks. Each checks the access token first, then the
//! task id, then the other parameters.

use std::collections::HashSet;
use std::sync::Arc;

use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use bytes::Bytes;
use chrono::NaiveDate;
use serde_json::{json, Value};

use crate::app::App;
use crate::auth::authorize;
use crate::compression::{Cached, CachedBody};
use crate::reports::{site_report_without_checks, Range, ReportKey};
use crate::response::{php_body, php_json, Refusal, PHP_EMPTY_ARRAY};
use crate::validate;

/// Longest report range, in days (our choice; the service documents no limit).
const MAX_RANGE_DAYS: i64 = 366;

/// Query parameters in order; a malformed query reads as empty.
struct Query(Vec<(String, String)>);

impl Query {
    fn of(uri: &Uri) -> Query {
        Query(serde_urlencoded::from_str(uri.query().unwrap_or("")).unwrap_or_default())
    }

    /// The first value of `name`.
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn authorize(&self, app: &App) -> Result<(), Refusal> {
        authorize(app, self.get("access_token"))
    }
}

fn bad_request(msg: impl Into<String>) -> Refusal {
    Refusal::Api(StatusCode::BAD_REQUEST, msg.into())
}

fn digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The task id of a `<task_id>.json` path segment.
fn task_id(file: &str) -> Result<u64, Refusal> {
    let Some(id) = file.strip_suffix(".json") else {
        return Err(Refusal::Api(StatusCode::NOT_FOUND, "no such endpoint".into()));
    };
    if id.is_empty() {
        return Err(bad_request("no task id given"));
    }
    if !digits(id) {
        return Err(bad_request(format!("task id must be digits, got '{id}'")));
    }
    // Digits too long for u64 name no task either.
    id.parse().map_err(|_| task_not_found(id))
}

fn task_not_found(id: impl std::fmt::Display) -> Refusal {
    Refusal::Api(StatusCode::NOT_FOUND, format!("task {id} not found"))
}

/// A `Y-m-d` date, strictly: four-digit year, two-digit month and day, a real day.
fn date(query: &Query, name: &str, today: NaiveDate) -> Result<NaiveDate, Refusal> {
    let Some(text) = query.get(name) else {
        return Ok(today);
    };
    let shaped = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    shaped
        .then(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok())
        .flatten()
        .ok_or_else(|| {
            bad_request(format!(
                "{name} must be a date as Y-m-d (e.g. 2026-11-01), got '{text}'"
            ))
        })
}

fn range(query: &Query, app: &App, today: NaiveDate) -> Result<Range, Refusal> {
    let start = date(query, "start_date", today)?;
    let end = date(query, "end_date", today)?;
    if start > end {
        return Err(bad_request(format!("start_date {start} is after end_date {end}")));
    }
    let days = (end - start).num_days() + 1;
    if days > MAX_RANGE_DAYS {
        return Err(bad_request(format!(
            "date range start_date {start} to end_date {end} is {days} days; at most {MAX_RANGE_DAYS} allowed"
        )));
    }
    Ok(Range {
        start,
        end,
        utc_offset: app.timezone.local_minus_utc(),
    })
}

fn ok_body(body: Bytes) -> Response {
    php_body(StatusCode::OK, body)
}

/// A cached report, marked so that its compressed form comes from the cache too.
fn cached_body(cached: Arc<CachedBody>) -> Response {
    let body = cached.identity.get().cloned().unwrap_or_default();
    let mut response = ok_body(body);
    response.extensions_mut().insert(Cached(cached));
    response
}

/// The `page` of a paged list (default 1).
fn page(query: &Query) -> Result<u64, Refusal> {
    match query.get("page") {
        None => Ok(1),
        Some(text) => match text.parse::<u64>() {
            Ok(page) if digits(text) && page >= 1 => Ok(page),
            _ => Err(bad_request(format!("page must be an integer >= 1, got '{text}'"))),
        },
    }
}

/// The body of a page past the last one, as the `past_end_page` quirk says.
fn past_end(app: &App) -> Bytes {
    Bytes::from_static(app.quirks().past_end_page.body().as_bytes())
}

pub(crate) async fn service_tasks(State(app): State<Arc<App>>, uri: Uri) -> Result<Response, Refusal> {
    let query = Query::of(&uri);
    query.authorize(&app)?;
    let page = page(&query)?;
    Ok(ok_body(app.service_page(page).unwrap_or_else(|| past_end(&app))))
}

/// `GET /v2/site/lists.json?page=N`: the site tasks, 50 a page.
pub(crate) async fn site_tasks(State(app): State<Arc<App>>, uri: Uri) -> Result<Response, Refusal> {
    let query = Query::of(&uri);
    query.authorize(&app)?;
    let page = page(&query)?;
    let keyed = app.quirks().keyed_lists;
    Ok(ok_body(
        app.site_page(page, keyed).unwrap_or_else(|| past_end(&app)),
    ))
}

/// `GET /v2/site/info/{id}.json`: a site task's settings.
pub(crate) async fn site_task(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    uri: Uri,
) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    let id = task_id(&file)?;
    Ok(ok_body(app.site_info(id).ok_or_else(|| task_not_found(id))?))
}

/// `GET /v2/site/monitors.json`: the monitoring points.
pub(crate) async fn monitors(State(app): State<Arc<App>>, uri: Uri) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    Ok(ok_body(app.world.monitors.body(app.quirks().keyed_lists)))
}

/// `GET /v2/user/lists.json`: every user of the account.
pub(crate) async fn users(State(app): State<Arc<App>>, uri: Uri) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    Ok(ok_body(app.world.users.body(app.quirks().keyed_lists)))
}

/// `GET /v2/user/organization.json`: the user groups.
pub(crate) async fn groups(State(app): State<Arc<App>>, uri: Uri) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    Ok(ok_body(app.world.groups.body(app.quirks().keyed_lists)))
}

pub(crate) async fn agents(State(app): State<Arc<App>>, uri: Uri) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    if app.quirks().no_agents {
        return Ok(ok_body(Bytes::from_static(PHP_EMPTY_ARRAY)));
    }
    Ok(ok_body(app.world.agents.clone()))
}

pub(crate) async fn service_report(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    uri: Uri,
) -> Result<Response, Refusal> {
    let query = Query::of(&uri);
    query.authorize(&app)?;
    let id = task_id(&file)?;
    let task = app.service_task(id).ok_or_else(|| task_not_found(id))?;
    let range = range(&query, &app, app.clock.today())?;
    let key = ReportKey::Service {
        task: task.id,
        range,
        until: range.until(task.frequency, app.clock.unix()),
    };
    if app.quirks().no_checks {
        return Ok(ok_body(Bytes::from_static(PHP_EMPTY_ARRAY)));
    }
    Ok(cached_body(app.cache.get(&app.world, key).await))
}

pub(crate) async fn site_report(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    uri: Uri,
) -> Result<Response, Refusal> {
    let query = Query::of(&uri);
    query.authorize(&app)?;
    let id = task_id(&file)?;
    let site = app.site(id).ok_or_else(|| task_not_found(id))?;
    let now = app.clock.now();
    let today = now.with_timezone(&app.timezone).date_naive();
    let range = range(&query, &app, today)?;
    let monitor = match query.get("monitor") {
        None => None,
        Some(text) => {
            let point = text.parse::<u32>().ok().filter(|_| digits(text));
            let Some(point) = point else {
                return Err(bad_request(format!(
                    "monitor must be a monitoring-point id (digits), got '{text}'"
                )));
            };
            if point != 0 && !site.points.iter().any(|p| p.id == point) {
                return Err(bad_request(format!(
                    "monitor {point} is not a monitoring point of task {id}"
                )));
            }
            Some(point)
        }
    };
    if app.quirks().no_checks {
        return Ok(ok_body(site_report_without_checks(site, monitor).into()));
    }
    let key = ReportKey::Site {
        task: site.id,
        range,
        monitor,
        today: range.contains(today).then_some(today),
        outages: app.outages(site.id, &range),
        until: range.until(site.frequency, now.timestamp()),
    };
    Ok(cached_body(app.cache.get(&app.world, key).await))
}

pub(crate) async fn distribution(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    uri: Uri,
) -> Result<Response, Refusal> {
    let query = Query::of(&uri);
    query.authorize(&app)?;
    let id = task_id(&file)?;
    let site = app.site(id).ok_or_else(|| task_not_found(id))?;
    let now = app.clock.now();
    let today = now.with_timezone(&app.timezone).date_naive();
    let range = range(&query, &app, today)?;
    if app.quirks().no_checks {
        return Ok(ok_body(Bytes::from_static(PHP_EMPTY_ARRAY)));
    }
    let key = ReportKey::Distribution {
        task: site.id,
        range,
        today: range.contains(today).then_some(today),
        outages: app.outages(site.id, &range),
        until: range.until(site.frequency, now.timestamp()),
    };
    Ok(cached_body(app.cache.get(&app.world, key).await))
}

/// `POST /v2/server/create.json`: validates each line, stores the good ones, and names
/// the bad ones in `err_key` / `err_content`.
pub(crate) async fn create(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    let lines = batch(&headers, body)?;
    let (good, bad) = sort(lines, |line| validate::task(line, plugin_ids(&app)));
    let ids = app.store_tasks(good);
    Ok(created(&ids, bad))
}

/// `POST /v2/service/create.json`: as the server create, for service tasks.
pub(crate) async fn create_service(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    Query::of(&uri).authorize(&app)?;
    let lines = batch(&headers, body)?;
    let (good, bad) = sort(lines, |line| validate::service_task(line, plugin_ids(&app)));
    let ids = app.store_service_tasks(good);
    Ok(created(&ids, bad))
}

/// The tasks of a create batch: the form field `data` holding a JSON array (as the server
/// create's documentation shows), or, with `Content-Type: application/json` (as the service
/// create's documentation names), the body itself as that array (or an object with `data`).
fn batch(headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<Vec<Value>, Refusal> {
    let body = body.map_err(|rejection| Refusal::Api(rejection.status(), rejection.body_text()))?;
    let json = headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.to_ascii_lowercase().starts_with("application/json"));
    let data = if json {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(mut object)) => object.remove("data").unwrap_or(Value::Null),
            Ok(value) => value,
            Err(_) => Value::Null,
        }
    } else {
        let form: Vec<(String, String)> = serde_urlencoded::from_bytes(&body).unwrap_or_default();
        let (_, data) = form
            .iter()
            .find(|(key, _)| key == "data")
            .ok_or_else(|| bad_request("form field data is missing"))?;
        serde_json::from_str(data).unwrap_or(Value::Null)
    };
    match data {
        Value::Array(lines) => Ok(lines),
        _ => Err(bad_request("data must be a JSON array of task objects")),
    }
}

/// The account's plugins (none for an account without agents).
fn plugin_ids(app: &App) -> &HashSet<String> {
    static NONE: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    if app.quirks().no_agents {
        NONE.get_or_init(HashSet::new)
    } else {
        &app.world.plugin_ids
    }
}

/// The lines that pass `check`, and the index and reason of each that does not.
fn sort(
    lines: Vec<Value>,
    check: impl Fn(&Value) -> Result<(), String>,
) -> (Vec<Value>, Vec<(usize, String)>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (index, line) in lines.into_iter().enumerate() {
        match check(&line) {
            Ok(()) => good.push(line),
            Err(text) => bad.push((index, text)),
        }
    }
    (good, bad)
}

/// The answer of a create: the new ids, or a 400 naming the failed lines (the others were
/// created).
fn created(ids: &[u64], bad: Vec<(usize, String)>) -> Response {
    if bad.is_empty() {
        let created: Vec<Value> = ids.iter().map(|id| json!({"task_id": id})).collect();
        return php_json(StatusCode::OK, &Value::Array(created));
    }
    let (keys, texts): (Vec<String>, Vec<String>) =
        bad.into_iter().map(|(i, text)| (i.to_string(), text)).unzip();
    php_json(
        StatusCode::BAD_REQUEST,
        &json!({"err_key": keys.join(","), "err_content": texts.join("; ")}),
    )
}
