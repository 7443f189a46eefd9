//! The few things a store asks of where it lives, by key (`service_report/day=2026-11-01/task-1.parquet`):
//! read a file, create one that does not exist yet, move one aside, list a directory. On a disk
//! ([`Backend::Local`]) a file is written to `.tmp/`, flushed (`fsync`) and linked to its name,
//! which fails when the name exists, and the link is flushed too; in a bucket
//! ([`Backend::Object`]) it is one conditional PUT. Either way a file is written once, whole,
//! and never replaced: two writers of one name both succeed, and the file is the first one's.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::object::Objects;
use crate::{Error, Result};

/// Where files are written before they are linked into place (on a disk).
pub(crate) const TMP: &str = ".tmp";
/// Files left in `.tmp/` longer than this were abandoned (their writer died) and are removed.
const ABANDONED_SECS: u64 = 3600;

/// Where a store's files are.
#[derive(Clone, Debug)]
pub(crate) enum Backend {
    /// A directory.
    Local(PathBuf),
    /// A prefix of a bucket or container.
    Object(Arc<Objects>),
}

impl Backend {
    /// Where `location` names (a bucket reached with `options` over `network`).
    pub(crate) fn at(
        location: &crate::StoreLocation,
        options: &[(String, String)],
        network: &super::object::Network,
    ) -> Result<Backend> {
        Ok(match location {
            crate::StoreLocation::Local(root) => Backend::Local(root.clone()),
            crate::StoreLocation::Object(url) => {
                Backend::Object(Arc::new(Objects::open(url, options, network)?))
            }
        })
    }

    /// `key` as messages show it: a path, or a URL.
    pub(crate) fn shown(&self, key: &str) -> String {
        match self {
            Backend::Local(root) => root.join(key).display().to_string(),
            Backend::Object(objects) => objects.shown(key),
        }
    }

    /// The file's bytes; `None` when there is none.
    pub(crate) fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        match self {
            Backend::Local(root) => {
                let path = root.join(key);
                match fs::read(&path) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
                    Err(error) => Err(io_error(&path, "could not be read", &error)),
                }
            }
            Backend::Object(objects) => objects.get(key),
        }
    }

    /// Writes `bytes` as `key` unless a file has that name; `false` when one had.
    pub(crate) fn create(&self, key: &str, bytes: Vec<u8>) -> Result<bool> {
        match self {
            Backend::Local(root) => create_local(root, key, &bytes),
            Backend::Object(objects) => objects.create(key, bytes),
        }
    }

    /// Writes `bytes` as `key` whether or not a file has that name, whole or not at all: on a
    /// disk made whole in `.tmp/` and renamed over the old one, in a bucket one PUT. The one
    /// exception to "written once": a migration of the store's format
    /// ([`Store::migrate`](super::Store::migrate)).
    pub(crate) fn replace(&self, key: &str, bytes: Vec<u8>) -> Result<()> {
        match self {
            Backend::Local(root) => replace_local(root, key, &bytes),
            Backend::Object(objects) => objects.replace(key, bytes),
        }
    }

    /// Moves `key` to `to`; nothing when `key` is gone already (another reader moved it).
    pub(crate) fn rename(&self, key: &str, to: &str) -> Result<()> {
        match self {
            Backend::Local(root) => {
                let (from, to) = (root.join(key), root.join(to));
                make_dir(to.parent().expect("a file has a directory"))?;
                match fs::rename(&from, &to) {
                    Ok(()) => Ok(()),
                    Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
                    Err(error) => Err(io_error(&from, "could not be set aside", &error)),
                }
            }
            Backend::Object(objects) => objects.rename(key, to),
        }
    }

    /// The keys of the files under `dir`, relative to it, at any depth; none when it does not
    /// exist.
    pub(crate) fn list(&self, dir: &str) -> Result<Vec<String>> {
        match self {
            Backend::Local(root) => {
                let mut found = Vec::new();
                walk(&root.join(dir), "", &mut found)?;
                Ok(found)
            }
            Backend::Object(objects) => objects.list(dir),
        }
    }

    /// Removes what writers killed mid-way left in `.tmp/` (files older than an hour: a live
    /// writer's are younger). A killed PUT leaves nothing in a bucket.
    pub(crate) fn sweep(&self) {
        let Backend::Local(root) = self else {
            return;
        };
        let Ok(files) = read_dir(&root.join(TMP)) else {
            return;
        };
        for file in files {
            let old = fs::metadata(&file)
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age.as_secs() > ABANDONED_SECS);
            if old {
                let _ = fs::remove_file(&file);
            }
        }
    }
}

/// The files under `dir` (their paths after it, joined with `/`, after `above`).
fn walk(dir: &Path, above: &str, found: &mut Vec<String>) -> Result<()> {
    for entry in read_dir(dir)? {
        let Some(name) = entry.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        let key = if above.is_empty() {
            name.to_string()
        } else {
            format!("{above}/{name}")
        };
        if entry.is_dir() {
            walk(&entry, &key, found)?;
        } else {
            found.push(key);
        }
    }
    Ok(())
}

