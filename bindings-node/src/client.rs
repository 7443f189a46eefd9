//! `NativeClient`: the core [`monapi::Client`] behind the TypeScript `Client` (`ts/client.ts`).
//!
//! Answers cross into JavaScript as one string each (the body exactly as the service sent
//! it), or in pieces as they arrive for the large reports (`answer.rs`).

use std::future::Future;
use std::sync::{Arc, Mutex, RwLock};

use monapi::input::{self, Id};
use monapi::{
    Client, ClientBuilder, DateRange, Endpoint, Method, NewServiceTask, Request, ServerTask, TaskList,
    TaskPage, Token,
};
use napi::bindgen_prelude::{Either, Function, Object, PromiseRaw, Status, ToNapiValue};
use napi::sys;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Env;
use napi_derive::napi;

use crate::answer::{execute, execute_arriving, piece_sink, JsonText};
use crate::boundary::{guard, spawn};
use crate::call::{Context, NativeCall};
use crate::errors::{invalid_input, Result, Settled};
use crate::logging::{self, LogRecord};
use crate::options::options;

/// The `onToken` listener: called with the token as JSON. Weak, so that it never keeps the
/// process alive.
type TokenListener = ThreadsafeFunction<String, (), String, Status, false, true>;

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

/// The endpoints of the operations (`GET /v2/agent/lists.json`...), from the core, by the
/// JavaScript name of their method (`createServerTasks`): a body that `JSON.parse` refuses is
/// a `DECODE` error naming its endpoint.
#[napi(catch_unwind, ts_return_type = "Record<string, string>")]
pub fn endpoint_names() -> std::collections::HashMap<String, String> {
    Endpoint::ALL
        .iter()
        .map(|endpoint| (camel_case(endpoint.name()), endpoint.to_string()))
        .collect()
}

/// `create_server_tasks` as JavaScript names it, `createServerTasks`.
fn camel_case(name: &str) -> String {
    let mut words = name.split('_');
    let first = words.next().unwrap_or_default().to_string();
    words.fold(first, |mut out, word| {
        let mut chars = word.chars();
        out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        out.push_str(chars.as_str());
        out
    })
}

pub(crate) fn range(start: Option<String>, end: Option<String>) -> Result<DateRange> {
    Ok(DateRange::parse(start.as_deref(), end.as_deref())?)
}

/// The task and the days of a report, checked by the core.
pub(crate) fn task_and_range(
    task_id: &Either<f64, String>,
    start: Option<String>,
    end: Option<String>,
) -> Result<(u64, DateRange)> {
    Ok((input::task_id(id(task_id))?, range(start, end)?))
}

fn token_json(token: &Token) -> Result<String> {
    serde_json::to_string(token).map_err(|e| invalid_input("token", &format!("cannot be serialized: {e}")))
}

