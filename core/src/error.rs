//! The one error type of the SDK.
//!
//! Every failure is an [`Error`] whose [`kind`](Error::kind) is stable and can be matched on.
//! No variant ever holds a secret: texts that come from the service or from the HTTP stack are
//! passed through the client's redactor before they are stored, and URLs are never kept (they
//! carry `access_token`).

use std::fmt;
use std::time::Duration;

/// The operation an error comes from, named as the service's path template (never the real
/// URL, which carries the access token).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Endpoint {
    /// `POST /v2/oauth/token.json`
    Token,
    /// `POST /v2/server/create.json`
    CreateServerTasks,
    /// `GET /v2/service/lists.json`
    ServiceTasks,
    /// `GET /v2/agent/lists.json`
    Agents,
    /// `GET /v2/service/report/{task_id}.json`
    ServiceReport,
    /// `GET /v2/site/report/{task_id}.json`
    SiteReport,
    /// `GET /v2/site/respose_time_distribute/{task_id}.json` (the service's spelling)
    ResponseTimeDistribution,
    /// `GET /v2/site/lists.json`
    SiteTasks,
    /// `GET /v2/site/info/{task_id}.json`
    SiteTask,
    /// `GET /v2/site/monitors.json`
    Monitors,
    /// `GET /v2/user/lists.json`
    Users,
    /// `GET /v2/user/organization.json`
    UserGroups,
    /// `POST /v2/service/create.json`
    CreateServiceTasks,
    /// An operation called with [`Request::Raw`](crate::Request::Raw): its method and path as
    /// given, e.g. `GET /v2/site/lists.json` (the query is never shown).
    Raw(std::sync::Arc<str>),
}

impl Endpoint {
    /// Every endpoint of the service that has a method of its own (all but [`Endpoint::Raw`]).
    pub const ALL: &'static [Endpoint] = &[
        Endpoint::Token,
        Endpoint::CreateServerTasks,
        Endpoint::ServiceTasks,
        Endpoint::Agents,
        Endpoint::ServiceReport,
        Endpoint::SiteReport,
        Endpoint::ResponseTimeDistribution,
        Endpoint::SiteTasks,
        Endpoint::SiteTask,
        Endpoint::Monitors,
        Endpoint::Users,
        Endpoint::UserGroups,
        Endpoint::CreateServiceTasks,
    ];

    /// The operation's name, as the methods are named (`service_report`); `request` for a
    /// [`Endpoint::Raw`].
    ///
    /// ```
    /// let names: Vec<_> = monapi::Endpoint::ALL.iter().map(|e| e.name()).collect();
    /// assert!(names.contains(&"response_time_distribution"));
    /// ```
    pub fn name(&self) -> &'static str {
        match self {
            Endpoint::Token => "token",
            Endpoint::CreateServerTasks => "create_server_tasks",
            Endpoint::ServiceTasks => "service_tasks",
            Endpoint::Agents => "agents",
            Endpoint::ServiceReport => "service_report",
            Endpoint::SiteReport => "site_report",
            Endpoint::ResponseTimeDistribution => "response_time_distribution",
            Endpoint::SiteTasks => "site_tasks",
            Endpoint::SiteTask => "site_task",
            Endpoint::Monitors => "monitors",
            Endpoint::Users => "users",
            Endpoint::UserGroups => "user_groups",
            Endpoint::CreateServiceTasks => "create_service_tasks",
            Endpoint::Raw(_) => "request",
        }
    }

    /// Method and path template, e.g. `GET /v2/service/report/{task_id}.json`.
    ///
    /// ```
    /// assert_eq!(monapi::Endpoint::Agents.as_str(), "GET /v2/agent/lists.json");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            Endpoint::Token => "POST /v2/oauth/token.json",
            Endpoint::CreateServerTasks => "POST /v2/server/create.json",
            Endpoint::ServiceTasks => "GET /v2/service/lists.json",
            Endpoint::Agents => "GET /v2/agent/lists.json",
            Endpoint::ServiceReport => "GET /v2/service/report/{task_id}.json",
            Endpoint::SiteReport => "GET /v2/site/report/{task_id}.json",
            Endpoint::ResponseTimeDistribution => "GET /v2/site/respose_time_distribute/{task_id}.json",
            Endpoint::SiteTasks => "GET /v2/site/lists.json",
            Endpoint::SiteTask => "GET /v2/site/info/{task_id}.json",
            Endpoint::Monitors => "GET /v2/site/monitors.json",
            Endpoint::Users => "GET /v2/user/lists.json",
            Endpoint::UserGroups => "GET /v2/user/organization.json",
            Endpoint::CreateServiceTasks => "POST /v2/service/create.json",
            Endpoint::Raw(name) => name,
        }
    }

    /// Whether a repeat of this call can do no harm (reads, that is GETs), so it may be retried.
    pub fn is_idempotent(&self) -> bool {
        self.as_str().starts_with("GET ")
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stable category of an [`Error`]; bindings map it to their error classes and codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The token endpoint refused the credentials or the refresh token, or the service kept
    /// rejecting a fresh access token.
    Auth,
    /// The service answered with an error (HTTP status and/or an error body).
    Api,
    /// Some lines of a create batch failed; all the others were created.
    PartialCreate,
    /// The caller's input breaks a rule; nothing was sent.
    InvalidInput,
    /// No complete answer within the configured timeout.
    Timeout,
    /// The connection could not be made or broke before the answer was complete.
    Connection,
    /// The answer arrived but is not the JSON the operation returns.
    Decode,
    /// The caller cancelled the call before it finished; nothing of it runs on.
    Aborted,
    /// Some tasks of a bulk call failed; the others' results are whole.
    PartialResult,
    /// A local store's directory or file could not be read or written.
    Store,
}

