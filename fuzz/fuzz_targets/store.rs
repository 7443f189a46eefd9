//! Target `store`: a store file of any bytes, read as a store reads it (`monapi::fuzz::store`).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// A store of this process's own, in the temporary directory.
fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| std::env::temp_dir().join(format!("monapi-fuzz-store-{}", std::process::id())))
}

fuzz_target!(|data: &[u8]| monapi::fuzz::store(root(), data));
