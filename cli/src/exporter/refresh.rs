//! The background refresh: the task lists, each site's report of the days it lacks, each
//! service's report of today, the agents; then the metrics' values, rendered once.
//!
//! Settled days (the client's `settle` rule, as the store's) are fetched once and kept as
//! summaries (`monapi::health`): through the store when the client has one, so that a restart
//! reads them from disk. The days not settled yet (today, and yesterday for the first hours)
//! are fetched at every refresh. A part that fails keeps its last values until they are older
//! than `--stale-after`; then they are dropped, so that no alert fires on values nobody
//! confirms.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use futures::{StreamExt, TryStreamExt};
use monapi::health::{self, LastValue, PointSummary, Window};
use monapi::store::{day_runs, last_settled_day};
use monapi::table::{Tables, RESPONSE_TIME_FIELDS};
use monapi::{Agents, Client, DateRange, Monitor, ServiceTask, SiteTask};

/// The windows of the site metrics, in days.
pub(crate) const WINDOWS: [u32; 3] = [1, 7, 30];

/// Which tasks are exported: a task is when its id is in the inclusion list (or that list is
/// empty) and not in the exclusion list, and likewise its type.
#[derive(Debug, Default)]
pub(crate) struct Filters {
    pub(crate) sites: Vec<u64>,
    pub(crate) exclude_sites: Vec<u64>,
    pub(crate) services: Vec<u64>,
    pub(crate) exclude_services: Vec<u64>,
    pub(crate) task_types: Vec<String>,
    pub(crate) exclude_task_types: Vec<String>,
}

impl Filters {
    fn site(&self, task: &Task) -> bool {
        chosen(&self.sites, &self.exclude_sites, &task.task_id) && self.task_type(&task.task_type)
    }

    fn service(&self, task: &Task) -> bool {
        chosen(&self.services, &self.exclude_services, &task.task_id) && self.task_type(&task.task_type)
    }

    fn task_type(&self, kind: &str) -> bool {
        let kind = kind.to_string();
        chosen(&self.task_types, &self.exclude_task_types, &kind)
    }
}

fn chosen<T: PartialEq>(only: &[T], except: &[T], value: &T) -> bool {
    (only.is_empty() || only.contains(value)) && !except.contains(value)
}

/// What the metrics show of a task (the rest of its settings is not kept: a thousand sites'
/// other fields are megabytes).
#[derive(Clone, Debug, Default)]
pub(crate) struct Task {
    pub(crate) task_id: u64,
    pub(crate) task_name: String,
    pub(crate) task_type: String,
    /// What a site task checks (its address); empty for a service task.
    pub(crate) task_summary: String,
    pub(crate) task_status: String,
    pub(crate) frequency: Option<u32>,
}

impl From<SiteTask> for Task {
    fn from(task: SiteTask) -> Self {
        Task {
            task_id: task.task_id,
            task_name: task.task_name,
            task_type: task.task_type,
            task_summary: task.task_summary,
            task_status: task.task_status,
            frequency: task.frequency,
        }
    }
}

impl From<ServiceTask> for Task {
    fn from(task: ServiceTask) -> Self {
        Task {
            task_id: task.task_id,
            task_name: task.task_name,
            task_type: task.task_type,
            task_summary: String::new(),
            task_status: task.task_status,
            frequency: task.frequency,
        }
    }
}

/// What one refresh found: the values of the metrics.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub(crate) slo: Option<f64>,
    pub(crate) sites: Vec<SiteState>,
    pub(crate) services: Vec<ServiceState>,
    pub(crate) agents: Agents,
}

#[derive(Clone, Debug)]
pub(crate) struct SiteState {
    pub(crate) task: Task,
    pub(crate) points: Vec<PointState>,
}

