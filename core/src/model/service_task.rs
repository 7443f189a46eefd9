//! Service monitoring tasks for the create operation (`POST /v2/service/create.json`), with
//! the rules of the service's v2 documentation checked before anything is sent: the fields of
//! every type, then those of the task's type, every problem of a batch at once.

use std::net::IpAddr;
use std::sync::OnceLock;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::server_task::{AlertSetting, Scope, FREQUENCY_RANGE};
use crate::{Error, Problem, Result, Secret};

/// The kinds of service a service task can monitor, by the service's names.
const TYPES: [(ServiceType, &str); 11] = [
    (ServiceType::Apache, "apache"),
    (ServiceType::Lighttpd, "lighttpd"),
    (ServiceType::Nginx, "nginx"),
    (ServiceType::Mongodb, "mongodb"),
    (ServiceType::Redis, "redis"),
    (ServiceType::Memcache, "memcache"),
    (ServiceType::Mysql, "mysql"),
    (ServiceType::Tomcat, "tomcat"),
    (ServiceType::Iis, "iis"),
    (ServiceType::Sqlserver, "sqlserver"),
    (ServiceType::Oracle, "oracle"),
];

/// The fields of every type, as read (`organization` and `user_ids` go with `open_scope`).
const COMMON: [&str; 9] = [
    "task_name",
    "task_type",
    "frequency",
    "use_agent",
    "plugin_task_uselist_id",
    "alert_setting",
    "open_scope",
    "organization",
    "user_ids",
];

/// The fields of some types: **the one declaration** of which type requires which (no other
/// type takes it), how each is read, kept and checked, in the order they are checked and
/// sent.
const SPECIFIC: [Specific; 7] = {
    use ServiceType::*;
    [
        Specific {
            name: "status_url",
            types: &[Apache, Lighttpd, Nginx, Mongodb, Redis, Memcache, Tomcat],
            kind: Kind::Address,
            get: |t| t.status_url.clone(),
            set: |t, v| t.status_url = Some(v),
        },
        Specific {
            name: "ip",
            types: &[Mysql, Sqlserver],
            kind: Kind::Ip,
            get: |t| t.ip.clone(),
            set: |t, v| t.ip = Some(v),
        },
        Specific {
            name: "port",
            types: &[Mysql, Sqlserver],
            kind: Kind::Port,
            get: |t| t.port.map(|p| p.to_string()),
            set: |t, v| t.port = v.trim().parse().ok(),
        },
        Specific {
            name: "user",
            types: &[Mysql, Tomcat, Sqlserver, Oracle],
            kind: Kind::Text,
            get: |t| t.user.clone(),
            set: |t, v| t.user = Some(v),
        },
        Specific {
            name: "password",
            types: &[Mysql, Tomcat, Sqlserver, Oracle],
            kind: Kind::Secret,
            get: |t| t.password.as_ref().map(|p| p.expose().to_string()),
            set: |t, v| t.password = Some(Secret::new(v)),
        },
        Specific {
            name: "appname",
            types: &[Tomcat, Sqlserver, Oracle],
            kind: Kind::Text,
            get: |t| t.app_name.clone(),
            set: |t, v| t.app_name = Some(v),
        },
        Specific {
            name: "logPath",
            types: &[Iis],
            kind: Kind::Text,
            get: |t| t.log_path.clone(),
            set: |t, v| t.log_path = Some(v),
        },
    ]
};

/// A field of some types (see [`SPECIFIC`]).
struct Specific {
    /// The service's name.
    name: &'static str,
    /// The types that take it, and require it.
    types: &'static [ServiceType],
    kind: Kind,
    /// Its value as text, when given (the password's too: for the checks and the request).
    get: fn(&NewServiceTask) -> Option<String>,
    /// Keeps a value read (a port once it is known to be a whole number).
    set: fn(&mut NewServiceTask, String),
}

/// What a value of a [`Specific`] field is: every one is a scalar, not empty, without control
/// characters (but the password, which may hold anything and is never shown).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Text,
    /// An `http://` or `https://` address.
    Address,
    /// An IPv4 or IPv6 address.
    Ip,
    /// A port number, 1 to 65535, read as a whole number.
    Port,
    /// A secret.
    Secret,
}

