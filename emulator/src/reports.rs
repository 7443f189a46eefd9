//! Generation of report bodies (service report, site report, response-time
//! distribution) and the cache that makes repeated requests a map lookup.
//!
//! Every generated value is a pure function of the seed, the world, the task and the check
//! time (or the day, for faults), so a day's data is the same whichever range it is
//! requested in, and the same request always gives the same bytes. The inputs that change
//! at run time are part of the cache key: a site's forced failures ([`Outage`],
//! `fail_site`), and the emulator's clock: no report has a check after it (`until`, the
//! task's last check at or before the clock), and a fault under way at it has no end yet.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use chrono::{Datelike, Days, NaiveDate};

use crate::catalog::{Metric, AVERAGE_NAME, BUCKETS, FAULT_CAUSES, ONGOING, SERVICE_TYPES, TIMEOUT_MS};
use crate::compression::CachedBody;
use crate::config::World;
use crate::incidents::incident;
use crate::rng::{hash, mix, signed_unit, SplitMix};
use crate::state::{Seeded, ServiceTask, SiteTask};

/// A validated, inclusive range of days in the emulator's time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Range {
    pub(crate) start: NaiveDate,
    pub(crate) end: NaiveDate,
    /// The time zone's offset from UTC, seconds: a day starts at its local midnight.
    pub(crate) utc_offset: i32,
}

impl Range {
    pub(crate) fn days(&self) -> impl Iterator<Item = NaiveDate> + use<> {
        let end = self.end;
        self.start.iter_days().take_while(move |day| *day <= end)
    }

    pub(crate) fn contains(&self, day: NaiveDate) -> bool {
        self.start <= day && day <= self.end
    }

    /// Unix time just after the range (00:00 of the day after `end`).
    pub(crate) fn end_ts(&self) -> i64 {
        self.day_ts(self.end + Days::new(1))
    }

    /// Unix time of 00:00 of `day` in the range's time zone.
    pub(crate) fn day_ts(&self, day: NaiveDate) -> i64 {
        let utc_midnight = day
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc()
            .timestamp();
        utc_midnight - i64::from(self.utc_offset)
    }

    /// Minute of the local day at unix time `ts`.
    fn minute_of_day(&self, ts: i64) -> u32 {
        ((ts + i64::from(self.utc_offset)).rem_euclid(86400) / 60) as u32
    }

    /// The outages that reach into the range: what its site reports depend on besides the
    /// seed, the task and today.
    pub(crate) fn outages(&self, all: &[Outage]) -> Vec<Outage> {
        let (first, after) = (self.day_ts(self.start), self.end_ts());
        all.iter()
            .filter(|outage| outage.start < after && outage.end.is_none_or(|end| end > first))
            .copied()
            .collect()
    }

    /// What a report of a task checked every `frequency` minutes over the range shows of the
    /// clock at unix time `now`: `None` when the range ended by then (every check is there),
    /// else its last check at or before `now` (checks after it are not there yet). A range
    /// that starts later reads as the check just before its first, so that all of its keys
    /// are one.
    pub(crate) fn until(&self, frequency: u32, now: i64) -> Option<i64> {
        let step = i64::from(frequency) * 60;
        (now < self.end_ts()).then(|| {
            let last = now - (now + i64::from(self.utc_offset)).rem_euclid(step);
            last.max(self.day_ts(self.start) - step)
        })
    }
}

/// A failure of every monitoring point of a site, forced by `fail_site`: each check from
/// `start` on failed, up to `end` (the first check up again, set by `recover_site`). Both
/// are check times of the site (see [`check_at_or_before`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Outage {
    pub(crate) start: i64,
    pub(crate) end: Option<i64>,
}

/// The site's last check at or before unix time `ts`: its checks run every `frequency`
/// minutes from local midnight (`utc_offset` seconds east of UTC).
pub(crate) fn check_at_or_before(site: &SiteTask, utc_offset: i32, ts: i64) -> i64 {
    let step = i64::from(site.frequency) * 60;
    ts - (ts + i64::from(utc_offset)).rem_euclid(step)
}

