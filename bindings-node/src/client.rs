//! `NativeClient`: the core [`monapi::Client`] behind the JavaScript `Client` of `index.js`.
//!
//! Answers cross into JavaScript as one string each (the body exactly as the service sent
//! it), which `index.js` hands to `JSON.parse`: V8's parser is much faster than building the
//! objects field by field through N-API.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use monapi::{Client, ClientBuilder, DateRange, Monitor, RawResponse, Request, ServerTask, Token};
use napi::bindgen_prelude::{Function, PromiseRaw, Status, ToNapiValue};
use napi::sys;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Env;
use napi_derive::napi;

use crate::errors::{from_core, invalid_input};
use crate::{guard, spawn};

/// The `onToken` listener: called with the token as JSON. Weak, so that it never keeps the
/// process alive.
type TokenListener = ThreadsafeFunction<String, (), String, Status, false, true>;

/// Options of the native client (the JavaScript layer has checked their types). Unset values
/// fall back to the `MONAPI_*` environment variables.
#[napi(object)]
#[derive(Default)]
pub struct ClientOptions {
    pub base_url: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub password_md5: Option<String>,
    /// A saved token, as JSON.
    pub token: Option<String>,
    pub timeout_ms: Option<f64>,
    pub connect_timeout_ms: Option<f64>,
    pub max_retries: Option<u32>,
    pub user_agent: Option<String>,
}

/// A body that reaches JavaScript as one string, without an intermediate copy.
pub struct JsonText {
    raw: RawResponse,
    ascii: bool,
}

impl JsonText {
    fn new(raw: RawResponse) -> napi::Result<JsonText> {
        let ascii = raw.body().is_ascii();
        if !ascii && std::str::from_utf8(raw.body()).is_err() {
            return Err(from_core(raw.decode_error("the answer is not valid UTF-8")));
        }
        Ok(JsonText { raw, ascii })
    }
}

impl ToNapiValue for JsonText {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let body = val.raw.body();
        let mut out = std::ptr::null_mut();
        // ASCII (most answers) is copied as Latin-1, which V8 takes without decoding.
        let status = if val.ascii {
            sys::napi_create_string_latin1(env, body.as_ptr().cast(), body.len() as isize, &mut out)
        } else {
            sys::napi_create_string_utf8(env, body.as_ptr().cast(), body.len() as isize, &mut out)
        };
        napi::check_status!(status, "cannot create the answer string")?;
        Ok(out)
    }
}

/// The monapi client for JavaScript; see `Client` in `index.d.ts` for the public API.
#[napi]
pub struct NativeClient {
    client: RwLock<Option<Arc<Client>>>,
    listener: Arc<Mutex<Option<TokenListener>>>,
    base_url: String,
    client_id: Option<String>,
    username: Option<String>,
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The longest timeout: 2^31 - 1 ms (about 24.8 days), the most `setTimeout` takes too.
pub(crate) const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// A timeout in milliseconds as a `Duration`; out of range (including huge values that
/// `Duration::from_secs_f64` would panic on) is `INVALID_INPUT` naming the option.
pub(crate) fn millis(field: &str, ms: f64) -> napi::Result<Duration> {
    let rule = "must be a positive number of milliseconds, at most 2147483647 (2^31 - 1, about 24.8 days)";
    if !(ms > 0.0 && ms <= MAX_TIMEOUT_MS) {
        return Err(invalid_input(field, rule));
    }
    Duration::try_from_secs_f64(ms / 1000.0).map_err(|_| invalid_input(field, rule))
}

fn parse_id(field: &str, text: &str) -> napi::Result<u64> {
    let valid = !text.is_empty() && text.len() <= 20 && text.bytes().all(|b| b.is_ascii_digit());
    valid
        .then(|| text.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| invalid_input(field, "must be a non-negative integer id"))
}

fn range(start: Option<String>, end: Option<String>) -> napi::Result<DateRange> {
    DateRange::parse(start.as_deref(), end.as_deref()).map_err(from_core)
}

fn token_json(token: &Token) -> napi::Result<String> {
    serde_json::to_string(token).map_err(|e| invalid_input("token", &format!("cannot be serialized: {e}")))
}

#[napi]
impl NativeClient {
    /// Builds the client (no request is made). `on_token` receives every new token as JSON.
    #[napi(catch_unwind, constructor)]
    pub fn new(options: ClientOptions, on_token: Option<Function<String, ()>>) -> napi::Result<Self> {
        guard(|| {
            let listener: Arc<Mutex<Option<TokenListener>>> = Arc::default();
            if let Some(callback) = &on_token {
                let tsfn = callback
                    .build_threadsafe_function::<String>()
                    .callee_handled::<false>()
                    .weak::<true>()
                    .build()?;
                *listener.lock().unwrap_or_else(|e| e.into_inner()) = Some(tsfn);
            }
            let client_id = options.client_id.clone().or_else(|| env_var("MONAPI_CLIENT_ID"));
            let username = options.username.clone().or_else(|| env_var("MONAPI_USERNAME"));
            let client = build(options, on_token.is_some().then(|| listener.clone()))?;
            Ok(NativeClient {
                base_url: client.base_url().to_string(),
                client: RwLock::new(Some(Arc::new(client))),
                listener,
                client_id,
                username,
            })
        })
    }

