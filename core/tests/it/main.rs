//! The core's integration tests, against the emulator on 127.0.0.1. One test binary, a module
//! per concern: a binary per file linked the client and the emulator fourteen times over.
//! The table tests need the feature `arrow` (on in `cargo test --workspace`).

mod common;

#[cfg(feature = "arrow")]
mod accounts;
mod cases;
mod chaos;
mod compression;
mod errors;
mod fixtures;
#[cfg(feature = "arrow")]
mod fuzz;
mod network;
mod operations;
mod properties;
mod recording;
mod retries;
mod samples;
mod shapes;
#[cfg(feature = "arrow")]
mod store;
#[cfg(feature = "arrow")]
mod store_azure;
#[cfg(feature = "arrow")]
mod store_migrate;
#[cfg(feature = "arrow")]
mod store_s3;
#[cfg(feature = "arrow")]
mod streaming;
#[cfg(feature = "arrow")]
mod tables;
mod tokens;
mod validation;
