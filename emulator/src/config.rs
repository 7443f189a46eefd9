//! Start-up configuration, fault injection settings, quirks and the demo account.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Utc};
use serde::{Deserialize, Serialize};

/// Client id of the demo API client that [`Config::default`] registers.
pub const DEMO_CLIENT_ID: &str = "demo_id";
/// Client secret of the demo API client that [`Config::default`] registers.
pub const DEMO_CLIENT_SECRET: &str = "demo_secret";
/// Login of the demo user account that [`Config::default`] registers.
pub const DEMO_USERNAME: &str = "test@example.com";
/// Plain password of the demo user; the token endpoint expects its MD5 hex
/// (`e10adc3949ba59abbe56e057f20f883e`).
pub const DEMO_PASSWORD: &str = "123456";
/// The service's time zone, the default of [`Config::timezone`]: China Standard Time,
/// `+08:00`, no daylight saving time (the service runs from Beijing).
pub const SERVICE_TIMEZONE: FixedOffset = FixedOffset::east_opt(8 * 3600).unwrap();

/// How an emulator starts: seed of the generated data, accounts, token lifetime,
/// latency and faults.
///
/// `Config::default()` is the demo setup: seed 42, the demo client and user,
/// one-hour tokens, no latency, no faults, no quirks, 120 service tasks, days in `+08:00`.
///
/// ```
/// use std::time::Duration;
/// let config = monapi_emulator::Config {
///     seed: 7,
///     token_ttl: Duration::from_secs(2),
///     ..Default::default()
/// };
/// assert_eq!(config.clients[0].0, monapi_emulator::DEMO_CLIENT_ID);
/// ```
#[derive(Clone)]
pub struct Config {
    /// Seed of every generated value (tasks, agents, reports, fault draws).
    pub seed: u64,
    /// Lifetime of access tokens issued from now on (`expires_in` is its whole seconds).
    pub token_ttl: Duration,
    /// Lifetime of refresh tokens (default 14 days, the OAuth server library's): a refresh
    /// with an older one is refused with `invalid_grant`, "Refresh token has expired".
    pub refresh_token_ttl: Duration,
    /// Registered API clients as `(client_id, client_secret)`.
    pub clients: Vec<(String, String)>,
    /// User accounts as `(username, plain password)`; the token endpoint receives the
    /// password's MD5 hex.
    pub users: Vec<(String, String)>,
    /// Delay added before every API endpoint answers (never to `/_emulator/`).
    pub latency: Duration,
    /// Faults injected into API endpoint responses.
    pub faults: Faults,
    /// Base of the agent download links: the service's second host, which serves the
    /// agents' downloads.
    pub download_url: String,
    /// Number of seeded service tasks (ids from 10001); 120 gives three list pages.
    pub service_tasks: usize,
    /// Number of seeded site tasks (ids from 20001; 5 by default).
    pub site_tasks: usize,
    /// Monitoring points of every site task (1 to [`MOST_SITE_POINTS`], the account's
    /// points); `None` (the default): 4 to 6, drawn per task.
    pub site_points: Option<usize>,
    /// Answers shaped as the real service's PHP writes them (none by default).
    pub quirks: Quirks,
    /// Serve HTTPS with a certificate signed by a private CA generated at start (see
    /// [`Emulator::ca_pem`](crate::Emulator::ca_pem)); plain HTTP by default.
    pub tls: bool,
    /// The time zone of the days in `start_date`/`end_date`, of "today", of the `HH:MM`
    /// times in service reports and of `last_check_time` (default [`SERVICE_TIMEZONE`],
    /// `+08:00`). Fixed at start.
    pub timezone: FixedOffset,
    /// The encodings answers are compressed with when a request's `Accept-Encoding` takes
    /// them, the first it takes winning, as the service's front end (nginx) gzips; empty:
    /// never compressed. Default gzip, then deflate.
    pub compression: Vec<Encoding>,
    /// The bandwidth of the modelled link, in Mbit/s ([`LEAST_BANDWIDTH_MBPS`] to
    /// [`MOST_BANDWIDTH_MBPS`]): answers are written paced, every connection sharing it as one
    /// link is shared. `None` (the default): as fast as the machine goes.
    pub bandwidth_mbps: Option<f64>,
    /// The round-trip time of the modelled link (at most [`LONGEST_RTT`]): each new connection
    /// waits it once (TCP's handshake; twice over HTTPS, with TLS 1.3's), each answer once
    /// more. Default zero.
    pub rtt: Duration,
    /// The world the reports show (see [`World`]): by default [`World::Realistic`], sites
    /// that are up at almost every check.
    pub world: World,
    /// The emulator's clock: `None` (the default) follows the system clock; an instant fixes
    /// it there (it does not move until set or advanced again, see
    /// [`Emulator::set_now`](crate::Emulator::set_now)). No report has a check after it, and
    /// "today" is its day in [`Config::timezone`]. Tokens expire on the system clock.
    pub now: Option<DateTime<Utc>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 42,
            token_ttl: Duration::from_secs(3600),
            refresh_token_ttl: DEFAULT_REFRESH_TOKEN_TTL,
            clients: vec![(DEMO_CLIENT_ID.into(), DEMO_CLIENT_SECRET.into())],
            users: vec![(DEMO_USERNAME.into(), DEMO_PASSWORD.into())],
            latency: Duration::ZERO,
            faults: Faults::default(),
            download_url: "http://download.monapi.invalid".into(),
            service_tasks: 120,
            site_tasks: 5,
            site_points: None,
            quirks: Quirks::default(),
            tls: false,
            timezone: SERVICE_TIMEZONE,
            compression: vec![Encoding::Gzip, Encoding::Deflate],
            bandwidth_mbps: None,
            rtt: Duration::ZERO,
            world: World::default(),
            now: None,
        }
    }
}

