//! The response-time distribution table.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Float64Array, Int64Array, RecordBatch};
use serde::de::DeserializeSeed;
use serde::Deserialize;

use super::columns::signed;
use crate::model::de::{self as lenient, Measure};

/// One bucket, with the typed model's rules for the bounds and the count, and `percent` as a
/// measured value (null when it is empty or not a number).
#[derive(Deserialize)]
struct Bucket {
    #[serde(deserialize_with = "lenient::number")]
    start: u32,
    #[serde(deserialize_with = "lenient::number")]
    end: u32,
    #[serde(deserialize_with = "lenient::whole")]
    count: u64,
    #[serde(default)]
    percent: Measure,
}

/// Lower bound to bucket; PHP's `[]` is no bucket.
struct Buckets;

impl<'de> DeserializeSeed<'de> for Buckets {
    type Value = BTreeMap<u64, Bucket>;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        lenient::map(deserializer)
    }
}

pub(super) fn build(task_id: u64, body: &[u8]) -> serde_json::Result<RecordBatch> {
    let buckets = super::decode(body, Buckets)?;
    let buckets: Vec<&Bucket> = buckets.values().collect();
    Ok(RecordBatch::try_new(
        super::distribution_schema(),
        vec![
            Arc::new(Int64Array::from(vec![signed(task_id); buckets.len()])),
            Arc::new(buckets.iter().map(|b| i64::from(b.start)).collect::<Int64Array>()),
            Arc::new(buckets.iter().map(|b| i64::from(b.end)).collect::<Int64Array>()),
            Arc::new(buckets.iter().map(|b| signed(b.count)).collect::<Int64Array>()),
            Arc::new(buckets.iter().map(|b| b.percent.0).collect::<Float64Array>()),
        ],
    )
    .expect("the columns follow the schema"))
}
