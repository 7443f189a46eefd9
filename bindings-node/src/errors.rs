//! Errors crossing into JavaScript.
//!
//! A failure of the native module is a [`Failure`]: the stable `code` and the fields a caller
//! branches on, read from the core's [`monapi::Error`] by its accessors (the core has already
//! removed every secret from the texts it carries). It crosses into JavaScript as an `Error`
//! whose message is the text and whose `code` and fields are properties (`null` where a field
//! does not apply); the TypeScript layer makes it a `MonapiError`. A synchronous call throws
//! it ([`thrown`]); an asynchronous one rejects its Promise with it ([`Settled`]), the object
//! being made on the JavaScript thread.

use std::any::Any;

use monapi::{Error as CoreError, Problem};
use napi::bindgen_prelude::{JsValue, Object, ToNapiValue};
use napi::{sys, Env};
use napi_derive::napi;

/// What a call failed with: the code and the fields of its JavaScript error (boxed: results
/// carry it across threads, and their `Ok` is usually small).
#[derive(Debug, Default)]
pub struct Failure(Box<Fields>);

/// The code, the message and the fields of a [`Failure`].
#[derive(Debug, Default)]
pub struct Fields {
    /// Stable code: the core's (`monapi::Error::code`), or `INTERNAL` for a panic.
    pub code: &'static str,
    /// Human-readable text, free of secrets.
    pub message: String,
    pub status: Option<u16>,
    /// The service's own error code: the number of a `{"code","msg"}` body, or the OAuth
    /// `error` string.
    pub api_code: Option<ApiCode>,
    pub err_key: Option<String>,
    pub err_content: Option<String>,
    pub failed_index: Option<u32>,
    pub failed_indices: Option<Vec<u32>>,
    pub submitted: Option<u32>,
    pub created: Option<u32>,
    pub field: Option<String>,
    pub index: Option<u32>,
    /// Every problem of invalid input, the first one first.
    pub errors: Option<Vec<ProblemPayload>>,
    pub endpoint: Option<String>,
    pub retry_after_ms: Option<f64>,
    pub timeout_ms: Option<f64>,
    /// `STORE`: the file or directory of the local store that could not be read or written.
    pub path: Option<String>,
}

/// The service's own error code: a number or a string.
#[derive(Debug)]
pub enum ApiCode {
    Number(f64),
    Text(String),
}

/// One problem of invalid input (`err.errors[i]`); `index` is `null` for an option or a
/// parameter.
#[napi(object, use_nullable = true)]
#[derive(Debug)]
pub struct ProblemPayload {
    pub index: Option<u32>,
    pub field: String,
    pub rule: String,
}

/// The results of the binding's own functions.
pub type Result<T> = std::result::Result<T, Failure>;

impl From<CoreError> for Failure {
    fn from(error: CoreError) -> Failure {
        failure(&error)
    }
}

impl From<napi::Error> for Failure {
    /// A failure of N-API itself (a value that could not be converted): a bug of ours.
    fn from(error: napi::Error) -> Failure {
        internal(&error.reason)
    }
}

impl std::ops::Deref for Failure {
    type Target = Fields;

    fn deref(&self) -> &Fields {
        &self.0
    }
}

impl From<Fields> for Failure {
    fn from(fields: Fields) -> Failure {
        Failure(Box::new(fields))
    }
}

impl Failure {
    /// The JavaScript `Error`: the message, `code` and every field as properties.
    pub fn into_js(self, env: &Env) -> napi::Result<Object<'_>> {
        let fields = *self.0;
        let mut error = env.create_error(napi::Error::from_reason(fields.message))?;
        error.set("code", fields.code)?;
        error.set("status", fields.status.map(u32::from))?;
        error.set(
            "apiCode",
            fields.api_code.map(|code| match code {
                ApiCode::Number(n) => napi::Either::A(n),
                ApiCode::Text(text) => napi::Either::B(text),
            }),
        )?;
        error.set("errKey", fields.err_key)?;
        error.set("errContent", fields.err_content)?;
        error.set("failedIndex", fields.failed_index)?;
        error.set("failedIndices", fields.failed_indices)?;
        error.set("submitted", fields.submitted)?;
        error.set("created", fields.created)?;
        error.set("field", fields.field)?;
        error.set("index", fields.index)?;
        error.set("errors", fields.errors)?;
        error.set("endpoint", fields.endpoint)?;
        error.set("retryAfterMs", fields.retry_after_ms)?;
        error.set("timeoutMs", fields.timeout_ms)?;
        error.set("path", fields.path)?;
        Ok(error)
    }
}

/// The error a synchronous call throws: the JavaScript `Error` of `failure`, made now.
pub fn thrown(env: &Env, failure: Failure) -> napi::Error {
    let code = failure.code;
    let message = failure.message.clone();
    match failure.into_js(env) {
        Ok(error) => napi::Error::from(error.to_unknown()),
        // Cannot happen short of N-API failing; never lose the code.
        Err(_) => napi::Error::new(napi::Status::GenericFailure, format!("{code}: {message}")),
    }
}

/// The outcome of an asynchronous call, settled on the JavaScript thread: its value, or a
/// rejection with the JavaScript `Error` of its failure.
pub struct Settled<T>(pub Result<T>);

impl<T: ToNapiValue> ToNapiValue for Settled<T> {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        match val.0 {
            Ok(value) => T::to_napi_value(env, value),
            Err(failure) => Err(thrown(&Env::from_raw(env), failure)),
        }
    }
}

