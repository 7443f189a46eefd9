//! Server monitoring tasks for the create operation, with the spec's rules checked before
//! anything is sent.

use std::fmt;
use std::net::IpAddr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::de as lenient;
use crate::{Error, Result, Secret};

/// Lowest and highest monitoring frequency accepted, in minutes (one check a minute to one a
/// day).
pub const FREQUENCY_RANGE: std::ops::RangeInclusive<u32> = 1..=1440;
/// SNMP ports accepted.
pub const SNMP_PORT_RANGE: std::ops::RangeInclusive<u32> = 1..=65535;

/// Declares an enum sent as a digit string (`"0"`, `"1"`...), read from that digit as a string
/// or a number, or from a readable name.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident, $expected:literal,
     { $($(#[$vmeta:meta])* $variant:ident = $code:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// The code the service uses for this value.
            pub fn code(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }

            fn parse(text: &str) -> Option<Self> {
                match text.trim() {
                    $($code $(| $alias)* => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.code())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expected)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<$name, E> {
                        $name::parse(v).ok_or_else(|| E::custom(concat!("must be ", $expected)))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<$name, E> {
                        self.visit_str(&v.to_string())
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<$name, E> {
                        self.visit_str(&v.to_string())
                    }
                    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<$name, E> {
                        self.visit_str(if v { "1" } else { "0" })
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

wire_enum!(
    /// `server_systype`: the server's operating system.
    SystemType, "0 (linux) or 1 (windows)",
    {
        /// `0`
        Linux = "0" | "linux",
        /// `1`
        Windows = "1" | "windows",
    }
);

wire_enum!(
    /// `snmp_v`: the SNMP protocol version.
    SnmpVersion, "0 (version 2c) or 1 (version 3)",
    {
        /// `0`: version 2c, authenticated by `snmp_comm`.
        V2c = "0" | "v2c" | "2c",
        /// `1`: version 3, authenticated by `snmp_user`, `snmp_pass` and `snmp_authtype`.
        V3 = "1" | "v3" | "3",
    }
);

wire_enum!(
    /// `snmp_authtype`: the SNMP v3 authentication protocol.
    #[derive(Default)]
    AuthType, "0 (MD5) or 1 (SHA)",
    {
        /// `0`
        #[default]
        Md5 = "0" | "md5" | "MD5",
        /// `1`
        Sha = "1" | "sha" | "SHA",
    }
);

wire_enum!(
    /// `alert_setting.scope`: who sees the task's alerts.
    Scope, "1 (all enterprise users), 2 (a user group), 3 (only the creator) or 4 (selected users)",
    {
        /// `1`: all enterprise users.
        AllUsers = "1",
        /// `2`: one user group, named by `organization`.
        UserGroup = "2",
        /// `3`: only the creator.
        Creator = "3",
        /// `4`: the users in `user_ids`.
        SelectedUsers = "4",
    }
);

/// An indicator (`task_type` entry) a server task can monitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Indicator {
    /// CPU usage (linux)
    Cpu,
    /// CPU load (linux)
    Load,
    /// Memory usage (linux)
    Mem,
    /// Network traffic (linux, windows)
    Netio,
    /// Disk space usage (linux, windows)
    Diskstore,
    /// Process count (linux, windows)
    Procsum,
    /// Disk I/O (linux)
    Diskio,
    /// CPU usage (windows)
    CpuWindows,
    /// Memory usage (windows)
    MemWindows,
}

impl Indicator {
    /// The indicators the service allows for a system type, in the spec's order.
    pub fn allowed_for(system: SystemType) -> &'static [Indicator] {
        use Indicator::*;
        match system {
            SystemType::Linux => &[Cpu, Load, Mem, Netio, Diskstore, Procsum, Diskio],
            SystemType::Windows => &[CpuWindows, MemWindows, Netio, Diskstore, Procsum],
        }
    }

    /// The name the service uses.
    pub fn name(self) -> &'static str {
        use Indicator::*;
        match self {
            Cpu => "cpu",
            Load => "load",
            Mem => "mem",
            Netio => "netio",
            Diskstore => "diskstore",
            Procsum => "procsum",
            Diskio => "diskio",
            CpuWindows => "cpu_windows",
            MemWindows => "mem_windows",
        }
    }
}

/// Alert channels: each holds the user ids that receive that kind of alert.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alerts {
    /// E-mail recipients.
    #[serde(default, with = "id_list")]
    pub email: Vec<String>,
    /// SMS recipients.
    #[serde(default, with = "id_list")]
    pub sms: Vec<String>,
    /// MSN recipients.
    #[serde(default, with = "id_list")]
    pub msn: Vec<String>,
    /// Chat recipients.
    #[serde(default, with = "id_list")]
    pub gtalk: Vec<String>,
    /// Recipients of repeated (continuous) alerts.
    #[serde(default, with = "id_list")]
    pub remind: Vec<String>,
}

/// `alert_setting` of a server task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlertSetting {
    /// Channels and their recipients.
    #[serde(default)]
    pub alert: Alerts,
    /// Who sees the task's alerts.
    pub scope: Scope,
    /// The user group; required when `scope` is [`Scope::UserGroup`].
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "opt_text"
    )]
    pub organization: Option<String>,
    /// The users; required when `scope` is [`Scope::SelectedUsers`].
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "id_list")]
    pub user_ids: Vec<String>,
}

