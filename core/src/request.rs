//! [`Request`]: one operation of the service, checked and turned into what goes on the wire.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::input;
use crate::model::{DateRange, Monitor, NewServiceTask, ServerTask};
use crate::{Endpoint, Error, Result};

/// One operation of the service, for [`Client::execute`](crate::Client::execute) (the typed
/// methods build these).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// Create server monitoring tasks in one batch.
    CreateServerTasks(Vec<ServerTask>),
    /// One page (from 1) of the service task list.
    ServiceTasks {
        /// Page number, from 1.
        page: u32,
    },
    /// The agent list.
    Agents,
    /// The report of a service task.
    ServiceReport {
        /// Service task id (above 0).
        task_id: u64,
        /// Period.
        range: DateRange,
    },
    /// The report of a site task.
    SiteReport {
        /// Site task id (above 0).
        task_id: u64,
        /// Period.
        range: DateRange,
        /// Which monitoring points.
        monitor: Monitor,
    },
    /// The response-time distribution of a site task.
    ResponseTimeDistribution {
        /// Site task id (above 0).
        task_id: u64,
        /// Period.
        range: DateRange,
    },
    /// One page (from 1) of the site task list.
    SiteTasks {
        /// Page number, from 1.
        page: u32,
    },
    /// The settings of one site task.
    SiteTask {
        /// Site task id (above 0).
        task_id: u64,
    },
    /// The monitoring points of the account.
    Monitors,
    /// Every user of the account.
    Users,
    /// The user groups of the account.
    UserGroups,
    /// Create service monitoring tasks in one batch.
    CreateServiceTasks(Vec<NewServiceTask>),
    /// Any operation of the service by its method and path, for those without a typed method
    /// (the site task list, monitoring points, users, user groups...). The client adds the
    /// access token and manages it as for every other call; a GET is retried as reads are,
    /// a POST never once it may have reached the service. The answer is handed back as sent.
    ///
    /// ```
    /// use monapi::{Method, Request};
    /// let request = Request::raw(Method::Get, "/v2/site/lists.json")
    ///     .query("page", "2");
    /// assert_eq!(request.endpoint().as_str(), "GET /v2/site/lists.json");
    /// ```
    Raw {
        /// GET or POST.
        method: Method,
        /// The path under the base URL, starting with `/` (e.g. `/v2/site/lists.json`),
        /// without a query: no scheme or host, no `?` or `#`, no spaces or control characters.
        path: String,
        /// Query parameters (never `access_token`: the client adds it).
        query: Vec<(String, String)>,
        /// Form fields of a POST (`application/x-www-form-urlencoded`; never `access_token`).
        form: Vec<(String, String)>,
    },
}

/// The HTTP method of a [`Request::Raw`]: the service takes GET and POST.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// A read: retried after a transient failure (see [`ClientBuilder::max_retries`](crate::ClientBuilder::max_retries)).
    Get,
    /// A write: never repeated once it may have reached the service.
    Post,
}

