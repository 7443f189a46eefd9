//! The account's lists that the service's documentation names without describing them: site
//! tasks, monitoring points, users and user groups. Their field names are those of the API's
//! v1 and v6 generations (the v2 names are unpublished); every field is optional, values are
//! read tolerantly (numbers or strings), and fields not listed are kept as sent.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::de;

/// One site monitoring task (an item of the site task list, or the settings of one task).
///
/// ```
/// let json = r#"{"task_id":"20001","task_name":"官网","task_type":"http","frequency":"5",
///                "last_resp_time":"163.735571","last_resp_status":"HTTP OK"}"#;
/// let task: monapi::SiteTask = serde_json::from_str(json).unwrap();
/// assert_eq!((task.task_id, task.frequency, task.last_resp_time), (20001, Some(5), Some(163.735571)));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteTask {
    /// Task id (used by [`Client::site_report`](crate::Client::site_report)).
    #[serde(deserialize_with = "de::whole")]
    pub task_id: u64,
    /// Task name.
    #[serde(default, deserialize_with = "de::text")]
    pub task_name: String,
    /// What it checks (its address, for a web site).
    #[serde(default, deserialize_with = "de::text")]
    pub task_summary: String,
    /// Kind of check: `http`, `https`, `ping`, `dns`, ...
    #[serde(default, deserialize_with = "de::text")]
    pub task_type: String,
    /// When it was created, `YYYY-MM-DD HH:MM:SS`, as sent.
    #[serde(default, deserialize_with = "de::text")]
    pub task_create_time: String,
    /// Minutes between checks.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub frequency: Option<u32>,
    /// Status text (the service's word for enabled is `启用`).
    #[serde(default, deserialize_with = "de::text")]
    pub task_status: String,
    /// The group it belongs to.
    #[serde(default, deserialize_with = "de::opt_whole")]
    pub group_id: Option<u64>,
    /// Response time of the last check, in milliseconds.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub last_resp_time: Option<f64>,
    /// Result of the last check (`1`: it succeeded).
    #[serde(default, deserialize_with = "de::opt_number")]
    pub last_resp_result: Option<i64>,
    /// Status text of the last check (`HTTP OK`, `PING OK`).
    #[serde(default, deserialize_with = "de::text")]
    pub last_resp_status: String,
    /// Whether the last check passed its thresholds, as the service codes it.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub threshold_result: Option<i64>,
    /// Time of the last check, `YYYY-MM-DD HH:MM:SS`, as sent.
    #[serde(default, deserialize_with = "de::text")]
    pub last_check_time: String,
    /// Fields not listed here (a task's settings hold its monitoring points), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A monitoring point of the account: where checks run from.
///
/// ```
/// let json = r#"{"monitor_id":"1","monitor_name":"北京电信","isp_name":"电信"}"#;
/// let point: monapi::MonitorPoint = serde_json::from_str(json).unwrap();
/// assert_eq!((point.monitor_id, point.isp_name.as_str()), (1, "电信"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MonitorPoint {
    /// Its id (site reports key their points by it).
    #[serde(deserialize_with = "de::number")]
    pub monitor_id: u32,
    /// Its name: city and carrier (`陕西西安电信`).
    #[serde(default, deserialize_with = "de::text")]
    pub monitor_name: String,
    /// The carrier's id.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub isp_id: Option<u32>,
    /// The carrier (`电信`, `联通`, `移动`).
    #[serde(default, deserialize_with = "de::text")]
    pub isp_name: String,
    /// The code of its location.
    #[serde(default, deserialize_with = "de::text")]
    pub location_code: String,
    /// Its location (a city).
    #[serde(default, deserialize_with = "de::text")]
    pub location_name: String,
    /// Its region of China (`华北`...).
    #[serde(default, deserialize_with = "de::text")]
    pub china_region: String,
    /// Its region of the world.
    #[serde(default, deserialize_with = "de::text")]
    pub world_region: String,
    /// Fields not listed here, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A user of the account; its id is what a task's `alert_setting` names.
///
/// ```
/// let json = r#"{"user_id":"101","user_email":"a@example.com","user_status":"1","role_id":"2",
///                "organization":[{"organization_id":"1","organization_name":"运维部"}]}"#;
/// let user: monapi::User = serde_json::from_str(json).unwrap();
/// assert_eq!((user.user_id, user.role_id, user.organization[0].organization_id), (101, Some(2), 1));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// Its id.
    #[serde(deserialize_with = "de::number")]
    pub user_id: u64,
    /// Its e-mail address (the login).
    #[serde(default, deserialize_with = "de::text")]
    pub user_email: String,
    /// Its name.
    #[serde(default, deserialize_with = "de::text")]
    pub user_name: String,
    /// `0` paused, `1` normal, `2` deleted.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub user_status: Option<u8>,
    /// Mobile phone.
    #[serde(default, deserialize_with = "de::text")]
    pub mobile: String,
    /// Telephone.
    #[serde(default, deserialize_with = "de::text")]
    pub telephone: String,
    /// When it signed up (unix seconds, of the years 1 to 9999: another time is an error).
    #[serde(default, deserialize_with = "signup_time")]
    pub signup_time: Option<i64>,
    /// Its last visit (unix seconds, of the years 1 to 9999: another time is an error).
    #[serde(default, deserialize_with = "last_visit_time")]
    pub last_visit_time: Option<i64>,
    /// `1` administrator, `2` advanced, `3` read-only.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub role_id: Option<u8>,
    /// The groups it belongs to.
    #[serde(default, deserialize_with = "de::records")]
    pub organization: Vec<GroupRef>,
    /// Fields not listed here, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn signup_time<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    de::opt_time(d, "signup_time")
}

fn last_visit_time<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    de::opt_time(d, "last_visit_time")
}

/// A group a [`User`] belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupRef {
    /// The group's id.
    #[serde(deserialize_with = "de::number")]
    pub organization_id: u64,
    /// Its name.
    #[serde(default, deserialize_with = "de::text")]
    pub organization_name: String,
    /// Fields not listed here, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A user group ("organization"); its id is what a task's `organization` names.
///
/// ```
/// let json = r#"{"organization_id":"2","organization_name":"研发部","parent_organization_id":"0","user_num":"3"}"#;
/// let group: monapi::UserGroup = serde_json::from_str(json).unwrap();
/// assert_eq!((group.organization_id, group.user_num), (2, Some(3)));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserGroup {
    /// Its id.
    #[serde(deserialize_with = "de::number")]
    pub organization_id: u64,
    /// Its name.
    #[serde(default, deserialize_with = "de::text")]
    pub organization_name: String,
    /// The group it belongs to (`0`: none).
    #[serde(default, deserialize_with = "de::opt_number")]
    pub parent_organization_id: Option<u64>,
    /// How many users it holds.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub user_num: Option<u64>,
    /// Fields not listed here, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
