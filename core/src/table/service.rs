//! The long service report table, read straight from the body: serde drives the reading
//! and each value lands in its column (no `serde_json::Value`, no `String` per cell).

use std::fmt;
use std::sync::Arc;

use arrow_array::builder::{Float64Builder, TimestampSecondBuilder};
use arrow_array::{Int64Array, RecordBatch};
use chrono::{FixedOffset, NaiveDate};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::columns::{empty_list, midnight, timestamps, Interner};
use super::Body;
use crate::model::de::{trimmed, unix_time, Measure};

pub(super) fn build(
    task_id: u64,
    body: Body<'_>,
    start: NaiveDate,
    timezone: FixedOffset,
) -> serde_json::Result<RecordBatch> {
    // A row takes some 20 bytes of the body: room for most rows at once saves the copies of
    // growing columns.
    let rows = body.len().unwrap_or(0) / 24;
    let mut builder = Builder {
        task_id,
        start: midnight(start, timezone),
        series: Interner::default(),
        metrics: Interner::default(),
        series_keys: Vec::with_capacity(rows),
        times: TimestampSecondBuilder::with_capacity(rows),
        metric_keys: Vec::with_capacity(rows),
        values: Float64Builder::with_capacity(rows),
        current_series: 0,
        days: 0,
        last_clock: None,
        record_clock: None,
        record_values: Vec::new(),
        record_names: Vec::new(),
        record_fields: 0,
    };
    body.read(|text| Report(&mut builder).deserialize(text))?;
    Ok(builder.finish(timezone))
}

impl crate::Decoder<RecordBatch> {
    /// The decoder of a service report's table, whole or as the body arrives (what
    /// `Tables::service_report` reads with). For the fuzz targets (`fuzz/`).
    #[doc(hidden)]
    pub fn service_table(
        task_id: u64,
        start: NaiveDate,
        timezone: FixedOffset,
    ) -> crate::Decoder<RecordBatch> {
        crate::Decoder::new(true, move |body| {
            build(task_id, Body::Whole(body), start, timezone)
        })
        .with_members(move |members| build(task_id, Body::Members(members), start, timezone))
    }
}

struct Builder {
    task_id: u64,
    /// Unix time of the first day's midnight.
    start: i64,
    series: Interner,
    metrics: Interner,
    // The columns.
    series_keys: Vec<i32>,
    times: TimestampSecondBuilder,
    metric_keys: Vec<i32>,
    values: Float64Builder,
    // The series being read: its name, how many times its clock went backwards, its last
    // clock time (seconds into the day).
    current_series: i32,
    days: i64,
    last_clock: Option<u32>,
    // The record being read (its fields may come in any order).
    record_clock: Option<u32>,
    record_values: Vec<(i32, Option<f64>)>,
    /// The field names of the series' last record by position, with their field: records of
    /// a series repeat their names in the same order, so a name is mostly found by one
    /// comparison instead of a hash lookup.
    record_names: Vec<(Box<str>, Field)>,
    /// How many fields of the record have been read.
    record_fields: usize,
}

impl Builder {
    fn begin_series(&mut self, series: i32) {
        self.current_series = series;
        self.days = 0;
        self.last_clock = None;
        self.record_names.clear();
    }

    /// The field called `name`, the record's next.
    fn field(&mut self, name: &str) -> Field {
        let position = self.record_fields;
        self.record_fields += 1;
        if let Some((known, field)) = self.record_names.get(position)
            && **known == *name
        {
            return *field;
        }
        let field = match name {
            "time" => Field::Time,
            metric => Field::Metric(self.metrics.intern(metric)),
        };
        self.record_names.truncate(position);
        self.record_names.push((name.into(), field));
        field
    }

    fn end_record(&mut self) {
        self.record_fields = 0;
        let time = self.record_clock.take().and_then(|clock| {
            if self.last_clock.is_some_and(|last| clock < last) {
                // A day per record at most: bounded by the body's length, saturated anyway.
                self.days = self.days.saturating_add(1);
            }
            self.last_clock = Some(clock);
            // Past the year 9999 (the bound of every time read) it is no time: null, as an
            // unreadable one.
            self.days
                .checked_mul(86_400)
                .and_then(|days| self.start.checked_add(days))
                .and_then(|day| day.checked_add(i64::from(clock)))
                .and_then(unix_time)
        });
        for (metric, value) in self.record_values.drain(..) {
            self.series_keys.push(self.current_series);
            self.times.append_option(time);
            self.metric_keys.push(metric);
            self.values.append_option(value);
        }
    }

