//! A stateful local emulator of the monitoring service API.
//!
//! It serves every endpoint of the service's API (tokens, server task creation, service task
//! and agent lists, service and site reports, response-time distribution) from data
//! generated deterministically from a seed, and adds test hooks under `/_emulator/`
//! (counters, reset, faults, latency, token expiry, PHP-shaped quirks). See the crate's
//! README for every behaviour the service's documentation leaves open.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let emulator = monapi_emulator::Emulator::start(Default::default()).await?;
//! println!("service at {}", emulator.base_url());
//! emulator.stop().await;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod app;
mod auth;
mod catalog;
mod clock;
mod compression;
mod config;
mod faults;
mod handlers;
mod hooks;
mod incidents;
mod link;
mod reports;
mod response;
mod rng;
mod router;
mod server;
mod state;
mod tls;
mod validate;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use app::Counters;
pub use config::{
    bandwidth, encodings, instant, latency, rtt, token_ttl, Config, ConfigError, Encoding, FaultKind, Faults,
    PastEndPage, Quirks, TimeUnit, World, DEFAULT_REFRESH_TOKEN_TTL, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET,
    DEMO_PASSWORD, DEMO_USERNAME, LEAST_BANDWIDTH_MBPS, LONGEST_LATENCY, LONGEST_RTT, LONGEST_TOKEN_TTL,
    MOST_BANDWIDTH_MBPS, MOST_SERVICE_TASKS, MOST_SITE_POINTS, MOST_SITE_TASKS, SERVICE_TIMEZONE,
};

use app::App;

/// A running emulator. Dropping it stops the server (for [`Emulator::spawn_thread`] it
/// also joins the thread); [`Emulator::stop`] does the same and waits.
///
/// ```
/// use monapi_emulator::{Config, Emulator};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let emulator = Emulator::start(Config::default()).await?;
/// assert!(emulator.base_url().starts_with("http://127.0.0.1:"));
/// assert_eq!(emulator.counters().total, 0);
/// emulator.stop().await;
/// # Ok(())
/// # }
/// ```
pub struct Emulator {
    app: Arc<App>,
    addr: SocketAddr,
    base_url: String,
    /// The private CA, when serving HTTPS.
    ca: Option<(String, tls::CaFile)>,
    shutdown: watch::Sender<bool>,
    runner: Runner,
}

enum Runner {
    Task(Option<JoinHandle<()>>),
    Thread(Option<thread::JoinHandle<()>>),
}

impl Emulator {
    /// Starts on `127.0.0.1` with a free port, on the current tokio runtime. A configuration
    /// that [`Config::check`] refuses is an `io::Error` of kind `InvalidInput` carrying the
    /// [`ConfigError`] (so are those of [`Emulator::bind`] and [`Emulator::spawn_thread`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = monapi_emulator::Emulator::start(Default::default()).await?;
    /// assert_ne!(emulator.addr().port(), 0);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start(config: Config) -> std::io::Result<Emulator> {
        Emulator::bind(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await
    }

