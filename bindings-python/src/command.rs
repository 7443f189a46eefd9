//! The `monapi` command of `pip install monapi`: the console script (`monapi/_cli.py`) calls
//! this, which runs the command of the crate `monapi-cli` linked into this module, so that it is
//! the crate's command: the same subcommands, flags, exit codes and signals.

use std::ffi::OsString;

use pyo3::prelude::*;

/// Runs the ``monapi`` command with ``args`` (the program's name first) and returns its exit
/// code. The command reads and writes the process's own standard streams, and takes the
/// signals as the binary does (SIGINT, SIGTERM and SIGHUP get their default action first).
#[pyfunction]
pub fn _run_command(py: Python<'_>, args: Vec<OsString>) -> u8 {
    py.detach(|| monapi_cli::run_embedded(args))
}