// Hand-written so that secrets and passwords never reach logs or test output.
impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let clients: Vec<_> = self.clients.iter().map(|(id, _)| (id, "***")).collect();
        let users: Vec<_> = self.users.iter().map(|(name, _)| (name, "***")).collect();
        f.debug_struct("Config")
            .field("seed", &self.seed)
            .field("token_ttl", &self.token_ttl)
            .field("refresh_token_ttl", &self.refresh_token_ttl)
            .field("clients", &clients)
            .field("users", &users)
            .field("latency", &self.latency)
            .field("faults", &self.faults)
            .field("download_url", &self.download_url)
            .field("service_tasks", &self.service_tasks)
            .field("site_tasks", &self.site_tasks)
            .field("site_points", &self.site_points)
            .field("quirks", &self.quirks)
            .field("tls", &self.tls)
            .field("timezone", &self.timezone)
            .field("compression", &self.compression)
            .field("bandwidth_mbps", &self.bandwidth_mbps)
            .field("rtt", &self.rtt)
            .field("world", &self.world)
            .field("now", &self.now)
            .finish()
    }
}

impl Config {
    /// Checks the settings the emulator refuses: a latency above [`LONGEST_LATENCY`], more
    /// than [`MOST_SERVICE_TASKS`] service tasks or [`MOST_SITE_TASKS`] site tasks, and every
    /// share of [`Config::faults`] (see
    /// [`Faults::check`]; the field is then named `faults.<share>`). The `Emulator` start
    /// functions check it too, and refuse a bad configuration with an `io::Error` of kind
    /// `InvalidInput` that carries this error.
    ///
    /// ```
    /// use monapi_emulator::{Config, Faults};
    /// let config = Config {
    ///     faults: Faults { drop_connection: 1.5, ..Faults::default() },
    ///     ..Config::default()
    /// };
    /// assert_eq!(config.check().unwrap_err().field(), "faults.drop_connection");
    /// assert!(Config::default().check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), ConfigError> {
        check_latency("latency", self.latency)?;
        if let Some(mbps) = self.bandwidth_mbps {
            bandwidth("bandwidth_mbps", mbps)?;
        }
        if self.rtt > LONGEST_RTT {
            return Err(ConfigError::new(
                "rtt",
                range_rule(TimeUnit::Seconds, LONGEST_RTT),
            ));
        }
        if self.service_tasks > MOST_SERVICE_TASKS {
            return Err(ConfigError::new(
                "service_tasks",
                format!("must be a number of tasks from 0 to {MOST_SERVICE_TASKS}"),
            ));
        }
        if self.site_tasks > MOST_SITE_TASKS {
            return Err(ConfigError::new(
                "site_tasks",
                format!("must be a number of tasks from 0 to {MOST_SITE_TASKS}"),
            ));
        }
        if self
            .site_points
            .is_some_and(|n| !(1..=MOST_SITE_POINTS).contains(&n))
        {
            return Err(ConfigError::new(
                "site_points",
                format!("must be a number of monitoring points from 1 to {MOST_SITE_POINTS}"),
            ));
        }
        self.faults.check().map_err(|error| error.within("faults"))
    }
}

