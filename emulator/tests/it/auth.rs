//! Token endpoint and access-token checks.

use std::time::Duration;

use monapi_emulator::{Config, Quirks, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_USERNAME};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::*;

fn is_token(value: &serde_json::Value) -> bool {
    value.as_str().is_some_and(|t| {
        t.len() == 40
            && t.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

#[tokio::test]
async fn password_grant_answers_the_token_shape() {
    let env = start().await;
    let reply = env.password_grant().await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(shape(&reply.json), shape(&fixture("token.json")));
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(reply.json["expires_in"], json!(3600));
    assert_eq!(reply.json["token_type"], "bearer");
    assert!(reply.json["scope"].is_null());
    assert!(is_token(&reply.json["access_token"]));
    assert!(is_token(&reply.json["refresh_token"]));
    assert_ne!(reply.json["access_token"], reply.json["refresh_token"]);
    // Keys in the order of the service's documentation.
    let keys: Vec<_> = reply.json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "access_token",
            "expires_in",
            "token_type",
            "scope",
            "refresh_token"
        ]
    );
}

#[tokio::test]
async fn tokens_are_random_per_login() {
    let env = start().await;
    let first = env.login().await;
    let second = env.login().await;
    assert_ne!(first, second);
    let other = start().await;
    assert_ne!(other.login().await, first);
}

#[tokio::test]
async fn uppercase_md5_is_accepted() {
    let env = start().await;
    let upper = PASSWORD_MD5.to_uppercase();
    let reply = env
        .token_request(&[
            ("grant_type", "password"),
            ("username", DEMO_USERNAME),
            ("password", &upper),
            ("client_id", DEMO_CLIENT_ID),
            ("client_secret", DEMO_CLIENT_SECRET),
        ])
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

#[tokio::test]
async fn wrong_client_is_invalid_client_401() {
    let env = start().await;
    for (id, secret) in [(DEMO_CLIENT_ID, "wrong"), ("nobody", DEMO_CLIENT_SECRET)] {
        let reply = env
            .token_request(&[
                ("grant_type", "password"),
                ("username", DEMO_USERNAME),
                ("password", PASSWORD_MD5),
                ("client_id", id),
                ("client_secret", secret),
            ])
            .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
        assert_eq!(reply.json, fixture("token_error_invalid_client.json"));
        assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    }
}

#[tokio::test]
async fn wrong_user_or_password_is_invalid_grant_400() {
    let env = start().await;
    let plain_password = "123456"; // the plain password, not its MD5
    for (user, password) in [
        (DEMO_USERNAME, "e10adc3949ba59abbe56e057f20f883f"),
        (DEMO_USERNAME, plain_password),
        ("other@example.com", PASSWORD_MD5),
    ] {
        let reply = env
            .token_request(&[
                ("grant_type", "password"),
                ("username", user),
                ("password", password),
                ("client_id", DEMO_CLIENT_ID),
                ("client_secret", DEMO_CLIENT_SECRET),
            ])
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST);
        assert_eq!(reply.json["error"], "invalid_grant");
        assert_eq!(
            shape(&reply.json),
            shape(&fixture("token_error_invalid_grant.json"))
        );
    }
}

#[tokio::test]
async fn missing_parameters_are_invalid_request() {
    let env = start().await;
    let full = [
        ("grant_type", "password"),
        ("username", DEMO_USERNAME),
        ("password", PASSWORD_MD5),
        ("client_id", DEMO_CLIENT_ID),
        ("client_secret", DEMO_CLIENT_SECRET),
    ];
    for missing in ["grant_type", "username", "password", "client_id", "client_secret"] {
        let form: Vec<_> = full.iter().copied().filter(|(k, _)| *k != missing).collect();
        let reply = env.token_request(&form).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "without {missing}");
        assert_eq!(reply.json["error"], "invalid_request", "without {missing}");
    }
    // An empty value is missing too.
    let mut form = full.to_vec();
    form[2] = ("password", "");
    assert_eq!(env.token_request(&form).await.json["error"], "invalid_request");
    let reply = env
        .token_request(&[
            ("grant_type", "refresh_token"),
            ("client_id", DEMO_CLIENT_ID),
            ("client_secret", DEMO_CLIENT_SECRET),
        ])
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["error"], "invalid_request");
}

