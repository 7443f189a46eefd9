//! Every setting of a client, declared once: its name in each language, the values it takes,
//! its default, its bounds and its environment variable ([`SETTINGS`]).
//!
//! The Python and Node packages and the `monapi` command hand what their caller gave to
//! [`Options::set`] as it is (a keyword argument, a property of an options object, a flag), so a
//! setting is read, bounded and named alike in every language; pickling stores
//! [`Settings::values`]. Adding a setting means a [`Setting`] here, its field in [`Options`] and
//! [`Settings`] (with its arms in [`Options::set`] and [`Settings::values`]), its use, and the
//! stubs, declarations and docs of the packages.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use chrono::FixedOffset;

use crate::input::{self, Unit};
use crate::network::{CaBundle, Language, Proxy};
use crate::{Error, Result, Secret, StoreLocation};

/// Default overall timeout of one HTTP exchange.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default timeout for making a connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of retries of a read after a transient failure.
pub const DEFAULT_MAX_RETRIES: usize = 2;
/// Default margin before expiry at which a token is renewed (at most a quarter of its life).
pub const DEFAULT_REFRESH_LEEWAY: Duration = Duration::from_secs(60);
/// Default bound on the connections one client opens to the service (see
/// [`ClientBuilder::max_connections`](crate::ClientBuilder::max_connections)).
pub const DEFAULT_MAX_CONNECTIONS: usize = 100;
/// Default bound on one answer's size once decompressed, 1 GiB (see
/// [`ClientBuilder::max_response_bytes`](crate::ClientBuilder::max_response_bytes)).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 1 << 30;
/// The most `max_response_bytes` may be: 2^53, the largest whole number every language's
/// numbers hold exactly.
pub const MAX_RESPONSE_BYTES: usize = 1 << 53;
/// Default of `settle`: how long after a day ends (in the client's time zone) it counts as
/// settled, and a store keeps it. Two hours: the longest check frequency the service offers
/// is an hour, so a day's last check runs within an hour of midnight, and the second hour is
/// for its collectors' uploads to reach the reports.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(2 * 3600);
/// The service's time zone, the default of `timezone`: China Standard Time, `+08:00`, without
/// daylight saving time (the service runs from Beijing).
///
/// ```
/// assert_eq!(monapi::SERVICE_TIMEZONE.to_string(), "+08:00");
/// ```
pub const SERVICE_TIMEZONE: FixedOffset = FixedOffset::east_opt(8 * 3600).unwrap();

/// What values a setting takes, and so how a caller's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// Text.
    Text,
    /// Text that is never shown (in an error, `Debug`, a `repr` or a log line).
    Secret,
    /// A duration: a number of seconds (milliseconds in JavaScript, whose names end in `Ms`),
    /// more than 0 and at most [`input::MAX_TIMEOUT`].
    Duration,
    /// A whole number from `min` to `max`.
    Count {
        /// The least value.
        min: usize,
        /// The greatest value.
        max: usize,
    },
    /// An offset from UTC, as [`input::timezone`] reads it.
    Timezone,
    /// CA certificates: the path of a PEM file, or PEM text (bytes).
    Certificates,
    /// A proxy URL, or no proxy at all (Python's `None`, JavaScript's `false`, `--no-proxy`).
    Proxy,
    /// On or off: a boolean; as text (the command line's and the environment's), `true`,
    /// `false`, `1`, `0`, `yes`, `no`, `on` or `off`.
    Switch,
    /// Names and their text values (Python's `dict`, JavaScript's plain object); on the command
    /// line, a flag given once per `KEY=VALUE`. A value whose name says it is a secret (a key,
    /// a token, a password) is never shown.
    Map,
}

/// A setting's value when it is neither given nor in the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// None: the setting is required, or optional without a value.
    None,
    /// A duration.
    Duration(Duration),
    /// A number.
    Count(usize),
    /// What the docs say, for a default that is not a plain value.
    Text(&'static str),
}

/// One setting of a client.
#[derive(Debug)]
pub struct Setting {
    /// Its name in Rust, Python and the core's errors (`max_connections`); the command line's
    /// flag is this name with dashes (`--max-connections`).
    pub name: &'static str,
    /// Its name in JavaScript (`maxConnections`; durations in milliseconds end in `Ms`).
    pub node: &'static str,
    /// The values it takes.
    pub kind: Kind,
    /// The variable read when it is not given (with [`ClientBuilder::from_env`](crate::ClientBuilder::from_env)).
    pub env: Option<&'static str>,
    /// Its value when it is neither given nor in the environment.
    pub default: Fallback,
    /// Whether the `monapi` command has a flag for it.
    pub cli: bool,
    /// What it is, in one line (the command line's help).
    pub help: &'static str,
}