/// The seconds between two checks of the site.
pub(crate) fn check_interval(site: &SiteTask) -> i64 {
    i64::from(site.frequency) * 60
}

/// What a report body depends on; the cache key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ReportKey {
    /// `until` is [`Range::until`]: the last check there is, when the range reaches past the
    /// clock.
    Service {
        task: u32,
        range: Range,
        until: Option<i64>,
    },
    /// `today` is set only when the range includes it: it adds the stressed world's ongoing
    /// fault. `outages` are the site's forced failures that reach into the range
    /// ([`Range::outages`]), so a body made before `fail_site` is not served after it.
    Site {
        task: u32,
        range: Range,
        monitor: Option<u32>,
        today: Option<NaiveDate>,
        outages: Vec<Outage>,
        until: Option<i64>,
    },
    Distribution {
        task: u32,
        range: Range,
        today: Option<NaiveDate>,
        outages: Vec<Outage>,
        until: Option<i64>,
    },
}

/// Enough for the reports of every task of the demo setup (120 service tasks, 5 site tasks)
/// over one range, as a bulk export asks for them; the byte budget bounds the memory.
const MAX_ENTRIES: usize = 256;
const MAX_BYTES: usize = 256 << 20;

/// Bounded cache of generated bodies: at most 256 entries, and entries are evicted
/// (least recently used first) while the finished ones hold more than 256 MiB.
/// A body is generated once even when several requests for it arrive together.
#[derive(Default)]
pub(crate) struct ReportCache {
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    entries: HashMap<ReportKey, Entry>,
    tick: u64,
}

struct Entry {
    body: Arc<CachedBody>,
    last_used: u64,
}

impl ReportCache {
    /// The report's body (its `identity`, generated on first use), which also keeps its
    /// compressed forms (see [`crate::compression`]).
    pub(crate) async fn get(&self, world: &Arc<Seeded>, key: ReportKey) -> Arc<CachedBody> {
        let cached = self.cell(&key);
        let world = world.clone();
        cached
            .identity
            .get_or_init(|| async move {
                // Large reports take a while: keep them off the thread that serves requests.
                tokio::task::spawn_blocking(move || Bytes::from(generate(&world, &key)))
                    .await
                    .expect("report generation does not panic")
            })
            .await;
        cached
    }

    /// The entry for `key`, created if needed; the lock is held only for this lookup,
    /// never while generating.
    fn cell(&self, key: &ReportKey) -> Arc<CachedBody> {
        let mut inner = self.inner.lock().expect("cache lock");
        inner.tick += 1;
        let tick = inner.tick;
        if let Some(entry) = inner.entries.get_mut(key) {
            entry.last_used = tick;
            return entry.body.clone();
        }
        let body = Arc::new(CachedBody::default());
        inner.entries.insert(
            key.clone(),
            Entry {
                body: body.clone(),
                last_used: tick,
            },
        );
        while inner.entries.len() > 1 && inner.over_budget() {
            let oldest = inner
                .entries
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(key, _)| key.clone())
                .expect("more than one entry");
            inner.entries.remove(&oldest);
        }
        body
    }
}

impl CacheInner {
    fn over_budget(&self) -> bool {
        let bytes: usize = self.entries.values().map(|entry| entry.body.len()).sum();
        self.entries.len() > MAX_ENTRIES || bytes > MAX_BYTES
    }
}

fn generate(world: &Seeded, key: &ReportKey) -> String {
    match key {
        ReportKey::Service { task, range, until } => {
            let task = world
                .service_task((*task).into())
                .expect("handler checked the task");
            service_report(world.seed, task, *range, *until)
        }
        ReportKey::Site {
            task,
            range,
            monitor,
            today,
            outages,
            until,
        } => {
            let site = world.site((*task).into()).expect("handler checked the task");
            let sampler = Sampler::new(world, site, *range, *today, outages, *until);
            site_report(&sampler, *monitor)
        }
        ReportKey::Distribution {
            task,
            range,
            today,
            outages,
            until,
        } => {
            let site = world.site((*task).into()).expect("handler checked the task");
            distribution(&Sampler::new(world, site, *range, *today, outages, *until))
        }
    }
}

