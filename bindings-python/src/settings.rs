//! The constructor's keyword arguments, handed to the core's builder as given: the core reads
//! the `MONAPI_*` environment variables for what is left out, applies the defaults and checks
//! every bound (`monapi::ClientBuilder::build`).

use std::sync::Arc;

use monapi::input::{self, Unit};
use monapi::{ClientBuilder, Language, Options, Secret, Settings, Token};
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
        let check = |e| to_pyerr(py, e);
        let seconds = |field: &str, value: Option<Number>| {
            value
                .map(|Number(s)| input::timeout(field, s, Unit::Seconds))
                .transpose()
                .map_err(check)
        };
        let options = Options {
            base_url: self.base_url,
            client_id: self.client_id,
            client_secret: self.client_secret.map(Secret::from),
            username: self.username,
            password: self.password.map(Secret::from),
            password_md5: self.password_md5.map(Secret::from),
            timeout: seconds("timeout", self.timeout)?,
            connect_timeout: seconds("connect_timeout", self.connect_timeout)?,
            max_retries: self
                .max_retries
                .map(|Number(n)| input::max_retries(n))
                .transpose()
                .map_err(check)?,
            user_agent: Some(
                self.user_agent
                    .unwrap_or_else(|| format!("monapi-python/{}", env!("CARGO_PKG_VERSION"))),
            ),
            refresh_leeway: None,
            ca_bundle: self.ca_bundle.map(|CaBundleArg(bundle)| bundle),
            proxy: self.proxy.0,
            max_connections: self
                .max_connections
                .map(|Number(n)| input::max_connections(n))
                .transpose()
                .map_err(check)?,
            language: Some(Language::Python),
            timezone: self
                .timezone
                .as_deref()
                .map(input::timezone)
                .transpose()
                .map_err(check)?,
        };
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