/// Every setting a caller gives by name, in the order of the docs.
///
/// ```
/// let timeout = monapi::settings::find(monapi::Language::Node, "timeoutMs").unwrap();
/// assert_eq!(timeout.name, "timeout");
/// assert_eq!(timeout.name_in(monapi::Language::Python), "timeout");
/// ```
pub const SETTINGS: &[Setting] = &[
    Setting {
        name: "base_url",
        node: "baseUrl",
        kind: Kind::Text,
        env: Some("MONAPI_BASE_URL"),
        default: Fallback::None,
        cli: true,
        help: "Base URL of the service, e.g. https://api.example.com",
    },
    Setting {
        name: "client_id",
        node: "clientId",
        kind: Kind::Text,
        env: Some("MONAPI_CLIENT_ID"),
        default: Fallback::None,
        cli: true,
        help: "The registered API client's id",
    },
    Setting {
        name: "client_secret",
        node: "clientSecret",
        kind: Kind::Secret,
        env: Some("MONAPI_CLIENT_SECRET"),
        default: Fallback::None,
        cli: true,
        help: "The registered API client's secret",
    },
    Setting {
        name: "username",
        node: "username",
        kind: Kind::Text,
        env: Some("MONAPI_USERNAME"),
        default: Fallback::None,
        cli: true,
        help: "The account login (an e-mail address)",
    },
    Setting {
        name: "password",
        node: "password",
        kind: Kind::Secret,
        env: Some("MONAPI_PASSWORD"),
        default: Fallback::None,
        cli: true,
        help: "The account password in plain text (only its MD5 is kept and sent)",
    },
    Setting {
        name: "password_md5",
        node: "passwordMd5",
        kind: Kind::Secret,
        env: Some("MONAPI_PASSWORD_MD5"),
        default: Fallback::None,
        cli: true,
        help: "The account password already hashed (32 hex digits), instead of the password",
    },
    Setting {
        name: "password_file",
        node: "passwordFile",
        kind: Kind::Text,
        env: Some("MONAPI_PASSWORD_FILE"),
        default: Fallback::Text("$CREDENTIALS_DIRECTORY/monapi.password, when that exists"),
        cli: true,
        help: "A file holding the account password (read once; a trailing newline is dropped), instead of the password",
    },
    Setting {
        name: "client_secret_file",
        node: "clientSecretFile",
        kind: Kind::Text,
        env: Some("MONAPI_CLIENT_SECRET_FILE"),
        default: Fallback::Text("$CREDENTIALS_DIRECTORY/monapi.client_secret, when that exists"),
        cli: true,
        help: "A file holding the API client's secret (read once; a trailing newline is dropped), instead of the secret",
    },
    Setting {
        name: "timeout",
        node: "timeoutMs",
        kind: Kind::Duration,
        env: Some("MONAPI_TIMEOUT"),
        default: Fallback::Duration(DEFAULT_TIMEOUT),
        cli: true,
        help: "Overall timeout of one HTTP exchange",
    },
    Setting {
        name: "connect_timeout",
        node: "connectTimeoutMs",
        kind: Kind::Duration,
        env: Some("MONAPI_CONNECT_TIMEOUT"),
        default: Fallback::Duration(DEFAULT_CONNECT_TIMEOUT),
        cli: true,
        help: "Timeout for making a connection",
    },
    Setting {
        name: "max_retries",
        node: "maxRetries",
        kind: Kind::Count {
            min: 0,
            max: input::MAX_RETRIES,
        },
        env: Some("MONAPI_MAX_RETRIES"),
        default: Fallback::Count(DEFAULT_MAX_RETRIES),
        cli: true,
        help: "Retries of a read after a transient failure (connection, 429, 5xx, error page)",
    },
    Setting {
        name: "user_agent",
        node: "userAgent",
        kind: Kind::Text,
        env: Some("MONAPI_USER_AGENT"),
        default: Fallback::Text("monapi-<language>/<version>"),
        cli: true,
        help: "The User-Agent header",
    },
    Setting {
        name: "ca_bundle",
        node: "caBundle",
        kind: Kind::Certificates,
        env: Some("MONAPI_CA_BUNDLE"),
        default: Fallback::None,
        cli: true,
        help: "PEM file of CA certificates to trust besides the system's (also read: SSL_CERT_FILE, SSL_CERT_DIR)",
    },
    Setting {
        name: "proxy",
        node: "proxy",
        kind: Kind::Proxy,
        env: Some("MONAPI_PROXY"),
        default: Fallback::Text("the environment's: HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, with NO_PROXY"),
        cli: true,
        help: "Proxy for every call, e.g. http://user:password@proxy:3128",
    },
    Setting {
        name: "max_connections",
        node: "maxConnections",
        kind: Kind::Count {
            min: 1,
            max: input::MAX_CONNECTIONS,
        },
        env: Some("MONAPI_MAX_CONNECTIONS"),
        default: Fallback::Count(DEFAULT_MAX_CONNECTIONS),
        cli: true,
        help: "The most connections open to the service at once",
    },
    Setting {
        name: "max_response_bytes",
        node: "maxResponseBytes",
        kind: Kind::Count {
            min: 1,
            max: MAX_RESPONSE_BYTES,
        },
        env: Some("MONAPI_MAX_RESPONSE_BYTES"),
        default: Fallback::Count(DEFAULT_MAX_RESPONSE_BYTES),
        cli: true,
        help: "The largest answer accepted, in bytes once decompressed",
    },
    Setting {
        name: "timezone",
        node: "timezone",
        kind: Kind::Timezone,
        env: Some("MONAPI_TIMEZONE"),
        default: Fallback::Text("+08:00, the service's"),
        cli: true,
        help: "Time zone of the service's days and clock times, as an offset from UTC",
    },
    Setting {
        name: "store",
        node: "store",
        kind: Kind::Text,
        env: Some("MONAPI_STORE"),
        default: Fallback::None,
        cli: true,
        help: "Where the Parquet store is, a directory or a URL (s3://bucket/prefix, gs://, az://): report tables read the settled days it holds and keep those they fetch",
    },
    Setting {
        name: "storage_options",
        node: "storageOptions",
        kind: Kind::Map,
        env: None,
        default: Fallback::Text("the cloud's own variables (AWS_*, GOOGLE_*, AZURE_*)"),
        cli: true,
        help: "Options of an object store (s3://, gs://, az://): endpoint, region, credentials, as object_store names them; they override the cloud's variables",
    },
    Setting {
        name: "settle",
        node: "settleMs",
        kind: Kind::Duration,
        env: Some("MONAPI_SETTLE"),
        default: Fallback::Duration(DEFAULT_SETTLE),
        cli: true,
        help: "How long after a day ends (in the client's time zone) it is settled, and kept in the store",
    },
    Setting {
        name: "propagate_trace_context",
        node: "propagateTraceContext",
        kind: Kind::Switch,
        env: Some("MONAPI_PROPAGATE_TRACE_CONTEXT"),
        default: Fallback::Text("false"),
        cli: false,
        help: "Whether requests carry the caller's W3C trace context (a traceparent header) to the service, a third party",
    },
];

