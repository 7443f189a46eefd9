//! Tolerant decoding helpers: the service is loose about JSON types (numbers as strings or as
//! numbers, `[]` for an empty object as PHP encodes it), so the typed models accept both.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// A number that may arrive as a JSON number or as a string holding one.
pub(crate) fn number<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Number,
{
    deserializer.deserialize_any(NumberVisitor(PhantomData))
}

/// Like [`number`], for optional fields: `null`, `""` and a missing field give `None`.
pub(crate) fn opt_number<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Number,
{
    deserializer.deserialize_any(OptNumberVisitor(PhantomData))
}

/// The largest id or count a table holds: its integer columns are signed 64-bit, which
/// every engine reads (Spark, Hive, Trino and BigQuery have no unsigned integers).
pub(crate) const MAX_WHOLE: u64 = i64::MAX as u64;

/// An id or a count: a whole number from 0 to 2^63 - 1 ([`MAX_WHOLE`]), as [`number`] reads it.
pub(crate) fn whole<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let value: u64 = number(deserializer)?;
    bounded(value)
}

/// Like [`whole`], for optional fields (as [`opt_number`]).
pub(crate) fn opt_whole<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value: Option<u64> = opt_number(deserializer)?;
    value.map(bounded).transpose()
}

fn bounded<E: de::Error>(value: u64) -> Result<u64, E> {
    if value <= MAX_WHOLE {
        Ok(value)
    } else {
        Err(E::custom(format!("number {value} beyond 2^63 - 1")))
    }
}

/// The number types the helpers produce: from JSON integers, floats (integers refuse
/// fractions) and text.
pub(crate) trait Number: FromStr {
    fn from_i64(v: i64) -> Option<Self>;
    fn from_u64(v: u64) -> Option<Self>;
    fn from_f64(v: f64) -> Option<Self>;
}

impl Number for f64 {
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f64)
    }
    fn from_u64(v: u64) -> Option<Self> {
        Some(v as f64)
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v)
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Number for $t {
            fn from_i64(v: i64) -> Option<Self> {
                v.try_into().ok()
            }
            fn from_u64(v: u64) -> Option<Self> {
                v.try_into().ok()
            }
            fn from_f64(v: f64) -> Option<Self> {
                // Through i128, which holds every whole f64 below 2^127 exactly: comparing
                // with `MAX as f64` would let 2^63 (i64) or 2^64 (u64) through, rounded up,
                // and `as` would then saturate. NaN and the infinities have no zero fraction.
                (v.fract() == 0.0 && v.abs() < 2f64.powi(127))
                    .then(|| <$t>::try_from(v as i128).ok())
                    .flatten()
            }
        }
    )*};
}
integer!(u8, i64, u64, u32);

struct NumberVisitor<T>(PhantomData<T>);

