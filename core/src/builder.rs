//! [`ClientBuilder`]: every setting of a client, its default, its bounds and its environment
//! variable, checked in one place ([`ClientBuilder::build`]).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use chrono::FixedOffset;

use crate::auth::{Auth, Credentials, TokenCallback};
use crate::client::{Client, Inner};
use crate::input;
use crate::secret::Redactor;
use crate::transport::{Transport, TransportConfig};
use crate::{md5_hex, Error, Result, Secret, Token};

/// Default overall timeout of one HTTP exchange.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default timeout for making a connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of retries of a read after a connection error, 429 or 502/503/504.
pub const DEFAULT_MAX_RETRIES: usize = 2;
/// Default margin before expiry at which a token is renewed (at most a quarter of its life).
pub const DEFAULT_REFRESH_LEEWAY: Duration = Duration::from_secs(60);
/// The service's time zone, the default of [`ClientBuilder::timezone`]: China Standard Time,
/// `+08:00`, without daylight saving time (the service runs from Beijing).
///
/// ```
/// assert_eq!(monapi::SERVICE_TIMEZONE.to_string(), "+08:00");
/// ```
pub const SERVICE_TIMEZONE: FixedOffset = FixedOffset::east_opt(8 * 3600).unwrap();

/// The environment variables [`ClientBuilder::from_env`] falls back to.
pub const ENV_VARS: [&str; 5] = [
    "MONAPI_BASE_URL",
    "MONAPI_CLIENT_ID",
    "MONAPI_CLIENT_SECRET",
    "MONAPI_USERNAME",
    "MONAPI_PASSWORD",
];

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

/// The settings of a client as its caller gives them, each optional (what is left out falls
/// back to the environment with [`ClientBuilder::from_env`], then to its default), for
/// [`ClientBuilder::options`]: the Python and Node packages and the command line fill one with
/// what their caller gave. `Debug` shows no secret.
///
/// ```
/// use monapi::{ClientBuilder, Options};
/// let options = Options {
///     base_url: Some("http://127.0.0.1:8080".into()),
///     max_retries: Some(101),
///     ..Options::default()
/// };
/// let err = ClientBuilder::new().options(options).build().unwrap_err();
/// assert_eq!(err.field(), Some("client_id"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// See [`ClientBuilder::base_url`].
    pub base_url: Option<String>,
    /// See [`ClientBuilder::client_id`].
    pub client_id: Option<String>,
    /// See [`ClientBuilder::client_secret`].
    pub client_secret: Option<Secret>,
    /// See [`ClientBuilder::username`].
    pub username: Option<String>,
    /// See [`ClientBuilder::password`].
    pub password: Option<Secret>,
    /// See [`ClientBuilder::password_md5`].
    pub password_md5: Option<Secret>,
    /// See [`ClientBuilder::timeout`].
    pub timeout: Option<Duration>,
    /// See [`ClientBuilder::connect_timeout`].
    pub connect_timeout: Option<Duration>,
    /// See [`ClientBuilder::max_retries`].
    pub max_retries: Option<usize>,
    /// See [`ClientBuilder::user_agent`].
    pub user_agent: Option<String>,
    /// See [`ClientBuilder::refresh_leeway`].
    pub refresh_leeway: Option<Duration>,
    /// See [`ClientBuilder::timezone`].
    pub timezone: Option<FixedOffset>,
}

/// What a client was built from, every fallback and default resolved: enough to build an
/// equal client again, in another process for instance (the Python package pickles it).
/// `Debug` shows no secret.
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
#[derive(Clone, Debug)]
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
    /// The time zone of the service's days and clock times.
    pub timezone: FixedOffset,
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
            timeout: Some(settings.timeout),
            connect_timeout: Some(settings.connect_timeout),
            max_retries: Some(settings.max_retries),
            user_agent: Some(settings.user_agent),
            refresh_leeway: Some(settings.refresh_leeway),
            timezone: Some(settings.timezone),
        })
    }
}

