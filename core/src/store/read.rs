//! A task's report over a range through a [`Store`]: the settled days it holds are read,
//! the others fetched (a task's contiguous missing days in one request) and the settled ones
//! among them written.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampSecondType;
use arrow_array::{Array, RecordBatch, UInt32Array};
use chrono::{DateTime, Days, FixedOffset, NaiveDate, Utc};
use futures::future::BoxFuture;
use futures::StreamExt;

use super::{Read, Store, StoreKind};
use crate::{DateRange, Error, Result};

/// The reports a store keeps, each with its kinds of tables (in the order the report's
/// tables come).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    Service,
    Site,
}

impl Report {
    /// `service_report` or `site_report`, as a sync's failures name it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Report::Service => "service_report",
            Report::Site => "site_report",
        }
    }

    pub(crate) fn kinds(self) -> &'static [StoreKind] {
        match self {
            Report::Service => &StoreKind::ALL[..1],
            Report::Site => &StoreKind::ALL[1..],
        }
    }
}

/// The last day settled at `now`: a day is settled once it ended, in `timezone`, at least
/// `settle` ago.
///
/// ```
/// use chrono::{NaiveDate, TimeZone, Utc};
/// use std::time::Duration;
/// let now = Utc.with_ymd_and_hms(2026, 11, 24, 17, 30, 0).unwrap(); // 01:30 on the 25th at +08:00
/// let two_hours = Duration::from_secs(7200);
/// let day = monapi::store::last_settled_day(now, monapi::SERVICE_TIMEZONE, two_hours);
/// assert_eq!(day, NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()); // the 24th ended 1.5 h ago
/// ```
pub fn last_settled_day(now: DateTime<Utc>, timezone: FixedOffset, settle: Duration) -> NaiveDate {
    let settle = chrono::Duration::from_std(settle).unwrap_or(chrono::Duration::MAX);
    let moment = now.checked_sub_signed(settle).unwrap_or(DateTime::<Utc>::MIN_UTC);
    moment.with_timezone(&timezone).date_naive() - Days::new(1)
}

/// A fetch of one task's report over a range: its tables, in [`Report::kinds`] order.
pub(crate) type Fetch = Box<dyn Fn(DateRange) -> BoxFuture<'static, Result<Fetched>> + Send + Sync>;

/// What one fetch brought.
pub(crate) struct Fetched {
    pub(crate) tables: Vec<RecordBatch>,
    pub(crate) bytes: usize,
}

/// One task's report through the store.
#[derive(Default)]
pub(crate) struct Through {
    /// The tables, in [`Report::kinds`] order (empty for a sync).
    pub(crate) tables: Vec<RecordBatch>,
    /// Task-days fetched, and read from the store (or found whole, for a sync).
    pub(crate) fetched: usize,
    pub(crate) reused: usize,
    /// Bytes of the bodies fetched; rows of the tables fetched.
    pub(crate) bytes: usize,
    pub(crate) rows: usize,
    /// Files that did not read, and where they were set aside.
    pub(crate) set_aside: Vec<PathBuf>,
    /// Runs of days whose fetch (or write) failed, for a sync.
    pub(crate) failures: Vec<(NaiveDate, NaiveDate, Error)>,
}

/// Each day's rows of every kind of a report.
type ByDay = BTreeMap<NaiveDate, Vec<RecordBatch>>;

