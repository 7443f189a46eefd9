//! `--web-config-file`: who may scrape, in the web configuration format of Prometheus'
//! exporter-toolkit (the file node_exporter, Prometheus itself and most exporters take):
//! `tls_server_config` (`cert_file`, `key_file`) for HTTPS and `basic_auth_users` for a user and
//! password on `/metrics`.
//!
//! The rest of that format is refused by name rather than ignored: a file written for another
//! exporter (client certificates, a minimum TLS version...) must not serve with less than it
//! asks for. The file and what it names are read once, at start, before anything is fetched; a
//! problem is a bad argument (exit 2) naming the file, the key and the rule, never a value of
//! `basic_auth_users` (the hashes are secrets).

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use monapi::Secret;
use serde_norway::{Mapping, Value};
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig;

use super::auth::{self, Users};

/// What a web configuration asks for; the default (no file) is plain HTTP, open to all.
#[derive(Default)]
pub(crate) struct WebConfig {
    /// HTTPS with this configuration, when `tls_server_config` is given.
    pub(crate) tls: Option<Arc<ServerConfig>>,
    /// The users `/metrics` asks for, when `basic_auth_users` is given.
    pub(crate) users: Option<Users>,
}

/// The keys exporter-toolkit knows at the top of the file that monapi does not take, and why.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "http_server_config",
        "HTTP/2 and added response headers are not supported",
    ),
    ("rate_limit", "rate limiting is not supported"),
];

const CLIENT_CERTIFICATES: &str = "client certificates are not supported";
const RUSTLS_DEFAULTS: &str =
    "monapi uses rustls' safe defaults: TLS 1.2 and 1.3 with their modern cipher suites and curves";

/// The keys exporter-toolkit knows in `tls_server_config` that monapi does not take, and why.
const UNSUPPORTED_TLS: &[(&str, &str)] = &[
    ("cert", "an inline certificate is not supported: give cert_file"),
    ("key", "an inline key is not supported: give key_file"),
    ("client_ca", CLIENT_CERTIFICATES),
    ("client_ca_file", CLIENT_CERTIFICATES),
    ("client_auth_type", CLIENT_CERTIFICATES),
    ("client_allowed_sans", CLIENT_CERTIFICATES),
    ("min_version", RUSTLS_DEFAULTS),
    ("max_version", RUSTLS_DEFAULTS),
    ("cipher_suites", RUSTLS_DEFAULTS),
    ("prefer_server_cipher_suites", RUSTLS_DEFAULTS),
    ("curve_preferences", RUSTLS_DEFAULTS),
];

impl WebConfig {
    /// Reads `file` and everything it names. Every problem is an `InvalidInput` error (the
    /// command's usage exit) that names the file.
    pub(crate) fn load(file: &Path) -> std::io::Result<WebConfig> {
        let reading = Reading { file };
        let bytes = std::fs::read(file).map_err(|e| reading.refuse(format_args!("cannot read it: {e}")))?;
        reading.config(&bytes)
    }
}

/// One web configuration file being read: its errors name it.
struct Reading<'a> {
    file: &'a Path,
}

