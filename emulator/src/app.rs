//! The shared, mutable part of an emulator: settings that tests change at run time,
//! tokens, created server tasks, failing sites, removed tasks and counters. Every lock here
//! is held for a lookup or an update only, never across an await or while generating a
//! report.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::FixedOffset;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Clock;
use crate::config::{Config, ConfigError, Encoding, FaultKind, Faults, Quirks, LONGEST_TOKEN_TTL};
use crate::link::Link;
use crate::reports::{check_at_or_before, check_interval, Outage, Range, ReportCache};
use crate::rng::{hash, SplitMix};
use crate::state::{
    Seeded, ServiceTask, SiteTask, FIRST_CREATED_SERVICE_TASK, FIRST_SERVER_TASK, FIRST_SERVICE_TASK,
    FIRST_SITE_TASK,
};

/// Requests received per API endpoint since start or the last reset, counted before
/// latency, faults and validation (so faulted and failed requests count too).
///
/// ```
/// let counters = monapi_emulator::Counters::default();
/// assert_eq!(counters.total, 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Token endpoint, any grant.
    pub token: u64,
    /// Token endpoint with `grant_type=password`.
    pub token_password: u64,
    /// Token endpoint with `grant_type=refresh_token`.
    pub token_refresh: u64,
    /// `POST /v2/server/create.json`.
    pub create: u64,
    /// `GET /v2/service/lists.json`.
    pub service_tasks: u64,
    /// `GET /v2/agent/lists.json`.
    pub agents: u64,
    /// `GET /v2/service/report/{id}.json`.
    pub service_report: u64,
    /// `GET /v2/site/report/{id}.json`.
    pub site_report: u64,
    /// `GET /v2/site/respose_time_distribute/{id}.json`.
    pub distribution: u64,
    /// `GET /v2/site/lists.json`.
    pub site_tasks: u64,
    /// `GET /v2/site/info/{id}.json`.
    pub site_task: u64,
    /// `GET /v2/site/monitors.json`.
    pub monitors: u64,
    /// `GET /v2/user/lists.json`.
    pub users: u64,
    /// `GET /v2/user/organization.json`.
    pub groups: u64,
    /// `POST /v2/service/create.json`.
    pub create_service: u64,
    /// All API endpoints together (never `/_emulator/`).
    pub total: u64,
    /// TCP connections accepted (HTTPS ones too, even when the client then refuses the
    /// certificate): how many connections clients opened.
    pub connections: u64,
    /// The most API requests in progress at once (from their arrival to their answer).
    pub peak_in_progress: u64,
    /// API answers sent compressed (their request's `Accept-Encoding` took an encoding of
    /// [`Config::compression`](crate::Config::compression)).
    pub compressed: u64,
    /// API requests that carried a `traceparent` header (W3C trace context).
    pub traced: u64,
    /// The `traceparent` header of the last API request that carried one.
    pub traceparent: Option<String>,
}

/// An API request in progress (see [`App::in_progress`]).
pub(crate) struct InProgress(Arc<AtomicU64>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The API endpoints, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Token,
    Create,
    ServiceTasks,
    Agents,
    ServiceReport,
    SiteReport,
    Distribution,
    SiteTasks,
    SiteTask,
    Monitors,
    Users,
    Groups,
    CreateService,
}

#[derive(Default)]
struct AtomicCounters {
    token: AtomicU64,
    token_password: AtomicU64,
    token_refresh: AtomicU64,
    create: AtomicU64,
    service_tasks: AtomicU64,
    agents: AtomicU64,
    service_report: AtomicU64,
    site_report: AtomicU64,
    distribution: AtomicU64,
    site_tasks: AtomicU64,
    site_task: AtomicU64,
    monitors: AtomicU64,
    users: AtomicU64,
    groups: AtomicU64,
    create_service: AtomicU64,
    total: AtomicU64,
    connections: AtomicU64,
    peak_in_progress: AtomicU64,
    compressed: AtomicU64,
    traced: AtomicU64,
    traceparent: Mutex<Option<String>>,
    /// API requests in progress now (not a counter: never reset).
    in_progress: Arc<AtomicU64>,
}

