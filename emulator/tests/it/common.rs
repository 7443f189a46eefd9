//! Helpers: an emulator on port 0 plus a plain reqwest client, fixtures, and JSON shapes.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use monapi_emulator::{Config, Emulator, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_USERNAME};
use reqwest::{Method, StatusCode};
use serde_json::Value;

/// MD5 hex of the demo password `123456`.
pub const PASSWORD_MD5: &str = "e10adc3949ba59abbe56e057f20f883e";
pub const PHP_CONTENT_TYPE: &str = "text/html; charset=UTF-8";

pub struct Env {
    pub emu: Emulator,
    pub http: reqwest::Client,
}

/// An answer: status, headers, raw body, and the body as JSON when it is JSON.
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub bytes: bytes::Bytes,
    pub json: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        // No Accept-Encoding: the answers as the emulator writes them (compression.rs asks).
        .no_gzip()
        .no_deflate()
        // Generous: sixteen reports of a megabyte at once from a debug build on a machine busy
        // with other builds took more than 30 s.
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// The emulator's clock fixed at 23:59:59 of today (`+08:00`, the system's day), in `world`:
/// every check of today is there, whatever the hour the test runs.
pub fn evening(world: monapi_emulator::World) -> Config {
    let day = today_date().and_hms_opt(23, 59, 59).unwrap();
    let now = day.and_local_timezone(monapi_emulator::SERVICE_TIMEZONE).unwrap();
    Config {
        world,
        now: Some(now.with_timezone(&chrono::Utc)),
        ..Config::default()
    }
}

pub async fn start() -> Env {
    start_with(Config::default()).await
}

pub async fn start_with(config: Config) -> Env {
    Env {
        emu: Emulator::start(config).await.unwrap(),
        http: client(),
    }
}

pub async fn read_reply(response: reqwest::Response) -> Reply {
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        bytes,
        json,
    }
}

impl Env {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.emu.base_url(), path)
    }

    pub async fn token_request(&self, form: &[(&str, &str)]) -> Reply {
        let response = self
            .http
            .post(self.url("/v2/oauth/token.json"))
            .form(form)
            .send()
            .await
            .unwrap();
        read_reply(response).await
    }

    pub async fn password_grant(&self) -> Reply {
        self.token_request(&[
            ("grant_type", "password"),
            ("username", DEMO_USERNAME),
            ("password", PASSWORD_MD5),
            ("client_id", DEMO_CLIENT_ID),
            ("client_secret", DEMO_CLIENT_SECRET),
        ])
        .await
    }

    pub async fn refresh_grant(&self, refresh_token: &str) -> Reply {
        self.token_request(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", DEMO_CLIENT_ID),
            ("client_secret", DEMO_CLIENT_SECRET),
        ])
        .await
    }

    /// An access token of the demo account.
    pub async fn login(&self) -> String {
        let reply = self.password_grant().await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
        reply.json["access_token"].as_str().unwrap().to_string()
    }

    pub async fn request(&self, method: Method, path: &str, query: &[(&str, &str)]) -> Reply {
        let response = self
            .http
            .request(method, self.url(path))
            .query(query)
            .send()
            .await
            .unwrap();
        read_reply(response).await
    }

    pub async fn get(&self, path: &str, query: &[(&str, &str)]) -> Reply {
        self.request(Method::GET, path, query).await
    }

    /// GET with `access_token` added.
    pub async fn get_auth(&self, token: &str, path: &str, query: &[(&str, &str)]) -> Reply {
        let mut query = query.to_vec();
        query.push(("access_token", token));
        self.get(path, &query).await
    }

    /// `PUT /_emulator/config` with a JSON body.
    pub async fn put_config(&self, body: &Value) -> Reply {
        let response = self
            .http
            .put(self.url("/_emulator/config"))
            .json(body)
            .send()
            .await
            .unwrap();
        read_reply(response).await
    }

    pub async fn create(&self, token: &str, data: &str) -> Reply {
        self.post_form(token, "/v2/server/create.json", data).await
    }

    /// `POST /v2/service/create.json` with the batch as the form field `data`.
    pub async fn create_service(&self, token: &str, data: &str) -> Reply {
        self.post_form(token, "/v2/service/create.json", data).await
    }

    async fn post_form(&self, token: &str, path: &str, data: &str) -> Reply {
        let response = self
            .http
            .post(self.url(path))
            .query(&[("access_token", token)])
            .form(&[("data", data)])
            .send()
            .await
            .unwrap();
        read_reply(response).await
    }
}

pub fn fixture(name: &str) -> Value {
    let path = format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The JSON type structure of a value. Objects whose keys are digits (ids, timestamps,
/// fault indexes) are maps: their entries are compared by the set of value shapes, not
/// by key; other keys are compared by name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    Null,
    Bool,
    Number,
    String,
    Array(BTreeSet<Shape>),
    Object(BTreeMap<String, Shape>, BTreeSet<Shape>),
}

pub fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

pub fn shape(value: &Value) -> Shape {
    match value {
        Value::Null => Shape::Null,
        Value::Bool(_) => Shape::Bool,
        Value::Number(_) => Shape::Number,
        Value::String(_) => Shape::String,
        Value::Array(items) => Shape::Array(items.iter().map(shape).collect()),
        Value::Object(fields) => {
            let mut named = BTreeMap::new();
            let mut keyed = BTreeSet::new();
            for (key, value) in fields {
                if is_digits(key) {
                    keyed.insert(shape(value));
                } else {
                    named.insert(key.clone(), shape(value));
                }
            }
            Shape::Object(named, keyed)
        }
    }
}

/// Every string value anywhere in `value` (and no numbers), for "all values are strings".
pub fn all_leaves_strings(value: &Value) -> bool {
    match value {
        Value::String(_) => true,
        Value::Array(items) => items.iter().all(all_leaves_strings),
        Value::Object(fields) => fields.values().all(all_leaves_strings),
        _ => false,
    }
}

/// Today in the emulator's default time zone (`+08:00`).
fn today_date() -> chrono::NaiveDate {
    chrono::Utc::now()
        .with_timezone(&monapi_emulator::SERVICE_TIMEZONE)
        .date_naive()
}

pub fn yesterday() -> String {
    (today_date() - chrono::Days::new(1))
        .format("%Y-%m-%d")
        .to_string()
}

pub fn today() -> String {
    today_date().format("%Y-%m-%d").to_string()
}

/// Unix time of 00:00 of a `Y-m-d` day in the emulator's default time zone (`+08:00`).
pub fn day_start(day: &str) -> i64 {
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_local_timezone(monapi_emulator::SERVICE_TIMEZONE)
        .unwrap()
        .timestamp()
}

/// The service tasks of the demo setup, all pages.
pub async fn all_service_tasks(env: &Env, token: &str) -> Vec<Value> {
    let mut tasks = Vec::new();
    for page in 1..=3 {
        let reply = env
            .get_auth(token, "/v2/service/lists.json", &[("page", &page.to_string())])
            .await;
        tasks.extend(reply.json.as_array().unwrap().iter().cloned());
    }
    tasks
}

/// The first task of each type with frequency `freq`, as (type, id).
pub fn task_of_type<'a>(tasks: &'a [Value], kind: &str, freq: &str) -> Option<&'a Value> {
    tasks
        .iter()
        .find(|task| task["task_type"] == kind && task["frequency"] == freq)
}
