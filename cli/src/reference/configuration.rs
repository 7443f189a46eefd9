//! docs/reference/configuration.md: every setting of a client, from the core's declaration
//! (`monapi::settings::SETTINGS`), each value rule in the core's own words (what it says to a
//! value that breaks it) and each flag as this command's clap tree has it.

use std::time::Duration;

use clap::{Arg, Command};
use monapi::input::MAX_TIMEOUT;
use monapi::settings::{Fallback, Kind, Setting, SETTINGS};
use monapi::{Language, Options, Value};

use super::markdown::{self, code, table, text};
use crate::connection::NO_PROXY;

/// The languages of a setting's table, in its order, with their row's name.
const LANGUAGES: [(Language, &str); 4] = [
    (Language::Rust, "Rust"),
    (Language::Python, "Python"),
    (Language::Node, "Node"),
    (Language::Cli, "Command line"),
];

pub fn page() -> String {
    let client = super::commands::client();
    let mut out = String::from("# Configuration\n\n");
    out += &markdown::generated_from(
        "the core's declaration of the settings, `monapi::settings::SETTINGS` (core/src/settings.rs)",
    );
    out += "\n";
    out += &text(
        "Every setting of a client, in every language: its name, the values it takes, its \
         default and its environment variable. A setting left out falls back to its variable, \
         then to its default: the Python and Node packages and the `monapi` command always read \
         the variables, Rust with `ClientBuilder::from_env()` (or `Client::from_env()`). A \
         value given in code or by flag beats the variable; a password given in any form \
         (plain, MD5 or file) sets every password variable aside, and a client secret in either \
         form those of the secret. With neither from anywhere, the systemd credentials \
         `monapi.password` and `monapi.client_secret` of `$CREDENTIALS_DIRECTORY` are read \
         when they exist, so that secrets stay off command lines and out of the environment.",
    );
    out += "\n\n";
    out += &text(
        "Durations are seconds in Python, on the command line and in every variable (fractions \
         allowed), \
         milliseconds in Node (whose names end in `Ms`), a `std::time::Duration` in Rust. \
         Python takes an `os.PathLike` wherever it takes a `str`, as its path.",
    );
    out += " ";
    out += "A value that breaks a rule is an [`INVALID_INPUT`](errors.md#invalid_input) error \
            naming the setting; in Python a value of a type the setting never takes is a \
            `TypeError`. The packages' own options (a saved token, a callback for new tokens, \
            logging) are in their references: [Python](python.md), \
            [TypeScript](typescript.md).\n\n";
    let rows: Vec<Vec<String>> = SETTINGS
        .iter()
        .map(|setting| {
            vec![
                format!("[{}](#{})", code(setting.name), setting.name),
                code(setting.node),
                flag(&client, setting).map_or_else(|| "none".to_string(), |arg| code(&long(arg))),
                setting.env.map_or_else(|| "none".to_string(), code),
                markdown::cell(setting.help),
            ]
        })
        .collect();
    out += &table(
        &[
            "Rust, Python",
            "Node",
            "Command line",
            "Environment",
            "What it is",
        ],
        &rows,
    );
    for setting in SETTINGS {
        out += "\n";
        out += &section(&client, setting);
    }
    out
}

/// A setting's section: what it is, then its name, values, default and variables in each
/// language.
fn section(client: &Command, setting: &Setting) -> String {
    let mut out = markdown::heading(2, &code(setting.name), setting.name);
    out += &format!("\n{}.\n\n", text(setting.help.trim_end_matches('.')));
    let rows: Vec<Vec<String>> = LANGUAGES
        .iter()
        .map(|&(language, shown)| {
            vec![
                shown.to_string(),
                name(client, setting, language),
                value(setting, language),
                default(setting, language),
                environment(setting, language),
            ]
        })
        .collect();
    out += &table(&["Language", "Name", "Value", "Default", "Environment"], &rows);
    if setting.kind == Kind::Certificates {
        out += &format!(
            "\n{}\n",
            text(&format!(
                "Each of these variables that is set is read besides the setting: the \
                 certificates of its file (of its directories, for `{CERT_DIRS}`) are trusted \
                 too."
            ))
        );
    }
    out
}

/// The variable of the directories of CA certificates, which every language reads besides
/// its files' (`Language::ca_variables`).
const CERT_DIRS: &str = "SSL_CERT_DIR";

/// The variables `language` reads for the setting; Rust reads them with `from_env` only.
fn environment(setting: &Setting, language: Language) -> String {
    let variables: Vec<&str> = match setting.kind {
        Kind::Certificates => {
            let mut variables = language.ca_variables();
            variables.push(CERT_DIRS);
            variables
        }
        _ => setting.env.into_iter().collect(),
    };
    if variables.is_empty() {
        return "none".to_string();
    }
    let mut shown = variables.into_iter().map(code).collect::<Vec<_>>().join(", ");
    if language == Language::Rust {
        shown += &format!(" (with {})", code("from_env"));
    }
    shown
}

