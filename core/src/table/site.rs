//! The three site report tables, read straight from the body (see `service.rs`).

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, StringBuilder, TimestampSecondBuilder,
};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, TimestampSecondArray};
use arrow_schema::SchemaRef;
use chrono::FixedOffset;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::columns::{empty_list, signed, timestamps, Interner};
use super::{Body, SiteTables};
use crate::model::de::{self as lenient, Measure};
use crate::model::{Fault, FaultEnd};

pub(super) fn build(task_id: u64, body: Body<'_>, timezone: FixedOffset) -> serde_json::Result<SiteTables> {
    let mut builder = Builder::default();
    body.read(|text| Points(&mut builder).deserialize(text))?;
    Ok(builder.finish(task_id, timezone))
}

impl crate::Decoder<SiteTables> {
    /// The decoder of a site report's tables, whole or as the body arrives (what
    /// `Tables::site_report` reads with). For the fuzz targets (`fuzz/`).
    #[doc(hidden)]
    pub fn site_tables(task_id: u64, timezone: FixedOffset) -> crate::Decoder<SiteTables> {
        crate::Decoder::new(true, move |body| build(task_id, Body::Whole(body), timezone))
            .with_members(move |members| build(task_id, Body::Members(members), timezone))
    }
}

/// Rows of one table that belong to monitoring points: which point (an index into
/// `Builder::points`) and when.
#[derive(Default)]
struct PointRows {
    point: Vec<usize>,
    time: Vec<i64>,
}

impl PointRows {
    fn push(&mut self, point: usize, time: i64) {
        self.point.push(point);
        self.time.push(time);
    }
}

#[derive(Default)]
struct Builder {
    /// Every point in the body's order: id and name.
    points: Vec<(u32, String)>,
    availability: PointRows,
    uprate: Float64Builder,
    response_time: PointRows,
    response_values: [Float64Builder; 7],
    // Faults.
    fault_point: Vec<usize>,
    fault_start: Vec<i64>,
    fault_end: TimestampSecondBuilder,
    fault_ongoing: BooleanBuilder,
    fault_duration: Int64Builder,
    causes: Interner,
    fault_cause: Vec<i32>,
    fault_diff_time: StringBuilder,
    fault_period: StringBuilder,
}

impl Builder {
    fn push_fault(&mut self, point: usize, fault: Fault) {
        let end = match fault.end_time {
            FaultEnd::Ended(end) => Some(end),
            FaultEnd::Ongoing(_) => None,
        };
        self.fault_point.push(point);
        self.fault_start.push(fault.start_time);
        self.fault_end.append_option(end);
        self.fault_ongoing.append_value(end.is_none());
        // Both are times of the years 1 to 9999 (the model's rule), whose difference fits;
        // checked all the same, as every sum of the network's numbers.
        self.fault_duration
            .append_option(end.and_then(|end| end.checked_sub(fault.start_time)));
        self.fault_cause.push(self.causes.intern(&fault.fault_status));
        self.fault_diff_time.append_value(&fault.diff_time);
        self.fault_period.append_value(&fault.current_fault_period);
    }

    fn finish(mut self, task_id: u64, timezone: FixedOffset) -> SiteTables {
        // Two points may share a name: the dictionary holds each name once.
        let mut names = Interner::default();
        let name_keys: Vec<i32> = self.points.iter().map(|(_, name)| names.intern(name)).collect();
        let ids: Vec<u32> = self.points.iter().map(|(id, _)| *id).collect();
        // task_id, monitor_id, monitor for the rows of `points`.
        let point_columns = |points: &[usize]| -> [ArrayRef; 3] {
            [
                Arc::new(Int64Array::from(vec![signed(task_id); points.len()])),
                Arc::new(points.iter().map(|&p| i64::from(ids[p])).collect::<Int64Array>()),
                names.column(points.iter().map(|&p| name_keys[p]).collect()),
            ]
        };
        let batch = |schema: SchemaRef, columns: Vec<ArrayRef>| {
            RecordBatch::try_new(schema, columns).expect("the columns follow the schema")
        };
        let time = |rows: PointRows| timestamps(TimestampSecondArray::from(rows.time), timezone);

        let mut columns = point_columns(&self.availability.point).to_vec();
        columns.push(time(self.availability));
        columns.push(Arc::new(self.uprate.finish()));
        let availability = batch(super::site_availability_schema(timezone), columns);

        let mut columns = point_columns(&self.response_time.point).to_vec();
        columns.push(time(self.response_time));
        columns.extend(
            self.response_values
                .iter_mut()
                .map(|values| Arc::new(values.finish()) as ArrayRef),
        );
        let response_time = batch(super::site_response_time_schema(timezone), columns);

        let mut columns = point_columns(&self.fault_point).to_vec();
        columns.extend([
            timestamps(TimestampSecondArray::from(self.fault_start), timezone),
            timestamps(self.fault_end.finish(), timezone),
            Arc::new(self.fault_ongoing.finish()),
            Arc::new(self.fault_duration.finish()),
            self.causes.column(self.fault_cause),
            Arc::new(self.fault_diff_time.finish()),
            Arc::new(self.fault_period.finish()),
        ]);
        let faults = batch(super::site_faults_schema(timezone), columns);

        SiteTables {
            availability,
            response_time,
            faults,
        }
    }
}

/// A map key parsed as `T` (ids, unix times), with the typed models' error.
struct Key<T>(PhantomData<T>);

impl<'de, T: FromStr> DeserializeSeed<'de> for Key<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<T: FromStr> Visitor<'_> for Key<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a numeric key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse()
            .map_err(|_| de::Error::custom(format!("unexpected key {v:?}")))
    }
}

fn key<T: FromStr>() -> Key<T> {
    Key(PhantomData)
}

