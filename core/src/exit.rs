//! How a run of a command ended, as its exit code: one rule for every command of the `monapi`
//! CLI, and for any program on the core that wants the same codes.
//!
//! | code | [`Exit`] | when |
//! |---|---|---|
//! | 0 | [`Exit::Success`] | everything asked for was done |
//! | 1 | [`Exit::Failure`] | nothing was done: the connection, the login, the listing or the store failed, or every task did |
//! | 2 | [`Exit::Usage`] | a bad argument: nothing was sent |
//! | 3 | [`Exit::Partial`] | some tasks failed (each is reported); the others were done |

use crate::{Error, ErrorKind};

/// How a run ended; [`Exit::code`] is its exit code.
///
/// ```
/// use monapi::Exit;
/// let bad = monapi::DateRange::parse(Some("yesterday-ish"), None).unwrap_err();
/// assert_eq!(Exit::of_error(&bad), Exit::Usage);
/// assert_eq!(Exit::of_error(&bad).code(), 2);
/// assert_eq!(Exit::of_tasks(0, 10), Exit::Success);
/// assert_eq!(Exit::of_tasks(3, 7), Exit::Partial);
/// assert_eq!(Exit::of_tasks(10, 0), Exit::Failure);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything asked for was done: 0.
    Success,
    /// Nothing was done: 1.
    Failure,
    /// A bad argument; nothing was sent: 2.
    Usage,
    /// Some tasks failed, the others were done: 3.
    Partial,
}

impl Exit {
    /// Every exit, in the order of its code.
    pub const ALL: [Exit; 4] = [Exit::Success, Exit::Failure, Exit::Usage, Exit::Partial];

    /// The process's exit code.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Partial => 3,
        }
    }

    /// When it happens, in a few words (the commands' `--help` and the docs list them).
    pub const fn meaning(self) -> &'static str {
        match self {
            Exit::Success => "everything asked for was done",
            Exit::Failure => {
                "nothing was done: the connection, the login, the listing or the store failed, or every task did"
            }
            Exit::Usage => "usage: a bad argument (dates, task ids, a setting), nothing was sent",
            Exit::Partial => "some tasks failed (each is listed on stderr with its error); the others were done",
        }
    }

    /// A run that ended with `error` before it did anything: [`Exit::Usage`] for bad input
    /// (refused before anything was sent), [`Exit::Failure`] otherwise.
    pub fn of_error(error: &Error) -> Exit {
        match error.kind() {
            ErrorKind::InvalidInput => Exit::Usage,
            _ => Exit::Failure,
        }
    }

    /// A run over tasks of which `failed` failed and `done` were done.
    pub fn of_tasks(failed: usize, done: usize) -> Exit {
        match (failed, done) {
            (0, _) => Exit::Success,
            (_, 0) => Exit::Failure,
            _ => Exit::Partial,
        }
    }

    /// The exit codes as a `--help` section: a line per code.
    pub fn help() -> String {
        let mut text = String::from("Exit codes:");
        for exit in Exit::ALL {
            text.push_str(&format!("\n  {}  {}", exit.code(), exit.meaning()));
        }
        text
    }
}
