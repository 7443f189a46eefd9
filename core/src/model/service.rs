use indexmap::IndexMap;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::de;

/// One service monitoring task of the service task list.
///
/// ```
/// let json = r#"{"task_id":"10001","task_name":"web","task_type":"apache","frequency":"5",
///                "last_check_time":"2026-11-21 23:55:00","task_status":"启用"}"#;
/// let task: monapi::ServiceTask = serde_json::from_str(json).unwrap();
/// assert_eq!((task.task_id, task.frequency), (10001, Some(5)));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceTask {
    /// Task id (used by [`Client::service_report`](crate::Client::service_report)).
    #[serde(deserialize_with = "de::whole")]
    pub task_id: u64,
    /// Task name.
    #[serde(default, deserialize_with = "de::text")]
    pub task_name: String,
    /// Kind of service: apache, nginx, lighttpd, memcache, mongodb, mysql, redis, tomcat, or
    /// another the service adds.
    #[serde(default, deserialize_with = "de::text")]
    pub task_type: String,
    /// Minutes between checks.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub frequency: Option<u32>,
    /// Time of the last check, `YYYY-MM-DD HH:MM:SS`, as the service wrote it.
    #[serde(default, deserialize_with = "de::text")]
    pub last_check_time: String,
    /// Status text (the service's word for enabled is `启用`).
    #[serde(default, deserialize_with = "de::text")]
    pub task_status: String,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A service task report: one series per key (which keys depends on the service type, e.g.
/// `apache_rps`), each a list of records, one per check.
///
/// ```
/// let json = r#"{"apache_rps":[{"time":"00:00","rps":"12.50"}]}"#;
/// let report: monapi::ServiceReport = serde_json::from_str(json).unwrap();
/// let record = &report.series["apache_rps"][0];
/// assert_eq!(record.time.as_deref(), Some("00:00"));
/// assert_eq!(record.values["rps"], 12.5);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServiceReport {
    /// Series name to records, in the service's order.
    #[serde(deserialize_with = "series")]
    pub series: IndexMap<String, Vec<ServiceRecord>>,
}

/// One check of a service report series.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ServiceRecord {
    /// The `time` field (`HH:MM`), where the service sends one.
    pub time: Option<String>,
    /// Every other field whose value is a number (or a string holding one), parsed.
    pub values: IndexMap<String, f64>,
    /// Fields whose values are not numbers, kept as sent.
    pub extra: Map<String, Value>,
}

/// The series object; PHP sends an empty report as `[]`.
fn series<'de, D: Deserializer<'de>>(d: D) -> Result<IndexMap<String, Vec<ServiceRecord>>, D::Error> {
    #[derive(Deserialize)]
    struct Records(#[serde(deserialize_with = "de::list")] Vec<ServiceRecord>);

    struct SeriesVisitor;
    impl<'de> Visitor<'de> for SeriesVisitor {
        type Value = IndexMap<String, Vec<ServiceRecord>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of series")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                return Err(serde::de::Error::custom(
                    "expected an object of series, got a list",
                ));
            }
            Ok(IndexMap::new())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = IndexMap::new();
            while let Some((name, Records(records))) = map.next_entry::<String, Records>()? {
                out.insert(name, records);
            }
            Ok(out)
        }
    }
    d.deserialize_any(SeriesVisitor)
}

impl<'de> Deserialize<'de> for ServiceRecord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RecordVisitor;
        impl<'de> Visitor<'de> for RecordVisitor {
            type Value = ServiceRecord;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a report record object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ServiceRecord, A::Error> {
                let mut record = ServiceRecord::default();
                while let Some((key, value)) = map.next_entry::<String, Value>()? {
                    let number = match &value {
                        Value::Number(n) => n.as_f64(),
                        Value::String(s) if key != "time" => de::number_in_text(s),
                        _ => None,
                    };
                    match (key.as_str(), number, value) {
                        ("time", _, Value::String(s)) => record.time = Some(s),
                        (_, Some(n), _) => {
                            record.values.insert(key, n);
                        }
                        (_, None, value) => {
                            record.extra.insert(key, value);
                        }
                    }
                }
                Ok(record)
            }
        }
        d.deserialize_map(RecordVisitor)
    }
}
