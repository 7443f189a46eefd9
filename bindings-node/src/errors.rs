//! Errors crossing into JavaScript.
//!
//! Every failure leaves the native module as a JavaScript `Error` whose message is
//! [`MARK`] followed by a JSON payload: the stable `code` and the fields a caller branches on.
//! `index.js` turns it into a `MonapiError`, so user code never sees a bare native error. The
//! payload is built from the core's [`monapi::Error`] by matching on its variants; the core
//! has already removed every secret from the texts it carries.

use std::any::Any;

use monapi::{Error as CoreError, Problem};
use serde::Serialize;

/// Prefix of the message of every error the native module throws or rejects with.
pub const MARK: &str = "monapi-error:";

/// The fields of a `MonapiError`, as `index.js` reads them (camelCase JSON).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// Stable code: the core's (`monapi::Error::code`), or `INTERNAL` for a panic.
    pub code: &'static str,
    /// Human-readable text, free of secrets.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The service's own error code: the number of a `{"code","msg"}` body, or the OAuth
    /// `error` string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_code: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub err_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub err_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_indices: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitted: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Every problem of invalid input, the first one first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ProblemPayload>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// One problem of invalid input (`err.errors[i]`).
#[derive(Debug, Serialize)]
pub struct ProblemPayload {
    pub index: Option<usize>,
    pub field: String,
    pub rule: String,
}

impl Payload {
    /// The JavaScript error carrying this payload.
    pub fn into_napi(self) -> napi::Error {
        let json = serde_json::to_string(&self).unwrap_or_else(|_| {
            // Cannot happen (plain data), but never lose the code.
            format!(r#"{{"code":"{}","message":"(unserializable error)"}}"#, self.code)
        });
        napi::Error::new(napi::Status::GenericFailure, format!("{MARK}{json}"))
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

/// Maps a core error onto the payload, through the core's code and accessors.
pub fn payload(error: &CoreError) -> Payload {
    let millis = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as u64);
    let problems = error.problems();
    let partial = error.partial_create();
    Payload {
        code: error.code(),
        message: error.message_with_names(&js_name),
        status: error.status(),
        api_code: error
            .api_code()
            .map(serde_json::Value::from)
            .or_else(|| error.oauth_error().map(|e| serde_json::Value::String(e.into()))),
        err_key: error.err_key().map(String::from),
        err_content: partial.map(|p| p.err_content.clone()),
        failed_index: error.failed_indices().first().copied().or(error.index()),
        failed_indices: partial.map(|p| p.failed_indices.clone()),
        submitted: partial.map(|p| p.submitted),
        created: partial.map(|p| p.created()),
        field: problems.first().map(field_name),
        index: error.index(),
        errors: (!problems.is_empty()).then(|| {
            problems
                .iter()
                .map(|p| ProblemPayload {
                    index: p.index,
                    field: field_name(p),
                    rule: p.rule.clone(),
                })
                .collect()
        }),
        endpoint: error.endpoint().map(|e| e.as_str().to_string()),
        retry_after_ms: millis(error.retry_after()),
        timeout_ms: millis(error.timeout()),
    }
}

/// A core error as a JavaScript error.
pub fn from_core(error: CoreError) -> napi::Error {
    payload(&error).into_napi()
}

/// Bad input caught by the binding itself (what cannot reach the core: a closed client, a
/// task list that is not JSON), worded as the core words invalid input.
pub fn invalid_input(field: &str, rule: &str) -> napi::Error {
    from_core(CoreError::invalid_input(None, field, rule))
}

/// A panic caught at the boundary, as a rejected Promise instead of an abort.
pub fn from_panic(panic: Box<dyn Any + Send>) -> napi::Error {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Payload {
        code: "INTERNAL",
        message: format!("internal error in the native module (a bug; please report it): {detail}"),
        ..Payload::default()
    }
    .into_napi()
}

/// The JSON payload of an error this module made (for tests).
#[cfg(test)]
pub(crate) fn payload_json(error: &napi::Error) -> serde_json::Value {
    let json = error.reason.strip_prefix(MARK).expect("a monapi error");
    serde_json::from_str(json).expect("a JSON payload")
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
        let p = payload(&auth);
        assert_eq!(
            (p.code, p.endpoint.as_deref()),
            ("AUTH_INVALID_GRANT", Some("POST /v2/oauth/token.json"))
        );
        assert_eq!(
            p.api_code,
            Some(serde_json::Value::String("invalid_grant".into()))
        );
    }

    #[test]
    fn option_names_are_javascript_names() {
        let err = CoreError::invalid_input(None, "base_url", "is required (or set MONAPI_BASE_URL)");
        let p = payload(&err);
        assert_eq!(p.field.as_deref(), Some("baseUrl"));
        assert_eq!(
            p.message,
            "invalid input: `baseUrl` is required (or set MONAPI_BASE_URL)"
        );
        let refresh = CoreError::invalid_input(None, "refresh_token", "there is no token to refresh yet");
        assert_eq!(payload(&refresh).field.as_deref(), Some("token"));
        let task = CoreError::InvalidInput {
            problems: vec![
                Problem::new(Some(2), "snmp_port", "bad"),
                Problem::new(Some(2), "task_type", "worse"),
            ],
        };
        let p = payload(&task);
        assert_eq!(
            (p.field.as_deref(), p.index, p.failed_index),
            (Some("snmp_port"), Some(2), Some(2))
        );
        let errors = p.errors.unwrap();
        assert_eq!(errors.len(), 2);
        assert_eq!(
            (errors[1].index, errors[1].field.as_str()),
            (Some(2), "task_type")
        );
    }

    #[test]
    fn payload_is_marked_json() {
        let value = payload_json(&from_core(CoreError::invalid_input(
            None,
            "page",
            "must be 1 or more",
        )));
        assert_eq!(value["code"], "INVALID_INPUT");
        assert_eq!(value["field"], "page");
        assert_eq!(value["errors"][0]["rule"], "must be 1 or more");
        assert!(value.get("status").is_none());
    }
}
