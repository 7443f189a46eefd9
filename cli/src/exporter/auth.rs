//! Basic auth of `/metrics`: the users of the web configuration and their bcrypt hashes.
//!
//! bcrypt is slow on purpose (tens of milliseconds at cost 10, seconds at 18), and Prometheus
//! sends the same user and password at every scrape: a password that verified is remembered,
//! as exporter-toolkit does, so that a scrape every 15 s spends one bcrypt in the process's
//! life, not one each time. What is remembered is an HMAC of the password under a key drawn at
//! start, never the password nor a plain digest of it, and it is compared in constant time.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use monapi::Secret;
use ring::hmac;

/// What a refused request is told: the scheme and the realm a browser shows.
pub(crate) const CHALLENGE: &str = r#"Basic realm="monapi exporter""#;

/// bcrypt reads 72 bytes of a password at most: a longer one would pass on its first 72
/// alone. Go's bcrypt (exporter-toolkit's) refuses it; so does monapi.
const MAX_PASSWORD: usize = 72;

/// The costs bcrypt takes (the bcrypt crate's rule, whose constants are private).
const COSTS: std::ops::RangeInclusive<u32> = 4..=31;

/// Whether `hash` is a bcrypt hash monapi can verify (`$2a$`, `$2b$`, `$2x$` or `$2y$`, cost 4
/// to 31), and why not. The reason never quotes the hash.
pub(crate) fn check_hash(hash: &str) -> Result<(), String> {
    let parts: bcrypt::HashParts = hash.parse().map_err(|e| match e {
        bcrypt::BcryptError::InvalidHash(why) => why.to_string(),
        _ => "unreadable".to_string(),
    })?;
    // Checked now: the bcrypt crate checks it only when it verifies, at the first scrape.
    if COSTS.contains(&parts.get_cost()) {
        Ok(())
    } else {
        Err(format!(
            "its cost must be from {} to {}",
            COSTS.start(),
            COSTS.end()
        ))
    }
}

/// The users who may read `/metrics`, with what their scrapes proved. No `Debug`: it holds the
/// hashes.
pub(crate) struct Users {
    /// Each user's bcrypt hash (checked by [`check_hash`]).
    hashes: BTreeMap<String, Secret>,
    /// The key of the HMACs in `verified`, drawn at start.
    key: hmac::Key,
    /// For each user, the HMAC of the last password that verified.
    verified: Mutex<HashMap<String, hmac::Tag>>,
    /// One bcrypt at a time (exporter-toolkit's rule too): a flood of wrong passwords takes one
    /// core of the blocking pool, never all of them from the refresh.
    bcrypt: tokio::sync::Semaphore,
    /// bcrypt verifications run so far (the tests count them).
    verifications: AtomicUsize,
}

impl Users {
    /// `hashes`: at least one user, each hash checked by [`check_hash`].
    pub(crate) fn new(hashes: BTreeMap<String, Secret>) -> Users {
        assert!(
            !hashes.is_empty(),
            "the web configuration refuses an empty basic_auth_users"
        );
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &ring::rand::SystemRandom::new())
            .expect("the system's random numbers");
        Users {
            hashes,
            key,
            verified: Mutex::new(HashMap::new()),
            bcrypt: tokio::sync::Semaphore::new(1),
            verifications: AtomicUsize::new(0),
        }
    }

    /// The user names, in order.
    #[cfg(test)]
    pub(crate) fn names(&self) -> Vec<&str> {
        self.hashes.keys().map(String::as_str).collect()
    }

    /// Whether the request's `Authorization` names a user and their password.
    async fn allow(&self, headers: &HeaderMap) -> bool {
        let Some((user, password)) = credentials(headers) else {
            return false;
        };
        if password.len() > MAX_PASSWORD {
            return false;
        }
        let known = self.hashes.get(&user);
        if known.is_some() && self.remembered(&user, &password) {
            return true;
        }
        // An unknown user's password is checked against a user's hash all the same, so that a
        // refusal takes as long whether the user exists or not (no user names found by timing).
        let hash = known
            .or_else(|| self.hashes.values().next())
            .expect("at least one user")
            .clone();
        let verified = {
            let _one_at_a_time = self
                .bcrypt
                .acquire()
                .await
                .expect("the semaphore is never closed");
            self.verifications.fetch_add(1, Ordering::Relaxed);
            let checked = password.clone();
            tokio::task::spawn_blocking(move || bcrypt::verify(checked, hash.expose()).unwrap_or(false))
                .await
                .unwrap_or(false)
        };
        let allowed = verified && known.is_some();
        if allowed {
            let tag = hmac::sign(&self.key, &password);
            self.verified
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(user, tag);
        }
        allowed
    }

    /// Whether `password` is the last one that verified for `user` (constant time: `hmac::verify`).
    fn remembered(&self, user: &str, password: &[u8]) -> bool {
        let verified = self.verified.lock().unwrap_or_else(PoisonError::into_inner);
        verified
            .get(user)
            .is_some_and(|tag| hmac::verify(&self.key, password, tag.as_ref()).is_ok())
    }
}

