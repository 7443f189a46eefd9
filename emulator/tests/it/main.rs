//! Integration tests over real HTTP (plain reqwest, loopback, port 0).

mod accounts;
mod auth;
mod clock;
mod common;
mod compression;
mod create;
mod endpoints;
mod faults;
mod link;
mod openapi;
mod outages;
mod quirks;
mod removal;
mod settings;
mod state;
mod timezone;
mod world;