/// The most monitoring points a site task can have: every point of the account.
pub const MOST_SITE_POINTS: usize = crate::catalog::POINTS.len();

/// The longest latency the emulator takes: 2^31 - 1 ms (about 24.9 days), the bound of
/// JavaScript's `setTimeout`, so that every language takes the same range.
pub const LONGEST_LATENCY: Duration = Duration::from_millis(i32::MAX as u64);

/// The longest round trip of the modelled link (see [`Config::rtt`]).
pub const LONGEST_RTT: Duration = Duration::from_secs(10);

/// The least bandwidth of the modelled link, in Mbit/s (10 kbit/s).
pub const LEAST_BANDWIDTH_MBPS: f64 = 0.01;

/// The most bandwidth of the modelled link, in Mbit/s (100 Gbit/s).
pub const MOST_BANDWIDTH_MBPS: f64 = 100_000.0;

/// A bandwidth in Mbit/s given by a language's option (see [`Config::bandwidth_mbps`]), from
/// [`LEAST_BANDWIDTH_MBPS`] to [`MOST_BANDWIDTH_MBPS`]; anything else is refused naming
/// `field` and the range.
///
/// ```
/// use monapi_emulator::bandwidth;
/// assert_eq!(bandwidth("bandwidthMbps", 50.0), Ok(50.0));
/// let error = bandwidth("bandwidth_mbps", 0.0).unwrap_err();
/// assert_eq!(error.rule(), "must be a number of Mbit/s from 0.01 to 100000");
/// ```
pub fn bandwidth(field: &str, mbps: f64) -> Result<f64, ConfigError> {
    if (LEAST_BANDWIDTH_MBPS..=MOST_BANDWIDTH_MBPS).contains(&mbps) {
        Ok(mbps)
    } else {
        Err(ConfigError::new(
            field,
            format!("must be a number of Mbit/s from {LEAST_BANDWIDTH_MBPS} to {MOST_BANDWIDTH_MBPS}"),
        ))
    }
}

/// A round-trip time given as a number of `unit`s by a language's option, from 0 to
/// [`LONGEST_RTT`]; anything else is refused as by [`latency`].
///
/// ```
/// use monapi_emulator::{rtt, TimeUnit};
/// assert_eq!(rtt("rttMs", 40.0, TimeUnit::Milliseconds).unwrap().as_millis(), 40);
/// assert_eq!(rtt("rtt_ms", 1e6, TimeUnit::Milliseconds).unwrap_err().rule(), "must be a number of milliseconds from 0 to 10000");
/// ```
pub fn rtt(field: &str, value: f64, unit: TimeUnit) -> Result<Duration, ConfigError> {
    duration_setting(field, value, unit, LONGEST_RTT)
}

/// The most service tasks the emulator seeds (2,000 list pages; the lists are built at start).
pub const MOST_SERVICE_TASKS: usize = 100_000;

/// The most site tasks the emulator seeds (each has its reports generated on demand).
pub const MOST_SITE_TASKS: usize = 100_000;

/// The default lifetime of refresh tokens: 14 days, the default of the OAuth 2.0 server
/// library whose answers the service's match.
pub const DEFAULT_REFRESH_TOKEN_TTL: Duration = Duration::from_secs(14 * 24 * 3600);

