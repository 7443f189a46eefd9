//! docs/reference/cli.md: every command and flag of `monapi`, from its clap tree (what
//! `--help` prints, as Markdown). The client flags, the same for every command that calls the
//! service, have one section.

use clap::{Arg, Command, CommandFactory};
use monapi::settings::SETTINGS;

use super::markdown::{self, block, code, table, text};

/// The anchor of the client flags' section.
const CLIENT_FLAGS: &str = "client-flags";

/// The anchor of the global flags' section.
const GLOBAL_FLAGS: &str = "global-flags";

pub fn page() -> String {
    let mut cli = crate::Cli::command();
    // Completes the tree: the usages, and each command's name as typed.
    cli.build();
    let mut out = String::from("# The command line\n\n");
    out += &markdown::generated_from("the clap tree of `monapi` (cli/src/lib.rs and its modules)");
    out += "\n";
    out += &paragraphs(&about(&cli));
    out += &block(&usage(&cli));
    out += "\n";
    out += &text(
        "Every command takes `-h` (a summary) and `--help` (all of it), and `-V`/`--version`; \
         `monapi help COMMAND` prints a command's help.",
    );
    out += " The commands that call the service take the [client flags](#client-flags); each \
            falls back to its `MONAPI_*` variable, then to its default ([Configuration](configuration.md)). \
            Every command takes the [global flags](#global-flags), before or after its name.\n\n";
    out += &markdown::heading(2, "Commands", "commands");
    out += "\n";
    let mut rows = Vec::new();
    for command in visible(&cli) {
        summary(command, &mut rows);
    }
    out += &table(&["Command", "What it does"], &rows);
    for command in visible(&cli) {
        out += &section(command, 2);
    }
    out += "\n";
    out += &global_flags(&cli);
    out += "\n";
    out += &client_flags();
    out
}

/// The subcommands a user sees (not hidden, not clap's `help`).
fn visible(command: &Command) -> impl Iterator<Item = &Command> {
    command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
}

/// The arguments a user sees, less clap's `--help` and `--version` and the global flags (which
/// clap copies into every command: they have a section of their own).
fn arguments(command: &Command) -> impl Iterator<Item = &Arg> {
    command.get_arguments().filter(|arg| {
        !arg.is_hide_set() && !arg.is_global_set() && !matches!(arg.get_id().as_str(), "help" | "version")
    })
}

/// The command as typed (`monapi export site-reports`).
fn typed(command: &Command) -> &str {
    command
        .get_bin_name()
        .expect("a built command has its name as typed")
}

/// A command's anchor: its name as typed, less `monapi`, with dashes (`export-site-reports`).
pub fn anchor(command: &Command) -> String {
    typed(command).split(' ').skip(1).collect::<Vec<_>>().join("-")
}

fn about(command: &Command) -> String {
    command
        .get_long_about()
        .or(command.get_about())
        .map(|about| about.to_string())
        .unwrap_or_default()
}

fn usage(command: &Command) -> String {
    let usage = command.clone().render_usage().to_string();
    usage.trim_start_matches("Usage:").trim().to_string()
}

/// Paragraphs of help text (clap keeps a doc comment's blank lines), each as one line.
fn paragraphs(help: &str) -> String {
    help.split("\n\n")
        .map(markdown::one_line)
        .filter(|paragraph| !paragraph.is_empty())
        .map(|paragraph| format!("{}\n\n", text(&paragraph)))
        .collect()
}

/// The summary's row of `command`, then its subcommands'.
fn summary(command: &Command, rows: &mut Vec<Vec<String>>) {
    rows.push(vec![
        format!("[{}](#{})", code(typed(command)), anchor(command)),
        markdown::cell(
            &command
                .get_about()
                .map(|about| about.to_string())
                .unwrap_or_default(),
        ),
    ]);
    for sub in visible(command) {
        summary(sub, rows);
    }
}

/// The client flags, as `Connection` adds them to a command.
pub fn client() -> Command {
    <crate::Connection as clap::Args>::augment_args(Command::new("client"))
}

/// Whether `arg` is one of the client flags (`monapi serve --timezone`, of the same name as
/// the setting, is the emulator's own: its help differs).
fn is_client_flag(arg: &Arg) -> bool {
    let help = |arg: &Arg| arg.get_help().map(|help| help.to_string());
    client()
        .get_arguments()
        .any(|flag| flag.get_id() == arg.get_id() && help(flag) == help(arg))
}

