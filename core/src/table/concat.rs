//! Joining tables of one schema (the days of a store, the tasks of a bulk call) into one.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, DictionaryArray, RecordBatch};
use arrow_schema::{ArrowError, SchemaRef};

/// `batches` as one batch of `schema`, each dictionary column with every name once in its
/// dictionary. arrow's own `concat_batches` appends the batches' dictionaries one after the
/// other when that is cheaper than merging them, so that a name may stand several times in one
/// dictionary: valid Arrow, but pandas refuses such a column ("Categorical categories must be
/// unique"), and every reader that groups by the codes counts one name as several.
///
/// # Errors
///
/// An [`ArrowError`] when the batches do not join into a batch of `schema`: a column whose
/// type differs from one batch to another or from the schema's, nulls in a column the schema
/// does not let hold them, or a dictionary whose keys overflow once the batches are joined.
///
/// # Panics
///
/// When a batch has fewer columns than `schema` (arrow's `concat_batches` takes each of the
/// schema's columns from every batch by its position).
pub fn concat_batches<'a>(
    schema: &SchemaRef,
    batches: impl IntoIterator<Item = &'a RecordBatch>,
) -> Result<RecordBatch, ArrowError> {
    let batch = arrow_select::concat::concat_batches(schema, batches)?;
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(|column| match column.as_dictionary_opt::<Int32Type>() {
            Some(dictionary) => {
                distinct_names(dictionary).map_or_else(|| column.clone(), |d| Arc::new(d) as ArrayRef)
            }
            None => column.clone(),
        })
        .collect();
    RecordBatch::try_new(batch.schema(), columns)
}

/// `dictionary` with each name once, its keys mapped to the first of each; None when every
/// name is there once already (or its values are not text, which our tables never have).
fn distinct_names(dictionary: &DictionaryArray<Int32Type>) -> Option<DictionaryArray<Int32Type>> {
    let names = dictionary.values().as_string_opt::<i32>()?;
    let mut first: HashMap<Option<&str>, i32> = HashMap::with_capacity(names.len());
    let mut distinct = StringBuilder::new();
    let new_key: Vec<i32> = names
        .iter()
        .map(|name| {
            let next = first.len() as i32;
            *first.entry(name).or_insert_with(|| {
                distinct.append_option(name);
                next
            })
        })
        .collect();
    if first.len() == names.len() {
        return None;
    }
    // `unary` maps the keys of null rows too, which Arrow leaves unchecked: an all-null column
    // with an empty dictionary, once appended after others, has keys beyond the dictionary.
    let keys = dictionary
        .keys()
        .unary(|key| new_key.get(key as usize).copied().unwrap_or(0));
    Some(DictionaryArray::new(keys, Arc::new(distinct.finish())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::StringArray;
    use arrow_schema::{DataType, Field, Schema};

    fn batch(schema: &SchemaRef, names: &[&str]) -> RecordBatch {
        let dictionary: DictionaryArray<Int32Type> = names.iter().copied().collect();
        RecordBatch::try_new(schema.clone(), vec![Arc::new(dictionary)]).unwrap()
    }

    #[test]
    fn joined_dictionaries_hold_each_name_once_and_the_rows_keep_their_names() {
        let kind = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("metric", kind, false)]));
        // Many rows over a few names: arrow appends the dictionaries rather than merge them.
        let days: Vec<RecordBatch> = (0..3)
            .map(|_| {
                batch(
                    &schema,
                    &["cpu", "mem", "cpu", "disk", "mem", "cpu", "cpu", "mem"],
                )
            })
            .collect();
        let appended = arrow_select::concat::concat_batches(&schema, &days).unwrap();
        assert_eq!(
            appended.column(0).as_dictionary::<Int32Type>().values().len(),
            9,
            "arrow appends"
        );

        let joined = concat_batches(&schema, &days).unwrap();
        let metric = joined.column(0).as_dictionary::<Int32Type>();
        let names: &StringArray = metric.values().as_string();
        assert_eq!(names.iter().flatten().collect::<Vec<_>>(), ["cpu", "mem", "disk"]);
        let rows: Vec<&str> = metric
            .keys()
            .iter()
            .map(|key| names.value(key.unwrap() as usize))
            .collect();
        let expected: Vec<&str> = (0..3)
            .flat_map(|_| ["cpu", "mem", "cpu", "disk", "mem", "cpu", "cpu", "mem"])
            .collect();
        assert_eq!(rows, expected);
        assert_eq!(metric.null_count(), 0);
    }

    #[test]
    fn a_null_whose_key_is_beyond_its_dictionary_stays_null() {
        let kind = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("group", kind, true)]));
        let mut days: Vec<RecordBatch> = (0..3)
            .map(|_| batch(&schema, &["a", "b", "a", "c", "b", "a", "a", "b"]))
            .collect();
        // An all-null column: an empty dictionary, and keys of 0 that point at nothing.
        let nulls: DictionaryArray<Int32Type> = [None::<&str>, None].into_iter().collect();
        assert_eq!(nulls.values().len(), 0);
        days.push(RecordBatch::try_new(schema.clone(), vec![Arc::new(nulls)]).unwrap());

        let joined = concat_batches(&schema, &days).unwrap();
        let group = joined.column(0).as_dictionary::<Int32Type>();
        assert_eq!(group.values().len(), 3);
        assert_eq!(group.len(), 26);
        assert_eq!(group.null_count(), 2);
        assert!(group.is_null(24) && group.is_null(25));
    }
}
