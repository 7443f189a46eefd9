//! # monapi
//!
//! A client for the monitoring service's HTTP API: OAuth tokens that look after themselves,
//! batch creation of server monitoring tasks (validated before sending), the service task and
//! agent lists, and monitoring data (service reports, site reports, response-time
//! distributions).
//!
//! Start with [`Client::builder`]. Every operation has a typed method returning the models in
//! [`model`]; [`Client::execute`] returns the body exactly as the service sent it, for callers
//! that want the faithful form (`RawResponse::json::<serde_json::Value>()`).
//!
//! With the cargo feature `arrow`, `monapi::table` and `Client::tables()` give every report as a
//! typed Arrow table (record batches with fixed schemas, times in the client's
//! [`timezone`](ClientBuilder::timezone)), one task or many at once.
//!
//! Errors are one type, [`Error`], with a stable [`ErrorKind`]. No error, `Debug` output or log
//! line holds a token, the password, its MD5 or the client secret.
//!
//! Logging goes through [`tracing`](https://docs.rs/tracing) under the target `monapi`, at
//! `debug` level: requests (path template, status, size, time), retries and token renewals.

#![warn(missing_docs)]

mod auth;
mod client;
mod error;
pub mod model;
mod secret;
#[cfg(feature = "arrow")]
pub mod table;
mod timezone;
mod transport;

pub use auth::{md5_hex, TokenCallback};
pub use client::{
    Client, ClientBuilder, Request, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_REFRESH_LEEWAY,
    DEFAULT_TIMEOUT, ENV_VARS, PAGE_SIZE,
};
pub use error::{Endpoint, Error, ErrorKind, PartialCreate, Result};
pub use model::*;
pub use secret::Secret;
pub use timezone::{parse_timezone, SERVICE_TIMEZONE};
pub use transport::RawResponse;