#[napi]
impl NativeClient {
    /// Builds the client (no request is made) from `settings` (each read by the core's
    /// declaration), a saved `token` (as JSON) and `log_level`. `on_token` receives every new
    /// token as JSON; `on_log` every event of the client's calls at its `log_level` or above.
    #[napi(catch_unwind, constructor)]
    pub fn new(
        env: Env,
        settings: Object,
        token: Option<String>,
        log_level: Option<String>,
        on_token: Option<Function<String, ()>>,
        on_log: Option<Function<LogRecord, ()>>,
    ) -> napi::Result<Self> {
        guard(&env, || {
            let level = monapi::LogLevel::resolve(log_level.as_deref())?;
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
            let mut builder = ClientBuilder::from_env().options(options(&settings)?);
            if let Some(json) = token {
                builder = builder.token(saved_token(&json)?);
            }
            if on_token.is_some() {
                builder = builder.on_token(notify(listener.clone()));
            }
            let client = builder.build()?;
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

    fn client(&self) -> Result<Arc<Client>> {
        self.client
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| invalid_input("client", "is closed: create a new Client"))
    }

    /// A call of this client with `call`'s timeout and abort switch, under its logging.
    pub(crate) fn context(&self, call: Option<&NativeCall>) -> Result<Context> {
        Context::new(&*self.client()?, call, self.dispatch.clone())
    }

    /// Starts a call: `prepare` checks the arguments and makes the future from the call's
    /// client; a failure of either rejects the Promise (nothing is sent).
    pub(crate) fn start<'e, T, Fut>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
        prepare: impl FnOnce(Client) -> Result<Fut>,
    ) -> napi::Result<PromiseRaw<'e, Settled<T>>>
    where
        T: ToNapiValue + Send + 'static,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        match self.context(call) {
            Ok(context) => context.spawn(env, prepare),
            Err(failure) => spawn(env, async move { Err(failure) }),
        }
    }

    /// The time zone of the tables' timestamps and of "today", e.g. `+08:00`.
    #[napi(catch_unwind, getter)]
    pub fn timezone(&self, env: Env) -> napi::Result<String> {
        guard(&env, || Ok(self.client()?.timezone().to_string()))
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
    pub fn token(&self, env: Env) -> napi::Result<Option<String>> {
        guard(&env, || {
            self.client()?.token().as_ref().map(token_json).transpose()
        })
    }

    /// When the current token expires (unix seconds), for `util.inspect`.
    #[napi(catch_unwind)]
    pub fn token_expires_at(&self) -> Option<f64> {
        let client = self.client.read().unwrap_or_else(|e| e.into_inner()).clone()?;
        client.token().and_then(|t| t.expires_at).map(|t| t as f64)
    }

    /// Password login now; resolves with the token as JSON.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn login<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<String>>> {
        self.start(env, call, |client| {
            Ok(async move { token_json(&client.login().await?) })
        })
    }

    /// Refresh grant now; resolves with the token as JSON.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn refresh<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<String>>> {
        self.start(env, call, |client| {
            Ok(async move { token_json(&client.refresh().await?) })
        })
    }

    /// Creates server tasks from their JSON array.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn create_server_tasks<'e>(
        &self,
        env: &'e Env,
        tasks_json: String,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| {
            let value: serde_json::Value = serde_json::from_str(&tasks_json)
                .map_err(|_| invalid_input("tasks", "must be an array of task objects"))?;
            let tasks = ServerTask::batch_from_json(value)?;
            Ok(execute(client, Request::CreateServerTasks(tasks)))
        })
    }

    /// One page of the service task list (`page` as given; the core checks it).
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn service_tasks<'e>(
        &self,
        env: &'e Env,
        page: f64,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| {
            let page = input::page(page)?;
            Ok(execute(client, Request::ServiceTasks { page }))
        })
    }

    /// Page `page` of a task list (`"service"` or `"site"`) for the iterators: its tasks as a
    /// JSON list (an empty page is `[]`, a keyed page its values) and the page after it, or
    /// `null` after the last.
    #[napi(
        catch_unwind,
        ts_args_type = "list: 'service' | 'site', page: number, call?: NativeCall | undefined | null",
        ts_return_type = "Promise<{ body: string; next: number | null }>"
    )]
    pub fn task_page<'e>(
        &self,
        env: &'e Env,
        list: String,
        page: u32,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<PageText>>> {
        self.start(env, call, |client| {
            let list = match list.as_str() {
                "service" => TaskList::Service,
                "site" => TaskList::Site,
                _ => return Err(invalid_input("list", "must be 'service' or 'site'")),
            };
            Ok(async move {
                let page: TaskPage = client.task_page(list, page).await?;
                let next = page.next();
                Ok(PageText {
                    body: JsonText::new(page.records())?,
                    next,
                })
            })
        })
    }

    /// One page of the site task list, as sent (`page` as given; the core checks it).
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn site_tasks<'e>(
        &self,
        env: &'e Env,
        page: f64,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| {
            let page = input::page(page)?;
            Ok(execute(client, Request::SiteTasks { page }))
        })
    }

    /// One site task's settings.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn site_task<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| {
            let task_id = input::task_id(id(&task_id))?;
            Ok(execute(client, Request::SiteTask { task_id }))
        })
    }

    /// The monitoring points.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn monitors<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| Ok(execute(client, Request::Monitors)))
    }

    /// Every user of the account.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn users<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| Ok(execute(client, Request::Users)))
    }

    /// The user groups.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn user_groups<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| Ok(execute(client, Request::UserGroups)))
    }

    /// Creates service tasks from their JSON array.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn create_service_tasks<'e>(
        &self,
        env: &'e Env,
        tasks_json: String,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| {
            let value: serde_json::Value = serde_json::from_str(&tasks_json)
                .map_err(|_| invalid_input("tasks", "must be an array of task objects"))?;
            let tasks = NewServiceTask::batch_from_json(value)?;
            Ok(execute(client, Request::CreateServiceTasks(tasks)))
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
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        let pairs = |list: Vec<Vec<String>>| -> Vec<(String, String)> {
            list.into_iter()
                .map(|pair| {
                    let mut pair = pair.into_iter();
                    (pair.next().unwrap_or_default(), pair.next().unwrap_or_default())
                })
                .collect()
        };
        self.start(env, call, |client| {
            let request = Request::Raw {
                method: Method::parse(&method)?,
                path,
                query: pairs(query),
                form: pairs(form),
            };
            Ok(async move {
                let raw = client.execute(&request).await?;
                if let Err(error) = serde_json::from_slice::<serde::de::IgnoredAny>(raw.body()) {
                    return Err(raw.decode_error(error).into());
                }
                JsonText::new(raw)
            })
        })
    }

    /// The agent list.
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn agents<'e>(
        &self,
        env: &'e Env,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| Ok(execute(client, Request::Agents)))
    }

    /// The report of a service task; dates are `YYYY-MM-DD`. With `on_piece`, its body is
    /// handed over in pieces as it arrives (`answer::execute_arriving`).
    #[napi(catch_unwind, ts_return_type = "Promise<string | number>")]
    pub fn service_report<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        on_piece: Option<Function<String, ()>>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<Either<JsonText, u32>>>> {
        let sink = piece_sink(on_piece)?;
        self.start(env, call, |client| {
            let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
            Ok(execute_arriving(
                client,
                Request::ServiceReport { task_id, range },
                sink,
            ))
        })
    }

    /// The report of a site task; `monitor` unset = all points, `"0"` = the average. With
    /// `on_piece`, as `service_report`.
    #[napi(catch_unwind, ts_return_type = "Promise<string | number>")]
    #[allow(clippy::too_many_arguments)]
    pub fn site_report<'e>(
        &self,
        env: &'e Env,
        task_id: Either<f64, String>,
        start_date: Option<String>,
        end_date: Option<String>,
        monitor: Option<Either<f64, String>>,
        on_piece: Option<Function<String, ()>>,
        call: Option<&NativeCall>,
    ) -> napi::Result<PromiseRaw<'e, Settled<Either<JsonText, u32>>>> {
        let sink = piece_sink(on_piece)?;
        self.start(env, call, |client| {
            let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
            let monitor = input::monitor(monitor.as_ref().map(id))?;
            let request = Request::SiteReport {
                task_id,
                range,
                monitor,
            };
            Ok(execute_arriving(client, request, sink))
        })
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
    ) -> napi::Result<PromiseRaw<'e, Settled<JsonText>>> {
        self.start(env, call, |client| {
            let (task_id, range) = task_and_range(&task_id, start_date, end_date)?;
            Ok(execute(
                client,
                Request::ResponseTimeDistribution { task_id, range },
            ))
        })
    }

    /// Releases the client: later calls fail, `onToken` is not called again. Calls in flight
    /// finish.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.client.write().unwrap_or_else(|e| e.into_inner()).take();
        self.listener.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// A saved token from its JSON (the TypeScript layer stringifies the caller's object).
fn saved_token(json: &str) -> Result<Token> {
    // Never echo the value: it holds the tokens.
    serde_json::from_str(json).map_err(|_| {
        invalid_input(
            "token",
            "must be a token object as returned by login() or client.token \
             (access_token, expires_in, ...)",
        )
    })
}

/// The core's token callback: hands each new token, as JSON, to the `onToken` listener.
fn notify(listener: Arc<Mutex<Option<TokenListener>>>) -> impl Fn(&Token) + Send + Sync + 'static {
    move |token| {
        let slot = listener.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some(tsfn), Ok(json)) = (slot.as_ref(), serde_json::to_string(token)) {
            tsfn.call(json, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}
