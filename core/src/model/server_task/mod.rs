//! Server monitoring tasks for the create operation, with the service's rules checked before
//! anything is sent: every problem of a batch at once, in the order the service checks them.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::de as lenient;
use crate::{Error, Problem, Result, Secret};

mod rules;

use rules::{check, Parsed};

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
    /// The indicators the service allows for a system type, in the order its documentation
    /// lists them.
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
#[serde(deny_unknown_fields)]
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

/// `alert_setting` of a server task. A field left out takes its value from
/// [`AlertSetting::default`] (no recipients, scope 3: the creator only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlertSetting {
    /// Channels and their recipients.
    pub alert: Alerts,
    /// Who sees the task's alerts.
    pub scope: Scope,
    /// The user group; required when `scope` is [`Scope::UserGroup`].
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "opt_text")]
    pub organization: Option<String>,
    /// The users; required when `scope` is [`Scope::SelectedUsers`].
    #[serde(skip_serializing_if = "Vec::is_empty", with = "id_list")]
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
/// Scalars are sent as strings, as the service's documentation shows them. Build one with
/// [`ServerTask::new`], which fills every field but the four it takes with its default, and
/// adjust the public fields; [`validate`](ServerTask::validate) checks the service's rules
/// (the client calls it before sending).
///
/// It deserializes from an object with the service's field names, where each scalar may be a
/// string or a number and any field but `server_name`, `private_ip`, `server_ip` and
/// `server_systype` may be left out to take the default of [`ServerTask::new`]; a field the
/// service does not know is refused (a misspelt field would otherwise fall back to its
/// default unnoticed). [`ServerTask::batch_from_json`] reads a whole batch this way and names
/// every problem.
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServerTask {
    /// Task name; must not be empty.
    pub server_name: String,
    /// The server's IP address.
    pub private_ip: String,
    /// The IP address SNMP is polled on.
    pub server_ip: String,
    /// Operating system.
    pub server_systype: SystemType,
    /// Minutes between checks, in [`FREQUENCY_RANGE`].
    #[serde(serialize_with = "as_text")]
    pub frequency: u32,
    /// SNMP agent port, in [`SNMP_PORT_RANGE`].
    #[serde(serialize_with = "as_text")]
    pub snmp_port: u32,
    /// SNMP version.
    pub snmp_v: SnmpVersion,
    /// Community (SNMP v2c); required for v2c.
    pub snmp_comm: String,
    /// Security name (SNMP v3); required for v3.
    pub snmp_user: String,
    /// Pass phrase (SNMP v3); required for v3. Never printed.
    pub snmp_pass: Secret,
    /// Authentication protocol (SNMP v3).
    pub snmp_authtype: AuthType,
    /// Whether agent plugins are used (`use_agent`); when true,
    /// `plugin_task_uselist_id` must name at least one plugin.
    #[serde(with = "flag")]
    pub use_agent: bool,
    /// Plugin association ids (`plugin_task_uselist_id` of the agent list's plugins).
    #[serde(with = "id_list")]
    pub plugin_task_uselist_id: Vec<String>,
    /// Alert settings.
    pub alert_setting: AlertSetting,
    /// Indicators to monitor; each must be allowed for the system type.
    pub task_type: Vec<Indicator>,
}

fn opt_text<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    let text = lenient::text(d)?;
    Ok((!text.is_empty()).then_some(text))
}

fn as_text<S: Serializer>(value: &u32, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// `"0"`/`"1"` on the wire; read from digits, numbers or booleans.
pub(super) mod flag {
    use super::*;

    wire_enum!(Flag, "0 or 1", { Off = "0" | "false", On = "1" | "true" });

    pub fn serialize<S: Serializer>(v: &bool, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(if *v { "1" } else { "0" })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
        Ok(Flag::deserialize(d)? == Flag::On)
    }
}

/// A list of ids: sent as one comma-separated string (as the service's documentation shows
/// it), read from such a string, a number, or an array of strings and numbers.
pub(super) mod id_list {
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
                    )));
                }
            }
        }
        Ok(out)
    }
}