impl Default for AlertSetting {
    fn default() -> Self {
        AlertSetting {
            alert: Alerts::default(),
            scope: Scope::Creator,
            organization: None,
            user_ids: Vec::new(),
        }
    }
}

/// One server monitoring task of a create batch (an element of the form field `data`).
///
/// Scalars are sent as strings, as in the spec. Build one with [`ServerTask::new`] and adjust
/// the public fields; [`validate`](ServerTask::validate) checks the spec's rules (the client
/// calls it before sending).
///
/// ```
/// use monapi::{Indicator, ServerTask, SystemType};
/// let mut task = ServerTask::new("web-01", "192.168.1.10", "203.0.113.10", SystemType::Linux);
/// task.frequency = 10;
/// task.task_type = vec![Indicator::Cpu, Indicator::Mem];
/// task.validate().unwrap();
///
/// task.task_type.push(Indicator::CpuWindows);
/// let err = task.validate().unwrap_err();
/// assert!(err.to_string().contains("task_type"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerTask {
    /// Task name; must not be empty.
    #[serde(deserialize_with = "lenient::text")]
    pub server_name: String,
    /// The server's IP address.
    #[serde(deserialize_with = "lenient::text")]
    pub private_ip: String,
    /// The IP address SNMP is polled on.
    #[serde(deserialize_with = "lenient::text")]
    pub server_ip: String,
    /// Operating system.
    pub server_systype: SystemType,
    /// Minutes between checks, in [`FREQUENCY_RANGE`].
    #[serde(serialize_with = "as_text", deserialize_with = "lenient::number")]
    pub frequency: u32,
    /// SNMP agent port, in [`SNMP_PORT_RANGE`].
    #[serde(serialize_with = "as_text", deserialize_with = "lenient::number")]
    pub snmp_port: u32,
    /// SNMP version.
    pub snmp_v: SnmpVersion,
    /// Community (SNMP v2c); required for v2c.
    #[serde(default, deserialize_with = "lenient::text")]
    pub snmp_comm: String,
    /// Security name (SNMP v3); required for v3.
    #[serde(default, deserialize_with = "lenient::text")]
    pub snmp_user: String,
    /// Pass phrase (SNMP v3); required for v3. Never printed.
    #[serde(default = "empty_secret")]
    pub snmp_pass: Secret,
    /// Authentication protocol (SNMP v3).
    #[serde(default)]
    pub snmp_authtype: AuthType,
    /// Whether agent plugins are used (`use_agent`); when true,
    /// `plugin_task_uselist_id` must name at least one plugin.
    #[serde(with = "flag")]
    pub use_agent: bool,
    /// Plugin association ids (`plugin_task_uselist_id` of the agent list's plugins).
    #[serde(default, with = "id_list")]
    pub plugin_task_uselist_id: Vec<String>,
    /// Alert settings.
    pub alert_setting: AlertSetting,
    /// Indicators to monitor; each must be allowed for the system type.
    #[serde(deserialize_with = "lenient::list")]
    pub task_type: Vec<Indicator>,
}

fn empty_secret() -> Secret {
    Secret::new("")
}

fn opt_text<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    let text = lenient::text(d)?;
    Ok((!text.is_empty()).then_some(text))
}