/// A command's section: what it does, its usage, arguments and flags, the text after its
/// help, then its subcommands' sections.
fn section(command: &Command, level: usize) -> String {
    let mut out = String::from("\n");
    out += &markdown::heading(level, &code(typed(command)), &anchor(command));
    out += "\n";
    out += &paragraphs(&about(command));
    out += &block(&usage(command));
    let positionals: Vec<Vec<String>> = arguments(command)
        .filter(|arg| arg.is_positional())
        .map(|arg| vec![code(&value_names(arg)), description(arg)])
        .collect();
    if !positionals.is_empty() {
        out += "\n";
        out += &table(&["Argument", "What it is"], &positionals);
    }
    let flags: Vec<Vec<String>> = arguments(command)
        .filter(|arg| !arg.is_positional() && !is_client_flag(arg))
        .map(|arg| vec![names(arg), value(arg), default(arg), description(arg)])
        .collect();
    if !flags.is_empty() {
        out += "\n";
        out += &table(&["Flag", "Value", "Default", "What it is"], &flags);
    }
    let client: Vec<&Arg> = arguments(command).filter(|arg| is_client_flag(arg)).collect();
    if !client.is_empty() {
        assert_eq!(
            client.len(),
            client_flag_count(),
            "{} takes some of the client flags, not all: list them in its section",
            typed(command)
        );
        out += "\nAnd the [client flags](#client-flags).\n";
    }
    if let Some(after) = command.get_after_long_help().or(command.get_after_help()) {
        out += "\n";
        out += &block(&after.to_string());
    }
    for sub in visible(command) {
        out += &section(sub, level + 1);
    }
    out
}

/// The flags of `monapi` itself, which every command takes.
fn global_flags(cli: &Command) -> String {
    let mut out = markdown::heading(2, "Global flags", GLOBAL_FLAGS);
    out += "\n";
    out += &text("Every command takes these, before or after its name: its log lines on stderr.");
    out += "\n\n";
    let rows: Vec<Vec<String>> = cli
        .get_arguments()
        .filter(|arg| arg.is_global_set() && !arg.is_hide_set())
        .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
        .map(|arg| vec![names(arg), value(arg), default(arg), description(arg)])
        .collect();
    out += &table(&["Flag", "Value", "Default", "What it is"], &rows);
    out
}

fn client_flag_count() -> usize {
    client().get_arguments().count()
}

fn client_flags() -> String {
    let mut out = markdown::heading(2, "Client flags", CLIENT_FLAGS);
    out += "\n";
    out += &text(
        "Where the service is and who calls it, and how: every command that calls the service \
         takes these. Each is a setting of the client, the same in every language.",
    );
    out += "\n\n";
    let client = client();
    let rows: Vec<Vec<String>> = arguments(&client)
        .map(|arg| {
            let setting = SETTINGS
                .iter()
                .find(|setting| setting.name == arg.get_id().as_str());
            // The one flag that is no setting of its own turns the proxy off.
            let name = setting.map_or("proxy", |setting| setting.name);
            let linked = format!("[{}](configuration.md#{name})", code(name));
            vec![names(arg), value(arg), linked, description(arg)]
        })
        .collect();
    out += &table(&["Flag", "Value", "Setting", "What it is"], &rows);
    out
}

/// `-o`, `--output`.
fn names(arg: &Arg) -> String {
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(code(&format!("-{short}")));
    }
    if let Some(long) = arg.get_long() {
        names.push(code(&format!("--{long}")));
    }
    names.join(", ")
}

/// `<ID>`, `<ID>...` for several.
fn value_names(arg: &Arg) -> String {
    let names: Vec<String> = match arg.get_value_names() {
        Some(names) => names.iter().map(|name| format!("<{name}>")).collect(),
        None => vec![format!("<{}>", arg.get_id().as_str().to_ascii_uppercase())],
    };
    let several = arg.get_num_args().is_some_and(|range| range.max_values() > 1);
    let mut shown = names.join(" ");
    if several {
        shown.push_str("...");
    }
    shown
}

fn value(arg: &Arg) -> String {
    if !arg.get_action().takes_values() {
        return "none".to_string();
    }
    let mut shown = code(&value_names(arg));
    if let Some(delimiter) = arg.get_value_delimiter() {
        shown += &format!(" (several: separated by {})", code(&delimiter.to_string()));
    }
    shown
}

fn default(arg: &Arg) -> String {
    let defaults = arg.get_default_values();
    if !arg.get_action().takes_values() || arg.is_hide_default_value_set() || defaults.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = defaults
        .iter()
        .map(|value| value.to_string_lossy().into_owned())
        .collect();
    code(&shown.join(","))
}

/// Its help, whether it is required, its values with their help.
fn description(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|help| help.to_string())
        .unwrap_or_default();
    let mut sentences = vec![markdown::cell(&help)];
    if arg.is_required_set() && !arg.is_positional() {
        sentences.push("Required".to_string());
    }
    if let Some(variable) = arg.get_env() {
        sentences.push(format!("Variable: {}", code(&variable.to_string_lossy())));
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| match value.get_help() {
            Some(help) => format!(
                "{}: {}",
                code(value.get_name()),
                markdown::cell(&help.to_string())
            ),
            None => code(value.get_name()),
        })
        .collect();
    // clap drops the last period of a one-line help; the cell's sentences keep theirs.
    let mut out = sentences
        .iter()
        .filter(|sentence| !sentence.is_empty())
        .map(|sentence| match sentence.ends_with(['.', '!', '?']) {
            true => sentence.clone(),
            false => format!("{sentence}."),
        })
        .collect::<Vec<_>>()
        .join(" ");
    if arg.get_action().takes_values() && !values.is_empty() {
        // A line each (a table cell holds no list).
        out += &format!(" One of:<br>{}", values.join("<br>"));
    }
    out
}