impl ErrorKind {
    /// A short lowercase name: `auth`, `api`, `partial_create`, `invalid_input`, `timeout`,
    /// `connection`, `decode`, `aborted`, `partial_result`, `store`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Auth => "auth",
            ErrorKind::Api => "api",
            ErrorKind::PartialCreate => "partial_create",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connection => "connection",
            ErrorKind::Decode => "decode",
            ErrorKind::Aborted => "aborted",
            ErrorKind::PartialResult => "partial_result",
            ErrorKind::Store => "store",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A create batch in which some lines failed (HTTP 400 with `err_key`/`err_content`).
///
/// The service created every other line of the batch, but does not return their ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialCreate {
    /// The create that partly failed ([`Endpoint::CreateServerTasks`] or
    /// [`Endpoint::CreateServiceTasks`]).
    pub endpoint: Endpoint,
    /// The service's `err_key`, as sent: it names the failed line(s).
    pub err_key: String,
    /// The failed lines as indexes into the caller's list, where `err_key` parses as such
    /// (a number, or numbers separated by commas). Empty when it does not.
    pub failed_indices: Vec<usize>,
    /// The service's `err_content`: why the line failed.
    pub err_content: String,
    /// How many tasks the batch held.
    pub submitted: usize,
}

impl PartialCreate {
    /// How many tasks of the batch were created (the batch less the failed lines).
    pub fn created(&self) -> usize {
        let failed = self.failed_indices.len().max(1);
        self.submitted.saturating_sub(failed)
    }
}

/// One broken rule of the caller's input: where (the task's index in a create batch, if any),
/// which field, and the rule.
///
/// Fields are named as in Rust and on the wire (snake_case, e.g. `password_md5`,
/// `alert_setting.scope`); a binding may show option names in its own casing (see
/// [`Error::message_with_names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Index of the task in the caller's list, for create batches.
    pub index: Option<usize>,
    /// The field (or parameter) at fault.
    pub field: String,
    /// The rule it breaks.
    pub rule: String,
}

impl Problem {
    /// `Ok` when `problems` is empty, else the [`Error::InvalidInput`] listing every one.
    pub(crate) fn into_result(problems: Vec<Problem>) -> std::result::Result<(), Error> {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidInput { problems })
        }
    }

    /// A problem of `field` (in task `index`, if any) breaking `rule`.
    pub fn new(index: Option<usize>, field: impl Into<String>, rule: impl Into<String>) -> Problem {
        Problem {
            index,
            field: field.into(),
            rule: rule.into(),
        }
    }

    /// `task 2: `frequency` must be ...`, with the field shown through `names` when the
    /// problem is not about a task.
    fn render(&self, names: &dyn Fn(&str) -> Option<&'static str>) -> String {
        let mut out = self.index.map(|i| format!("task {i}: ")).unwrap_or_default();
        if self.field.is_empty() {
            out.push_str(&self.rule);
        } else {
            let field = match self.index {
                None => names(&self.field).unwrap_or(&self.field),
                Some(_) => &self.field,
            };
            out.push_str(&format!("`{field}` {}", self.rule));
        }
        out
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&|_| None))
    }
}

/// How many problems after the first an error message lists (all are in
/// [`Error::problems`]).
const LISTED_PROBLEMS: usize = 9;