/// `task`'s report over `range` (both dates given), through `store`: what a table call
/// returns. Rows come by day, oldest first (a fault's day is the day it started), and
/// within a day as the service sent them. Files are read and written on the blocking pool.
pub(crate) async fn through(
    store: &Store,
    report: Report,
    task: u64,
    range: DateRange,
    last_settled: NaiveDate,
    fetch: &Fetch,
) -> Result<Through> {
    let kinds = report.kinds();
    let asked: Vec<NaiveDate> = days(range).collect();
    let (mut out, mut by_day, missing) = {
        let (store, asked) = (store.clone(), asked.clone());
        blocking(move || read_held(&store, kinds, task, &asked, last_settled)).await?
    };
    let asked: BTreeSet<NaiveDate> = asked.into_iter().collect();
    for (first, last) in runs(&missing, None) {
        let fetched = fetch(DateRange::new(first, last)).await?;
        out.fetched += days_from(first, last) as usize;
        out.bytes += fetched.bytes;
        out.rows += fetched.tables.iter().map(RecordBatch::num_rows).sum::<usize>();
        let store = store.clone();
        let split = blocking(move || {
            let split = split(&fetched.tables, kinds, store.timezone(), first)?;
            write_settled(&store, kinds, task, (first, last), last_settled, &split)?;
            Ok(split)
        })
        .await?;
        for (day, tables) in split {
            // A row of a day outside the run (a fault that began the day before) belongs to
            // that day, which the call reads or fetches itself when it asked for it.
            let own = (first..=last).contains(&day) || !asked.contains(&day);
            if own {
                by_day.entry(day).or_insert(tables);
            }
        }
    }
    let timezone = store.timezone();
    out.tables = blocking(move || {
        kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| {
                let parts: Vec<&RecordBatch> = by_day.values().map(|tables| &tables[i]).collect();
                crate::table::concat_batches(&kind.schema(timezone), parts).map_err(|e| built(&e))
            })
            .collect()
    })
    .await?;
    Ok(out)
}

/// The settled days of `asked` the store holds, read; the days to fetch (the others, and
/// those whose files did not read).
fn read_held(
    store: &Store,
    kinds: &[StoreKind],
    task: u64,
    asked: &[NaiveDate],
    last_settled: NaiveDate,
) -> Result<(Through, ByDay, Vec<NaiveDate>)> {
    let mut out = Through::default();
    let mut by_day = ByDay::new();
    let mut missing = Vec::new();
    for &day in asked {
        if day > last_settled {
            missing.push(day);
            continue;
        }
        let mut tables = Vec::with_capacity(kinds.len());
        for &kind in kinds {
            match store.read(kind, task, day)? {
                Read::Held(table) => tables.push(table),
                Read::Missing => break,
                Read::SetAside { to } => {
                    out.set_aside.push(to);
                    break;
                }
            }
        }
        if tables.len() == kinds.len() {
            by_day.insert(day, tables);
            out.reused += 1;
        } else {
            missing.push(day);
        }
    }
    Ok((out, by_day, missing))
}

/// Runs `work` (file reads and writes, Parquet) on the blocking pool, off the runtime's
/// threads, several tasks' at once.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|error| {
        Err(Error::Store {
            path: "(in memory)".into(),
            message: format!("the work on the store's files stopped: {error}"),
        })
    })
}

/// Brings `task`'s tables of `report` among `kinds` in `store` up to date over `range`
/// (settled days): what a sync does for one task. A failed run of days is listed and the others go on.
pub(crate) async fn sync_task(
    store: &Store,
    report: Report,
    kinds: &[StoreKind],
    task: u64,
    range: DateRange,
    held: &Held,
    fetch: &Fetch,
) -> Result<Through> {
    let asked: Vec<StoreKind> = report
        .kinds()
        .iter()
        .copied()
        .filter(|k| kinds.contains(k))
        .collect();
    if let Some(error) = held.failed.get(&task) {
        return Err(error.clone());
    }
    let (mut out, missing) = check_held(held, &asked, task, range);
    let last_settled = range.end.expect("a sync's range has both dates");
    for (first, last) in runs(&missing, Some(RUN_DAYS)) {
        let done = match fetch(DateRange::new(first, last)).await {
            Ok(fetched) => {
                let (store, asked) = (store.clone(), asked.clone());
                blocking(move || {
                    let all = report.kinds();
                    let split: ByDay = split(&fetched.tables, all, store.timezone(), first)?
                        .into_iter()
                        .map(|(day, tables)| {
                            let tables = all
                                .iter()
                                .zip(tables)
                                .filter(|(kind, _)| asked.contains(kind))
                                .map(|(_, table)| table)
                                .collect();
                            (day, tables)
                        })
                        .collect();
                    write_settled(&store, &asked, task, (first, last), last_settled, &split)?;
                    Ok(fetched)
                })
                .await
            }
            Err(error) => Err(error),
        };
        match done {
            Ok(fetched) => {
                out.fetched += days_from(first, last) as usize;
                out.bytes += fetched.bytes;
                out.rows += fetched.tables.iter().map(RecordBatch::num_rows).sum::<usize>();
            }
            Err(error) => out.failures.push((first, last, error)),
        }
    }
    Ok(out)
}