/// The kind of service a service task monitors (`task_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServiceType {
    /// `apache`: needs `status_url`.
    Apache,
    /// `lighttpd`: needs `status_url`.
    Lighttpd,
    /// `nginx`: needs `status_url`.
    Nginx,
    /// `mongodb`: needs `status_url`.
    Mongodb,
    /// `redis`: needs `status_url`.
    Redis,
    /// `memcache`: needs `status_url`.
    Memcache,
    /// `mysql`: needs `ip`, `port`, `user` and `password`.
    Mysql,
    /// `tomcat`: needs `status_url`, `user`, `password` and `appname`.
    Tomcat,
    /// `iis`: needs `logPath`.
    Iis,
    /// `sqlserver`: needs `ip`, `port`, `user`, `password` and `appname`.
    Sqlserver,
    /// `oracle`: needs `user`, `password` and `appname`.
    Oracle,
}

impl ServiceType {
    /// The name the service uses (`mysql`).
    pub fn name(self) -> &'static str {
        TYPES
            .iter()
            .find(|(t, _)| *t == self)
            .map(|(_, name)| *name)
            .unwrap_or_default()
    }

    /// The fields a task of this type needs besides those of every type, as the service names
    /// them.
    ///
    /// ```
    /// assert_eq!(monapi::ServiceType::Oracle.fields(), ["user", "password", "appname"]);
    /// ```
    pub fn fields(self) -> &'static [&'static str] {
        // Read from `SPECIFIC` once per process.
        static FIELDS: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
        let fields = FIELDS.get_or_init(|| {
            TYPES
                .iter()
                .map(|(kind, _)| {
                    SPECIFIC
                        .iter()
                        .filter(|field| field.types.contains(kind))
                        .map(|field| field.name)
                        .collect()
                })
                .collect()
        });
        TYPES
            .iter()
            .position(|(t, _)| *t == self)
            .map_or(&[], |i| fields[i].as_slice())
    }

    /// The type the service calls `name`.
    pub fn parse(name: &str) -> Option<ServiceType> {
        TYPES.iter().find(|(_, n)| *n == name.trim()).map(|(t, _)| *t)
    }
}

/// Who sees a service task created without alerts (`open_scope`, with `organization` or
/// `user_ids` as its scope needs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenScope {
    /// Who sees the task.
    pub scope: Scope,
    /// The user group; required with [`Scope::UserGroup`].
    pub organization: Option<String>,
    /// The users; required with [`Scope::SelectedUsers`].
    pub user_ids: Vec<String>,
}

/// One service monitoring task of a create batch.
///
/// Build one with [`NewServiceTask::new`] (every field its type does not need, and every
/// optional one, takes its default) and set the fields its type needs;
/// [`NewServiceTask::batch_from_json`] reads a batch from loosely typed JSON (as Python dicts
/// and JavaScript objects arrive). The service's rules are checked before anything is sent,
/// every problem named. `password` is a secret: it never appears in an error, `Debug` or a
/// log line.
///
/// ```
/// use monapi::{NewServiceTask, ServiceType};
/// let mut task = NewServiceTask::new("db-main", ServiceType::Mysql);
/// task.ip = Some("10.0.0.5".into());
/// task.port = Some(3306);
/// task.user = Some("monitor".into());
/// task.password = Some("s3cret".into());
/// task.validate().unwrap();
/// assert!(!format!("{task:?}").contains("s3cret"));
/// task.port = None;
/// assert_eq!(task.validate().unwrap_err().field(), Some("port"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewServiceTask {
    /// Task name; must not be empty.
    pub task_name: String,
    /// The kind of service.
    pub task_type: ServiceType,
    /// Minutes between checks, in [`FREQUENCY_RANGE`] (default 5).
    pub frequency: u32,
    /// Whether agent plugins collect the data (default no); when true,
    /// `plugin_task_uselist_id` must name at least one plugin.
    pub use_agent: bool,
    /// Plugin association ids (from the agent list).
    pub plugin_task_uselist_id: Vec<String>,
    /// Alerts (default: no recipients, visible to the creator only), or, with `open_scope`,
    /// none.
    pub alert_setting: Option<AlertSetting>,
    /// Who sees a task without alerts; give it instead of `alert_setting`.
    pub open_scope: Option<OpenScope>,
    /// The status page, an `http://` or `https://` address (apache, lighttpd, nginx, mongodb,
    /// redis, memcache, tomcat).
    pub status_url: Option<String>,
    /// The server's address (mysql, sqlserver).
    pub ip: Option<String>,
    /// The server's port (mysql, sqlserver).
    pub port: Option<u32>,
    /// The monitoring account (mysql, tomcat, sqlserver, oracle).
    pub user: Option<String>,
    /// The monitoring account's password (mysql, tomcat, sqlserver, oracle). A secret.
    pub password: Option<Secret>,
    /// The application or instance name (`appname`: tomcat, sqlserver, oracle).
    pub app_name: Option<String>,
    /// The log directory (`logPath`: iis).
    pub log_path: Option<String>,
}

