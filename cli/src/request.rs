//! `monapi request`: any operation of the service, by method and path, with the client's
//! token management, retries of reads and error mapping.

use clap::Args;
use monapi::{Method, Request};
use serde_json::Value;

use crate::Connection;

/// Arguments of `monapi request`.
#[derive(Args)]
pub struct RequestArgs {
    /// GET or POST.
    method: String,
    /// Path under the base URL, e.g. /v2/site/lists.json (the client adds access_token).
    path: String,
    /// A query parameter, key=value (repeat for more).
    #[arg(short = 'q', long = "query", value_name = "KEY=VALUE", value_parser = key_value)]
    query: Vec<(String, String)>,
    /// A form field of a POST, key=value (repeat for more).
    #[arg(short = 'f', long = "form", value_name = "KEY=VALUE", value_parser = key_value)]
    form: Vec<(String, String)>,
    #[command(flatten)]
    connection: Connection,
}

/// `key=value` (the value may hold `=` and may be empty).
fn key_value(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .ok_or_else(|| format!("expected KEY=VALUE, got {text:?}"))
}

/// Sends the request and returns the answer as sent.
pub async fn run(args: RequestArgs) -> monapi::Result<Value> {
    let request = Request::Raw {
        method: Method::parse(&args.method)?,
        path: args.path,
        query: args.query,
        form: args.form,
    };
    args.connection.client()?.execute(&request).await?.json()
}
