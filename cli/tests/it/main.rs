//! The `monapi` binary's tests, one test binary (each binary links the client and the emulator
//! again): the commands, and `monapi export`.

mod cli;
mod export;
mod exporter;
mod sync;
// The core's rows of a table as JSON, to compare what `monapi export` wrote.
#[path = "../../../core/tests/it/common/rows.rs"]
mod rows;