impl NewServiceTask {
    /// A task of `task_type` with the defaults of every optional field: every 5 minutes, no
    /// agent plugins, alerts for the creator only, and none of the fields of its type yet.
    pub fn new(task_name: impl Into<String>, task_type: ServiceType) -> NewServiceTask {
        NewServiceTask {
            task_name: task_name.into(),
            task_type,
            frequency: 5,
            use_agent: false,
            plugin_task_uselist_id: Vec::new(),
            alert_setting: None,
            open_scope: None,
            status_url: None,
            ip: None,
            port: None,
            user: None,
            password: None,
            app_name: None,
            log_path: None,
        }
    }

    /// Checks the service's rules.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming every field that breaks a
    /// rule, with the rule: a field its task type requires is one when it is left out.
    pub fn validate(&self) -> Result<()> {
        Problem::into_result(self.problems(None))
    }

    /// Checks every task of a batch.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `tasks` when the batch is
    /// empty; otherwise naming every problem, as [`validate`](NewServiceTask::validate) does,
    /// with its task's index in `tasks`, task by task.
    pub fn validate_batch(tasks: &[NewServiceTask]) -> Result<()> {
        if tasks.is_empty() {
            return Err(Error::invalid_input(None, "tasks", "must hold at least one task"));
        }
        Problem::into_result(
            tasks
                .iter()
                .enumerate()
                .flat_map(|(i, t)| t.problems(Some(i)))
                .collect(),
        )
    }

    /// The passwords of the batch's tasks (kept out of every text the client shows).
    pub(crate) fn secrets(tasks: &[NewServiceTask]) -> impl Iterator<Item = &Secret> {
        tasks.iter().filter_map(|task| task.password.as_ref())
    }

