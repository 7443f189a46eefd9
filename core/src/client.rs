//! [`Client`] and its builder: one method per operation of the service.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, TryStreamExt};

use crate::auth::{Auth, Credentials, TokenCallback};
use crate::model::{
    Agents, CreatedTask, DateRange, Distribution, Monitor, ServerTask, ServiceReport, ServiceTask, SiteReport,
};
use crate::secret::Redactor;
use crate::transport::{Prepared, RawResponse, Retry, Transport, TransportConfig};
use crate::{md5_hex, Endpoint, Error, Result, Secret, Token};

/// Records per page of the service task list.
pub const PAGE_SIZE: usize = 50;

/// Default overall timeout of one HTTP exchange.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default timeout for making a connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of retries of a read after a connection error, 429 or 502/503/504.
pub const DEFAULT_MAX_RETRIES: usize = 2;
/// Default margin before expiry at which a token is renewed (at most a quarter of its life).
pub const DEFAULT_REFRESH_LEEWAY: Duration = Duration::from_secs(60);

/// One operation of the service, for [`Client::execute`] (the typed methods build these).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// Create server monitoring tasks in one batch.
    CreateServerTasks(Vec<ServerTask>),
    /// One page (from 1) of the service task list.
    ServiceTasks {
        /// Page number, from 1.
        page: u32,
    },
    /// The agent list.
    Agents,
    /// The report of a service task.
    ServiceReport {
        /// Service task id.
        task_id: u64,
        /// Period.
        range: DateRange,
    },
    /// The report of a site task.
    SiteReport {
        /// Site task id.
        task_id: u64,
        /// Period.
        range: DateRange,
        /// Which monitoring points.
        monitor: Monitor,
    },
    /// The response-time distribution of a site task.
    ResponseTimeDistribution {
        /// Site task id.
        task_id: u64,
        /// Period.
        range: DateRange,
    },
}

impl Request {
    /// The operation's endpoint.
    pub fn endpoint(&self) -> Endpoint {
        match self {
            Request::CreateServerTasks(_) => Endpoint::CreateServerTasks,
            Request::ServiceTasks { .. } => Endpoint::ServiceTasks,
            Request::Agents => Endpoint::Agents,
            Request::ServiceReport { .. } => Endpoint::ServiceReport,
            Request::SiteReport { .. } => Endpoint::SiteReport,
            Request::ResponseTimeDistribution { .. } => Endpoint::ResponseTimeDistribution,
        }
    }

    /// Checks the input and builds what goes on the wire; nothing is sent on error.
    fn prepare(&self) -> Result<Prepared> {
        let mut query = Vec::new();
        let mut form = None;
        let mut batch_len = 0;
        let path = match self {
            Request::CreateServerTasks(tasks) => {
                ServerTask::validate_batch(tasks)?;
                let data = serde_json::to_string(tasks).expect("server tasks always serialize");
                form = Some(serde_urlencoded::to_string([("data", data)]).expect("strings always encode"));
                batch_len = tasks.len();
                "/v2/server/create.json".to_string()
            }
            Request::ServiceTasks { page } => {
                if *page == 0 {
                    return Err(Error::invalid_input(
                        None,
                        "page",
                        "must be 1 or more (pages count from 1)",
                    ));
                }
                query.push(("page", page.to_string()));
                "/v2/service/lists.json".to_string()
            }
            Request::Agents => "/v2/agent/lists.json".to_string(),
            Request::ServiceReport { task_id, range } => {
                range.validate()?;
                range.push_query(&mut query);
                format!("/v2/service/report/{task_id}.json")
            }
            Request::SiteReport {
                task_id,
                range,
                monitor,
            } => {
                range.validate()?;
                range.push_query(&mut query);
                monitor.push_query(&mut query);
                format!("/v2/site/report/{task_id}.json")
            }
            Request::ResponseTimeDistribution { task_id, range } => {
                range.validate()?;
                range.push_query(&mut query);
                format!("/v2/site/respose_time_distribute/{task_id}.json")
            }
        };
        Ok(Prepared {
            endpoint: self.endpoint(),
            path,
            query,
            form,
            batch_len,
            retry: Retry::of(self.endpoint()),
        })
    }
}