/// Whether the value of `name` in a [`Kind::Map`] setting (the storage options) is a secret,
/// never shown: its name says it is a key, a token, a secret, a password or a signature (not
/// an id).
///
/// ```
/// assert!(monapi::settings::is_secret_option("aws_secret_access_key"));
/// assert!(!monapi::settings::is_secret_option("aws_access_key_id"));
/// ```
pub fn is_secret_option(name: &str) -> bool {
    crate::location::is_secret(name)
}

/// A setting's value as a caller's language hands it over.
#[derive(Clone, PartialEq)]
pub enum Value {
    /// Nothing: Python's `None`, JavaScript's `null` and `undefined`. The setting is left out,
    /// except a Python `proxy=None`, which means no proxy.
    Null,
    /// A boolean (JavaScript's `proxy: false`; the command line's `--no-proxy`).
    Bool(bool),
    /// A number (Python's `int` and `float`, JavaScript's `number`).
    Number(f64),
    /// Text (a string, a path). The command line and the environment give every value as text.
    Text(String),
    /// Bytes (Python's `bytes`, JavaScript's `Buffer`): PEM text of certificates.
    Bytes(Vec<u8>),
    /// Names and text values (Python's `dict`, JavaScript's plain object).
    Map(Vec<(String, String)>),
}

// By hand: a value may be a secret.
impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Number(_) => f.write_str("Number(..)"),
            Value::Text(_) => f.write_str("Text(..)"),
            Value::Bytes(bytes) => write!(f, "Bytes({} bytes)", bytes.len()),
            Value::Map(pairs) => f
                .debug_list()
                .entries(pairs.iter().map(|(name, _)| name))
                .finish(),
        }
    }
}

/// The setting a caller names `name` in `language`.
///
/// ```
/// use monapi::{settings, Language};
/// assert_eq!(settings::find(Language::Python, "max_connections").unwrap().node, "maxConnections");
/// let err = settings::find(Language::Python, "timout").unwrap_err();
/// assert_eq!(err.field(), Some("timout"));
/// assert!(err.rule().unwrap().starts_with("is not a setting; did you mean timeout? (the settings: base_url, client_id"));
/// let err = settings::find(Language::Node, "max_retries").unwrap_err();
/// assert!(err.rule().unwrap().starts_with("is not a setting; did you mean maxRetries? (the settings: baseUrl"));
/// ```
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `name` and listing the names of the settings in `language`
/// when no setting is called `name` there, after the one it was most likely meant to be
/// ([`input::did_you_mean`]) when one is close.
pub fn find(language: Language, name: &str) -> Result<&'static Setting> {
    SETTINGS
        .iter()
        .find(|setting| setting.name_in(language) == name)
        .ok_or_else(|| {
            let known: Vec<_> = SETTINGS.iter().map(|s| s.name_in(language)).collect();
            let meant = crate::input::did_you_mean(name, known.iter().copied())
                .map(|meant| format!("; did you mean {meant}?"))
                .unwrap_or_default();
            Error::invalid_input(
                None,
                name,
                format!("is not a setting{meant} (the settings: {})", known.join(", ")),
            )
        })
}

/// The name `language` gives the setting the core calls `name`, when it is a setting.
///
/// ```
/// use monapi::{settings, Language};
/// assert_eq!(settings::name_in(Language::Node, "connect_timeout"), Some("connectTimeoutMs"));
/// assert_eq!(settings::name_in(Language::Node, "task_id"), None);
/// ```
pub fn name_in(language: Language, name: &str) -> Option<&'static str> {
    SETTINGS
        .iter()
        .find(|setting| setting.name == name)
        .map(|setting| setting.name_in(language))
}