impl ServerTask {
    /// A task with the defaults every language uses for the fields it leaves out:
    ///
    /// | field | default |
    /// |---|---|
    /// | `frequency` | `5` (minutes) |
    /// | `snmp_port` | `161` |
    /// | `snmp_v` | `0` (SNMP v2c) |
    /// | `snmp_comm` | `public` |
    /// | `snmp_user`, `snmp_pass` | empty |
    /// | `snmp_authtype` | `0` (MD5) |
    /// | `use_agent` | `0` (no agent plugins) |
    /// | `plugin_task_uselist_id` | none |
    /// | `alert_setting` | no recipients, `scope` 3 (alerts visible to the creator only) |
    /// | `task_type` | every indicator the system type allows ([`Indicator::allowed_for`]) |
    ///
    /// A Python dict or a JavaScript object given to `create_server_tasks` may leave out any
    /// of these fields and gets the same default.
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
            snmp_pass: Secret::new(""),
            snmp_authtype: AuthType::Md5,
            use_agent: false,
            plugin_task_uselist_id: Vec::new(),
            alert_setting: AlertSetting::default(),
            task_type: Indicator::allowed_for(system).to_vec(),
        }
    }

    /// Checks the service's rules.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming every field that breaks a
    /// rule, with the rule, in the order the service checks them.
    pub fn validate(&self) -> Result<()> {
        Problem::into_result(check(&Parsed::from(self), None))
    }

    /// Checks every task of a batch.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `tasks` when the batch is
    /// empty; otherwise naming every problem, as [`validate`](ServerTask::validate) does, with
    /// its task's index in `tasks`, task by task.
    pub fn validate_batch(tasks: &[ServerTask]) -> Result<()> {
        if tasks.is_empty() {
            return Err(Error::invalid_input(None, "tasks", "must hold at least one task"));
        }
        let problems = tasks
            .iter()
            .enumerate()
            .flat_map(|(i, task)| check(&Parsed::from(task), Some(i)))
            .collect();
        Problem::into_result(problems)
    }

    /// Reads a batch from loosely typed JSON (as Python dicts or JavaScript objects arrive):
    /// each scalar may be a string or a number, and left-out fields take the defaults of
    /// [`ServerTask::new`]. Then checks it.
    ///
    /// ```
    /// let json = serde_json::json!([
    ///     { "server_name": "a", "private_ip": "10.0.0.1", "server_ip": "10.0.0.1",
    ///       "server_systype": "linux", "frequency": 10, "task_type": ["cpu"] },
    ///     { "server_name": "b", "private_ip": "10.0.0.2", "server_ip": "10.0.0.2",
    ///       "server_systype": 1, "frequency": 0, "task_type": ["cpu"] },
    /// ]);
    /// let err = monapi::ServerTask::batch_from_json(json).unwrap_err();
    /// let problems: Vec<_> = err.problems().iter().map(|p| (p.index, p.field.as_str())).collect();
    /// assert_eq!(problems, [(Some(1), "frequency"), (Some(1), "task_type")]);
    /// ```
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `tasks` when `value` is
    /// not a list or is an empty one; otherwise naming every problem, a value of the wrong type
    /// or a broken rule, with the task's index and the field, task by task in the order the
    /// service checks fields.
    pub fn batch_from_json(value: Value) -> Result<Vec<ServerTask>> {
        let items = lenient::batch_items(&value)?;
        let mut problems = Vec::new();
        let mut tasks = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let parsed = Parsed::from_json(item, Some(i));
            problems.extend(check(&parsed, Some(i)));
            tasks.extend(parsed.into_task());
        }
        Problem::into_result(problems)?;
        Ok(tasks)
    }
}

impl<'de> Deserialize<'de> for ServerTask {
    /// Reads one task as [`ServerTask::batch_from_json`] does (left-out fields take their
    /// defaults); the first field that cannot be read is the error. The rules are checked by
    /// [`ServerTask::validate`].
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let parsed = Parsed::from_json(&value, None);
        if let Some(problem) = parsed.problems.first() {
            return Err(de::Error::custom(problem));
        }
        parsed
            .into_task()
            .ok_or_else(|| de::Error::custom("not a server task"))
    }
}