/// What a sync found in the store before it fetches (one listing per kind and day,
/// [`Store::whole_on`]): the tasks whose file is whole, by kind and day; the tasks whose file
/// could not be checked, which fail whole; the files set aside.
#[derive(Default)]
pub(crate) struct Held {
    whole: HashMap<(StoreKind, NaiveDate), BTreeSet<u64>>,
    failed: HashMap<u64, Error>,
    pub(crate) set_aside: Vec<PathBuf>,
    /// Files read whole (a sync that verifies).
    pub(crate) verified: u64,
}

/// What `store` holds of `kinds` over `range` (each file read whole when `verify`), with
/// `concurrency` listings at once on the blocking pool.
pub(crate) async fn held(
    store: &Store,
    kinds: &[StoreKind],
    range: DateRange,
    verify: bool,
    concurrency: usize,
) -> Result<Held> {
    let pairs: Vec<(StoreKind, NaiveDate)> = kinds
        .iter()
        .flat_map(|&kind| days(range).map(move |day| (kind, day)))
        .collect();
    let mut listings = futures::stream::iter(pairs)
        .map(|(kind, day)| {
            let store = store.clone();
            async move {
                let listed = blocking(move || store.whole_on(kind, day, verify)).await?;
                Ok::<_, Error>((kind, day, listed))
            }
        })
        .buffer_unordered(concurrency);
    let mut held = Held::default();
    while let Some(listing) = listings.next().await {
        let (kind, day, listed) = listing?;
        held.whole.insert((kind, day), listed.whole);
        held.set_aside.extend(listed.set_aside);
        held.verified += listed.verified;
        for (task, error) in listed.failed {
            held.failed.entry(task).or_insert(error);
        }
    }
    held.set_aside.sort();
    Ok(held)
}

/// The days of `range` whose files of every kind the store holds whole; the others, to fetch.
fn check_held(held: &Held, kinds: &[StoreKind], task: u64, range: DateRange) -> (Through, Vec<NaiveDate>) {
    let mut out = Through::default();
    let mut missing = Vec::new();
    for day in days(range) {
        let whole = kinds.iter().all(|&kind| {
            held.whole
                .get(&(kind, day))
                .is_some_and(|tasks| tasks.contains(&task))
        });
        if whole {
            out.reused += 1;
        } else {
            missing.push(day);
        }
    }
    (out, missing)
}

/// Writes each settled day of the run `(first, last)` (every kind, an empty file for a day
/// without rows), except a day with a fault still going on: it is fetched again until the
/// fault ends.
fn write_settled(
    store: &Store,
    kinds: &[StoreKind],
    task: u64,
    (first, last): (NaiveDate, NaiveDate),
    last_settled: NaiveDate,
    split: &ByDay,
) -> Result<()> {
    for day in days(DateRange::new(first, last.min(last_settled))) {
        let tables = split.get(&day);
        if tables.is_some_and(|tables| kinds.iter().zip(tables).any(|(&k, t)| ongoing_fault(k, t))) {
            continue;
        }
        for (i, &kind) in kinds.iter().enumerate() {
            match tables {
                Some(tables) => store.write(kind, task, day, &tables[i])?,
                None => store.write(
                    kind,
                    task,
                    day,
                    &RecordBatch::new_empty(kind.schema(store.timezone())),
                )?,
            };
        }
    }
    Ok(())
}

fn ongoing_fault(kind: StoreKind, table: &RecordBatch) -> bool {
    kind == StoreKind::SiteFaults
        && table
            .column_by_name("ongoing")
            .and_then(|column| column.as_boolean_opt().map(|ongoing| ongoing.true_count() > 0))
            .unwrap_or(false)
}