/// Every error the SDK returns.
///
/// Match on [`Error::kind`] (or [`Error::code`], the same category as a stable string) and read
/// the fields with the accessors ([`endpoint`](Error::endpoint), [`status`](Error::status),
/// [`field`](Error::field), [`problems`](Error::problems)...), or match on the variants.
///
/// ```
/// use monapi::{Error, ErrorKind};
/// let err = Error::invalid_input(Some(2), "frequency", "must be an integer from 1 to 1440");
/// assert_eq!(err.kind(), ErrorKind::InvalidInput);
/// assert_eq!(err.code(), "INVALID_INPUT");
/// assert_eq!((err.index(), err.field()), (Some(2), Some("frequency")));
/// assert_eq!(
///     err.to_string(),
///     "invalid input: task 2: `frequency` must be an integer from 1 to 1440"
/// );
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The token endpoint refused the request (OAuth `error` code and description), or a fresh
    /// access token was rejected again.
    #[error("authentication failed: {error}: {description}")]
    Auth {
        /// Which operation: the token endpoint, or the call whose fresh token was rejected.
        endpoint: Endpoint,
        /// OAuth error code, e.g. `invalid_client`, `invalid_grant`, `invalid_token`.
        error: String,
        /// The service's description.
        description: String,
        /// HTTP status of the answer, when there was one.
        status: Option<u16>,
    },
    /// The service answered with an error.
    #[error("{endpoint}: {}", api_message(*.status, .code, .error, .message))]
    Api {
        /// Which operation.
        endpoint: Endpoint,
        /// HTTP status.
        status: u16,
        /// The service's numeric `code` (`{"code": 404, "msg": ...}` bodies).
        code: Option<i64>,
        /// An OAuth-style `error` code (`{"error": "invalid_token", ...}` bodies).
        error: Option<String>,
        /// The service's `msg` or `error_description`, or a short snippet of the body.
        message: String,
        /// How long the service asked us to wait (`Retry-After`), if it did.
        retry_after: Option<Duration>,
    },
    /// Some lines of a create batch failed; every other line was created.
    #[error("{0}")]
    PartialCreate(PartialCreate),
    /// The caller's input breaks one rule or more; nothing was sent.
    #[error("{}", invalid_input_message(.problems, &|_| None))]
    InvalidInput {
        /// Every problem found, in the order of the checks (never empty): for a create batch,
        /// task by task, each task's fields in the order the service checks them.
        problems: Vec<Problem>,
    },
    /// No complete answer within the configured timeout.
    #[error("{endpoint}: timed out{}", after.map(|d| format!(" after {:.1} s", d.as_secs_f64())).unwrap_or_default())]
    Timeout {
        /// Which operation.
        endpoint: Endpoint,
        /// The timeout that ran out, when known.
        after: Option<Duration>,
    },
    /// The connection could not be made or broke before the answer was complete.
    #[error("{endpoint}: connection failed: {message}")]
    Connection {
        /// Which operation.
        endpoint: Endpoint,
        /// What went wrong (URL-free).
        message: String,
    },
    /// The answer is not the JSON the operation returns.
    #[error("{endpoint}: could not decode the answer: {message}{}", body_starts(.snippet))]
    Decode {
        /// Which operation.
        endpoint: Endpoint,
        /// What did not fit.
        message: String,
        /// The first characters of the body, with secrets removed; empty when there are none
        /// to show: an empty body, or one that could not be read (a compressed answer that does
        /// not decompress).
        snippet: String,
    },
    /// The caller cancelled the call (an abort signal, a dropped future) before it finished.
    #[error("the call was aborted")]
    Aborted,
    /// Some tasks of a bulk call of the tables failed; the results of the others are whole and
    /// go with this error in the bindings (Rust callers get both in `BulkTables`).
    #[error(
        "{failed} of {total} tasks failed (the first, task {first_task}: {first_error}); the results of the others are complete"
    )]
    PartialResult {
        /// Tasks that failed.
        failed: usize,
        /// Tasks in the call.
        total: usize,
        /// The first task that failed.
        first_task: u64,
        /// Its error's message.
        first_error: String,
    },
    /// A local store (see [`store::Store`](crate::store::Store)) could not be read or written:
    /// its directory is not writable, the disk is full, its description is not one.
    #[error("the store's {path} {message}")]
    Store {
        /// The file or directory.
        path: String,
        /// What failed, and why.
        message: String,
    },
}

fn api_message(status: u16, code: &Option<i64>, error: &Option<String>, message: &str) -> String {
    let mut out = format!("the service answered HTTP {status}");
    if let Some(code) = code {
        out.push_str(&format!(" with code {code}"));
    }
    if let Some(error) = error {
        out.push_str(&format!(" with error {error}"));
    }
    if !message.is_empty() {
        out.push_str(": ");
        out.push_str(message);
    }
    out
}

/// The first problem, then the others (up to [`LISTED_PROBLEMS`]).
fn invalid_input_message(problems: &[Problem], names: &dyn Fn(&str) -> Option<&'static str>) -> String {
    let mut out = String::from("invalid input: ");
    let Some((first, rest)) = problems.split_first() else {
        out.push_str("(no problem named)");
        return out;
    };
    out.push_str(&first.render(names));
    if !rest.is_empty() {
        let more = if rest.len() == 1 { "problem" } else { "problems" };
        out.push_str(&format!("; {} more {more}: ", rest.len()));
        let listed: Vec<String> = rest
            .iter()
            .take(LISTED_PROBLEMS)
            .map(|p| p.render(names))
            .collect();
        out.push_str(&listed.join("; "));
        if rest.len() > LISTED_PROBLEMS {
            out.push_str(&format!("; and {} more", rest.len() - LISTED_PROBLEMS));
        }
    }
    out
}