/// The longest token lifetime the emulator issues (2^32 - 1 seconds, about 136 years);
/// longer settings are cut to it.
pub const LONGEST_TOKEN_TTL: Duration = Duration::from_secs(u32::MAX as u64);

/// Refuses a latency above [`LONGEST_LATENCY`], naming `field`.
pub(crate) fn check_latency(field: &str, latency: Duration) -> Result<(), ConfigError> {
    if latency > LONGEST_LATENCY {
        return Err(ConfigError::new(
            field,
            range_rule(TimeUnit::Milliseconds, LONGEST_LATENCY),
        ));
    }
    Ok(())
}

/// The unit in which a language's option gives a duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Python's `latency=` and `token_ttl=`, Node's `tokenTtl`.
    Seconds,
    /// Node's `latencyMs`; also the unit of [`Config::check`]'s latency rule (the CLI's
    /// `--latency-ms`).
    Milliseconds,
}

impl TimeUnit {
    fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "seconds",
            TimeUnit::Milliseconds => "milliseconds",
        }
    }

    fn per_second(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1.0,
            TimeUnit::Milliseconds => 1000.0,
        }
    }

    /// `duration` as a number of this unit (whole milliseconds, so that a bound reads exactly).
    fn count(self, duration: Duration) -> f64 {
        match self {
            TimeUnit::Seconds => duration.as_secs_f64(),
            TimeUnit::Milliseconds => duration.as_millis() as f64,
        }
    }
}

/// A latency given as a number of `unit`s by a language's option: the one rule for Python and
/// Node, from 0 to [`LONGEST_LATENCY`]; anything else (negative, NaN, infinite, too long) is
/// refused naming `field` and the range in that unit.
///
/// ```
/// use monapi_emulator::{latency, TimeUnit};
/// assert_eq!(latency("latencyMs", 1500.0, TimeUnit::Milliseconds).unwrap().as_millis(), 1500);
/// let error = latency("latency", -1.0, TimeUnit::Seconds).unwrap_err();
/// assert_eq!(error.field(), "latency");
/// assert_eq!(error.rule(), "must be a number of seconds from 0 to 2147483.647 (about 24.9 days)");
/// ```
pub fn latency(field: &str, value: f64, unit: TimeUnit) -> Result<Duration, ConfigError> {
    duration_setting(field, value, unit, LONGEST_LATENCY)
}

/// A token lifetime given as a number of `unit`s by a language's option, from 0 to
/// [`LONGEST_TOKEN_TTL`]; anything else is refused as by [`latency`].
///
/// ```
/// use monapi_emulator::{token_ttl, TimeUnit};
/// assert_eq!(token_ttl("token_ttl", 2.5, TimeUnit::Seconds).unwrap().as_millis(), 2500);
/// let error = token_ttl("tokenTtl", 1e30, TimeUnit::Seconds).unwrap_err();
/// assert_eq!(error.rule(), "must be a number of seconds from 0 to 4294967295 (about 136.1 years)");
/// ```
pub fn token_ttl(field: &str, value: f64, unit: TimeUnit) -> Result<Duration, ConfigError> {
    duration_setting(field, value, unit, LONGEST_TOKEN_TTL)
}

/// `value` `unit`s as a duration, for `value` from 0 to `longest`; anything else (negative,
/// NaN, infinite, too long: `Duration::from_secs_f64` would panic on some) is refused naming
/// `field` and the range in that unit.
fn duration_setting(
    field: &str,
    value: f64,
    unit: TimeUnit,
    longest: Duration,
) -> Result<Duration, ConfigError> {
    let refused = || ConfigError::new(field, range_rule(unit, longest));
    if !(value >= 0.0 && value <= unit.count(longest)) {
        return Err(refused());
    }
    Duration::try_from_secs_f64(value / unit.per_second()).map_err(|_| refused())
}

