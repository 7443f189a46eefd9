//! The faults of the realistic world ([`World::Realistic`](crate::World::Realistic)): sites that
//! are up at almost every check. Each site has its own pace, a fault every 4 to 30 days (from
//! the seed); a day has at most one, drawn from the seed, the site and the day alone (so a day
//! reads the same in every range). A fault lasts 5 to 15 minutes mostly, up to an hour
//! rarely (at least one check), within its day; it strikes one monitoring point mostly, two
//! sometimes, every point (the site down) rarely.

use chrono::{Datelike, NaiveDate};

use crate::catalog::FAULT_CAUSES;
use crate::rng::{hash, SplitMix};
use crate::state::SiteTask;

// Streams of their own, so that these draws are independent of the stressed world's.
const STREAM_PACE: u64 = 0x9ACE;
const STREAM_DAY: u64 = 0x1C1D;

/// The fewest and the most days between two faults of a site, on average.
const SHORTEST_PACE_DAYS: f64 = 4.0;
const LONGEST_PACE_DAYS: f64 = 30.0;

/// One fault of a site: its checks in `start..end` failed at the points of `points` (indexes
/// into the site's points).
pub(crate) struct Incident {
    pub(crate) start: i64,
    pub(crate) end: i64,
    pub(crate) points: Vec<usize>,
    pub(crate) cause: &'static str,
}

/// The site's average number of days between two faults, log-uniform from 4 to 30 days.
pub(crate) fn pace_days(seed: u64, site: &SiteTask) -> f64 {
    let draw = SplitMix::new(hash(&[seed, site.id.into(), STREAM_PACE])).unit();
    SHORTEST_PACE_DAYS * (LONGEST_PACE_DAYS / SHORTEST_PACE_DAYS).powf(draw)
}

/// The fault of the site on `day` (whose 00:00 is unix time `day_start`), if it has one.
pub(crate) fn incident(seed: u64, site: &SiteTask, day: NaiveDate, day_start: i64) -> Option<Incident> {
    let mut rng = SplitMix::new(hash(&[
        seed,
        site.id.into(),
        day.num_days_from_ce() as u64,
        STREAM_DAY,
    ]));
    if rng.unit() >= 1.0 / pace_days(seed, site) {
        return None;
    }
    let length = rng.unit();
    let minutes = if length < 0.7 {
        rng.range(5, 15)
    } else if length < 0.95 {
        rng.range(16, 40)
    } else {
        rng.range(41, 60)
    };
    let frequency = u64::from(site.frequency);
    let checks = minutes.div_ceil(frequency).max(1);
    let first = rng.below(1440 / frequency - checks + 1);
    let start = day_start + (first * frequency * 60) as i64;
    let scope = rng.unit();
    let count = site.points.len();
    let struck = if scope < 0.65 {
        1
    } else if scope < 0.9 {
        2.min(count)
    } else {
        count
    };
    let mut points: Vec<usize> = (0..count).collect();
    rng.shuffle(&mut points);
    points.truncate(struck);
    points.sort_unstable();
    Some(Incident {
        start,
        end: start + (checks * frequency * 60) as i64,
        points,
        cause: rng.pick(FAULT_CAUSES),
    })
}
