//! Small column helpers shared by the table builders.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Int32Array, StringArray, TimestampSecondArray};
use chrono::{FixedOffset, NaiveDate};
use serde::de::{self, IgnoredAny, SeqAccess};

/// Distinct strings in order of first sight, for dictionary columns: a row holds the index of
/// its string, so a repeated name costs one hash lookup and no allocation.
#[derive(Default)]
pub(super) struct Interner {
    index: HashMap<Box<str>, i32>,
    values: Vec<Box<str>>,
}

impl Interner {
    /// The index of `text`, added if new.
    pub(super) fn intern(&mut self, text: &str) -> i32 {
        if let Some(&index) = self.index.get(text) {
            return index;
        }
        let index = i32::try_from(self.values.len()).expect("fewer than 2^31 distinct names");
        self.values.push(text.into());
        self.index.insert(text.into(), index);
        index
    }

    /// A `Dictionary(Int32, Utf8)` column whose rows are `keys` (indexes from [`intern`]).
    ///
    /// [`intern`]: Interner::intern
    pub(super) fn column(&self, keys: Vec<i32>) -> ArrayRef {
        dictionary(keys, self.values.iter().map(|v| &**v))
    }
}

/// A `Dictionary(Int32, Utf8)` column of `texts`, null where a text is `None`.
pub(super) fn categories<'a>(texts: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    let mut interner = Interner::default();
    let keys: Int32Array = texts.map(|text| text.map(|t| interner.intern(t))).collect();
    let values = Arc::new(StringArray::from_iter_values(
        interner.values.iter().map(|v| &**v),
    ));
    Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).expect("every key indexes a value"))
}

/// A `Dictionary(Int32, Utf8)` column of `keys` into `values`.
pub(super) fn dictionary<'a>(keys: Vec<i32>, values: impl IntoIterator<Item = &'a str>) -> ArrayRef {
    let values = Arc::new(StringArray::from_iter_values(values));
    Arc::new(
        DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), values)
            .expect("every key indexes a value"),
    )
}

/// An id or a count as the tables hold it: signed 64-bit. Every value that reaches a table is
/// at most 2^63 - 1: the decoders refuse larger ones (`model::de::whole`), and so do the
/// checks of task ids given to a call (`input::task_id`).
pub(super) fn signed(value: u64) -> i64 {
    i64::try_from(value).expect("ids and counts are checked to be at most 2^63 - 1 where they enter")
}

/// A timestamp column (seconds) shown in `timezone`.
pub(super) fn timestamps(values: TimestampSecondArray, timezone: FixedOffset) -> ArrayRef {
    Arc::new(values.with_timezone(timezone.to_string()))
}

/// Unix time of 00:00 of `day` in `timezone`.
pub(crate) fn midnight(day: NaiveDate, timezone: FixedOffset) -> i64 {
    let utc_midnight = day
        .and_hms_opt(0, 0, 0)
        .expect("midnight exists")
        .and_utc()
        .timestamp();
    utc_midnight - i64::from(timezone.local_minus_utc())
}

/// PHP's empty array `[]` where an object is meant: fine when empty; a list with anything in it
/// is an error (`what` names what was expected).
pub(super) fn empty_list<'de, A: SeqAccess<'de>>(mut seq: A, what: &str) -> Result<(), A::Error> {
    if seq.next_element::<IgnoredAny>()?.is_some() {
        return Err(de::Error::custom(format!(
            "expected {what}, got a non-empty list"
        )));
    }
    Ok(())
}
