//! Secrets that never print, and the redactor that keeps them out of error texts.

use std::fmt;
use std::sync::{Arc, RwLock};

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// A secret string (token, password, its MD5, client secret).
///
/// `Debug` shows `Secret([redacted])` and there is no `Display`, so a secret cannot end up in a
/// log line or an error message by accident. [`expose`](Secret::expose) gives the value to code
/// that must send it. It serializes as the plain string, so that a token can be saved and
/// resumed by the caller on purpose. It deserializes from a string or a number (its decimal
/// text); an error about any other value never shows the value.
///
/// ```
/// let s = monapi::Secret::new("hunter2");
/// assert_eq!(format!("{s:?}"), "Secret([redacted])");
/// assert_eq!(s.expose(), "hunter2");
/// let err = serde_json::from_str::<monapi::Secret>("true").unwrap_err();
/// assert!(!err.to_string().contains("true"), "{err}");
/// ```
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Secret(String);

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // serde's own messages quote the value ("invalid type: integer `123456`"): this
        // visitor accepts numbers as text and names only the kind of anything else.
        struct SecretVisitor;
        impl Visitor<'_> for SecretVisitor {
            type Value = Secret;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Secret, E> {
                Ok(Secret::new(v))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Secret, E> {
                Ok(Secret(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Secret, E> {
                Ok(Secret(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Secret, E> {
                Ok(Secret(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Secret, E> {
                Ok(Secret(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Secret, E> {
                Err(E::invalid_type(de::Unexpected::Other("a boolean"), &self))
            }
        }
        deserializer.deserialize_any(SecretVisitor)
    }
}

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value, for sending it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_string())
    }
}

/// The secrets a client knows, so that any text from the service or the HTTP stack can be
/// scrubbed before it goes into an error. Tokens change over time; old ones are kept too (an
/// old token in a late error message is still a secret).
#[derive(Default)]
pub(crate) struct Redactor {
    secrets: RwLock<Vec<Arc<str>>>,
}

/// What a secret is replaced with.
pub(crate) const REDACTED: &str = "[redacted]";

impl Redactor {
    pub(crate) fn add(&self, secret: &str) {
        // Very short values would blank out ordinary words; real secrets are long.
        if secret.len() < 4 {
            return;
        }
        let mut secrets = self.secrets.write().unwrap_or_else(|e| e.into_inner());
        if !secrets.iter().any(|s| &**s == secret) {
            secrets.push(Arc::from(secret));
            // Longest first, so a secret that contains another is replaced whole.
            secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    pub(crate) fn redact(&self, text: &str) -> String {
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        let mut out = text.to_string();
        for secret in secrets.iter() {
            if out.contains(&**secret) {
                out = out.replace(&**secret, REDACTED);
            }
        }
        redact_query_token(&out)
    }
}

/// Removes the value of any `access_token=` in a text (a URL that slipped into a message).
fn redact_query_token(text: &str) -> String {
    const KEY: &str = "access_token=";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(KEY) {
        out.push_str(&rest[..at + KEY.len()]);
        out.push_str(REDACTED);
        let after = &rest[at + KEY.len()..];
        let end = after.find(['&', ' ', ')', '"', '\'']).unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_known_secrets_and_url_tokens() {
        let r = Redactor::default();
        r.add("topsecretvalue");
        let text = "failed for http://h/x?access_token=abc123&page=2 with topsecretvalue";
        assert_eq!(
            r.redact(text),
            "failed for http://h/x?access_token=[redacted]&page=2 with [redacted]"
        );
    }
}
