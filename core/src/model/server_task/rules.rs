//! Reading a server task from loosely typed JSON (left-out fields take the defaults of
//! `ServerTask::new`), and its rules: every problem of a task, in the order the service checks
//! its fields.

use std::fmt;
use std::net::IpAddr;

use serde::de;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{
    flag, id_list, AlertSetting, AuthType, Indicator, Scope, ServerTask, SnmpVersion, SystemType,
    FREQUENCY_RANGE, SNMP_PORT_RANGE,
};
use crate::model::de as lenient;
use crate::{Problem, Secret};

/// The fields of a server task, in the order the service checks them (the emulator's order:
/// name, addresses, system, frequency and port, SNMP, agent, alerts, indicators). Problems
/// are reported in this order.
const FIELDS: [&str; 15] = [
    "server_name",
    "private_ip",
    "server_ip",
    "server_systype",
    "frequency",
    "snmp_port",
    "snmp_v",
    "snmp_comm",
    "snmp_user",
    "snmp_pass",
    "snmp_authtype",
    "use_agent",
    "plugin_task_uselist_id",
    "alert_setting",
    "task_type",
];

/// The rule of a text field holding a control character.
const NO_CONTROL: &str = "must not contain control characters (such as NUL or a line break)";

/// A task as read: each field's value, or `None` when it could not be read (the problem is in
/// `problems`), so that the rules that need it are skipped.
pub(super) struct Parsed {
    server_name: Option<String>,
    private_ip: Option<String>,
    server_ip: Option<String>,
    server_systype: Option<SystemType>,
    frequency: Option<u32>,
    snmp_port: Option<u32>,
    snmp_v: Option<SnmpVersion>,
    snmp_comm: Option<String>,
    snmp_user: Option<String>,
    snmp_pass: Option<Secret>,
    snmp_authtype: Option<AuthType>,
    use_agent: Option<bool>,
    plugin_task_uselist_id: Option<Vec<String>>,
    alert_setting: Option<AlertSetting>,
    task_type: Option<Vec<Indicator>>,
    /// The fields that could not be read.
    pub(super) problems: Vec<Problem>,
}

impl From<&ServerTask> for Parsed {
    fn from(task: &ServerTask) -> Parsed {
        let task = task.clone();
        Parsed {
            server_name: Some(task.server_name),
            private_ip: Some(task.private_ip),
            server_ip: Some(task.server_ip),
            server_systype: Some(task.server_systype),
            frequency: Some(task.frequency),
            snmp_port: Some(task.snmp_port),
            snmp_v: Some(task.snmp_v),
            snmp_comm: Some(task.snmp_comm),
            snmp_user: Some(task.snmp_user),
            snmp_pass: Some(task.snmp_pass),
            snmp_authtype: Some(task.snmp_authtype),
            use_agent: Some(task.use_agent),
            plugin_task_uselist_id: Some(task.plugin_task_uselist_id),
            alert_setting: Some(task.alert_setting),
            task_type: Some(task.task_type),
            problems: Vec::new(),
        }
    }
}