/// Daily load curve in `[-1, 1]`, peaking at 14:00 local time.
fn daily(minute: u32) -> f64 {
    (std::f64::consts::TAU * (minute as f64 - 480.0) / 1440.0).sin()
}

fn non_negative(v: f64) -> f64 {
    // Also turns -0.0 into 0.0, which would print as "-0.00".
    if v > 0.0 {
        v
    } else {
        0.0
    }
}

fn metric_value(metric: Metric, scale: f64, curve: f64, noise: f64, out: &mut String) {
    let _ = match metric {
        Metric::Int(base) => {
            let v = non_negative(base * scale * (1.0 + 0.35 * curve + 0.15 * noise));
            write!(out, "{}", v.round() as u64)
        }
        Metric::Dec(base) => {
            let v = non_negative(base * scale * (1.0 + 0.35 * curve + 0.15 * noise));
            write!(out, "{v:.2}")
        }
        Metric::Pct(base) => {
            let v = if base >= 50.0 {
                100.0 - (100.0 - base) * (1.0 + 0.5 * curve + 0.3 * noise)
            } else {
                base * (1.0 + 0.35 * curve + 0.15 * noise)
            };
            write!(out, "{:.2}", non_negative(v).min(100.0))
        }
        Metric::Const(base) => write!(out, "{}", base as u64),
    };
}

/// `{"<series>":[{"time":"HH:MM","<field>":"<value>",...},...],...}` with every series of
/// the task's type and one record per check over the range, up to `until` (see
/// [`Range::until`]).
fn service_report(seed: u64, task: &ServiceTask, range: Range, until: Option<i64>) -> String {
    let kind = &SERVICE_TYPES[task.kind];
    let per_day = 1440 / task.frequency;
    let days = range.days().count();
    let fields: usize = kind.series.iter().map(|s| s.fields.len()).sum();
    let mut out = String::with_capacity(days * per_day as usize * (kind.series.len() * 20 + fields * 24));
    out.push('{');
    for (si, series) in kind.series.iter().enumerate() {
        if si > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{}\":[", series.name);
        let mut first = true;
        for day in range.days() {
            let day_number = day.num_days_from_ce() as u64;
            let day_start = range.day_ts(day);
            for check in 0..per_day {
                let minute = check * task.frequency;
                if until.is_some_and(|until| day_start + i64::from(minute) * 60 > until) {
                    break;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                let _ = write!(out, "{{\"time\":\"{:02}:{:02}\"", minute / 60, minute % 60);
                let curve = daily(minute);
                for (fi, field) in series.fields.iter().enumerate() {
                    let noise = signed_unit(hash(&[
                        seed,
                        task.id.into(),
                        si as u64,
                        fi as u64,
                        day_number,
                        minute.into(),
                    ]));
                    let _ = write!(out, ",\"{}\":\"", field.name);
                    metric_value(field.metric, task.scale, curve, noise, &mut out);
                    out.push('"');
                }
                out.push('}');
            }
        }
        out.push(']');
    }
    out.push('}');
    out
}

/// One fault of one monitoring point: checks in `start..end` failed.
struct Fault {
    start: i64,
    /// `None` while ongoing: every check from `start` to the end of the range failed.
    end: Option<i64>,
    cause: &'static str,
}

impl Fault {
    fn covers(&self, ts: i64) -> bool {
        ts >= self.start && self.end.is_none_or(|end| ts < end)
    }