fn as_text<S: Serializer>(value: &u32, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// `"0"`/`"1"` on the wire; read from digits, numbers or booleans.
mod flag {
    use super::*;

    wire_enum!(Flag, "0 or 1", { Off = "0" | "false", On = "1" | "true" });

    pub fn serialize<S: Serializer>(v: &bool, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(if *v { "1" } else { "0" })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
        Ok(Flag::deserialize(d)? == Flag::On)
    }
}

/// A list of ids: sent as one comma-separated string (as in the spec's example), read from
/// such a string, a number, or an array of strings and numbers.
mod id_list {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[String], s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(&v.join(","))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Ids {
            Many(Vec<serde_json::Value>),
            One(serde_json::Value),
        }
        let values = match Ids::deserialize(d)? {
            Ids::Many(values) => values,
            Ids::One(value) => vec![value],
        };
        let mut out = Vec::new();
        for value in values {
            match value {
                serde_json::Value::String(s) => out.extend(
                    s.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(String::from),
                ),
                serde_json::Value::Number(n) => out.push(n.to_string()),
                serde_json::Value::Null => {}
                other => {
                    return Err(de::Error::custom(format!(
                        "must be ids as a string, a number or a list, not {other}"
                    )))
                }
            }
        }
        Ok(out)
    }
}

impl ServerTask {
    /// A task with the usual defaults: checks every 5 minutes, SNMP v2c on port 161 with
    /// community `public`, no agent plugins, alerts visible to the creator only, and every
    /// indicator the system type allows.
    pub fn new(
        server_name: impl Into<String>,
        private_ip: impl Into<String>,
        server_ip: impl Into<String>,
        system: SystemType,
    ) -> ServerTask {
        ServerTask {
            server_name: server_name.into(),
            private_ip: private_ip.into(),
            server_ip: server_ip.into(),
            server_systype: system,
            frequency: 5,
            snmp_port: 161,
            snmp_v: SnmpVersion::V2c,
            snmp_comm: "public".into(),
            snmp_user: String::new(),
            snmp_pass: empty_secret(),
            snmp_authtype: AuthType::Md5,
            use_agent: false,
            plugin_task_uselist_id: Vec::new(),
            alert_setting: AlertSetting::default(),
            task_type: Indicator::allowed_for(system).to_vec(),
        }
    }

    /// Checks the spec's rules; the error names the field and the rule.
    pub fn validate(&self) -> Result<()> {
        self.check(None)
    }

    /// Checks every task of a batch; the error also names the task's index in `tasks`.
    pub fn validate_batch(tasks: &[ServerTask]) -> Result<()> {
        if tasks.is_empty() {
            return Err(Error::invalid_input(None, "tasks", "must hold at least one task"));
        }
        tasks
            .iter()
            .enumerate()
            .try_for_each(|(i, task)| task.check(Some(i)))
    }

    /// Reads a batch from loosely typed JSON (as Python dicts or JavaScript objects arrive),
    /// then validates it. Type errors name the task's index and the field.
    ///
    /// ```
    /// let json = serde_json::json!([{ "server_name": "a", "private_ip": "10.0.0.1",
    ///     "server_ip": "10.0.0.1", "server_systype": "linux", "frequency": 5,
    ///     "snmp_port": "161", "snmp_v": 0, "snmp_comm": "public", "use_agent": 0,
    ///     "alert_setting": {"scope": 3}, "task_type": ["cpu"] }]);
    /// let tasks = monapi::ServerTask::batch_from_json(json).unwrap();
    /// assert_eq!(tasks[0].frequency, 5);
    /// ```
    pub fn batch_from_json(value: serde_json::Value) -> Result<Vec<ServerTask>> {
        let tasks: Vec<ServerTask> = serde_path_to_error::deserialize(value).map_err(|e| path_error(&e))?;
        ServerTask::validate_batch(&tasks)?;
        Ok(tasks)
    }

