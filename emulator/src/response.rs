//! Answers as the real service (an old PHP application) writes them: the body helpers, the
//! refusals handlers return with `?`, and the size limit of request bodies. Every other
//! module builds its responses from here.

use axum::body::Body;
use axum::http::header::{CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// Largest form body accepted (create batches, token requests).
pub(crate) const MAX_FORM_BYTES: usize = 16 << 20;

/// The content type of every answer of the service, JSON or not.
pub(crate) const PHP_CONTENT_TYPE: HeaderValue = HeaderValue::from_static("text/html; charset=UTF-8");

/// PHP's `json_encode` of an empty keyed array (quirks `no_agents`, `no_checks`).
pub(crate) const PHP_EMPTY_ARRAY: &[u8] = b"[]";

/// A response as the real service sends it: JSON (or not) labelled as HTML.
pub(crate) fn php_body(status: StatusCode, body: impl Into<Body>) -> Response {
    let mut response = (status, body.into()).into_response();
    response.headers_mut().insert(CONTENT_TYPE, PHP_CONTENT_TYPE);
    response
}

pub(crate) fn php_json(status: StatusCode, value: &Value) -> Response {
    php_body(status, serde_json::to_vec(value).expect("json values serialize"))
}

/// The ordinary error shape `{"code":<status>,"msg":"..."}`.
pub(crate) fn api_error(status: StatusCode, msg: impl Into<String>) -> Response {
    php_json(status, &json!({"code": status.as_u16(), "msg": msg.into()}))
}

/// The error shape of the token endpoint and of a refused access token:
/// `{"error":"...","error_description":"..."}`.
pub(crate) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    php_json(status, &json!({"error": error, "error_description": description}))
}

/// Why a request is refused; small so that handlers can use `?` on it.
pub(crate) enum Refusal {
    /// `{"code":<status>,"msg":...}`.
    Api(StatusCode, String),
    /// A missing, unknown or expired access token: 401 `invalid_token` with this description.
    InvalidToken(&'static str),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Api(status, msg) => api_error(status, msg),
            Refusal::InvalidToken(description) => {
                // As the OAuth server library answers a resource request: the error in the
                // body and in a Bearer challenge.
                let mut response = oauth_error(StatusCode::UNAUTHORIZED, "invalid_token", description);
                let challenge = format!(
                    r#"Bearer realm="Service", error="invalid_token", error_description="{description}""#
                );
                if let Ok(value) = HeaderValue::from_str(&challenge) {
                    response.headers_mut().insert(WWW_AUTHENTICATE, value);
                }
                response
            }
        }
    }
}