/// `must be a number of <unit> from 0 to <longest> (about <days or years>)`.
fn range_rule(unit: TimeUnit, longest: Duration) -> String {
    let most = unit.count(longest);
    let days = longest.as_secs_f64() / 86_400.0;
    if days < 1.0 {
        return format!("must be a number of {} from 0 to {most}", unit.name());
    }
    let about = if days < 730.0 {
        format!("{days:.1} days")
    } else {
        format!("{:.1} years", days / 365.25)
    };
    format!(
        "must be a number of {} from 0 to {most} (about {about})",
        unit.name()
    )
}

/// Faults injected into API endpoint responses (never into `/_emulator/`).
///
/// The queue [`Faults::next`] is served first, one fault per request in order; after it
/// is empty each request draws once from an RNG seeded from [`Config::seed`] and gets a
/// fault with the given share (`0.0..=1.0`, checked in field order; a share outside that
/// range, or NaN, is refused: see [`Faults::check`]). Setting faults re-seeds that RNG, so
/// the same settings and requests give the same faults.
///
/// ```
/// use monapi_emulator::{FaultKind, Faults};
/// let faults = Faults {
///     next: vec![FaultKind::Error503, FaultKind::DropConnection],
///     retry_after_secs: 2,
///     ..Default::default()
/// };
/// assert_eq!(faults.error_500, 0.0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// Share of requests answered `500 {"code":500,"msg":"internal error"}`.
    pub error_500: f64,
    /// Share of requests answered `503 {"code":503,...}` with `Retry-After`.
    pub error_503: f64,
    /// Share of requests answered `429 {"code":429,...}` with `Retry-After`.
    pub error_429: f64,
    /// Value of the `Retry-After` header on 429 and 503, sent as given (0 allowed).
    pub retry_after_secs: u64,
    /// Share of requests whose TCP connection is closed without any response.
    pub drop_connection: f64,
    /// Share of requests whose real response is sent with the full `Content-Length`
    /// but only the first half of the body, then the connection is closed.
    pub truncated_body: f64,
    /// Share of requests answered 200 with a body that is not JSON (a PHP fatal error page).
    pub malformed_body: f64,
    /// Share of requests answered 200 with `Content-Encoding: gzip` and a body that is not
    /// gzip past its first bytes (a broken front end), whatever the request accepts.
    pub corrupt_gzip: f64,
    /// Faults for the next requests, one each in order, before any share applies.
    pub next: Vec<FaultKind>,
}

impl Faults {
    /// Refuses a share outside `0.0..=1.0` or NaN, naming the field (e.g. `error_503`) and
    /// the rule.
    ///
    /// ```
    /// use monapi_emulator::Faults;
    /// let faults = Faults { error_503: 2.0, ..Faults::default() };
    /// let error = faults.check().unwrap_err();
    /// assert_eq!(error.field(), "error_503");
    /// assert_eq!(error.rule(), "must be a share of requests from 0.0 to 1.0, got 2");
    /// ```
    pub fn check(&self) -> Result<(), ConfigError> {
        match self
            .shares()
            .into_iter()
            .find(|&(_, _, share)| !(0.0..=1.0).contains(&share))
        {
            Some((field, _, share)) => Err(ConfigError::new(
                field,
                format!("must be a share of requests from 0.0 to 1.0, got {share}"),
            )),
            None => Ok(()),
        }
    }

    /// Each share with its field name and its kind, in the order requests draw against them.
    pub(crate) fn shares(&self) -> [(&'static str, FaultKind, f64); 7] {
        [
            ("error_500", FaultKind::Error500, self.error_500),
            ("error_503", FaultKind::Error503, self.error_503),
            ("error_429", FaultKind::Error429, self.error_429),
            ("drop_connection", FaultKind::DropConnection, self.drop_connection),
            ("truncated_body", FaultKind::TruncatedBody, self.truncated_body),
            ("malformed_body", FaultKind::MalformedBody, self.malformed_body),
            ("corrupt_gzip", FaultKind::CorruptGzip, self.corrupt_gzip),
        ]
    }
}

/// The world an emulator's site reports show; both are seeded and deterministic.
///
/// In JSON, in the bindings and on the command line: `"realistic"`, `"stressed"`.
///
/// ```
/// use monapi_emulator::World;
/// assert_eq!(World::default(), World::Realistic);
/// assert_eq!("stressed".parse(), Ok(World::Stressed));
/// assert_eq!("calm".parse::<World>().unwrap_err().field(), "world");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum World {
    /// Sites that are up at almost every check, as real ones are: each site has a fault
    /// every few days to weeks (its own pace, from the seed), lasting 5 minutes to an hour,
    /// at one, two or (rarely) every monitoring point; now and then a slow check.
    #[default]
    Realistic,
    /// The world of the emulator's first versions, for benchmarks and tests that need faults
    /// in every report: half the points flaky, with zero to two faults a day each, a point of
    /// every site down since a morning hour today, and 3% of checks slow.
    Stressed,
}