    /// Reads a batch from loosely typed JSON: scalars as strings or numbers, left-out optional
    /// fields taking the defaults of [`NewServiceTask::new`]; then checks it.
    ///
    /// ```
    /// let json = serde_json::json!([
    ///     { "task_name": "web", "task_type": "nginx", "status_url": "http://10.0.0.1/status" },
    ///     { "task_name": "db", "task_type": "mysql", "ip": "10.0.0.2", "port": "3306" },
    /// ]);
    /// let err = monapi::NewServiceTask::batch_from_json(json).unwrap_err();
    /// let problems: Vec<_> = err.problems().iter().map(|p| (p.index, p.field.as_str())).collect();
    /// assert_eq!(problems, [(Some(1), "user"), (Some(1), "password")]);
    /// ```
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `tasks` when `value` is
    /// not a list or is an empty one; otherwise naming every problem, a value of the wrong type
    /// or a broken rule, with the task's index and the field, task by task.
    pub fn batch_from_json(value: Value) -> Result<Vec<NewServiceTask>> {
        let items = super::de::batch_items(&value)?;
        let mut problems = Vec::new();
        let mut tasks = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match read(item, Some(i)) {
                Ok(task) => {
                    problems.extend(task.problems(Some(i)));
                    tasks.push(task);
                }
                Err(read_problems) => problems.extend(read_problems),
            }
        }
        Problem::into_result(problems)?;
        Ok(tasks)
    }

    /// Every broken rule, in the order the fields are checked.
    fn problems(&self, index: Option<usize>) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut problem = |field: &str, rule: String| problems.push(Problem::new(index, field, rule));
        if self.task_name.trim().is_empty() {
            problem("task_name", "is required and must not be empty".into());
        } else if self.task_name.chars().any(char::is_control) {
            problem("task_name", CONTROL.into());
        }
        if !FREQUENCY_RANGE.contains(&self.frequency) {
            problem("frequency", frequency_rule(self.frequency));
        }
        if self.use_agent && self.plugin_task_uselist_id.is_empty() {
            problem(
                "plugin_task_uselist_id",
                "must name at least one plugin (from the agent list) when use_agent is 1".into(),
            );
        }
        match (&self.alert_setting, &self.open_scope) {
            (Some(_), Some(_)) => problem(
                "open_scope",
                "cannot be given with alert_setting: give alert_setting (alerts) or open_scope (no alerts)"
                    .into(),
            ),
            (Some(setting), None) => {
                if setting.scope == Scope::UserGroup && setting.organization.is_none() {
                    problem(
                        "alert_setting.organization",
                        "is required when scope is 2 (a user group)".into(),
                    );
                }
                if setting.scope == Scope::SelectedUsers && setting.user_ids.is_empty() {
                    problem(
                        "alert_setting.user_ids",
                        "must name at least one user when scope is 4".into(),
                    );
                }
            }
            (None, Some(open)) => {
                if open.scope == Scope::UserGroup && open.organization.is_none() {
                    problem(
                        "organization",
                        "is required when open_scope is 2 (a user group)".into(),
                    );
                }
                if open.scope == Scope::SelectedUsers && open.user_ids.is_empty() {
                    problem(
                        "user_ids",
                        "must name at least one user when open_scope is 4".into(),
                    );
                }
            }
            (None, None) => {}
        }
        let kind = self.task_type.name();
        for field in &SPECIFIC {
            match (field.types.contains(&self.task_type), (field.get)(self)) {
                (true, None) => problem(field.name, format!("is required for a {kind} task")),
                (false, Some(_)) => problem(
                    field.name,
                    format!(
                        "is not a field of a {kind} task (its own are {})",
                        self.task_type.fields().join(", ")
                    ),
                ),
                (true, Some(value)) => {
                    if let Some(rule) = field.kind.broken_by(&value) {
                        problem(field.name, rule);
                    }
                }
                (false, None) => {}
            }
        }
        problems
    }
}

const CONTROL: &str = "must not contain control characters (such as NUL or a line break)";

fn frequency_rule(value: impl std::fmt::Display) -> String {
    format!(
        "must be a whole number of minutes from {} to {}, not {value}",
        FREQUENCY_RANGE.start(),
        FREQUENCY_RANGE.end()
    )
}

impl Kind {
    /// The rule a given value breaks, if any (never showing a password).
    fn broken_by(self, value: &str) -> Option<String> {
        if value.trim().is_empty() {
            return Some("must not be empty".into());
        }
        if self != Kind::Secret && value.chars().any(char::is_control) {
            return Some(CONTROL.into());
        }
        match self {
            Kind::Address => {
                let rest = value
                    .strip_prefix("http://")
                    .or_else(|| value.strip_prefix("https://"));
                let good = rest.is_some_and(|r| {
                    !r.is_empty() && !r.starts_with('/') && !r.contains(char::is_whitespace)
                });
                (!good).then(|| format!("must be an http:// or https:// address, not {value:?}"))
            }
            Kind::Ip => value
                .parse::<IpAddr>()
                .is_err()
                .then(|| format!("must be an IPv4 or IPv6 address, not {value:?}")),
            Kind::Port => value
                .parse::<u32>()
                .ok()
                .filter(|p| (1..=65535).contains(p))
                .is_none()
                .then(|| port_rule(value)),
            Kind::Text | Kind::Secret => None,
        }
    }
}

