//! `NativeClient`: the core [`monapi::Client`] behind the JavaScript `Client` of `index.js`.
//!
//! Answers cross into JavaScript as one string each (the body exactly as the service sent
//! it), which `index.js` hands to `JSON.parse`: V8's parser is much faster than building the
//! objects field by field through N-API.

use std::sync::{Arc, Mutex, RwLock};

use monapi::input::{self, Id};
use monapi::{
    Client, ClientBuilder, DateRange, Endpoint, Language, Method, Options, RawResponse, Request, ServerTask,
    TaskPage, Token, Value,
};
use napi::bindgen_prelude::{Either, Function, PromiseRaw, Status, ToNapiValue};
use napi::sys;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Env;
use napi_derive::napi;

use crate::call::{Context, NativeCall};
use crate::errors::{from_core, invalid_input};
use crate::guard;
use crate::logging::{self, LogRecord};

/// The `onToken` listener: called with the token as JSON. Weak, so that it never keeps the
/// process alive.
type TokenListener = ThreadsafeFunction<String, (), String, Status, false, true>;

/// Options of the native client, as the caller gave them (the JavaScript layer has checked
/// their types; the core checks their values). Unset values fall back to the `MONAPI_*`
/// environment variables.
#[napi(object)]
#[derive(Default)]
pub struct NativeClientOptions {
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
    pub max_retries: Option<f64>,
    pub user_agent: Option<String>,
    /// A PEM file of CA certificates to trust besides the system's.
    pub ca_bundle_path: Option<String>,
    /// The PEM text of CA certificates to trust besides the system's.
    pub ca_bundle_pem: Option<napi::bindgen_prelude::Buffer>,
    /// A proxy URL for every call.
    pub proxy: Option<String>,
    /// No proxy, whatever the environment says (`proxy: false`).
    pub no_proxy: Option<bool>,
    pub max_connections: Option<f64>,
    /// The service's time zone as an offset (`+08:00`), for the tables and "today".
    pub timezone: Option<String>,
    /// `off`, `error`, `warn`, `info` or `debug` (default: `MONAPI_LOG`, else `warn`).
    pub log_level: Option<String>,
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
    /// Where the events of this client's calls go, when it logs.
    dispatch: Option<tracing::Dispatch>,
    base_url: String,
    client_id: String,
    username: Option<String>,
}

/// An id as JavaScript hands it over: a number, or text (a string, or a bigint's digits).
pub(crate) fn id(value: &Either<f64, String>) -> Id<'_> {
    match value {
        Either::A(number) => Id::Float(*number),
        Either::B(text) => Id::Text(text),
    }
}

/// The page of one of the service task list, with the page after it (`null` after the last):
/// the JavaScript iterator follows `next`, so where the list ends is the core's rule.
pub struct PageText {
    body: JsonText,
    next: Option<u32>,
}

impl ToNapiValue for PageText {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let mut object = std::ptr::null_mut();
        napi::check_status!(
            sys::napi_create_object(env, &mut object),
            "cannot create the page"
        )?;
        let body = JsonText::to_napi_value(env, val.body)?;
        let next = Option::<u32>::to_napi_value(env, val.next)?;
        napi::check_status!(
            sys::napi_set_named_property(env, object, c"body".as_ptr(), body),
            "cannot set the page's body"
        )?;
        napi::check_status!(
            sys::napi_set_named_property(env, object, c"next".as_ptr(), next),
            "cannot set the next page"
        )?;
        Ok(object)
    }
}

/// The names of the endpoints, as the core gives them (for errors raised in JavaScript).
#[napi(object)]
pub struct EndpointNames {
    pub create_server_tasks: String,
    pub service_tasks: String,
    pub agents: String,
    pub service_report: String,
    pub site_report: String,
    pub response_time_distribution: String,
}

/// The names of the endpoints (`GET /v2/agent/lists.json`...), from the core.
#[napi(catch_unwind)]
pub fn endpoint_names() -> EndpointNames {
    EndpointNames {
        create_server_tasks: Endpoint::CreateServerTasks.to_string(),
        service_tasks: Endpoint::ServiceTasks.to_string(),
        agents: Endpoint::Agents.to_string(),
        service_report: Endpoint::ServiceReport.to_string(),
        site_report: Endpoint::SiteReport.to_string(),
        response_time_distribution: Endpoint::ResponseTimeDistribution.to_string(),
    }
}

