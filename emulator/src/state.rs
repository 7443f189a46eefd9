//! The seeded, immutable part of an emulator: service tasks, agents, site tasks, the
//! monitoring points, the users and their groups. Built once at start; the list responses
//! are serialized here once (as lists, and as PHP's keyed arrays for the `keyed_lists`
//! quirk), so listing is a lookup. The records stay too, for the pages of a list some of
//! whose tasks are removed (`remove_task`).

use std::collections::{BTreeSet, HashSet};

use bytes::Bytes;
use chrono::{Days, NaiveDate};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::catalog::{
    AGENTS, FREQUENCIES, GROUPS, NAME_ROLES, POINTS, SERVICE_TYPES, SITE_FREQUENCIES, SITE_KINDS, SITE_TASKS,
    USERS,
};
use crate::config::{Config, World};
use crate::rng::{hash, SplitMix};

/// Records per page of the service task list.
pub(crate) const PAGE_SIZE: usize = 50;
/// Id of the first seeded service task.
pub(crate) const FIRST_SERVICE_TASK: u32 = 10001;
/// Id of the first seeded site task.
pub(crate) const FIRST_SITE_TASK: u32 = 20001;
/// Id of the first created service task (past the most seeded ones).
pub(crate) const FIRST_CREATED_SERVICE_TASK: u64 = 200_001;
/// Id of the first created server task.
pub(crate) const FIRST_SERVER_TASK: u64 = 30001;

// Independent RNG streams, so that e.g. a different `service_tasks` count leaves the
// agents and site tasks unchanged.
const STREAM_SERVICES: u64 = 1;
const STREAM_AGENTS: u64 = 2;
const STREAM_SITES: u64 = 3;

pub(crate) struct ServiceTask {
    pub(crate) id: u32,
    /// Index into [`SERVICE_TYPES`].
    pub(crate) kind: usize,
    pub(crate) frequency: u32,
    /// Per-task load factor so that tasks of one type differ.
    pub(crate) scale: f64,
}

pub(crate) struct SitePoint {
    pub(crate) id: u32,
    pub(crate) name: &'static str,
    /// Stable points never fault, so some points always report `fault: null`.
    pub(crate) flaky: bool,
    /// Typical total response time at this point, milliseconds.
    pub(crate) base_ms: f64,
}

pub(crate) struct SiteTask {
    pub(crate) id: u32,
    pub(crate) frequency: u32,
    /// Its kind (an index of `SITE_KINDS`).
    pub(crate) kind: usize,
    pub(crate) points: Vec<SitePoint>,
    /// Index into `points` of the point whose fault is ongoing today.
    pub(crate) ongoing_point: usize,
    /// Minute of the local day at which today's ongoing fault began.
    pub(crate) ongoing_minute: u32,
}

pub(crate) struct Seeded {
    pub(crate) seed: u64,
    /// Whose faults the site reports show.
    pub(crate) world: World,
    service_tasks: Vec<ServiceTask>,
    /// The service task list's records, in the order of `service_tasks`.
    listed_services: Vec<ListedTask>,
    pages: Vec<Bytes>,
    pub(crate) agents: Bytes,
    pub(crate) plugin_ids: HashSet<String>,
    sites: Vec<SiteTask>,
    /// The site task list's records, in the order of `sites`.
    listed_sites: Vec<Value>,
    /// The pages of the site task list.
    site_pages: Vec<Listing>,
    /// Each site task's settings (`/v2/site/info/{id}.json`), in the order of `sites`.
    site_infos: Vec<Bytes>,
    pub(crate) monitors: Listing,
    pub(crate) users: Listing,
    pub(crate) groups: Listing,
}

/// A list as the service may send it: a JSON list, or a PHP keyed array (an object keyed by
/// the records' ids), as the `keyed_lists` quirk chooses.
pub(crate) struct Listing {
    pub(crate) list: Bytes,
    pub(crate) keyed: Bytes,
}

