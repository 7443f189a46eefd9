//! [`ClientBuilder`]: builds a client from its settings (declared in [`crate::settings`]),
//! checked in one place ([`ClientBuilder::build`]).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use chrono::FixedOffset;

use crate::auth::{Auth, Credentials, TokenCallback};
use crate::client::{Client, Inner};
use crate::environment;
use crate::input;
use crate::network::{self, CaBundle, Language, Proxy};
use crate::secret::Redactor;
use crate::settings::{self, check_count, Options, Settings, DEFAULT_REFRESH_LEEWAY, SERVICE_TIMEZONE};
use crate::transport::{Transport, TransportConfig};
use crate::{md5_hex, Error, Result, Secret, StoreLocation, Token};

/// Builds a [`Client`] from explicit values, falling back to the `MONAPI_*` environment
/// variables when made with [`from_env`](ClientBuilder::from_env).
///
/// Nothing is checked before [`build`](ClientBuilder::build), which checks everything: the
/// Python and Node packages hand over what their caller gave and let it decide.
///
/// ```
/// use std::time::Duration;
/// let err = monapi::Client::builder()
///     .base_url("http://127.0.0.1:8080")
///     .client_id("demo_id")
///     .client_secret("demo_secret")
///     .username("test@example.com")
///     .password("123456")
///     .password_md5("e10adc3949ba59abbe56e057f20f883e")
///     .build()
///     .unwrap_err();
/// assert_eq!(err.field(), Some("password_md5"));
/// ```
#[derive(Default, Clone)]
pub struct ClientBuilder {
    given: Options,
    token: Option<Token>,
    on_token: Option<TokenCallback>,
    /// Whether `build` falls back to the `MONAPI_*` variables.
    from_env: bool,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("given", &self.given)
            .field("from_env", &self.from_env)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// A client configured entirely from the `MONAPI_*` environment variables.
    ///
    /// # Errors
    ///
    /// Those of [`ClientBuilder::build`]: an [`Error::InvalidInput`](crate::Error::InvalidInput)
    /// naming the variable to set or the value to fix.
    pub fn from_env() -> Result<Client> {
        ClientBuilder::from_env().build()
    }
}

impl From<Settings> for ClientBuilder {
    fn from(settings: Settings) -> Self {
        ClientBuilder::new().options(Options {
            base_url: Some(settings.base_url),
            client_id: Some(settings.client_id),
            client_secret: Some(settings.client_secret),
            username: settings.username,
            password: None,
            password_md5: settings.password_md5,
            password_file: None,
            client_secret_file: None,
            timeout: Some(settings.timeout),
            connect_timeout: Some(settings.connect_timeout),
            max_retries: Some(settings.max_retries),
            user_agent: Some(settings.user_agent),
            refresh_leeway: Some(settings.refresh_leeway),
            ca_bundle: (!settings.extra_ca_pem.is_empty()).then_some(CaBundle::Pem(settings.extra_ca_pem)),
            proxy: settings.proxy,
            max_connections: Some(settings.max_connections),
            max_response_bytes: Some(settings.max_response_bytes),
            language: Some(settings.language),
            timezone: Some(settings.timezone),
            store: settings.store.map(|store| match store {
                StoreLocation::Local(path) => path,
                url => std::path::PathBuf::from(url.to_string()),
            }),
            storage_options: (!settings.storage_options.is_empty()).then_some(settings.storage_options),
            settle: Some(settings.settle),
            propagate_trace_context: Some(settings.propagate_trace_context),
        })
    }
}

impl ClientBuilder {
    /// An empty builder (no environment variable is read).
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder that falls back, for each setting not given, to its variable
    /// ([`SETTINGS`](crate::settings::SETTINGS): `MONAPI_BASE_URL`, `MONAPI_PASSWORD_FILE`,
    /// `MONAPI_TIMEOUT`...), read by [`build`](ClientBuilder::build) as the command line's text
    /// is (durations in seconds; empty variables count as unset). A login given in any form
    /// (password, MD5 or file) leaves the environment's aside, as does a client secret in
    /// either form. With no password and no client secret from anywhere, the credentials
    /// `monapi.password` and `monapi.client_secret` of systemd's `$CREDENTIALS_DIRECTORY`
    /// are read when they exist.
    pub fn from_env() -> Self {
        ClientBuilder {
            from_env: true,
            ..Self::default()
        }
    }