pub(crate) fn range(start: Option<String>, end: Option<String>) -> napi::Result<DateRange> {
    DateRange::parse(start.as_deref(), end.as_deref()).map_err(from_core)
}

/// The task and the days of a report, checked by the core.
pub(crate) fn task_and_range(
    task_id: &Either<f64, String>,
    start: Option<String>,
    end: Option<String>,
) -> napi::Result<(u64, DateRange)> {
    Ok((
        input::task_id(id(task_id)).map_err(from_core)?,
        range(start, end)?,
    ))
}

fn token_json(token: &Token) -> napi::Result<String> {
    serde_json::to_string(token).map_err(|e| invalid_input("token", &format!("cannot be serialized: {e}")))
}

#[napi]
impl NativeClient {
    /// Builds the client (no request is made). `on_token` receives every new token as JSON;
    /// `on_log` every event of the client's calls at its `log_level` or above.
    #[napi(catch_unwind, constructor)]
    pub fn new(
        options: NativeClientOptions,
        on_token: Option<Function<String, ()>>,
        on_log: Option<Function<LogRecord, ()>>,
    ) -> napi::Result<Self> {
        guard(|| {
            let level = monapi::LogLevel::resolve(options.log_level.as_deref()).map_err(from_core)?;
            let dispatch = logging::dispatch(level, on_log)?;
            let listener: Arc<Mutex<Option<TokenListener>>> = Arc::default();
            if let Some(callback) = &on_token {
                let tsfn = callback
                    .build_threadsafe_function::<String>()
                    .callee_handled::<false>()
                    .weak::<true>()
                    .build()?;
                *listener.lock().unwrap_or_else(|e| e.into_inner()) = Some(tsfn);
            }
            let client = build(options, on_token.is_some().then(|| listener.clone()))?;
            Ok(NativeClient {
                base_url: client.base_url().to_string(),
                client_id: client.client_id().to_string(),
                username: client.username().map(String::from),
                client: RwLock::new(Some(Arc::new(client))),
                listener,
                dispatch,
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

    /// A call of this client with `call`'s timeout and abort switch, under its logging.
    pub(crate) fn context(&self, call: Option<&NativeCall>) -> napi::Result<Context> {
        Context::new(&*self.client()?, call, self.dispatch.clone())
    }

    /// The time zone of the tables' timestamps and of "today", e.g. `+08:00`.
    #[napi(catch_unwind, getter)]
    pub fn timezone(&self) -> napi::Result<String> {
        guard(|| Ok(self.client()?.timezone().to_string()))
    }

    /// The service's base URL.
    #[napi(catch_unwind, getter)]
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The client id (not secret).
    #[napi(catch_unwind, getter)]
    pub fn client_id(&self) -> String {
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
    pub fn login<'e>(&self, env: &'e Env, call: Option<&NativeCall>) -> napi::Result<PromiseRaw<'e, String>> {
        self.context(call)?.spawn(env, |client| async move {
            token_json(&client.login().await.map_err(from_core)?)
        })
    }

    /// Refresh grant now; resolves with the token as JSON.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn refresh<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, String>> {
        self.context(call)?.spawn(env, |client| async move {
            token_json(&client.refresh().await.map_err(from_core)?)
        })
    }

    /// Creates server tasks from their JSON array.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn create_server_tasks<'e>(
        &self,
        env: &'e Env,
        tasks_json: String,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        self.context(call)?.spawn(env, |client| async move {
            let value: serde_json::Value = serde_json::from_str(&tasks_json)
                .map_err(|_| invalid_input("tasks", "must be an array of task objects"))?;
            let tasks = ServerTask::batch_from_json(value).map_err(from_core)?;
            execute(client, Request::CreateServerTasks(tasks)).await
        })
    }

    /// One page of the service task list (`page` as given; the core checks it).
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn service_tasks<'e>(
        &self,
        env: &'e Env,
        page: f64,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let context = self.context(call)?;
        let page = input::page(page).map_err(from_core)?;
        context.spawn(env, |client| execute(client, Request::ServiceTasks { page }))
    }

    /// Page `page` of the service task list for the iterator: its JSON list (an empty page is
    /// `[]`) and the page after it, or `null` after the last.
    #[napi(
        catch_unwind,
        ts_return_type = "Promise<{ body: string; next: number | null }>"
    )]
    pub fn service_task_page<'e>(
        &self,
        env: &'e Env,
        page: u32,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, PageText>> {
        self.context(call)?.spawn(env, |client| async move {
            let page: TaskPage = client.service_task_page(page).await.map_err(from_core)?;
            let next = page.next();
            Ok(PageText {
                body: JsonText::new(page.into_response())?,
                next,
            })
        })
    }

    /// Any operation by method and path (`request()`); the answer is checked to be JSON here,
    /// so that a decode error names the call.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn request<'e>(
        &self,
        env: &'e Env,
        method: String,
        path: String,
        query: Vec<Vec<String>>,
        form: Vec<Vec<String>>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let context = self.context(call)?;
        let pairs = |list: Vec<Vec<String>>| -> Vec<(String, String)> {
            list.into_iter()
                .map(|pair| {
                    let mut pair = pair.into_iter();
                    (pair.next().unwrap_or_default(), pair.next().unwrap_or_default())
                })
                .collect()
        };
        let request = Request::Raw {
            method: Method::parse(&method).map_err(from_core)?,
            path,
            query: pairs(query),
            form: pairs(form),
        };
        context.spawn(env, |client| async move {
            let raw = client.execute(&request).await.map_err(from_core)?;
            if let Err(error) = serde_json::from_slice::<serde::de::IgnoredAny>(raw.body()) {
                return Err(from_core(raw.decode_error(error)));
            }
            JsonText::new(raw)
        })
    }

    /// The agent list.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn agents<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        self.context(call)?
            .spawn(env, |client| execute(client, Request::Agents))
    }

    /// The report of a service task; dates are `YYYY-MM-DD`.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn service_report<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let context = self.context(call)?;
        let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
        let request = Request::ServiceReport { task_id, range };
        context.spawn(env, |client| execute(client, request))
    }

    /// The report of a site task; `monitor` unset = all points, `"0"` = the average.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn site_report<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        monitor: Option<Either<f64, String>>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let context = self.context(call)?;
        let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
        let monitor = input::monitor(monitor.as_ref().map(id)).map_err(from_core)?;
        let request = Request::SiteReport {
            task_id,
            range,
            monitor,
        };
        context.spawn(env, |client| execute(client, request))
    }

    /// The response-time distribution of a site task.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn response_time_distribution<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, JsonText>> {
        let context = self.context(call)?;
        let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
        let request = Request::ResponseTimeDistribution { task_id, range };
        context.spawn(env, |client| execute(client, request))
    }

    /// Releases the client: later calls fail, `onToken` is not called again. Calls in flight
    /// finish.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.client.write().unwrap_or_else(|e| e.into_inner()).take();
        self.listener.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