    fn check(&self, index: Option<usize>) -> Result<()> {
        let fail = |field: &str, rule: String| Err(Error::invalid_input(index, field, rule));
        if self.server_name.trim().is_empty() {
            return fail("server_name", "is required and must not be empty".into());
        }
        for (field, ip) in [("private_ip", &self.private_ip), ("server_ip", &self.server_ip)] {
            if ip.trim().is_empty() {
                return fail(field, "is required and must not be empty".into());
            }
            if ip.parse::<IpAddr>().is_err() {
                return fail(field, format!("must be an IPv4 or IPv6 address, not {ip:?}"));
            }
        }
        if !FREQUENCY_RANGE.contains(&self.frequency) {
            return fail(
                "frequency",
                format!(
                    "must be a whole number of minutes from {} to {}, not {}",
                    FREQUENCY_RANGE.start(),
                    FREQUENCY_RANGE.end(),
                    self.frequency
                ),
            );
        }
        if !SNMP_PORT_RANGE.contains(&self.snmp_port) {
            return fail(
                "snmp_port",
                format!(
                    "must be a port number from {} to {}, not {}",
                    SNMP_PORT_RANGE.start(),
                    SNMP_PORT_RANGE.end(),
                    self.snmp_port
                ),
            );
        }
        match self.snmp_v {
            SnmpVersion::V2c if self.snmp_comm.trim().is_empty() => {
                return fail("snmp_comm", "is required when snmp_v is 0 (version 2c)".into());
            }
            SnmpVersion::V3 if self.snmp_user.trim().is_empty() => {
                return fail("snmp_user", "is required when snmp_v is 1 (version 3)".into());
            }
            SnmpVersion::V3 if self.snmp_pass.expose().is_empty() => {
                return fail("snmp_pass", "is required when snmp_v is 1 (version 3)".into());
            }
            _ => {}
        }
        if self.use_agent && self.plugin_task_uselist_id.is_empty() {
            return fail(
                "plugin_task_uselist_id",
                "must name at least one plugin (plugin_task_uselist_id from the agent list) when use_agent is 1".into(),
            );
        }
        let alert = &self.alert_setting;
        if alert.scope == Scope::UserGroup
            && alert.organization.as_deref().is_none_or(|o| o.trim().is_empty())
        {
            return fail(
                "alert_setting.organization",
                "is required when alert_setting.scope is 2 (a user group)".into(),
            );
        }
        if alert.scope == Scope::SelectedUsers && alert.user_ids.is_empty() {
            return fail(
                "alert_setting.user_ids",
                "is required when alert_setting.scope is 4 (selected users)".into(),
            );
        }
        if self.task_type.is_empty() {
            return fail("task_type", "must name at least one indicator".into());
        }
        let allowed = Indicator::allowed_for(self.server_systype);
        if let Some(bad) = self.task_type.iter().find(|i| !allowed.contains(i)) {
            let names: Vec<&str> = allowed.iter().map(|i| i.name()).collect();
            let system = match self.server_systype {
                SystemType::Linux => "linux (server_systype 0)",
                SystemType::Windows => "windows (server_systype 1)",
            };
            return fail(
                "task_type",
                format!(
                    "indicator {:?} is not allowed for {system}; allowed: {}",
                    bad.name(),
                    names.join(", ")
                ),
            );
        }
        Ok(())
    }
}

/// Turns a deserialization error of a batch into an [`Error::InvalidInput`] naming the task
/// index and the field.
fn path_error(err: &serde_path_to_error::Error<serde_json::Error>) -> Error {
    use serde_path_to_error::Segment;
    let mut index = None;
    let mut fields: Vec<String> = Vec::new();
    for segment in err.path().iter() {
        match segment {
            Segment::Seq { index: i } => match fields.last_mut() {
                Some(field) => field.push_str(&format!("[{i}]")),
                None if index.is_none() => index = Some(*i),
                None => {}
            },
            Segment::Map { key } => fields.push(key.clone()),
            Segment::Enum { variant } => fields.push(variant.clone()),
            Segment::Unknown => {}
        }
    }
    // serde reports a missing field on its parent, with the name in the message.
    let message = err.inner().to_string();
    let message = message.split(" at line ").next().unwrap_or(&message).to_string();
    if let Some(name) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        fields.push(name.to_string());
        return Error::invalid_input(index, fields.join("."), "is required");
    }
    if index.is_none() && fields.is_empty() {
        return Error::invalid_input(
            None,
            "tasks",
            format!("must be a list of task objects: {message}"),
        );
    }
    Error::invalid_input(index, fields.join("."), message)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn type_errors_name_index_and_field() {
        let json = serde_json::json!([
            serde_json::to_value(ServerTask::new("a", "10.0.0.1", "10.0.0.1", SystemType::Linux)).unwrap(),
            {"server_name": "b", "private_ip": "10.0.0.1", "server_ip": "10.0.0.1",
             "server_systype": "7", "frequency": 5, "snmp_port": 161, "snmp_v": 0,
             "use_agent": 0, "alert_setting": {"scope": 3}, "task_type": ["cpu"]}
        ]);
        let err = ServerTask::batch_from_json(json).unwrap_err();
        match err {
            Error::InvalidInput { index, field, rule } => {
                assert_eq!(index, Some(1));
                assert_eq!(field, "server_systype");
                assert!(rule.contains("0 (linux) or 1 (windows)"), "{rule}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_field_is_named() {
        let json = serde_json::json!([{"server_name": "b"}]);
        let err = ServerTask::batch_from_json(json).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput { index: Some(0), field, .. } if field == "private_ip"),
            "{err:?}"
        );
    }
}