impl AtomicCounters {
    fn all(&self) -> [&AtomicU64; 20] {
        [
            &self.token,
            &self.token_password,
            &self.token_refresh,
            &self.create,
            &self.service_tasks,
            &self.agents,
            &self.service_report,
            &self.site_report,
            &self.distribution,
            &self.site_tasks,
            &self.site_task,
            &self.monitors,
            &self.users,
            &self.groups,
            &self.create_service,
            &self.total,
            &self.connections,
            &self.peak_in_progress,
            &self.compressed,
            &self.traced,
        ]
    }
}

/// The settings that can change at run time.
pub(crate) struct Knobs {
    pub(crate) token_ttl: Duration,
    pub(crate) refresh_token_ttl: Duration,
    pub(crate) latency: Duration,
    pub(crate) faults: Faults,
    pub(crate) quirks: Quirks,
    fault_rng: SplitMix,
}

/// The knobs as configured at start (what `reset` restores).
#[derive(Clone)]
struct Initial {
    token_ttl: Duration,
    refresh_token_ttl: Duration,
    latency: Duration,
    faults: Faults,
    quirks: Quirks,
    bandwidth_mbps: Option<f64>,
    rtt: Duration,
}

#[derive(Default)]
struct Tokens {
    /// Access token -> moment it expires.
    access: HashMap<String, Instant>,
    /// Live refresh token -> client it was issued to, and when it expires.
    refresh: HashMap<String, (String, Instant)>,
}

struct Created {
    next_id: u64,
    tasks: Vec<Value>,
    /// Created service tasks, with their ids (from after the seeded ones' range).
    next_service_id: u64,
    service_tasks: Vec<Value>,
}

impl Created {
    fn new() -> Created {
        Created {
            next_id: FIRST_SERVER_TASK,
            tasks: Vec::new(),
            next_service_id: FIRST_CREATED_SERVICE_TASK,
            service_tasks: Vec::new(),
        }
    }
}

/// The seeded tasks taken out of the account (`remove_task`), by id.
#[derive(Default)]
struct Removed {
    services: BTreeSet<u32>,
    sites: BTreeSet<u32>,
}

/// Why an access or refresh token was refused.
pub(crate) enum TokenProblem {
    Invalid,
    Expired,
}

/// A fresh access token, and a refresh token when one was issued.
pub(crate) struct Issued {
    pub(crate) access_token: String,
    pub(crate) refresh_token: Option<String>,
    pub(crate) expires_in: u64,
}

// Above this many stored access tokens, expired ones are forgotten (they then read as
// invalid rather than expired), so long benchmarks do not grow the map without bound.
const ACCESS_TOKENS_KEPT: usize = 10_000;

pub(crate) struct App {
    /// The zone of the emulator's days (fixed at start: the task list is built in it).
    pub(crate) timezone: FixedOffset,
    /// The emulator's clock: the reports stop at it.
    pub(crate) clock: Clock,
    pub(crate) world: Arc<Seeded>,
    pub(crate) cache: ReportCache,
    /// The encodings answers are compressed with, in order of preference (fixed at start).
    pub(crate) compression: Vec<Encoding>,
    /// The modelled link the answers cross.
    pub(crate) link: Arc<Link>,
    clients: Vec<(String, String)>,
    /// (username, lowercase MD5 hex of the password).
    users: Vec<(String, String)>,
    /// The settings of [`Knobs`] as configured, for `reset`.
    initial: Initial,
    knobs: Mutex<Knobs>,
    tokens: Mutex<Tokens>,
    created: Mutex<Created>,
    /// Each site task's forced failures (`fail_site`), oldest first, the last one open
    /// while the site is failing.
    outages: Mutex<HashMap<u32, Vec<Outage>>>,
    /// The tasks out of the account (`remove_task`); the lists are paged without them.
    removed: Mutex<Removed>,
    counters: AtomicCounters,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // No code panics while holding these locks; recover anyway rather than cascade.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn md5_hex(text: &str) -> String {
    Md5::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

impl App {
    pub(crate) fn new(config: &Config) -> App {
        let clock = Clock::new(config.timezone, config.now);
        let today = clock.today();
        App {
            timezone: config.timezone,
            clock,
            world: Arc::new(Seeded::new(config, today)),
            cache: ReportCache::default(),
            compression: config.compression.clone(),
            link: Arc::new(Link::new(config.bandwidth_mbps, config.rtt)),
            clients: config.clients.clone(),
            users: config
                .users
                .iter()
                .map(|(name, password)| (name.clone(), md5_hex(password)))
                .collect(),
            initial: Initial {
                token_ttl: config.token_ttl,
                refresh_token_ttl: config.refresh_token_ttl,
                latency: config.latency,
                faults: config.faults.clone(),
                quirks: config.quirks,
                bandwidth_mbps: config.bandwidth_mbps,
                rtt: config.rtt,
            },
            knobs: Mutex::new(Knobs {
                token_ttl: config.token_ttl,
                refresh_token_ttl: config.refresh_token_ttl,
                latency: config.latency,
                faults: config.faults.clone(),
                quirks: config.quirks,
                fault_rng: fault_rng(config.seed),
            }),
            tokens: Mutex::default(),
            created: Mutex::new(Created::new()),
            outages: Mutex::default(),
            removed: Mutex::default(),
            counters: AtomicCounters::default(),
        }
    }