    fn finish(mut self, timezone: FixedOffset) -> RecordBatch {
        let rows = self.series_keys.len();
        RecordBatch::try_new(
            super::service_report_schema(timezone),
            vec![
                Arc::new(Int64Array::from(vec![super::columns::signed(self.task_id); rows])),
                self.series.column(self.series_keys),
                timestamps(self.times.finish(), timezone),
                self.metrics.column(self.metric_keys),
                Arc::new(self.values.finish()),
            ],
        )
        .expect("the columns follow the schema")
    }
}

/// The report: an object of series, or PHP's `[]` when it has none.
struct Report<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for Report<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Report<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of series")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        empty_list(seq, "an object of series")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(series) = map.next_key_seed(Name(&mut self.0.series))? {
            self.0.begin_series(series);
            map.next_value_seed(Records(&mut *self.0))?;
        }
        Ok(())
    }
}

/// A name, interned as it is read.
struct Name<'a>(&'a mut Interner);

impl<'de> DeserializeSeed<'de> for Name<'_> {
    type Value = i32;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<i32, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Name<'_> {
    type Value = i32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<i32, E> {
        Ok(self.0.intern(v))
    }
}

/// The records of one series: a list (PHP may send an empty one as `{}`, or `null`).
struct Records<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for Records<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Records<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of records")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Record(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "expected a list of records, got a non-empty object",
            ));
        }
        Ok(())
    }
}

/// One record: `time` and the measured fields, in any order.
struct Record<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for Record<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Record<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a report record object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let builder = self.0;
        while let Some(field) = map.next_key_seed(FieldName(&mut *builder))? {
            match field {
                Field::Time => builder.record_clock = map.next_value::<Clock>()?.0,
                Field::Metric(metric) => {
                    let Measure(value) = map.next_value()?;
                    builder.record_values.push((metric, value));
                }
            }
        }
        builder.end_record();
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Field {
    Time,
    Metric(i32),
}

/// A record's field name: `time`, or a metric (interned).
struct FieldName<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for FieldName<'_> {
    type Value = Field;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Field, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldName<'_> {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        Ok(self.0.field(v))
    }
}

/// A clock time `HH:MM` (or `HH:MM:SS`) as seconds into the day; anything else (junk text,
/// a number, null, ...) is no time.
struct Clock(Option<u32>);

impl<'de> Deserialize<'de> for Clock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ClockVisitor;
        impl<'de> Visitor<'de> for ClockVisitor {
            type Value = Clock;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a clock time")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Clock, E> {
                Ok(Clock(clock(v)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Clock, E> {
                Ok(Clock(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Clock, E> {
                Ok(Clock(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Clock, E> {
                Ok(Clock(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Clock, E> {
                Ok(Clock(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Clock, E> {
                Ok(Clock(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Clock, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Clock(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Clock, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Clock(None))
            }
        }
        deserializer.deserialize_any(ClockVisitor)
    }
}

/// `H:MM`, `HH:MM` or `HH:MM:SS` (hours 0-23) as seconds into the day.
fn clock(text: &str) -> Option<u32> {
    let bytes = trimmed(text).as_bytes();
    let digit = |i: usize| {
        bytes
            .get(i)
            .filter(|b| b.is_ascii_digit())
            .map(|b| u32::from(b - b'0'))
    };
    let colon = |i: usize| bytes.get(i) == Some(&b':');
    let (hours, at) = if colon(1) {
        (digit(0)?, 2)
    } else if colon(2) {
        (digit(0)? * 10 + digit(1)?, 3)
    } else {
        return None;
    };
    let minutes = digit(at)? * 10 + digit(at + 1)?;
    let seconds = match bytes.len() - (at + 2) {
        0 => 0,
        3 if colon(at + 2) => digit(at + 3)? * 10 + digit(at + 4)?,
        _ => return None,
    };
    (hours <= 23 && minutes <= 59 && seconds <= 59).then_some(hours * 3600 + minutes * 60 + seconds)
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn clock_times() {
        assert_eq!(clock("00:00"), Some(0));
        assert_eq!(clock("9:05"), Some(9 * 3600 + 300));
        assert_eq!(clock(" 23:59 "), Some(86_340));
        assert_eq!(clock("12:30:15"), Some(45_015));
        for junk in [
            "",
            "24:00",
            "12:60",
            "12",
            "12:3",
            "ab:cd",
            "12:30:60",
            "12:30:15:00",
            "-1:00",
            "１２:00",
        ] {
            assert_eq!(clock(junk), None, "{junk:?}");
        }
    }
}