impl Setting {
    /// The setting's name in `language` (the command line's is its name with underscores,
    /// as its errors show it; its flag is [`flag`](Setting::flag)).
    pub fn name_in(&self, language: Language) -> &'static str {
        match language {
            Language::Node => self.node,
            _ => self.name,
        }
    }

    /// The command line's flag, without its dashes (`max-connections`); a [`Kind::Map`]'s is
    /// singular, given once per pair (`--storage-option KEY=VALUE`).
    pub fn flag(&self) -> String {
        let flag = self.name.replace('_', "-");
        match self.kind {
            Kind::Map => flag.strip_suffix('s').map_or(flag.clone(), str::to_string),
            _ => flag,
        }
    }

    /// The unit `language` writes a [`Kind::Duration`] in.
    pub fn unit(language: Language) -> Unit {
        match language {
            Language::Node => Unit::Milliseconds,
            _ => Unit::Seconds,
        }
    }

    /// Whether `value` is of a type this setting takes in `language`. A binding whose
    /// language has its own error for a wrong type (Python's `TypeError`) raises it when this
    /// is false, with [`expects`](Setting::expects); [`Options::set`] refuses such a value
    /// too, as invalid input.
    pub fn takes(&self, value: &Value, language: Language) -> bool {
        match (value, self.kind) {
            (Value::Null, _) => true,
            (Value::Text(_), _) if matches!(language, Language::Cli) => true,
            (
                Value::Text(_),
                Kind::Text | Kind::Secret | Kind::Timezone | Kind::Certificates | Kind::Proxy,
            ) => true,
            (Value::Number(_), Kind::Duration | Kind::Count { .. }) => true,
            (Value::Bytes(_), Kind::Certificates) => true,
            (Value::Bool(false), Kind::Proxy) => language != Language::Python,
            (Value::Bool(_), Kind::Switch) => true,
            (Value::Map(_), Kind::Map) => true,
            _ => false,
        }
    }

    /// The types this setting takes in `language`, for the error about another one.
    ///
    /// ```
    /// use monapi::{settings, Language};
    /// let proxy = settings::find(Language::Python, "proxy").unwrap();
    /// assert_eq!(proxy.expects(Language::Python), "must be a URL (str) or None (no proxy)");
    /// ```
    pub fn expects(&self, language: Language) -> String {
        let (string, bytes, nothing) = match language {
            Language::Python => ("str", "bytes", "None"),
            _ => ("string", "a Buffer", "false"),
        };
        match self.kind {
            Kind::Text | Kind::Secret => format!("must be a {string}"),
            Kind::Duration => format!("must be a number of {}", Setting::unit(language).name()),
            Kind::Count { .. } => "must be a whole number".to_string(),
            Kind::Timezone => format!("must be a {string} such as \"+08:00\" or \"UTC\""),
            Kind::Certificates => format!("must be a path ({string}) or the PEM text as {bytes}"),
            Kind::Proxy => format!("must be a URL ({string}) or {nothing} (no proxy)"),
            Kind::Switch => match language {
                Language::Python => "must be True or False".to_string(),
                Language::Node | Language::Rust => "must be true or false".to_string(),
                Language::Cli => "must be true, false, 1, 0, yes, no, on or off".to_string(),
            },
            Kind::Map => match language {
                Language::Python => "must be a dict of str to str".to_string(),
                Language::Node => "must be an object of string values".to_string(),
                Language::Rust => "must be names and text values".to_string(),
                Language::Cli => "must be KEY=VALUE".to_string(),
            },
        }
    }
}

