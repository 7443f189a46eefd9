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
//! Errors are one type, [`Error`], with a stable [`ErrorKind`] and code ([`Error::code`]), and
//! accessors for what a caller branches on. Bad input is refused before anything is sent,
//! naming every problem (field and rule); the rules and bounds of the arguments are in
//! [`input`]. No error, `Debug` output or log line holds a token, the password, its MD5 or
//! the client secret.
//!
//! With the cargo feature `arrow`, `monapi::table` and `Client::tables()` give every report as a
//! typed Arrow table (record batches with fixed schemas, times in the client's
//! [`timezone`](ClientBuilder::timezone)), one task or many at once.
//!
//! The service's empty answers get one shape: an object keyed by ids that PHP wrote as `[]`
//! arrives as `{}`, and an empty page of the service task list as `[]` (see
//! [`Client::service_task_pages`]).
//!
//! Logging goes through [`tracing`](https://docs.rs/tracing) under the target `monapi`, at
//! `debug` level: requests (path template, status, size, time), retries and token renewals.

#![deny(missing_docs)]
// Every public function that can fail says how, and one that can panic says when.
#![deny(clippy::missing_errors_doc, clippy::missing_panics_doc)]

mod arriving;
mod auth;
mod builder;
mod client;
mod environment;
mod error;
mod exit;
#[cfg(feature = "arrow")]
pub mod health;
pub mod input;
mod location;
mod logging;
pub mod model;
mod network;
mod pages;
mod request;
mod secret;
pub mod settings;
mod shape;
#[cfg(feature = "arrow")]
pub mod store;
#[cfg(feature = "arrow")]
pub mod table;
pub mod telemetry;
mod transport;

pub use arriving::{Decoder, Members, Piece};
pub use auth::{md5_hex, TokenCallback};
pub use builder::ClientBuilder;
pub use client::Client;
pub use error::{Endpoint, Error, ErrorCode, ErrorKind, PartialCreate, Problem, Result, ERRORS, ERROR_CODES};
pub use exit::Exit;
pub use location::StoreLocation;
pub use logging::{event_text, LogLevel, LOG_VAR};
pub use model::*;
pub use network::{CaBundle, Language, Proxy};
pub use pages::{TaskList, TaskPage, TaskPages, PAGE_SIZE};
pub use request::{Method, Request};
pub use secret::Secret;
pub use settings::{
    Options, Settings, Value, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_RETRIES,
    DEFAULT_REFRESH_LEEWAY, DEFAULT_TIMEOUT, SERVICE_TIMEZONE,
};
pub use transport::RawResponse;
