//! The `monapi` binary's tests, one test binary (each binary links the client and the emulator
//! again): the commands, `monapi export`, `sync` and `exporter`, the log lines, and the
//! flags' variables.

mod cli;
mod export;
mod exporter;
mod exporter_web;
mod logs;
mod sync;
mod variables;
// The core's rows of a table as JSON, to compare what `monapi export` wrote.
#[path = "../../../core/tests/it/common/rows.rs"]
mod rows;
