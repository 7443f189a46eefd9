//! [`Client`]: one method per operation of the service.

use std::fmt;
use std::sync::Arc;

use crate::arriving::Decoder;
use crate::auth::Auth;
use crate::model::de::Records;
use crate::model::{
    Agents, CreatedTask, DateRange, Distribution, Monitor, MonitorPoint, NewServiceTask, ServerTask,
    ServiceReport, ServiceTask, SiteReport, SiteTask, User, UserGroup,
};
use crate::settings::Settings;
use crate::telemetry;
use crate::transport::{Decoded, RawResponse, Transport};
use crate::{Request, Result, Token};

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
///
/// # Errors
///
/// Every call checks its arguments before anything is sent: a broken rule is an
/// [`Error::InvalidInput`](crate::Error::InvalidInput) naming the argument and the rule. Then
/// any call may end with:
///
/// - [`Error::Auth`](crate::Error::Auth): the token endpoint refused the credentials
///   (`invalid_client`: the client id or secret is wrong; `invalid_grant`: the username or
///   password, or a refresh token the service no longer takes), or the service rejected a
///   fresh access token too;
/// - [`Error::Api`](crate::Error::Api): the service answered with an error (its HTTP status,
///   `code` and message; [`Error::retry_after`](crate::Error::retry_after) when it asked to
///   wait);
/// - [`Error::Timeout`](crate::Error::Timeout) or [`Error::Connection`](crate::Error::Connection):
///   no complete answer in time, or no connection, after the retries
///   ([`ClientBuilder::max_retries`](crate::ClientBuilder::max_retries));
/// - [`Error::Decode`](crate::Error::Decode): the answer is not what the operation returns.
///
/// [`Error::code`](crate::Error::code) gives each a stable code; [`ERRORS`](crate::ERRORS) says
/// when each happens and what to do about it.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
    /// The overall timeout of each exchange, when this copy has its own
    /// ([`Client::with_timeout`]).
    pub(crate) timeout: Option<std::time::Duration>,
}