    pub(crate) fn count(&self, endpoint: Endpoint) {
        let c = &self.counters;
        let counter = match endpoint {
            Endpoint::Token => &c.token,
            Endpoint::Create => &c.create,
            Endpoint::ServiceTasks => &c.service_tasks,
            Endpoint::Agents => &c.agents,
            Endpoint::ServiceReport => &c.service_report,
            Endpoint::SiteReport => &c.site_report,
            Endpoint::Distribution => &c.distribution,
            Endpoint::SiteTasks => &c.site_tasks,
            Endpoint::SiteTask => &c.site_task,
            Endpoint::Monitors => &c.monitors,
            Endpoint::Users => &c.users,
            Endpoint::Groups => &c.groups,
            Endpoint::CreateService => &c.create_service,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        c.total.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts the grant of a token request (read by the middleware before any fault).
    pub(crate) fn count_grant(&self, grant_type: &str) {
        match grant_type {
            "password" => self.counters.token_password.fetch_add(1, Ordering::Relaxed),
            "refresh_token" => self.counters.token_refresh.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
    }

    pub(crate) fn counters(&self) -> Counters {
        let c = &self.counters;
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        Counters {
            token: get(&c.token),
            token_password: get(&c.token_password),
            token_refresh: get(&c.token_refresh),
            create: get(&c.create),
            service_tasks: get(&c.service_tasks),
            agents: get(&c.agents),
            service_report: get(&c.service_report),
            site_report: get(&c.site_report),
            distribution: get(&c.distribution),
            site_tasks: get(&c.site_tasks),
            site_task: get(&c.site_task),
            monitors: get(&c.monitors),
            users: get(&c.users),
            groups: get(&c.groups),
            create_service: get(&c.create_service),
            total: get(&c.total),
            connections: get(&c.connections),
            peak_in_progress: get(&c.peak_in_progress),
            compressed: get(&c.compressed),
            traced: get(&c.traced),
            traceparent: lock(&c.traceparent).clone(),
        }
    }

    /// Marks an API request in progress until the guard is dropped (its answer is ready).
    pub(crate) fn in_progress(&self) -> InProgress {
        let c = &self.counters;
        let now = c.in_progress.fetch_add(1, Ordering::SeqCst) + 1;
        c.peak_in_progress.fetch_max(now, Ordering::SeqCst);
        InProgress(c.in_progress.clone())
    }

    /// Counts an API request that carried a `traceparent`, and keeps it.
    pub(crate) fn count_traced(&self, traceparent: &str) {
        self.counters.traced.fetch_add(1, Ordering::Relaxed);
        *lock(&self.counters.traceparent) = Some(traceparent.to_string());
    }

    /// Counts an answer sent compressed.
    pub(crate) fn count_compressed(&self) {
        self.counters.compressed.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a TCP connection accepted.
    pub(crate) fn connection_accepted(&self) {
        self.counters.connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn knobs(&self) -> MutexGuard<'_, Knobs> {
        lock(&self.knobs)
    }

    pub(crate) fn latency(&self) -> Duration {
        self.knobs().latency
    }

    pub(crate) fn quirks(&self) -> Quirks {
        self.knobs().quirks
    }

    /// Replaces the faults and re-seeds their RNG, so a test that sets faults gets the
    /// same sequence whatever ran before. Faults that [`Faults::check`] refuses change
    /// nothing.
    pub(crate) fn set_faults(&self, faults: Faults) -> Result<(), ConfigError> {
        faults.check()?;
        let mut knobs = self.knobs();
        knobs.faults = faults;
        knobs.fault_rng = fault_rng(self.world.seed);
        Ok(())
    }

    /// The fault for the next request, if any: the queue first, then one draw against
    /// the shares.
    pub(crate) fn next_fault(&self) -> Option<(FaultKind, u64)> {
        let mut knobs = self.knobs();
        let Knobs {
            faults, fault_rng, ..
        } = &mut *knobs;
        let retry_after = faults.retry_after_secs;
        if !faults.next.is_empty() {
            return Some((faults.next.remove(0), retry_after));
        }
        let shares = faults.shares();
        if shares.iter().all(|&(_, _, share)| share == 0.0) {
            return None;
        }
        let draw = fault_rng.unit();
        let mut bound = 0.0;
        shares.into_iter().find_map(|(_, kind, share)| {
            bound += share;
            (draw < bound).then_some((kind, retry_after))
        })
    }

    /// Back to the state at start (the clock as configured too); the report cache stays
    /// (its bodies depend only on their keys).
    pub(crate) fn reset(&self) {
        {
            let mut knobs = self.knobs();
            let initial = self.initial.clone();
            knobs.token_ttl = initial.token_ttl;
            knobs.refresh_token_ttl = initial.refresh_token_ttl;
            knobs.latency = initial.latency;
            knobs.faults = initial.faults;
            knobs.quirks = initial.quirks;
            knobs.fault_rng = fault_rng(self.world.seed);
            self.link.set(initial.bandwidth_mbps, initial.rtt);
        }
        *lock(&self.tokens) = Tokens::default();
        *lock(&self.created) = Created::new();
        lock(&self.outages).clear();
        *lock(&self.removed) = Removed::default();
        self.clock.reset();
        self.counters
            .all()
            .iter()
            .for_each(|counter| counter.store(0, Ordering::Relaxed));
        *lock(&self.counters.traceparent) = None;
    }

    pub(crate) fn client_known(&self, id: &str, secret: &str) -> bool {
        self.clients.iter().any(|(i, s)| i == id && s == secret)
    }

    /// `password_md5` is compared case-insensitively (clients send either case).
    pub(crate) fn user_known(&self, name: &str, password_md5: &str) -> bool {
        self.users
            .iter()
            .any(|(n, md5)| n == name && md5.eq_ignore_ascii_case(password_md5))
    }

    /// A new access token for `client_id`, with a new refresh token when `with_refresh` (the
    /// password grant, or a refresh under the `rotating_refresh_tokens` quirk).
    pub(crate) fn issue(&self, client_id: &str, with_refresh: bool) -> Issued {
        // A lifetime past any test's horizon is "never expires", not an Instant overflow.
        let (ttl, refresh_ttl) = {
            let knobs = self.knobs();
            (
                knobs.token_ttl.min(LONGEST_TOKEN_TTL),
                knobs.refresh_token_ttl.min(LONGEST_TOKEN_TTL),
            )
        };
        let issued = Issued {
            access_token: random_token(),
            refresh_token: with_refresh.then(random_token),
            expires_in: ttl.as_secs(),
        };
        let now = Instant::now();
        let mut tokens = lock(&self.tokens);
        if tokens.access.len() >= ACCESS_TOKENS_KEPT {
            tokens.access.retain(|_, expires| *expires > now);
            tokens.refresh.retain(|_, (_, expires)| *expires > now);
        }
        tokens.access.insert(issued.access_token.clone(), now + ttl);
        if let Some(refresh) = &issued.refresh_token {
            tokens
                .refresh
                .insert(refresh.clone(), (client_id.to_string(), now + refresh_ttl));
        }
        issued
    }

    /// Checks a refresh token for `client_id`: live and issued to it. With `retire` (the
    /// `rotating_refresh_tokens` quirk) it cannot be used again.
    pub(crate) fn use_refresh(
        &self,
        refresh_token: &str,
        client_id: &str,
        retire: bool,
    ) -> Result<(), TokenProblem> {
        let mut tokens = lock(&self.tokens);
        match tokens.refresh.get(refresh_token) {
            Some((owner, _)) if owner != client_id => Err(TokenProblem::Invalid),
            None => Err(TokenProblem::Invalid),
            Some((_, expires)) if *expires <= Instant::now() => Err(TokenProblem::Expired),
            Some(_) => {
                if retire {
                    tokens.refresh.remove(refresh_token);
                }
                Ok(())
            }
        }
    }

    pub(crate) fn check_access(&self, token: Option<&str>) -> Result<(), TokenProblem> {
        let tokens = lock(&self.tokens);
        match token.and_then(|token| tokens.access.get(token)) {
            None => Err(TokenProblem::Invalid),
            Some(expires) if *expires <= Instant::now() => Err(TokenProblem::Expired),
            Some(_) => Ok(()),
        }
    }

    pub(crate) fn expire_tokens(&self) {
        let now = Instant::now();
        lock(&self.tokens)
            .access
            .values_mut()
            .for_each(|expires| *expires = now);
    }

    pub(crate) fn revoke_refresh_tokens(&self) {
        lock(&self.tokens).refresh.clear();
    }

    /// Every refresh token issued so far expires now (a refresh with one is refused with
    /// "Refresh token has expired").
    pub(crate) fn expire_refresh_tokens(&self) {
        let now = Instant::now();
        lock(&self.tokens)
            .refresh
            .values_mut()
            .for_each(|(_, expires)| *expires = now);
    }

    /// Stores validated tasks, giving each the next id.
    pub(crate) fn store_tasks(&self, tasks: Vec<Value>) -> Vec<u64> {
        let mut created = lock(&self.created);
        tasks
            .into_iter()
            .map(|mut task| {
                let id = created.next_id;
                created.next_id += 1;
                if let Value::Object(fields) = &mut task {
                    fields.insert("task_id".into(), id.into());
                }
                created.tasks.push(task);
                id
            })
            .collect()
    }

    pub(crate) fn server_tasks(&self) -> Vec<Value> {
        lock(&self.created).tasks.clone()
    }

    /// Stores validated service tasks, giving each the next id.
    pub(crate) fn store_service_tasks(&self, tasks: Vec<Value>) -> Vec<u64> {
        let mut created = lock(&self.created);
        tasks
            .into_iter()
            .map(|mut task| {
                let id = created.next_service_id;
                created.next_service_id += 1;
                if let Value::Object(fields) = &mut task {
                    fields.insert("task_id".into(), id.into());
                }
                created.service_tasks.push(task);
                id
            })
            .collect()
    }

    pub(crate) fn created_service_tasks(&self) -> Vec<Value> {
        lock(&self.created).service_tasks.clone()
    }

    /// Site task `id` fails from its check at or before `now` (unix seconds) on, at every
    /// monitoring point, until [`App::recover_site`]. A site already failing goes on as it
    /// was, and so does one whose recovery is not due yet (its first check up again is
    /// later than that check): the outage is open again. The outage under way is the answer.
    pub(crate) fn fail_site(&self, id: u64, now: i64) -> Result<Outage, ConfigError> {
        let site = self.world.site(id).ok_or_else(|| self.not_a_site(id))?;
        let start = check_at_or_before(site, self.timezone.local_minus_utc(), now);
        let mut all = lock(&self.outages);
        let outages = all.entry(site.id).or_default();
        match outages.last_mut() {
            Some(last) if last.end.is_none_or(|end| end > start) => last.end = None,
            _ => outages.push(Outage { start, end: None }),
        }
        Ok(*outages.last().expect("an outage"))
    }

    /// Ends the failure of site task `id`: the check at or before `now` failed still, the one
    /// after it is up again and is the outage's end. The outage ended, or `None` when the
    /// site was not failing (nothing changes).
    pub(crate) fn recover_site(&self, id: u64, now: i64) -> Result<Option<Outage>, ConfigError> {
        let site = self.world.site(id).ok_or_else(|| self.not_a_site(id))?;
        let end = check_at_or_before(site, self.timezone.local_minus_utc(), now) + check_interval(site);
        let mut all = lock(&self.outages);
        let open = all
            .get_mut(&site.id)
            .and_then(|outages| outages.last_mut())
            .filter(|last| last.end.is_none());
        Ok(open.map(|last| {
            last.end = Some(end.max(last.start + check_interval(site)));
            *last
        }))
    }

    /// The outages of site task `task` that reach into `range`.
    pub(crate) fn outages(&self, task: u32, range: &Range) -> Vec<Outage> {
        lock(&self.outages)
            .get(&task)
            .map(|outages| range.outages(outages))
            .unwrap_or_default()
    }

    fn not_a_site(&self, id: u64) -> ConfigError {
        let sites = ids(FIRST_SITE_TASK, self.world.site_count());
        ConfigError::new("task_id", format!("must be a site task ({sites}), got {id}"))
    }

    /// Takes seeded task `id` out of the account: the service task and the site task of that
    /// id, whichever there are (both when there are more than 10,000 service tasks). Whether
    /// anything changed.
    pub(crate) fn remove_task(&self, id: u64) -> Result<bool, ConfigError> {
        self.change_removed(id, |set, id| set.insert(id))
    }

    /// Brings back what [`App::remove_task`] took out. Whether anything changed.
    pub(crate) fn restore_task(&self, id: u64) -> Result<bool, ConfigError> {
        self.change_removed(id, |set, id| set.remove(&id))
    }

    fn change_removed(
        &self,
        id: u64,
        change: impl Fn(&mut BTreeSet<u32>, u32) -> bool,
    ) -> Result<bool, ConfigError> {
        let service = self.world.service_task(id).map(|task| task.id);
        let site = self.world.site(id).map(|site| site.id);
        if service.is_none() && site.is_none() {
            let services = ids(FIRST_SERVICE_TASK, self.world.service_count());
            let sites = ids(FIRST_SITE_TASK, self.world.site_count());
            let rule = format!("must be a service task ({services}) or a site task ({sites}), got {id}");
            return Err(ConfigError::new("task_id", rule));
        }
        let mut removed = lock(&self.removed);
        let service = service.is_some_and(|id| change(&mut removed.services, id));
        let site = site.is_some_and(|id| change(&mut removed.sites, id));
        Ok(service || site)
    }

    /// Service task `id`, unless it is unknown or removed.
    pub(crate) fn service_task(&self, id: u64) -> Option<&ServiceTask> {
        let task = self.world.service_task(id)?;
        (!lock(&self.removed).services.contains(&task.id)).then_some(task)
    }

    /// Site task `id`, unless it is unknown or removed.
    pub(crate) fn site(&self, id: u64) -> Option<&SiteTask> {
        let site = self.world.site(id)?;
        (!lock(&self.removed).sites.contains(&site.id)).then_some(site)
    }

    /// The settings of site task `id`, unless it is unknown or removed.
    pub(crate) fn site_info(&self, id: u64) -> Option<Bytes> {
        self.site(id)?;
        self.world.site_info(id)
    }

    /// Page `page` of the service task list (of the tasks not removed); `None` past the end.
    pub(crate) fn service_page(&self, page: u64) -> Option<Bytes> {
        let removed = lock(&self.removed).services.clone();
        if removed.is_empty() {
            self.world.page(page)
        } else {
            self.world.page_without(page, &removed)
        }
    }

    /// Page `page` of the site task list (of the tasks not removed), as a list or keyed;
    /// `None` past the end.
    pub(crate) fn site_page(&self, page: u64, keyed: bool) -> Option<Bytes> {
        let removed = lock(&self.removed).sites.clone();
        if removed.is_empty() {
            self.world.site_page(page).map(|listing| listing.body(keyed))
        } else {
            self.world.site_page_without(page, &removed, keyed)
        }
    }
}

/// The ids of `count` tasks from `first` on, for a refusal.
fn ids(first: u32, count: usize) -> String {
    match count {
        0 => "this emulator has none".to_string(),
        1 => format!("this emulator has {first}"),
        count => format!("{first} to {}", first as usize + count - 1),
    }
}

fn fault_rng(seed: u64) -> SplitMix {
    SplitMix::new(hash(&[seed, 0xFA17]))
}

/// 40 hex digits from the thread's CSPRNG: not guessable, not deterministic.
fn random_token() -> String {
    let bytes: [u8; 20] = rand::random();
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