/// The setting's flag among the client flags (which every command that calls the service
/// takes).
fn flag<'a>(client: &'a Command, setting: &Setting) -> Option<&'a Arg> {
    if !setting.cli {
        return None;
    }
    let arg = client.get_arguments().find(|arg| arg.get_id() == setting.name);
    Some(arg.unwrap_or_else(|| {
        panic!(
            "the setting {} is declared for the command line but has no flag",
            setting.name
        )
    }))
}

/// `--name`.
fn long(arg: &Arg) -> String {
    format!("--{}", arg.get_long().expect("a client flag is long"))
}

fn name(client: &Command, setting: &Setting, language: Language) -> String {
    match language {
        Language::Rust => code(&format!("ClientBuilder::{}", setting.name)),
        Language::Cli => match flag(client, setting) {
            None => "none".to_string(),
            Some(arg) => {
                let value: Vec<String> = arg
                    .get_value_names()
                    .unwrap_or_default()
                    .iter()
                    .map(|name| name.to_string())
                    .collect();
                let mut shown = code(&format!("{} {}", long(arg), value.join(" ")));
                if setting.kind == Kind::Proxy {
                    shown += &format!(", {}", code(&format!("--{}", no_proxy(client))));
                }
                shown
            }
        },
        _ => code(setting.name_in(language)),
    }
}

/// The long name of the flag that turns the proxy off.
fn no_proxy(client: &Command) -> &str {
    client
        .get_arguments()
        .find(|arg| arg.get_id() == NO_PROXY)
        .and_then(Arg::get_long)
        .expect("the client flags have one for no proxy")
}

/// What a setting takes in `language`.
fn value(setting: &Setting, language: Language) -> String {
    match (setting.kind, language) {
        (Kind::Duration, Language::Rust) => text(&format!(
            "a `Duration`, more than 0, at most `Duration::from_millis({})` (about 24.8 days)",
            MAX_TIMEOUT.as_millis()
        )),
        (Kind::Duration | Kind::Count { .. }, _) => text(&rule(setting, language)),
        (Kind::Text | Kind::Secret, Language::Rust | Language::Cli) => "text".to_string(),
        (Kind::Timezone, Language::Rust) => text("a `chrono::FixedOffset`"),
        (Kind::Timezone, Language::Cli) => text("an offset from UTC such as `+08:00`, `-05:30` or `UTC`"),
        (Kind::Certificates, Language::Rust) => {
            text("a PEM file (`ca_bundle`) or PEM text (`ca_bundle_pem`)")
        }
        (Kind::Certificates, Language::Cli) => "the path of a PEM file".to_string(),
        (Kind::Proxy, Language::Rust) => text("a URL (`proxy`), or no proxy (`no_proxy`)"),
        (Kind::Proxy, Language::Cli) => "a URL, or no proxy".to_string(),
        _ => text(without_must(&setting.expects(language))),
    }
}

/// The rule of a number, as the core words it to a value that breaks it (-1 breaks every
/// such rule: durations are more than 0, counts at least 0).
fn rule(setting: &Setting, language: Language) -> String {
    let broken = match language {
        Language::Cli => Value::Text("-1".into()),
        _ => Value::Number(-1.0),
    };
    let error = Options::from_values(language, [(setting.name_in(language), broken)])
        .expect_err("-1 breaks the rule of every number");
    without_must(error.rule().expect("invalid input names a rule")).to_string()
}

fn without_must(rule: &str) -> &str {
    rule.strip_prefix("must be ").unwrap_or(rule)
}

/// The default in `language`, durations in its unit.
fn default(setting: &Setting, language: Language) -> String {
    match setting.default {
        Fallback::None => "none".to_string(),
        Fallback::Count(count) => code(&count.to_string()),
        Fallback::Text(shown) => text(shown),
        Fallback::Duration(duration) if language == Language::Rust => code(&rust_duration(duration)),
        Fallback::Duration(duration) => {
            let unit = Setting::unit(language);
            let per_second = match unit {
                monapi::input::Unit::Seconds => 1.0,
                monapi::input::Unit::Milliseconds => 1000.0,
            };
            code(&format!("{}", duration.as_secs_f64() * per_second))
        }
    }
}

fn rust_duration(duration: Duration) -> String {
    if duration.subsec_nanos() == 0 {
        format!("Duration::from_secs({})", duration.as_secs())
    } else {
        format!("Duration::from_millis({})", duration.as_millis())
    }
}
