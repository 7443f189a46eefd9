//! Errors crossing into JavaScript.
//!
//! Every failure leaves the native module as a JavaScript `Error` whose message is
//! [`MARK`] followed by a JSON payload: the stable `code` and the fields a caller branches on.
//! `index.js` turns it into a `MonapiError`, so user code never sees a bare native error. The
//! payload is built from the core's [`monapi::Error`] by matching on its variants; the core
//! has already removed every secret from the texts it carries.

use std::any::Any;

use monapi::{Endpoint, Error as CoreError};
use serde::Serialize;

/// Prefix of the message of every error the native module throws or rejects with.
pub const MARK: &str = "monapi-error:";

/// The fields of a `MonapiError`, as `index.js` reads them (camelCase JSON).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// Stable code: `AUTH_INVALID_CLIENT`, `AUTH_INVALID_GRANT`, `AUTH_ERROR`, `API_ERROR`,
    /// `PARTIAL_CREATE`, `INVALID_INPUT`, `TIMEOUT`, `CONNECTION`, `DECODE` or `INTERNAL`.
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
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

/// The JavaScript-side names of options and parameters the core names in snake_case, for
/// errors that are not about a field of a server task.
/// `refresh_token` (what `refresh()` lacks before a login) is the `token` option, which
/// supplies it.
const JS_NAMES: [(&str, &str); 8] = [
    ("base_url", "baseUrl"),
    ("client_id", "clientId"),
    ("client_secret", "clientSecret"),
    ("password_md5", "passwordMd5"),
    ("start_date", "startDate"),
    ("end_date", "endDate"),
    ("user_agent", "userAgent"),
    ("refresh_token", "token"),
];

fn js_names(text: &str) -> String {
    JS_NAMES
        .iter()
        .fold(text.to_string(), |out, (snake, camel)| out.replace(snake, camel))
}

/// Maps a core error onto the payload (variant by variant).
pub fn payload(error: &CoreError) -> Payload {
    let message = error.to_string();
    match error {
        CoreError::Auth {
            endpoint,
            error: oauth,
            status,
            ..
        } => Payload {
            code: match oauth.as_str() {
                "invalid_client" => "AUTH_INVALID_CLIENT",
                "invalid_grant" => "AUTH_INVALID_GRANT",
                _ => "AUTH_ERROR",
            },
            message,
            status: *status,
            api_code: Some(serde_json::Value::String(oauth.clone())),
            endpoint: Some(endpoint.as_str()),
            ..Payload::default()
        },
        CoreError::Api {
            endpoint,
            status,
            code,
            error: oauth,
            retry_after,
            ..
        } => Payload {
            code: "API_ERROR",
            message,
            status: Some(*status),
            api_code: code
                .map(serde_json::Value::from)
                .or_else(|| oauth.clone().map(serde_json::Value::String)),
            endpoint: Some(endpoint.as_str()),
            retry_after_ms: retry_after.map(|d| d.as_millis() as u64),
            ..Payload::default()
        },
        CoreError::PartialCreate(partial) => Payload {
            code: "PARTIAL_CREATE",
            message,
            status: Some(400),
            err_key: Some(partial.err_key.clone()),
            err_content: Some(partial.err_content.clone()),
            failed_index: partial.failed_indices.first().copied(),
            failed_indices: Some(partial.failed_indices.clone()),
            submitted: Some(partial.submitted),
            created: Some(partial.created()),
            endpoint: Some(Endpoint::CreateServerTasks.as_str()),
            ..Payload::default()
        },
        CoreError::InvalidInput { index, field, .. } => {
            // Options and parameters get the names the JavaScript caller used; task fields
            // keep the service's names, which are also the keys of the caller's task objects.
            let (field, message) = match index {
                Some(_) => (field.clone(), message),
                None => (js_names(field), js_names(&message)),
            };
            Payload {
                code: "INVALID_INPUT",
                message,
                field: Some(field),
                index: *index,
                failed_index: *index,
                ..Payload::default()
            }
        }
        CoreError::Timeout { endpoint, after } => Payload {
            code: "TIMEOUT",
            message,
            endpoint: Some(endpoint.as_str()),
            timeout_ms: after.map(|d| d.as_millis() as u64),
            ..Payload::default()
        },
        CoreError::Connection { endpoint, .. } => Payload {
            code: "CONNECTION",
            message,
            endpoint: Some(endpoint.as_str()),
            ..Payload::default()
        },
        CoreError::Decode { endpoint, .. } => Payload {
            code: "DECODE",
            message,
            endpoint: Some(endpoint.as_str()),
            ..Payload::default()
        },
        // `monapi::Error` is non-exhaustive: a future variant still gets a stable code.
        other => Payload {
            code: match other.kind() {
                monapi::ErrorKind::Auth => "AUTH_ERROR",
                monapi::ErrorKind::Api => "API_ERROR",
                monapi::ErrorKind::PartialCreate => "PARTIAL_CREATE",
                monapi::ErrorKind::InvalidInput => "INVALID_INPUT",
                monapi::ErrorKind::Timeout => "TIMEOUT",
                monapi::ErrorKind::Connection => "CONNECTION",
                monapi::ErrorKind::Decode => "DECODE",
                _ => "INTERNAL",
            },
            message,
            status: other.status(),
            ..Payload::default()
        },
    }
}

/// A core error as a JavaScript error.
pub fn from_core(error: CoreError) -> napi::Error {
    payload(&error).into_napi()
}

/// Bad input caught by the binding itself (before anything is sent).
pub fn invalid_input(field: &str, rule: &str) -> napi::Error {
    Payload {
        code: "INVALID_INPUT",
        message: format!("invalid input: `{field}` {rule}"),
        field: Some(field.to_string()),
        ..Payload::default()
    }
    .into_napi()
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
    fn auth_codes() {
        let auth = |e: &str| CoreError::Auth {
            endpoint: Endpoint::Token,
            error: e.into(),
            description: "d".into(),
            status: Some(400),
        };
        assert_eq!(payload(&auth("invalid_client")).code, "AUTH_INVALID_CLIENT");
        assert_eq!(payload(&auth("invalid_grant")).code, "AUTH_INVALID_GRANT");
        assert_eq!(payload(&auth("invalid_token")).code, "AUTH_ERROR");
    }

    #[test]
    fn option_names_are_javascript_names() {
        let err = CoreError::invalid_input(None, "base_url", "is required (or set MONAPI_BASE_URL)");
        let p = payload(&err);
        assert_eq!(p.field.as_deref(), Some("baseUrl"));
        assert!(p.message.contains("`baseUrl`") && p.message.contains("MONAPI_BASE_URL"));
        let refresh = CoreError::invalid_input(None, "refresh_token", "there is no token to refresh yet");
        assert_eq!(payload(&refresh).field.as_deref(), Some("token"));
        assert!(payload(&refresh).message.contains("`token`"));
        let agent = CoreError::invalid_input(None, "user_agent", "must be printable");
        assert_eq!(payload(&agent).field.as_deref(), Some("userAgent"));
        let task = CoreError::invalid_input(Some(2), "snmp_port", "bad");
        assert_eq!(payload(&task).field.as_deref(), Some("snmp_port"));
        assert_eq!(payload(&task).failed_index, Some(2));
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
        assert!(value.get("status").is_none());
    }
}