/// On a disk: `bytes` made whole in `.tmp/` (flushed), then linked to `key` (a link fails when
/// the name exists, so a file is never replaced and never seen in part), the link flushed.
fn create_local(root: &Path, key: &str, bytes: &[u8]) -> Result<bool> {
    let path = root.join(key);
    let tmp_dir = root.join(TMP);
    make_dir(&tmp_dir)?;
    let dir = path.parent().expect("a file has a directory");
    make_dir(dir)?;
    let stem = key.replace('/', "-");
    let tmp = tmp_dir.join(unique_name(&stem));
    let linked = write_synced(&tmp, bytes)
        .map_err(|e| io_error(&tmp, "could not be written", &e))
        .and_then(|()| match fs::hard_link(&tmp, &path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(error) => Err(link_error(&path, &error)),
        });
    let _ = fs::remove_file(&tmp);
    let created = linked?;
    if created {
        sync_dir(dir).map_err(|e| io_error(dir, "could not be flushed", &e))?;
    }
    Ok(created)
}

/// On a disk: `bytes` made whole in `.tmp/` (flushed), then renamed over `key` (a rename
/// replaces the name at once), the rename flushed.
fn replace_local(root: &Path, key: &str, bytes: &[u8]) -> Result<()> {
    let path = root.join(key);
    let tmp_dir = root.join(TMP);
    make_dir(&tmp_dir)?;
    let dir = path.parent().expect("a file has a directory");
    make_dir(dir)?;
    let tmp = tmp_dir.join(unique_name(&key.replace('/', "-")));
    let renamed = write_synced(&tmp, bytes)
        .map_err(|e| io_error(&tmp, "could not be written", &e))
        .and_then(|()| fs::rename(&tmp, &path).map_err(|e| io_error(&path, "could not be put in place", &e)));
    if renamed.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    renamed?;
    sync_dir(dir).map_err(|e| io_error(dir, "could not be flushed", &e))
}

/// A name no other writer (thread or process) uses at the same time.
pub(crate) fn unique_name(stem: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let next = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{stem}.{}-{next}.part", std::process::id())
}

/// Writes `bytes` to a new file at `path` and flushes it to the disk.
fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::create_new(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Flushes a directory's entries (a rename or a new name in it) to the disk. On unix; a
/// no-op elsewhere (Windows opens no directory as a file, and NTFS journals its names).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Makes `dir` and the directories above it that are missing, each new name flushed to
/// the disk in its parent (a file linked into a directory whose own name was lost in a
/// power cut would be lost with it).
fn make_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.is_dir())
        .collect();
    fs::create_dir_all(dir).map_err(|e| io_error(dir, "could not be created", &e))?;
    for created in missing.iter().rev() {
        if let Some(parent) = created.parent() {
            sync_dir(parent).map_err(|e| io_error(parent, "could not be flushed", &e))?;
        }
    }
    Ok(())
}

/// The entries of a directory; none when it does not exist.
fn read_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(io_error(dir, "could not be listed", &error)),
    };
    entries
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<io::Result<Vec<_>>>()
        .map_err(|error| io_error(dir, "could not be listed", &error))
}

pub(crate) fn io_error(path: &Path, what: &str, error: &io::Error) -> Error {
    Error::Store {
        path: path.display().to_string(),
        message: format!("{what}: {error}"),
    }
}

/// A hard link that failed. File systems without hard links (FAT and exFAT answer EPERM, some
/// network shares "not supported") cannot hold a store on disk: the error says so, and where a
/// store can live. EACCES (a directory not writable) is not one of them.
fn link_error(path: &Path, error: &io::Error) -> Error {
    const EPERM: i32 = 1;
    let no_links =
        error.kind() == io::ErrorKind::Unsupported || (cfg!(unix) && error.raw_os_error() == Some(EPERM));
    let what = "could not be put in place";
    if !no_links {
        return io_error(path, what, error);
    }
    let why = "the store writes each file once as a hard link from .tmp/, which this file system \
               may not allow: keep the store on a local disk, or in a bucket";
    Error::Store {
        path: path.display().to_string(),
        message: format!("{what}: {error} ({why})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_the_file_system_refuses_says_where_a_store_can_live() {
        let path = Path::new("/mnt/share/store/service_report/10001/2026-11-26.parquet");
        let hinted = |error: io::Error| link_error(path, &error).to_string().contains("hard link");
        assert!(hinted(io::Error::from(io::ErrorKind::Unsupported)));
        if cfg!(unix) {
            assert!(
                hinted(io::Error::from_raw_os_error(1)),
                "EPERM, as FAT answers a link"
            );
            assert!(
                !hinted(io::Error::from_raw_os_error(13)),
                "EACCES: a directory not writable"
            );
        }
        assert!(!hinted(io::Error::from(io::ErrorKind::StorageFull)));
        let message = link_error(path, &io::Error::from(io::ErrorKind::Unsupported)).to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
    }
}
