//! Validation of one line (task object) of a create batch, server tasks and service tasks.
//! The service does not document every rule; these are the emulator's, written from its
//! documentation without the client SDK. The first rule a line breaks is reported.

use std::collections::HashSet;
use std::net::IpAddr;

use serde_json::{Map, Value};

use crate::catalog::{LINUX_INDICATORS, SERVICE_CREATE_FIELDS, WINDOWS_INDICATORS};

const ALERT_CHANNELS: &[&str] = &["email", "sms", "msn", "gtalk", "remind"];

/// A scalar as text: strings as they are, JSON numbers in their JSON spelling.
fn scalar(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn non_empty(task: &Map<String, Value>, field: &str, rule: &str) -> Result<String, String> {
    scalar(task.get(field))
        .filter(|text| !text.trim().is_empty())
        .ok_or_else(|| format!("{field} must not be empty{rule}"))
}

fn flag(task: &Map<String, Value>, field: &str, rule: &str) -> Result<bool, String> {
    match scalar(task.get(field)).as_deref() {
        Some("0") => Ok(false),
        Some("1") => Ok(true),
        _ => Err(format!("{field} must be 0 or 1{rule}")),
    }
}

fn integer(task: &Map<String, Value>, field: &str, low: u64, high: u64) -> Result<u64, String> {
    scalar(task.get(field))
        .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|text| text.parse::<u64>().ok())
        .filter(|n| (low..=high).contains(n))
        .ok_or_else(|| format!("{field} must be an integer from {low} to {high}"))
}

fn ip(task: &Map<String, Value>, field: &str) -> Result<(), String> {
    let text = non_empty(task, field, "")?;
    text.parse::<IpAddr>()
        .map(drop)
        .map_err(|_| format!("{field} must be a valid IPv4 or IPv6 address"))
}

/// Ids from a string (comma-separated), a number, or an array of strings/numbers;
/// blank pieces are skipped; left out or `null`, none. `None` when the value has another shape.
fn id_list(value: Option<&Value>) -> Option<Vec<String>> {
    let pieces = match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| scalar(Some(item)))
            .collect::<Option<Vec<_>>>()?,
        Some(other) => vec![scalar(Some(other))?],
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

/// Checks one task object against the rules; `plugins` holds the account's
/// plugin_task_uselist_id values.
pub(crate) fn task(line: &Value, plugins: &HashSet<String>) -> Result<(), String> {
    let task = line
        .as_object()
        .ok_or_else(|| "a task must be a JSON object".to_string())?;
    non_empty(task, "server_name", "")?;
    ip(task, "private_ip")?;
    ip(task, "server_ip")?;
    let windows = flag(task, "server_systype", " (0 linux, 1 windows)")?;
    integer(task, "frequency", 1, 1440)?;
    integer(task, "snmp_port", 1, 65535)?;
    if flag(task, "snmp_v", " (0 version 2c, 1 version 3)")? {
        non_empty(task, "snmp_user", " when snmp_v is 1")?;
        non_empty(task, "snmp_pass", " when snmp_v is 1")?;
        flag(task, "snmp_authtype", " when snmp_v is 1 (0 MD5, 1 SHA)")?;
    } else {
        non_empty(task, "snmp_comm", " when snmp_v is 0")?;
        // Not needed with version 2c, but a value given must still be one.
        if task.contains_key("snmp_authtype") {
            flag(task, "snmp_authtype", " (0 MD5, 1 SHA)")?;
        }
    }
    plugins_used(task, plugins)?;
    alert_setting(task.get("alert_setting"))?;
    task_type(task.get("task_type"), windows)
}

/// `use_agent` and, when it is 1, the plugins it uses.
fn plugins_used(task: &Map<String, Value>, plugins: &HashSet<String>) -> Result<(), String> {
    let use_agent = flag(task, "use_agent", "")?;
    // The ids' shape is checked whenever they are given; that they name plugins only when
    // they are used.
    let ids = id_list(task.get("plugin_task_uselist_id"))
        .ok_or_else(|| "plugin_task_uselist_id must be a string or an array of ids".to_string())?;
    if use_agent {
        if ids.is_empty() {
            return Err("plugin_task_uselist_id must not be empty when use_agent is 1".into());
        }
        if let Some(unknown) = ids.iter().find(|id| !plugins.contains(*id)) {
            return Err(format!(
                "plugin_task_uselist_id {unknown} is not a plugin of this account"
            ));
        }
    }
    Ok(())
}