/// Builds a [`Client`] from explicit values, falling back to `MONAPI_*` environment variables
/// with [`from_env`](ClientBuilder::from_env).
#[derive(Default)]
pub struct ClientBuilder {
    base_url: Option<String>,
    client_id: Option<String>,
    client_secret: Option<Secret>,
    username: Option<String>,
    password: Option<Secret>,
    password_md5: Option<Secret>,
    token: Option<Token>,
    on_token: Option<TokenCallback>,
    timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    max_retries: Option<usize>,
    user_agent: Option<String>,
    refresh_leeway: Option<Duration>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// The environment variables [`ClientBuilder::from_env`] reads.
pub const ENV_VARS: [&str; 5] = [
    "MONAPI_BASE_URL",
    "MONAPI_CLIENT_ID",
    "MONAPI_CLIENT_SECRET",
    "MONAPI_USERNAME",
    "MONAPI_PASSWORD",
];

impl ClientBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder holding whatever of `MONAPI_BASE_URL`, `MONAPI_CLIENT_ID`,
    /// `MONAPI_CLIENT_SECRET`, `MONAPI_USERNAME` and `MONAPI_PASSWORD` is set; values given
    /// afterwards win.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        ClientBuilder {
            base_url: var("MONAPI_BASE_URL"),
            client_id: var("MONAPI_CLIENT_ID"),
            client_secret: var("MONAPI_CLIENT_SECRET").map(Secret::from),
            username: var("MONAPI_USERNAME"),
            password: var("MONAPI_PASSWORD").map(Secret::from),
            ..Self::default()
        }
    }

    /// Where the service is, e.g. `https://api.example.com` (the `/v2/...` paths are added).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The registered client's id.
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        self.client_id = Some(id.into());
        self
    }

    /// The registered client's secret.
    pub fn client_secret(mut self, secret: impl Into<Secret>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The account login (an e-mail address).
    pub fn username(mut self, username: impl Into<String>) -> Self {
        self.username = Some(username.into());
        self
    }

    /// The account password in plain text; the SDK sends its lowercase hex MD5.
    pub fn password(mut self, password: impl Into<Secret>) -> Self {
        self.password = Some(password.into());
        self.password_md5 = None;
        self
    }

    /// The account password already hashed: 32 hexadecimal characters.
    pub fn password_md5(mut self, md5: impl Into<Secret>) -> Self {
        self.password_md5 = Some(md5.into());
        self.password = None;
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

    /// Overall timeout of one HTTP exchange (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Timeout for making a connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Retries of a read after a connection error, 429 or 502/503/504 (default 2). Creates
    /// are retried only when the request cannot have reached the service.
    pub fn max_retries(mut self, retries: usize) -> Self {
        self.max_retries = Some(retries);
        self
    }

    /// The `User-Agent` header (default `monapi-rust/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// How long before expiry a token is renewed (default 60 s, at most a quarter of the
    /// token's lifetime).
    pub fn refresh_leeway(mut self, leeway: Duration) -> Self {
        self.refresh_leeway = Some(leeway);
        self
    }

    /// Checks the configuration and builds the client. No request is made.
    pub fn build(self) -> Result<Client> {
        let base_url = self.base_url.ok_or_else(|| {
            Error::invalid_input(None, "base_url", "is required (give it, or set MONAPI_BASE_URL)")
        })?;
        let parsed = reqwest::Url::parse(&base_url).map_err(|_| {
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
        if let Some(user_agent) = &self.user_agent {
            if reqwest::header::HeaderValue::from_str(user_agent).is_err() {
                return Err(Error::invalid_input(
                    None,
                    "user_agent",
                    "must be printable ASCII text (an HTTP header value)",
                ));
            }
        }
        let client_id = self.client_id.filter(|id| !id.is_empty()).ok_or_else(|| {
            Error::invalid_input(
                None,
                "client_id",
                "is required (give it, or set MONAPI_CLIENT_ID)",
            )
        })?;
        let client_secret = self
            .client_secret
            .filter(|s| !s.expose().is_empty())
            .ok_or_else(|| {
                Error::invalid_input(
                    None,
                    "client_secret",
                    "is required (give it, or set MONAPI_CLIENT_SECRET)",
                )
            })?;
        let password_md5 = match (&self.password, self.password_md5) {
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
        if self.username.is_some() != password_md5.is_some() {
            let missing = if self.username.is_none() {
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

        let redactor = Arc::new(Redactor::default());
        redactor.add(client_secret.expose());
        for secret in [&self.password, &password_md5].into_iter().flatten() {
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
                base_url,
                timeout: self.timeout.unwrap_or(DEFAULT_TIMEOUT),
                connect_timeout: self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
                max_retries: self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
                user_agent: self
                    .user_agent
                    .unwrap_or_else(|| format!("monapi-rust/{}", env!("CARGO_PKG_VERSION"))),
            },
            redactor,
        )?;
        let auth = Auth::new(
            Credentials {
                client_id,
                client_secret,
                username: self.username,
                password_md5,
            },
            self.token,
            self.on_token,
            self.refresh_leeway.unwrap_or(DEFAULT_REFRESH_LEEWAY),
        );
        Ok(Client {
            inner: Arc::new(Inner { transport, auth }),
        })
    }
}

/// A client of the monitoring service. Cheap to clone (clones share the connection pool and
/// the token); safe to use from many tasks at once.
///
/// Tokens look after themselves: the first call logs in, a token is renewed shortly before it
/// expires, and when the service rejects one the client renews it once and repeats the call
/// once. However many calls run at once, only one token request is in flight.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), monapi::Error> {
/// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
/// use futures::TryStreamExt;
/// use monapi::{Client, DateRange, Monitor};
///
/// let client = Client::builder()
///     .base_url(emulator.base_url())
///     .client_id("demo_id")
///     .client_secret("demo_secret")
///     .username("test@example.com")
///     .password("123456")
///     .build()?;
///
/// let tasks: Vec<_> = client.service_tasks_all().try_collect().await?;
/// let report = client.service_report(tasks[0].task_id, DateRange::today()).await?;
/// println!("{} series", report.series.len());
///
/// let site = client.site_report(20001, DateRange::today(), Monitor::Average).await?;
/// assert!(site.points.contains_key(&0));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    transport: Transport,
    auth: Auth,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let token = self.inner.auth.current();
        f.debug_struct("Client")
            .field("base_url", &self.inner.transport.base_url())
            .field("client_id", &self.inner.auth.client_id())
            .field("username", &self.inner.auth.username())
            .field("token_expires_at", &token.and_then(|t| t.expires_at))
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// A client configured entirely from the `MONAPI_*` environment variables.
    pub fn from_env() -> Result<Client> {
        ClientBuilder::from_env().build()
    }

    /// The service's base URL.
    pub fn base_url(&self) -> &str {
        self.inner.transport.base_url()
    }

    /// The registered client id this client uses.
    pub fn client_id(&self) -> &str {
        self.inner.auth.client_id()
    }

    /// The account login, when the client has one (a client may run on a saved token alone).
    pub fn username(&self) -> Option<&str> {
        self.inner.auth.username()
    }

    /// Logs in with the password grant now and returns the new token.
    pub async fn login(&self) -> Result<Token> {
        Ok((*self.inner.auth.login(&self.inner.transport).await?).clone())
    }

    /// Gets a new token with the refresh grant now and returns it.
    pub async fn refresh(&self) -> Result<Token> {
        Ok((*self.inner.auth.refresh(&self.inner.transport).await?).clone())
    }

    /// The current token, if the client has one.
    pub fn token(&self) -> Option<Token> {
        self.inner.auth.current().map(|t| (*t).clone())
    }

    /// Replaces the cached token (or forgets it with `None`).
    pub fn set_token(&self, token: Option<Token>) {
        if let Some(token) = &token {
            let redactor = &self.inner.transport.redactor;
            redactor.add(token.access_token.expose());
            if let Some(refresh) = &token.refresh_token {
                redactor.add(refresh.expose());
            }
        }
        self.inner.auth.set_current(token);
    }

    /// Sends one operation and returns the body as the service sent it (after checking that
    /// it is not an error). Input is validated first; nothing is sent when it is bad.
    pub async fn execute(&self, request: &Request) -> Result<RawResponse> {
        let prepared = request.prepare()?;
        let Inner { transport, auth } = &*self.inner;
        let token = auth.valid_token(transport).await?;
        match transport.send(&prepared, Some(&token.access_token)).await {
            Err(error) if error.is_token_rejected() => {
                tracing::debug!(target: "monapi", endpoint = %prepared.endpoint, "access token rejected; renewing it and repeating the call once");
                let fresh = auth.renew(transport, Some(token)).await?;
                transport
                    .send(&prepared, Some(&fresh.access_token))
                    .await
                    .map_err(|error| {
                        if error.is_token_rejected() {
                            error.into_rejected_token()
                        } else {
                            error
                        }
                    })
            }
            other => other,
        }
    }

    /// Creates server monitoring tasks in one batch, after checking each against the spec's
    /// rules. When some lines fail, the error is [`Error::PartialCreate`] and every other line
    /// was created. Never retried once the request may have reached the service.
    pub async fn create_server_tasks(&self, tasks: &[ServerTask]) -> Result<Vec<CreatedTask>> {
        self.execute(&Request::CreateServerTasks(tasks.to_vec()))
            .await?
            .json()
    }

    /// One page (from 1) of the service task list; a page holds up to [`PAGE_SIZE`] tasks.
    pub async fn service_tasks(&self, page: u32) -> Result<Vec<ServiceTask>> {
        self.execute(&Request::ServiceTasks { page }).await?.json()
    }

    /// Every service task, page after page; ends after the first page with fewer than
    /// [`PAGE_SIZE`] tasks. Pages are fetched as the stream is read.
    pub fn service_tasks_all(&self) -> impl Stream<Item = Result<ServiceTask>> + Send + 'static {
        let client = self.clone();
        futures::stream::try_unfold(Some(1u32), move |page| {
            let client = client.clone();
            async move {
                let Some(page) = page else { return Ok(None) };
                let tasks = client.service_tasks(page).await?;
                let next = (tasks.len() >= PAGE_SIZE).then_some(page + 1);
                Ok(Some((futures::stream::iter(tasks.into_iter().map(Ok)), next)))
            }
        })
        .try_flatten()
    }

    /// The collector agents, keyed by agent id, with their plugins.
    pub async fn agents(&self) -> Result<Agents> {
        self.execute(&Request::Agents).await?.json()
    }

    /// The report of a service task over `range`.
    pub async fn service_report(&self, task_id: u64, range: DateRange) -> Result<ServiceReport> {
        self.execute(&Request::ServiceReport { task_id, range })
            .await?
            .json()
    }

    /// The report of a site task over `range`, for the monitoring points `monitor` selects.
    pub async fn site_report(&self, task_id: u64, range: DateRange, monitor: Monitor) -> Result<SiteReport> {
        self.execute(&Request::SiteReport {
            task_id,
            range,
            monitor,
        })
        .await?
        .json()
    }

    /// The response-time distribution of a site task over `range`.
    pub async fn response_time_distribution(&self, task_id: u64, range: DateRange) -> Result<Distribution> {
        self.execute(&Request::ResponseTimeDistribution { task_id, range })
            .await?
            .json()
    }
}