/// The settings of a client as its caller gives them, each optional (what is left out falls
/// back to the environment with [`ClientBuilder::from_env`](crate::ClientBuilder::from_env),
/// then to its default), for [`ClientBuilder::options`](crate::ClientBuilder::options). The
/// Python and Node packages and the command line fill one with [`Options::set`]. `Debug` shows
/// no secret.
///
/// ```
/// use monapi::{ClientBuilder, Language, Options, Value};
/// let mut options = Options::default();
/// options.set(Language::Python, "base_url", Value::Text("http://127.0.0.1:8080".into()))?;
/// options.set(Language::Python, "max_retries", Value::Number(5.0))?;
/// let err = ClientBuilder::new().options(options).build().unwrap_err();
/// assert_eq!(err.field(), Some("client_id"));
/// # Ok::<(), monapi::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// See [`ClientBuilder::base_url`](crate::ClientBuilder::base_url).
    pub base_url: Option<String>,
    /// See [`ClientBuilder::client_id`](crate::ClientBuilder::client_id).
    pub client_id: Option<String>,
    /// See [`ClientBuilder::client_secret`](crate::ClientBuilder::client_secret).
    pub client_secret: Option<Secret>,
    /// See [`ClientBuilder::username`](crate::ClientBuilder::username).
    pub username: Option<String>,
    /// See [`ClientBuilder::password`](crate::ClientBuilder::password).
    pub password: Option<Secret>,
    /// See [`ClientBuilder::password_md5`](crate::ClientBuilder::password_md5).
    pub password_md5: Option<Secret>,
    /// See [`ClientBuilder::password_file`](crate::ClientBuilder::password_file).
    pub password_file: Option<PathBuf>,
    /// See [`ClientBuilder::client_secret_file`](crate::ClientBuilder::client_secret_file).
    pub client_secret_file: Option<PathBuf>,
    /// See [`ClientBuilder::timeout`](crate::ClientBuilder::timeout).
    pub timeout: Option<Duration>,
    /// See [`ClientBuilder::connect_timeout`](crate::ClientBuilder::connect_timeout).
    pub connect_timeout: Option<Duration>,
    /// See [`ClientBuilder::max_retries`](crate::ClientBuilder::max_retries).
    pub max_retries: Option<usize>,
    /// See [`ClientBuilder::user_agent`](crate::ClientBuilder::user_agent).
    pub user_agent: Option<String>,
    /// See [`ClientBuilder::refresh_leeway`](crate::ClientBuilder::refresh_leeway).
    pub refresh_leeway: Option<Duration>,
    /// See [`ClientBuilder::ca_bundle`](crate::ClientBuilder::ca_bundle) and
    /// [`ClientBuilder::ca_bundle_pem`](crate::ClientBuilder::ca_bundle_pem).
    pub ca_bundle: Option<CaBundle>,
    /// See [`ClientBuilder::proxy`](crate::ClientBuilder::proxy) and
    /// [`ClientBuilder::no_proxy`](crate::ClientBuilder::no_proxy); `None` means the
    /// environment's proxy.
    pub proxy: Option<Proxy>,
    /// See [`ClientBuilder::max_connections`](crate::ClientBuilder::max_connections).
    pub max_connections: Option<usize>,
    /// See [`ClientBuilder::max_response_bytes`](crate::ClientBuilder::max_response_bytes).
    pub max_response_bytes: Option<usize>,
    /// See [`ClientBuilder::language`](crate::ClientBuilder::language).
    pub language: Option<Language>,
    /// See [`ClientBuilder::timezone`](crate::ClientBuilder::timezone).
    pub timezone: Option<FixedOffset>,
    /// See [`ClientBuilder::store`](crate::ClientBuilder::store): a directory, or a URL.
    pub store: Option<PathBuf>,
    /// See [`ClientBuilder::storage_option`](crate::ClientBuilder::storage_option).
    pub storage_options: Option<Vec<(String, String)>>,
    /// See [`ClientBuilder::settle`](crate::ClientBuilder::settle).
    pub settle: Option<Duration>,
    /// See [`ClientBuilder::propagate_trace_context`](crate::ClientBuilder::propagate_trace_context).
    pub propagate_trace_context: Option<bool>,
}

impl Options {
    /// Every `(name, value)` of `values`, named and written as `language` names and writes
    /// them (Python's keyword arguments, a JavaScript options object, flags), with the
    /// language recorded.
    ///
    /// ```
    /// use monapi::{Language, Options, Value};
    /// let options = Options::from_values(Language::Node, [("timeoutMs", Value::Number(2500.0))])?;
    /// assert_eq!(options.timeout, Some(std::time::Duration::from_millis(2500)));
    /// let err = Options::from_values(Language::Node, [("timeout", Value::Number(2.5))]).unwrap_err();
    /// assert_eq!(err.field(), Some("timeout"));
    /// # Ok::<(), monapi::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The error of [`set`](Options::set) for the first value it refuses.
    pub fn from_values<N: AsRef<str>>(
        language: Language,
        values: impl IntoIterator<Item = (N, Value)>,
    ) -> Result<Options> {
        let mut options = Options {
            language: Some(language),
            ..Options::default()
        };
        for (name, value) in values {
            options.set(language, name.as_ref(), value)?;
        }
        Ok(options)
    }