/// A point's metrics (monitor 0, the average, has no faults of its own).
#[derive(Clone, Debug)]
pub(crate) struct PointState {
    pub(crate) monitor_id: i64,
    pub(crate) monitor: String,
    pub(crate) up: Option<bool>,
    /// The last check's availability, from 0 to 1.
    pub(crate) availability: Option<f64>,
    pub(crate) last_check: Option<i64>,
    /// Seconds, in the order of [`RESPONSE_TIME_FIELDS`].
    pub(crate) response: [Option<f64>; RESPONSE_TIME_FIELDS.len()],
    pub(crate) fault_ongoing: bool,
    /// In the order of [`WINDOWS`].
    pub(crate) windows: [WindowState; WINDOWS.len()],
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WindowState {
    pub(crate) uptime: Option<f64>,
    pub(crate) faults: usize,
    pub(crate) downtime: i64,
}

#[derive(Clone, Debug)]
pub(crate) struct ServiceState {
    pub(crate) task: Task,
    pub(crate) values: Vec<LastValue>,
}

/// A refresh's snapshot and what failed in it.
pub(crate) struct Outcome {
    pub(crate) snapshot: Snapshot,
    pub(crate) failures: Vec<Failure>,
    /// Whether the service answered at all: one of the task lists or the agents came back.
    /// A refresh that did not (the service down, a wrong password) failed as a whole.
    pub(crate) reached: bool,
    pub(crate) took: Duration,
}

/// A call of a refresh that failed, and the task it was for.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) task_id: Option<u64>,
    pub(crate) error: monapi::Error,
}

impl From<monapi::Error> for Failure {
    fn from(error: monapi::Error) -> Self {
        Failure { task_id: None, error }
    }
}

/// A site task's settled days, summarized, and which of them are held.
#[derive(Default)]
struct History {
    points: BTreeMap<i64, PointSummary>,
    held: BTreeSet<NaiveDate>,
}

/// A part's last values and when a refresh last confirmed them.
struct Confirmed<T> {
    at: DateTime<Utc>,
    value: T,
}

pub(crate) struct Refresher {
    client: Client,
    tables: Tables,
    filters: Filters,
    slo: Option<f64>,
    concurrency: usize,
    stale_after: chrono::Duration,
    history: HashMap<u64, History>,
    /// The last values of each part, for a part that fails.
    sites: HashMap<u64, Confirmed<SiteState>>,
    services: HashMap<u64, Confirmed<ServiceState>>,
    site_list: Vec<Task>,
    service_list: Vec<Task>,
    agents: Option<Confirmed<Agents>>,
}

/// What the exporter shows and how: the filters, the objective, the tasks fetched at once and
/// how long a value stands unconfirmed.
pub(crate) struct Shown {
    pub(crate) filters: Filters,
    pub(crate) slo: Option<f64>,
    pub(crate) concurrency: usize,
    pub(crate) stale_after: Duration,
}

impl Refresher {
    pub(crate) fn new(client: Client, shown: Shown) -> Self {
        Refresher {
            tables: client.tables(),
            client,
            filters: shown.filters,
            slo: shown.slo,
            concurrency: shown.concurrency,
            // Bounded by the core's rule (at most 3 days).
            stale_after: chrono::Duration::from_std(shown.stale_after).unwrap_or(chrono::Duration::MAX),
            history: HashMap::new(),
            sites: HashMap::new(),
            services: HashMap::new(),
            site_list: Vec::new(),
            service_list: Vec::new(),
            agents: None,
        }
    }

    /// One refresh as of `now`: never fails as a whole; what failed is in the outcome, and
    /// its last values stand until they are stale.
    pub(crate) async fn refresh(&mut self, now: DateTime<Utc>) -> Outcome {
        let started = Instant::now();
        let mut failures: Vec<Failure> = Vec::new();
        let (sites, services, agents) = tokio::join!(
            self.client.site_tasks_all().try_collect::<Vec<_>>(),
            self.client.service_tasks_all().try_collect::<Vec<_>>(),
            self.client.agents(),
        );
        let reached = sites.is_ok() || services.is_ok() || agents.is_ok();
        match sites {
            Ok(list) => {
                self.site_list = list
                    .into_iter()
                    .map(Task::from)
                    .filter(|t| self.filters.site(t))
                    .collect()
            }
            Err(error) => failures.push(error.into()),
        }
        match services {
            Ok(list) => {
                self.service_list = list
                    .into_iter()
                    .map(Task::from)
                    .filter(|t| self.filters.service(t))
                    .collect()
            }
            Err(error) => failures.push(error.into()),
        }
        match agents {
            Ok(agents) => {
                self.agents = Some(Confirmed {
                    at: now,
                    value: agents,
                })
            }
            Err(error) => failures.push(error.into()),
        }
        let timezone = self.client.timezone();
        let today = now.with_timezone(&timezone).date_naive();
        let settled = last_settled_day(now, timezone, self.client.settings().settle).min(today);
        // A service that answered none of the lists is down, or refuses the credentials:
        // asking it for every task's report too would only repeat that many times over.
        if reached {
            failures.extend(self.refresh_sites(today, settled, now).await);
            failures.extend(self.refresh_services(today, now).await);
        }
        let fresh = |at: &DateTime<Utc>| now.signed_duration_since(*at) <= self.stale_after;
        let snapshot = Snapshot {
            slo: self.slo,
            sites: self
                .site_list
                .iter()
                .filter_map(|t| self.sites.get(&t.task_id))
                .filter(|site| fresh(&site.at))
                .map(|site| site.value.clone())
                .collect(),
            services: self
                .service_list
                .iter()
                .filter_map(|t| self.services.get(&t.task_id))
                .filter(|service| fresh(&service.at))
                .map(|service| service.value.clone())
                .collect(),
            agents: self
                .agents
                .as_ref()
                .filter(|agents| fresh(&agents.at))
                .map(|agents| agents.value.clone())
                .unwrap_or_default(),
        };
        Outcome {
            snapshot,
            failures,
            reached,
            took: started.elapsed(),
        }
    }