/// Checks one service task object (`POST /v2/service/create.json`), by the fields the v2
/// documentation lists: those of every type, then those of its `task_type`; alerts either
/// as `alert_setting` or, without alerts, as `open_scope` (with `organization` or
/// `user_ids` as the scope needs).
pub(crate) fn service_task(line: &Value, plugins: &HashSet<String>) -> Result<(), String> {
    let task = line
        .as_object()
        .ok_or_else(|| "a task must be a JSON object".to_string())?;
    non_empty(task, "task_name", "")?;
    let kind = scalar(task.get("task_type")).unwrap_or_default();
    let Some((_, fields)) = SERVICE_CREATE_FIELDS.iter().find(|(name, _)| *name == kind) else {
        let kinds: Vec<&str> = SERVICE_CREATE_FIELDS.iter().map(|(name, _)| *name).collect();
        return Err(format!("task_type must be one of {}", kinds.join(", ")));
    };
    integer(task, "frequency", 1, 1440)?;
    plugins_used(task, plugins)?;
    match (task.get("alert_setting"), task.get("open_scope")) {
        (Some(setting), _) => alert_setting(Some(setting))?,
        (None, Some(_)) => open_scope(task)?,
        (None, None) => return Err("alert_setting (alerts) or open_scope (no alerts) must be given".into()),
    }
    for field in *fields {
        match *field {
            "status_url" => url(task, field)?,
            "ip" => ip(task, field)?,
            "port" => integer(task, field, 1, 65535).map(drop)?,
            _ => non_empty(task, field, &format!(" for a {kind} task")).map(drop)?,
        }
    }
    Ok(())
}

/// `open_scope` of a service task without alerts: who sees it (as `alert_setting.scope`).
fn open_scope(task: &Map<String, Value>) -> Result<(), String> {
    match scalar(task.get("open_scope")).as_deref() {
        Some("1" | "3") => Ok(()),
        Some("2") => non_empty(task, "organization", " when open_scope is 2").map(drop),
        Some("4") => match id_list(task.get("user_ids")) {
            Some(ids) if !ids.is_empty() => Ok(()),
            _ => Err("user_ids must not be empty when open_scope is 4".into()),
        },
        _ => Err("open_scope must be 1, 2, 3 or 4".into()),
    }
}

/// An `http://` or `https://` address with a host.
fn url(task: &Map<String, Value>, field: &str) -> Result<(), String> {
    let text = non_empty(task, field, "")?;
    let rest = text
        .strip_prefix("http://")
        .or_else(|| text.strip_prefix("https://"))
        .filter(|rest| !rest.is_empty() && !rest.starts_with('/') && !rest.contains(char::is_whitespace));
    rest.map(drop)
        .ok_or_else(|| format!("{field} must be an http:// or https:// address"))
}

fn alert_setting(value: Option<&Value>) -> Result<(), String> {
    let setting = value
        .and_then(Value::as_object)
        .ok_or_else(|| "alert_setting must be an object".to_string())?;
    // PHP writes an empty object as `[]`.
    let no_alert = Map::new();
    if let Some(alert) = setting.get("alert") {
        let alert = match alert {
            Value::Object(alert) => alert,
            Value::Array(items) if items.is_empty() => &no_alert,
            _ => return Err("alert_setting.alert must be an object".to_string()),
        };
        for channel in ALERT_CHANNELS {
            if let Some(ids) = alert.get(*channel)
                && id_list(Some(ids)).is_none()
            {
                return Err(format!(
                    "alert_setting.alert.{channel} must be a string of comma-separated user ids or an array"
                ));
            }
        }
    }
    let scope = scalar(setting.get("scope"));
    match scope.as_deref() {
        Some("1" | "3") => Ok(()),
        Some("2") => non_empty(setting, "organization", " when scope is 2")
            .map(drop)
            .map_err(|text| format!("alert_setting.{text}")),
        Some("4") => match id_list(setting.get("user_ids")) {
            Some(ids) if !ids.is_empty() => Ok(()),
            _ => Err("alert_setting.user_ids must not be empty when scope is 4".into()),
        },
        _ => Err("alert_setting.scope must be 1, 2, 3 or 4".into()),
    }
}

fn task_type(value: Option<&Value>, windows: bool) -> Result<(), String> {
    let indicators = match value {
        Some(Value::Array(items)) if !items.is_empty() => items,
        _ => return Err("task_type must be a non-empty array of indicators".into()),
    };
    let (allowed, system) = if windows {
        (WINDOWS_INDICATORS, "1 (windows)")
    } else {
        (LINUX_INDICATORS, "0 (linux)")
    };
    for indicator in indicators {
        match indicator.as_str() {
            Some(name) if allowed.contains(&name) => {}
            other => {
                let shown = other.map_or_else(|| indicator.to_string(), str::to_string);
                return Err(format!(
                    "task_type {shown} is not allowed for server_systype {system} (allowed: {})",
                    allowed.join(", ")
                ));
            }
        }
    }
    Ok(())
}