impl World {
    /// Every world, in the order of their names.
    const ALL: [World; 2] = [World::Realistic, World::Stressed];

    /// Its name in JSON, in the bindings and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            World::Realistic => "realistic",
            World::Stressed => "stressed",
        }
    }
}

impl fmt::Display for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for World {
    type Err = ConfigError;

    fn from_str(name: &str) -> Result<Self, ConfigError> {
        World::ALL
            .into_iter()
            .find(|world| world.name() == name)
            .ok_or_else(|| {
                ConfigError::new(
                    "world",
                    format!("must be one of realistic, stressed, got {name:?}"),
                )
            })
    }
}

/// An instant for [`Config::now`] given as text by a language's option or the command line:
/// RFC 3339 (`2026-11-01T10:02:00+08:00`), or a date and time without an offset in the
/// emulator's time zone `timezone` (`2026-11-01 10:02` or `2026-11-01T10:02:00`). Anything
/// else is refused naming `field`.
///
/// ```
/// use monapi_emulator::{instant, SERVICE_TIMEZONE};
/// let utc = instant("now", "2026-11-01 10:02", SERVICE_TIMEZONE).unwrap();
/// assert_eq!(utc.to_rfc3339(), "2026-11-01T02:02:00+00:00");
/// assert_eq!(instant("now", "2026-11-01T10:02:00+08:00", SERVICE_TIMEZONE), Ok(utc));
/// assert!(instant("now", "tomorrow", SERVICE_TIMEZONE).unwrap_err().rule().contains("RFC 3339"));
/// ```
pub fn instant(field: &str, text: &str, timezone: FixedOffset) -> Result<DateTime<Utc>, ConfigError> {
    if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
        return Ok(instant.with_timezone(&Utc));
    }
    [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|format| chrono::NaiveDateTime::parse_from_str(text, format).ok())
    .and_then(|local| local.and_local_timezone(timezone).single())
    .map(|instant| instant.with_timezone(&Utc))
    .ok_or_else(|| {
        ConfigError::new(
            field,
            format!(
                "must be an instant, RFC 3339 (2026-11-01T10:02:00+08:00) or a local date and \
                     time in the emulator's time zone (2026-11-01 10:02), got {text:?}"
            ),
        )
    })
}

/// A `Content-Encoding` the emulator compresses answers with (see [`Config::compression`]).
///
/// ```
/// use monapi_emulator::Encoding;
/// assert_eq!("deflate".parse(), Ok(Encoding::Deflate));
/// assert_eq!(Encoding::Gzip.to_string(), "gzip");
/// assert_eq!("br".parse::<Encoding>().unwrap_err().field(), "compression");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `gzip` (RFC 1952), what nginx's gzip module sends.
    Gzip,
    /// `deflate`: zlib-wrapped DEFLATE (RFC 1950), as HTTP names it.
    Deflate,
}