impl<'de, T> Visitor<'de> for NumberVisitor<T>
where
    T: Number,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or a string holding a number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_i64(v).ok_or_else(|| E::custom(format!("number {v} out of range")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_u64(v).ok_or_else(|| E::custom(format!("number {v} out of range")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_f64(v).ok_or_else(|| E::custom(format!("number {v} does not fit")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.trim()
            .parse()
            .map_err(|_| E::custom(format!("{v:?} is not a number")))
    }
}

struct OptNumberVisitor<T>(PhantomData<T>);

impl<'de, T> Visitor<'de> for OptNumberVisitor<T>
where
    T: Number,
{
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, a string holding a number, or null")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        NumberVisitor(PhantomData).visit_i64(v).map(Some)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        NumberVisitor(PhantomData).visit_u64(v).map(Some)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        NumberVisitor(PhantomData).visit_f64(v).map(Some)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        if v.trim().is_empty() {
            return Ok(None);
        }
        NumberVisitor(PhantomData).visit_str(v).map(Some)
    }
}

/// The times the client takes from the service, in unix seconds: those of the years 1 to 9999
/// (UTC), 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. The one bound of every time read from
/// the network, so that what is built from one (a day, a duration, a time zone's local time,
/// chrono's and Arrow's conversions) never overflows.
pub(crate) const UNIX_TIMES: std::ops::RangeInclusive<i64> = -62_135_596_800..=253_402_300_799;

/// `seconds` when it is in [`UNIX_TIMES`].
pub(crate) fn unix_time(seconds: i64) -> Option<i64> {
    UNIX_TIMES.contains(&seconds).then_some(seconds)
}

/// What is wrong with a time out of [`UNIX_TIMES`], naming `field`.
pub(crate) fn time_out_of_range(field: &str, seconds: impl fmt::Display) -> String {
    format!(
        "{field}: {seconds} is not a time of the years 1 to 9999 (unix seconds from {} to {})",
        UNIX_TIMES.start(),
        UNIX_TIMES.end()
    )
}

/// A time in unix seconds: a number or a string holding one ([`number`]), in [`UNIX_TIMES`];
/// the error names `field`.
pub(crate) fn time<'de, D: Deserializer<'de>>(deserializer: D, field: &str) -> Result<i64, D::Error> {
    let seconds: i64 = number(deserializer)?;
    unix_time(seconds).ok_or_else(|| de::Error::custom(time_out_of_range(field, seconds)))
}

/// Like [`time`], for optional fields ([`opt_number`]).
pub(crate) fn opt_time<'de, D: Deserializer<'de>>(
    deserializer: D,
    field: &str,
) -> Result<Option<i64>, D::Error> {
    match opt_number::<D, i64>(deserializer)? {
        Some(seconds) => unix_time(seconds)
            .map(Some)
            .ok_or_else(|| de::Error::custom(time_out_of_range(field, seconds))),
        None => Ok(None),
    }
}

/// The number a text holds (spaces around it allowed), when it is a finite number: the rule
/// for measured values sent as strings. `""`, `"n/a"`, `"NaN"` and `"inf"` hold none.
pub(crate) fn number_in_text(text: &str) -> Option<f64> {
    trimmed(text).parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `text` without the white space around it; cheap when it starts and ends with a digit (as
/// almost every value does), which needs no trimming.
pub(crate) fn trimmed(text: &str) -> &str {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if first.is_ascii_digit() && last.is_ascii_digit() => text,
        _ => text.trim(),
    }
}

/// A measured value: a JSON number, or a string holding one ([`number_in_text`]). Anything
/// else (`null`, an empty or non-numeric string, a boolean, a list, an object) is no value,
/// never an error: one bad cell must not lose a whole report (the tables' rule).
#[cfg(feature = "arrow")]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Measure(pub(crate) Option<f64>);

#[cfg(feature = "arrow")]
impl<'de> Deserialize<'de> for Measure {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MeasureVisitor;
        impl<'de> Visitor<'de> for MeasureVisitor {
            type Value = Measure;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a measured value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Measure, E> {
                Ok(Measure(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Measure, E> {
                Ok(Measure(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Measure, E> {
                Ok(Measure(Some(v).filter(|v| v.is_finite())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Measure, E> {
                Ok(Measure(number_in_text(v)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Measure, E> {
                Ok(Measure(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Measure, E> {
                Ok(Measure(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Measure, E> {
                Ok(Measure(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Measure, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Measure(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Measure, A::Error> {
                while map.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
                Ok(Measure(None))
            }
        }
        deserializer.deserialize_any(MeasureVisitor)
    }
}

/// A text that may arrive as a string or as a number (ids are both, depending on the
/// endpoint); `null` gives an empty string.
pub(crate) fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    struct TextVisitor;
    impl Visitor<'_> for TextVisitor {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string or a number")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_unit<E: de::Error>(self) -> Result<String, E> {
            Ok(String::new())
        }
    }
    deserializer.deserialize_any(TextVisitor)
}

/// A JSON object keyed by ids or timestamps, where PHP sends `[]` (or `null`) when it is
/// empty. Keys that parse as `K` are kept in order.
pub(crate) fn map<'de, D, K, V>(deserializer: D) -> Result<BTreeMap<K, V>, D::Error>
where
    D: Deserializer<'de>,
    K: FromStr + Ord,
    V: DeserializeOwned,
{
    let key = |key: &str| key.parse().map_err(|_| format!("unexpected key {key:?}"));
    deserializer.deserialize_any(MapVisitor(key, PhantomData))
}

/// A map keyed by check times (unix seconds) as [`map`] reads it: PHP's `[]` or `null` is
/// empty; a key that is not a number is an error, and so is one out of [`UNIX_TIMES`],
/// naming `field` (`uprate`, `resptime`).
pub(crate) fn checks<'de, D, V>(deserializer: D, field: &str) -> Result<BTreeMap<i64, V>, D::Error>
where
    D: Deserializer<'de>,
    V: DeserializeOwned,
{
    let key = |key: &str| match key.parse() {
        Ok(seconds) => {
            unix_time(seconds).ok_or_else(|| time_out_of_range(field, format_args!("check time {key:?}")))
        }
        Err(_) => Err(format!("unexpected key {key:?}")),
    };
    deserializer.deserialize_any(MapVisitor(key, PhantomData))
}

/// Reads an object keyed by what `F` parses (its error the message).
struct MapVisitor<F, K, V>(F, PhantomData<(K, V)>);

impl<'de, F, K, V> Visitor<'de> for MapVisitor<F, K, V>
where
    F: Fn(&str) -> Result<K, String>,
    K: Ord,
    V: DeserializeOwned,
{
    type Value = BTreeMap<K, V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object (or an empty array)")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(BTreeMap::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("expected an object, got a non-empty array"));
        }
        Ok(BTreeMap::new())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(key) = access.next_key::<String>()? {
            let parsed = (self.0)(&key).map_err(de::Error::custom)?;
            out.insert(parsed, access.next_value()?);
        }
        Ok(out)
    }
}

/// A list that PHP may send as `{}`/`null` when empty.
pub(crate) fn list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_any(ListVisitor(PhantomData))
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            out.push(item);
        }
        Ok(out)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        if map.next_key::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("expected a list, got a non-empty object"));
        }
        Ok(Vec::new())
    }
}

/// Records that PHP may send as a list or as a keyed array (an object keyed by ids, as the
/// agent list is): the list, or the object's values in order; `[]`, `{}` and `null` are
/// empty. The one rule of the lists whose shape the service does not document (site tasks,
/// monitoring points, users, user groups).
pub(crate) fn records<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_any(RecordsVisitor(PhantomData))
}

struct RecordsVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for RecordsVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list, or an object keyed by ids")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        ListVisitor(PhantomData).visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((_, value)) = map.next_entry::<de::IgnoredAny, T>()? {
            out.push(value);
        }
        Ok(out)
    }
}

/// A list of [`records`], as a type: `Records<T>` decodes a whole answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Records<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Records<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        records(deserializer).map(Records)
    }
}

/// The tasks of a create batch given as JSON: a list of at least one item (each item is read
/// by its task type).
pub(crate) fn batch_items(value: &serde_json::Value) -> crate::Result<&[serde_json::Value]> {
    let serde_json::Value::Array(items) = value else {
        return Err(crate::Error::invalid_input(
            None,
            "tasks",
            "must be a list of task objects",
        ));
    };
    if items.is_empty() {
        return Err(crate::Error::invalid_input(
            None,
            "tasks",
            "must hold at least one task",
        ));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct N {
        #[serde(deserialize_with = "number")]
        a: u64,
        #[serde(deserialize_with = "number")]
        b: f64,
        #[serde(default, deserialize_with = "opt_number")]
        c: Option<f64>,
    }

    #[test]
    fn numbers_as_strings_or_numbers() {
        let n: N = serde_json::from_str(r#"{"a":"12","b":3.5,"c":""}"#).unwrap();
        assert_eq!((n.a, n.b, n.c), (12, 3.5, None));
        let n: N = serde_json::from_str(r#"{"a":12,"b":"3.50","c":"1"}"#).unwrap();
        assert_eq!((n.a, n.b, n.c), (12, 3.5, Some(1.0)));
        assert!(serde_json::from_str::<N>(r#"{"a":"x","b":1}"#).is_err());
        assert!(serde_json::from_str::<N>(r#"{"a":1.5,"b":1}"#).is_err());
    }

    #[cfg(feature = "arrow")]
    #[test]
    fn measures_are_numbers_or_nothing() {
        let values: Vec<Measure> = serde_json::from_str(
            r#"[1, "2.5", " 3 ", "", "n/a", "NaN", "inf", null, true, [1], {"a": 1}, -0.5]"#,
        )
        .unwrap();
        let values: Vec<_> = values.into_iter().map(|m| m.0).collect();
        assert_eq!(
            values,
            [
                Some(1.0),
                Some(2.5),
                Some(3.0),
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                Some(-0.5)
            ]
        );
    }
}