impl fmt::Display for PartialCreate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = if self.failed_indices.is_empty() {
            format!("line {:?}", self.err_key)
        } else {
            let list: Vec<String> = self.failed_indices.iter().map(|i| i.to_string()).collect();
            format!("task {}", list.join(", "))
        };
        let what = match self.endpoint {
            Endpoint::CreateServiceTasks => "service",
            _ => "server",
        };
        write!(
            f,
            "create {what} tasks: {lines} failed: {}; the other {} of {} tasks were created \
             (the service does not return their ids), so resend only the failed ones",
            self.err_content,
            self.created(),
            self.submitted
        )
    }
}

/// One stable error code, declared once: when it happens, whether monapi tries the call
/// again, what to do, and the Python package's class of it. The docs' reference of the error
/// codes is generated from [`ERRORS`]; the Node package's `MonapiError` carries the code
/// itself.
///
/// ```
/// let timeout = monapi::ERRORS.iter().find(|e| e.code == "TIMEOUT").unwrap();
/// assert_eq!((timeout.kind, timeout.python), (monapi::ErrorKind::Timeout, "TimeoutError"));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct ErrorCode {
    /// The code, as [`Error::code`] gives it.
    pub code: &'static str,
    /// Its category, and so its [`Error`] variant (of the same name).
    pub kind: ErrorKind,
    /// When it happens.
    pub when: &'static str,
    /// Whether monapi tries the call again before it returns this error (up to the client's
    /// `max_retries` times), and when.
    pub retried: &'static str,
    /// What a caller should do about it.
    pub action: &'static str,
    /// The Python package's exception class of it (in `monapi` and `monapi.errors`).
    pub python: &'static str,
}