    /// The parts of the fault before and after `outage` (none, one or two).
    fn outside(self, outage: &Outage) -> impl Iterator<Item = Fault> {
        let before = (self.start < outage.start).then(|| Fault {
            start: self.start,
            end: Some(self.end.map_or(outage.start, |end| end.min(outage.start))),
            cause: self.cause,
        });
        let after = outage
            .end
            .filter(|&end| self.end.is_none_or(|own| own > end))
            .map(|end| Fault {
                start: self.start.max(end),
                end: self.end,
                cause: self.cause,
            });
        before.into_iter().chain(after)
    }
}

/// Faults of point `p` over the range, ordered by start: the realistic world's
/// [`incident`]s that strike it, or in the stressed world its [`seeded_faults`]. Then the
/// site's `outages`
/// (`fail_site`) take their time from those faults: every point has a fault of its own for
/// each outage, and a fault under way when an outage began (or still under way when it
/// ended) is cut there, its part before the outage ending at the outage's start (its part
/// after it starting at the outage's end).
fn point_faults(
    seed: u64,
    world: World,
    site: &SiteTask,
    p: usize,
    range: Range,
    today: Option<NaiveDate>,
    outages: &[Outage],
) -> Vec<Fault> {
    let mut faults = match world {
        World::Realistic => range
            .days()
            .filter_map(|day| incident(seed, site, day, range.day_ts(day)))
            .filter(|incident| incident.points.contains(&p))
            .map(|incident| Fault {
                start: incident.start,
                end: Some(incident.end),
                cause: incident.cause,
            })
            .collect(),
        World::Stressed => seeded_faults(seed, site, p, range, today),
    };
    if outages.is_empty() {
        return faults;
    }
    for outage in outages {
        faults = faults
            .into_iter()
            .flat_map(|fault| fault.outside(outage))
            .collect();
    }
    faults.extend(outages.iter().map(|outage| Fault {
        start: outage.start,
        end: outage.end,
        cause: outage_cause(seed, site, outage),
    }));
    faults.sort_by_key(|fault| fault.start);
    faults
}

/// The cause of an outage, the same at every point of the site: one from the catalog, fixed
/// by the seed, the task and the outage's start.
fn outage_cause(seed: u64, site: &SiteTask, outage: &Outage) -> &'static str {
    let draw = hash(&[seed, site.id.into(), outage.start as u64, 0x0D0A]);
    FAULT_CAUSES[(draw % FAULT_CAUSES.len() as u64) as usize]
}

/// The stressed world's faults of point `p`, from the seed alone: each flaky point has zero
/// to two faults a day (from a per-day seed, so a day looks the same in every range); when
/// the range includes `today`, the task's ongoing point has a fault since `ongoing_minute`
/// that has not ended, and no fault after it.
fn seeded_faults(seed: u64, site: &SiteTask, p: usize, range: Range, today: Option<NaiveDate>) -> Vec<Fault> {
    let point = &site.points[p];
    if !point.flaky {
        return Vec::new();
    }
    let freq = site.frequency as i64;
    let per_day = 1440 / freq;
    let mut faults = Vec::new();
    for day in range.days() {
        let mut rng = SplitMix::new(hash(&[
            seed,
            site.id.into(),
            point.id.into(),
            day.num_days_from_ce() as u64,
        ]));
        let draw = rng.unit();
        let count = if draw < 0.6 {
            0
        } else if draw < 0.9 {
            1
        } else {
            2
        };
        let mut day_faults: Vec<Fault> = (0..count)
            .map(|_| {
                let minutes = rng.range(1, 6) as i64 * freq.max(5);
                let checks = (minutes + freq - 1) / freq;
                let first = rng.below((per_day - checks) as u64) as i64;
                let start = range.day_ts(day) + first * freq * 60;
                Fault {
                    start,
                    end: Some(start + checks * freq * 60),
                    cause: rng.pick(FAULT_CAUSES),
                }
            })
            .collect();
        day_faults.sort_by_key(|fault| fault.start);
        for fault in day_faults {
            let overlaps = faults
                .last()
                .is_some_and(|prev: &Fault| prev.end.is_some_and(|end| end >= fault.start));
            if !overlaps {
                faults.push(fault);
            }
        }
    }
    if let Some(today) = today.filter(|_| p == site.ongoing_point) {
        let start = range.day_ts(today) + i64::from(site.ongoing_minute) * 60;
        faults.retain(|fault| fault.end.is_some_and(|end| end < start));
        faults.push(Fault {
            start,
            end: None,
            cause: FAULT_CAUSES[(mix(seed ^ u64::from(site.id)) % FAULT_CAUSES.len() as u64) as usize],
        });
    }
    faults
}

