//! The generated pages of the docs' reference (docs/reference/), each from its source of
//! truth: the configuration from the core's declaration of the settings, the error codes
//! from its declaration of the codes, the command line from this command's clap tree (which
//! only this crate's binary holds, hence tests of the binary). A test fails when a committed
//! page differs from what the code generates; with `MONAPI_WRITE_REFERENCE=1` it writes the
//! page instead (`make reference`).

mod commands;
mod configuration;
mod errors;
mod markdown;

use std::path::{Path, PathBuf};

use clap::{Command, CommandFactory};

/// Set to `1`, the tests write the pages instead of comparing them.
const WRITE_VAR: &str = "MONAPI_WRITE_REFERENCE";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is a member of the workspace")
        .to_path_buf()
}

/// Writes `page` (`MONAPI_WRITE_REFERENCE=1`), or fails when the committed one differs from it.
fn current(relative: &str, page: &str) {
    let path = workspace().join(relative);
    if std::env::var(WRITE_VAR).as_deref() == Ok("1") {
        std::fs::write(&path, page).unwrap_or_else(|e| panic!("cannot write {relative}: {e}"));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != page {
        let line = committed
            .lines()
            .zip(page.lines())
            .position(|(old, new)| old != new)
            .unwrap_or_else(|| committed.lines().count().min(page.lines().count()))
            + 1;
        panic!(
            "{relative} differs from what the code generates (from line {line}): run `make reference` \
             and commit it"
        );
    }
}

#[test]
fn configuration_page_is_current() {
    current("docs/reference/configuration.md", &configuration::page());
}

#[test]
fn errors_page_is_current() {
    current("docs/reference/errors.md", &errors::page());
}

#[test]
fn cli_page_is_current() {
    current("docs/reference/cli.md", &commands::page());
}

#[test]
fn every_setting_and_code_has_its_section() {
    let configuration = configuration::page();
    for setting in monapi::settings::SETTINGS {
        assert!(
            configuration.contains(&format!("{{#{}}}", setting.name)),
            "{}",
            setting.name
        );
        assert!(
            configuration.contains(&format!("`{}`", setting.node)),
            "{}",
            setting.node
        );
    }
    let errors = errors::page();
    for error in monapi::ERRORS {
        let anchor = format!("{{#{}}}", error.code.to_ascii_lowercase());
        assert_eq!(errors.matches(&anchor).count(), 1, "{}", error.code);
        assert!(
            errors.contains(&format!("`monapi.{}`", error.python)),
            "{}",
            error.python
        );
    }
}

/// Every command a user can type and every flag it takes is on the page, however deep.
#[test]
fn every_command_and_flag_is_on_the_cli_page() {
    let page = commands::page();
    let mut cli = crate::Cli::command();
    cli.build();
    let mut seen = 0;
    let mut stack: Vec<&Command> = cli.get_subcommands().collect();
    while let Some(command) = stack.pop() {
        if command.get_name() == "help" {
            continue;
        }
        seen += 1;
        let anchor = format!("{{#{}}}", commands::anchor(command));
        assert_eq!(page.matches(&anchor).count(), 1, "{anchor}");
        for arg in command.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(page.contains(&format!("`--{long}`")), "--{long} of {anchor}");
            }
        }
        stack.extend(command.get_subcommands());
    }
    // serve, token ... exporter, and export's five tables.
    assert!(seen >= 20, "{seen} commands");
}