    /// Sets the setting `language` calls `name` from `value`, read by the setting's
    /// [`Kind`] (a duration in `language`'s unit; text for every kind from the command line).
    /// [`Value::Null`] leaves it out (Python's `proxy=None` means no proxy). Bounds that depend
    /// on other settings are checked when the client is built.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`], the setting left as it was, when:
    ///
    /// - no setting is called `name` in `language` (see [`find`]);
    /// - `value` is of a type the setting does not take (see [`Setting::takes`]); its rule is
    ///   [`Setting::expects`];
    /// - `value` breaks the setting's rule: a duration that [`input::timeout`] refuses, a number
    ///   out of the setting's bounds or not whole, a time zone that [`input::timezone`] does not
    ///   read.
    ///
    /// It names an unknown setting as given, any other by the core's name (its
    /// [`name`](Setting::name)): a binding shows its own with [`Error::message_with_names`].
    pub fn set(&mut self, language: Language, name: &str, value: Value) -> Result<()> {
        let setting = find(language, name)?;
        if !setting.takes(&value, language) {
            return Err(Error::invalid_input(
                None,
                setting.name,
                setting.expects(language),
            ));
        }
        let proxy_off = match &value {
            Value::Null => language == Language::Python && setting.kind == Kind::Proxy,
            Value::Bool(false) => true,
            _ => false,
        };
        if matches!(value, Value::Null) && !proxy_off {
            return Ok(());
        }
        match setting.name {
            "base_url" => self.base_url = Some(text(value)),
            "client_id" => self.client_id = Some(text(value)),
            "client_secret" => self.client_secret = Some(Secret::new(text(value))),
            "username" => self.username = Some(text(value)),
            "password" => self.password = Some(Secret::new(text(value))),
            "password_md5" => self.password_md5 = Some(Secret::new(text(value))),
            "password_file" => self.password_file = Some(PathBuf::from(text(value))),
            "client_secret_file" => self.client_secret_file = Some(PathBuf::from(text(value))),
            "timeout" => self.timeout = Some(duration(setting, value, language)?),
            "connect_timeout" => self.connect_timeout = Some(duration(setting, value, language)?),
            "max_retries" => self.max_retries = Some(count(setting, value)?),
            "user_agent" => self.user_agent = Some(text(value)),
            "ca_bundle" => {
                self.ca_bundle = Some(match value {
                    Value::Bytes(pem) => CaBundle::Pem(pem),
                    other => CaBundle::Path(PathBuf::from(text(other))),
                })
            }
            "proxy" => {
                self.proxy = Some(if proxy_off {
                    Proxy::Off
                } else {
                    Proxy::Url(Secret::new(text(value)))
                })
            }
            "max_connections" => self.max_connections = Some(count(setting, value)?),
            "max_response_bytes" => self.max_response_bytes = Some(count(setting, value)?),
            "timezone" => self.timezone = Some(input::timezone(&text(value))?),
            "store" => self.store = Some(PathBuf::from(text(value))),
            "storage_options" => {
                let pairs = self.storage_options.get_or_insert_with(Vec::new);
                match value {
                    Value::Map(given) => *pairs = given,
                    // The command line: one `KEY=VALUE` each time the flag is given.
                    other => {
                        let text = text(other);
                        let (key, value) = text
                            .split_once('=')
                            .filter(|(key, _)| !key.trim().is_empty())
                            .ok_or_else(|| {
                                Error::invalid_input(None, setting.name, setting.expects(language))
                            })?;
                        pairs.push((key.trim().to_string(), value.to_string()));
                    }
                }
            }
            "settle" => self.settle = Some(duration(setting, value, language)?),
            "propagate_trace_context" => {
                self.propagate_trace_context = Some(switch(setting, value, language)?)
            }
            other => unreachable!("the setting {other} has no field"),
        }
        Ok(())
    }
}

impl Options {
    /// Every value `other` holds replaces this one's (the others are left as they are).
    pub(crate) fn overlay(&mut self, other: Options) {
        macro_rules! take {
            ($($field:ident),*) => {$(
                if other.$field.is_some() {
                    self.$field = other.$field;
                }
            )*};
        }
        take!(
            base_url,
            client_id,
            client_secret,
            client_secret_file,
            username,
            password,
            password_md5,
            password_file,
            timeout,
            connect_timeout,
            max_retries,
            user_agent,
            refresh_leeway,
            ca_bundle,
            proxy,
            max_connections,
            max_response_bytes,
            language,
            timezone,
            store,
            storage_options,
            settle,
            propagate_trace_context
        );
    }
}