/// Duration text as the service writes it: `2天3小时`, `1小时5分钟`, `10分钟`.
fn duration_text(seconds: i64) -> String {
    let minutes = seconds / 60;
    let (days, hours, minutes) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    let mut text = String::new();
    if days > 0 {
        let _ = write!(text, "{days}天");
    }
    if hours > 0 {
        let _ = write!(text, "{hours}小时");
    }
    if minutes > 0 || text.is_empty() {
        let _ = write!(text, "{minutes}分钟");
    }
    text
}

/// Response-time record of one successful check, milliseconds:
/// max, avg, min, process, connect, dns, download (the order of the JSON record).
type Resp = [f64; 7];

/// Response time of point `p` at `ts` (local minute `minute`), as if the check succeeded.
fn response(seed: u64, world: World, site: &SiteTask, p: usize, ts: i64, minute: u32) -> Resp {
    let point = &site.points[p];
    let h = hash(&[seed, site.id.into(), point.id.into(), ts as u64]);
    let part = |n: u64| signed_unit(mix(h ^ n));
    let mut base = point.base_ms * (1.0 + 0.25 * daily(minute)) * (1.0 + 0.2 * part(1));
    // Now and then a slow check, so the upper distribution buckets fill too: in the stressed
    // world 3% of checks, 4 to 28 times as slow; in the realistic one 0.5%, 2 to 6 times.
    match world {
        World::Stressed if part(2) > 0.97 => base *= 4.0 + 12.0 * (part(3) + 1.0),
        World::Realistic if part(2) > 0.995 => base *= 2.0 + 2.0 * (part(3) + 1.0),
        _ => {}
    }
    let dns = base * 0.1 * (1.0 + 0.3 * part(4));
    let connect = base * 0.2 * (1.0 + 0.3 * part(5));
    let process = base * 0.4 * (1.0 + 0.3 * part(6));
    let download = base * 0.3 * (1.0 + 0.3 * part(7));
    let avg = (dns + connect + process + download).min(TIMEOUT_MS as f64 - 1.0);
    let min = avg * (0.7 + 0.15 * part(8));
    let max = (avg * (1.4 + 0.3 * part(9))).min(TIMEOUT_MS as f64);
    [max, avg, min, process, connect, dns, download]
}

/// Walks the checks of a site task over a range, point by point, up to `until`.
struct Sampler<'a> {
    seed: u64,
    world: World,
    site: &'a SiteTask,
    range: Range,
    /// The last check there is (see [`Range::until`]); `None`: the range's last.
    until: Option<i64>,
    faults: Vec<Vec<Fault>>,
}

impl<'a> Sampler<'a> {
    fn new(
        world: &Seeded,
        site: &'a SiteTask,
        range: Range,
        today: Option<NaiveDate>,
        outages: &[Outage],
        until: Option<i64>,
    ) -> Self {
        let (seed, kind) = (world.seed, world.world);
        let faults = (0..site.points.len())
            .map(|p| {
                let faults = point_faults(seed, kind, site, p, range, today, outages);
                so_far(faults, until, check_interval(site), range)
            })
            .collect();
        Sampler {
            seed,
            world: kind,
            site,
            range,
            until,
            faults,
        }
    }

    fn check_times(&self) -> impl Iterator<Item = i64> + use<> {
        let step = i64::from(self.site.frequency) * 60;
        let after = self.until.map_or(self.range.end_ts(), |until| until + 1);
        (self.range.day_ts(self.range.start)..after.min(self.range.end_ts())).step_by(step as usize)
    }