/// Every stable code of [`Error::code`], in the order of the docs: one per [`ErrorKind`], and
/// two more for the usual authentication failures. Settings are named as in Rust and Python
/// (`client_id`; see [`settings::SETTINGS`](crate::settings::SETTINGS) for the other
/// languages' names).
pub const ERRORS: &[ErrorCode] = &[
    ErrorCode {
        code: "AUTH_INVALID_CLIENT",
        kind: ErrorKind::Auth,
        when: "The token endpoint refused the API client (OAuth `invalid_client`): the client id \
               or the client secret is wrong.",
        retried: "Never: the same client would be refused again.",
        action: "Check `client_id` and `client_secret` (or `MONAPI_CLIENT_ID` and \
                 `MONAPI_CLIENT_SECRET`) against the API client registered with the service.",
        python: "InvalidClientError",
    },
    ErrorCode {
        code: "AUTH_INVALID_GRANT",
        kind: ErrorKind::Auth,
        when: "The token endpoint refused the account (OAuth `invalid_grant`): the username or \
               the password is wrong; or the refresh token expired or was refused and the client \
               has no password to log in again with.",
        retried: "Never: the same account would be refused again. (A refused refresh token is \
                  not this error when the client has the password: it logs in again instead.)",
        action: "Check `username` and `password` (or `password_md5`; `MONAPI_USERNAME`, \
                 `MONAPI_PASSWORD`). A client resumed from a saved token needs them too once its \
                 refresh token expires.",
        python: "InvalidGrantError",
    },
    ErrorCode {
        code: "AUTH_ERROR",
        kind: ErrorKind::Auth,
        when: "Another authentication failure: the token endpoint answered another OAuth error, \
               or the service rejected the access token of a call again right after the client \
               renewed it.",
        retried: "A call whose access token is rejected is repeated once, with a renewed token; \
                  this error means the renewed token was rejected too. Other authentication \
                  failures are never retried.",
        action: "Read the OAuth error and the service's description in the message. When a \
                 freshly issued token is rejected, check that the account and the API client may \
                 use the operation the error names.",
        python: "AuthError",
    },
    ErrorCode {
        code: "API_ERROR",
        kind: ErrorKind::Api,
        when: "The service answered with an error: an HTTP status outside 2xx, a body with an \
               error `code` and `msg` (an unknown task is code 404), or an OAuth error from an \
               operation.",
        retried: "Reads (every GET, and logging in) after HTTP 429, 500, 502, 503 and 504, up to \
                  `max_retries` times with backoff, waiting as the service's `Retry-After` asks; \
                  a refresh of the token only after 429 and 503. A create or another POST is \
                  never sent again once it may have reached the service.",
        action: "Read the HTTP status and the service's code and message. 429 and 5xx: the \
                 service is busy or failing, so try again later (or raise `max_retries`). 404: \
                 the task id is not one of the account's. Another 4xx: the service refused the \
                 request as sent; check its arguments.",
        python: "ApiError",
    },
    ErrorCode {
        code: "PARTIAL_CREATE",
        kind: ErrorKind::PartialCreate,
        when: "Some lines of a create batch failed (the service's `err_key` and `err_content`); \
               the service created every other line of it, without returning their ids.",
        retried: "Never: the rest of the batch was created.",
        action: "Correct the failed tasks (the error names their indexes in your list, and why) \
                 and send only those again: sending the whole batch again would create the \
                 others twice.",
        python: "PartialCreateError",
    },
    ErrorCode {
        code: "INVALID_INPUT",
        kind: ErrorKind::InvalidInput,
        when: "An argument or a setting breaks a rule (a date, a task id, a page, a field of a \
               task to create, the bounds of a setting); nothing was sent. The error names every \
               problem: the field, the task's index in a batch, and the rule.",
        retried: "Never: nothing was sent.",
        action: "Fix what the error names; the same call fails the same way.",
        python: "ValidationError",
    },
    ErrorCode {
        code: "TIMEOUT",
        kind: ErrorKind::Timeout,
        when: "No complete answer within the client's `timeout` (or the call's own), the wait \
               for a free connection included; or no connection within `connect_timeout`.",
        retried: "A connection not made within `connect_timeout` is tried again (the request \
                  never left), up to `max_retries` times; an answer that did not arrive within \
                  `timeout` is not waited for again.",
        action: "Raise `timeout` (or give the call its own) for long reports, or ask for fewer \
                 days at once. Calls beyond `max_connections` wait for a free connection within \
                 their timeout: run fewer at once, or raise it.",
        python: "TimeoutError",
    },
    ErrorCode {
        code: "CONNECTION",
        kind: ErrorKind::Connection,
        when: "The connection could not be made (refused, a name that does not resolve, a \
               failing proxy) or broke before the whole answer arrived; or the service's \
               certificate is not trusted.",
        retried: "Reads (every GET, and logging in) after a connection that failed or broke, up \
                  to `max_retries` times with backoff; a create or another POST only when it \
                  never left this machine. An untrusted certificate is never retried.",
        action: "Check `base_url`, the network and the proxy (`proxy`, `HTTPS_PROXY`). For an \
                 untrusted certificate (a company's CA, a TLS-inspecting proxy), give its CA with \
                 `ca_bundle` or `SSL_CERT_FILE`.",
        python: "ConnectionError",
    },
    ErrorCode {
        code: "DECODE",
        kind: ErrorKind::Decode,
        when: "The answer arrived but is not what the operation returns: not JSON (a server's \
               error page), JSON of another shape, a compressed body that does not decompress, \
               or an answer larger than `max_response_bytes`.",
        retried: "Reads (every GET, and logging in) after a 2xx error page instead of JSON or a \
                  compressed body that is corrupt or cut short, up to `max_retries` times; other \
                  answers would be the same again.",
        action: "The message says what did not fit and shows the start of the body (secrets \
                 removed). An answer over `max_response_bytes`: raise it. Otherwise the service \
                 answered something unexpected: report it, with that start.",
        python: "DecodeError",
    },
    ErrorCode {
        code: "ABORTED",
        kind: ErrorKind::Aborted,
        when: "The call was cancelled before it finished: in Node by its `signal`; in Rust when \
               the runtime shut down under it. Nothing of it runs on. In Python, a cancelled \
               awaited call raises asyncio's `CancelledError`, and Ctrl-C in a blocking call \
               `KeyboardInterrupt`, instead.",
        retried: "Never.",
        action: "Nothing, when you cancelled it; otherwise find what did (an aborted signal, a \
                 runtime shutting down).",
        python: "MonapiError",
    },
    ErrorCode {
        code: "PARTIAL_RESULT",
        kind: ErrorKind::PartialResult,
        when: "Some tasks of a bulk table call (service or site reports of many tasks), or some \
               task-days of a sync, failed; the others succeeded and their results are whole. \
               (Rust's bulk calls return both in `BulkTables`.)",
        retried: "Not as a whole: each task's calls were retried by their own rules before the \
                  task counted as failed.",
        action: "Use the results the error carries, and call again for the failed tasks it \
                 lists (each with its own error); or ask the bulk call to collect the failures \
                 instead of failing. A sync fetches the failed task-days again the next time.",
        python: "PartialResultError",
    },
    ErrorCode {
        code: "STORE",
        kind: ErrorKind::Store,
        when: "The local store (`store`, `monapi sync DIR`) could not be read or written: its \
               directory cannot be made or written, the disk is full, or its `store.json` is not \
               a store's. (A corrupt file of the store is not an error: it is set aside and its \
               day fetched again.)",
        retried: "Never.",
        action: "Check the file or directory the error names: its permissions, the free space, \
                 that it is the store's. A store on disk needs a file system with hard links \
                 (not FAT or exFAT, nor some network shares); elsewhere, keep it in a bucket.",
        python: "StoreError",
    },
];