/// The text of a value `Setting::takes` let through as text.
fn text(value: Value) -> String {
    match value {
        Value::Text(text) => text,
        Value::Bytes(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null | Value::Map(_) => String::new(),
    }
}

/// A number, or text that is one (the command line's); anything else is NaN, which every rule
/// refuses.
fn number(value: Value) -> f64 {
    match value {
        Value::Number(n) => n,
        Value::Text(text) => text.trim().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

/// A boolean, or text that is one (the command line's and the environment's).
fn switch(setting: &Setting, value: Value, language: Language) -> Result<bool> {
    match value {
        Value::Bool(on) => Ok(on),
        Value::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(Error::invalid_input(
                None,
                setting.name,
                setting.expects(language),
            )),
        },
        _ => Err(Error::invalid_input(
            None,
            setting.name,
            setting.expects(language),
        )),
    }
}

fn duration(setting: &Setting, value: Value, language: Language) -> Result<Duration> {
    input::timeout(setting.name, number(value), Setting::unit(language))
}

fn count(setting: &Setting, value: Value) -> Result<usize> {
    check_count(setting, number(value))
}

/// `value` as a whole number within `setting`'s bounds; the error names the setting and the
/// bounds.
pub(crate) fn check_count(setting: &Setting, value: f64) -> Result<usize> {
    let Kind::Count { min, max } = setting.kind else {
        unreachable!("{} is not a count", setting.name)
    };
    let whole = value.fract() == 0.0 && value >= min as f64 && value <= max as f64;
    if whole {
        Ok(value as usize)
    } else {
        Err(Error::invalid_input(
            None,
            setting.name,
            format!("must be a whole number from {min} to {max}"),
        ))
    }
}

/// The declared setting the core calls `name` (a name of [`SETTINGS`]).
pub(crate) fn setting(name: &str) -> &'static Setting {
    SETTINGS
        .iter()
        .find(|setting| setting.name == name)
        .unwrap_or_else(|| panic!("{name} is declared in SETTINGS"))
}

impl Setting {
    /// The duration this setting falls back to.
    pub(crate) fn default_duration(&self) -> Duration {
        match self.default {
            Fallback::Duration(duration) => duration,
            _ => unreachable!("{} has no default duration", self.name),
        }
    }

    /// The number this setting falls back to.
    pub(crate) fn default_count(&self) -> usize {
        match self.default {
            Fallback::Count(count) => count,
            _ => unreachable!("{} has no default number", self.name),
        }
    }
}

/// What a client was built from, every fallback and default resolved: enough to build an
/// equal client again, in another process for instance (the Python package pickles its
/// [`values`](Settings::values)). `Debug` shows no secret.
///
/// ```
/// # let emulator = monapi_emulator::Emulator::spawn_thread(Default::default()).unwrap();
/// let client = monapi::Client::builder()
///     .base_url(emulator.base_url())
///     .client_id("demo_id")
///     .client_secret("demo_secret")
///     .username("test@example.com")
///     .password("123456")
///     .build()
///     .unwrap();
/// let settings = client.settings().clone();
/// assert_eq!(settings.timeout, monapi::DEFAULT_TIMEOUT);
/// let again = monapi::ClientBuilder::from(settings).build().unwrap();
/// assert_eq!(again.username(), Some("test@example.com"));
/// ```
#[derive(Clone)]
pub struct Settings {
    /// Where the service is (no trailing slash).
    pub base_url: String,
    /// The registered client's id.
    pub client_id: String,
    /// The registered client's secret.
    pub client_secret: Secret,
    /// The account login, when the client has one.
    pub username: Option<String>,
    /// The lowercase hex MD5 of the account password, when the client has one.
    pub password_md5: Option<Secret>,
    /// Overall timeout of one HTTP exchange.
    pub timeout: Duration,
    /// Timeout for making a connection.
    pub connect_timeout: Duration,
    /// Retries of a read.
    pub max_retries: usize,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// How long before expiry a token is renewed.
    pub refresh_leeway: Duration,
    /// The PEM text of every certificate trusted besides the system's (from the option and
    /// the variables); empty when there are none.
    pub extra_ca_pem: Vec<u8>,
    /// The proxy given (`None`: the environment's).
    pub proxy: Option<Proxy>,
    /// The most connections open to the service at once.
    pub max_connections: usize,
    /// The largest answer accepted, in bytes once decompressed.
    pub max_response_bytes: usize,
    /// The package the client serves.
    pub language: Language,
    /// The time zone of the service's days and clock times.
    pub timezone: FixedOffset,
    /// Where the client's store is, when it has one.
    pub store: Option<StoreLocation>,
    /// The options of an object store (`object_store`'s names), as given.
    pub storage_options: Vec<(String, String)>,
    /// How long after a day ends it is settled.
    pub settle: Duration,
    /// Whether requests carry the caller's `traceparent`.
    pub propagate_trace_context: bool,
}

// By hand: the extra certificates are shown by their size, not as a list of bytes.
impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field("username", &self.username)
            .field("password_md5", &self.password_md5)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_retries", &self.max_retries)
            .field("user_agent", &self.user_agent)
            .field("refresh_leeway", &self.refresh_leeway)
            .field("extra_ca_pem", &format_args!("{} bytes", self.extra_ca_pem.len()))
            .field("proxy", &self.proxy)
            .field("max_connections", &self.max_connections)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("language", &self.language)
            .field("timezone", &self.timezone)
            .field("store", &self.store)
            .field("storage_options", &Value::Map(self.storage_options.clone()))
            .field("settle", &self.settle)
            .field("propagate_trace_context", &self.propagate_trace_context)
            .finish()
    }
}

