//! Rows of a record batch as JSON objects, to compare tables with the shared cases of
//! tests/fixtures/tables.json and with what `monapi export` wrote. Times are RFC 3339 with
//! the column's offset, as in the cases and the CLI's text formats. Used by the core's table
//! tests and the CLI's export tests.

use chrono::TimeZone;
use monapi::table::arrow_array::cast::AsArray;
use monapi::table::arrow_array::types::{
    Float64Type, Int32Type, Int64Type, TimestampMillisecondType, TimestampSecondType, UInt32Type, UInt64Type,
};
use monapi::table::arrow_array::{Array, RecordBatch};
use monapi::table::arrow_schema::{DataType, TimeUnit};
use serde_json::{json, Map, Value};

fn cell(array: &dyn Array, row: usize) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::UInt64 => json!(array.as_primitive::<UInt64Type>().value(row)),
        DataType::UInt32 => json!(array.as_primitive::<UInt32Type>().value(row)),
        DataType::Int64 => json!(array.as_primitive::<Int64Type>().value(row)),
        DataType::Float64 => json!(array.as_primitive::<Float64Type>().value(row)),
        DataType::Boolean => json!(array.as_boolean().value(row)),
        DataType::Utf8 => json!(array.as_string::<i32>().value(row)),
        DataType::Dictionary(_, _) => {
            let dictionary = array.as_dictionary::<Int32Type>();
            let key = dictionary.keys().value(row) as usize;
            json!(dictionary.values().as_string::<i32>().value(key))
        }
        DataType::Timestamp(unit, Some(zone)) => {
            let offset = monapi::input::timezone(zone).unwrap();
            let millis = match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(row) * 1000,
                // Parquet files hold milliseconds (it has no unit of seconds).
                TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(row),
                other => panic!("no JSON form for {other:?}"),
            };
            let time = offset.timestamp_millis_opt(millis).unwrap();
            json!(time
                .format("%Y-%m-%dT%H:%M:%S%.3f%:z")
                .to_string()
                .replace(".000", ""))
        }
        other => panic!("no JSON form for {other}"),
    }
}

/// Every row of `batch`, its columns by name.
pub fn rows(batch: &RecordBatch) -> Vec<Value> {
    let schema = batch.schema();
    (0..batch.num_rows())
        .map(|row| {
            let fields = schema
                .fields()
                .iter()
                .enumerate()
                .map(|(i, field)| (field.name().clone(), cell(batch.column(i).as_ref(), row)));
            Value::Object(fields.collect::<Map<_, _>>())
        })
        .collect()
}
