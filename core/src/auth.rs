//! Credentials, the token cache, and renewal: refresh grant first, password login when the
//! refresh token is refused, one renewal in flight at a time however many calls wait on it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use md5::{Digest, Md5};

use crate::request::{Prepared, Retry};
use crate::transport::Transport;
use crate::{Endpoint, Error, Method, Result, Secret, Token};

/// Called with every new token (login, refresh, re-login), so it can be saved.
pub type TokenCallback = Arc<dyn Fn(&Token) + Send + Sync>;

/// Lowercase hex MD5 of a password, as the token endpoint takes it.
///
/// ```
/// assert_eq!(monapi::md5_hex("123456").expose(), "e10adc3949ba59abbe56e057f20f883e");
/// ```
pub fn md5_hex(password: &str) -> Secret {
    let digest = Md5::digest(password.as_bytes());
    Secret::new(digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

pub(crate) struct Credentials {
    pub client_id: String,
    pub client_secret: Secret,
    pub username: Option<String>,
    pub password_md5: Option<Secret>,
}

pub(crate) struct Auth {
    credentials: Credentials,
    current: Mutex<Option<Arc<Token>>>,
    /// Held while a token request is in flight: the single-flight gate.
    renewing: tokio::sync::Mutex<()>,
    on_token: Option<TokenCallback>,
    leeway: Duration,
}

impl Auth {
    pub fn new(
        credentials: Credentials,
        token: Option<Token>,
        on_token: Option<TokenCallback>,
        leeway: Duration,
    ) -> Auth {
        Auth {
            credentials,
            current: Mutex::new(token.map(Arc::new)),
            renewing: tokio::sync::Mutex::new(()),
            on_token,
            leeway,
        }
    }

    pub fn client_id(&self) -> &str {
        &self.credentials.client_id
    }

    pub fn username(&self) -> Option<&str> {
        self.credentials.username.as_deref()
    }

    pub fn current(&self) -> Option<Arc<Token>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Replaces the cached token (e.g. after a fork, or when the caller hands one over).
    pub fn set_current(&self, token: Option<Token>) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = token.map(Arc::new);
    }

    /// A token fresh enough to use: the cached one, or a renewed one.
    pub async fn valid_token(&self, transport: &Transport) -> Result<Arc<Token>> {
        match self.current() {
            Some(token) if self.is_fresh(&token) => Ok(token),
            stale => self.renew(transport, stale).await,
        }
    }

    /// Renews the token, unless another call already replaced `stale` while we waited for the
    /// gate, in which case that newer token is returned (single-flight).
    pub async fn renew(&self, transport: &Transport, stale: Option<Arc<Token>>) -> Result<Arc<Token>> {
        let gate = self.renewing.lock().await;
        let current = self.current();
        if let Some(token) = &current {
            let replaced = stale.as_ref().is_none_or(|s| !Arc::ptr_eq(s, token));
            if replaced && self.is_fresh(token) {
                return Ok(token.clone());
            }
        }
        let refresh_token = current.as_ref().and_then(|t| t.refresh_token.clone());
        let token = match refresh_token {
            Some(refresh_token) => match self.refresh_grant(transport, &refresh_token).await {
                Err(Error::Auth { error, .. })
                    if error == "invalid_grant" && self.credentials.password_md5.is_some() =>
                {
                    tracing::debug!(target: "monapi", "refresh token expired or refused; logging in with the password");
                    self.password_grant(transport).await?
                }
                other => other?,
            },
            None => self.password_grant(transport).await?,
        };
        Ok(self.publish(gate, token))
    }

    /// Logs in with the password now, whatever is cached.
    pub async fn login(&self, transport: &Transport) -> Result<Arc<Token>> {
        let gate = self.renewing.lock().await;
        let token = self.password_grant(transport).await?;
        Ok(self.publish(gate, token))
    }

    /// Uses the refresh grant now.
    pub async fn refresh(&self, transport: &Transport) -> Result<Arc<Token>> {
        let gate = self.renewing.lock().await;
        let refresh_token = self
            .current()
            .and_then(|t| t.refresh_token.clone())
            .ok_or_else(|| {
                Error::invalid_input(
                    None,
                    "refresh_token",
                    "there is no token to refresh yet: log in first",
                )
            })?;
        let token = self.refresh_grant(transport, &refresh_token).await?;
        Ok(self.publish(gate, token))
    }

    fn is_fresh(&self, token: &Token) -> bool {
        // A quarter of the lifetime at most, so a short-lived token is not renewed at once.
        let leeway = self.leeway.min(Duration::from_secs(token.expires_in / 4));
        token.is_fresh(leeway)
    }

    /// Caches a new token, opens the gate, then tells the callback: outside the gate, so a
    /// callback that uses the client cannot deadlock on it.
    fn publish(&self, gate: tokio::sync::MutexGuard<'_, ()>, token: Token) -> Arc<Token> {
        let token = Arc::new(token);
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(token.clone());
        drop(gate);
        if let Some(callback) = &self.on_token {
            callback(&token);
        }
        token
    }

    async fn password_grant(&self, transport: &Transport) -> Result<Token> {
        let (Some(username), Some(password_md5)) =
            (&self.credentials.username, &self.credentials.password_md5)
        else {
            return Err(Error::invalid_input(
                None,
                "password",
                "a username and password are needed to log in (give them, or set MONAPI_USERNAME and MONAPI_PASSWORD)",
            ));
        };
        tracing::debug!(target: "monapi", "requesting a token with the password grant");
        // Sent again after any transient failure: a second login only issues another pair.
        self.token_request(
            transport,
            Retry::Transient,
            &[
                ("grant_type", "password"),
                ("username", username),
                ("password", password_md5.expose()),
                ("client_id", &self.credentials.client_id),
                ("client_secret", self.credentials.client_secret.expose()),
            ],
        )
        .await
    }

    /// The refresh grant. An answer without a refresh token leaves the one used valid (the
    /// OAuth server library's default, as RFC 6749 section 6 allows), so the new token keeps
    /// it: in the cache, in `token()` and in what `on_token` receives (what a caller saves
    /// must resume). A refused refresh token is an `invalid_grant` saying what to do.
    async fn refresh_grant(&self, transport: &Transport, refresh_token: &Secret) -> Result<Token> {
        tracing::debug!(target: "monapi", "requesting a token with the refresh grant");
        // The service may retire the refresh token once it handles this request, so it is
        // sent again only when it cannot have been handled. After a lost answer, the next
        // renewal finds the refresh token refused and logs in with the password instead.
        let answer = self
            .token_request(
                transport,
                Retry::Refused,
                &[
                    ("grant_type", "refresh_token"),
                    ("client_id", &self.credentials.client_id),
                    ("client_secret", self.credentials.client_secret.expose()),
                    ("refresh_token", refresh_token.expose()),
                ],
            )
            .await;
        match answer {
            Ok(mut token) => {
                token.refresh_token.get_or_insert_with(|| refresh_token.clone());
                Ok(token)
            }
            Err(Error::Auth {
                endpoint,
                error,
                description,
                status,
            }) if error == "invalid_grant" => Err(Error::Auth {
                endpoint,
                error,
                description: format!(
                    "the refresh token expired or was refused ({description}); a login with a username and \
                     password is needed (give them, or set MONAPI_USERNAME and MONAPI_PASSWORD)"
                ),
                status,
            }),
            Err(other) => Err(other),
        }
    }

    async fn token_request(
        &self,
        transport: &Transport,
        retry: Retry,
        form: &[(&str, &str)],
    ) -> Result<Token> {
        let request = Prepared {
            endpoint: Endpoint::Token,
            method: Method::Post,
            path: "/v2/oauth/token.json".into(),
            query: Vec::new(),
            form: Some(serde_urlencoded::to_string(form).expect("strings always encode")),
            batch_len: 0,
            retry,
            timeout: None,
        };
        let answer = transport.send(&request, None);
        let response = crate::telemetry::child("token", None, answer, crate::telemetry::no_rows).await?;
        let token: Token = serde_json::from_slice(response.body()).map_err(|e| Error::Decode {
            endpoint: Endpoint::Token,
            // The body holds tokens: say what is wrong, never what it says.
            message: format!("not a token answer ({})", e.classify_text()),
            snippet: crate::secret::REDACTED.into(),
        })?;
        transport.redactor.add(token.access_token.expose());
        if let Some(refresh) = &token.refresh_token {
            transport.redactor.add(refresh.expose());
        }
        Ok(token.stamped())
    }
}

trait ClassifyText {
    fn classify_text(&self) -> &'static str;
}

impl ClassifyText for serde_json::Error {
    fn classify_text(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "read error",
            serde_json::error::Category::Syntax => "invalid JSON",
            serde_json::error::Category::Data => "missing or mistyped fields",
            serde_json::error::Category::Eof => "truncated JSON",
        }
    }
}