#[tokio::test]
async fn other_grant_types_are_unsupported() {
    let env = start().await;
    let reply = env
        .token_request(&[
            ("grant_type", "client_credentials"),
            ("client_id", DEMO_CLIENT_ID),
            ("client_secret", DEMO_CLIENT_SECRET),
        ])
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["error"], "unsupported_grant_type");
}

#[tokio::test]
async fn token_endpoint_takes_form_posts_only() {
    let env = start().await;
    let response = env
        .http
        .post(env.url("/v2/oauth/token.json"))
        .json(&json!({
            "grant_type": "password", "username": DEMO_USERNAME, "password": PASSWORD_MD5,
            "client_id": DEMO_CLIENT_ID, "client_secret": DEMO_CLIENT_SECRET,
        }))
        .send()
        .await
        .unwrap();
    let reply = read_reply(response).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["error"], "invalid_request");
    // Parameters in the query string are not read.
    let reply = env
        .request(
            Method::POST,
            "/v2/oauth/token.json",
            &[
                ("grant_type", "password"),
                ("username", DEMO_USERNAME),
                ("password", PASSWORD_MD5),
                ("client_id", DEMO_CLIENT_ID),
                ("client_secret", DEMO_CLIENT_SECRET),
            ],
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let reply = env.get("/v2/oauth/token.json", &[]).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn refresh_issues_an_access_token_and_keeps_the_refresh_token_valid() {
    // The OAuth server library's defaults: no new refresh token; the one used stays valid.
    let env = start().await;
    let first = env.password_grant().await.json;
    let refresh = first["refresh_token"].as_str().unwrap();
    let second = env.refresh_grant(refresh).await;
    assert_eq!(second.status, StatusCode::OK);
    let mut expected = fixture("token.json");
    expected.as_object_mut().unwrap().remove("refresh_token");
    assert_eq!(shape(&second.json), shape(&expected));
    assert!(second.json.get("refresh_token").is_none(), "{}", second.json);
    let access2 = second.json["access_token"].as_str().unwrap();
    assert_ne!(access2, first["access_token"].as_str().unwrap());
    // The old access token stays valid until it expires; the new one works.
    for token in [first["access_token"].as_str().unwrap(), access2] {
        assert_eq!(
            env.get_auth(token, "/v2/agent/lists.json", &[]).await.status,
            StatusCode::OK
        );
    }
    // The refresh token can be used again and again.
    for _ in 0..2 {
        assert_eq!(env.refresh_grant(refresh).await.status, StatusCode::OK);
    }
    // An unknown refresh token.
    let unknown = env
        .refresh_grant("0123456789abcdef0123456789abcdef01234567")
        .await;
    assert_eq!(unknown.json, fixture("token_error_invalid_grant.json"));
}

#[tokio::test]
async fn with_rotating_refresh_tokens_each_refresh_retires_the_one_used() {
    let env = start_with(Config {
        quirks: Quirks {
            rotating_refresh_tokens: true,
            ..Quirks::default()
        },
        ..Config::default()
    })
    .await;
    let first = env.password_grant().await.json;
    let refresh1 = first["refresh_token"].as_str().unwrap();
    let second = env.refresh_grant(refresh1).await;
    assert_eq!(shape(&second.json), shape(&fixture("token.json")));
    let refresh2 = second.json["refresh_token"].as_str().unwrap();
    assert_ne!(refresh2, refresh1);
    let again = env.refresh_grant(refresh1).await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert_eq!(again.json, fixture("token_error_invalid_grant.json"));
    assert_eq!(env.refresh_grant(refresh2).await.status, StatusCode::OK);
    assert_eq!(env.refresh_grant(refresh2).await.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn an_expired_refresh_token_is_refused_as_expired() {
    let env = start_with(Config {
        refresh_token_ttl: Duration::from_millis(300),
        ..Config::default()
    })
    .await;
    let tokens = env.password_grant().await.json;
    let refresh = tokens["refresh_token"].as_str().unwrap();
    assert_eq!(env.refresh_grant(refresh).await.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let reply = env.refresh_grant(refresh).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.json,
        json!({"error": "invalid_grant", "error_description": "Refresh token has expired"})
    );
}

#[tokio::test]
async fn the_expire_refresh_tokens_hook_expires_every_refresh_token_issued() {
    let env = start().await;
    let tokens = env.password_grant().await.json;
    let hook = env
        .request(Method::POST, "/_emulator/expire_refresh_tokens", &[])
        .await;
    assert_eq!(hook.status, StatusCode::OK);
    let reply = env.refresh_grant(tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(reply.json["error_description"], "Refresh token has expired");
    // Access tokens are untouched, and later logins get live refresh tokens.
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(
        env.get_auth(access, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
    let later = env.password_grant().await.json;
    let reply = env.refresh_grant(later["refresh_token"].as_str().unwrap()).await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn a_refused_access_token_gets_a_bearer_challenge() {
    let env = start().await;
    for token in [None, Some("0123456789abcdef0123456789abcdef01234567")] {
        let reply = match token {
            Some(token) => env.get_auth(token, "/v2/agent/lists.json", &[]).await,
            None => env.get("/v2/agent/lists.json", &[]).await,
        };
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
        assert_eq!(reply.json["error"], "invalid_token");
        let challenge = reply.header("www-authenticate").unwrap();
        assert!(challenge.starts_with("Bearer realm=\"Service\""), "{challenge}");
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    }
    let token = env.login().await;
    env.emu.expire_tokens();
    let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(
        reply.json,
        json!({"error": "invalid_token", "error_description": "The access token provided has expired"})
    );
    assert!(reply.header("www-authenticate").unwrap().contains("has expired"));
}

#[tokio::test]
async fn refresh_token_is_bound_to_its_client() {
    let config = Config {
        clients: vec![
            (DEMO_CLIENT_ID.into(), DEMO_CLIENT_SECRET.into()),
            ("other_id".into(), "other_secret".into()),
        ],
        ..Config::default()
    };
    let env = start_with(config).await;
    let refresh = env.password_grant().await.json["refresh_token"]
        .as_str()
        .unwrap()
        .to_string();
    let reply = env
        .token_request(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("client_id", "other_id"),
            ("client_secret", "other_secret"),
        ])
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["error"], "invalid_grant");
    // Refused, not consumed: the right client can still use it.
    assert_eq!(env.refresh_grant(&refresh).await.status, StatusCode::OK);
}

#[tokio::test]
async fn endpoints_refuse_missing_and_unknown_tokens() {
    let env = start().await;
    let paths = [
        "/v2/service/lists.json",
        "/v2/agent/lists.json",
        "/v2/service/report/10001.json",
        "/v2/site/report/20001.json",
        "/v2/site/respose_time_distribute/20001.json",
    ];
    for path in paths {
        for query in [vec![], vec![("access_token", "nope")], vec![("access_token", "")]] {
            let reply = env.get(path, &query).await;
            assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{path}");
            assert_eq!(
                reply.json,
                json!({"error": "invalid_token", "error_description": "The access token provided is invalid"})
            );
            assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
        }
    }
    // The create endpoint needs it in the query too, not in the form.
    let token = env.login().await;
    let response = env
        .http
        .post(env.url("/v2/server/create.json"))
        .form(&[("data", "[]"), ("access_token", token.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn access_tokens_expire_after_the_ttl() {
    let env = start_with(Config {
        token_ttl: Duration::from_secs(1),
        ..Config::default()
    })
    .await;
    let tokens = env.password_grant().await.json;
    assert_eq!(tokens["expires_in"], json!(1));
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(
        env.get_auth(access, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let reply = env.get_auth(access, "/v2/agent/lists.json", &[]).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.json,
        json!({"error": "invalid_token", "error_description": "The access token provided has expired"})
    );
    // The refresh token outlives the access token. (The renewed one lives an hour, so that
    // a slow machine cannot let it expire before it is used.)
    env.emu.set_token_ttl(Duration::from_secs(3600));
    let renewed = env.refresh_grant(tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(renewed.status, StatusCode::OK);
    let fresh = renewed.json["access_token"].as_str().unwrap();
    assert_eq!(
        env.get_auth(fresh, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn ttl_changes_apply_to_tokens_issued_afterwards() {
    let env = start().await;
    let long = env.login().await;
    env.emu.set_token_ttl(Duration::from_secs(1));
    let reply = env.password_grant().await;
    assert_eq!(reply.json["expires_in"], json!(1));
    let short = reply.json["access_token"].as_str().unwrap();
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(
        env.get_auth(short, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        env.get_auth(&long, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_lifetime_past_any_horizon_issues_a_token_that_does_not_expire() {
    let env = start().await;
    env.emu.set_token_ttl(Duration::MAX);
    let reply = env.password_grant().await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json["expires_in"], json!(u32::MAX));
    let token = reply.json["access_token"].as_str().unwrap();
    assert_eq!(
        env.get_auth(token, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn expire_tokens_keeps_refresh_tokens() {
    let env = start().await;
    let tokens = env.password_grant().await.json;
    let access = tokens["access_token"].as_str().unwrap();
    env.emu.expire_tokens();
    let reply = env.get_auth(access, "/v2/service/lists.json", &[]).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.json["error_description"],
        "The access token provided has expired"
    );
    let renewed = env.refresh_grant(tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(renewed.status, StatusCode::OK);
    // Tokens issued after the call are not affected.
    let fresh = renewed.json["access_token"].as_str().unwrap();
    assert_eq!(
        env.get_auth(fresh, "/v2/service/lists.json", &[]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn revoked_refresh_tokens_get_invalid_grant() {
    let env = start().await;
    let tokens = env.password_grant().await.json;
    env.emu.revoke_refresh_tokens();
    let reply = env.refresh_grant(tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json, fixture("token_error_invalid_grant.json"));
    // Access tokens are untouched; a new login works.
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(
        env.get_auth(access, "/v2/agent/lists.json", &[]).await.status,
        StatusCode::OK
    );
    assert_eq!(env.password_grant().await.status, StatusCode::OK);
}

#[tokio::test]
async fn configured_users_and_clients_replace_the_demo_ones() {
    let env = start_with(Config {
        clients: vec![("cid".into(), "csecret".into())],
        users: vec![("ops@example.com".into(), "pa55word".into())],
        ..Config::default()
    })
    .await;
    assert_eq!(env.password_grant().await.status, StatusCode::UNAUTHORIZED);
    // md5("pa55word")
    let reply = env
        .token_request(&[
            ("grant_type", "password"),
            ("username", "ops@example.com"),
            ("password", "5a0fcf0d0cbf1a9f5a5a3a9c7d4b3a5e"),
            ("client_id", "cid"),
            ("client_secret", "csecret"),
        ])
        .await;
    assert_eq!(reply.json["error"], "invalid_grant");
    let md5 = md5_hex("pa55word");
    let reply = env
        .token_request(&[
            ("grant_type", "password"),
            ("username", "ops@example.com"),
            ("password", &md5),
            ("client_id", "cid"),
            ("client_secret", "csecret"),
        ])
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

fn md5_hex(text: &str) -> String {
    use md5::{Digest, Md5};
    Md5::digest(text).iter().map(|b| format!("{b:02x}")).collect()
}