impl Reading<'_> {
    fn refuse(&self, problem: impl Display) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("web configuration {}: {problem}", self.file.display()),
        )
    }

    fn config(&self, bytes: &[u8]) -> std::io::Result<WebConfig> {
        // libyaml's syntax errors name a place and a rule, never the text found there.
        let document: Value =
            serde_norway::from_slice(bytes).map_err(|e| self.refuse(format_args!("not YAML: {e}")))?;
        let top = match &document {
            // An empty file asks for nothing, as exporter-toolkit reads it.
            Value::Null => return Ok(WebConfig::default()),
            Value::Mapping(top) => top,
            _ => return Err(self.refuse("must be a mapping of tls_server_config and basic_auth_users")),
        };
        let mut config = WebConfig::default();
        for (key, value) in self.entries(top, None)? {
            match key {
                "tls_server_config" => config.tls = Some(self.tls(value)?),
                "basic_auth_users" => config.users = Some(self.users(value)?),
                _ => {
                    return Err(self.unsupported(
                        None,
                        key,
                        UNSUPPORTED,
                        "tls_server_config and basic_auth_users",
                    ))
                }
            }
        }
        Ok(config)
    }

    /// The entries of a mapping (`within`: the key it is the value of), each key a string.
    fn entries<'v>(
        &self,
        mapping: &'v Mapping,
        within: Option<&str>,
    ) -> std::io::Result<Vec<(&'v str, &'v Value)>> {
        mapping
            .iter()
            .map(|(key, value)| match key {
                Value::String(key) => Ok((key.as_str(), value)),
                _ => Err(self.refuse(format_args!("{}keys must be strings", prefix(within)))),
            })
            .collect()
    }

    /// The refusal of `key` in `within`: one exporter-toolkit knows but monapi does not take
    /// (`known`, each with why), or one no one knows.
    fn unsupported(
        &self,
        within: Option<&str>,
        key: &str,
        known: &[(&str, &str)],
        takes: &str,
    ) -> std::io::Error {
        match known.iter().find(|(name, _)| *name == key) {
            Some((_, why)) => self.refuse(format_args!(
                "{}{key} is not supported by monapi exporter ({why}); remove it",
                prefix(within)
            )),
            None => self.refuse(format_args!(
                "{}{key} is not a key of the web configuration{} (monapi exporter takes {takes})",
                prefix(within),
                within.map(|w| format!("'s {w}")).unwrap_or_default()
            )),
        }
    }

    /// `tls_server_config`: the certificate chain and its key, read and paired now.
    fn tls(&self, value: &Value) -> std::io::Result<Arc<ServerConfig>> {
        const WITHIN: Option<&str> = Some("tls_server_config");
        let Value::Mapping(mapping) = value else {
            return Err(self.refuse(
                "tls_server_config must be a mapping of cert_file and key_file (leave it out for plain HTTP)",
            ));
        };
        let (mut cert_file, mut key_file) = (None, None);
        for (key, value) in self.entries(mapping, WITHIN)? {
            match key {
                "cert_file" => cert_file = Some(self.path("tls_server_config.cert_file", value)?),
                "key_file" => key_file = Some(self.path("tls_server_config.key_file", value)?),
                _ => return Err(self.unsupported(WITHIN, key, UNSUPPORTED_TLS, "cert_file and key_file")),
            }
        }
        let missing = |name: &str| self.refuse(format_args!("tls_server_config needs {name}"));
        let cert_file = cert_file.ok_or_else(|| missing("cert_file"))?;
        let key_file = key_file.ok_or_else(|| missing("key_file"))?;
        let read = |name: &str, path: &Path| {
            std::fs::read(path).map_err(|e| {
                self.refuse(format_args!(
                    "tls_server_config.{name} {}: cannot read it: {e}",
                    path.display()
                ))
            })
        };

        let chain = CertificateDer::pem_slice_iter(&read("cert_file", &cert_file)?)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                self.refuse(format_args!(
                    "tls_server_config.cert_file {} is not PEM: {e}",
                    cert_file.display()
                ))
            })?;
        if chain.is_empty() {
            return Err(self.refuse(format_args!(
                "tls_server_config.cert_file {} holds no certificate (PEM, BEGIN CERTIFICATE)",
                cert_file.display()
            )));
        }
        // pem's errors may quote a line of the file: the key file's are not passed on.
        let key = PrivateKeyDer::from_pem_slice(&read("key_file", &key_file)?).map_err(|e| {
            let why = match e {
                pem::Error::NoItemsFound => "holds no private key (PEM: PKCS#8, PKCS#1 or SEC1)",
                _ => "is not a PEM private key",
            };
            self.refuse(format_args!(
                "tls_server_config.key_file {} {why}",
                key_file.display()
            ))
        })?;

        // The provider every other TLS of the workspace uses (reqwest's, the emulator's).
        let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| self.refuse(format_args!("tls_server_config: {e}")))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| {
                self.refuse(format_args!(
                    "tls_server_config: the certificate of {} and the key of {} cannot serve together: {e}",
                    cert_file.display(),
                    key_file.display()
                ))
            })?;
        // The exporter's server speaks HTTP/1.1 only (axum's http1).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }

    /// A file name of the configuration: relative to the file's directory, as exporter-toolkit
    /// reads it (not to the directory the exporter was started in).
    fn path(&self, name: &str, value: &Value) -> std::io::Result<PathBuf> {
        match value {
            Value::String(path) if !path.is_empty() => {
                let directory = self.file.parent().unwrap_or(Path::new(""));
                Ok(directory.join(path))
            }
            _ => Err(self.refuse(format_args!("{name} must be a file name"))),
        }
    }

    /// `basic_auth_users`: each user's name and bcrypt hash, checked now.
    fn users(&self, value: &Value) -> std::io::Result<Users> {
        const WITHIN: Option<&str> = Some("basic_auth_users");
        let rule = "basic_auth_users must be a mapping of user names to bcrypt hashes (leave it out for no authentication)";
        let Value::Mapping(mapping) = value else {
            return Err(self.refuse(rule));
        };
        // Asking for authentication with no one allowed is a mistake, not an open door.
        if mapping.is_empty() {
            return Err(self.refuse(rule));
        }
        let mut hashes = BTreeMap::new();
        for (user, hash) in self.entries(mapping, WITHIN)? {
            // Basic auth sends `user:password`: a user name with a colon could never log in.
            if user.is_empty() || user.contains(':') {
                return Err(self.refuse("basic_auth_users: a user name must be non-empty and without ':'"));
            }
            // Neither the value nor, for a non-string, its kind: only the rule.
            let Value::String(hash) = hash else {
                return Err(self.refuse(format_args!(
                    "basic_auth_users.{user} must be a bcrypt hash (a string)"
                )));
            };
            auth::check_hash(hash).map_err(|why| {
                self.refuse(format_args!(
                    "basic_auth_users.{user} is not a bcrypt hash: {why}"
                ))
            })?;
            hashes.insert(user.to_string(), Secret::new(hash.as_str()));
        }
        Ok(Users::new(hashes))
    }
}