impl Encoding {
    /// Its name in `Content-Encoding` and `Accept-Encoding`.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Gzip => "gzip",
            Encoding::Deflate => "deflate",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Encoding {
    type Err = ConfigError;

    fn from_str(name: &str) -> Result<Self, ConfigError> {
        match name {
            "gzip" => Ok(Encoding::Gzip),
            "deflate" => Ok(Encoding::Deflate),
            _ => Err(ConfigError::new(
                "compression",
                format!("must list encodings among gzip and deflate; got {name:?}"),
            )),
        }
    }
}

/// The encodings named, in order, as [`Config::compression`] takes them (each language's
/// emulator and `monapi serve` read theirs with it): an unknown or repeated name is refused.
///
/// ```
/// use monapi_emulator::{encodings, Encoding};
/// assert_eq!(encodings(&["deflate", "gzip"]), Ok(vec![Encoding::Deflate, Encoding::Gzip]));
/// assert_eq!(encodings::<&str>(&[]), Ok(vec![]));
/// assert!(encodings(&["gzip", "gzip"]).unwrap_err().rule().contains("twice"));
/// ```
pub fn encodings<S: AsRef<str>>(names: &[S]) -> Result<Vec<Encoding>, ConfigError> {
    let mut out: Vec<Encoding> = Vec::with_capacity(names.len());
    for name in names {
        let encoding: Encoding = name.as_ref().parse()?;
        if out.contains(&encoding) {
            return Err(ConfigError::new("compression", format!("names {encoding} twice")));
        }
        out.push(encoding);
    }
    Ok(out)
}

/// One kind of injected fault; see [`Faults`].
///
/// In JSON and by name ([`str::parse`]): `error500`, `error503`, `error429` (serde's
/// snake_case; `error_500` etc. are accepted too), `drop_connection`, `truncated_body`,
/// `malformed_body`, `corrupt_gzip`.
///
/// ```
/// use monapi_emulator::FaultKind;
/// assert_eq!("error_503".parse(), Ok(FaultKind::Error503));
/// assert_eq!("meteor".parse::<FaultKind>().unwrap_err().field(), "next");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// HTTP 500 with `{"code":500,"msg":"internal error"}`.
    #[serde(alias = "error_500")]
    Error500,
    /// HTTP 503 with a `{"code":503,"msg":...}` body and `Retry-After`.
    #[serde(alias = "error_503")]
    Error503,
    /// HTTP 429 with a `{"code":429,"msg":...}` body and `Retry-After`.
    #[serde(alias = "error_429")]
    Error429,
    /// The connection is closed without any response.
    DropConnection,
    /// Full `Content-Length`, half the body, then the connection is closed.
    TruncatedBody,
    /// HTTP 200 whose body is an HTML error page instead of JSON.
    MalformedBody,
    /// HTTP 200 with `Content-Encoding: gzip` and a body that does not decompress.
    CorruptGzip,
}

impl FromStr for FaultKind {
    type Err = ConfigError;

    /// A kind by its name in JSON; an unknown name is refused as an entry of
    /// [`Faults::next`].
    fn from_str(name: &str) -> Result<Self, ConfigError> {
        serde_json::from_value(serde_json::Value::String(name.into())).map_err(|_| {
            ConfigError::new(
                "next",
                format!(
                    "must hold fault kinds: error500, error503, error429 (or error_500, error_503, \
                     error_429), drop_connection, truncated_body, malformed_body or corrupt_gzip; got {name:?}"
                ),
            )
        })
    }
}

/// Answers shaped the way the real service, a PHP application, may write them, for testing
/// clients against them. PHP's `json_encode` writes an empty keyed array as `[]`, not `{}`.
/// `Quirks::default()` changes nothing: the emulator answers as described in its README.
///
/// ```
/// use monapi_emulator::{PastEndPage, Quirks};
/// let quirks = Quirks {
///     past_end_page: PastEndPage::Object, // a page past the end is `{}`
///     no_agents: true,                    // the agent list is `[]`
///     ..Default::default()
/// };
/// assert!(!quirks.no_checks);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Quirks {
    /// What a page of the service task list past the last one is (`[]` by default).
    pub past_end_page: PastEndPage,
    /// The account has no agents: the agent list is `[]`, and create refuses every
    /// `plugin_task_uselist_id` (the account has none).
    pub no_agents: bool,
    /// Every range has no checks: a service report is `[]`, a distribution `[]`, and a site
    /// report keeps its points (the average `0` and the task's points, as `monitor` asks)
    /// each with `"uprate":[]`, `"fault":[]` and `"resptime":[]`.
    pub no_checks: bool,
    /// The site task list, the monitoring points, the users and the groups are PHP keyed
    /// arrays (JSON objects keyed by id) instead of lists, as the agent list always is.
    pub keyed_lists: bool,
    /// The refresh grant issues a new refresh token and retires the one used (by default,
    /// as the OAuth server library does by default, it issues none and the used one stays
    /// valid).
    pub rotating_refresh_tokens: bool,
}

