//! The client's settings as flags (`--base-url`, `--timeout`, `--max-connections`...): one flag
//! for each setting the core declares for the command line (`monapi::settings::SETTINGS`), read
//! by the core's rules. A setting added to the core's declaration becomes a flag here by itself.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use monapi::settings::{Fallback, Kind, Setting, SETTINGS};
use monapi::{Client, ClientBuilder, Language, Options, Value};

/// The flag that turns the proxy off, besides `--proxy URL`.
pub(crate) const NO_PROXY: &str = "no_proxy";

/// Where the service is and who we are, as given on the command line; each setting left out
/// falls back to its `MONAPI_*` variable, then to its default (the client library decides).
#[derive(Debug, Default)]
pub struct Connection {
    /// Each flag given, by the setting's name, as text (the core reads it by its kind).
    given: Vec<(&'static str, Value)>,
}

impl Connection {
    pub fn client(self) -> monapi::Result<Client> {
        self.builder()?.build()
    }

    /// A builder with these settings, the `MONAPI_*` variables for the others.
    pub fn builder(self) -> monapi::Result<ClientBuilder> {
        let options = Options::from_values(Language::Cli, self.given)?;
        Ok(ClientBuilder::from_env().options(options))
    }
}

fn flags() -> impl Iterator<Item = &'static Setting> {
    SETTINGS.iter().filter(|setting| setting.cli)
}

/// `--help`'s line: what it is, its default, its variable.
fn help(setting: &Setting) -> String {
    let unit = match setting.kind {
        Kind::Duration => ", in seconds",
        _ => "",
    };
    let mut help = format!("{}{unit}", setting.help);
    match setting.default {
        Fallback::Duration(duration) => help += &format!(" [default: {}]", duration.as_secs_f64()),
        Fallback::Count(count) => help += &format!(" [default: {count}]"),
        Fallback::Text(text) => help += &format!(" [default: {text}]"),
        Fallback::None => {}
    }
    if let Some(variable) = setting.env {
        help += &format!(" [env: {variable}]");
    }
    help
}

impl Args for Connection {
    fn augment_args(command: Command) -> Command {
        flags().fold(command, |command, setting| {
            let value_name = match setting.kind {
                Kind::Duration => "SECONDS",
                Kind::Count { .. } => "N",
                Kind::Certificates => "PATH",
                Kind::Proxy => "URL",
                Kind::Timezone => "OFFSET",
                Kind::Map => "KEY=VALUE",
                _ => "TEXT",
            };
            let arg = Arg::new(setting.name)
                .long(setting.flag())
                .value_name(value_name)
                .help(help(setting));
            let command = command.arg(match setting.kind {
                Kind::Map => arg.action(ArgAction::Append),
                _ => arg,
            });
            match setting.kind {
                Kind::Proxy => command.arg(
                    Arg::new(NO_PROXY)
                        .long("no-proxy")
                        .action(ArgAction::SetTrue)
                        .conflicts_with(setting.name)
                        .help("No proxy, whatever the environment says"),
                ),
                _ => command,
            }
        })
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for Connection {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut connection = Connection::default();
        connection.update_from_arg_matches(matches)?;
        Ok(connection)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for setting in flags() {
            // A map's flag is given once per pair: each is a value of its own.
            for text in matches.get_many::<String>(setting.name).into_iter().flatten() {
                self.given.push((setting.name, Value::Text(text.clone())));
            }
            if setting.kind == Kind::Proxy && matches.get_flag(NO_PROXY) {
                self.given.push((setting.name, Value::Bool(false)));
            }
        }
        Ok(())
    }
}