    /// Where the duration of a fault without an end runs to: the end of the range, or of the
    /// last check there is (each failed check counts its interval, as for ended faults).
    fn horizon(&self) -> i64 {
        let end = self.range.end_ts();
        self.until
            .map_or(end, |until| (until + check_interval(self.site)).min(end))
    }

    /// Each point's response at `ts`, `None` where the check failed.
    fn sample(&self, ts: i64, out: &mut Vec<Option<Resp>>) {
        out.clear();
        let minute = self.range.minute_of_day(ts);
        out.extend((0..self.site.points.len()).map(|p| {
            let down = self.faults[p].iter().any(|fault| fault.covers(ts));
            (!down).then(|| response(self.seed, self.world, self.site, p, ts, minute))
        }));
    }
}

/// The faults as known at the clock: none that starts after `until` (the last check there
/// is), and one under way there has no end yet; of those, the ones with a failed check in
/// the range (a failure still going on reaches no day after `until`). `step`: the seconds
/// between two checks.
fn so_far(faults: Vec<Fault>, until: Option<i64>, step: i64, range: Range) -> Vec<Fault> {
    let Some(until) = until else {
        return faults;
    };
    let first = range.day_ts(range.start);
    faults
        .into_iter()
        .filter(|fault| fault.start <= until)
        .map(|fault| Fault {
            end: fault.end.filter(|&end| end <= until),
            ..fault
        })
        .filter(|fault| fault.end.unwrap_or(until + step) > first)
        .collect()
}

/// Mean over the points that answered; zeros when none did.
fn average(samples: &[Option<Resp>]) -> (f64, Resp) {
    let mut sum = [0.0; 7];
    let mut up = 0;
    for resp in samples.iter().flatten() {
        up += 1;
        for (total, value) in sum.iter_mut().zip(resp) {
            *total += value;
        }
    }
    if up > 0 {
        sum.iter_mut().for_each(|total| *total /= up as f64);
    }
    (100.0 * up as f64 / samples.len() as f64, sum)
}

const RESP_FIELDS: [&str; 7] = [
    "resptime_max",
    "resptime_avg",
    "resptime_min",
    "resp_process_time",
    "resp_connect_time",
    "resp_dns_time",
    "resp_download_time",
];

/// Appends `"ts":{"uprate":".."}` and `"ts":{resptime record}` to the two buffers; a
/// failed check has uprate 0.00 and a record of zeros.
fn push_check(uprate: &mut String, resptime: &mut String, ts: i64, rate: f64, resp: &Resp) {
    if !uprate.is_empty() {
        uprate.push(',');
        resptime.push(',');
    }
    let _ = write!(uprate, "\"{ts}\":{{\"uprate\":\"{rate:.2}\"}}");
    let _ = write!(resptime, "\"{ts}\":{{");
    for (i, (name, value)) in RESP_FIELDS.iter().zip(resp).enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(resptime, "{sep}\"{name}\":\"{value:.2}\"");
    }
    resptime.push('}');
}

