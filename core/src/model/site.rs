use std::collections::BTreeMap;

use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::de;

/// A site task report: monitoring-point id to its data; id `0` is the average of all points.
///
/// ```
/// let json = r#"{"0":{"name":"avg","uprate":{"1763769600":{"uprate":"99.50"}},
///                "fault":null,"resptime":[]}}"#;
/// let report: monapi::SiteReport = serde_json::from_str(json).unwrap();
/// let avg = &report.points[&0];
/// assert_eq!(avg.uprate[&1763769600].uprate, 99.5);
/// assert!(avg.fault.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SiteReport {
    /// Monitoring-point id to its data.
    #[serde(deserialize_with = "de::map")]
    pub points: BTreeMap<u64, MonitoringPoint>,
}

/// The data of one monitoring point in a site report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MonitoringPoint {
    /// Point name.
    #[serde(default, deserialize_with = "de::text")]
    pub name: String,
    /// Availability per check time (unix seconds, of the years 1 to 9999).
    #[serde(default, deserialize_with = "uprate_checks")]
    pub uprate: BTreeMap<i64, Uprate>,
    /// Faults in the period; `None` when the service sent `null` or an empty object (no
    /// fault).
    #[serde(default, deserialize_with = "faults")]
    pub fault: Option<Faults>,
    /// Response times per check time (unix seconds, of the years 1 to 9999).
    #[serde(default, deserialize_with = "resptime_checks")]
    pub resptime: BTreeMap<i64, ResponseTime>,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Availability at one check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Uprate {
    /// Availability ratio (percent).
    #[serde(deserialize_with = "de::number")]
    pub uprate: f64,
}

/// Response times at one check, in milliseconds: the unit the figures show (the parts add up
/// to the total; see `docs/service.md`), which the service's documentation leaves unnamed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseTime {
    /// Slowest.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resptime_max: Option<f64>,
    /// Average.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resptime_avg: Option<f64>,
    /// Fastest.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resptime_min: Option<f64>,
    /// Server processing time.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resp_process_time: Option<f64>,
    /// Connection time.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resp_connect_time: Option<f64>,
    /// DNS resolution time.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resp_dns_time: Option<f64>,
    /// Content download time.
    #[serde(default, deserialize_with = "de::opt_number")]
    pub resp_download_time: Option<f64>,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The faults of a monitoring point in the period.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Faults {
    /// The service's `count`.
    pub count: u64,
    /// Fault records by their index (`0`, `1`, ...).
    pub records: BTreeMap<u32, Fault>,
}

/// One fault.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    /// When it began (unix seconds, of the years 1 to 9999: another time is an error).
    #[serde(deserialize_with = "start_time")]
    pub start_time: i64,
    /// When it ended, or that it has not.
    pub end_time: FaultEnd,
    /// Duration text.
    #[serde(default, deserialize_with = "de::text")]
    pub diff_time: String,
    /// Cause text.
    #[serde(default, deserialize_with = "de::text")]
    pub fault_status: String,
    /// Duration of the current fault period, as text.
    #[serde(default, deserialize_with = "de::text")]
    pub current_fault_period: String,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A fault's `end_time`: a unix timestamp, or a text meaning it has not ended. What is not a
/// time of the years 1 to 9999 (a text, a fraction, `0`, a number out of that range) is read
/// as the service's word that the fault goes on, as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FaultEnd {
    /// Ended at this time (unix seconds).
    Ended(i64),
    /// Still going on; holds the service's text (e.g. `未结束`).
    Ongoing(String),
}

impl FaultEnd {
    /// Whether the fault is still going on.
    pub fn is_ongoing(&self) -> bool {
        matches!(self, FaultEnd::Ongoing(_))
    }
}

impl<'de> Deserialize<'de> for FaultEnd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Number(n) => n
                .as_i64()
                .and_then(de::unix_time)
                .map(FaultEnd::Ended)
                .unwrap_or_else(|| FaultEnd::Ongoing(n.to_string())),
            Value::String(s) => match s.trim().parse::<i64>().ok().and_then(de::unix_time) {
                Some(t) if t > 0 => FaultEnd::Ended(t),
                _ => FaultEnd::Ongoing(s),
            },
            Value::Null => FaultEnd::Ongoing(String::new()),
            other => return Err(D::Error::custom(format!("unexpected end_time {other}"))),
        })
    }
}

fn uprate_checks<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<i64, Uprate>, D::Error> {
    de::checks(d, "uprate")
}

fn resptime_checks<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<i64, ResponseTime>, D::Error> {
    de::checks(d, "resptime")
}

fn start_time<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    de::time(d, "start_time")
}

/// `fault`: `null`, `{}` (or PHP's `[]`) mean none; otherwise numbered records plus `count`.
fn faults<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Faults>, D::Error> {
    struct FaultsVisitor;
    impl<'de> Visitor<'de> for FaultsVisitor {
        type Value = Option<Faults>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("null or an object of fault records and count")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            // PHP's empty array; anything in it is not a shape we know.
            if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                return Err(A::Error::custom("expected fault records, got a list"));
            }
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut faults = Faults::default();
            let mut count = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == "count" {
                    count = Some(map.next_value::<Counted>()?.0);
                } else {
                    let index = key
                        .parse()
                        .map_err(|_| A::Error::custom(format!("unexpected fault key {key:?}")))?;
                    faults.records.insert(index, map.next_value()?);
                }
            }
            faults.count = count.unwrap_or(faults.records.len() as u64);
            // An empty object (PHP's empty array, as the client hands it over) is no fault.
            if faults.records.is_empty() && faults.count == 0 {
                return Ok(None);
            }
            Ok(Some(faults))
        }
    }
    d.deserialize_any(FaultsVisitor)
}

#[derive(Deserialize)]
struct Counted(#[serde(deserialize_with = "de::number")] u64);

/// The response-time distribution of a site task: bucket lower bound (ms) to bucket.
/// Empty buckets may be absent.
///
/// ```
/// let json = r#"{"0":{"start":0,"end":100,"count":12,"percent":"4.17"}}"#;
/// let dist: monapi::Distribution = serde_json::from_str(json).unwrap();
/// assert_eq!(dist.buckets[&0].percent, 4.17);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Distribution {
    /// Lower bound in milliseconds to bucket.
    #[serde(deserialize_with = "de::map")]
    pub buckets: BTreeMap<u64, Bucket>,
}

/// One bucket of a response-time distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    /// Bucket start, milliseconds.
    #[serde(deserialize_with = "de::number")]
    pub start: u64,
    /// Bucket end, milliseconds.
    #[serde(deserialize_with = "de::number")]
    pub end: u64,
    /// Checks whose response time fell in the bucket.
    #[serde(deserialize_with = "de::number")]
    pub count: u64,
    /// Share of all checks in the period, percent.
    #[serde(deserialize_with = "de::number")]
    pub percent: f64,
}
