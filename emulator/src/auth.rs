//! The token endpoint (password and refresh grants) and the access-token check of the
//! other endpoints. Error codes and texts follow the OAuth 2.0 server library that
//! PHP services of this kind use.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde_json::json;

use crate::app::{App, TokenProblem};
use crate::response::{oauth_error, php_json, Refusal};

fn invalid_request(description: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_request", description)
}

/// `POST /v2/oauth/token.json`, form-encoded body only.
pub(crate) async fn token(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let form_encoded = headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        });
    if !form_encoded {
        return invalid_request(
            "The content type for POST requests must be \"application/x-www-form-urlencoded\"",
        );
    }
    let Ok(form) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body) else {
        return invalid_request("The request body is not valid form data");
    };
    // An empty value counts as missing, as in PHP.
    let field = |name: &str| {
        form.iter()
            .find(|(key, value)| key == name && !value.is_empty())
            .map(|(_, value)| value.as_str())
    };
    let Some(grant_type) = field("grant_type") else {
        return invalid_request("The grant type was not specified in the request");
    };
    if grant_type != "password" && grant_type != "refresh_token" {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            &format!("Grant type \"{grant_type}\" not supported"),
        );
    }
    let (Some(client_id), Some(client_secret)) = (field("client_id"), field("client_secret")) else {
        return invalid_request("Missing parameters: \"client_id\" and \"client_secret\" required");
    };
    if !app.client_known(client_id, client_secret) {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "The client credentials are invalid",
        );
    }
    // The library's defaults: a password login issues a refresh token; a refresh issues a
    // new access token only, and the refresh token stays valid until it expires (unless the
    // `rotating_refresh_tokens` quirk asks for a new one each time).
    let with_refresh = if grant_type == "password" {
        let (Some(username), Some(password)) = (field("username"), field("password")) else {
            return invalid_request("Missing parameters: \"username\" and \"password\" required");
        };
        if !app.user_known(username, password) {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_grant",
                "Invalid username and password combination",
            );
        }
        true
    } else {
        let Some(refresh_token) = field("refresh_token") else {
            return invalid_request("Missing parameter: \"refresh_token\" is required");
        };
        let rotating = app.quirks().rotating_refresh_tokens;
        match app.use_refresh(refresh_token, client_id, rotating) {
            Ok(()) => rotating,
            Err(TokenProblem::Invalid) => {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Invalid refresh token")
            }
            Err(TokenProblem::Expired) => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "Refresh token has expired",
                )
            }
        }
    };
    let issued = app.issue(client_id, with_refresh);
    let mut answer = json!({
        "access_token": issued.access_token,
        "expires_in": issued.expires_in,
        "token_type": "bearer",
        "scope": null,
    });
    if let Some(refresh_token) = issued.refresh_token {
        answer["refresh_token"] = refresh_token.into();
    }
    php_json(StatusCode::OK, &answer)
}

/// Checks the `access_token` query parameter of the other endpoints.
pub(crate) fn authorize(app: &App, access_token: Option<&str>) -> Result<(), Refusal> {
    app.check_access(access_token).map_err(|problem| {
        Refusal::InvalidToken(match problem {
            TokenProblem::Invalid => "The access token provided is invalid",
            TokenProblem::Expired => "The access token provided has expired",
        })
    })
}
