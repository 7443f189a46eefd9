//! The command line with the `MONAPI_*` variables of its flags (clap's `env`), read as the core
//! reads the client's own: a blank variable counts as unset (a unit file's or a compose file's
//! `MONAPI_SLO=` leaves the flag out rather than refuse it), and a bad value's error names the
//! variable it came from besides the flag (the one a user set is the variable, not the flag).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;

use clap::{Command, Parser};

/// The command line `args` (the program's name first) of `P`, with its flags' variables. A
/// usage error, `--help` or `--version` is printed (naming the flag, the values it takes, and
/// the variable when the value was its) and its exit code returned (2; 0 for help).
pub(crate) fn parse_from<P: Parser>(args: &[OsString]) -> Result<P, u8> {
    let mut command = blank_as_unset(P::command());
    let parsed = command
        .clone()
        .try_get_matches_from(args)
        .and_then(|mut matches| P::from_arg_matches_mut(&mut matches));
    parsed.map_err(|error| {
        let error = named_by_variable(error, &command, args).format(&mut command);
        // Printing fails only when the terminal is gone, which leaves nothing to tell.
        let _ = error.print();
        error.exit_code() as u8
    })
}

/// `command` without the variables that are set but blank, in it and every subcommand.
fn blank_as_unset(command: Command) -> Command {
    command
        .mut_args(|arg| {
            let blank = arg
                .get_env()
                .and_then(std::env::var_os)
                .is_some_and(|value| value.to_string_lossy().trim().is_empty());
            if blank {
                arg.env(None::<&'static str>)
            } else {
                arg
            }
        })
        .mut_subcommands(blank_as_unset)
}

/// `error`, with a line naming the variable when the bad value came from one (its flag was not
/// on the command line).
fn named_by_variable(mut error: clap::Error, command: &Command, args: &[OsString]) -> clap::Error {
    if !matches!(error.kind(), ErrorKind::InvalidValue | ErrorKind::ValueValidation) {
        return error;
    }
    // The flag as clap shows it: `--log-format <FORMAT>`.
    let Some(ContextValue::String(shown)) = error.get(ContextKind::InvalidArg) else {
        return error;
    };
    let Some(flag) = shown
        .split_whitespace()
        .next()
        .filter(|flag| flag.starts_with("--"))
    else {
        return error;
    };
    let flag = flag.to_string();
    let given = args.iter().skip(1).any(|word| {
        let word = word.to_string_lossy();
        word == flag || word.starts_with(&format!("{flag}="))
    });
    if let (false, Some(variable)) = (given, variable_of(command, &flag[2..])) {
        let line = format!("the value comes from {variable}, the variable of {flag}");
        error.insert(
            ContextKind::Suggested,
            ContextValue::StyledStrs(vec![line.into()]),
        );
    }
    error
}

/// The variable of the flag `--long`, in `command` or a subcommand.
fn variable_of(command: &Command, long: &str) -> Option<String> {
    command
        .get_arguments()
        .find(|arg| arg.get_long() == Some(long))
        .and_then(|arg| arg.get_env())
        .map(|variable| variable.to_string_lossy().into_owned())
        .or_else(|| command.get_subcommands().find_map(|sub| variable_of(sub, long)))
}