/// `within.` before a key, or nothing at the top.
fn prefix(within: Option<&str>) -> String {
    within.map(|w| format!("{w}.")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bcrypt hash of cost 4 (the cheapest), made once.
    fn hash() -> &'static str {
        static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        HASH.get_or_init(|| bcrypt::hash("right", 4).unwrap())
    }

    fn read(text: &str) -> std::io::Result<WebConfig> {
        Reading {
            file: Path::new("/etc/monapi/web.yml"),
        }
        .config(text.as_bytes())
    }

    fn refused(text: &str) -> String {
        let error = read(text).err().unwrap_or_else(|| panic!("accepted: {text}"));
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
        let message = error.to_string();
        assert!(
            message.starts_with("web configuration /etc/monapi/web.yml: "),
            "{message}"
        );
        message
    }

    #[test]
    fn users_are_read_and_an_empty_file_asks_for_nothing() {
        let config = read(&format!(
            "basic_auth_users:\n  alice: {}\n  bob: '{}'\n",
            hash(),
            hash()
        ))
        .unwrap();
        assert!(config.tls.is_none());
        assert_eq!(config.users.unwrap().names(), ["alice", "bob"]);
        for empty in ["", "# nothing\n", "---\n"] {
            let config = read(empty).unwrap();
            assert!(config.tls.is_none() && config.users.is_none(), "{empty:?}");
        }
    }

    #[test]
    fn the_keys_exporter_toolkit_knows_and_monapi_does_not_take_are_refused_by_name() {
        for (text, named, why) in [
            (
                "http_server_config:\n  http2: false\n",
                "http_server_config is not supported",
                "HTTP/2",
            ),
            (
                "rate_limit:\n  burst: 2\n",
                "rate_limit is not supported",
                "rate limiting",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: NoClientCert\n",
                "tls_server_config.client_auth_type is not supported",
                "client certificates",
            ),
            (
                "tls_server_config:\n  client_ca_file: ca.pem\n",
                "tls_server_config.client_ca_file is not supported",
                "client certificates",
            ),
            (
                "tls_server_config:\n  min_version: TLS13\n",
                "tls_server_config.min_version is not supported",
                "rustls",
            ),
            (
                "tls_server_config:\n  cipher_suites: []\n",
                "tls_server_config.cipher_suites",
                "rustls",
            ),
            (
                "tls_server_config:\n  cert: |\n    PEM\n",
                "tls_server_config.cert is not supported",
                "cert_file",
            ),
        ] {
            let message = refused(text);
            assert!(
                message.contains(named) && message.contains(why),
                "{text:?}: {message}"
            );
            assert!(message.contains("remove it"), "{message}");
        }
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let message = refused("basic_auth_user:\n  alice: x\n");
        assert!(message.contains("basic_auth_user is not a key"), "{message}");
        assert!(
            message.contains("tls_server_config and basic_auth_users"),
            "{message}"
        );
        let message = refused("tls_server_config:\n  certfile: a\n");
        assert!(
            message.contains("tls_server_config.certfile is not a key"),
            "{message}"
        );
        assert!(message.contains("cert_file and key_file"), "{message}");
        assert!(refused("1: x\n").contains("keys must be strings"));
    }

    #[test]
    fn a_hash_that_is_not_bcrypt_is_refused_without_showing_it() {
        for (value, why) in [
            ("5f4dcc3b5aa765d61d8327deb882cf99", "60"),
            // a bcrypt hash but for its cost
            (
                "$2y$03$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze",
                "cost",
            ),
            (
                "$2z$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze",
                "prefix",
            ),
        ] {
            let message = refused(&format!("basic_auth_users:\n  alice: '{value}'\n"));
            assert!(
                message.contains("basic_auth_users.alice is not a bcrypt hash"),
                "{message}"
            );
            assert!(message.contains(why), "{message}");
            assert!(!message.contains(value), "the hash shows: {message}");
        }
        let message = refused("basic_auth_users:\n  alice: 123456\n");
        assert!(
            message.contains("must be a bcrypt hash (a string)") && !message.contains("123456"),
            "{message}"
        );
        let message = refused(&format!("basic_auth_users:\n  'al:ice': {}\n", hash()));
        assert!(
            message.contains("without ':'") && !message.contains(hash()),
            "{message}"
        );
    }

    #[test]
    fn tls_needs_both_files_and_users_someone() {
        assert!(
            refused("tls_server_config:\n  cert_file: a.pem\n").contains("tls_server_config needs key_file")
        );
        assert!(
            refused("tls_server_config:\n  key_file: a.pem\n").contains("tls_server_config needs cert_file")
        );
        assert!(refused("tls_server_config:\n").contains("tls_server_config must be a mapping"));
        assert!(refused("tls_server_config:\n  cert_file: ''\n  key_file: k\n")
            .contains("cert_file must be a file name"));
        assert!(refused("basic_auth_users: {}\n").contains("basic_auth_users must be a mapping"));
        assert!(refused("basic_auth_users:\n").contains("basic_auth_users must be a mapping"));
        assert!(refused("- a\n").contains("must be a mapping"));
        assert!(refused("a: [\n").contains("not YAML"));
    }

    #[test]
    fn files_are_read_from_the_configuration_s_directory() {
        let message =
            refused("tls_server_config:\n  cert_file: exporter.crt\n  key_file: /abs/exporter.key\n");
        assert!(
            message.contains("tls_server_config.cert_file /etc/monapi/exporter.crt: cannot read it"),
            "{message}"
        );
    }
}