impl Listing {
    /// `records` as a list, and keyed by their field `id`.
    fn of(records: &[Value], id: &str) -> Listing {
        let records: Vec<&Value> = records.iter().collect();
        Listing {
            list: list_body(&records, id, false),
            keyed: list_body(&records, id, true),
        }
    }

    /// The body, as a list or keyed.
    pub(crate) fn body(&self, keyed: bool) -> Bytes {
        if keyed {
            self.keyed.clone()
        } else {
            self.list.clone()
        }
    }
}

/// `records` as a JSON list, or as a PHP keyed array: an object keyed by their field `id`.
fn list_body(records: &[&Value], id: &str, keyed: bool) -> Bytes {
    let bytes = if keyed {
        let keyed: Map<String, Value> = records
            .iter()
            .map(|record| {
                let key = record[id].as_str().unwrap_or_default().to_string();
                (key, (*record).clone())
            })
            .collect();
        serde_json::to_vec(&keyed)
    } else {
        serde_json::to_vec(records)
    };
    Bytes::from(bytes.expect("json values serialize"))
}

/// The records of page `page` (from 1) of a list without the tasks whose ids are in `removed`
/// (`records[i]` is task `first + i`); `None` past the last page.
fn page_without<'a, T>(
    records: &'a [T],
    first: u32,
    removed: &BTreeSet<u32>,
    page: u64,
) -> Option<Vec<&'a T>> {
    let skip = usize::try_from(page.checked_sub(1)?)
        .ok()?
        .checked_mul(PAGE_SIZE)
        .filter(|&skip| skip < records.len())?;
    // The index of the first record of the page: each removed task before it pushes it on.
    let mut start = skip;
    for &id in removed {
        let index = (id - first) as usize;
        if index > start {
            break;
        }
        start += 1;
    }
    let records: Vec<&T> = records
        .get(start..)?
        .iter()
        .zip(first + start as u32..)
        .filter(|(_, id)| !removed.contains(id))
        .map(|(record, _)| record)
        .take(PAGE_SIZE)
        .collect();
    (!records.is_empty()).then_some(records)
}

#[derive(Serialize)]
struct ListedTask {
    task_id: String,
    task_name: String,
    task_type: &'static str,
    frequency: String,
    last_check_time: String,
    task_status: &'static str,
}

impl Seeded {
    /// `today` (in the emulator's time zone) anchors `last_check_time` in the task list.
    pub(crate) fn new(config: &Config, today: NaiveDate) -> Seeded {
        let seed = config.seed;
        let (service_tasks, listed_services) = service_tasks(seed, config.service_tasks, today);
        let pages = listed_services
            .chunks(PAGE_SIZE)
            .map(|page| Bytes::from(serde_json::to_vec(page).expect("plain strings serialize")))
            .collect();
        let (agents, plugin_ids) = agents(seed, config.download_url.trim_end_matches('/'));
        let sites = site_tasks(seed, config.site_tasks, config.site_points);
        let listed_sites: Vec<Value> = sites.iter().map(|site| listed_site(site, today)).collect();
        let site_pages = listed_sites
            .chunks(PAGE_SIZE)
            .map(|page| Listing::of(page, "task_id"))
            .collect();
        let site_infos = sites
            .iter()
            .zip(&listed_sites)
            .map(|(site, listed)| Bytes::from(serde_json::to_vec(&site_info(site, listed)).expect("json")))
            .collect();
        Seeded {
            seed,
            world: config.world,
            service_tasks,
            listed_services,
            pages,
            agents,
            plugin_ids,
            sites,
            listed_sites,
            site_pages,
            site_infos,
            monitors: Listing::of(&monitors(), "monitor_id"),
            users: Listing::of(&users(), "user_id"),
            groups: Listing::of(&groups(), "organization_id"),
        }
    }

    pub(crate) fn service_task(&self, id: u64) -> Option<&ServiceTask> {
        let index = id.checked_sub(FIRST_SERVICE_TASK as u64)?;
        self.service_tasks.get(usize::try_from(index).ok()?)
    }