pub(crate) struct Inner {
    pub transport: Transport,
    pub auth: Auth,
    pub settings: Settings,
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
    /// What the client was built from, every fallback and default resolved (to build an
    /// equal client elsewhere: `ClientBuilder::from(settings)`).
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// A copy of this client (the same token, connections and settings) whose calls give each
    /// HTTP exchange `timeout` instead of the client's: a timeout for one call. The token
    /// requests the calls make keep the client's timeout.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use std::time::Duration;
    /// let agents = client.with_timeout(Duration::from_secs(5))?.agents().await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) when `timeout` is zero or more than
    /// [`input::MAX_TIMEOUT`](crate::input::MAX_TIMEOUT).
    pub fn with_timeout(&self, timeout: std::time::Duration) -> Result<Client> {
        crate::input::check_timeout("timeout", timeout)?;
        Ok(Client {
            inner: self.inner.clone(),
            timeout: Some(timeout),
        })
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

    /// The time zone of the service's days and clock times (see
    /// [`ClientBuilder::timezone`](crate::ClientBuilder::timezone)).
    pub fn timezone(&self) -> chrono::FixedOffset {
        self.inner.settings.timezone
    }

    /// Logs in with the password grant now and returns the new token.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`](crate::Error::Auth) when the service refuses the credentials
    /// (`invalid_client`: the client id or secret; `invalid_grant`: the username or password);
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when the client has no username or
    /// password (it was built from a token alone); otherwise those of every call (see
    /// [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let token = client.login().await?;
    /// assert!(token.refresh_token.is_some());
    /// # Ok(()) }
    /// ```
    pub async fn login(&self) -> Result<Token> {
        Ok((*self.inner.auth.login(&self.inner.transport).await?).clone())
    }

    /// Gets a new token with the refresh grant now and returns it.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`](crate::Error::Auth) with `invalid_grant` when the service no longer accepts
    /// the refresh token (it expired, or a newer token replaced it): log in again with
    /// [`login`](Self::login); [`Error::InvalidInput`](crate::Error::InvalidInput) when the client
    /// holds no refresh token yet; otherwise those of every call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let first = client.login().await?;
    /// let second = client.refresh().await?;
    /// assert_ne!(first.access_token.expose(), second.access_token.expose());
    /// # Ok(()) }
    /// ```
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
    ///
    /// # Errors
    ///
    /// Those of every call (see [`Client`](#errors)); an answer that is an error of the service is
    /// an [`Error::Api`](crate::Error::Api) or [`Error::Auth`](crate::Error::Auth), as for the typed
    /// methods.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::{DateRange, Request};
    /// let raw = client.execute(&Request::ServiceReport { task_id: 10001, range: DateRange::today() }).await?;
    /// let report: serde_json::Value = raw.json()?;
    /// assert!(report.is_object());
    /// # Ok(()) }
    /// ```
    pub async fn execute(&self, request: &Request) -> Result<RawResponse> {
        let (raw, _) = self.send::<()>(request, None).await?;
        Ok(raw)
    }

    /// [`execute`](Self::execute), the body read by `decoder` as it arrives; a body that is
    /// not what it reads is a [`Error::Decode`](crate::Error::Decode). The answer is checked
    /// as `execute` checks it: what the decoder made of an error answer is dropped.
    ///
    /// # Errors
    ///
    /// Those of [`execute`](Self::execute), and [`Error::Decode`](crate::Error::Decode) when the
    /// decoder refuses the body.
    pub async fn execute_decoded<T: Send + 'static>(
        &self,
        request: &Request,
        decoder: &Decoder<T>,
    ) -> Result<(RawResponse, T)> {
        let (raw, decoded) = self.send(request, Some(decoder)).await?;
        let decoded = match decoded {
            Some(decoded) => decoded,
            // A body that came fast, or one reshaped (PHP's empty forms) that the decoder reads
            // otherwise: read whole, aside from the tasks of the runtime.
            None => {
                let body = raw.body().clone();
                let decoder = decoder.clone();
                match tokio::task::spawn_blocking(move || decoder.read(&body)).await {
                    Ok(decoded) => decoded,
                    Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                    Err(_) => return Err(crate::Error::Aborted),
                }
            }
        };
        match decoded {
            Ok(value) => Ok((raw, value)),
            Err(error) => Err(raw.decode_error(error)),
        }
    }