/// Each kind's rows cut by day (the day of [`StoreKind::day_column`] in `timezone`); a row
/// without a time goes with `first`, the first day of the request that brought it.
fn split(
    tables: &[RecordBatch],
    kinds: &[StoreKind],
    timezone: FixedOffset,
    first: NaiveDate,
) -> Result<ByDay> {
    let mut by_day = ByDay::new();
    for (i, (table, kind)) in tables.iter().zip(kinds).enumerate() {
        let times = table
            .column_by_name(kind.day_column())
            .and_then(|column| column.as_primitive_opt::<TimestampSecondType>())
            .ok_or_else(|| Error::Store {
                path: kind.name().into(),
                message: format!(
                    "cannot be cut by day: the table has no {} timestamps",
                    kind.day_column()
                ),
            })?;
        let mut rows: BTreeMap<NaiveDate, Vec<u32>> = BTreeMap::new();
        for row in 0..times.len() {
            // A time too far from 1970 to have a date is no time, as a missing one.
            let day = match times.is_null(row) {
                true => first,
                false => try_day_of(times.value(row), timezone).unwrap_or(first),
            };
            rows.entry(day).or_default().push(row as u32);
        }
        for (day, rows) in rows {
            let taken = arrow_select::take::take_record_batch(table, &UInt32Array::from(rows))
                .map_err(|e| built(&e))?;
            let entry = by_day.entry(day).or_insert_with(|| {
                kinds
                    .iter()
                    .map(|kind| RecordBatch::new_empty(kind.schema(timezone)))
                    .collect()
            });
            entry[i] = taken;
        }
    }
    Ok(by_day)
}

/// The day (in `timezone`) of the instant `seconds` after the epoch; 1970-01-01 for an
/// instant too far from it to have a date (see [`try_day_of`]).
pub(crate) fn day_of(seconds: i64, timezone: FixedOffset) -> NaiveDate {
    try_day_of(seconds, timezone).unwrap_or(EPOCH)
}

/// 1970-01-01.
const EPOCH: NaiveDate = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a date");

/// The day (in `timezone`) of the instant `seconds` after the epoch; `None` beyond the
/// dates chrono counts (about 262,000 years either side), never a wrap or a panic.
pub(crate) fn try_day_of(seconds: i64, timezone: FixedOffset) -> Option<NaiveDate> {
    let local = seconds.checked_add(i64::from(timezone.local_minus_utc()))?;
    let days = chrono::TimeDelta::try_days(local.div_euclid(86_400))?;
    EPOCH.checked_add_signed(days)
}

/// The days of a range with both dates.
pub(crate) fn days(range: DateRange) -> impl Iterator<Item = NaiveDate> {
    let (start, end) = (range.start.expect("both dates"), range.end.expect("both dates"));
    start.iter_days().take_while(move |day| *day <= end)
}

/// The longest run of days fetched at once by a sync (and the exporter): a task's memory
/// (its body, its table, the day's files) is then bounded whatever the range (table calls,
/// which return the whole range anyway, ask for each run of missing days whole).
pub const RUN_DAYS: u64 = 10;

/// `days` (in any order; a day given twice counts once) grouped in runs of consecutive
/// days of at most [`RUN_DAYS`] each, oldest first: the requests that fetch them, one per
/// run.
///
/// ```
/// use chrono::NaiveDate;
/// use monapi::store::day_runs;
/// let day = |d| NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
/// let runs = day_runs((1..=12).chain([14]).map(day));
/// let runs: Vec<_> = runs.iter().map(|run| (run.start.unwrap(), run.end.unwrap())).collect();
/// assert_eq!(runs, [(day(1), day(10)), (day(11), day(12)), (day(14), day(14))]);
/// ```
pub fn day_runs(days: impl IntoIterator<Item = NaiveDate>) -> Vec<DateRange> {
    let days: BTreeSet<NaiveDate> = days.into_iter().collect();
    let days: Vec<NaiveDate> = days.into_iter().collect();
    runs(&days, Some(RUN_DAYS))
        .into_iter()
        .map(|(first, last)| DateRange::new(first, last))
        .collect()
}

