//! Typed forms of the service's payloads, decoded tolerantly: numbers may arrive as JSON numbers
//! or as strings holding one, and `[]` stands for an empty object (as PHP encodes it).

mod account;
mod agent;
pub(crate) mod de;
#[doc(hidden)]
pub mod fuzz;
mod server_task;
mod service;
mod service_task;
mod site;
mod token;

// Every public item of the modules, so that a model added to its domain's file needs no line
// here.
pub use account::*;
pub use agent::*;
pub use server_task::*;
pub use service::*;
pub use service_task::*;
pub use site::*;
pub use token::*;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// One created task of a create batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreatedTask {
    /// Id of the new task.
    #[serde(deserialize_with = "de::number")]
    pub task_id: u64,
    /// Fields the service's documentation does not list, kept as sent.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The agent list: agent id to agent, in the service's order.
pub type Agents = indexmap::IndexMap<String, Agent>;

/// The period of a report (`start_date`, `end_date`, whole days). An omitted date is left out
/// of the query, and the service then uses the current day.
///
/// ```
/// use monapi::DateRange;
/// let range = DateRange::parse(Some("2026-11-01"), Some("2026-11-07")).unwrap();
/// assert_eq!(range.start.unwrap().to_string(), "2026-11-01");
/// assert!(DateRange::parse(Some("2026-11-31"), None).is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DateRange {
    /// First day; `None` leaves `start_date` out.
    pub start: Option<NaiveDate>,
    /// Last day; `None` leaves `end_date` out.
    pub end: Option<NaiveDate>,
}

/// The date format the service takes (`Y-m-d`).
pub const DATE_FORMAT: &str = "%Y-%m-%d";

impl DateRange {
    /// The current day (both dates left out).
    pub fn today() -> Self {
        DateRange::default()
    }

    /// From `start` to `end`, both included.
    pub fn new(start: NaiveDate, end: NaiveDate) -> Self {
        DateRange {
            start: Some(start),
            end: Some(end),
        }
    }

    /// One day.
    pub fn on(day: NaiveDate) -> Self {
        DateRange::new(day, day)
    }

    /// From `YYYY-MM-DD` texts (a date left out stays out).
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`] naming `start_date` or `end_date` when it is not a real date
    /// written `YYYY-MM-DD`, or as [`validate`](DateRange::validate) when the start is after the
    /// end.
    pub fn parse(start: Option<&str>, end: Option<&str>) -> Result<Self> {
        let range = DateRange {
            start: start.map(|s| parse_date("start_date", s)).transpose()?,
            end: end.map(|s| parse_date("end_date", s)).transpose()?,
        };
        range.validate()?;
        Ok(range)
    }

    /// Checks that the start is not after the end.
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`] naming `start_date` when both dates are given and the start is
    /// after the end.
    pub fn validate(&self) -> Result<()> {
        match (self.start, self.end) {
            (Some(start), Some(end)) if start > end => Err(Error::invalid_input(
                None,
                "start_date",
                format!("must not be after the end date ({start} is after {end})"),
            )),
            _ => Ok(()),
        }
    }

    pub(crate) fn push_query(&self, query: &mut Vec<(&'static str, String)>) {
        if let Some(start) = self.start {
            query.push(("start_date", start.format(DATE_FORMAT).to_string()));
        }
        if let Some(end) = self.end {
            query.push(("end_date", end.format(DATE_FORMAT).to_string()));
        }
    }
}

fn parse_date(field: &str, text: &str) -> Result<NaiveDate> {
    let valid_shape = text.len() == 10 && text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-';
    valid_shape
        .then(|| NaiveDate::parse_from_str(text, DATE_FORMAT).ok())
        .flatten()
        .ok_or_else(|| {
            Error::invalid_input(
                None,
                field,
                format!("must be a real date written YYYY-MM-DD, not {text:?}"),
            )
        })
}

/// Which monitoring points a site report covers (`monitor`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Monitor {
    /// Every monitoring point and the average (`monitor` left out).
    #[default]
    All,
    /// Only the average (`monitor=0`).
    Average,
    /// One monitoring point, by id.
    Point(u64),
}

impl Monitor {
    pub(crate) fn push_query(&self, query: &mut Vec<(&'static str, String)>) {
        match self {
            Monitor::All => {}
            Monitor::Average => query.push(("monitor", "0".into())),
            Monitor::Point(id) => query.push(("monitor", id.to_string())),
        }
    }
}