impl Method {
    /// `GET` or `POST`, in any case.
    ///
    /// ```
    /// assert_eq!(monapi::Method::parse("post").unwrap(), monapi::Method::Post);
    /// assert_eq!(monapi::Method::parse("PUT").unwrap_err().field(), Some("method"));
    /// ```
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`](crate::Error::InvalidInput) naming `method` for any other
    /// text (the service takes no other method).
    pub fn parse(text: &str) -> Result<Method> {
        match text.to_ascii_uppercase().as_str() {
            "GET" => Ok(Method::Get),
            "POST" => Ok(Method::Post),
            _ => Err(Error::invalid_input(
                None,
                "method",
                "must be GET or POST (the methods the service takes)",
            )),
        }
    }

    /// `GET` or `POST`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Request {
    /// A [`Request::Raw`] without parameters; add them with [`query`](Request::query) and
    /// [`form`](Request::form).
    pub fn raw(method: Method, path: impl Into<String>) -> Request {
        Request::Raw {
            method,
            path: path.into(),
            query: Vec::new(),
            form: Vec::new(),
        }
    }

    /// Adds a query parameter to a [`Request::Raw`] (other requests are left as they are).
    pub fn query(mut self, key: impl Into<String>, value: impl Into<String>) -> Request {
        if let Request::Raw { query, .. } = &mut self {
            query.push((key.into(), value.into()));
        }
        self
    }

    /// Adds a form field to a [`Request::Raw`] (other requests are left as they are).
    pub fn form(mut self, key: impl Into<String>, value: impl Into<String>) -> Request {
        if let Request::Raw { form, .. } = &mut self {
            form.push((key.into(), value.into()));
        }
        self
    }

    /// The operation's endpoint.
    pub fn endpoint(&self) -> Endpoint {
        match self {
            Request::CreateServerTasks(_) => Endpoint::CreateServerTasks,
            Request::ServiceTasks { .. } => Endpoint::ServiceTasks,
            Request::Agents => Endpoint::Agents,
            Request::ServiceReport { .. } => Endpoint::ServiceReport,
            Request::SiteReport { .. } => Endpoint::SiteReport,
            Request::ResponseTimeDistribution { .. } => Endpoint::ResponseTimeDistribution,
            Request::SiteTasks { .. } => Endpoint::SiteTasks,
            Request::SiteTask { .. } => Endpoint::SiteTask,
            Request::Monitors => Endpoint::Monitors,
            Request::Users => Endpoint::Users,
            Request::UserGroups => Endpoint::UserGroups,
            Request::CreateServiceTasks(_) => Endpoint::CreateServiceTasks,
            Request::Raw { method, path, .. } => Endpoint::Raw(Arc::from(format!("{method} {path}"))),
        }
    }

    /// The task the operation is about, for those about one.
    pub(crate) fn task_id(&self) -> Option<u64> {
        match self {
            Request::ServiceReport { task_id, .. }
            | Request::SiteReport { task_id, .. }
            | Request::ResponseTimeDistribution { task_id, .. }
            | Request::SiteTask { task_id } => Some(*task_id),
            _ => None,
        }
    }

    /// The secrets the request carries besides the credentials (a server task's SNMP pass
    /// phrase, a service task's password), to keep out of every text the client shows.
    pub(crate) fn secrets(&self) -> Vec<&crate::Secret> {
        match self {
            Request::CreateServerTasks(tasks) => tasks.iter().map(|task| &task.snmp_pass).collect(),
            Request::CreateServiceTasks(tasks) => NewServiceTask::secrets(tasks).collect(),
            _ => Vec::new(),
        }
    }

    /// Checks the input and builds what goes on the wire; nothing is sent on error.
    pub(crate) fn prepare(&self) -> Result<Prepared> {
        let mut query: Vec<(&'static str, String)> = Vec::new();
        let mut raw_query = Vec::new();
        let mut form = None;
        let mut batch_len = 0;
        let mut method = Method::Get;
        let path = match self {
            Request::CreateServerTasks(tasks) => {
                ServerTask::validate_batch(tasks)?;
                let data = serde_json::to_string(tasks).expect("server tasks always serialize");
                form = Some(serde_urlencoded::to_string([("data", data)]).expect("strings always encode"));
                batch_len = tasks.len();
                method = Method::Post;
                "/v2/server/create.json".to_string()
            }
            Request::ServiceTasks { page } => {
                input::check_page(*page)?;
                query.push(("page", page.to_string()));
                "/v2/service/lists.json".to_string()
            }
            Request::Agents => "/v2/agent/lists.json".to_string(),
            Request::ServiceReport { task_id, range } => {
                input::check_task_id(*task_id)?;
                range.validate()?;
                range.push_query(&mut query);
                format!("/v2/service/report/{task_id}.json")
            }
            Request::SiteReport {
                task_id,
                range,
                monitor,
            } => {
                input::check_task_id(*task_id)?;
                range.validate()?;
                range.push_query(&mut query);
                monitor.push_query(&mut query);
                format!("/v2/site/report/{task_id}.json")
            }
            Request::ResponseTimeDistribution { task_id, range } => {
                input::check_task_id(*task_id)?;
                range.validate()?;
                range.push_query(&mut query);
                format!("/v2/site/respose_time_distribute/{task_id}.json")
            }
            Request::SiteTasks { page } => {
                input::check_page(*page)?;
                query.push(("page", page.to_string()));
                "/v2/site/lists.json".to_string()
            }
            Request::SiteTask { task_id } => {
                input::check_task_id(*task_id)?;
                format!("/v2/site/info/{task_id}.json")
            }
            Request::Monitors => "/v2/site/monitors.json".to_string(),
            Request::Users => "/v2/user/lists.json".to_string(),
            Request::UserGroups => "/v2/user/organization.json".to_string(),
            Request::CreateServiceTasks(tasks) => {
                NewServiceTask::validate_batch(tasks)?;
                // As the server create's documentation shows its batch: the form field `data`
                // holding a JSON array. The service create's documentation names a JSON body
                // but builds the same array in its example; the form is what the service is
                // known to read for a batch (and the emulator takes both).
                let data = NewServiceTask::batch_json(tasks);
                form = Some(serde_urlencoded::to_string([("data", data)]).expect("strings always encode"));
                batch_len = tasks.len();
                method = Method::Post;
                "/v2/service/create.json".to_string()
            }
            Request::Raw {
                method: raw_method,
                path,
                query: given_query,
                form: given_form,
            } => {
                check_raw(*raw_method, path, given_query, given_form)?;
                raw_query = given_query.clone();
                if *raw_method == Method::Post {
                    form = Some(serde_urlencoded::to_string(given_form).expect("strings always encode"));
                }
                method = *raw_method;
                path.clone()
            }
        };
        let query = query
            .into_iter()
            .map(|(key, value)| (Cow::Borrowed(key), value))
            .chain(raw_query.into_iter().map(|(key, value)| (Cow::Owned(key), value)))
            .collect();
        Ok(Prepared {
            endpoint: self.endpoint(),
            method,
            path,
            query,
            form,
            batch_len,
            retry: Retry::of(&self.endpoint()),
            timeout: None,
        })
    }
}

/// The rules of a [`Request::Raw`].
fn check_raw(
    method: Method,
    path: &str,
    query: &[(String, String)],
    form: &[(String, String)],
) -> Result<()> {
    let fail = |field: &str, rule: &str| Err(Error::invalid_input(None, field, rule));
    if !path.starts_with('/') || path.starts_with("//") {
        return fail(
            "path",
            "must be a path on the service starting with one / (e.g. /v2/site/lists.json), without a scheme or host",
        );
    }
    if path.contains(['?', '#']) {
        return fail(
            "path",
            "must not hold a query or fragment (give query parameters separately)",
        );
    }
    if path.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return fail("path", "must not contain spaces or control characters");
    }
    for (field, pairs) in [("query", query), ("form", form)] {
        if pairs.iter().any(|(key, _)| key == "access_token") {
            return fail(field, "must not hold access_token: the client adds it");
        }
    }
    if method == Method::Get && !form.is_empty() {
        return fail("form", "is sent only with POST");
    }
    Ok(())
}

/// A request ready to send: everything but the access token.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub endpoint: Endpoint,
    pub method: Method,
    pub path: String,
    pub query: Vec<(std::borrow::Cow<'static, str>, String)>,
    /// `application/x-www-form-urlencoded` body, for POSTs.
    pub form: Option<String>,
    /// Lines in a create batch (to report a partial failure).
    pub batch_len: usize,
    /// The overall timeout of each exchange of this call, when it is not the client's
    /// ([`Client::with_timeout`](crate::Client::with_timeout)).
    pub timeout: Option<Duration>,
    /// After which failures the request may be sent again.
    pub retry: Retry,
}

/// After which failures a request may be sent again (always only while retries remain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Reads, and the password grant (a second login only issues another token pair): after
    /// every transient failure (see [`Failure::transient`]).
    Transient,
    /// The refresh grant: the service may retire the refresh token as soon as it handles the
    /// request, so only when it cannot have handled it (never sent, or answered 429 or 503,
    /// which say it did not) is the same refresh token sent again.
    Refused,
    /// Writes (a create, a raw POST): only when the request never left this machine.
    Unsent,
}

impl Retry {
    /// The rule of an operation: reads are repeated, writes only when never sent.
    pub fn of(endpoint: &Endpoint) -> Retry {
        if endpoint.is_idempotent() {
            Retry::Transient
        } else {
            Retry::Unsent
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(request: Request) -> (String, String) {
        let err = request.prepare().unwrap_err();
        (err.field().unwrap().to_string(), err.rule().unwrap().to_string())
    }

    #[test]
    fn raw_paths() {
        assert!(Request::raw(Method::Get, "/v2/site/lists.json").prepare().is_ok());
        for bad in [
            "v2/x.json",
            "//evil.example/x",
            "http://h/x",
            "",
            "/x?page=1",
            "/x#a",
            "/x y",
            "/x\0",
        ] {
            assert_eq!(refused(Request::raw(Method::Get, bad)).0, "path", "{bad:?}");
        }
        let token = Request::raw(Method::Get, "/x").query("access_token", "t");
        assert_eq!(refused(token).0, "query");
        let token = Request::raw(Method::Post, "/x").form("access_token", "t");
        assert_eq!(refused(token).0, "form");
        assert_eq!(refused(Request::raw(Method::Get, "/x").form("a", "b")).0, "form");
    }

    #[test]
    fn raw_wire_form() {
        let prepared = Request::raw(Method::Post, "/v2/x.json")
            .query("page", "2")
            .form("name", "a b")
            .prepare()
            .unwrap();
        assert_eq!(prepared.method, Method::Post);
        assert_eq!(prepared.form.as_deref(), Some("name=a+b"));
        assert_eq!(prepared.query[0].0, "page");
        assert!(!prepared.endpoint.is_idempotent());
        assert!(Request::raw(Method::Get, "/x").endpoint().is_idempotent());
    }

    #[test]
    fn ids_and_pages() {
        let range = DateRange::today();
        assert_eq!(refused(Request::ServiceReport { task_id: 0, range }).0, "task_id");
        assert_eq!(refused(Request::ServiceTasks { page: 0 }).0, "page");
    }
}