/// The stable codes of [`Error::code`], as the Python and Node packages expose them: the
/// codes of [`ERRORS`], in its order.
pub const ERROR_CODES: [&str; ERRORS.len()] = {
    let mut codes = [""; ERRORS.len()];
    let mut i = 0;
    while i < ERRORS.len() {
        codes[i] = ERRORS[i].code;
        i += 1;
    }
    codes
};

impl Error {
    /// The stable category of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Auth { .. } => ErrorKind::Auth,
            Error::Api { .. } => ErrorKind::Api,
            Error::PartialCreate(_) => ErrorKind::PartialCreate,
            Error::InvalidInput { .. } => ErrorKind::InvalidInput,
            Error::Timeout { .. } => ErrorKind::Timeout,
            Error::Connection { .. } => ErrorKind::Connection,
            Error::Decode { .. } => ErrorKind::Decode,
            Error::Aborted => ErrorKind::Aborted,
            Error::PartialResult { .. } => ErrorKind::PartialResult,
            Error::Store { .. } => ErrorKind::Store,
        }
    }

    /// The stable code of this error (one of [`ERRORS`]): `AUTH_INVALID_CLIENT` (the
    /// service refused the client id or secret), `AUTH_INVALID_GRANT` (it refused the account
    /// or the refresh token), `AUTH_ERROR` (another authentication failure), `API_ERROR`,
    /// `PARTIAL_CREATE`, `INVALID_INPUT`, `TIMEOUT`, `CONNECTION`, `DECODE`, `ABORTED` (the
    /// caller cancelled the call), `PARTIAL_RESULT` (some tasks of a bulk call failed) or
    /// `STORE` (a local store could not be read or written).
    ///
    /// ```
    /// let err = monapi::Error::invalid_input(None, "page", "must be 1 or more");
    /// assert_eq!(err.code(), "INVALID_INPUT");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Error::Auth { error, .. } => match error.as_str() {
                "invalid_client" => "AUTH_INVALID_CLIENT",
                "invalid_grant" => "AUTH_INVALID_GRANT",
                _ => "AUTH_ERROR",
            },
            Error::Api { .. } => "API_ERROR",
            Error::PartialCreate(_) => "PARTIAL_CREATE",
            Error::InvalidInput { .. } => "INVALID_INPUT",
            Error::Timeout { .. } => "TIMEOUT",
            Error::Connection { .. } => "CONNECTION",
            Error::Decode { .. } => "DECODE",
            Error::Aborted => "ABORTED",
            Error::PartialResult { .. } => "PARTIAL_RESULT",
            Error::Store { .. } => "STORE",
        }
    }

    /// An [`Error::InvalidInput`] with one problem: `index` is the task's place in a create
    /// batch, if any.
    pub fn invalid_input(index: Option<usize>, field: impl Into<String>, rule: impl Into<String>) -> Error {
        Error::InvalidInput {
            problems: vec![Problem::new(index, field, rule)],
        }
    }

    /// The message, with the fields of options and parameters (problems not about a task)
    /// shown through `names`: a binding's fixed table of its own spelling of the core's names
    /// (`base_url` as `baseUrl`). Names it does not know, and a task's fields (the service's
    /// own names, which are also the caller's keys), are shown as they are. Other errors have
    /// no field and give their usual message.
    ///
    /// ```
    /// let err = monapi::Error::invalid_input(None, "base_url", "is required");
    /// let js = |name: &str| (name == "base_url").then_some("baseUrl");
    /// assert_eq!(err.message_with_names(&js), "invalid input: `baseUrl` is required");
    /// ```
    pub fn message_with_names(&self, names: &dyn Fn(&str) -> Option<&'static str>) -> String {
        match self {
            Error::InvalidInput { problems } => invalid_input_message(problems, names),
            other => other.to_string(),
        }
    }

    /// The operation, for errors that come from one (not for invalid input).
    pub fn endpoint(&self) -> Option<&Endpoint> {
        match self {
            Error::Auth { endpoint, .. }
            | Error::Api { endpoint, .. }
            | Error::Timeout { endpoint, .. }
            | Error::Connection { endpoint, .. }
            | Error::Decode { endpoint, .. } => Some(endpoint),
            Error::PartialCreate(partial) => Some(&partial.endpoint),
            Error::InvalidInput { .. }
            | Error::Aborted
            | Error::PartialResult { .. }
            | Error::Store { .. } => None,
        }
    }

    /// The HTTP status of the service's answer, where there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } => Some(*status),
            Error::Auth { status, .. } => *status,
            Error::PartialCreate(_) => Some(400),
            _ => None,
        }
    }

    /// The service's numeric `code`, for answers like `{"code": 404, "msg": ...}`.
    pub fn api_code(&self) -> Option<i64> {
        match self {
            Error::Api { code, .. } => *code,
            _ => None,
        }
    }

    /// The OAuth-style `error` code the service sent (`invalid_client`, `invalid_grant`,
    /// `invalid_token`...), for authentication failures and answers that carry one.
    pub fn oauth_error(&self) -> Option<&str> {
        match self {
            Error::Auth { error, .. } => Some(error),
            Error::Api { error, .. } => error.as_deref(),
            _ => None,
        }
    }

    /// The service's own text: `error_description` (authentication), `msg` (or the start of
    /// the body) for other errors it answered, `err_content` for a partial create.
    pub fn service_message(&self) -> Option<&str> {
        match self {
            Error::Auth { description, .. } => Some(description),
            Error::Api { message, .. } => Some(message),
            Error::PartialCreate(partial) => Some(&partial.err_content),
            _ => None,
        }
    }

    /// The details of a partial create.
    pub fn partial_create(&self) -> Option<&PartialCreate> {
        match self {
            Error::PartialCreate(partial) => Some(partial),
            _ => None,
        }
    }

    /// The service's `err_key` of a partial create.
    pub fn err_key(&self) -> Option<&str> {
        self.partial_create().map(|p| p.err_key.as_str())
    }

    /// The failed tasks of a partial create, as indexes into the caller's list (empty for
    /// other errors, and when `err_key` names no index).
    pub fn failed_indices(&self) -> &[usize] {
        self.partial_create().map_or(&[], |p| &p.failed_indices)
    }

    /// Every problem of invalid input (empty for other errors), the first one first.
    ///
    /// ```
    /// use monapi::{ServerTask, SystemType};
    /// let mut task = ServerTask::new("", "10.0.0.1", "10.0.0.300", SystemType::Linux);
    /// task.frequency = 0;
    /// let err = task.validate().unwrap_err();
    /// let fields: Vec<&str> = err.problems().iter().map(|p| p.field.as_str()).collect();
    /// assert_eq!(fields, ["server_name", "server_ip", "frequency"]);
    /// ```
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::InvalidInput { problems } => problems,
            _ => &[],
        }
    }

    /// The field of the first problem of invalid input.
    pub fn field(&self) -> Option<&str> {
        self.problems().first().map(|p| p.field.as_str())
    }

    /// The task index of the first problem of invalid input, when it is about a task.
    pub fn index(&self) -> Option<usize> {
        self.problems().first().and_then(|p| p.index)
    }

    /// The rule of the first problem of invalid input.
    pub fn rule(&self) -> Option<&str> {
        self.problems().first().map(|p| p.rule.as_str())
    }

    /// How long the service asked to wait before the next try (`Retry-After`), if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::Api { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The timeout that ran out, for a timeout.
    pub fn timeout(&self) -> Option<Duration> {
        match self {
            Error::Timeout { after, .. } => *after,
            _ => None,
        }
    }

    /// The first characters of a body that could not be decoded (secrets removed).
    pub fn snippet(&self) -> Option<&str> {
        match self {
            Error::Decode { snippet, .. } => Some(snippet),
            _ => None,
        }
    }

    /// Whether this error says the access token was refused (HTTP 401, `invalid_token`,
    /// `expired_token`, or a body with code 401), so a fresh token may fix it.
    pub(crate) fn is_token_rejected(&self) -> bool {
        match self {
            Error::Api {
                status, code, error, ..
            } => {
                *status == 401
                    || *code == Some(401)
                    || matches!(error.as_deref(), Some("invalid_token" | "expired_token"))
            }
            _ => false,
        }
    }

    /// The error for a token the service rejects even right after it was issued.
    pub(crate) fn into_rejected_token(self) -> Error {
        match self {
            Error::Api {
                endpoint,
                status,
                error,
                message,
                ..
            } => Error::Auth {
                endpoint,
                error: error.unwrap_or_else(|| "invalid_token".into()),
                description: format!("the service rejected a freshly issued access token: {message}"),
                status: Some(status),
            },
            other => other,
        }
    }
}