fn site_report(sampler: &Sampler<'_>, monitor: Option<u32>) -> String {
    let site = sampler.site;
    let wanted: Vec<bool> = slots(site).map(|(id, _)| asked(monitor, id)).collect();
    let mut uprates = vec![String::new(); wanted.len()];
    let mut resptimes = vec![String::new(); wanted.len()];
    let mut samples = Vec::with_capacity(site.points.len());
    for ts in sampler.check_times() {
        sampler.sample(ts, &mut samples);
        if wanted[0] {
            let (rate, resp) = average(&samples);
            push_check(&mut uprates[0], &mut resptimes[0], ts, rate, &resp);
        }
        for (p, sample) in samples.iter().enumerate() {
            if wanted[p + 1] {
                let (rate, resp) = match sample {
                    Some(resp) => (100.0, *resp),
                    None => (0.0, [0.0; 7]),
                };
                push_check(&mut uprates[p + 1], &mut resptimes[p + 1], ts, rate, &resp);
            }
        }
    }
    let size: usize = uprates.iter().chain(&resptimes).map(String::len).sum();
    let mut out = String::with_capacity(size + 1024);
    out.push('{');
    for slot in (0..wanted.len()).filter(|&slot| wanted[slot]) {
        if out.len() > 1 {
            out.push(',');
        }
        let (id, name) = slot_point(site, slot);
        let _ = write!(
            out,
            "\"{id}\":{{\"name\":\"{name}\",\"uprate\":{{{}}},\"fault\":",
            uprates[slot]
        );
        // The average has no faults of its own: its uprate shows the points' faults.
        match slot.checked_sub(1).map(|p| &sampler.faults[p]) {
            Some(faults) if !faults.is_empty() => push_faults(&mut out, faults, sampler.horizon()),
            _ => out.push_str("null"),
        }
        let _ = write!(out, ",\"resptime\":{{{}}}}}", resptimes[slot]);
    }
    out.push('}');
    out
}

