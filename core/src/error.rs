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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}

impl Endpoint {
    /// Method and path template, e.g. `GET /v2/service/report/{task_id}.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::Token => "POST /v2/oauth/token.json",
            Endpoint::CreateServerTasks => "POST /v2/server/create.json",
            Endpoint::ServiceTasks => "GET /v2/service/lists.json",
            Endpoint::Agents => "GET /v2/agent/lists.json",
            Endpoint::ServiceReport => "GET /v2/service/report/{task_id}.json",
            Endpoint::SiteReport => "GET /v2/site/report/{task_id}.json",
            Endpoint::ResponseTimeDistribution => "GET /v2/site/respose_time_distribute/{task_id}.json",
        }
    }

    /// Whether a repeat of this call can do no harm (reads), so it may be retried.
    pub fn is_idempotent(self) -> bool {
        !matches!(self, Endpoint::Token | Endpoint::CreateServerTasks)
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
}

impl ErrorKind {
    /// A short lowercase name: `auth`, `api`, `partial_create`, `invalid_input`, `timeout`,
    /// `connection`, `decode`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Auth => "auth",
            ErrorKind::Api => "api",
            ErrorKind::PartialCreate => "partial_create",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connection => "connection",
            ErrorKind::Decode => "decode",
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

/// Every error the SDK returns.
///
/// Match on [`Error::kind`] for a stable category, or on the variants for their fields.
///
/// ```
/// use monapi::{Error, ErrorKind};
/// let err = Error::invalid_input(Some(2), "frequency", "must be an integer from 1 to 1440");
/// assert_eq!(err.kind(), ErrorKind::InvalidInput);
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
    /// The caller's input breaks a rule; nothing was sent.
    #[error("invalid input: {}{}", index_prefix(*.index), field_rule(.field, .rule))]
    InvalidInput {
        /// Index of the task in the caller's list, for create batches.
        index: Option<usize>,
        /// The field (or parameter) at fault.
        field: String,
        /// The rule it breaks.
        rule: String,
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
    #[error("{endpoint}: could not decode the answer: {message} (body starts: {snippet:?})")]
    Decode {
        /// Which operation.
        endpoint: Endpoint,
        /// What did not fit.
        message: String,
        /// The first characters of the body, with secrets removed.
        snippet: String,
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

fn index_prefix(index: Option<usize>) -> String {
    index.map(|i| format!("task {i}: ")).unwrap_or_default()
}

fn field_rule(field: &str, rule: &str) -> String {
    if field.is_empty() {
        rule.to_string()
    } else {
        format!("`{field}` {rule}")
    }
}

impl fmt::Display for PartialCreate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = if self.failed_indices.is_empty() {
            format!("line {:?}", self.err_key)
        } else {
            let list: Vec<String> = self.failed_indices.iter().map(|i| i.to_string()).collect();
            format!("task {}", list.join(", "))
        };
        write!(
            f,
            "create server tasks: {lines} failed: {}; the other {} of {} tasks were created \
             (the service does not return their ids), so resend only the failed ones",
            self.err_content,
            self.created(),
            self.submitted
        )
    }
}

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
        }
    }

    /// An [`Error::InvalidInput`]: `index` is the task's place in a create batch, if any.
    pub fn invalid_input(index: Option<usize>, field: impl Into<String>, rule: impl Into<String>) -> Error {
        Error::InvalidInput {
            index,
            field: field.into(),
            rule: rule.into(),
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