fn port_rule(value: impl std::fmt::Display) -> String {
    format!("must be a port number from 1 to 65535, not {value}")
}

/// Reads one task object; the problems are what could not be read (its rules are checked by
/// [`NewServiceTask::problems`]).
fn read(value: &Value, index: Option<usize>) -> std::result::Result<NewServiceTask, Vec<Problem>> {
    let Value::Object(object) = value else {
        return Err(vec![Problem::new(
            index,
            "",
            "must be an object with the fields of a service task",
        )]);
    };
    let mut problems = Vec::new();
    let mut problem = |field: &str, rule: String| problems.push(Problem::new(index, field, rule));
    let mut task = NewServiceTask::new(String::new(), ServiceType::Apache);
    let task_type = read_name_and_type(object, &mut task, &mut problem);
    read_settings(object, &mut task, &mut problem);
    read_scope(object, &mut task, &mut problem);
    read_specific(object, &mut task, &mut problem);
    let known = |key: &str| COMMON.contains(&key) || SPECIFIC.iter().any(|field| field.name == key);
    for key in object.keys().filter(|key| !known(key)) {
        problem(
            key,
            "is not a field of a service task (they are task_name, task_type, frequency, use_agent, \
             plugin_task_uselist_id, alert_setting or open_scope with organization and user_ids, \
             and the fields of its type)"
                .into(),
        );
    }
    match (task_type, problems.is_empty()) {
        (Some(task_type), true) => Ok(NewServiceTask { task_type, ..task }),
        _ => Err(problems),
    }
}

/// Something wrong with a field of a task being read: its name and the rule.
type Report<'a> = dyn FnMut(&str, String) + 'a;

/// `task_name` into `task`, and the type (`None` when it is missing or unknown).
fn read_name_and_type(
    object: &Map<String, Value>,
    task: &mut NewServiceTask,
    problem: &mut Report,
) -> Option<ServiceType> {
    match object.get("task_name").map(scalar) {
        Some(Some(name)) => task.task_name = name,
        Some(None) => problem("task_name", "must be a string".into()),
        None => {}
    }
    let names = || TYPES.map(|(_, name)| name).join(", ");
    match object.get("task_type").map(scalar) {
        Some(Some(name)) => ServiceType::parse(&name).or_else(|| {
            problem("task_type", format!("must be one of {}, not {name:?}", names()));
            None
        }),
        _ => {
            problem("task_type", format!("is required: one of {}", names()));
            None
        }
    }
}

/// `frequency`, `use_agent` and `plugin_task_uselist_id` into `task` (left out: the defaults).
fn read_settings(object: &Map<String, Value>, task: &mut NewServiceTask, problem: &mut Report) {
    if let Some(value) = object.get("frequency") {
        match scalar(value).and_then(|t| t.trim().parse::<u32>().ok()) {
            Some(frequency) => task.frequency = frequency,
            None => problem("frequency", frequency_rule(value)),
        }
    }
    match object.get("use_agent").map(scalar) {
        None => {}
        Some(Some(flag)) if matches!(flag.trim(), "1" | "true") => task.use_agent = true,
        Some(Some(flag)) if matches!(flag.trim(), "0" | "false") => task.use_agent = false,
        Some(_) => problem("use_agent", "must be 0 or 1".into()),
    }
    match object.get("plugin_task_uselist_id").map(ids) {
        None => {}
        Some(Some(list)) => task.plugin_task_uselist_id = list,
        Some(None) => problem(
            "plugin_task_uselist_id",
            "must be ids as a string, a number or a list".into(),
        ),
    }
}

