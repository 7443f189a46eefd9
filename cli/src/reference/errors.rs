//! docs/reference/errors.md: every error code, from the core's declaration (`monapi::ERRORS`),
//! with the packages' own code for a bug of theirs.
//!
//! The Python and Node suites read the summary table of this page (tests/python/
//! test_reference.py, tests/node/reference.test.mjs): its rows keep one form,
//! ``| [`CODE`](#code) | Rust | `monapi.Class` | `MonapiError`, `code` `'CODE'` |``.

use monapi::ErrorCode;

use super::markdown::{self, code, table, text};

// A bug of a package's native code (a caught panic), which is no error of the core: Node's
// `MonapiError` has the code `INTERNAL` for it (bindings-node/ts/lib/errors.ts), Python raises
// the base class itself (bindings-python/src/errors.rs, `panic_error`).
const INTERNAL: &str = "INTERNAL";
const INTERNAL_PYTHON: &str = "MonapiError";
const INTERNAL_WHEN: &str = "A bug in the package's native code (a Rust panic), reported as an \
                             error instead of a crash; the process goes on. Node also gives this \
                             code to an error of its native module that it does not know. Rust \
                             has no such error: a bug there is a panic.";
const INTERNAL_RETRIED: &str = "Never.";
const INTERNAL_ACTION: &str = "Report it, with its message: it is a bug of monapi.";

pub fn page() -> String {
    let mut out = String::from("# Error codes\n\n");
    out += &markdown::generated_from(
        "the core's declaration of the error codes, `monapi::ERRORS` (core/src/error.rs)",
    );
    out += "\n";
    out += &text(
        "Every failure of monapi has a stable code: in Rust `Error::code()` (and a variant of \
         `Error`, whose `kind()` is an `ErrorKind`), in Python the class of the exception (each \
         a subclass of `monapi.MonapiError`), in Node the `code` of the `MonapiError`. Bad input \
         is refused before anything is sent. No error text holds a secret.",
    );
    out += " Settings are named as in Rust and Python; their names in Node and on the command \
            line are in [Configuration](configuration.md).\n\n";
    let mut rows: Vec<Vec<String>> = monapi::ERRORS
        .iter()
        .map(|error| {
            vec![
                link(error.code),
                rust(error),
                code(&format!("monapi.{}", error.python)),
                node(error.code),
            ]
        })
        .collect();
    rows.push(vec![
        link(INTERNAL),
        "none: a panic".to_string(),
        code(&format!("monapi.{}", INTERNAL_PYTHON)),
        node(INTERNAL),
    ]);
    out += &table(&["Code", "Rust", "Python", "Node"], &rows);
    for error in monapi::ERRORS {
        out += "\n";
        out += &section(
            error.code,
            &[
                rust(error),
                code(&format!("monapi.{}", error.python)),
                node(error.code),
            ],
            error.when,
            error.retried,
            error.action,
        );
    }
    out += "\n";
    out += &section(
        INTERNAL,
        &[
            "none: a panic".to_string(),
            format!("{} itself", code(&format!("monapi.{}", INTERNAL_PYTHON))),
            node(INTERNAL),
        ],
        INTERNAL_WHEN,
        INTERNAL_RETRIED,
        INTERNAL_ACTION,
    );
    out
}

/// The anchor of a code's section.
fn anchor(code: &str) -> String {
    code.to_ascii_lowercase()
}

fn link(error_code: &str) -> String {
    format!("[{}](#{})", code(error_code), anchor(error_code))
}

fn rust(error: &ErrorCode) -> String {
    format!(
        "{}, {}",
        code(&format!("Error::{:?}", error.kind)),
        code(&format!("ErrorKind::{:?}", error.kind))
    )
}

fn node(error_code: &str) -> String {
    format!(
        "{}, `code` {}",
        code("MonapiError"),
        code(&format!("'{error_code}'"))
    )
}

fn section(error_code: &str, classes: &[String], when: &str, retried: &str, action: &str) -> String {
    let mut out = markdown::heading(2, &code(error_code), &anchor(error_code));
    out += "\n";
    out += &table(&["Rust", "Python", "Node"], &[classes.to_vec()]);
    out += &format!("\n**When.** {}\n", text(&markdown::one_line(when)));
    out += &format!("\n**Retried.** {}\n", text(&markdown::one_line(retried)));
    out += &format!("\n**What to do.** {}\n", text(&markdown::one_line(action)));
    out
}