    pub(crate) fn site(&self, id: u64) -> Option<&SiteTask> {
        self.sites.get(self.site_index(id)?)
    }

    /// How many service tasks there are (ids from 10001).
    pub(crate) fn service_count(&self) -> usize {
        self.service_tasks.len()
    }

    /// How many site tasks there are (ids from 20001).
    pub(crate) fn site_count(&self) -> usize {
        self.sites.len()
    }

    /// Site tasks have the ids from 20001 on, in order.
    fn site_index(&self, id: u64) -> Option<usize> {
        let index = usize::try_from(id.checked_sub(FIRST_SITE_TASK as u64)?).ok()?;
        (index < self.sites.len()).then_some(index)
    }

    /// A page (from 1) of the site task list, or `None` past the last one.
    pub(crate) fn site_page(&self, page: u64) -> Option<&Listing> {
        self.site_pages.get(usize::try_from(page.checked_sub(1)?).ok()?)
    }

    /// The settings of site task `id`.
    pub(crate) fn site_info(&self, id: u64) -> Option<Bytes> {
        self.site_infos.get(self.site_index(id)?).cloned()
    }

    /// Page `page` (1-based) of the task list; `None` past the end.
    pub(crate) fn page(&self, page: u64) -> Option<Bytes> {
        let index = usize::try_from(page.checked_sub(1)?).ok()?;
        self.pages.get(index).cloned()
    }

    /// Page `page` of the service task list without the tasks of `removed` (ids); `None` past
    /// the end.
    pub(crate) fn page_without(&self, page: u64, removed: &BTreeSet<u32>) -> Option<Bytes> {
        let records = page_without(&self.listed_services, FIRST_SERVICE_TASK, removed, page)?;
        Some(Bytes::from(
            serde_json::to_vec(&records).expect("plain strings serialize"),
        ))
    }

    /// Page `page` of the site task list without the tasks of `removed` (ids), as a list or
    /// keyed; `None` past the end.
    pub(crate) fn site_page_without(&self, page: u64, removed: &BTreeSet<u32>, keyed: bool) -> Option<Bytes> {
        let records = page_without(&self.listed_sites, FIRST_SITE_TASK, removed, page)?;
        Some(list_body(&records, "task_id", keyed))
    }
}

fn service_tasks(seed: u64, count: usize, today: NaiveDate) -> (Vec<ServiceTask>, Vec<ListedTask>) {
    let mut rng = SplitMix::new(hash(&[seed, STREAM_SERVICES]));
    // The first eight tasks are a permutation of the types, each with frequency 1, so
    // every type has a one-minute task (multi-megabyte reports for benchmarks).
    let mut first_kinds: Vec<usize> = (0..SERVICE_TYPES.len()).collect();
    rng.shuffle(&mut first_kinds);
    let yesterday = today - Days::new(1);
    let mut tasks = Vec::with_capacity(count);
    let mut listed = Vec::with_capacity(count);
    for i in 0..count {
        let id = FIRST_SERVICE_TASK + i as u32;
        let (kind, frequency) = match first_kinds.get(i) {
            Some(&kind) => (kind, 1),
            None => (
                rng.below(SERVICE_TYPES.len() as u64) as usize,
                rng.pick(FREQUENCIES),
            ),
        };
        let paused = i >= SERVICE_TYPES.len() && rng.unit() < 0.06;
        let name = format!(
            "{}-{}-{:02}",
            SERVICE_TYPES[kind].name,
            rng.pick(NAME_ROLES),
            rng.range(1, 20)
        );
        // Enabled tasks last ran at yesterday's final check; paused ones some days earlier.
        let (day, minute) = if paused {
            let day = yesterday - Days::new(rng.range(1, 30));
            (day, rng.below((1440 / frequency) as u64) as u32 * frequency)
        } else {
            (yesterday, 1440 - frequency)
        };
        listed.push(ListedTask {
            task_id: id.to_string(),
            task_name: name,
            task_type: SERVICE_TYPES[kind].name,
            frequency: frequency.to_string(),
            last_check_time: format!(
                "{} {:02}:{:02}:00",
                day.format("%Y-%m-%d"),
                minute / 60,
                minute % 60
            ),
            task_status: if paused { "暂停" } else { "启用" },
        });
        tasks.push(ServiceTask {
            id,
            kind,
            frequency,
            scale: 0.5 + rng.unit() * 1.5,
        });
    }
    (tasks, listed)
}