/// Sorted days grouped into runs of consecutive days, `(first, last)`, of at most `most`
/// days each when given.
fn runs(days: &[NaiveDate], most: Option<u64>) -> Vec<(NaiveDate, NaiveDate)> {
    let most = most.map_or(i64::MAX, |most| i64::try_from(most).unwrap_or(i64::MAX));
    let mut runs: Vec<(NaiveDate, NaiveDate)> = Vec::new();
    for &day in days {
        match runs.last_mut() {
            Some((first, last)) if last.succ_opt() == Some(day) && (day - *first).num_days() < most => {
                *last = day
            }
            _ => runs.push((day, day)),
        }
    }
    runs
}

/// The days from `first` to `last`, both counted (0 when `last` is before `first`).
pub(crate) fn days_from(first: NaiveDate, last: NaiveDate) -> u64 {
    u64::try_from((last - first).num_days() + 1).unwrap_or(0)
}

fn built(error: &dyn std::fmt::Display) -> Error {
    Error::Store {
        path: "(in memory)".into(),
        message: format!("a table could not be assembled: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    /// A site report of 2025-11-22 (+08:00) whose point 3 has a fault ending `end`.
    fn site_body(end: &str) -> String {
        format!(
            r#"{{"3":{{"name":"北京电信","uprate":{{"1763769600":{{"uprate":"100.00"}}}},
            "fault":{{"0":{{"start_time":"1763769900","end_time":"{end}","diff_time":"5分钟",
            "fault_status":"无法解析域名","current_fault_period":"5分钟"}},"count":1}},
            "resptime":{{"1763769600":{{"resptime_max":"1","resptime_avg":"1","resptime_min":"1",
            "resp_process_time":"1","resp_connect_time":"1","resp_dns_time":"1","resp_download_time":"1"}}}}}}}}"#
        )
    }

    /// A fetch of `body` as a site report, counting its calls.
    fn counted(body: String, calls: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> Fetch {
        Box::new(move |_range| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let tables = crate::table::site_report(20001, body.as_bytes(), crate::SERVICE_TIMEZONE);
            Box::pin(async move {
                let tables = tables?;
                Ok(Fetched {
                    tables: vec![tables.availability, tables.response_time, tables.faults],
                    bytes: 1,
                })
            })
        })
    }

    #[tokio::test]
    async fn a_day_with_a_fault_still_going_on_is_fetched_again_until_it_ends() {
        let root = std::env::temp_dir().join(format!("monapi-ongoing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = Store::open(&root, crate::SERVICE_TIMEZONE).unwrap();
        let day = NaiveDate::from_ymd_opt(2025, 11, 22).unwrap();
        let range = DateRange::new(day, day);
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let ongoing = counted(site_body("未结束"), calls.clone());
        for expected_calls in 1..=2 {
            let through = through(&store, Report::Site, 20001, range, day, &ongoing)
                .await
                .unwrap();
            assert_eq!(through.tables[2].num_rows(), 1, "the ongoing fault is returned");
            assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), expected_calls);
            for &kind in Report::Site.kinds() {
                assert!(
                    !store.holds(kind, 20001, day).unwrap(),
                    "{kind:?} kept with a fault going on"
                );
            }
        }
        // Once the fault has ended, the day is kept, and read from then on.
        let ended = counted(site_body("1763770200"), calls.clone());
        for _ in 0..2 {
            let through = through(&store, Report::Site, 20001, range, day, &ended)
                .await
                .unwrap();
            assert_eq!(through.tables[2].num_rows(), 1);
            assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 3);
        }
        assert!(store.holds(StoreKind::SiteFaults, 20001, day).unwrap());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_long_run_is_cut_into_runs_of_at_most_so_many_days() {
        let all: Vec<NaiveDate> = (1..=25).map(day).collect();
        let cut = runs(&all, Some(10));
        assert_eq!(cut, [(day(1), day(10)), (day(11), day(20)), (day(21), day(25))]);
        assert_eq!(runs(&[day(3)], Some(10)), [(day(3), day(3))]);
        assert_eq!(runs(&all, None), [(day(1), day(25))]);
        let ranges = day_runs(all.iter().rev().chain(&all).copied());
        let pairs: Vec<_> = ranges
            .iter()
            .map(|r| (r.start.unwrap(), r.end.unwrap()))
            .collect();
        assert_eq!(pairs, cut, "any order, duplicates once");
    }

    #[test]
    fn missing_days_make_runs_of_consecutive_days() {
        let missing = [day(1), day(2), day(3), day(5), day(7), day(8)];
        assert_eq!(
            runs(&missing, None),
            [(day(1), day(3)), (day(5), day(5)), (day(7), day(8))]
        );
        assert!(runs(&[], None).is_empty());
        assert!(day_runs([]).is_empty());
    }

    #[test]
    fn an_instant_too_far_from_1970_has_no_day_and_never_panics() {
        let tz = FixedOffset::east_opt(8 * 3600).unwrap();
        let west = FixedOffset::west_opt(12 * 3600).unwrap();
        for seconds in [
            i64::MAX,
            i64::MAX - 1,
            i64::MIN,
            i64::MIN + 1,
            1 << 60,
            -(1 << 60),
        ] {
            assert_eq!(try_day_of(seconds, tz), None, "{seconds}");
            assert_eq!(try_day_of(seconds, west), None, "{seconds}");
            assert_eq!(day_of(seconds, tz), EPOCH, "{seconds}");
        }
        // The last instant chrono has a date for, and the first it has none for.
        let last = NaiveDate::MAX
            .and_hms_opt(23, 59, 59)
            .unwrap()
            .and_utc()
            .timestamp();
        assert_eq!(
            try_day_of(last, FixedOffset::east_opt(0).unwrap()),
            Some(NaiveDate::MAX)
        );
        assert_eq!(try_day_of(last + 1, FixedOffset::east_opt(0).unwrap()), None);
    }

    #[test]
    fn a_row_whose_time_has_no_day_goes_with_the_first_day_as_a_row_without_one() {
        use arrow_array::types::Int32Type;
        use arrow_array::{ArrayRef, DictionaryArray, Float64Array, Int64Array, TimestampSecondArray};
        use std::sync::Arc;
        let tz = crate::SERVICE_TIMEZONE;
        let category = || {
            Arc::new(
                ["a", "a", "a"]
                    .into_iter()
                    .collect::<DictionaryArray<Int32Type>>(),
            ) as ArrayRef
        };
        let times = TimestampSecondArray::from(vec![Some(1_795_536_000), Some(i64::MAX), None]);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![10001; 3])),
            category(),
            Arc::new(times.with_timezone(tz.to_string())),
            category(),
            Arc::new(Float64Array::from(vec![1.0; 3])),
        ];
        let table = RecordBatch::try_new(StoreKind::ServiceReport.schema(tz), columns).unwrap();
        let by_day = split(&[table], Report::Service.kinds(), tz, day(1)).unwrap();
        assert_eq!(by_day[&day(25)][0].num_rows(), 1);
        assert_eq!(
            by_day[&day(1)][0].num_rows(),
            2,
            "the far time and the missing one"
        );
    }

    #[test]
    fn a_day_is_settled_once_it_ended_settle_ago_in_the_time_zone() {
        use chrono::TimeZone;
        let tz = FixedOffset::east_opt(8 * 3600).unwrap();
        let hour = Duration::from_secs(3600);
        // 2026-11-25 00:59 at +08:00: the 24th ended 59 minutes ago.
        let now = Utc.with_ymd_and_hms(2026, 11, 24, 16, 59, 0).unwrap();
        assert_eq!(last_settled_day(now, tz, hour), day(23));
        let now = Utc.with_ymd_and_hms(2026, 11, 24, 17, 0, 0).unwrap();
        assert_eq!(last_settled_day(now, tz, hour), day(24));
        let utc = FixedOffset::east_opt(0).unwrap();
        assert_eq!(last_settled_day(now, utc, hour), day(23));
    }

    #[test]
    fn an_instant_belongs_to_its_day_in_the_time_zone() {
        let tz = FixedOffset::east_opt(8 * 3600).unwrap();
        // 2026-11-24T16:00:00Z is midnight of the 25th at +08:00.
        let midnight = 1_795_536_000;
        assert_eq!(day_of(midnight, tz), day(25));
        assert_eq!(day_of(midnight - 1, tz), day(24));
        assert_eq!(day_of(midnight, FixedOffset::east_opt(0).unwrap()), day(24));
    }
}
