use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::de;
use crate::Secret;

/// An OAuth token pair as issued by the token endpoint, with the time it expires.
///
/// Serialize it to save it and give it back with
/// [`ClientBuilder::token`](crate::ClientBuilder::token) to resume without logging in again.
/// `Debug` never shows the token values.
///
/// ```
/// let json = r#"{"access_token":"a1","expires_in":3600,"token_type":"bearer",
///                "scope":null,"refresh_token":"r1"}"#;
/// let token: monapi::Token = serde_json::from_str(json).unwrap();
/// assert_eq!(token.expires_in, 3600);
/// assert!(!format!("{token:?}").contains("a1"));
/// ```
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Token {
    /// Sent as `access_token` with every call.
    pub access_token: Secret,
    /// Lifetime in seconds, as the service stated it.
    #[serde(deserialize_with = "de::number")]
    pub expires_in: u64,
    /// `bearer`.
    #[serde(default)]
    pub token_type: String,
    /// `null` in the service's answers.
    #[serde(default)]
    pub scope: Option<serde_json::Value>,
    /// Used to get a new access token without the password.
    #[serde(default)]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch. Set by the SDK when the
    /// token arrives (the service sends only `expires_in`); `None` for a saved token that did
    /// not carry it, which is then used until the service rejects it.
    #[serde(default)]
    pub expires_at: Option<u64>,
}

impl Token {
    /// Stamps `expires_at` from `expires_in`, counting from now.
    pub(crate) fn stamped(mut self) -> Token {
        self.expires_at = Some(unix_now().saturating_add(self.expires_in));
        self
    }

    /// Whether the access token is still good for at least `leeway`.
    pub fn is_fresh(&self, leeway: Duration) -> bool {
        match self.expires_at {
            Some(at) => unix_now().saturating_add(leeway.as_secs()) < at,
            None => true,
        }
    }
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