/// The agent list as served, and the set of plugin_task_uselist_id values that create
/// accepts.
fn agents(seed: u64, download_url: &str) -> (Bytes, HashSet<String>) {
    let mut rng = SplitMix::new(hash(&[seed, STREAM_AGENTS]));
    let mut next_use_id = 9001;
    let mut plugin_ids = HashSet::new();
    let mut list = Map::new();
    for (n, &(agent_id, name)) in AGENTS.iter().enumerate() {
        let key = format!("{:016x}", rng.next_u64());
        // The second agent has no plugins (an agent just installed).
        let plugin_count = if n == 1 { 0 } else { rng.range(2, 4) as usize };
        let mut kinds: Vec<usize> = (0..SERVICE_TYPES.len()).collect();
        rng.shuffle(&mut kinds);
        let plugins: Vec<Value> = kinds[..plugin_count]
            .iter()
            .map(|&kind| {
                let use_id = next_use_id.to_string();
                next_use_id += 1;
                plugin_ids.insert(use_id.clone());
                json!({
                    "plugin_id": (kind + 1).to_string(),
                    "plugin_name": SERVICE_TYPES[kind].name,
                    "plugin_task_uselist_id": use_id,
                })
            })
            .collect();
        list.insert(
            agent_id.to_string(),
            json!({
                "name": name,
                "agentUrl": {
                    "windows": format!("{download_url}/agent/windows/{key}/agent.zip"),
                    "linux": format!("{download_url}/agent/linux/{key}/agent.tar.gz"),
                },
                "plugin": plugins,
            }),
        );
    }
    let bytes = serde_json::to_vec(&Value::Object(list)).expect("json values serialize");
    (Bytes::from(bytes), plugin_ids)
}

fn site_tasks(seed: u64, count: usize, points: Option<usize>) -> Vec<SiteTask> {
    let mut rng = SplitMix::new(hash(&[seed, STREAM_SITES]));
    let frequencies = SITE_TASKS
        .iter()
        .map(|&(_, frequency)| frequency)
        .chain(SITE_FREQUENCIES.iter().copied().cycle());
    (FIRST_SITE_TASK..)
        .zip(frequencies)
        .take(count)
        .map(|(id, frequency)| {
            let mut all: Vec<usize> = (0..POINTS.len()).collect();
            rng.shuffle(&mut all);
            // Drawn even when the count is fixed, so that the rest of the world stays as the seed
            // makes it.
            let drawn = rng.range(4, 6) as usize;
            let mut chosen = all[..points.unwrap_or(drawn)].to_vec();
            chosen.sort_unstable();
            let mut points: Vec<SitePoint> = chosen
                .iter()
                .map(|&p| SitePoint {
                    id: POINTS[p].id,
                    name: POINTS[p].name,
                    flaky: rng.unit() < 0.5,
                    base_ms: 80.0 + rng.unit() * 320.0,
                })
                .collect();
            // At least one stable point (so `fault: null` appears and the average always
            // has a live point) and at least one flaky point (for the ongoing fault).
            points[0].flaky = false;
            let last = points.len() - 1;
            points[last].flaky = true;
            let flaky: Vec<usize> = (0..points.len()).filter(|&i| points[i].flaky).collect();
            let ongoing_point = rng.pick(&flaky);
            let checks_per_day = 1440 / frequency;
            // Somewhere between 06:00 and 12:00.
            let ongoing_check = rng.range(checks_per_day as u64 / 4, checks_per_day as u64 / 2) as u32;
            SiteTask {
                id,
                frequency,
                kind: (id - FIRST_SITE_TASK) as usize % SITE_KINDS.len(),
                points,
                ongoing_point,
                ongoing_minute: ongoing_check * frequency,
            }
        })
        .collect()
}