/// The user and password of a `Basic` `Authorization` header (RFC 7617); the user as UTF-8.
fn credentials(headers: &HeaderMap) -> Option<(String, Vec<u8>)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let colon = decoded.iter().position(|&byte| byte == b':')?;
    let user = String::from_utf8(decoded[..colon].to_vec()).ok()?;
    Some((user, decoded[colon + 1..].to_vec()))
}

/// The layer of `/metrics`: the request goes on with a user's right password, and is answered
/// 401 with the challenge otherwise.
pub(crate) async fn require(State(users): State<Arc<Users>>, request: Request, next: Next) -> Response {
    if users.allow(request.headers()).await {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, CHALLENGE)],
            "401 Unauthorized: /metrics needs a user and password of the exporter's web configuration\n",
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users() -> Users {
        let hash = |password: &str| Secret::new(bcrypt::hash(password, 4).unwrap());
        Users::new(BTreeMap::from([
            ("alice".to_string(), hash("wonderland")),
            ("bob".to_string(), hash("builder")),
        ]))
    }

    fn basic(credentials: &[u8]) -> HeaderMap {
        let encoded = base64::engine::general_purpose::STANDARD.encode(credentials);
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, format!("Basic {encoded}").parse().unwrap());
        headers
    }

    #[tokio::test]
    async fn a_user_s_password_passes_and_is_verified_by_bcrypt_once() {
        let users = users();
        assert!(users.allow(&basic(b"alice:wonderland")).await);
        assert_eq!(users.verifications.load(Ordering::Relaxed), 1);
        for _ in 0..3 {
            assert!(users.allow(&basic(b"alice:wonderland")).await);
        }
        assert_eq!(users.verifications.load(Ordering::Relaxed), 1, "remembered");
        // Another user's password, or a wrong one, is checked again, and refused.
        assert!(!users.allow(&basic(b"alice:builder")).await);
        assert!(!users.allow(&basic(b"bob:wonderland")).await);
        assert_eq!(users.verifications.load(Ordering::Relaxed), 3);
        assert!(users.allow(&basic(b"bob:builder")).await);
        assert!(users.allow(&basic(b"alice:wonderland")).await);
        assert_eq!(users.verifications.load(Ordering::Relaxed), 4);
    }

    #[tokio::test]
    async fn unknown_users_wrong_passwords_and_bad_headers_are_refused() {
        let users = users();
        // An unknown user costs a bcrypt all the same (no user names found by timing).
        assert!(!users.allow(&basic(b"carol:wonderland")).await);
        assert_eq!(users.verifications.load(Ordering::Relaxed), 1);
        assert!(!users.allow(&basic(b"alice:")).await);
        assert!(!users.allow(&basic(b"alice")).await);
        assert!(!users.allow(&basic(b":wonderland")).await);
        assert!(!users.allow(&HeaderMap::new()).await);
        let mut bearer = HeaderMap::new();
        bearer.insert(header::AUTHORIZATION, "Bearer alice:wonderland".parse().unwrap());
        assert!(!users.allow(&bearer).await);
        let mut garbled = HeaderMap::new();
        garbled.insert(header::AUTHORIZATION, "Basic !!!".parse().unwrap());
        assert!(!users.allow(&garbled).await);
        // The scheme's name is case-insensitive.
        let mut lower = basic(b"alice:wonderland");
        let value = lower[header::AUTHORIZATION]
            .to_str()
            .unwrap()
            .replace("Basic", "basic");
        lower.insert(header::AUTHORIZATION, value.parse().unwrap());
        assert!(users.allow(&lower).await);
    }

    #[tokio::test]
    async fn a_password_longer_than_bcrypt_reads_is_refused() {
        let exact = "x".repeat(MAX_PASSWORD);
        let users = Users::new(BTreeMap::from([(
            "alice".to_string(),
            Secret::new(bcrypt::hash(&exact, 4).unwrap()),
        )]));
        let longer = format!("{exact}z");
        // bcrypt alone would take it, on its first 72 bytes.
        assert!(bcrypt::verify(&longer, users.hashes["alice"].expose()).unwrap());
        assert!(!users.allow(&basic(format!("alice:{longer}").as_bytes())).await);
        assert!(users.allow(&basic(format!("alice:{exact}").as_bytes())).await);
    }

    #[test]
    fn hashes_are_checked_without_quoting_them() {
        assert!(check_hash(&bcrypt::hash("x", 4).unwrap()).is_ok());
        assert!(check_hash("$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze").is_ok());
        let why = check_hash("$2y$32$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze").unwrap_err();
        assert!(why.contains("cost must be from 4 to 31"), "{why}");
        let why = check_hash("plain password").unwrap_err();
        assert!(!why.contains("plain"), "{why}");
    }
}
