//! The constructor's keyword arguments, handed to the core's builder as given: the core reads
//! the `MONAPI_*` environment variables for what is left out, applies the defaults and checks
//! every bound (`monapi::ClientBuilder::build`).

use std::sync::Arc;

use monapi::{CaBundle, ClientBuilder, Language, Options, Proxy, Settings, Token, Value};
use pyo3::prelude::*;

use crate::args::{CaBundleArg, Number, ProxyArg};
use crate::errors::to_pyerr;
use crate::shared::TokenCallback;

/// What the caller of `Client(...)` / `AsyncClient(...)` gave.
pub struct Given {
    pub base_url: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub password_md5: Option<String>,
    pub token: Option<Token>,
    pub timeout: Option<Number>,
    pub connect_timeout: Option<Number>,
    pub max_retries: Option<Number>,
    pub user_agent: Option<String>,
    pub ca_bundle: Option<CaBundleArg>,
    pub proxy: ProxyArg,
    pub max_connections: Option<Number>,
    pub timezone: Option<String>,
}

impl Given {
    /// The core builder with these values, falling back to the environment.
    pub fn builder(self, py: Python<'_>) -> PyResult<ClientBuilder> {
        let text = |value: Option<String>| value.map(Value::Text);
        let number = |value: Option<Number>| value.map(|Number(n)| Value::Number(n));
        let values = [
            ("base_url", text(self.base_url)),
            ("client_id", text(self.client_id)),
            ("client_secret", text(self.client_secret)),
            ("username", text(self.username)),
            ("password", text(self.password)),
            ("password_md5", text(self.password_md5)),
            ("timeout", number(self.timeout)),
            ("connect_timeout", number(self.connect_timeout)),
            ("max_retries", number(self.max_retries)),
            ("user_agent", text(self.user_agent)),
            (
                "ca_bundle",
                self.ca_bundle.map(|CaBundleArg(bundle)| match bundle {
                    CaBundle::Path(path) => Value::Text(path.to_string_lossy().into_owned()),
                    CaBundle::Pem(pem) => Value::Bytes(pem),
                }),
            ),
            (
                "proxy",
                self.proxy.0.map(|proxy| match proxy {
                    Proxy::Url(url) => Value::Text(url.expose().to_string()),
                    Proxy::Off => Value::Null,
                }),
            ),
            ("max_connections", number(self.max_connections)),
            ("timezone", text(self.timezone)),
        ];
        let values = values
            .into_iter()
            .filter_map(|(name, value)| Some((name, value?)));
        let options = Options::from_values(Language::Python, values).map_err(|e| to_pyerr(py, e))?;
        let builder = ClientBuilder::from_env().options(options);
        Ok(match self.token {
            Some(token) => builder.token(token),
            None => builder,
        })
    }
}

/// Builds the core client from `builder`, with `on_token` (if set) as its token callback.
pub fn build(
    py: Python<'_>,
    builder: ClientBuilder,
    on_token: &Arc<TokenCallback>,
) -> PyResult<monapi::Client> {
    let builder = if on_token.is_set() {
        let callback = on_token.clone();
        builder.on_token(move |token| callback.notify(token))
    } else {
        builder
    };
    builder.build().map_err(|e| to_pyerr(py, e))
}

/// The builder of a client equal to one built from `settings` (in a forked child, after
/// unpickling), resuming with `token`.
pub fn rebuild(settings: &Settings, token: Option<Token>) -> ClientBuilder {
    let builder = ClientBuilder::from(settings.clone());
    match token {
        Some(token) => builder.token(token),
        None => builder,
    }
}