/// A site task as the site task list shows it (the field names of the service's v1 and v6
/// APIs; the values strings, as PHP sends them). The last check was yesterday's last one.
fn listed_site(site: &SiteTask, today: NaiveDate) -> Value {
    let (kind, status) = SITE_KINDS[site.kind];
    let number = site.id - FIRST_SITE_TASK + 1;
    let last_minute = 1440 - site.frequency;
    let created =
        NaiveDate::from_ymd_opt(2024, 1, 1).expect("a date") + Days::new(u64::from(number) * 3 % 600);
    json!({
        "task_id": site.id.to_string(),
        "task_name": format!("site-{number:02}"),
        "task_summary": format!("https://www.example-{number:02}.com/"),
        "task_type": kind,
        "task_create_time": format!("{} 09:30:00", created.format("%Y-%m-%d")),
        "frequency": site.frequency.to_string(),
        "task_status": "启用",
        "group_id": "0",
        "last_resp_time": format!("{:.6}", site.points[0].base_ms),
        "last_resp_result": "1",
        "last_resp_status": status,
        "threshold_result": "0",
        "last_check_time": format!(
            "{} {:02}:{:02}:00",
            (today - Days::new(1)).format("%Y-%m-%d"),
            last_minute / 60,
            last_minute % 60
        ),
    })
}

/// A site task's settings: what the list shows, and the monitoring points it uses.
fn site_info(site: &SiteTask, listed: &Value) -> Value {
    let mut info = listed.clone();
    let points: Vec<Value> = site
        .points
        .iter()
        .map(|point| json!({"monitor_id": point.id.to_string(), "monitor_name": point.name}))
        .collect();
    info["monitors"] = Value::Array(points);
    info
}

/// The monitoring point list.
fn monitors() -> Vec<Value> {
    POINTS
        .iter()
        .map(|p| {
            json!({
                "monitor_id": p.id.to_string(),
                "monitor_name": p.name,
                "isp_id": p.isp_id.to_string(),
                "isp_name": p.isp_name,
                "location_code": p.location_code,
                "location_name": p.location_name,
                "china_region": p.china_region,
                "world_region": p.world_region,
            })
        })
        .collect()
}

/// The user list; signup and last visit are fixed unix times.
fn users() -> Vec<Value> {
    USERS
        .iter()
        .map(|user| {
            let organization: Vec<Value> = user
                .groups
                .iter()
                .map(|group| {
                    let (_, name, _) = GROUPS.iter().find(|(g, ..)| g == group).expect("a known group");
                    json!({"organization_id": group.to_string(), "organization_name": name})
                })
                .collect();
            let id = user.id;
            json!({
                "user_id": id.to_string(),
                "user_email": user.email,
                "user_name": user.name,
                "user_status": user.status.to_string(),
                "mobile": format!("1380000{id:04}"),
                "telephone": "",
                "signup_time": (1_700_000_000 + u64::from(id) * 86_400).to_string(),
                "last_visit_time": (1_790_000_000 + u64::from(id) * 3_600).to_string(),
                "role_id": user.role.to_string(),
                "organization": organization,
            })
        })
        .collect()
}

/// The user groups, with how many users each holds.
fn groups() -> Vec<Value> {
    GROUPS
        .iter()
        .map(|&(id, name, parent)| {
            let members = USERS.iter().filter(|user| user.groups.contains(&id)).count();
            json!({
                "organization_id": id.to_string(),
                "organization_name": name,
                "parent_organization_id": parent.to_string(),
                "user_num": members.to_string(),
            })
        })
        .collect()
}
