//! Where a client's settings come from besides its caller: each setting's `MONAPI_*` variable
//! ([`Setting::env`](crate::settings::Setting::env)), and the files that keep secrets off command lines and out of the
//! environment (`password_file`, `client_secret_file`, and systemd's credentials directory).

use std::path::{Path, PathBuf};

use crate::network::Language;
use crate::settings::{Options, Value, SETTINGS};
use crate::{Error, Result, Secret};

/// The variable systemd sets to the directory of a unit's credentials (`LoadCredential=`).
pub(crate) const CREDENTIALS_DIRECTORY: &str = "CREDENTIALS_DIRECTORY";
/// The credential that holds the account password, in [`CREDENTIALS_DIRECTORY`].
pub(crate) const PASSWORD_CREDENTIAL: &str = "monapi.password";
/// The credential that holds the API client's secret, in [`CREDENTIALS_DIRECTORY`].
pub(crate) const CLIENT_SECRET_CREDENTIAL: &str = "monapi.client_secret";

/// The settings the environment gives: each declared setting's variable, read as the command
/// line's text is (durations in seconds). Empty variables count as unset. The CA variables are
/// not read here: they add to a given bundle rather than stand for it (`network`).
pub(crate) fn options(env: &dyn Fn(&str) -> Option<String>) -> Result<Options> {
    let mut options = Options::default();
    for setting in SETTINGS.iter().filter(|s| s.name != "ca_bundle") {
        let Some(variable) = setting.env else { continue };
        let Some(text) = env(variable) else { continue };
        options
            .set(Language::Cli, setting.name, Value::Text(text))
            .map_err(|error| named_by(error, variable))?;
    }
    Ok(options)
}

/// `error` about a setting, naming the variable that gave it instead.
fn named_by(error: Error, variable: &str) -> Error {
    let rule = error.rule().unwrap_or("is not valid").to_string();
    Error::invalid_input(None, variable, rule)
}

/// `given`, and what the environment gives for the rest. A login given in any form (the
/// password, its MD5 or its file) leaves every form of the environment's aside, and so does a
/// client secret in either form: a caller's choice is never mixed with another one.
pub(crate) fn merge(given: Options, mut from_env: Options) -> Options {
    if given.password.is_some() || given.password_md5.is_some() || given.password_file.is_some() {
        from_env.password = None;
        from_env.password_md5 = None;
        from_env.password_file = None;
    }
    if given.client_secret.is_some() || given.client_secret_file.is_some() {
        from_env.client_secret = None;
        from_env.client_secret_file = None;
    }
    from_env.overlay(given);
    from_env
}