    /// [`Self::send_once`], as the operation's span when someone listens (unless it is part
    /// of an operation already: a table's). The span's work is boxed, so that the futures of
    /// unseen calls stay as small as they were.
    async fn send<T: Send + 'static>(
        &self,
        request: &Request,
        decoder: Option<&Decoder<T>>,
    ) -> Result<Decoded<T>> {
        if telemetry::quiet() {
            return self.send_once(request, decoder).await;
        }
        let name = request.endpoint().name();
        let call = self.send_once(request, decoder);
        Box::pin(telemetry::operation(
            name,
            request.task_id(),
            call,
            telemetry::no_rows,
        ))
        .await
    }

    async fn send_once<T: Send + 'static>(
        &self,
        request: &Request,
        decoder: Option<&Decoder<T>>,
    ) -> Result<Decoded<T>> {
        let mut prepared = request.prepare()?;
        prepared.timeout = self.timeout;
        let Inner { transport, auth, .. } = &*self.inner;
        for secret in request.secrets() {
            transport.redactor.add(secret.expose());
        }
        let token = auth.valid_token(transport).await?;
        match transport
            .send_decoded(&prepared, Some(&token.access_token), decoder)
            .await
        {
            Err(error) if error.is_token_rejected() => {
                tracing::debug!(target: "monapi", endpoint = %prepared.endpoint, "access token rejected; renewing it and repeating the call once");
                let fresh = auth.renew(transport, Some(token)).await?;
                transport
                    .send_decoded(&prepared, Some(&fresh.access_token), decoder)
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

    /// Makes sure the client holds a token that is not about to expire (logging in or
    /// refreshing if needed), so that many calls started together do not each fail the same
    /// way when the credentials are wrong.
    #[cfg(feature = "arrow")]
    pub(crate) async fn ensure_token(&self) -> Result<()> {
        let Inner { transport, auth, .. } = &*self.inner;
        auth.valid_token(transport).await.map(drop)
    }

    /// Creates server monitoring tasks in one batch, after checking each against the service's
    /// rules. When some lines fail, the error is [`Error::PartialCreate`](crate::Error::PartialCreate) and every other line
    /// was created. Never retried once the request may have reached the service.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput), naming every broken rule of every task
    /// (its index, field and rule), when a task breaks the service's rules: nothing is sent;
    /// [`Error::PartialCreate`](crate::Error::PartialCreate) when the service refused some lines (the
    /// others were created); otherwise those of every call (see [`Client`](#errors)). A create that
    /// timed out or lost its connection after the request was sent may have been created: list the
    /// tasks before sending it again.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::{ServerTask, SystemType};
    /// let task = ServerTask::new("web-01", "192.168.1.10", "203.0.113.10", SystemType::Linux);
    /// let created = client.create_server_tasks(&[task]).await?;
    /// assert!(created[0].task_id > 0);
    /// # Ok(()) }
    /// ```
    pub async fn create_server_tasks(&self, tasks: &[ServerTask]) -> Result<Vec<CreatedTask>> {
        self.execute(&Request::CreateServerTasks(tasks.to_vec()))
            .await?
            .json()
    }

    /// One page (from 1) of the service task list; a page holds up to
    /// [`PAGE_SIZE`](crate::PAGE_SIZE) tasks. An empty page is an empty list, however the
    /// service wrote it (`[]`, `{}` or `null`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `page` is 0; otherwise those of
    /// every call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let tasks = client.service_tasks(1).await?;
    /// assert_eq!(tasks.len(), monapi::PAGE_SIZE);
    /// println!("{} checks {}", tasks[0].task_name, tasks[0].task_type);
    /// # Ok(()) }
    /// ```
    pub async fn service_tasks(&self, page: u32) -> Result<Vec<ServiceTask>> {
        self.execute(&Request::ServiceTasks { page }).await?.json()
    }

    /// The collector agents, keyed by agent id, with their plugins.
    ///
    /// # Errors
    ///
    /// Those of every call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let agents = client.agents().await?;
    /// for (id, agent) in &agents {
    ///     println!("agent {id}: {} plugin(s)", agent.plugin.len());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn agents(&self) -> Result<Agents> {
        self.execute(&Request::Agents).await?.json()
    }

    /// The report of a service task over `range`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `task_id` is 0 or `range` starts
    /// after it ends; [`Error::Api`](crate::Error::Api)
    /// when the service has no such task (its status and message say so); otherwise those of every
    /// call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::DateRange;
    /// let report = client.service_report(10001, DateRange::today()).await?;
    /// for (indicator, series) in &report.series {
    ///     println!("{indicator}: {} points", series.len());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn service_report(&self, task_id: u64, range: DateRange) -> Result<ServiceReport> {
        let (_, report) = self
            .execute_decoded(&Request::ServiceReport { task_id, range }, &Decoder::json())
            .await?;
        Ok(report)
    }

    /// The report of a site task over `range`, for the monitoring points `monitor` selects.
    ///
    /// # Errors
    ///
    /// As for [`service_report`](Self::service_report).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::{DateRange, Monitor};
    /// let report = client.site_report(20001, DateRange::today(), Monitor::Average).await?;
    /// let average = &report.points[&0]; // point 0: the average of every monitoring point
    /// println!("{}: {} checks", average.name, average.uprate.len());
    /// # Ok(()) }
    /// ```
    pub async fn site_report(&self, task_id: u64, range: DateRange, monitor: Monitor) -> Result<SiteReport> {
        let request = Request::SiteReport {
            task_id,
            range,
            monitor,
        };
        let (_, report) = self.execute_decoded(&request, &Decoder::json()).await?;
        Ok(report)
    }

    /// The response-time distribution of a site task over `range`.
    ///
    /// # Errors
    ///
    /// As for [`service_report`](Self::service_report).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::DateRange;
    /// let distribution = client.response_time_distribution(20001, DateRange::today()).await?;
    /// println!("{distribution:?}");
    /// # Ok(()) }
    /// ```
    pub async fn response_time_distribution(&self, task_id: u64, range: DateRange) -> Result<Distribution> {
        self.execute(&Request::ResponseTimeDistribution { task_id, range })
            .await?
            .json()
    }

    /// One page (from 1) of the site task list (a page holds up to
    /// [`PAGE_SIZE`](crate::PAGE_SIZE) tasks): a list, or an object keyed by task ids, either
    /// read as the list of its tasks; an empty page is an empty list.
    ///
    /// # Errors
    ///
    /// As for [`service_tasks`](Self::service_tasks).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let sites = client.site_tasks(1).await?;
    /// println!("{} site tasks on page 1", sites.len());
    /// # Ok(()) }
    /// ```
    pub async fn site_tasks(&self, page: u32) -> Result<Vec<SiteTask>> {
        Ok(self
            .execute(&Request::SiteTasks { page })
            .await?
            .json::<Records<SiteTask>>()?
            .0)
    }

    /// The settings of one site task (what the list shows of it, and the rest of its
    /// settings in [`SiteTask::extra`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `task_id` is 0;
    /// [`Error::Api`](crate::Error::Api) when the service has no such task; otherwise those of every
    /// call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let site = client.site_task(20001).await?;
    /// assert_eq!(site.task_id, 20001);
    /// # Ok(()) }
    /// ```
    pub async fn site_task(&self, task_id: u64) -> Result<SiteTask> {
        self.execute(&Request::SiteTask { task_id }).await?.json()
    }

    /// The monitoring points of the account (their ids are the keys of a site report).
    ///
    /// # Errors
    ///
    /// Those of every call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let points = client.monitors().await?;
    /// assert!(!points.is_empty());
    /// # Ok(()) }
    /// ```
    pub async fn monitors(&self) -> Result<Vec<MonitorPoint>> {
        Ok(self
            .execute(&Request::Monitors)
            .await?
            .json::<Records<MonitorPoint>>()?
            .0)
    }

    /// Every user of the account (their ids are what a task's `alert_setting` names).
    ///
    /// # Errors
    ///
    /// Those of every call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let users = client.users().await?;
    /// println!("{} users", users.len());
    /// # Ok(()) }
    /// ```
    pub async fn users(&self) -> Result<Vec<User>> {
        Ok(self.execute(&Request::Users).await?.json::<Records<User>>()?.0)
    }

    /// The user groups of the account (their ids are what a task's `organization` names).
    ///
    /// # Errors
    ///
    /// Those of every call (see [`Client`](#errors)).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// let groups = client.user_groups().await?;
    /// println!("{} groups", groups.len());
    /// # Ok(()) }
    /// ```
    pub async fn user_groups(&self) -> Result<Vec<UserGroup>> {
        Ok(self
            .execute(&Request::UserGroups)
            .await?
            .json::<Records<UserGroup>>()?
            .0)
    }

    /// Creates service monitoring tasks in one batch, after checking each against the
    /// service's rules (see [`NewServiceTask`]). As for server tasks, when some lines fail the
    /// error is [`Error::PartialCreate`](crate::Error::PartialCreate) and every other line was
    /// created; never retried once the request may have reached the service.
    ///
    /// # Errors
    ///
    /// As for [`create_server_tasks`](Self::create_server_tasks): every broken rule is an
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) and nothing is sent; refused lines are an
    /// [`Error::PartialCreate`](crate::Error::PartialCreate).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), monapi::Error> {
    /// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
    /// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
    /// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
    /// use monapi::{NewServiceTask, ServiceType};
    /// let mut task = NewServiceTask::new("db-main", ServiceType::Mysql);
    /// task.ip = Some("10.0.0.5".into());
    /// task.port = Some(3306);
    /// task.user = Some("monitor".into());
    /// task.password = Some("s3cret".into());
    /// let created = client.create_service_tasks(&[task]).await?;
    /// assert_eq!(created.len(), 1);
    /// # Ok(()) }
    /// ```
    pub async fn create_service_tasks(&self, tasks: &[NewServiceTask]) -> Result<Vec<CreatedTask>> {
        self.execute(&Request::CreateServiceTasks(tasks.to_vec()))
            .await?
            .json()
    }
}