async fn execute(client: Client, request: Request) -> napi::Result<JsonText> {
    JsonText::new(client.execute(&request).await.map_err(from_core)?)
}

fn build(
    options: NativeClientOptions,
    listener: Option<Arc<Mutex<Option<TokenListener>>>>,
) -> napi::Result<Client> {
    // The core's declaration reads, bounds and names every setting (JavaScript's names and
    // units: milliseconds for `timeoutMs`).
    let text = |value: Option<String>| value.map(Value::Text);
    let number = |value: Option<f64>| value.map(Value::Number);
    let values = [
        ("baseUrl", text(options.base_url)),
        ("clientId", text(options.client_id)),
        ("clientSecret", text(options.client_secret)),
        ("username", text(options.username)),
        ("password", text(options.password)),
        ("passwordMd5", text(options.password_md5)),
        ("timeoutMs", number(options.timeout_ms)),
        ("connectTimeoutMs", number(options.connect_timeout_ms)),
        ("maxRetries", number(options.max_retries)),
        ("userAgent", text(options.user_agent)),
        (
            "caBundle",
            text(options.ca_bundle_path).or(options.ca_bundle_pem.map(|pem| Value::Bytes(pem.to_vec()))),
        ),
        (
            "proxy",
            text(options.proxy).or((options.no_proxy == Some(true)).then_some(Value::Bool(false))),
        ),
        ("maxConnections", number(options.max_connections)),
        ("timezone", text(options.timezone)),
    ];
    let values = values
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)));
    let given = Options::from_values(Language::Node, values).map_err(from_core)?;
    let mut builder = ClientBuilder::from_env().options(given);
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
