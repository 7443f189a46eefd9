//! The background refresh: the task lists, each site's report of the days it lacks, each
//! service's report of today, the agents; then the metrics' values, rendered once.
//!
//! Settled days (the client's `settle` rule, as the store's) are fetched once and kept as
//! summaries (`table::health`): through the store when the client has one, so that a restart
//! reads them from disk. The days not settled yet (today, and yesterday for the first hours)
//! are fetched at every refresh. A part that fails keeps its last values.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use futures::{StreamExt, TryStreamExt};
use monapi::table::health::{self, LastValue, PointSummary, Window};
use monapi::table::{last_settled_day, Tables, RESPONSE_TIME_FIELDS};
use monapi::{Agents, Client, DateRange, Monitor, ServiceTask, SiteTask};

/// The windows of the site metrics, in days.
pub(crate) const WINDOWS: [u32; 3] = [1, 7, 30];

/// The longest run of days asked for at once (a task's memory is bounded by it).
const RUN_DAYS: u64 = 10;

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
    pub(crate) monitor_id: u32,
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
    pub(crate) failures: Vec<monapi::Error>,
    pub(crate) took: Duration,
}

/// A site task's settled days, summarized, and which of them are held.
#[derive(Default)]
struct History {
    points: BTreeMap<u32, PointSummary>,
    held: BTreeSet<NaiveDate>,
}

pub(crate) struct Refresher {
    client: Client,
    tables: Tables,
    filters: Filters,
    slo: Option<f64>,
    concurrency: usize,
    history: HashMap<u64, History>,
    /// The last values of each part, for a part that fails.
    sites: HashMap<u64, SiteState>,
    services: HashMap<u64, ServiceState>,
    site_list: Vec<Task>,
    service_list: Vec<Task>,
    agents: Agents,
}

impl Refresher {
    pub(crate) fn new(client: Client, filters: Filters, slo: Option<f64>, concurrency: usize) -> Self {
        Refresher {
            tables: client.tables(),
            client,
            filters,
            slo,
            concurrency,
            history: HashMap::new(),
            sites: HashMap::new(),
            services: HashMap::new(),
            site_list: Vec::new(),
            service_list: Vec::new(),
            agents: Agents::default(),
        }
    }

    /// One refresh: never fails as a whole; what failed is in the outcome, and its last
    /// values stand.
    pub(crate) async fn refresh(&mut self) -> Outcome {
        let started = Instant::now();
        let mut failures = Vec::new();
        let (sites, services, agents) = tokio::join!(
            self.client.site_tasks_all().try_collect::<Vec<_>>(),
            self.client.service_tasks_all().try_collect::<Vec<_>>(),
            self.client.agents(),
        );
        match sites {
            Ok(list) => {
                self.site_list = list
                    .into_iter()
                    .map(Task::from)
                    .filter(|t| self.filters.site(t))
                    .collect()
            }
            Err(error) => failures.push(error),
        }
        match services {
            Ok(list) => {
                self.service_list = list
                    .into_iter()
                    .map(Task::from)
                    .filter(|t| self.filters.service(t))
                    .collect()
            }
            Err(error) => failures.push(error),
        }
        match agents {
            Ok(agents) => self.agents = agents,
            Err(error) => failures.push(error),
        }
        let now = Utc::now();
        let timezone = self.client.timezone();
        let today = now.with_timezone(&timezone).date_naive();
        let settled = last_settled_day(now, timezone, self.client.settings().settle).min(today);
        failures.extend(self.refresh_sites(today, settled, now.timestamp()).await);
        failures.extend(self.refresh_services(today).await);
        let snapshot = Snapshot {
            slo: self.slo,
            sites: self
                .site_list
                .iter()
                .filter_map(|t| self.sites.get(&t.task_id).cloned())
                .collect(),
            services: self
                .service_list
                .iter()
                .filter_map(|t| self.services.get(&t.task_id).cloned())
                .collect(),
            agents: self.agents.clone(),
        };
        Outcome {
            snapshot,
            failures,
            took: started.elapsed(),
        }
    }

    async fn refresh_sites(&mut self, today: NaiveDate, settled: NaiveDate, now: i64) -> Vec<monapi::Error> {
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
                let mut runs = runs(first, settled, &history.held);
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
                            Ok(tables) => summaries.push((range, health::summarize(&tables, timezone))),
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
                    failures.push(error);
                    continue;
                }
            };
            let history = self.history.entry(task.task_id).or_default();
            let mut points = history.points.clone();
            for (range, summary) in summaries {
                let end = range.end.expect("both dates");
                for (id, point) in summary {
                    if end <= settled {
                        // A settled day with a fault still going on is fetched again.
                        let days = range
                            .start
                            .expect("both dates")
                            .iter_days()
                            .take_while(|d| *d <= end);
                        history.held.extend(
                            days.filter(|d| !point.days.get(d).is_some_and(|day| day.has_ongoing_fault())),
                        );
                        history.points.entry(id).or_default().merge(point.clone());
                    }
                    points.entry(id).or_default().merge(point);
                }
            }
            let state = SiteState {
                points: points
                    .into_iter()
                    .map(|(id, point)| point_state(id, &point, today, timezone, now))
                    .collect(),
                task,
            };
            self.sites.insert(state.task.task_id, state);
        }
        failures
    }

    async fn refresh_services(&mut self, today: NaiveDate) -> Vec<monapi::Error> {
        let listed: BTreeSet<u64> = self.service_list.iter().map(|t| t.task_id).collect();
        self.services.retain(|id, _| listed.contains(id));
        let fetched: Vec<_> = futures::stream::iter(self.service_list.clone())
            .map(|task| {
                let tables = self.tables.clone();
                async move {
                    let report = tables.service_report(task.task_id, DateRange::on(today)).await;
                    (task, report.map(|report| health::last_values(&report)))
                }
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .await;
        let mut failures = Vec::new();
        for (task, values) in fetched {
            match values {
                Ok(values) => {
                    self.services.insert(task.task_id, ServiceState { task, values });
                }
                Err(error) => failures.push(error),
            }
        }
        failures
    }
}

/// The runs (of at most [`RUN_DAYS`]) of the days from `first` to `last` not `held`.
fn runs(first: NaiveDate, last: NaiveDate, held: &BTreeSet<NaiveDate>) -> Vec<DateRange> {
    let mut runs: Vec<DateRange> = Vec::new();
    for day in first
        .iter_days()
        .take_while(|d| *d <= last)
        .filter(|d| !held.contains(d))
    {
        match runs.last_mut() {
            Some(run)
                if run.end.and_then(|end| end.succ_opt()) == Some(day)
                    && (day - run.start.expect("both dates")).num_days() < RUN_DAYS as i64 =>
            {
                run.end = Some(day)
            }
            _ => runs.push(DateRange::on(day)),
        }
    }
    runs
}

fn point_state(
    monitor_id: u32,
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

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn runs_skip_held_days_and_are_at_most_ten_days() {
        let held: BTreeSet<NaiveDate> = [day("2026-11-03")].into();
        let runs = runs(day("2026-11-01"), day("2026-11-20"), &held);
        let spans: Vec<(NaiveDate, NaiveDate)> =
            runs.iter().map(|r| (r.start.unwrap(), r.end.unwrap())).collect();
        assert_eq!(
            spans,
            [
                (day("2026-11-01"), day("2026-11-02")),
                (day("2026-11-04"), day("2026-11-13")),
                (day("2026-11-14"), day("2026-11-20")),
            ]
        );
        assert!(super::runs(day("2026-11-02"), day("2026-11-01"), &held).is_empty());
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