    /// Starts on `addr` (e.g. a fixed port for `monapi serve --port`), on the current
    /// tokio runtime.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let addr = "127.0.0.1:0".parse().unwrap();
    /// let emulator = monapi_emulator::Emulator::bind(Default::default(), addr).await?;
    /// assert_eq!(emulator.addr().ip(), addr.ip());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn bind(config: Config, addr: SocketAddr) -> std::io::Result<Emulator> {
        checked(&config)?;
        let listener = TcpListener::bind(addr).await?;
        let app = Arc::new(App::new(&config));
        let (shutdown, stop) = watch::channel(false);
        let addr = listener.local_addr()?;
        let tls = config.tls.then(|| tls::generate(addr)).transpose()?;
        let acceptor = tls.as_ref().map(|tls| tls.acceptor.clone());
        let router = router::router(app.clone());
        let task = tokio::spawn(server::serve(listener, router, app.clone(), acceptor, stop));
        Ok(Emulator::new(app, addr, tls, shutdown, Runner::Task(Some(task))))
    }

    /// Starts on `127.0.0.1` with a free port, on an OS thread of its own with its own
    /// current-thread tokio runtime, so it never competes with the caller's runtime.
    /// Blocking; callable with or without a runtime.
    ///
    /// ```
    /// let emulator = monapi_emulator::Emulator::spawn_thread(Default::default()).unwrap();
    /// assert!(emulator.base_url().starts_with("http://127.0.0.1:"));
    /// drop(emulator); // stops the server and joins the thread
    /// ```
    pub fn spawn_thread(config: Config) -> std::io::Result<Emulator> {
        checked(&config)?;
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let app = Arc::new(App::new(&config));
        let (shutdown, stop) = watch::channel(false);
        let tls = config.tls.then(|| tls::generate(addr)).transpose()?;
        let acceptor = tls.as_ref().map(|tls| tls.acceptor.clone());
        let router = router::router(app.clone());
        let served = app.clone();
        let thread = thread::Builder::new()
            .name("monapi-emulator".into())
            .spawn(move || {
                runtime.block_on(async move {
                    match TcpListener::from_std(listener) {
                        Ok(listener) => server::serve(listener, router, served, acceptor, stop).await,
                        Err(error) => tracing::error!(%error, "emulator listener unusable"),
                    }
                })
            })?;
        Ok(Emulator::new(
            app,
            addr,
            tls,
            shutdown,
            Runner::Thread(Some(thread)),
        ))
    }

    fn new(
        app: Arc<App>,
        addr: SocketAddr,
        tls: Option<tls::Tls>,
        shutdown: watch::Sender<bool>,
        runner: Runner,
    ) -> Self {
        let scheme = if tls.is_some() { "https" } else { "http" };
        Emulator {
            app,
            addr,
            base_url: format!("{scheme}://{addr}"),
            ca: tls.map(|tls| (tls.ca_pem, tls.ca_file)),
            shutdown,
            runner,
        }
    }

    /// `http://127.0.0.1:PORT` (`https://` with [`Config::tls`]), without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The private CA's certificate (PEM) that signed the emulator's own, when it serves
    /// HTTPS ([`Config::tls`]): give it to a client as its CA bundle.
    ///
    /// ```
    /// let config = monapi_emulator::Config { tls: true, ..Default::default() };
    /// let emulator = monapi_emulator::Emulator::spawn_thread(config).unwrap();
    /// assert!(emulator.base_url().starts_with("https://127.0.0.1:"));
    /// assert!(emulator.ca_pem().unwrap().starts_with("-----BEGIN CERTIFICATE-----"));
    /// let path = emulator.ca_path().unwrap().to_path_buf();
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), emulator.ca_pem().unwrap());
    /// drop(emulator);
    /// assert!(!path.exists()); // the file goes with the emulator
    /// ```
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca.as_ref().map(|(pem, _)| pem.as_str())
    }

    /// A file holding [`ca_pem`](Emulator::ca_pem) (in the temporary directory, removed
    /// when the emulator is dropped), when it serves HTTPS.
    pub fn ca_path(&self) -> Option<&std::path::Path> {
        self.ca.as_ref().map(|(_, file)| file.path())
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The time zone of its days ([`Config::timezone`]).
    pub fn timezone(&self) -> chrono::FixedOffset {
        self.app.timezone
    }

    /// Today in its time zone, on its clock: the day it serves when a report's dates are left
    /// out.
    pub fn today(&self) -> chrono::NaiveDate {
        self.app.clock.today()
    }

    /// Its clock's reading ([`Config::now`]): the instant after which no report has a check.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.app.clock.now()
    }

    /// The world its reports show ([`Config::world`]).
    pub fn world(&self) -> World {
        self.app.world.world
    }

    /// Fixes its clock at `now` (it stays there until set or advanced again), or with `None`
    /// makes it follow the system clock, from the next request on. An instant before 00:00 of
    /// the day its task lists were built for (the day of its clock at start) is refused,
    /// naming `now`: their last checks, the day before, would come after it. [`Emulator::reset`]
    /// sets the clock back as configured.
    ///
    /// ```
    /// use monapi_emulator::{instant, Config, Emulator, SERVICE_TIMEZONE};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let ten = instant("now", "2026-11-01 10:02", SERVICE_TIMEZONE).unwrap();
    /// let emulator = Emulator::start(Config { now: Some(ten), ..Config::default() }).await?;
    /// assert_eq!(emulator.today().to_string(), "2026-11-01");
    /// let noon = instant("now", "2026-11-01 12:00", SERVICE_TIMEZONE).unwrap();
    /// emulator.set_now(Some(noon)).unwrap();
    /// assert_eq!(emulator.now(), noon);
    /// let before = instant("now", "2026-10-31 23:00", SERVICE_TIMEZONE).unwrap();
    /// assert_eq!(emulator.set_now(Some(before)).unwrap_err().field(), "now");
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_now(&self, now: Option<chrono::DateTime<chrono::Utc>>) -> Result<(), ConfigError> {
        self.app.clock.set("now", now)
    }

    /// Fixes its clock `by` later than its reading (the system clock's, when it follows it),
    /// and answers the new reading.
    ///
    /// ```
    /// use std::time::Duration;
    /// use monapi_emulator::{instant, Config, Emulator, SERVICE_TIMEZONE};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let ten = instant("now", "2026-11-01 10:00", SERVICE_TIMEZONE).unwrap();
    /// let emulator = Emulator::start(Config { now: Some(ten), ..Config::default() }).await?;
    /// let later = emulator.advance(Duration::from_secs(300)).unwrap();
    /// assert_eq!((later - ten).num_seconds(), 300);
    /// # Ok(())
    /// # }
    /// ```
    pub fn advance(&self, by: Duration) -> Result<chrono::DateTime<chrono::Utc>, ConfigError> {
        self.app.clock.advance(by)
    }

    /// A snapshot of the request counters.
    pub fn counters(&self) -> Counters {
        self.app.counters()
    }

    /// Lifetime of access tokens issued from now on; longer than [`LONGEST_TOKEN_TTL`] is cut
    /// to it.
    pub fn set_token_ttl(&self, ttl: Duration) {
        self.app.knobs().token_ttl = ttl;
    }

    /// Delay added before every API endpoint answers, from the next request on; longer than
    /// [`LONGEST_LATENCY`] is cut to it.
    pub fn set_latency(&self, latency: Duration) {
        self.app.knobs().latency = latency.min(LONGEST_LATENCY);
    }

    /// Replaces the fault settings (and re-seeds the fault RNG). A share outside
    /// `0.0..=1.0`, or NaN, is refused ([`Faults::check`]) and changes nothing.
    ///
    /// ```
    /// use monapi_emulator::{Emulator, FaultKind, Faults};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = Emulator::start(Default::default()).await?;
    /// let next = Faults { next: vec![FaultKind::Error503], ..Faults::default() };
    /// emulator.set_faults(next).unwrap();
    /// let error = emulator
    ///     .set_faults(Faults { error_500: -0.5, ..Faults::default() })
    ///     .unwrap_err();
    /// assert_eq!(error.field(), "error_500");
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_faults(&self, faults: Faults) -> Result<(), ConfigError> {
        self.app.set_faults(faults)
    }

    /// Replaces the quirks (answers shaped as the real service's PHP writes them), from the
    /// next request on.
    ///
    /// ```
    /// use monapi_emulator::{Emulator, PastEndPage, Quirks};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = Emulator::start(Default::default()).await?;
    /// emulator.set_quirks(Quirks {
    ///     past_end_page: PastEndPage::Null,
    ///     ..Default::default()
    /// });
    /// assert_eq!(emulator.quirks().past_end_page, PastEndPage::Null);
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_quirks(&self, quirks: Quirks) {
        self.app.knobs().quirks = quirks;
    }

    /// The quirks in effect.
    pub fn quirks(&self) -> Quirks {
        self.app.quirks()
    }

    /// Every access token issued so far expires now; refresh tokens stay valid.
    pub fn expire_tokens(&self) {
        self.app.expire_tokens();
    }

    /// Every refresh token becomes invalid, so the next refresh gets `invalid_grant`.
    pub fn revoke_refresh_tokens(&self) {
        self.app.revoke_refresh_tokens();
    }

    /// Every refresh token issued so far expires now, so the next refresh gets
    /// `invalid_grant`, "Refresh token has expired".
    pub fn expire_refresh_tokens(&self) {
        self.app.expire_refresh_tokens();
    }

    /// Back to the state at start: counters zero, token lifetime, latency, faults and quirks
    /// as configured, created tasks gone, all tokens revoked, no site failing (nor any trace
    /// of a past [`Emulator::fail_site`] in the reports), every removed task back
    /// ([`Emulator::remove_task`]).
    pub fn reset(&self) {
        self.app.reset();
    }

    /// Site task `task_id` fails from now on: from its last check at or before this moment
    /// (the moment rounded down to its check frequency), every check of every one of its
    /// monitoring points fails (`uprate` `"0.00"`, a response-time record of zeros, the
    /// average's `uprate` `"0.00"` too), and each point has an ongoing fault (`end_time`
    /// `未结束`) starting at that check, its cause one of the service's. A fault of a point
    /// under way at that check is cut there. It lasts until [`Emulator::recover_site`] or
    /// [`Emulator::reset`]; calling it on a failing site changes nothing.
    ///
    /// Answers the unix time of the first failed check (the faults' `start_time`). A task id
    /// that is not one of the site tasks is refused, naming it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = monapi_emulator::Emulator::start(Default::default()).await?;
    /// let since = emulator.fail_site(20001).unwrap();
    /// assert_eq!(since % 300, 0); // a check of a five-minute task
    /// assert_eq!(emulator.fail_site(20001).unwrap(), since); // already failing
    /// let error = emulator.fail_site(10001).unwrap_err();
    /// assert_eq!(error.to_string(), "task_id must be a site task (20001 to 20005), got 10001");
    /// # Ok(())
    /// # }
    /// ```
    pub fn fail_site(&self, task_id: u64) -> Result<i64, ConfigError> {
        Ok(self.app.fail_site(task_id, self.app.clock.unix())?.start)
    }

    /// Ends the failure of site task `task_id` ([`Emulator::fail_site`]): its last check at
    /// or before this moment failed still, and the check after it is up again. That check
    /// is the faults' `end_time` (no longer `未结束`), and the checks from it on are as
    /// before the failure. A fault of a point that the failure cut short goes on after it.
    ///
    /// Answers the unix time of that first check up again, or `None` when the site was not
    /// failing (nothing changes). A task id that is not one of the site tasks is refused.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = monapi_emulator::Emulator::start(Default::default()).await?;
    /// let since = emulator.fail_site(20001).unwrap();
    /// let up = emulator.recover_site(20001).unwrap().unwrap();
    /// assert!(up > since && up % 300 == 0);
    /// assert_eq!(emulator.recover_site(20001).unwrap(), None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn recover_site(&self, task_id: u64) -> Result<Option<i64>, ConfigError> {
        Ok(self
            .app
            .recover_site(task_id, self.app.clock.unix())?
            .and_then(|outage| outage.end))
    }

    /// Takes seeded task `task_id` out of the account, as a user deleting it in the service's
    /// console: a service task (10001 on) or a site task (20001 on); an id that is both (with
    /// more than 10,000 service tasks) removes both. From the next request on, its list (the
    /// service or the site task list) is paged without it, 50 a page (so the later pages
    /// shift, and the last may go past the end), and every operation naming it (reports,
    /// response-time distribution, site settings) answers as for an id that does not exist,
    /// a 404. Until [`Emulator::restore_task`] or [`Emulator::reset`].
    ///
    /// Answers whether anything changed (`false` for a task already removed). Any other id is
    /// refused, naming it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = monapi_emulator::Emulator::start(Default::default()).await?;
    /// assert!(emulator.remove_task(10001).unwrap());
    /// assert!(!emulator.remove_task(10001).unwrap()); // removed already
    /// assert!(emulator.remove_task(20003).unwrap());
    /// let error = emulator.remove_task(99999).unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     "task_id must be a service task (10001 to 10120) or a site task (20001 to 20005), got 99999"
    /// );
    /// # Ok(())
    /// # }
    /// ```
    pub fn remove_task(&self, task_id: u64) -> Result<bool, ConfigError> {
        self.app.remove_task(task_id)
    }

    /// Brings back task `task_id` taken out by [`Emulator::remove_task`]: in its list at its
    /// place (the pages exactly as before it was removed, when no other task is), its reports
    /// and settings answered again.
    ///
    /// Answers whether anything changed (`false` for a task that was not removed). An id that
    /// is not one of the seeded tasks is refused, as by [`Emulator::remove_task`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let emulator = monapi_emulator::Emulator::start(Default::default()).await?;
    /// emulator.remove_task(20001).unwrap();
    /// assert!(emulator.restore_task(20001).unwrap());
    /// assert!(!emulator.restore_task(20001).unwrap()); // present already
    /// assert_eq!(emulator.restore_task(30001).unwrap_err().field(), "task_id");
    /// # Ok(())
    /// # }
    /// ```
    pub fn restore_task(&self, task_id: u64) -> Result<bool, ConfigError> {
        self.app.restore_task(task_id)
    }

    /// Created service tasks as stored: the submitted objects plus their `task_id`.
    pub fn created_service_tasks(&self) -> Vec<serde_json::Value> {
        self.app.created_service_tasks()
    }

    /// Created server tasks as stored: the submitted objects plus their `task_id`.
    pub fn server_tasks(&self) -> Vec<serde_json::Value> {
        self.app.server_tasks()
    }

    /// Stops accepting, lets in-flight requests finish (at most one second), and waits
    /// for the server to end.
    pub async fn stop(mut self) {
        let _ = self.shutdown.send(true);
        match &mut self.runner {
            Runner::Task(task) => {
                if let Some(task) = task.take() {
                    let _ = task.await;
                }
            }
            Runner::Thread(thread) => {
                if let Some(thread) = thread.take() {
                    let _ = tokio::task::spawn_blocking(move || thread.join()).await;
                }
            }
        }
    }
}

/// [`Config::check`] as the `io::Error` the start functions return.
fn checked(config: &Config) -> std::io::Result<()> {
    config
        .check()
        .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidInput, error))
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        // The server ends within its grace period, so the join cannot hang.
        if let Runner::Thread(thread) = &mut self.runner
            && let Some(thread) = thread.take()
        {
            let _ = thread.join();
        }
    }
}