    fn client(&self) -> napi::Result<Arc<Client>> {
        self.client
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| invalid_input("client", "is closed: create a new Client"))
    }

    /// The service's base URL.
    #[napi(catch_unwind, getter)]
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The client id (not secret).
    #[napi(catch_unwind, getter)]
    pub fn client_id(&self) -> Option<String> {
        self.client_id.clone()
    }

    /// The account login (not secret).
    #[napi(catch_unwind, getter)]
    pub fn username(&self) -> Option<String> {
        self.username.clone()
    }

    /// Whether `close()` was called.
    #[napi(catch_unwind, getter)]
    pub fn closed(&self) -> bool {
        self.client.read().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    /// The current token as JSON, or null.
    #[napi(catch_unwind)]
    pub fn token(&self) -> napi::Result<Option<String>> {
        guard(|| self.client()?.token().as_ref().map(token_json).transpose())
    }

    /// When the current token expires (unix seconds), for `util.inspect`.
    #[napi(catch_unwind)]
    pub fn token_expires_at(&self) -> Option<f64> {
        let client = self.client.read().unwrap_or_else(|e| e.into_inner()).clone()?;
        client.token().and_then(|t| t.expires_at).map(|t| t as f64)
    }

    /// Password login now; resolves with the token as JSON.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn login<'e>(&self, env: &'e Env) -> napi::Result<PromiseRaw<'e, String>> {
        let client = self.client()?;
        spawn(env, async move {
            token_json(&client.login().await.map_err(from_core)?)
        })
    }

    /// Refresh grant now; resolves with the token as JSON.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn refresh<'e>(&self, env: &'e Env) -> napi::Result<PromiseRaw<'e, String>> {
        let client = self.client()?;
        spawn(env, async move {
            token_json(&client.refresh().await.map_err(from_core)?)
        })
    }

    /// Creates server tasks from their JSON array.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn create_server_tasks<'e>(
        &self,
        env: &'e Env,
        tasks_json: String,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let client = self.client()?;
        spawn(env, async move {
            let value: serde_json::Value = serde_json::from_str(&tasks_json)
                .map_err(|_| invalid_input("tasks", "must be an array of task objects"))?;
            let tasks = ServerTask::batch_from_json(value).map_err(from_core)?;
            execute(client, Request::CreateServerTasks(tasks)).await
        })
    }

    /// One page of the service task list.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn service_tasks<'e>(&self, env: &'e Env, page: u32) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let client = self.client()?;
        spawn(env, execute(client, Request::ServiceTasks { page }))
    }

    /// The agent list.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn agents<'e>(&self, env: &'e Env) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let client = self.client()?;
        spawn(env, execute(client, Request::Agents))
    }

    /// The report of a service task; dates are `YYYY-MM-DD`.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn service_report<'e>(
        &self,
        env: &'e Env,
        task_id: String,
        start_date: Option<String>,
        end_date: Option<String>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let client = self.client()?;
        let request = Request::ServiceReport {
            task_id: parse_id("taskId", &task_id)?,
            range: range(start_date, end_date)?,
        };
        spawn(env, execute(client, request))
    }

    /// The report of a site task; `monitor` unset = all points, `"0"` = the average.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn site_report<'e>(
        &self,
        env: &'e Env,
        task_id: String,
        start_date: Option<String>,
        end_date: Option<String>,
        monitor: Option<String>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let client = self.client()?;
        let monitor = match monitor.as_deref().map(|m| parse_id("monitor", m)).transpose()? {
            None => Monitor::All,
            Some(0) => Monitor::Average,
            Some(id) => Monitor::Point(id),
        };
        let request = Request::SiteReport {
            task_id: parse_id("taskId", &task_id)?,
            range: range(start_date, end_date)?,
            monitor,
        };
        spawn(env, execute(client, request))
    }

    /// The response-time distribution of a site task.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn response_time_distribution<'e>(
        &self,
        env: &'e Env,
        task_id: String,
        start_date: Option<String>,
        end_date: Option<String>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let client = self.client()?;
        let request = Request::ResponseTimeDistribution {
            task_id: parse_id("taskId", &task_id)?,
            range: range(start_date, end_date)?,
        };
        spawn(env, execute(client, request))
    }

    /// Releases the client: later calls fail, `onToken` is not called again. Calls in flight
    /// finish.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.client.write().unwrap_or_else(|e| e.into_inner()).take();
        self.listener.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