/// The JavaScript names of the parameters the core names in snake_case (the settings' names
/// are the core's declaration's, `monapi::settings`). Task fields are not here: they keep the
/// service's names, which are also the keys of the caller's task objects. `refresh_token`
/// (what `refresh()` lacks before a login) is supplied by the `token` option.
const JS_NAMES: [(&str, &str); 5] = [
    ("start_date", "startDate"),
    ("end_date", "endDate"),
    ("task_id", "taskId"),
    ("refresh_token", "token"),
    ("log_level", "logLevel"),
];

/// The JavaScript name of a core option or parameter name, if it has another one.
fn js_name(name: &str) -> Option<&'static str> {
    monapi::settings::name_in(monapi::Language::Node, name)
        .or_else(|| JS_NAMES.iter().find(|(core, _)| *core == name).map(|(_, js)| *js))
}

/// A problem's field as the JavaScript caller names it.
fn field_name(problem: &Problem) -> String {
    match problem.index {
        None => js_name(&problem.field).unwrap_or(&problem.field).to_string(),
        Some(_) => problem.field.clone(),
    }
}

/// Maps a core error onto its failure, through the core's code and accessors.
pub fn failure(error: &CoreError) -> Failure {
    fields(error).into()
}

fn fields(error: &CoreError) -> Fields {
    let millis = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as f64);
    let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let problems = error.problems();
    let partial = error.partial_create();
    Fields {
        code: error.code(),
        message: error.message_with_names(&js_name),
        status: error.status(),
        api_code: error
            .api_code()
            .map(|code| ApiCode::Number(code as f64))
            .or_else(|| error.oauth_error().map(|e| ApiCode::Text(e.into()))),
        err_key: error.err_key().map(String::from),
        err_content: partial.map(|p| p.err_content.clone()),
        failed_index: error
            .failed_indices()
            .first()
            .copied()
            .or(error.index())
            .map(small),
        failed_indices: partial.map(|p| p.failed_indices.iter().copied().map(small).collect()),
        submitted: partial.map(|p| small(p.submitted)),
        created: partial.map(|p| small(p.created())),
        field: problems.first().map(field_name),
        index: error.index().map(small),
        errors: (!problems.is_empty()).then(|| {
            problems
                .iter()
                .map(|p| ProblemPayload {
                    index: p.index.map(small),
                    field: field_name(p),
                    rule: p.rule.clone(),
                })
                .collect()
        }),
        endpoint: error.endpoint().map(|e| e.as_str().to_string()),
        retry_after_ms: millis(error.retry_after()),
        timeout_ms: millis(error.timeout()),
        path: match error {
            CoreError::Store { path, .. } => Some(path.clone()),
            _ => None,
        },
    }
}

/// Bad input caught by the binding itself (what cannot reach the core: a closed client, an
/// argument of the wrong JavaScript type), worded as the core words invalid input.
pub fn invalid_input(field: &str, rule: &str) -> Failure {
    failure(&CoreError::invalid_input(None, field, rule))
}

/// A bug of the native module, reported as an error (code `INTERNAL`) instead of a crash.
pub fn internal(detail: &str) -> Failure {
    Fields {
        code: "INTERNAL",
        message: format!("internal error in the native module (a bug; please report it): {detail}"),
        ..Fields::default()
    }
    .into()
}

/// A panic caught at the boundary.
pub fn from_panic(panic: Box<dyn Any + Send>) -> Failure {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    internal(&detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_come_from_the_core() {
        let auth = CoreError::Auth {
            endpoint: monapi::Endpoint::Token,
            error: "invalid_grant".into(),
            description: "d".into(),
            status: Some(400),
        };
        let p = failure(&auth);
        assert_eq!(
            (p.code, p.endpoint.as_deref()),
            ("AUTH_INVALID_GRANT", Some("POST /v2/oauth/token.json"))
        );
        assert!(matches!(p.api_code, Some(ApiCode::Text(ref code)) if code == "invalid_grant"));
    }

    #[test]
    fn a_store_error_carries_its_path() {
        let store = CoreError::Store {
            path: "/data/monapi/store.json".into(),
            message: "could not be read: denied".into(),
        };
        let p = failure(&store);
        assert_eq!(
            (p.code, p.path.as_deref(), p.endpoint.as_deref()),
            ("STORE", Some("/data/monapi/store.json"), None)
        );
        assert!(p.message.contains("/data/monapi/store.json"), "{}", p.message);
        assert_eq!(failure(&CoreError::Aborted).path, None);
    }

    #[test]
    fn option_names_are_javascript_names() {
        let err = CoreError::invalid_input(None, "base_url", "is required (or set MONAPI_BASE_URL)");
        let p = failure(&err);
        assert_eq!(p.field.as_deref(), Some("baseUrl"));
        assert_eq!(
            p.message,
            "invalid input: `baseUrl` is required (or set MONAPI_BASE_URL)"
        );
        let refresh = CoreError::invalid_input(None, "refresh_token", "there is no token to refresh yet");
        assert_eq!(failure(&refresh).field.as_deref(), Some("token"));
        let task = CoreError::InvalidInput {
            problems: vec![
                Problem::new(Some(2), "snmp_port", "bad"),
                Problem::new(Some(2), "task_type", "worse"),
            ],
        };
        let p = failure(&task);
        assert_eq!(
            (p.field.as_deref(), p.index, p.failed_index),
            (Some("snmp_port"), Some(2), Some(2))
        );
        let errors = p.errors.as_ref().unwrap();
        assert_eq!(errors.len(), 2);
        assert_eq!(
            (errors[1].index, errors[1].field.as_str()),
            (Some(2), "task_type")
        );
    }
}