/// Newtypes that read a field the lenient way (strings or numbers).
#[derive(Deserialize)]
struct Text(#[serde(deserialize_with = "lenient::text")] String);
#[derive(Deserialize)]
struct Flag(#[serde(with = "flag")] bool);
#[derive(Deserialize)]
struct Ids(#[serde(with = "id_list")] Vec<String>);
#[derive(Deserialize)]
struct Indicators(#[serde(deserialize_with = "lenient::list")] Vec<Indicator>);

/// Reads the fields of one JSON task object in turn, noting what cannot be read.
struct Reader<'a> {
    object: &'a Map<String, Value>,
    index: Option<usize>,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    /// Field `name` read as a `T`, or `default` when it is left out (`None`: required).
    fn field<T: de::DeserializeOwned>(&mut self, name: &str, default: Option<T>) -> Option<T> {
        self.field_with(name, default, |value| {
            serde_path_to_error::deserialize(value).map_err(|error| {
                let mut path = name.to_string();
                for segment in error.path().iter() {
                    match segment {
                        serde_path_to_error::Segment::Seq { index } => path.push_str(&format!("[{index}]")),
                        serde_path_to_error::Segment::Map { key } => {
                            path.push('.');
                            path.push_str(key);
                        }
                        _ => {}
                    }
                }
                (path, error.into_inner().to_string())
            })
        })
    }

    /// As [`field`](Reader::field), read by `read`, which names the field and the rule.
    fn field_with<T>(
        &mut self,
        name: &str,
        default: Option<T>,
        read: impl FnOnce(&Value) -> std::result::Result<T, (String, String)>,
    ) -> Option<T> {
        let result = match self.object.get(name) {
            Some(value) => read(value),
            None => default.ok_or_else(|| (name.to_string(), required_rule(name).to_string())),
        };
        result
            .map_err(|(field, rule)| self.problems.push(Problem::new(self.index, field, rule)))
            .ok()
    }
}

/// The rule of a required field that is left out.
fn required_rule(field: &str) -> &'static str {
    match field {
        "server_systype" => "is required: 0 (linux) or 1 (windows)",
        _ => "is required and must not be empty",
    }
}

/// A whole number from a JSON number or a string of digits (`5`, `"5"`).
fn whole(value: &Value) -> Option<u32> {
    match value {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => {
            let s = s.trim();
            let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            digits.then(|| s.parse().ok()).flatten()
        }
        _ => None,
    }
}

/// A value as shown in a rule: strings with their quotes, anything else as JSON.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

fn frequency_rule(value: impl fmt::Display) -> String {
    format!(
        "must be a whole number of minutes from {} to {}, not {value}",
        FREQUENCY_RANGE.start(),
        FREQUENCY_RANGE.end()
    )
}

fn port_rule(value: impl fmt::Display) -> String {
    format!(
        "must be a port number from {} to {}, not {value}",
        SNMP_PORT_RANGE.start(),
        SNMP_PORT_RANGE.end()
    )
}

impl Parsed {
    /// Reads one task object (`index`: its place in the batch); left-out fields take the
    /// defaults of [`ServerTask::new`].
    pub(super) fn from_json(value: &Value, index: Option<usize>) -> Parsed {
        let Value::Object(object) = value else {
            let problem = Problem::new(index, "", "must be an object with the fields of a server task");
            return Parsed::unread(vec![problem]);
        };
        let defaults = ServerTask::new("", "", "", SystemType::Linux);
        let mut r = Reader {
            object,
            index,
            problems: Vec::new(),
        };
        let text = |r: &mut Reader<'_>, name: &str, default: Option<String>| {
            r.field::<Text>(name, default.map(Text)).map(|t| t.0)
        };
        let server_name = text(&mut r, "server_name", None);
        let private_ip = text(&mut r, "private_ip", None);
        let server_ip = text(&mut r, "server_ip", None);
        let server_systype = r.field::<SystemType>("server_systype", None);
        let frequency = r.field_with("frequency", Some(defaults.frequency), |v| {
            whole(v).ok_or_else(|| ("frequency".into(), frequency_rule(shown(v))))
        });
        let snmp_port = r.field_with("snmp_port", Some(defaults.snmp_port), |v| {
            whole(v).ok_or_else(|| ("snmp_port".into(), port_rule(shown(v))))
        });
        let snmp_v = r.field("snmp_v", Some(defaults.snmp_v));
        let snmp_comm = text(&mut r, "snmp_comm", Some(defaults.snmp_comm));
        let snmp_user = text(&mut r, "snmp_user", Some(defaults.snmp_user));
        // `null` is empty, as for the other texts; an error never shows the value.
        let snmp_pass = r.field_with("snmp_pass", Some(defaults.snmp_pass), |v| match v {
            Value::Null => Ok(Secret::new("")),
            v => Secret::deserialize(v).map_err(|e| ("snmp_pass".into(), e.to_string())),
        });
        let snmp_authtype = r.field("snmp_authtype", Some(defaults.snmp_authtype));
        let use_agent = r.field("use_agent", Some(Flag(defaults.use_agent))).map(|f| f.0);
        let plugin_task_uselist_id = r
            .field(
                "plugin_task_uselist_id",
                Some(Ids(defaults.plugin_task_uselist_id)),
            )
            .map(|ids| ids.0);
        let alert_setting = r.field("alert_setting", Some(defaults.alert_setting));
        // The default needs the system type; when that could not be read, it is the problem.
        let task_type = match (object.contains_key("task_type"), server_systype) {
            (false, None) => None,
            (_, system) => {
                let default = system.map(|s| Indicators(Indicator::allowed_for(s).to_vec()));
                r.field("task_type", default).map(|list| list.0)
            }
        };
        let mut problems = r.problems;
        for key in object.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
            problems.push(Problem::new(
                index,
                key.clone(),
                format!("is not a field of a server task (they are {})", FIELDS.join(", ")),
            ));
        }
        Parsed {
            server_name,
            private_ip,
            server_ip,
            server_systype,
            frequency,
            snmp_port,
            snmp_v,
            snmp_comm,
            snmp_user,
            snmp_pass,
            snmp_authtype,
            use_agent,
            plugin_task_uselist_id,
            alert_setting,
            task_type,
            problems,
        }
    }

    /// A task none of whose fields could be read.
    fn unread(problems: Vec<Problem>) -> Parsed {
        Parsed {
            server_name: None,
            private_ip: None,
            server_ip: None,
            server_systype: None,
            frequency: None,
            snmp_port: None,
            snmp_v: None,
            snmp_comm: None,
            snmp_user: None,
            snmp_pass: None,
            snmp_authtype: None,
            use_agent: None,
            plugin_task_uselist_id: None,
            alert_setting: None,
            task_type: None,
            problems,
        }
    }

    /// The task, when every field could be read.
    pub(super) fn into_task(self) -> Option<ServerTask> {
        Some(ServerTask {
            server_name: self.server_name?,
            private_ip: self.private_ip?,
            server_ip: self.server_ip?,
            server_systype: self.server_systype?,
            frequency: self.frequency?,
            snmp_port: self.snmp_port?,
            snmp_v: self.snmp_v?,
            snmp_comm: self.snmp_comm?,
            snmp_user: self.snmp_user?,
            snmp_pass: self.snmp_pass?,
            snmp_authtype: self.snmp_authtype?,
            use_agent: self.use_agent?,
            plugin_task_uselist_id: self.plugin_task_uselist_id?,
            alert_setting: self.alert_setting?,
            task_type: self.task_type?,
        })
    }
}

