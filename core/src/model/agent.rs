use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::de;

/// A collector agent (a value of the agent list, which is keyed by agent id).
///
/// ```
/// let json = r#"{"name":"bj-01","agentUrl":{"windows":"http://d/w","linux":"http://d/l"},
///                "plugin":[{"plugin_id":"1","plugin_name":"apache","plugin_task_uselist_id":"9001"}]}"#;
/// let agent: monapi::Agent = serde_json::from_str(json).unwrap();
/// assert_eq!(agent.plugin[0].plugin_task_uselist_id, "9001");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    /// Agent name.
    #[serde(default, deserialize_with = "de::text")]
    pub name: String,
    /// Download addresses (`agentUrl`).
    #[serde(rename = "agentUrl", default)]
    pub agent_url: AgentUrls,
    /// The agent's plugins.
    #[serde(default, deserialize_with = "de::list")]
    pub plugin: Vec<Plugin>,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Where to download an agent; each URL embeds a per-agent key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentUrls {
    /// Windows package URL.
    #[serde(default, deserialize_with = "de::text")]
    pub windows: String,
    /// Linux package URL.
    #[serde(default, deserialize_with = "de::text")]
    pub linux: String,
    /// Other platforms, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A plugin of an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plugin {
    /// Plugin id.
    #[serde(default, deserialize_with = "de::text")]
    pub plugin_id: String,
    /// Plugin name.
    #[serde(default, deserialize_with = "de::text")]
    pub plugin_name: String,
    /// The id to put in [`ServerTask::plugin_task_uselist_id`](crate::ServerTask) to use this
    /// plugin.
    #[serde(default, deserialize_with = "de::text")]
    pub plugin_task_uselist_id: String,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