/// The keys of a site report in order, as (id, name): slot 0 is the average, slot p + 1 is
/// point p.
fn slots(site: &SiteTask) -> impl Iterator<Item = (u32, &'static str)> + '_ {
    (0..=site.points.len()).map(|slot| slot_point(site, slot))
}

/// Whether the point `id` is in a report for `monitor` (`None`: every point).
fn asked(monitor: Option<u32>, id: u32) -> bool {
    monitor.is_none_or(|m| m == id)
}

fn slot_point(site: &SiteTask, slot: usize) -> (u32, &'static str) {
    match slot {
        0 => (0, AVERAGE_NAME),
        _ => (site.points[slot - 1].id, site.points[slot - 1].name),
    }
}

/// A site report of a range without checks, as PHP writes it: the points `monitor` asks
/// for, each with its empty keyed arrays written as `[]` (quirk `no_checks`).
pub(crate) fn site_report_without_checks(site: &SiteTask, monitor: Option<u32>) -> String {
    let mut out = String::from("{");
    for (id, name) in slots(site).filter(|&(id, _)| asked(monitor, id)) {
        if out.len() > 1 {
            out.push(',');
        }
        let _ = write!(
            out,
            "\"{id}\":{{\"name\":\"{name}\",\"uprate\":[],\"fault\":[],\"resptime\":[]}}"
        );
    }
    out.push('}');
    out
}

/// `{"0":{record},"1":{record},"count":N}`; an ongoing fault lasts until `horizon` (see
/// [`Sampler::horizon`]).
fn push_faults(out: &mut String, faults: &[Fault], horizon: i64) {
    out.push('{');
    for (i, fault) in faults.iter().enumerate() {
        let end = fault.end.unwrap_or(horizon);
        let end_text = match fault.end {
            Some(end) => end.to_string(),
            None => ONGOING.to_string(),
        };
        let duration = duration_text(end - fault.start);
        let _ = write!(
            out,
            "\"{i}\":{{\"start_time\":\"{}\",\"end_time\":\"{end_text}\",\"diff_time\":\"{duration}\",\"fault_status\":\"{}\",\"current_fault_period\":\"{duration}\"}},",
            fault.start, fault.cause
        );
    }
    let _ = write!(out, "\"count\":{}}}", faults.len());
}

/// Buckets of the average response time of every check in the range; empty buckets
/// are left out.
fn distribution(sampler: &Sampler<'_>) -> String {
    let mut counts = vec![0u64; BUCKETS.len()];
    let mut samples = Vec::with_capacity(sampler.site.points.len());
    let mut total = 0u64;
    for ts in sampler.check_times() {
        sampler.sample(ts, &mut samples);
        let avg = average(&samples).1[1];
        let bucket = BUCKETS
            .iter()
            .rposition(|&low| avg >= f64::from(low))
            .unwrap_or(0);
        counts[bucket] += 1;
        total += 1;
    }
    let mut out = String::from("{");
    for (i, &count) in counts.iter().enumerate().filter(|&(_, &count)| count > 0) {
        if out.len() > 1 {
            out.push(',');
        }
        let end = BUCKETS.get(i + 1).copied().unwrap_or(TIMEOUT_MS);
        let percent = 100.0 * count as f64 / total as f64;
        let _ = write!(
            out,
            "\"{0}\":{{\"start\":{0},\"end\":{end},\"count\":{count},\"percent\":\"{percent:.2}\"}}",
            BUCKETS[i]
        );
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn world_and_range() -> (Seeded, Range) {
        let day = NaiveDate::from_ymd_opt(2026, 11, 1).expect("a day");
        let config = Config {
            world: World::Stressed,
            ..Config::default()
        };
        let world = Seeded::new(&config, day);
        let range = Range {
            start: day,
            end: day,
            utc_offset: 8 * 3600,
        };
        (world, range)
    }

    fn spans(faults: &[Fault]) -> Vec<(i64, Option<i64>, &'static str)> {
        faults.iter().map(|f| (f.start, f.end, f.cause)).collect()
    }

    #[test]
    fn an_outage_cuts_the_fault_under_way_and_every_check_is_down_in_either() {
        let (world, range) = world_and_range();
        let site = world.site(20001).expect("a site");
        let (p, step) = (site.ongoing_point, check_interval(site));
        let today = Some(range.start);
        let seeded = point_faults(world.seed, World::Stressed, site, p, range, today, &[]);
        let natural = seeded.last().expect("the ongoing fault");
        assert_eq!(natural.end, None);
        let since = natural.start;

        // Begins during the ongoing fault: it ends there, the outage's fault goes on.
        let outage = Outage {
            start: since + 3 * step,
            end: None,
        };
        let cause = outage_cause(world.seed, site, &outage);
        let faults = point_faults(world.seed, World::Stressed, site, p, range, today, &[outage]);
        assert_eq!(
            spans(&faults[faults.len() - 2..]),
            [
                (since, Some(since + 3 * step), natural.cause),
                (since + 3 * step, None, cause)
            ]
        );

        // Spans the ongoing fault's start and ends: the fault starts again at the outage's end.
        let outage = Outage {
            start: since - 2 * step,
            end: Some(since + 2 * step),
        };
        let cause = outage_cause(world.seed, site, &outage);
        let faults = point_faults(world.seed, World::Stressed, site, p, range, today, &[outage]);
        assert_eq!(
            spans(&faults[faults.len() - 2..]),
            [
                (since - 2 * step, Some(since + 2 * step), cause),
                (since + 2 * step, None, natural.cause)
            ]
        );

        // At every point, down exactly where the seed or the outage says.
        let day_start = range.day_ts(range.start);
        let outage = Outage {
            start: day_start + 100 * step,
            end: Some(day_start + 200 * step),
        };
        let sampler = Sampler::new(&world, site, range, today, &[outage], None);
        let mut samples = Vec::new();
        for ts in sampler.check_times() {
            sampler.sample(ts, &mut samples);
            for (p, sample) in samples.iter().enumerate() {
                let seeded = point_faults(world.seed, World::Stressed, site, p, range, today, &[]);
                let down = seeded.iter().any(|f| f.covers(ts))
                    || (outage.start..outage.end.unwrap_or(i64::MAX)).contains(&ts);
                assert_eq!(sample.is_none(), down, "point {p} at {ts}");
            }
        }
    }

    #[test]
    fn a_range_depends_on_the_outages_that_reach_into_it() {
        let (_, range) = world_and_range();
        let (first, after) = (range.day_ts(range.start), range.end_ts());
        let before = Outage {
            start: first - 600,
            end: Some(first),
        };
        let into = Outage {
            start: first - 600,
            end: Some(first + 300),
        };
        let open = Outage {
            start: first - 86_400,
            end: None,
        };
        let later = Outage {
            start: after,
            end: None,
        };
        assert_eq!(range.outages(&[before, into, open, later]), [into, open]);
    }
}