/// The position of a field (`alert_setting.scope` counts as `alert_setting`) in the order the
/// service checks fields; fields it does not know come last.
fn rank(field: &str) -> usize {
    let name = field.split(['.', '[']).next().unwrap_or(field);
    FIELDS.iter().position(|f| *f == name).unwrap_or(FIELDS.len())
}

/// Every problem of a task: what could not be read, then the rules of what could, ordered
/// by field as the service checks them.
pub(super) fn check(task: &Parsed, index: Option<usize>) -> Vec<Problem> {
    let mut broken: Vec<Problem> = Vec::new();
    let mut fail = |field: &str, rule: String| broken.push(Problem::new(index, field, rule));
    let blank = |text: &str| text.trim().is_empty();
    let control = |text: &str| text.chars().any(char::is_control);

    if let Some(name) = &task.server_name {
        if blank(name) {
            fail("server_name", required_rule("server_name").into());
        } else if control(name) {
            fail("server_name", NO_CONTROL.into());
        }
    }
    for (field, ip) in [("private_ip", &task.private_ip), ("server_ip", &task.server_ip)] {
        match ip {
            Some(ip) if blank(ip) => fail(field, required_rule(field).into()),
            Some(ip) if ip.parse::<IpAddr>().is_err() => {
                fail(field, format!("must be an IPv4 or IPv6 address, not {ip:?}"))
            }
            _ => {}
        }
    }
    if let Some(frequency) = task.frequency.filter(|f| !FREQUENCY_RANGE.contains(f)) {
        fail("frequency", frequency_rule(frequency));
    }
    if let Some(port) = task.snmp_port.filter(|p| !SNMP_PORT_RANGE.contains(p)) {
        fail("snmp_port", port_rule(port));
    }
    let texts = [
        ("snmp_comm", task.snmp_comm.as_deref()),
        ("snmp_user", task.snmp_user.as_deref()),
        ("snmp_pass", task.snmp_pass.as_ref().map(Secret::expose)),
    ];
    for (field, text) in texts {
        let needed = match (task.snmp_v, field) {
            (Some(SnmpVersion::V2c), "snmp_comm") => Some("is required when snmp_v is 0 (version 2c)"),
            (Some(SnmpVersion::V3), "snmp_user" | "snmp_pass") => {
                Some("is required when snmp_v is 1 (version 3)")
            }
            _ => None,
        };
        match (text, needed) {
            // The pass phrase is never shown, nor is whether it is blank or holds spaces.
            (Some(text), Some(rule)) if text.is_empty() || (field != "snmp_pass" && blank(text)) => {
                fail(field, rule.into())
            }
            (Some(text), _) if control(text) => fail(field, NO_CONTROL.into()),
            _ => {}
        }
    }
    if let Some(plugins) = &task.plugin_task_uselist_id {
        if task.use_agent == Some(true) && plugins.is_empty() {
            fail(
                "plugin_task_uselist_id",
                "must name at least one plugin (plugin_task_uselist_id from the agent list) when use_agent is 1".into(),
            );
        } else if plugins.iter().any(|id| control(id)) {
            fail("plugin_task_uselist_id", NO_CONTROL.into());
        }
    }
    if let Some(alert) = &task.alert_setting {
        let channels = &alert.alert;
        for (name, ids) in [
            ("email", &channels.email),
            ("sms", &channels.sms),
            ("msn", &channels.msn),
            ("gtalk", &channels.gtalk),
            ("remind", &channels.remind),
        ] {
            if ids.iter().any(|id| control(id)) {
                fail(&format!("alert_setting.alert.{name}"), NO_CONTROL.into());
            }
        }
        match &alert.organization {
            Some(organization) if control(organization) => {
                fail("alert_setting.organization", NO_CONTROL.into())
            }
            organization if alert.scope == Scope::UserGroup && organization.as_deref().is_none_or(blank) => {
                fail(
                    "alert_setting.organization",
                    "is required when alert_setting.scope is 2 (a user group)".into(),
                )
            }
            _ => {}
        }
        if alert.user_ids.iter().any(|id| control(id)) {
            fail("alert_setting.user_ids", NO_CONTROL.into());
        } else if alert.scope == Scope::SelectedUsers && alert.user_ids.is_empty() {
            fail(
                "alert_setting.user_ids",
                "is required when alert_setting.scope is 4 (selected users)".into(),
            );
        }
    }
    if let Some(indicators) = &task.task_type {
        if indicators.is_empty() {
            fail("task_type", "must name at least one indicator".into());
        } else if let Some(system) = task.server_systype {
            let allowed = Indicator::allowed_for(system);
            if let Some(bad) = indicators.iter().find(|i| !allowed.contains(i)) {
                let names: Vec<&str> = allowed.iter().map(|i| i.name()).collect();
                let system = match system {
                    SystemType::Linux => "linux (server_systype 0)",
                    SystemType::Windows => "windows (server_systype 1)",
                };
                fail(
                    "task_type",
                    format!(
                        "indicator {:?} is not allowed for {system}; allowed: {}",
                        bad.name(),
                        names.join(", ")
                    ),
                );
            }
        }
    }
    let mut problems = task.problems.clone();
    problems.extend(broken);
    // Stable: within a field, what could not be read comes before the rules.
    problems.sort_by_key(|p| rank(&p.field));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal() -> Value {
        serde_json::json!({"server_name": "a", "private_ip": "10.0.0.1", "server_ip": "10.0.0.2",
            "server_systype": "1", "frequency": 10, "task_type": ["cpu_windows"]})
    }

    fn problems(batch: Value) -> Vec<(Option<usize>, String, String)> {
        let err = ServerTask::batch_from_json(batch).unwrap_err();
        err.problems()
            .iter()
            .map(|p| (p.index, p.field.clone(), p.rule.clone()))
            .collect()
    }

    #[test]
    fn serializes_scalars_as_strings() {
        let task = ServerTask::new("a", "10.0.0.1", "10.0.0.2", SystemType::Windows);
        let json = serde_json::to_value(&task).unwrap();
        assert_eq!(json["server_systype"], "1");
        assert_eq!(json["frequency"], "5");
        assert_eq!(json["snmp_port"], "161");
        assert_eq!(json["use_agent"], "0");
        assert_eq!(json["alert_setting"]["scope"], "3");
        assert_eq!(json["plugin_task_uselist_id"], "");
        assert_eq!(json["task_type"][0], "cpu_windows");
    }

    #[test]
    fn left_out_fields_take_the_defaults_of_new() {
        let tasks = ServerTask::batch_from_json(serde_json::json!([minimal()])).unwrap();
        let mut expected = ServerTask::new("a", "10.0.0.1", "10.0.0.2", SystemType::Windows);
        expected.frequency = 10;
        expected.task_type = vec![Indicator::CpuWindows];
        assert_eq!(tasks, [expected]);
        let mut bare = minimal();
        bare.as_object_mut().unwrap().remove("task_type");
        let tasks = ServerTask::batch_from_json(serde_json::json!([bare])).unwrap();
        assert_eq!(tasks[0].task_type, Indicator::allowed_for(SystemType::Windows));
        // A partial alert setting keeps the default scope.
        let mut alert = minimal();
        alert["alert_setting"] = serde_json::json!({"alert": {"email": "101"}});
        let tasks = ServerTask::batch_from_json(serde_json::json!([alert])).unwrap();
        assert_eq!(tasks[0].alert_setting.scope, Scope::Creator);
        assert_eq!(tasks[0].alert_setting.alert.email, ["101"]);
    }

    #[test]
    fn every_problem_in_the_services_order() {
        let mut task = minimal();
        task["task_type"] = serde_json::json!(["cpu"]);
        task["snmp_comm"] = serde_json::json!(" ");
        task["frequency"] = serde_json::json!("5.5");
        task["snmp_port"] = serde_json::json!(0);
        task["frequncy"] = serde_json::json!(5);
        let found = problems(serde_json::json!([minimal(), task]));
        let fields: Vec<&str> = found.iter().map(|(_, f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            ["frequency", "snmp_port", "snmp_comm", "task_type", "frequncy"]
        );
        assert!(found.iter().all(|(i, _, _)| *i == Some(1)));
        assert!(found[0].2.contains("not \"5.5\""), "{found:?}");
        assert!(
            found[4].2.starts_with("is not a field of a server task"),
            "{found:?}"
        );
    }

    #[test]
    fn type_errors_name_index_and_field() {
        let mut bad = minimal();
        bad["server_systype"] = serde_json::json!("7");
        let found = problems(serde_json::json!([minimal(), bad]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].1.as_str()), (Some(1), "server_systype"));
        assert!(found[0].2.contains("0 (linux) or 1 (windows)"), "{found:?}");
        let mut bad = minimal();
        bad["alert_setting"] = serde_json::json!({"scope": 9});
        bad["task_type"] = serde_json::json!(["cpu_windows", "gpu"]);
        let fields: Vec<String> = problems(serde_json::json!([bad]))
            .into_iter()
            .map(|p| p.1)
            .collect();
        assert_eq!(fields, ["alert_setting.scope", "task_type[1]"]);
    }

    #[test]
    fn missing_fields_are_named() {
        let found = problems(serde_json::json!([{"server_name": "b"}]));
        let fields: Vec<&str> = found.iter().map(|(_, f, _)| f.as_str()).collect();
        assert_eq!(fields, ["private_ip", "server_ip", "server_systype"]);
        let found = problems(serde_json::json!([7]));
        assert_eq!(
            found,
            [(
                Some(0),
                String::new(),
                "must be an object with the fields of a server task".into()
            )]
        );
        assert_eq!(problems(serde_json::json!({}))[0].1, "tasks");
        assert_eq!(problems(serde_json::json!([]))[0].1, "tasks");
    }

    #[test]
    fn control_characters_are_refused() {
        for (field, value) in [
            ("server_name", serde_json::json!("web\u{0}01")),
            ("snmp_comm", serde_json::json!("pub\nlic")),
            ("plugin_task_uselist_id", serde_json::json!("9001,90\u{7}02")),
        ] {
            let mut task = minimal();
            task[field] = value;
            let found = problems(serde_json::json!([task]));
            assert_eq!((found[0].1.as_str(), found[0].2.as_str()), (field, NO_CONTROL));
        }
        let mut task = ServerTask::new("a", "10.0.0.1", "10.0.0.2", SystemType::Linux);
        task.snmp_v = SnmpVersion::V3;
        task.snmp_user = "u".into();
        task.snmp_pass = Secret::new("pass\0phrase");
        let err = task.validate().unwrap_err();
        assert_eq!(err.field(), Some("snmp_pass"));
        assert!(!err.to_string().contains("phrase"));
    }
}