impl Settings {
    /// The settings as `language` names and writes them, secrets included: handed back to
    /// [`Options::set`] in another process (the Python package pickles them), they build an
    /// equal client. The password is given by its MD5; settings left to the environment (the
    /// proxy) are left out.
    ///
    /// ```
    /// # let emulator = monapi_emulator::Emulator::spawn_thread(Default::default()).unwrap();
    /// use monapi::{Client, Language, Options, Value};
    /// let client = Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    ///     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let values = client.settings().values(Language::Node);
    /// assert!(values.contains(&("timeoutMs", Value::Number(30_000.0))));
    /// let again = monapi::ClientBuilder::new().options(Options::from_values(Language::Node, values)?).build()?;
    /// assert_eq!(again.settings().timeout, client.settings().timeout);
    /// # Ok::<(), monapi::Error>(())
    /// ```
    pub fn values(&self, language: Language) -> Vec<(&'static str, Value)> {
        let duration = |d: Duration| Value::Number(d.as_secs_f64() * Setting::unit(language).per_second());
        let mut values = vec![
            ("base_url", Value::Text(self.base_url.clone())),
            ("client_id", Value::Text(self.client_id.clone())),
            (
                "client_secret",
                Value::Text(self.client_secret.expose().to_string()),
            ),
            ("timeout", duration(self.timeout)),
            ("connect_timeout", duration(self.connect_timeout)),
            ("max_retries", Value::Number(self.max_retries as f64)),
            ("user_agent", Value::Text(self.user_agent.clone())),
            ("max_connections", Value::Number(self.max_connections as f64)),
            (
                "max_response_bytes",
                Value::Number(self.max_response_bytes as f64),
            ),
            ("timezone", Value::Text(self.timezone.to_string())),
            ("settle", duration(self.settle)),
            (
                "propagate_trace_context",
                Value::Bool(self.propagate_trace_context),
            ),
        ];
        if let Some(store) = &self.store {
            values.push(("store", Value::Text(store.to_string())));
        }
        if !self.storage_options.is_empty() {
            values.push(("storage_options", Value::Map(self.storage_options.clone())));
        }
        if let Some(username) = &self.username {
            values.push(("username", Value::Text(username.clone())));
        }
        if let Some(md5) = &self.password_md5 {
            values.push(("password_md5", Value::Text(md5.expose().to_string())));
        }
        if !self.extra_ca_pem.is_empty() {
            values.push(("ca_bundle", Value::Bytes(self.extra_ca_pem.clone())));
        }
        match &self.proxy {
            Some(Proxy::Url(url)) => values.push(("proxy", Value::Text(url.expose().to_string()))),
            Some(Proxy::Off) if language == Language::Python => values.push(("proxy", Value::Null)),
            Some(Proxy::Off) => values.push(("proxy", Value::Bool(false))),
            None => {}
        }
        values
            .into_iter()
            .map(|(name, value)| (setting(name).name_in(language), value))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value of the type each kind takes in `language`.
    fn sample(setting: &Setting, language: Language) -> Value {
        match setting.kind {
            Kind::Duration => Value::Number(1.5 * Setting::unit(language).per_second()),
            Kind::Count { min, .. } => Value::Number((min + 1) as f64),
            Kind::Timezone => Value::Text("-05:30".into()),
            Kind::Certificates => Value::Bytes(b"-----BEGIN CERTIFICATE-----".to_vec()),
            Kind::Text | Kind::Secret | Kind::Proxy => {
                Value::Text(format!("http://{}.example", setting.name))
            }
            Kind::Switch => Value::Bool(true),
            Kind::Map => Value::Map(vec![("aws_region".into(), "eu-west-1".into())]),
        }
    }

    #[test]
    fn every_setting_has_a_field_and_unique_names() {
        for language in [Language::Rust, Language::Python, Language::Node, Language::Cli] {
            let mut names: Vec<_> = SETTINGS.iter().map(|s| s.name_in(language)).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), SETTINGS.len(), "{language:?}");
            for setting in SETTINGS {
                let mut options = Options::default();
                let value = sample(setting, language);
                assert!(setting.takes(&value, language), "{}", setting.name);
                options.set(language, setting.name_in(language), value).unwrap();
                let shown = format!("{options:?}");
                assert!(shown.contains(&format!("{}: Some(", setting.name)), "{shown}");
            }
        }
    }

    #[test]
    fn durations_are_read_in_the_languages_unit() {
        let python = Options::from_values(Language::Python, [("timeout", Value::Number(2.5))]).unwrap();
        let node = Options::from_values(Language::Node, [("timeoutMs", Value::Number(2500.0))]).unwrap();
        let cli = Options::from_values(Language::Cli, [("timeout", Value::Text("2.5".into()))]).unwrap();
        for options in [python, node, cli] {
            assert_eq!(options.timeout, Some(Duration::from_millis(2500)));
        }
        let err = Options::from_values(Language::Cli, [("timeout", Value::Text("soon".into()))]).unwrap_err();
        assert_eq!(err.field(), Some("timeout"));
        assert!(err
            .rule()
            .unwrap()
            .starts_with("must be a positive number of seconds"));
    }

    #[test]
    fn counts_are_bounded_by_their_declaration() {
        for (value, ok) in [
            (0.0, false),
            (1.0, true),
            (10_000.0, true),
            (10_001.0, false),
            (2.5, false),
        ] {
            let result = Options::from_values(Language::Python, [("max_connections", Value::Number(value))]);
            assert_eq!(result.is_ok(), ok, "{value}");
            if let Err(err) = result {
                assert_eq!(err.rule(), Some("must be a whole number from 1 to 10000"));
            }
        }
        let err = Options::from_values(Language::Node, [("maxRetries", Value::Number(101.0))]).unwrap_err();
        assert_eq!(
            (err.field(), err.rule()),
            (Some("max_retries"), Some("must be a whole number from 0 to 100"))
        );
    }

    #[test]
    fn wrong_types_are_refused_naming_what_is_taken() {
        let proxy = find(Language::Python, "proxy").unwrap();
        assert!(!proxy.takes(&Value::Number(3128.0), Language::Python));
        assert!(!proxy.takes(&Value::Bool(false), Language::Python));
        assert!(proxy.takes(&Value::Bool(false), Language::Node));
        let err = Options::from_values(Language::Node, [("caBundle", Value::Number(42.0))]).unwrap_err();
        assert_eq!(
            err.rule(),
            Some("must be a path (string) or the PEM text as a Buffer")
        );
        assert!(find(Language::Node, "max_connections").is_err());
    }

    #[test]
    fn none_leaves_out_but_python_none_is_no_proxy() {
        let python = Options::from_values(
            Language::Python,
            [("proxy", Value::Null), ("base_url", Value::Null)],
        );
        let python = python.unwrap();
        assert_eq!(python.proxy, Some(Proxy::Off));
        assert_eq!(python.base_url, None);
        let node = Options::from_values(Language::Node, [("proxy", Value::Null)]).unwrap();
        assert_eq!(node.proxy, None);
        let node = Options::from_values(Language::Node, [("proxy", Value::Bool(false))]).unwrap();
        assert_eq!(node.proxy, Some(Proxy::Off));
    }

    #[test]
    fn value_debug_shows_no_text() {
        assert_eq!(format!("{:?}", Value::Text("hunter2".into())), "Text(..)");
    }
}