/// The body of a service task list page past the last one; see [`Quirks::past_end_page`].
///
/// In JSON and in the bindings: `"array"`, `"object"`, `"null"`, `"status"`.
///
/// ```
/// use monapi_emulator::PastEndPage;
/// let page: PastEndPage = "null".parse().unwrap();
/// assert_eq!(page.body(), "null");
/// assert_eq!("list".parse::<PastEndPage>().unwrap_err().field(), "past_end_page");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum PastEndPage {
    /// `[]`, an empty list (the default).
    #[default]
    Array,
    /// `{}`: PHP's empty array when the code casts it to an object.
    Object,
    /// `null`: what PHP code answers when its query found nothing.
    Null,
    /// `{"code":0,"msg":"no more data"}`: a status object (code 0, success) instead of a
    /// list, as PHP services of this kind answer "nothing more".
    Status,
}

impl PastEndPage {
    /// Every value, in the order of their names in JSON.
    const ALL: [PastEndPage; 4] = [
        PastEndPage::Array,
        PastEndPage::Object,
        PastEndPage::Null,
        PastEndPage::Status,
    ];

    /// The name in JSON and in the bindings.
    pub fn name(self) -> &'static str {
        match self {
            PastEndPage::Array => "array",
            PastEndPage::Object => "object",
            PastEndPage::Null => "null",
            PastEndPage::Status => "status",
        }
    }

    /// The body the emulator sends.
    pub fn body(self) -> &'static str {
        match self {
            PastEndPage::Array => "[]",
            PastEndPage::Object => "{}",
            PastEndPage::Null => "null",
            PastEndPage::Status => r#"{"code":0,"msg":"no more data"}"#,
        }
    }
}

impl Serialize for PastEndPage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// For serde, whose error names the field itself: the error is the rule alone.
impl TryFrom<String> for PastEndPage {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        name.parse().map_err(|error: ConfigError| error.rule)
    }
}

impl FromStr for PastEndPage {
    type Err = ConfigError;

    fn from_str(name: &str) -> Result<Self, ConfigError> {
        PastEndPage::ALL
            .into_iter()
            .find(|page| page.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = PastEndPage::ALL.iter().map(|page| page.name()).collect();
                ConfigError::new(
                    "past_end_page",
                    format!("must be one of {}, got {name:?}", names.join(", ")),
                )
            })
    }
}

/// A setting the emulator refuses: the field and the rule it breaks.
///
/// ```
/// let error = "list".parse::<monapi_emulator::PastEndPage>().unwrap_err();
/// assert_eq!(error.field(), "past_end_page");
/// assert!(error.rule().starts_with("must be one of array, object, null, status"));
/// assert_eq!(error.to_string(), format!("past_end_page {}", error.rule()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    field: String,
    rule: String,
}

impl ConfigError {
    pub(crate) fn new(field: impl Into<String>, rule: impl Into<String>) -> Self {
        ConfigError {
            field: field.into(),
            rule: rule.into(),
        }
    }

    /// The setting at fault, as named in JSON (e.g. `past_end_page`).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The rule it breaks (e.g. `must be one of array, object, null, status, got "list"`).
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// The same error about the setting as a field of `parent`.
    ///
    /// ```
    /// let error = "list".parse::<monapi_emulator::PastEndPage>().unwrap_err();
    /// assert_eq!(error.within("quirks").field(), "quirks.past_end_page");
    /// ```
    pub fn within(self, parent: &str) -> ConfigError {
        ConfigError {
            field: format!("{parent}.{}", self.field),
            rule: self.rule,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.rule)
    }
}

impl std::error::Error for ConfigError {}