impl ClientBuilder {
    /// An empty builder (no environment variable is read).
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder that falls back to `MONAPI_BASE_URL`, `MONAPI_CLIENT_ID`,
    /// `MONAPI_CLIENT_SECRET`, `MONAPI_USERNAME` and `MONAPI_PASSWORD` (read by
    /// [`build`](ClientBuilder::build); empty ones count as unset) for the values not given.
    /// `MONAPI_PASSWORD` is not used when a password or its MD5 is given.
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

    /// Every value `options` holds (the others are left as they are).
    pub fn options(mut self, options: Options) -> Self {
        let given = &mut self.given;
        macro_rules! take {
            ($($field:ident),*) => {$(
                if options.$field.is_some() {
                    given.$field = options.$field;
                }
            )*};
        }
        take!(
            base_url,
            client_id,
            client_secret,
            username,
            password,
            password_md5,
            timeout,
            connect_timeout,
            max_retries,
            user_agent,
            refresh_leeway,
            timezone
        );
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

    /// Retries of a read after a connection error, 429 or 502/503/504 (default 2, at most
    /// [`input::MAX_RETRIES`]). Creates are retried only when the request cannot have reached
    /// the service.
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

    /// The time zone of the service's days and clock times (default [`SERVICE_TIMEZONE`],
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

    /// Checks the configuration and builds the client. No request is made.
    pub fn build(self) -> Result<Client> {
        let given = self.given;
        let env = |name: &str| {
            self.from_env
                .then(|| std::env::var(name).ok())
                .flatten()
                .filter(|v| !v.is_empty())
        };
        // A required text: given, or its variable; empty counts as missing.
        let required = |value: Option<String>, field: &str, var: &str| {
            value
                .or_else(|| env(var))
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    Error::invalid_input(None, field, format!("is required (give it, or set {var})"))
                })
        };
        let base_url = required(given.base_url, "base_url", "MONAPI_BASE_URL")?;
        check_base_url(&base_url)?;
        let user_agent = given
            .user_agent
            .unwrap_or_else(|| format!("monapi-rust/{}", env!("CARGO_PKG_VERSION")));
        if reqwest::header::HeaderValue::from_str(&user_agent).is_err() {
            return Err(Error::invalid_input(
                None,
                "user_agent",
                "must be printable ASCII text (an HTTP header value)",
            ));
        }
        let client_id = required(given.client_id, "client_id", "MONAPI_CLIENT_ID")?;
        let secret = given.client_secret.map(|s| s.expose().to_string());
        let client_secret = Secret::from(required(secret, "client_secret", "MONAPI_CLIENT_SECRET")?);
        if given.password.is_some() && given.password_md5.is_some() {
            return Err(Error::invalid_input(
                None,
                "password_md5",
                "cannot be given together with the password: give one of them",
            ));
        }
        let password = match (given.password, &given.password_md5) {
            (None, None) => env("MONAPI_PASSWORD").map(Secret::from),
            (password, _) => password,
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
        let username = given.username.or_else(|| env("MONAPI_USERNAME"));
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
        let timeout = given.timeout.unwrap_or(DEFAULT_TIMEOUT);
        input::check_timeout("timeout", timeout)?;
        let connect_timeout = given.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT);
        input::check_timeout("connect_timeout", connect_timeout)?;
        let max_retries = given.max_retries.unwrap_or(DEFAULT_MAX_RETRIES);
        input::check_max_retries(max_retries)?;

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
            timezone: given.timezone.unwrap_or(SERVICE_TIMEZONE),
        };
        let redactor = Arc::new(Redactor::default());
        redactor.add(settings.client_secret.expose());
        for secret in [&password, &settings.password_md5].into_iter().flatten() {
            redactor.add(secret.expose());
        }
        if let Some(token) = &self.token {
            redactor.add(token.access_token.expose());
            if let Some(refresh) = &token.refresh_token {
                redactor.add(refresh.expose());
            }
        }
        let transport = Transport::new(
            TransportConfig {
                base_url: settings.base_url.clone(),
                timeout,
                connect_timeout,
                max_retries,
                user_agent: settings.user_agent.clone(),
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