/// One secret from its value or its file (at most one of them), or else from systemd's
/// credential `credential` when the environment names a credentials directory holding it.
pub(crate) fn secret(
    value: Option<Secret>,
    (file_field, file): (&str, Option<PathBuf>),
    credential: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Secret>> {
    match (value, file) {
        (Some(_), Some(_)) => Err(Error::invalid_input(
            None,
            file_field,
            "cannot be given together with the value it holds: give one of them",
        )),
        (Some(value), None) => Ok(Some(value)),
        (None, Some(path)) => read_secret(file_field, &path).map(Some),
        (None, None) => {
            let Some(directory) = env(CREDENTIALS_DIRECTORY) else {
                return Ok(None);
            };
            let path = Path::new(&directory).join(credential);
            if path.is_file() {
                read_secret(CREDENTIALS_DIRECTORY, &path).map(Some)
            } else {
                Ok(None)
            }
        }
    }
}

/// The secret a file holds: read once, one trailing newline (`\n` or `\r\n`) dropped, as
/// `echo secret > file` and editors leave one. The error names `field` and the path, never
/// what the file holds.
fn read_secret(field: &str, path: &Path) -> Result<Secret> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        Error::invalid_input(None, field, format!("cannot read {}: {error}", path.display()))
    })?;
    let secret = match text.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => &text,
    };
    if secret.is_empty() {
        return Err(Error::invalid_input(
            None,
            field,
            format!("names an empty file ({})", path.display()),
        ));
    }
    Ok(Secret::new(secret.to_string()))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use crate::{Client, ClientBuilder, Error};

    const ACCOUNT: [(&str, &str); 4] = [
        ("MONAPI_BASE_URL", "http://127.0.0.1:9"),
        ("MONAPI_CLIENT_ID", "id"),
        ("MONAPI_CLIENT_SECRET", "the-client-secret"),
        ("MONAPI_USERNAME", "someone@example.com"),
    ];

    /// `builder` built from the environment `vars` alone (none of the process's).
    fn build(builder: ClientBuilder, vars: &[(&str, &str)]) -> Result<Client, Error> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        builder.build_with(&|name| vars.get(name).filter(|v| !v.is_empty()).cloned())
    }

    fn with_account<'a>(more: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        ACCOUNT.iter().chain(more).copied().collect()
    }

    fn md5_of(client: &Client) -> String {
        client
            .settings()
            .password_md5
            .as_ref()
            .unwrap()
            .expose()
            .to_string()
    }

    /// A directory of its own for each test, removed when dropped.
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new(test: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("monapi-env-{test}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn file(dir: &std::path::Path, name: &str, text: &str) -> String {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn every_connection_setting_has_a_variable_and_it_is_read() {
        // The storage options' variables are the cloud's own (AWS_*, GOOGLE_*, AZURE_*).
        let connection = |s: &&crate::settings::Setting| s.cli && s.kind != crate::settings::Kind::Map;
        for setting in crate::settings::SETTINGS.iter().filter(connection) {
            assert!(
                setting.env.is_some_and(|v| v.starts_with("MONAPI_")),
                "{}",
                setting.name
            );
        }
        let vars = with_account(&[
            ("MONAPI_PASSWORD", "pw"),
            ("MONAPI_TIMEOUT", "2.5"),
            ("MONAPI_CONNECT_TIMEOUT", "3"),
            ("MONAPI_MAX_RETRIES", "7"),
            ("MONAPI_USER_AGENT", "probe/1"),
            ("MONAPI_PROXY", "http://proxy.example:3128"),
            ("MONAPI_MAX_CONNECTIONS", "4"),
            ("MONAPI_MAX_RESPONSE_BYTES", "1000"),
            ("MONAPI_TIMEZONE", "UTC"),
            ("MONAPI_STORE", "/tmp/store"),
            ("MONAPI_SETTLE", "60"),
        ]);
        let settings = build(ClientBuilder::from_env(), &vars)
            .unwrap()
            .settings()
            .clone();
        assert_eq!(settings.timeout, Duration::from_millis(2500));
        assert_eq!(settings.connect_timeout, Duration::from_secs(3));
        assert_eq!(settings.max_retries, 7);
        assert_eq!(settings.user_agent, "probe/1");
        assert!(matches!(&settings.proxy, Some(crate::Proxy::Url(url)) if url.expose().contains("3128")));
        assert_eq!(settings.max_connections, 4);
        assert_eq!(settings.max_response_bytes, 1000);
        assert_eq!(settings.timezone.to_string(), "+00:00");
        assert_eq!(
            settings.store,
            Some(crate::StoreLocation::Local("/tmp/store".into()))
        );
        assert_eq!(settings.settle, Duration::from_secs(60));
    }

    #[test]
    fn what_the_caller_gives_beats_the_environment() {
        let vars = with_account(&[("MONAPI_PASSWORD", "pw"), ("MONAPI_TIMEOUT", "2.5")]);
        let builder = ClientBuilder::from_env().timeout(Duration::from_secs(9));
        assert_eq!(
            build(builder, &vars).unwrap().settings().timeout,
            Duration::from_secs(9)
        );
        // Without from_env nothing of the environment is read.
        let err = build(ClientBuilder::new(), &vars).unwrap_err();
        assert_eq!(err.field(), Some("base_url"));
    }

    #[test]
    fn a_bad_variable_is_named_with_its_rule_and_not_its_value() {
        let vars = with_account(&[("MONAPI_PASSWORD", "pw"), ("MONAPI_TIMEOUT", "soon")]);
        let err = build(ClientBuilder::from_env(), &vars).unwrap_err();
        assert_eq!(err.field(), Some("MONAPI_TIMEOUT"));
        assert!(err.rule().unwrap().contains("seconds"), "{err}");
        let vars = with_account(&[("MONAPI_PASSWORD_MD5", "not-a-digest-of-anything")]);
        let err = build(ClientBuilder::from_env(), &vars).unwrap_err();
        assert_eq!(err.field(), Some("password_md5"));
        assert!(!err.to_string().contains("not-a-digest"), "{err}");
    }

    #[test]
    fn the_password_md5_variable_logs_in_and_a_given_login_sets_the_environment_s_aside() {
        let md5 = "e10adc3949ba59abbe56e057f20f883e"; // 123456
        let vars = with_account(&[("MONAPI_PASSWORD_MD5", md5)]);
        assert_eq!(md5_of(&build(ClientBuilder::from_env(), &vars).unwrap()), md5);
        // Both forms in the environment: refused, rather than one picked.
        let vars = with_account(&[("MONAPI_PASSWORD_MD5", md5), ("MONAPI_PASSWORD", "other")]);
        let err = build(ClientBuilder::from_env(), &vars).unwrap_err();
        assert_eq!(err.field(), Some("password_md5"));
        // A password given by the caller: the environment's MD5 is not mixed in.
        let client = build(ClientBuilder::from_env().password("123456"), &vars).unwrap();
        assert_eq!(md5_of(&client), md5);
    }

    #[test]
    fn secret_files_are_read_once_with_one_trailing_newline_dropped() {
        let dir = Scratch::new("files");
        let password = file(dir.path(), "password", "123456\r\n");
        let secret = file(dir.path(), "secret", "s3cret\n\n");
        let builder = ClientBuilder::from_env()
            .password_file(&password)
            .client_secret_file(&secret);
        let client = build(builder, &ACCOUNT).unwrap();
        assert_eq!(md5_of(&client), "e10adc3949ba59abbe56e057f20f883e");
        // One newline only: the second is part of the secret.
        assert_eq!(client.settings().client_secret.expose(), "s3cret\n");
        // The file is read when the client is built, not again.
        std::fs::remove_file(&password).unwrap();
        assert_eq!(md5_of(&client), "e10adc3949ba59abbe56e057f20f883e");
    }

    #[test]
    fn file_variables_work_and_a_file_with_its_value_is_refused() {
        let dir = Scratch::new("file_vars");
        let password = file(dir.path(), "password", "123456\n");
        let vars = with_account(&[("MONAPI_PASSWORD_FILE", password.as_str())]);
        let client = build(ClientBuilder::from_env(), &vars).unwrap();
        assert_eq!(md5_of(&client), "e10adc3949ba59abbe56e057f20f883e");

        let builder = ClientBuilder::from_env().password("x").password_file(&password);
        let err = build(builder, &ACCOUNT).unwrap_err();
        assert_eq!(err.field(), Some("password_file"));
        let builder = ClientBuilder::from_env().password_md5("e10adc3949ba59abbe56e057f20f883e");
        let err = build(builder.password_file(&password), &ACCOUNT).unwrap_err();
        assert_eq!(err.field(), Some("password_file"));
    }

    #[test]
    fn a_missing_or_empty_file_is_named_without_its_contents() {
        let dir = Scratch::new("missing");
        let missing = dir.path().join("nowhere");
        let builder = ClientBuilder::from_env().password_file(&missing);
        let err = build(builder, &ACCOUNT).unwrap_err();
        assert_eq!(err.field(), Some("password_file"));
        assert!(err.to_string().contains("nowhere"), "{err}");

        let empty = file(dir.path(), "empty", "\n");
        let err = build(ClientBuilder::from_env().client_secret_file(&empty), &ACCOUNT).unwrap_err();
        assert_eq!(err.field(), Some("client_secret_file"));
        assert!(err.rule().unwrap().contains("empty"), "{err}");

        let secret = file(dir.path(), "secret", "hunter2-very-secret");
        let builder = ClientBuilder::from_env()
            .client_secret("x")
            .client_secret_file(&secret);
        let err = build(builder, &ACCOUNT).unwrap_err();
        assert_eq!(err.field(), Some("client_secret_file"));
        assert!(!format!("{err} {err:?}").contains("hunter2"));
    }

    #[test]
    fn systemd_credentials_are_read_when_nothing_else_gives_the_secrets() {
        let dir = Scratch::new("credentials");
        file(dir.path(), "monapi.password", "123456\n");
        file(dir.path(), "monapi.client_secret", "from-credentials\n");
        let directory = dir.path().to_string_lossy().into_owned();
        let vars = [
            ("MONAPI_BASE_URL", "http://127.0.0.1:9"),
            ("MONAPI_CLIENT_ID", "id"),
            ("MONAPI_USERNAME", "someone@example.com"),
            ("CREDENTIALS_DIRECTORY", directory.as_str()),
        ];
        let client = build(ClientBuilder::from_env(), &vars).unwrap();
        assert_eq!(md5_of(&client), "e10adc3949ba59abbe56e057f20f883e");
        assert_eq!(client.settings().client_secret.expose(), "from-credentials");
        // A secret given in any form beats the credentials.
        let client = build(
            ClientBuilder::from_env().password("other").client_secret("given"),
            &vars,
        )
        .unwrap();
        assert_eq!(client.settings().client_secret.expose(), "given");
        assert_ne!(md5_of(&client), "e10adc3949ba59abbe56e057f20f883e");
    }

    #[test]
    fn a_missing_secret_names_both_of_its_variables() {
        let err = build(ClientBuilder::from_env(), &ACCOUNT[..2]).unwrap_err();
        assert_eq!(err.field(), Some("client_secret"));
        assert!(
            err.rule()
                .unwrap()
                .contains("MONAPI_CLIENT_SECRET or MONAPI_CLIENT_SECRET_FILE"),
            "{err}"
        );
    }
}
