//! A store of an older format rewritten once into this version's
//! ([`Tables::migrate_store`](crate::table::Tables::migrate_store), `monapi sync --migrate`): the one time a store's files are replaced.
//!
//! Format 1 held ids and counts as unsigned integers (`UInt64`, `UInt32`); format 2 holds them
//! as `Int64`, which every engine reads. Each file of format 1 is read (its checksum checked),
//! its columns converted, and written whole over itself (on a disk, made whole in `.tmp/` and
//! renamed over it; in a bucket, one PUT); `store.json` is replaced last. Killed half-way, the
//! store still says format 1, so it is refused as before, and the next migration skips the
//! files already rewritten: one more run finishes it. A file that does not read is set aside
//! in `.corrupt/`, as a sync does, and the next sync fetches its day again.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::DataType;

use super::{
    encode_file, in_seconds, milliseconds_schema, object, read_checked, read_description, unpanicked,
    Backend, Store, StoreKind, StoreLocation, DESCRIPTION, FORMAT,
};
use crate::{Error, Result};

/// What a migration did ([`Tables::migrate_store`](crate::table::Tables::migrate_store)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Migrated {
    /// The store's format before (`None` when it had no `store.json`: nothing to migrate).
    pub from_format: Option<u64>,
    /// Files rewritten in this format.
    pub rewritten: u64,
    /// Files that were in this format already (rewritten by a migration killed half-way).
    pub current: u64,
    /// Files that did not read, set aside in `.corrupt/` (where they were moved): the next
    /// sync fetches their days again.
    pub set_aside: Vec<PathBuf>,
}

impl Migrated {
    /// One line: `from format 1 to 2: 120 files rewritten, 0 already in format 2`.
    pub fn summary(&self) -> String {
        let Some(from) = self.from_format else {
            return "no store.json: an empty store, nothing to migrate".into();
        };
        if from == FORMAT && self.rewritten == 0 && self.current == 0 {
            return format!("already in format {FORMAT}, nothing to migrate");
        }
        let mut line = format!(
            "from format {from} to {FORMAT}: {} files rewritten, {} already in format {FORMAT}",
            self.rewritten, self.current
        );
        if !self.set_aside.is_empty() {
            line.push_str(&format!(
                ", {} files did not read (set aside; the next sync fetches them again)",
                self.set_aside.len()
            ));
        }
        line
    }
}

impl Store {
    /// Rewrites the store at `location` (reached with `options` over `network`) into this
    /// version's format, once: every file of an older format whole over itself, then
    /// `store.json`. Crash-safe: killed half-way, the store is still refused as of the old
    /// format, and the next migration finishes it. A store already in this format is left as
    /// it is. Blocking, like [`open`](Store::open).
    pub(crate) fn migrate(
        location: &StoreLocation,
        options: &[(String, String)],
        network: &object::Network,
    ) -> Result<Migrated> {
        let files = Backend::at(location, options, network)?;
        let shown = files.shown(DESCRIPTION);
        let Some(bytes) = files.get(DESCRIPTION)? else {
            return Ok(Migrated::default());
        };
        let Some((format, timezone)) = read_description(&shown, &bytes)? else {
            return Err(Error::Store {
                path: shown,
                message: "does not parse (a write cut short): run `monapi sync` once, which repairs it, then migrate"
                    .into(),
            });
        };
        let mut migrated = Migrated {
            from_format: Some(format),
            ..Migrated::default()
        };
        if format == FORMAT {
            return Ok(migrated);
        }
        if format > FORMAT {
            return Err(Error::Store {
                path: shown,
                message: format!("is of format {format}, written by a newer monapi: upgrade monapi"),
            });
        }
        let store = Store {
            files,
            timezone,
            recorded: Arc::default(),
        };
        for kind in StoreKind::ALL {
            for name in store.files.list(kind.name())? {
                let key = format!("{}/{name}", kind.name());
                store.migrate_file(kind, &key, &mut migrated)?;
            }
        }
        let text = format!("{{\"format\": {FORMAT}, \"timezone\": \"{timezone}\"}}\n");
        store.files.replace(DESCRIPTION, text.into_bytes())?;
        tracing::info!(target: "monapi", store = %store.location(), summary = %migrated.summary(), "store migrated");
        Ok(migrated)
    }

    /// Rewrites one file of an older format in this one; counts it in `migrated`.
    fn migrate_file(&self, kind: StoreKind, key: &str, migrated: &mut Migrated) -> Result<()> {
        let Some(bytes) = self.files.get(key)? else {
            return Ok(());
        };
        let schema = kind.schema(self.timezone);
        let stored = milliseconds_schema(&schema);
        let converted = unpanicked(|| read_checked(bytes, |_| Ok(()))).and_then(|batch| {
            if batch.schema().fields() == stored.fields() {
                return Ok(None);
            }
            let columns = batch
                .columns()
                .iter()
                .map(signed)
                .collect::<std::result::Result<Vec<_>, String>>()?;
            let batch = RecordBatch::try_new(stored.clone(), columns).map_err(|_| {
                format!(
                    "its schema is neither format 1's nor {FORMAT}'s: {:?}",
                    batch.schema()
                )
            })?;
            let batch = in_seconds(&batch, &schema).map_err(|e| e.to_string())?;
            encode_file(&batch).map(Some)
        });
        match converted {
            Ok(None) => migrated.current += 1,
            Ok(Some(bytes)) => {
                self.files.replace(key, bytes)?;
                migrated.rewritten += 1;
            }
            Err(why) => migrated.set_aside.push(self.set_aside(key, &why)?),
        }
        Ok(())
    }
}

/// A column of format 1 in format 2: unsigned integers as `Int64` (a value beyond 2^63 - 1,
/// which no id or count reaches, is an error), the others as they are.
fn signed(column: &ArrayRef) -> std::result::Result<ArrayRef, String> {
    let beyond = || "it holds a number beyond 2^63 - 1".to_string();
    Ok(match column.data_type() {
        DataType::UInt32 => Arc::new(
            column
                .as_primitive::<UInt32Type>()
                .iter()
                .map(|v| v.map(i64::from))
                .collect::<Int64Array>(),
        ),
        DataType::UInt64 => Arc::new(
            column
                .as_primitive::<UInt64Type>()
                .iter()
                .map(|v| v.map(i64::try_from).transpose())
                .collect::<std::result::Result<Int64Array, _>>()
                .map_err(|_| beyond())?,
        ),
        _ => column.clone(),
    })
}