async fn execute(client: Arc<Client>, request: Request) -> napi::Result<JsonText> {
    JsonText::new(client.execute(&request).await.map_err(from_core)?)
}

fn build(
    options: ClientOptions,
    listener: Option<Arc<Mutex<Option<TokenListener>>>>,
) -> napi::Result<Client> {
    if options.password.is_some() && options.password_md5.is_some() {
        return Err(invalid_input(
            "passwordMd5",
            "cannot be given together with password: give one of them",
        ));
    }
    let mut builder =
        ClientBuilder::from_env().user_agent(format!("monapi-node/{}", env!("CARGO_PKG_VERSION")));
    if let Some(v) = options.base_url {
        builder = builder.base_url(v);
    }
    if let Some(v) = options.client_id {
        builder = builder.client_id(v);
    }
    if let Some(v) = options.client_secret {
        builder = builder.client_secret(v);
    }
    if let Some(v) = options.username {
        builder = builder.username(v);
    }
    if let Some(v) = options.password {
        builder = builder.password(v);
    }
    if let Some(v) = options.password_md5 {
        builder = builder.password_md5(v);
    }
    if let Some(json) = options.token {
        // Never echo the value: it holds the tokens.
        let token: Token = serde_json::from_str(&json).map_err(|_| {
            invalid_input(
                "token",
                "must be a token object as returned by login() or client.token \
                 (access_token, expires_in, ...)",
            )
        })?;
        builder = builder.token(token);
    }
    if let Some(ms) = options.timeout_ms {
        builder = builder.timeout(millis("timeoutMs", ms)?);
    }
    if let Some(ms) = options.connect_timeout_ms {
        builder = builder.connect_timeout(millis("connectTimeoutMs", ms)?);
    }
    if let Some(n) = options.max_retries {
        builder = builder.max_retries(n as usize);
    }
    if let Some(v) = options.user_agent {
        builder = builder.user_agent(v);
    }
    if let Some(listener) = listener {
        builder = builder.on_token(move |token| {
            let slot = listener.lock().unwrap_or_else(|e| e.into_inner());
            if let (Some(tsfn), Ok(json)) = (slot.as_ref(), serde_json::to_string(token)) {
                tsfn.call(json, ThreadsafeFunctionCallMode::NonBlocking);
            }
        });
    }
    builder.build().map_err(from_core)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_timeouts_are_invalid_input_not_panics() {
        for ms in [
            1e23,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            0.0,
            -1.0,
            MAX_TIMEOUT_MS + 1.0,
        ] {
            let payload = crate::errors::payload_json(&millis("timeoutMs", ms).unwrap_err());
            assert_eq!(payload["code"], "INVALID_INPUT");
            assert_eq!(payload["field"], "timeoutMs");
            assert!(payload["message"]
                .as_str()
                .unwrap()
                .contains("at most 2147483647"));
        }
        assert_eq!(millis("timeoutMs", 250.0).unwrap(), Duration::from_millis(250));
        assert_eq!(
            millis("timeoutMs", MAX_TIMEOUT_MS).unwrap(),
            Duration::from_millis(2_147_483_647)
        );
    }
}
