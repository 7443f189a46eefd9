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
        let (raw, _) = self.send::<()>(request, None).await?;
        Ok(raw)
    }

    /// [`execute`](Self::execute), the body read by `decoder` as it arrives; a body that is
    /// not what it reads is a [`Error::Decode`](crate::Error::Decode). The answer is checked
    /// as `execute` checks it: what the decoder made of an error answer is dropped.
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

    async fn send<T: Send + 'static>(
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
    pub async fn create_server_tasks(&self, tasks: &[ServerTask]) -> Result<Vec<CreatedTask>> {
        self.execute(&Request::CreateServerTasks(tasks.to_vec()))
            .await?
            .json()
    }

    /// One page (from 1) of the service task list; a page holds up to
    /// [`PAGE_SIZE`](crate::PAGE_SIZE) tasks. An empty page is an empty list, however the
    /// service wrote it (`[]`, `{}` or `null`).
    pub async fn service_tasks(&self, page: u32) -> Result<Vec<ServiceTask>> {
        self.execute(&Request::ServiceTasks { page }).await?.json()
    }

    /// The collector agents, keyed by agent id, with their plugins.
    pub async fn agents(&self) -> Result<Agents> {
        self.execute(&Request::Agents).await?.json()
    }

    /// The report of a service task over `range`.
    pub async fn service_report(&self, task_id: u64, range: DateRange) -> Result<ServiceReport> {
        let (_, report) = self
            .execute_decoded(&Request::ServiceReport { task_id, range }, &Decoder::json())
            .await?;
        Ok(report)
    }

    /// The report of a site task over `range`, for the monitoring points `monitor` selects.
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
    pub async fn response_time_distribution(&self, task_id: u64, range: DateRange) -> Result<Distribution> {
        self.execute(&Request::ResponseTimeDistribution { task_id, range })
            .await?
            .json()
    }

    /// One page (from 1) of the site task list (a page holds up to
    /// [`PAGE_SIZE`](crate::PAGE_SIZE) tasks): a list, or an object keyed by task ids, either
    /// read as the list of its tasks; an empty page is an empty list.
    pub async fn site_tasks(&self, page: u32) -> Result<Vec<SiteTask>> {
        Ok(self
            .execute(&Request::SiteTasks { page })
            .await?
            .json::<Records<SiteTask>>()?
            .0)
    }

    /// The settings of one site task (what the list shows of it, and the rest of its
    /// settings in [`SiteTask::extra`]).
    pub async fn site_task(&self, task_id: u64) -> Result<SiteTask> {
        self.execute(&Request::SiteTask { task_id }).await?.json()
    }

    /// The monitoring points of the account (their ids are the keys of a site report).
    pub async fn monitors(&self) -> Result<Vec<MonitorPoint>> {
        Ok(self
            .execute(&Request::Monitors)
            .await?
            .json::<Records<MonitorPoint>>()?
            .0)
    }

    /// Every user of the account (their ids are what a task's `alert_setting` names).
    pub async fn users(&self) -> Result<Vec<User>> {
        Ok(self.execute(&Request::Users).await?.json::<Records<User>>()?.0)
    }

    /// The user groups of the account (their ids are what a task's `organization` names).
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
    pub async fn create_service_tasks(&self, tasks: &[NewServiceTask]) -> Result<Vec<CreatedTask>> {
        self.execute(&Request::CreateServiceTasks(tasks.to_vec()))
            .await?
            .json()
    }
}