/// " (body starts: …)" after a decode error's message, or nothing when there is no snippet
/// (the message then says why: "the answer is empty", "does not decompress").
fn body_starts(snippet: &str) -> String {
    if snippet.is_empty() {
        String::new()
    } else {
        format!(" (body starts: {snippet:?})")
    }
}

/// Up to 120 characters of a body, on a character boundary, for error messages.
pub(crate) fn snippet(body: &[u8]) -> String {
    const MAX: usize = 120;
    let text = String::from_utf8_lossy(&body[..body.len().min(MAX * 4)]);
    let mut out: String = text.chars().take(MAX).collect();
    if text.chars().count() > MAX || body.len() > MAX * 4 {
        out.push('…');
    }
    out
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_problems_in_one_message() {
        let err = Error::InvalidInput {
            problems: vec![
                Problem::new(Some(0), "task_type", "names cpu"),
                Problem::new(Some(0), "snmp_comm", "is required"),
                Problem::new(None, "", "and a batch rule"),
            ],
        };
        assert_eq!(
            err.to_string(),
            "invalid input: task 0: `task_type` names cpu; 2 more problems: \
             task 0: `snmp_comm` is required; and a batch rule"
        );
        let many = Error::InvalidInput {
            problems: (0..12).map(|i| Problem::new(Some(i), "f", "r")).collect(),
        };
        assert!(many.to_string().ends_with("; and 2 more"), "{many}");
    }

    /// One error of each variant, and of each code of the variants with several.
    fn one_of_each() -> Vec<Error> {
        let auth = |error: &str| Error::Auth {
            endpoint: Endpoint::Token,
            error: error.into(),
            description: "d".into(),
            status: Some(400),
        };
        vec![
            auth("invalid_client"),
            auth("invalid_grant"),
            auth("invalid_scope"),
            Error::Api {
                endpoint: Endpoint::Agents,
                status: 500,
                code: None,
                error: None,
                message: "m".into(),
                retry_after: None,
            },
            Error::PartialCreate(PartialCreate {
                endpoint: Endpoint::CreateServerTasks,
                err_key: "0".into(),
                failed_indices: vec![0],
                err_content: "c".into(),
                submitted: 2,
            }),
            Error::invalid_input(None, "page", "must be 1 or more"),
            Error::Timeout {
                endpoint: Endpoint::Agents,
                after: None,
            },
            Error::Connection {
                endpoint: Endpoint::Agents,
                message: "m".into(),
            },
            Error::Decode {
                endpoint: Endpoint::Agents,
                message: "m".into(),
                snippet: "s".into(),
            },
            Error::Aborted,
            Error::PartialResult {
                failed: 1,
                total: 2,
                first_task: 1,
                first_error: "e".into(),
            },
            Error::Store {
                path: "p".into(),
                message: "m".into(),
            },
        ]
    }

    #[test]
    fn every_code_is_declared_once_with_its_kind_and_variant() {
        let errors = one_of_each();
        let codes: Vec<&str> = errors.iter().map(Error::code).collect();
        assert_eq!(
            codes, ERROR_CODES,
            "one error per declared code, in the declared order"
        );
        for (error, declared) in errors.iter().zip(ERRORS) {
            assert_eq!(error.kind(), declared.kind, "{}", declared.code);
            // The docs name the variant by its kind: the two are spelt alike.
            let variant = format!("{error:?}");
            assert!(variant.starts_with(&format!("{:?}", declared.kind)), "{variant}");
        }
        let mut classes: Vec<&str> = ERRORS.iter().map(|e| e.python).collect();
        classes.sort_unstable();
        classes.dedup();
        assert_eq!(classes.len(), ERRORS.len(), "one Python class per code");
    }

    #[test]
    fn codes_of_auth_errors() {
        let auth = |e: &str| Error::Auth {
            endpoint: Endpoint::Token,
            error: e.into(),
            description: "d".into(),
            status: Some(400),
        };
        assert_eq!(auth("invalid_client").code(), "AUTH_INVALID_CLIENT");
        assert_eq!(auth("invalid_grant").code(), "AUTH_INVALID_GRANT");
        assert_eq!(auth("invalid_token").code(), "AUTH_ERROR");
        assert!(ERROR_CODES.contains(&auth("x").code()));
    }

    #[test]
    fn aborted_and_partial_results_have_listed_codes() {
        assert_eq!(Error::Aborted.code(), "ABORTED");
        let partial = Error::PartialResult {
            failed: 1,
            total: 3,
            first_task: 999,
            first_error: "GET /v2/service/report/{task_id}.json: the service answered HTTP 404".into(),
        };
        assert_eq!(partial.kind(), ErrorKind::PartialResult);
        assert!(ERROR_CODES.contains(&partial.code()) && ERROR_CODES.contains(&Error::Aborted.code()));
        assert!(partial
            .to_string()
            .starts_with("1 of 3 tasks failed (the first, task 999: "));
    }

    #[test]
    fn names_apply_to_options_only() {
        let err = Error::InvalidInput {
            problems: vec![
                Problem::new(None, "start_date", "must be a date"),
                Problem::new(Some(1), "start_date", "a task field of that name"),
            ],
        };
        let names = |n: &str| (n == "start_date").then_some("startDate");
        assert_eq!(
            err.message_with_names(&names),
            "invalid input: `startDate` must be a date; 1 more problem: task 1: `start_date` a task field of that name"
        );
    }
}