    /// Where the service is, e.g. `https://api.example.com` (the `/v2/...` paths are added).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.given.base_url = Some(url.into());
        self
    }

    /// The registered client's id.
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        self.given.client_id = Some(id.into());
        self
    }

    /// The registered client's secret.
    pub fn client_secret(mut self, secret: impl Into<Secret>) -> Self {
        self.given.client_secret = Some(secret.into());
        self
    }

    /// The account login (an e-mail address).
    pub fn username(mut self, username: impl Into<String>) -> Self {
        self.given.username = Some(username.into());
        self
    }

    /// The account password in plain text; the SDK sends its lowercase hex MD5. Giving
    /// [`password_md5`](ClientBuilder::password_md5) too is an error.
    pub fn password(mut self, password: impl Into<Secret>) -> Self {
        self.given.password = Some(password.into());
        self
    }

    /// The account password already hashed: 32 hexadecimal characters. Giving
    /// [`password`](ClientBuilder::password) too is an error.
    pub fn password_md5(mut self, md5: impl Into<Secret>) -> Self {
        self.given.password_md5 = Some(md5.into());
        self
    }

    /// A file holding the account password, so that it is on no command line and in no
    /// environment: read once by [`build`](ClientBuilder::build), one trailing newline
    /// dropped. Giving the password or its MD5 too is an error.
    pub fn password_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.given.password_file = Some(path.into());
        self
    }

    /// A file holding the API client's secret, read as
    /// [`password_file`](ClientBuilder::password_file) is. Giving the secret too is an error.
    pub fn client_secret_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.given.client_secret_file = Some(path.into());
        self
    }

    /// Every value `options` holds (the others are left as they are).
    pub fn options(mut self, options: Options) -> Self {
        self.given.overlay(options);
        self
    }

    /// A saved token to resume with (see [`Token`]); the first call uses it instead of
    /// logging in.
    pub fn token(mut self, token: Token) -> Self {
        self.token = Some(token);
        self
    }

    /// Called with every new token, so it can be saved.
    pub fn on_token(mut self, callback: impl Fn(&Token) + Send + Sync + 'static) -> Self {
        self.on_token = Some(Arc::new(callback));
        self
    }

    /// Overall timeout of one HTTP exchange (default 30 s; more than 0, at most
    /// [`input::MAX_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.given.timeout = Some(timeout);
        self
    }

    /// Timeout for making a connection (default 10 s; more than 0, at most
    /// [`input::MAX_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.given.connect_timeout = Some(timeout);
        self
    }

    /// Retries of a read after a transient failure (default 2, at most
    /// [`input::MAX_RETRIES`]): a connection that failed or broke before the whole answer, a
    /// body shorter than its `Content-Length`, HTTP 429, 500, 502, 503 or 504, or a 2xx answer
    /// that is a server's error page (empty, HTML, or PHP's `Fatal error`) instead of JSON.
    /// Creates are retried only when the request cannot have reached the service.
    pub fn max_retries(mut self, retries: usize) -> Self {
        self.given.max_retries = Some(retries);
        self
    }

    /// The `User-Agent` header (default `monapi-rust/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.given.user_agent = Some(user_agent.into());
        self
    }

    /// How long before expiry a token is renewed (default 60 s, at most a quarter of the
    /// token's lifetime).
    pub fn refresh_leeway(mut self, leeway: Duration) -> Self {
        self.given.refresh_leeway = Some(leeway);
        self
    }

    /// Trusts the CA certificates of a PEM file besides the system's (a company's own CA, a
    /// TLS-inspecting proxy's). A file that does not exist or holds no certificate is an
    /// error of [`build`](ClientBuilder::build). With [`from_env`](ClientBuilder::from_env),
    /// the files named by `MONAPI_CA_BUNDLE`, `SSL_CERT_FILE` and `SSL_CERT_DIR` are trusted
    /// too (see [`Language::ca_variables`]).
    ///
    /// ```
    /// let err = monapi::Client::builder()
    ///     .base_url("https://api.example.com")
    ///     .client_id("id").client_secret("secret").username("me").password("pw")
    ///     .ca_bundle("/no/such/ca.pem")
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(err.field(), Some("ca_bundle"));
    /// ```
    pub fn ca_bundle(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.given.ca_bundle = Some(CaBundle::Path(path.into()));
        self
    }

    /// As [`ca_bundle`](ClientBuilder::ca_bundle), with the PEM text itself.
    pub fn ca_bundle_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.given.ca_bundle = Some(CaBundle::Pem(pem.into()));
        self
    }

    /// Sends every call through this proxy (`http://` or `https://`, with `user:password@`
    /// if it needs them; HTTPS goes through it with `CONNECT`), whatever `HTTP_PROXY`,
    /// `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` say. Without it, those variables decide
    /// (upper or lower case). The password never appears in an error, `Debug` or log.
    ///
    /// ```
    /// let err = monapi::Client::builder()
    ///     .base_url("https://api.example.com")
    ///     .client_id("id").client_secret("secret").username("me").password("pw")
    ///     .proxy("proxy.corp:3128")
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(err.field(), Some("proxy"));
    /// ```
    pub fn proxy(mut self, url: impl Into<Secret>) -> Self {
        self.given.proxy = Some(Proxy::Url(url.into()));
        self
    }

    /// No proxy, even when the environment names one.
    pub fn no_proxy(mut self) -> Self {
        self.given.proxy = Some(Proxy::Off);
        self
    }

    /// The most connections the client uses at once to the service (default
    /// [`DEFAULT_MAX_CONNECTIONS`](crate::DEFAULT_MAX_CONNECTIONS), 1 to [`input::MAX_CONNECTIONS`]): at most this many
    /// exchanges are in flight, each on its own HTTP/1.1 connection, and at most this many
    /// connections are kept idle for reuse. Calls beyond it wait for a free connection; the
    /// wait counts toward their timeout. (When a call starts the moment another one ends, the
    /// connection pool may open a fresh connection rather than wait the instant the freed one
    /// takes to come back to it; the number in use never exceeds the cap.)
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.given.max_connections = Some(connections);
        self
    }

    /// The largest answer the client accepts, in bytes once decompressed (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`](crate::settings::DEFAULT_MAX_RESPONSE_BYTES), 1 GiB; 1 to
    /// [`MAX_RESPONSE_BYTES`](crate::settings::MAX_RESPONSE_BYTES)). Answers arrive compressed when the service compresses
    /// them; a larger one fails with an [`Error::Decode`](crate::Error::Decode) naming this
    /// setting, and is not repeated. The body is read up to the limit and no further, so a
    /// small compressed answer that would decompress to far more cannot exhaust memory.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.given.max_response_bytes = Some(bytes);
        self
    }

    /// The package this client serves (the Python and Node packages and the command line
    /// say so): it decides which variables name extra CA certificates and how errors word
    /// their fixes. Default [`Language::Rust`].
    pub fn language(mut self, language: Language) -> Self {
        self.given.language = Some(language);
        self
    }

    /// The time zone of the service's days and clock times (default [`SERVICE_TIMEZONE`](crate::SERVICE_TIMEZONE),
    /// `+08:00`): the tables read a service report's `HH:MM` in it, show every timestamp in
    /// it, and take "today" in it when a report's dates are left out.
    /// [`input::timezone`] reads one written as text (`+08:00`, `UTC`).
    ///
    /// ```
    /// let client = monapi::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .client_id("demo_id")
    ///     .client_secret("demo_secret")
    ///     .username("test@example.com")
    ///     .password("123456")
    ///     .timezone(monapi::input::timezone("UTC")?)
    ///     .build()?;
    /// assert_eq!(client.timezone().local_minus_utc(), 0);
    /// # Ok::<(), monapi::Error>(())
    /// ```
    pub fn timezone(mut self, timezone: FixedOffset) -> Self {
        self.given.timezone = Some(timezone);
        self
    }

    /// Where to keep report tables (see [`store::Store`](crate::store::Store)): a directory,
    /// or a URL of a bucket's prefix (`s3://bucket/prefix`, `gs://`, `az://`; see
    /// [`StoreLocation::parse`]). The table calls read the settled days it holds and write
    /// those they fetch. Also read from `MONAPI_STORE`. Nothing is created until a day is
    /// written.
    pub fn store(mut self, location: impl Into<std::path::PathBuf>) -> Self {
        self.given.store = Some(location.into());
        self
    }

    /// One option of an object store (`object_store`'s names: `aws_endpoint_url`,
    /// `aws_region`, `aws_access_key_id`, `azure_storage_account_name`, ...), over the cloud's
    /// own variables (`AWS_*`, `GOOGLE_*`, `AZURE_*`), which are read too. A value whose name
    /// says it is a secret (a key, a token, a password) never shows in an error.
    pub fn storage_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.given
            .storage_options
            .get_or_insert_with(Vec::new)
            .push((key.into(), value.into()));
        self
    }

    /// How long after a day ends, in the client's time zone, it counts as settled (default
    /// [`DEFAULT_SETTLE`](crate::settings::DEFAULT_SETTLE), two hours): only settled days are
    /// kept in a store; the others are fetched every time.
    pub fn settle(mut self, settle: Duration) -> Self {
        self.given.settle = Some(settle);
        self
    }

    /// Whether each request carries the caller's W3C trace context, the `traceparent` of
    /// the [`Recording`](crate::telemetry::Recording) the call runs in (default `false`: the
    /// service is a third party, and a trace id tells it which requests belong together).
    /// Also read from `MONAPI_PROPAGATE_TRACE_CONTEXT`.
    pub fn propagate_trace_context(mut self, on: bool) -> Self {
        self.given.propagate_trace_context = Some(on);
        self
    }

    /// Checks the configuration and builds the client. No request is made.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming the setting (or the
    /// environment variable) at fault and its rule, the first one found, when:
    ///
    /// - the base URL, the client id or the client secret is missing, or a login is (a username
    ///   and a password or its MD5, or a saved [`token`](ClientBuilder::token)); the error
    ///   names the variable that would give it;
    /// - the base URL is not an http or https URL, or holds a user, password, query or fragment;
    /// - the user agent is not printable ASCII text;
    /// - both the password and its MD5 are given, the MD5 is not 32 hexadecimal characters, or
    ///   only one of the username and the password is given;
    /// - a timeout, the settle time or a number (`max_retries`, `max_connections`,
    ///   `max_response_bytes`) is out of its bounds;
    /// - a CA bundle (given, or with [`from_env`](ClientBuilder::from_env) named by a variable
    ///   of [`Language::ca_variables`] or `SSL_CERT_DIR`) cannot be read or holds no
    ///   certificate;
    /// - the proxy is not an http or https URL of a host (without a path or query);
    /// - the HTTP client cannot be built with these settings.
    pub fn build(self) -> Result<Client> {
        let from_env = self.from_env;
        self.build_with(&|name: &str| {
            from_env
                .then(|| std::env::var(name).ok())
                .flatten()
                .filter(|v| !v.is_empty())
        })
    }

    /// [`build`](ClientBuilder::build), the environment read through `env` (the tests' own).
    pub(crate) fn build_with(self, env: &dyn Fn(&str) -> Option<String>) -> Result<Client> {
        let given = match self.from_env {
            true => environment::merge(self.given, environment::options(env)?),
            false => self.given,
        };
        // A required text: empty counts as missing; the error names what would give it.
        let required = |value: Option<String>, field: &str| {
            value.filter(|v| !v.is_empty()).ok_or_else(|| {
                let variables: Vec<_> = settings::SETTINGS
                    .iter()
                    .filter(|s| s.name == field || s.name == format!("{field}_file"))
                    .filter_map(|s| s.env)
                    .collect();
                Error::invalid_input(
                    None,
                    field,
                    format!("is required (give it, or set {})", variables.join(" or ")),
                )
            })
        };
        let language = given.language.unwrap_or_default();
        let base_url = required(given.base_url, "base_url")?;
        check_base_url(&base_url)?;
        let user_agent = given.user_agent.unwrap_or_else(|| language.user_agent());
        if reqwest::header::HeaderValue::from_str(&user_agent).is_err() {
            return Err(Error::invalid_input(
                None,
                "user_agent",
                "must be printable ASCII text (an HTTP header value)",
            ));
        }
        let client_id = required(given.client_id, "client_id")?;
        let secret = environment::secret(
            given.client_secret,
            ("client_secret_file", given.client_secret_file),
            environment::CLIENT_SECRET_CREDENTIAL,
            env,
        )?;
        let secret = secret.map(|s| s.expose().to_string());
        let client_secret = Secret::from(required(secret, "client_secret")?);
        if given.password.is_some() && given.password_md5.is_some() {
            return Err(Error::invalid_input(
                None,
                "password_md5",
                "cannot be given together with the password: give one of them",
            ));
        }
        if given.password_md5.is_some() && given.password_file.is_some() {
            return Err(Error::invalid_input(
                None,
                "password_file",
                "cannot be given together with the password's MD5: give one of them",
            ));
        }
        let password = match &given.password_md5 {
            Some(_) => given.password,
            None => environment::secret(
                given.password,
                ("password_file", given.password_file),
                environment::PASSWORD_CREDENTIAL,
                env,
            )?,
        };
        let password_md5 = match (&password, given.password_md5) {
            (Some(plain), _) => Some(md5_hex(plain.expose())),
            (None, Some(md5)) => {
                let hex = md5.expose();
                if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(Error::invalid_input(
                        None,
                        "password_md5",
                        "must be 32 hexadecimal characters (an MD5 digest)",
                    ));
                }
                Some(Secret::new(hex.to_ascii_lowercase()))
            }
            (None, None) => None,
        };
        let username = given.username;
        if username.is_some() != password_md5.is_some() {
            let missing = if username.is_none() {
                "username"
            } else {
                "password"
            };
            return Err(Error::invalid_input(
                None,
                missing,
                "is required with the other login value (username and password go together)",
            ));
        }
        if password_md5.is_none() && self.token.is_none() {
            return Err(Error::invalid_input(
                None,
                "username",
                "a username and password (or a saved token) are required (give them, or set MONAPI_USERNAME and MONAPI_PASSWORD)",
            ));
        }
        let duration = |value: Option<Duration>, name: &str| {
            let value = value.unwrap_or_else(|| settings::setting(name).default_duration());
            input::check_timeout(name, value).map(|()| value)
        };
        let count = |value: Option<usize>, name: &str| {
            let setting = settings::setting(name);
            check_count(setting, value.unwrap_or_else(|| setting.default_count()) as f64)
        };
        let timeout = duration(given.timeout, "timeout")?;
        let connect_timeout = duration(given.connect_timeout, "connect_timeout")?;
        let max_retries = count(given.max_retries, "max_retries")?;
        let max_connections = count(given.max_connections, "max_connections")?;
        let max_response_bytes = count(given.max_response_bytes, "max_response_bytes")?;
        let settle = duration(given.settle, "settle")?;
        let store = given.store.as_deref().map(StoreLocation::from_path).transpose()?;
        let storage_options = given.storage_options.unwrap_or_default();
        #[cfg(feature = "arrow")]
        if let Some(StoreLocation::Object(url)) = &store {
            crate::store::object::check_options(url, &storage_options)?;
        }
        let extra_ca_pem = network::extra_certificates(given.ca_bundle.as_ref(), language, env)?;
        if let Some(Proxy::Url(url)) = &given.proxy {
            network::check_proxy(url)?;
        }

        let settings = Settings {
            base_url: base_url.trim_end_matches('/').to_string(),
            client_id,
            client_secret,
            username,
            password_md5,
            timeout,
            connect_timeout,
            max_retries,
            user_agent,
            refresh_leeway: given.refresh_leeway.unwrap_or(DEFAULT_REFRESH_LEEWAY),
            extra_ca_pem,
            proxy: given.proxy,
            max_connections,
            max_response_bytes,
            language,
            timezone: given.timezone.unwrap_or(SERVICE_TIMEZONE),
            store,
            storage_options,
            settle,
            propagate_trace_context: given.propagate_trace_context.unwrap_or(false),
        };
        let redactor = Arc::new(Redactor::default());
        redactor.add(settings.client_secret.expose());
        for secret in [&password, &settings.password_md5].into_iter().flatten() {
            redactor.add(secret.expose());
        }
        for (key, value) in &settings.storage_options {
            if crate::location::is_secret(key) {
                redactor.add(value);
            }
        }
        if let Some(token) = &self.token {
            redactor.add(token.access_token.expose());
            if let Some(refresh) = &token.refresh_token {
                redactor.add(refresh.expose());
            }
        }
        // A proxy's password (given, or in the proxy variables, which the HTTP stack reads).
        let proxy_urls = [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
        ]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok());
        let given_proxy = match &settings.proxy {
            Some(Proxy::Url(url)) => Some(url.expose().to_string()),
            _ => None,
        };
        for url in proxy_urls.chain(given_proxy) {
            if let Ok(parsed) = reqwest::Url::parse(&url)
                && let Some(password) = parsed.password()
            {
                redactor.add(password);
                if let Ok(decoded) = percent_decoded(password) {
                    redactor.add(&decoded);
                }
            }
        }
        let transport = Transport::new(
            TransportConfig {
                base_url: settings.base_url.clone(),
                timeout,
                connect_timeout,
                max_retries,
                user_agent: settings.user_agent.clone(),
                extra_ca_pem: settings.extra_ca_pem.clone(),
                proxy: settings.proxy.clone(),
                max_connections,
                max_response_bytes,
                propagate_trace_context: settings.propagate_trace_context,
                language,
            },
            redactor,
        )?;
        let auth = Auth::new(
            Credentials {
                client_id: settings.client_id.clone(),
                client_secret: settings.client_secret.clone(),
                username: settings.username.clone(),
                password_md5: settings.password_md5.clone(),
            },
            self.token,
            self.on_token,
            settings.refresh_leeway,
        );
        Ok(Client {
            inner: Arc::new(Inner {
                transport,
                auth,
                settings,
            }),
            timeout: None,
        })
    }
}

/// `%XX` escapes decoded (a password in a URL is written with them).
fn percent_decoded(text: &str) -> std::result::Result<String, std::string::FromUtf8Error> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
}

/// An http or https URL without a user, password, query or fragment.
fn check_base_url(base_url: &str) -> Result<()> {
    let parsed = reqwest::Url::parse(base_url).map_err(|_| {
        Error::invalid_input(
            None,
            "base_url",
            "must be an http or https URL, e.g. https://api.example.com",
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https")
        || parsed.query().is_some()
        || parsed.fragment().is_some()
        || !parsed.username().is_empty()
        || parsed.password().is_some()
    {
        // Shown without what may hold a secret (a user, a password, a query).
        let mut shown = parsed.clone();
        let _ = shown.set_username("");
        let _ = shown.set_password(None);
        shown.set_query(None);
        shown.set_fragment(None);
        return Err(Error::invalid_input(
            None,
            "base_url",
            format!(
                "must be an http or https URL without a user, password, query or fragment, \
                 not {:?}",
                shown.as_str()
            ),
        ));
    }
    Ok(())
}