/// A check time as a map key: unix seconds of the years 1 to 9999 (the typed model's rule);
/// the error names the map (`uprate`, `resptime`).
struct CheckTime(&'static str);

impl<'de> DeserializeSeed<'de> for CheckTime {
    type Value = i64;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<i64, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for CheckTime {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a check time")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
        let seconds = key::<i64>().visit_str(v)?;
        lenient::unix_time(seconds).ok_or_else(|| {
            de::Error::custom(lenient::time_out_of_range(
                self.0,
                format_args!("check time {v:?}"),
            ))
        })
    }
}

/// The report: monitoring-point id to the point's data.
struct Points<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for Points<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Points<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of monitoring points")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        empty_list(seq, "an object of monitoring points")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(id) = map.next_key_seed(key::<u32>())? {
            let point = self.0.points.len();
            self.0.points.push((id, String::new()));
            map.next_value_seed(Point {
                builder: &mut *self.0,
                point,
            })?;
        }
        Ok(())
    }
}

/// One monitoring point's data: `name`, `uprate`, `fault`, `resptime`, in any order.
struct Point<'a> {
    builder: &'a mut Builder,
    point: usize,
}

impl<'de> DeserializeSeed<'de> for Point<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

#[derive(Deserialize)]
struct Text(#[serde(deserialize_with = "lenient::text")] String);

impl<'de> Visitor<'de> for Point<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a monitoring point object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (builder, point) = (self.builder, self.point);
        while let Some(field) = map.next_key::<PointField>()? {
            match field {
                PointField::Name => builder.points[point].1 = map.next_value::<Text>()?.0,
                PointField::Uprate => map.next_value_seed(Checks {
                    builder: &mut *builder,
                    point,
                    kind: CheckKind::Uprate,
                })?,
                PointField::Resptime => map.next_value_seed(Checks {
                    builder: &mut *builder,
                    point,
                    kind: CheckKind::ResponseTime,
                })?,
                PointField::Fault => map.next_value_seed(Faults {
                    builder: &mut *builder,
                    point,
                })?,
                PointField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum PointField {
    Name,
    Uprate,
    Resptime,
    Fault,
    #[serde(other)]
    Other,
}

#[derive(Clone, Copy)]
enum CheckKind {
    Uprate,
    ResponseTime,
}

/// `uprate` or `resptime`: unix time of the check to its record.
struct Checks<'a> {
    builder: &'a mut Builder,
    point: usize,
    kind: CheckKind,
}

impl<'de> DeserializeSeed<'de> for Checks<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// `{"uprate": "99.50"}`; `null` or a missing field is no value.
#[derive(Deserialize)]
struct UprateRecord {
    #[serde(default)]
    uprate: Measure,
}

/// A response-time record; a missing field is no value.
#[derive(Deserialize)]
struct ResponseTimeRecord {
    #[serde(default)]
    resptime_max: Measure,
    #[serde(default)]
    resptime_avg: Measure,
    #[serde(default)]
    resptime_min: Measure,
    #[serde(default)]
    resp_process_time: Measure,
    #[serde(default)]
    resp_connect_time: Measure,
    #[serde(default)]
    resp_dns_time: Measure,
    #[serde(default)]
    resp_download_time: Measure,
}

impl<'de> Visitor<'de> for Checks<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object keyed by check time")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        empty_list(seq, "an object keyed by check time")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let builder = self.builder;
        let field = match self.kind {
            CheckKind::Uprate => "uprate",
            CheckKind::ResponseTime => "resptime",
        };
        while let Some(time) = map.next_key_seed(CheckTime(field))? {
            match self.kind {
                CheckKind::Uprate => {
                    let record = map.next_value::<Option<UprateRecord>>()?;
                    builder.availability.push(self.point, time);
                    builder.uprate.append_option(record.and_then(|r| r.uprate.0));
                }
                CheckKind::ResponseTime => {
                    let values = match map.next_value::<Option<ResponseTimeRecord>>()? {
                        Some(r) => [
                            r.resptime_max,
                            r.resptime_avg,
                            r.resptime_min,
                            r.resp_process_time,
                            r.resp_connect_time,
                            r.resp_dns_time,
                            r.resp_download_time,
                        ],
                        None => [Measure(None); 7],
                    };
                    builder.response_time.push(self.point, time);
                    for (column, value) in builder.response_values.iter_mut().zip(values) {
                        column.append_option(value.0);
                    }
                }
            }
        }
        Ok(())
    }
}

/// `fault`: `null` (or `[]`) for none, else fault records by index plus `count`.
struct Faults<'a> {
    builder: &'a mut Builder,
    point: usize,
}

impl<'de> DeserializeSeed<'de> for Faults<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Faults<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or an object of fault records and count")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        empty_list(seq, "fault records")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<FaultKey>()? {
            match key {
                // The rows are the count.
                FaultKey::Count => {
                    map.next_value::<IgnoredAny>()?;
                }
                FaultKey::Record => {
                    let fault: Fault = map.next_value()?;
                    self.builder.push_fault(self.point, fault);
                }
            }
        }
        Ok(())
    }
}

/// `count`, or the index of a fault record (`0`, `1`, ...).
enum FaultKey {
    Count,
    Record,
}

impl<'de> Deserialize<'de> for FaultKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FaultKeyVisitor;
        impl Visitor<'_> for FaultKeyVisitor {
            type Value = FaultKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`count` or a fault index")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FaultKey, E> {
                match v {
                    "count" => Ok(FaultKey::Count),
                    index if index.parse::<u32>().is_ok() => Ok(FaultKey::Record),
                    other => Err(de::Error::custom(format!("unexpected fault key {other:?}"))),
                }
            }
        }
        deserializer.deserialize_str(FaultKeyVisitor)
    }
}