/// `alert_setting`, or `open_scope` with `organization` and `user_ids`, into `task`.
fn read_scope(object: &Map<String, Value>, task: &mut NewServiceTask, problem: &mut Report) {
    if let Some(value) = object.get("alert_setting") {
        match serde_json::from_value::<AlertSetting>(value.clone()) {
            Ok(setting) => task.alert_setting = Some(setting),
            Err(error) => problem("alert_setting", error.to_string()),
        }
    }
    if let Some(value) = object.get("open_scope") {
        match serde_json::from_value::<Scope>(value.clone()) {
            Ok(scope) => {
                task.open_scope = Some(OpenScope {
                    scope,
                    organization: object
                        .get("organization")
                        .and_then(scalar)
                        .filter(|o| !o.trim().is_empty()),
                    user_ids: object.get("user_ids").and_then(ids).unwrap_or_default(),
                })
            }
            Err(_) => problem(
                "open_scope",
                "must be 1 (all enterprise users), 2 (a user group), 3 (only the creator) or 4 (selected users)"
                    .into(),
            ),
        }
    }
    if task.open_scope.is_none() {
        for field in ["organization", "user_ids"] {
            if object.contains_key(field) {
                problem(
                    field,
                    "is taken with open_scope only (alert_setting has its own)".into(),
                );
            }
        }
    }
}

/// The [`SPECIFIC`] fields given into `task` (`null` is not given; which the type takes is
/// checked by [`NewServiceTask::problems`]).
fn read_specific(object: &Map<String, Value>, task: &mut NewServiceTask, problem: &mut Report) {
    for field in &SPECIFIC {
        match (field.kind, object.get(field.name)) {
            (_, None) => {}
            (Kind::Port, Some(value)) => match scalar(value).filter(|t| t.trim().parse::<u32>().is_ok()) {
                Some(port) => (field.set)(task, port),
                None => problem(field.name, port_rule(value)),
            },
            (_, Some(Value::Null)) => {}
            (_, Some(value)) => match scalar(value) {
                Some(text) => (field.set)(task, text),
                // Never echo the value: it may be the password.
                None => problem(field.name, "must be a string".into()),
            },
        }
    }
}

/// A scalar as text: a string as it is, a number in its JSON spelling; `None` otherwise.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(if *flag { "1" } else { "0" }.to_string()),
        _ => None,
    }
}

/// Ids from a comma-separated string, a number or a list of them.
fn ids(value: &Value) -> Option<Vec<String>> {
    let pieces: Vec<String> = match value {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().map(scalar).collect::<Option<_>>()?,
        other => vec![scalar(other)?],
    };
    Some(
        pieces
            .iter()
            .flat_map(|piece| piece.split(','))
            .map(|id| id.trim().to_string())
            .filter(|id| !id.is_empty())
            .collect(),
    )
}

/// The task as the service takes it: scalars as strings (as the server create's
/// documentation shows them), ids comma-separated, and only the fields given.
impl Serialize for NewServiceTask {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("task_name", &self.task_name)?;
        map.serialize_entry("task_type", self.task_type.name())?;
        map.serialize_entry("frequency", &self.frequency.to_string())?;
        map.serialize_entry("use_agent", if self.use_agent { "1" } else { "0" })?;
        map.serialize_entry("plugin_task_uselist_id", &self.plugin_task_uselist_id.join(","))?;
        match &self.open_scope {
            Some(open) => {
                map.serialize_entry("open_scope", &open.scope)?;
                if let Some(organization) = &open.organization {
                    map.serialize_entry("organization", organization)?;
                }
                if !open.user_ids.is_empty() {
                    map.serialize_entry("user_ids", &open.user_ids.join(","))?;
                }
            }
            None => {
                let default = AlertSetting::default();
                map.serialize_entry("alert_setting", self.alert_setting.as_ref().unwrap_or(&default))?;
            }
        }
        for field in &SPECIFIC {
            if let Some(value) = (field.get)(self) {
                map.serialize_entry(field.name, &value)?;
            }
        }
        map.end()
    }
}

impl NewServiceTask {
    /// The batch as the form field `data` carries it (a JSON array).
    pub(crate) fn batch_json(tasks: &[NewServiceTask]) -> String {
        serde_json::to_string(tasks).expect("service tasks always serialize")
    }

    /// The task as a JSON object, as the service takes it (for tests and logs of the caller;
    /// the password included).
    pub fn to_json(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }
}