    async fn refresh_sites(
        &mut self,
        today: NaiveDate,
        settled: NaiveDate,
        now: DateTime<Utc>,
    ) -> Vec<Failure> {
        let first = Window::days(WINDOWS[WINDOWS.len() - 1], today, self.client.timezone()).first;
        let listed: BTreeSet<u64> = self.site_list.iter().map(|t| t.task_id).collect();
        // Tasks gone from the account (or the filters) are forgotten.
        self.history.retain(|id, _| listed.contains(id));
        self.sites.retain(|id, _| listed.contains(id));
        let plans: Vec<(Task, Vec<DateRange>)> = self
            .site_list
            .iter()
            .map(|task| {
                let history = self.history.entry(task.task_id).or_default();
                history.held = history.held.split_off(&first);
                for point in history.points.values_mut() {
                    point.forget_before(first);
                }
                // The settled days not held, in the core's runs (a task's memory is bounded).
                let missing = first
                    .iter_days()
                    .take_while(|day| *day <= settled)
                    .filter(|day| !history.held.contains(day));
                let mut runs = day_runs(missing);
                if settled < today {
                    runs.push(DateRange::new(settled.succ_opt().expect("a day"), today));
                }
                (task.clone(), runs)
            })
            .collect();
        let timezone = self.client.timezone();
        let fetched: Vec<_> = futures::stream::iter(plans)
            .map(|(task, runs)| {
                let tables = self.tables.clone();
                async move {
                    let mut summaries = Vec::new();
                    for range in runs {
                        let report = tables.site_report(task.task_id, range, Monitor::All).await;
                        match report {
                            Ok(tables) => {
                                summaries.push((range, health::summarize(&tables, timezone, now.timestamp())))
                            }
                            Err(error) => return (task, Err(error)),
                        }
                    }
                    (task, Ok(summaries))
                }
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .await;
        let mut failures = Vec::new();
        for (task, result) in fetched {
            let summaries = match result {
                Ok(summaries) => summaries,
                Err(error) => {
                    failures.push(Failure {
                        task_id: Some(task.task_id),
                        error,
                    });
                    continue;
                }
            };
            let history = self.history.entry(task.task_id).or_default();
            let mut points = history.points.clone();
            for (range, summary) in summaries {
                let (first, last) = (range.start.expect("both dates"), range.end.expect("both dates"));
                if last <= settled {
                    // A settled day is held once no point has a fault of it still going on
                    // (one that did is fetched again until the fault has ended).
                    let ongoing: BTreeSet<NaiveDate> = summary
                        .values()
                        .flat_map(|point| &point.days)
                        .filter(|(_, day)| day.has_ongoing_fault())
                        .map(|(day, _)| *day)
                        .collect();
                    history.held.extend(
                        first
                            .iter_days()
                            .take_while(|day| *day <= last)
                            .filter(|day| !ongoing.contains(day)),
                    );
                    for (id, point) in &summary {
                        history
                            .points
                            .entry(*id)
                            .or_default()
                            .merge(point.clone(), first, last);
                    }
                }
                for (id, point) in summary {
                    points.entry(id).or_default().merge(point, first, last);
                }
            }
            let state = SiteState {
                points: points
                    .into_iter()
                    .map(|(id, point)| point_state(id, &point, today, timezone, now.timestamp()))
                    .collect(),
                task,
            };
            self.sites.insert(
                state.task.task_id,
                Confirmed {
                    at: now,
                    value: state,
                },
            );
        }
        failures
    }

    async fn refresh_services(&mut self, today: NaiveDate, now: DateTime<Utc>) -> Vec<Failure> {
        let listed: BTreeSet<u64> = self.service_list.iter().map(|t| t.task_id).collect();
        self.services.retain(|id, _| listed.contains(id));
        let fetched: Vec<_> = futures::stream::iter(self.service_list.clone())
            .map(|task| {
                let tables = self.tables.clone();
                async move {
                    let report = tables.service_report(task.task_id, DateRange::on(today)).await;
                    (
                        task,
                        report.map(|report| health::last_values(&report, now.timestamp())),
                    )
                }
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .await;
        let mut failures = Vec::new();
        for (task, values) in fetched {
            match values {
                Ok(values) => {
                    let task_id = task.task_id;
                    let value = ServiceState { task, values };
                    self.services.insert(task_id, Confirmed { at: now, value });
                }
                Err(error) => failures.push(Failure {
                    task_id: Some(task.task_id),
                    error,
                }),
            }
        }
        failures
    }
}

fn point_state(
    monitor_id: i64,
    point: &PointSummary,
    today: NaiveDate,
    timezone: chrono::FixedOffset,
    now: i64,
) -> PointState {
    let last = point.last.as_ref();
    PointState {
        monitor_id,
        monitor: point.monitor.clone(),
        up: last.and_then(|l| l.up()),
        availability: last.and_then(|l| l.availability),
        last_check: last.map(|l| l.time),
        response: RESPONSE_TIME_FIELDS.map(|field| last.and_then(|l| l.response_seconds(field))),
        fault_ongoing: point.fault_ongoing(),
        windows: WINDOWS.map(|days| {
            let window = Window::days(days, today, timezone);
            WindowState {
                uptime: point.uptime_ratio(&window),
                faults: point.faults(&window, now),
                downtime: point.downtime_seconds(&window, now),
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use monapi::table::arrow_array::cast::AsArray;
    use monapi::table::arrow_array::types::{Float64Type, Int64Type, TimestampSecondType};
    use monapi::table::arrow_array::Array;
    use monapi_emulator::{
        instant, Config, Emulator, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_PASSWORD, DEMO_USERNAME,
    };

    fn client(emulator: &Emulator) -> Client {
        Client::builder()
            .base_url(emulator.base_url())
            .client_id(DEMO_CLIENT_ID)
            .client_secret(DEMO_CLIENT_SECRET)
            .username(DEMO_USERNAME)
            .password(DEMO_PASSWORD)
            .max_retries(0)
            .build()
            .unwrap()
    }

    fn refresher(client: Client, sites: Vec<u64>, stale_after: Duration) -> Refresher {
        let filters = Filters {
            sites,
            // No service task: the site's metrics are what the test is about.
            services: vec![0],
            ..Filters::default()
        };
        let shown = Shown {
            filters,
            slo: None,
            concurrency: 4,
            stale_after,
        };
        Refresher::new(client, shown)
    }

    /// Each point's mean availability (a ratio) over `day`, from the table.
    async fn table_means(client: &Client, task_id: u64, day: NaiveDate) -> BTreeMap<i64, f64> {
        let tables = client
            .tables()
            .site_report(task_id, DateRange::on(day), Monitor::All)
            .await
            .unwrap();
        let batch = &tables.availability;
        let ids = batch
            .column_by_name("monitor_id")
            .unwrap()
            .as_primitive::<Int64Type>();
        let rates = batch
            .column_by_name("uprate")
            .unwrap()
            .as_primitive::<Float64Type>();
        let times = batch
            .column_by_name("time")
            .unwrap()
            .as_primitive::<TimestampSecondType>();
        let mut sums: BTreeMap<i64, (f64, u32)> = BTreeMap::new();
        for row in 0..batch.num_rows() {
            assert!(times.is_valid(row));
            if rates.is_valid(row) {
                let sum = sums.entry(ids.value(row)).or_default();
                *sum = (sum.0 + rates.value(row) / 100.0, sum.1 + 1);
            }
        }
        sums.into_iter()
            .map(|(id, (sum, n))| (id, sum / f64::from(n)))
            .collect()
    }

    /// An instant given as the emulator's local time (`2026-11-10 23:30`).
    fn at(text: &str) -> DateTime<Utc> {
        instant("now", text, monapi::SERVICE_TIMEZONE).unwrap()
    }

    /// An emulator whose clock stands at `now` (its local time).
    async fn emulator_at(now: &str) -> Emulator {
        let config = Config {
            now: Some(at(now)),
            ..Config::default()
        };
        Emulator::start(config).await.unwrap()
    }

    #[tokio::test]
    async fn a_fault_across_midnight_that_ends_a_day_later_is_over_and_its_day_is_the_tables() {
        let emulator = emulator_at("2026-11-10 23:30").await;
        let client = client(&emulator);
        let mut refresher = refresher(client.clone(), vec![20001], Duration::from_secs(900));
        emulator.fail_site(20001).unwrap();
        let ongoing = |outcome: &Outcome| -> Vec<bool> {
            outcome.snapshot.sites[0]
                .points
                .iter()
                .filter(|p| p.monitor_id != 0)
                .map(|p| p.fault_ongoing)
                .collect()
        };
        let outcome = refresher.refresh(at("2026-11-10 23:31")).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert!(ongoing(&outcome).iter().all(|o| *o), "failing since 23:30");
        // Two days later, the 10th is settled while its fault still goes on.
        emulator.set_now(Some(at("2026-11-12 03:00"))).unwrap();
        let outcome = refresher.refresh(at("2026-11-12 03:00")).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert!(ongoing(&outcome).iter().all(|o| *o), "still failing");
        emulator.recover_site(20001).unwrap().expect("it was failing");
        emulator.set_now(Some(at("2026-11-12 03:30"))).unwrap();
        let outcome = refresher.refresh(at("2026-11-12 03:30")).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert!(
            ongoing(&outcome).iter().all(|o| !*o),
            "the fault ended at 03:00 on the 12th"
        );
        // The 10th, held now, is what its table says, point by point.
        let tenth: NaiveDate = "2026-11-10".parse().unwrap();
        let history = &refresher.history[&20001];
        assert!(history.held.contains(&tenth));
        let means = table_means(&client, 20001, tenth).await;
        assert!(means.len() > 1);
        for (id, mean) in means {
            let day = &history.points[&id].days[&tenth];
            let held = day.availability_sum / f64::from(day.checks);
            assert!(
                (held - mean).abs() < 1e-9,
                "point {id}: {held} held, {mean} in the table"
            );
            if id != 0 {
                assert!(
                    day.faults.iter().all(|f| f.end.is_some()),
                    "point {id}: {:?}",
                    day.faults
                );
            }
        }
    }

    #[tokio::test]
    async fn values_older_than_stale_after_are_dropped_not_frozen() {
        let emulator = emulator_at("2026-11-10 12:00").await;
        let mut refresher = refresher(client(&emulator), vec![20001, 20002], Duration::from_secs(900));
        let outcome = refresher.refresh(at("2026-11-10 12:00")).await;
        assert_eq!(outcome.snapshot.sites.len(), 2);
        assert!(!outcome.snapshot.agents.is_empty());
        emulator
            .set_faults(monapi_emulator::Faults {
                error_500: 1.0,
                ..Default::default()
            })
            .unwrap();
        // Within the 15 minutes the last values stand; after them they are gone.
        let outcome = refresher.refresh(at("2026-11-10 12:15")).await;
        assert!(!outcome.reached);
        assert_eq!(outcome.snapshot.sites.len(), 2);
        let outcome = refresher.refresh(at("2026-11-10 12:15:01")).await;
        assert!(outcome.snapshot.sites.is_empty() && outcome.snapshot.agents.is_empty());
        emulator.set_faults(monapi_emulator::Faults::default()).unwrap();
        let outcome = refresher.refresh(at("2026-11-10 12:16")).await;
        assert!(outcome.reached);
        assert_eq!(outcome.snapshot.sites.len(), 2);
    }

    #[test]
    fn filters_have_inclusion_and_exclusion_forms() {
        let site = |id: u64, kind: &str| Task {
            task_id: id,
            task_type: kind.into(),
            ..Task::default()
        };
        let filters = Filters {
            sites: vec![1, 2],
            exclude_sites: vec![2],
            exclude_task_types: vec!["ping".into()],
            ..Filters::default()
        };
        assert!(filters.site(&site(1, "http")));
        assert!(!filters.site(&site(2, "http")), "excluded wins");
        assert!(!filters.site(&site(3, "http")), "not included");
        assert!(!filters.site(&site(1, "ping")), "type excluded");
        let types = Filters {
            task_types: vec!["https".into()],
            ..Filters::default()
        };
        assert!(types.site(&site(7, "https")) && !types.site(&site(7, "http")));
    }
}
