//! HTTP: building requests, `access_token` injection, retries, and turning answers into
//! data or [`Error`]s with nothing secret in them.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use backon::{ExponentialBuilder, Retryable};
use bytes::{Bytes, BytesMut};
use reqwest::header::{HeaderMap, CONTENT_TYPE, RETRY_AFTER};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::arriving::Decoder;
use crate::error::{snippet, PartialCreate};
use crate::network::{self, Language, Proxy};
use crate::request::{Prepared, Retry};
use crate::secret::{Redactor, REDACTED};
use crate::settings;
use crate::shape;
use crate::telemetry;
use crate::{Endpoint, Error, Method, Result, Secret};

/// Bodies larger than this are never error bodies (which are a line of JSON), so they are not
/// probed for `code`/`msg`: a report is handed on untouched.
const ERROR_PROBE_LIMIT: usize = 4 * 1024;
/// An error body names at least one of these keys; a body without them is not parsed twice.
const ERROR_KEYS: [&[u8]; 3] = [b"\"code\"", b"\"error\"", b"\"err_key\""];
/// The longest wait a `Retry-After` can impose before we give up waiting and retry anyway.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Idle keep-alive connections kept to the service. More are opened while more calls run at
/// once, and closed when done: an idle connection keeps its read buffer, which has grown to fit
/// the largest answer it carried (up to about 400 KiB), so a client that once ran 1,000 calls
/// at once would otherwise hold hundreds of megabytes until the idle timeout; with this bound
/// its memory stays flat from one burst to the next (measured by the soak in `bench/`).
const MAX_IDLE_CONNECTIONS: usize = 32;
/// PHP's marker of a script that died (`Fatal error: ...`, as text or inside HTML tags).
const PHP_FATAL_ERROR: &[u8] = b"Fatal error";
/// An answer, and what its decoder made of it when it was given one.
pub(crate) type Decoded<T> = (RawResponse, Option<serde_json::Result<T>>);

/// The answer of a successful call: the body bytes exactly as the service sent them.
///
/// Decode it with [`json`](RawResponse::json) (into `serde_json::Value` for the faithful form,
/// or into a typed model), or hand the bytes to another parser (the Python and Node packages
/// do).
#[derive(Clone)]
pub struct RawResponse {
    endpoint: Endpoint,
    status: u16,
    body: Bytes,
    redactor: Arc<Redactor>,
}

impl std::fmt::Debug for RawResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawResponse")
            .field("endpoint", &self.endpoint)
            .field("status", &self.status)
            .field("body_len", &self.body.len())
            .finish()
    }
}

impl RawResponse {
    /// Which operation answered.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// HTTP status (2xx).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The body as sent; an empty object keyed by ids that the service wrote as `[]` is `{}`,
    /// and an empty page of the service task list `[]` (see the crate's documentation).
    pub fn body(&self) -> &Bytes {
        &self.body
    }

    /// Decodes the body into `T`.
    ///
    /// # Errors
    ///
    /// An [`Error::Decode`] when the body is not JSON, is not what `T` reads, or holds more
    /// after its value: its message says where (the JSON path), its snippet shows how the body
    /// starts (secrets removed).
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        let mut de = serde_json::Deserializer::from_slice(&self.body);
        let value = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| self.decode_error(format!("at `{}`: {}", e.path(), e.inner())))?;
        de.end().map_err(|e| self.decode_error(e))?;
        Ok(value)
    }

    /// The same answer with another body (a page's records as a list).
    pub(crate) fn with_body(&self, body: Bytes) -> RawResponse {
        RawResponse {
            endpoint: self.endpoint.clone(),
            status: self.status,
            body,
            redactor: self.redactor.clone(),
        }
    }

    /// An [`Error::Decode`] about this body, with a short snippet of it (secrets removed):
    /// for parsers other than [`json`](RawResponse::json).
    pub fn decode_error(&self, message: impl std::fmt::Display) -> Error {
        Error::Decode {
            endpoint: self.endpoint.clone(),
            message: self.redactor.redact(&message.to_string()),
            snippet: self.redactor.redact(&snippet(&self.body)),
        }
    }
}

/// A failed attempt, and whether trying again is safe.
struct Failure {
    error: Error,
    /// The request never left this machine (connection refused, DNS, connect timeout), so
    /// even a non-idempotent call can be repeated.
    unsent: bool,
    /// Why a repeat may well succeed (for the logs), when the failure is transient: no
    /// connection, a connection that broke before the whole answer arrived, HTTP 429, 500,
    /// 502, 503 or 504, or a 2xx answer that is a server's error page instead of JSON.
    transient: Option<&'static str>,
}

impl Failure {
    fn retryable(&self, retry: Retry) -> bool {
        match retry {
            Retry::Transient => self.transient.is_some(),
            Retry::Refused => {
                self.unsent
                    || matches!(
                        self.error,
                        Error::Api {
                            status: 429 | 503,
                            ..
                        }
                    )
            }
            Retry::Unsent => self.unsent,
        }
    }

    /// An answer that is an error (or not the JSON asked for); `error_page` says the body
    /// of a 2xx answer looks like a server's error page.
    fn answered(error: Error, error_page: bool) -> Failure {
        let transient = match &error {
            Error::Api { status: 429, .. } => Some("HTTP 429 (too many requests)"),
            Error::Api { status: 500, .. } => Some("HTTP 500 (internal server error)"),
            Error::Api { status: 502, .. } => Some("HTTP 502 (bad gateway)"),
            Error::Api { status: 503, .. } => Some("HTTP 503 (service unavailable)"),
            Error::Api { status: 504, .. } => Some("HTTP 504 (gateway timeout)"),
            Error::Decode { .. } if error_page => Some("an error page instead of JSON"),
            _ => None,
        };
        Failure {
            error,
            unsent: false,
            transient,
        }
    }
}

/// Whether a 2xx body that is not JSON looks like a server's error page, decided narrowly
/// from what PHP applications and the proxies in front of them send when a script dies:
/// nothing at all (a script that died with its errors hidden), HTML (its first non-blank
/// character is `<`: PHP's `<br />\n<b>Fatal error</b>: ...`, a proxy's error page), or
/// PHP's text-mode `Fatal error` marker. Any other text (e.g. `OK`, a number) is not one.
/// Bodies that start as JSON (`{`, `[`) are never error pages: they are data or error
/// objects, classified by their content.
fn looks_like_error_page(body: &[u8]) -> bool {
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        None | Some(b'<') => true,
        Some(b'{' | b'[') => false,
        Some(_) => body
            .windows(PHP_FATAL_ERROR.len())
            .any(|window| window == PHP_FATAL_ERROR),
    }
}

/// The HTTP side of a client.
pub(crate) struct Transport {
    http: reqwest::Client,
    base_url: String,
    max_retries: usize,
    timeout: Duration,
    connect_timeout: Duration,
    /// One permit per connection the client may use at once: held by each attempt, so that
    /// (HTTP/1.1 carrying one exchange at a time) no more connections are in use than permits.
    connections: Arc<tokio::sync::Semaphore>,
    /// The largest answer read, in bytes once decompressed.
    max_response_bytes: usize,
    /// The service's host, for errors about its certificate.
    host: String,
    /// Where connections go, for the error of one that could not be made.
    connection_target: String,
    /// The service's port, for the spans.
    port: u16,
    /// Whether requests carry the caller's `traceparent`.
    propagate_trace_context: bool,
    language: Language,
    pub redactor: Arc<Redactor>,
}

pub(crate) struct TransportConfig {
    pub base_url: String,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub max_retries: usize,
    pub user_agent: String,
    pub extra_ca_pem: Vec<u8>,
    pub proxy: Option<Proxy>,
    pub max_connections: usize,
    pub max_response_bytes: usize,
    pub propagate_trace_context: bool,
    pub language: Language,
}

impl Transport {
    pub fn new(config: TransportConfig, redactor: Arc<Redactor>) -> Result<Transport> {
        let builder = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .user_agent(config.user_agent)
            .pool_idle_timeout(Duration::from_secs(60))
            // Idle connections kept for reuse: the smaller of the cap on connections in use and
            // the bound that keeps idle read buffers from adding up.
            .pool_max_idle_per_host(config.max_connections.min(MAX_IDLE_CONNECTIONS))
            .tcp_nodelay(true);
        let connection_target =
            network::connection_target(&config.base_url, config.proxy.as_ref(), &|name: &str| {
                std::env::var(name).ok()
            });
        let http = network::configure(builder, &config.extra_ca_pem, config.proxy.as_ref())?
            .build()
            .map_err(|e| {
                Error::invalid_input(
                    None,
                    "client",
                    format!("cannot build the HTTP client: {}", error_chain(&e)),
                )
            })?;
        let url = reqwest::Url::parse(&config.base_url).ok();
        let host = url
            .as_ref()
            .and_then(|url| url.host_str().map(str::to_string))
            .unwrap_or_default();
        let port = url.and_then(|url| url.port_or_known_default()).unwrap_or(0);
        Ok(Transport {
            http,
            base_url: config.base_url.trim_end_matches('/').to_string(),
            max_retries: config.max_retries,
            timeout: config.timeout,
            connect_timeout: config.connect_timeout,
            connections: Arc::new(tokio::sync::Semaphore::new(config.max_connections)),
            max_response_bytes: config.max_response_bytes,
            host,
            connection_target,
            port,
            propagate_trace_context: config.propagate_trace_context,
            language: config.language,
            redactor,
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sends `request` with retries (see [`Retry`] and [`Failure::transient`]) and
    /// classifies the answer.
    pub async fn send(&self, request: &Prepared, token: Option<&Secret>) -> Result<RawResponse> {
        let (raw, _) = self.send_decoded::<()>(request, token, None).await?;
        Ok(raw)
    }

    /// [`send`](Self::send), with `decoder` reading the body as it arrives.
    pub async fn send_decoded<T: Send + 'static>(
        &self,
        request: &Prepared,
        token: Option<&Secret>,
        decoder: Option<&Decoder<T>>,
    ) -> Result<Decoded<T>> {
        let policy = ExponentialBuilder::default()
            .with_jitter()
            .with_min_delay(Duration::from_millis(100))
            .with_max_delay(Duration::from_secs(5))
            .with_max_times(self.max_retries);
        let endpoint = &request.endpoint;
        let mut retries = 0;
        let attempts = AtomicU32::new(0);
        (|| self.attempt(request, token, decoder, attempts.fetch_add(1, Ordering::Relaxed)))
            .retry(policy)
            .sleep(tokio::time::sleep)
            .when(|failure: &Failure| failure.retryable(request.retry))
            .adjust(|failure, delay| {
                // A Retry-After from the service beats our own backoff (but only while
                // retries remain: `delay` is None when they are used up).
                let retry_after = match &failure.error {
                    Error::Api { retry_after, .. } => *retry_after,
                    _ => None,
                };
                delay.map(|d| retry_after.map_or(d, |r| r.min(MAX_RETRY_AFTER)))
            })
            .notify(|failure, delay| {
                retries += 1;
                telemetry::retry(endpoint.name(), telemetry::attempt_error_type(&failure.error));
                let cause = failure.transient.unwrap_or("not sent");
                tracing::debug!(
                    target: "monapi",
                    endpoint = %endpoint,
                    retry = retries,
                    of = self.max_retries,
                    cause,
                    ?delay,
                    error = %failure.error,
                    "retrying"
                );
            })
            .await
            .map_err(|failure| failure.error)
    }

    /// One attempt; as its CLIENT span when someone listens (`resend_count`: the attempts
    /// before it). The span's work is boxed, so that the futures of unseen calls stay as
    /// small as they were.
    async fn attempt<T: Send + 'static>(
        &self,
        request: &Prepared,
        token: Option<&Secret>,
        decoder: Option<&Decoder<T>>,
        resend_count: u32,
    ) -> Result<Decoded<T>, Failure> {
        if telemetry::quiet() && !telemetry::global_metrics() {
            return self.attempt_unseen(request, token, decoder, &mut None).await;
        }
        Box::pin(self.attempt_seen(request, token, decoder, resend_count)).await
    }

    async fn attempt_seen<T: Send + 'static>(
        &self,
        request: &Prepared,
        token: Option<&Secret>,
        decoder: Option<&Decoder<T>>,
        resend_count: u32,
    ) -> Result<Decoded<T>, Failure> {
        let method = request.method.as_str();
        let mut span = telemetry::Span::attempt(method);
        if span.listening() {
            span.set("server.address", self.host.clone());
            span.set("server.port", self.port);
            span.set("url.full", self.url_full(request, token.is_some()));
            if resend_count > 0 {
                span.set("http.request.resend_count", u64::from(resend_count));
            }
        }
        let mut status = None;
        let result = span
            .scope(self.attempt_unseen(request, token, decoder, &mut status), true)
            .await;
        let mut measured: telemetry::Attributes = vec![
            ("http.request.method", method.into()),
            ("server.address", self.host.clone().into()),
            ("server.port", self.port.into()),
        ];
        if let Some(status) = status {
            span.set("http.response.status_code", status);
            measured.push(("http.response.status_code", status.into()));
        }
        if let Err(failure) = &result {
            span.fail(&failure.error);
            measured.push(("error.type", telemetry::attempt_error_type(&failure.error).into()));
        }
        telemetry::request_duration(&span, measured);
        span.end();
        result
    }

    /// The attempt's URL as a span shows it: every secret the client knows redacted, and the
    /// access token `REDACTED` (added after the redactor, which spells it otherwise).
    fn url_full(&self, request: &Prepared, with_token: bool) -> String {
        let mut url = format!("{}{}", self.base_url, request.path);
        if !request.query.is_empty() {
            url.push('?');
            url.push_str(&serde_urlencoded::to_string(&request.query).unwrap_or_default());
        }
        let mut url = self.redactor.redact(&url);
        if with_token {
            url.push(if request.query.is_empty() { '?' } else { '&' });
            // OpenTelemetry's conventions spell it so.
            url.push_str("access_token=REDACTED");
        }
        url
    }

    /// The attempt itself; `status` is set when an answer arrives.
    async fn attempt_unseen<T: Send + 'static>(
        &self,
        request: &Prepared,
        token: Option<&Secret>,
        decoder: Option<&Decoder<T>>,
        status: &mut Option<u16>,
    ) -> Result<Decoded<T>, Failure> {
        let endpoint = &request.endpoint;
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
        };
        let mut builder = self
            .http
            .request(method, format!("{}{}", self.base_url, request.path))
            .query(&request.query);
        if let Some(token) = token {
            builder = builder.query(&[("access_token", token.expose())]);
        }
        if self.propagate_trace_context
            && let Some(traceparent) = telemetry::traceparent()
        {
            builder = builder.header("traceparent", traceparent);
        }
        if request.method == Method::Post {
            builder = builder
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(request.form.clone().unwrap_or_default());
        }
        let started = Instant::now();
        // This call's own timeout, or the client's; waiting for a free connection counts
        // toward it.
        let timeout = request.timeout.unwrap_or(self.timeout);
        let permit = tokio::time::timeout(timeout, self.connections.acquire())
            .await
            .map_err(|_| Failure {
                error: Error::Timeout {
                    endpoint: endpoint.clone(),
                    after: Some(timeout),
                },
                unsent: false,
                // The call's whole time went on the wait: not repeated.
                transient: None,
            })?
            .expect("the semaphore is never closed");
        let builder = builder.timeout(
            timeout
                .saturating_sub(started.elapsed())
                .max(Duration::from_millis(1)),
        );
        let response = builder
            .send()
            .await
            .map_err(|e| self.transport_failure(request, &e))?;
        let status = *status.insert(response.status().as_u16());
        let retry_after = retry_after(response.headers());
        let (body, decoded) = self.read_body(request, response, decoder).await?;
        drop(permit);
        let error_page = (200..300).contains(&status) && looks_like_error_page(&body);
        tracing::debug!(
            target: "monapi",
            endpoint = %endpoint,
            status,
            bytes = body.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "response"
        );
        let read = (body.as_ptr(), body.len());
        let raw = self
            .classify(request, status, retry_after, body)
            .map_err(|error| Failure::answered(error, error_page))?;
        let reshaped = (raw.body.as_ptr(), raw.body.len()) != read;
        let decoded = decoded.filter(|decoded| decoder.is_some_and(|d| d.stands(decoded, reshaped)));
        Ok((raw, decoded))
    }

    /// The whole body, decompressed (reqwest decodes whatever `Content-Encoding` the service
    /// chose among those it offered), read up to `max_response_bytes` and no further, and
    /// what `decoder` made of it as it arrived.
    async fn read_body<T: Send + 'static>(
        &self,
        request: &Prepared,
        mut response: reqwest::Response,
        decoder: Option<&Decoder<T>>,
    ) -> Result<(Bytes, Option<serde_json::Result<T>>), Failure> {
        let limit = self.max_response_bytes;
        let mut feed = decoder.and_then(Decoder::start);
        // The announced length is the compressed one, or none, when the answer is compressed:
        // only a first guess of the size.
        let announced = response.content_length().unwrap_or(0).min(limit as u64);
        let mut body = BytesMut::with_capacity(announced as usize);
        let read = async {
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.transport_failure(request, &e))?
            {
                if chunk.len() > limit - body.len() {
                    let name = settings::setting("max_response_bytes").name_in(self.language);
                    return Err(Failure {
                        error: Error::Decode {
                            endpoint: request.endpoint.clone(),
                            message: format!(
                                "the answer is larger than {name} ({limit} bytes once decompressed); \
                                 raise the client setting {name} to accept it"
                            ),
                            snippet: self.redactor.redact(&snippet(&body)),
                        },
                        unsent: false,
                        // The same answer would be as large again.
                        transient: None,
                    });
                }
                body.extend_from_slice(&chunk);
                if let Some(feed) = &mut feed {
                    feed.push(chunk).await;
                }
            }
            Ok::<(), Failure>(())
        };
        if let Err(failure) = read.await {
            // The attempt's decoder ends (it sees the body end) before the call may start
            // another attempt, whose decoder then hands over its pieces after all of this
            // one's: the caller tells the attempts apart by their order alone.
            if let Some(feed) = feed {
                feed.finish().await;
            }
            return Err(failure);
        }
        let decoded = match feed {
            Some(feed) => feed.finish().await,
            None => None,
        };
        Ok((body.freeze(), decoded))
    }

    /// Turns an answer into data or an error. The real service may send an error body with
    /// any status (and `text/html` as content type), so the body decides, then the status.
    fn classify(
        &self,
        request: &Prepared,
        status: u16,
        retry_after: Option<Duration>,
        body: Bytes,
    ) -> Result<RawResponse> {
        let endpoint = &request.endpoint;
        if let Some(probe) = probe_error_body(&body) {
            if let Some(err_key) = probe.err_key {
                let err_key = json_text(&err_key);
                return Err(Error::PartialCreate(PartialCreate {
                    endpoint: endpoint.clone(),
                    failed_indices: parse_indices(&err_key, request.batch_len),
                    err_key,
                    err_content: self
                        .redactor
                        .redact(&probe.err_content.as_ref().map(json_text).unwrap_or_default()),
                    submitted: request.batch_len,
                }));
            }
            if let Some(error) = probe.error {
                let description = self.redactor.redact(&probe.error_description.unwrap_or_default());
                if *endpoint == Endpoint::Token {
                    return Err(Error::Auth {
                        endpoint: endpoint.clone(),
                        error,
                        description,
                        status: Some(status),
                    });
                }
                return Err(Error::Api {
                    endpoint: endpoint.clone(),
                    status,
                    code: None,
                    error: Some(error),
                    message: description,
                    retry_after,
                });
            }
            if let (Some(code), Some(msg)) = (&probe.code, &probe.msg) {
                let code = match code {
                    serde_json::Value::Number(n) => n.as_i64(),
                    serde_json::Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                };
                if !matches!(code, Some(0 | 200)) {
                    return Err(Error::Api {
                        endpoint: endpoint.clone(),
                        status,
                        code,
                        error: None,
                        message: self.redactor.redact(&json_text(msg)),
                        retry_after,
                    });
                }
            }
        }
        if !(200..300).contains(&status) {
            let message = if *endpoint == Endpoint::Token {
                REDACTED.to_string()
            } else {
                self.redactor.redact(&snippet(&body))
            };
            return Err(Error::Api {
                endpoint: endpoint.clone(),
                status,
                code: None,
                error: None,
                message,
                retry_after,
            });
        }
        let mut response = RawResponse {
            endpoint: endpoint.clone(),
            status,
            body,
            redactor: self.redactor.clone(),
        };
        match response.body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => {}
            // `null` is PHP's empty task page or keyed map; `normalize` gives it its shape.
            Some(b'n') if response.body.trim_ascii() == b"null" && shape::takes_null(endpoint) => {}
            None => return Err(response.decode_error("the answer is empty")),
            _ if *endpoint == Endpoint::Token => {
                return Err(Error::Decode {
                    endpoint: endpoint.clone(),
                    message: "the answer is not JSON".into(),
                    snippet: REDACTED.into(),
                });
            }
            _ => return Err(response.decode_error("the answer is not JSON")),
        }
        match shape::normalize(endpoint, response.body.clone()) {
            Ok(body) => {
                response.body = body;
                Ok(response)
            }
            Err(message) => Err(response.decode_error(message)),
        }
    }

    fn transport_failure(&self, request: &Prepared, error: &reqwest::Error) -> Failure {
        let endpoint = &request.endpoint;
        if let Some(message) = network::untrusted_certificate(error, &self.host, self.language) {
            // Not a network failure: the same certificate would be refused again.
            return Failure {
                error: Error::Connection {
                    endpoint: endpoint.clone(),
                    message: self.redactor.redact(&message),
                },
                unsent: false,
                // Not transient: never retried, whatever the call's retry rule.
                transient: None,
            };
        }
        let unsent = error.is_connect();
        // A connection that closed mid-body (hyper's error) surfaces through the decompressor
        // as a decode error: it is still a body cut short.
        let broke = (error.is_body() && !error.is_decode())
            || std::iter::successors(Some(error as &dyn std::error::Error), |e| e.source())
                .any(|e| e.is::<hyper::Error>());
        if error.is_decode() && !broke && !error.is_timeout() {
            // The body arrived but does not decompress: corrupt, or its stream ends early.
            // Like a body cut short, a repeat may well arrive whole.
            return Failure {
                error: Error::Decode {
                    endpoint: endpoint.clone(),
                    message: self.redactor.redact(&format!(
                        "the compressed answer does not decompress ({})",
                        error_chain(error)
                    )),
                    snippet: String::new(),
                },
                unsent: false,
                transient: Some("the compressed body was corrupt or cut short"),
            };
        }
        let (error, transient) = if error.is_timeout() {
            // A connect timeout means the request never left; otherwise the overall one ran
            // out, and waiting as long again is not what the caller asked for.
            let after = if unsent {
                self.connect_timeout
            } else {
                request.timeout.unwrap_or(self.timeout)
            };
            let error = Error::Timeout {
                endpoint: endpoint.clone(),
                after: Some(after),
            };
            (error, unsent.then_some("no connection (connect timeout)"))
        } else {
            let (message, transient) = if broke {
                (
                    format!(
                        "the connection closed before the whole answer arrived ({})",
                        error_chain(error)
                    ),
                    "the body was cut short",
                )
            } else if unsent {
                let message = format!(
                    "could not connect to {}: {}",
                    self.connection_target,
                    error_chain(error)
                );
                (message, "no connection")
            } else {
                (error_chain(error), "the connection broke before the answer")
            };
            let error = Error::Connection {
                endpoint: endpoint.clone(),
                message: self.redactor.redact(&message),
            };
            (error, Some(transient))
        };
        Failure {
            error,
            unsent,
            transient,
        }
    }
}

/// A reqwest error and its causes, one line, without the URL (it carries the access token),
/// and without the words that only name a layer of the HTTP stack it passed through.
fn error_chain(error: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(err) = source {
        let text = match err.downcast_ref::<reqwest::Error>() {
            Some(e) => reqwest_text(e),
            None => err.to_string(),
        };
        if !text.is_empty() && !names_a_layer(&text) && parts.last() != Some(&text) {
            parts.push(text);
        }
        source = err.source();
    }
    if parts.is_empty() {
        return reqwest_text(error);
    }
    parts.join(": ")
}

/// Words that say where an error passed, not what it was: reqwest's "error sending request",
/// "error decoding response body" and "request or response body error", hyper's "error reading
/// a body from connection" and hyper-util's "client error (Connect)". Our message says what was
/// being done ("could not connect to …", "the compressed answer does not decompress"), and the
/// causes below them what went wrong ("tcp connect error: Connection refused", "deflate
/// decompression error: invalid block type", "end of file before message length reached").
fn names_a_layer(text: &str) -> bool {
    matches!(
        text,
        "error sending request"
            | "error decoding response body"
            | "request or response body error"
            | "error reading a body from connection"
    ) || (text.starts_with("client error (") && text.ends_with(')'))
}

fn reqwest_text(error: &reqwest::Error) -> String {
    // Display of reqwest::Error appends " for url (...)"; the kind words are what we want.
    let text = error.to_string();
    text.split(" for url (").next().unwrap_or(&text).to_string()
}

#[derive(Deserialize)]
struct ErrorProbe {
    code: Option<serde_json::Value>,
    msg: Option<serde_json::Value>,
    error: Option<String>,
    error_description: Option<String>,
    err_key: Option<serde_json::Value>,
    err_content: Option<serde_json::Value>,
}

/// Reads a small JSON object for the service's error fields; `None` for anything else.
fn probe_error_body(body: &[u8]) -> Option<ErrorProbe> {
    if body.len() > ERROR_PROBE_LIMIT || body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    if !ERROR_KEYS
        .iter()
        .any(|key| body.windows(key.len()).any(|w| w == *key))
    {
        return None;
    }
    serde_json::from_slice::<ErrorProbe>(body).ok()
}

fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `err_key` as indexes into the caller's batch: a number or numbers separated by commas,
/// each within the batch. Anything else gives no indexes (the key is still reported).
fn parse_indices(err_key: &str, batch_len: usize) -> Vec<usize> {
    let parsed: Option<Vec<usize>> = err_key
        .split(',')
        .map(|part| part.trim().parse::<usize>().ok().filter(|i| *i < batch_len))
        .collect();
    parsed.unwrap_or_default()
}

/// `Retry-After` in seconds (the HTTP-date form is rare from PHP services and is ignored).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn err_key_indices() {
        assert_eq!(parse_indices("1", 3), vec![1]);
        assert_eq!(parse_indices("0, 2", 3), vec![0, 2]);
        assert_eq!(parse_indices("5", 3), Vec::<usize>::new());
        assert_eq!(parse_indices("web-01", 3), Vec::<usize>::new());
    }

    #[test]
    fn error_pages_are_recognised_narrowly() {
        for page in [
            &b""[..],
            b" \r\n",
            b"<br />\n<b>Fatal error</b>:  Allowed memory size exhausted",
            b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>",
            b"  <html>",
            b"PHP Fatal error:  Uncaught Error: Call to undefined function",
        ] {
            assert!(looks_like_error_page(page), "{page:?}");
        }
        for data in [
            &b"OK"[..],
            b"12345",
            b"null",
            b"{\"task_name\":\"<b>Fatal error</b>\"}",
            b"[\"<html>\"]",
        ] {
            assert!(!looks_like_error_page(data), "{data:?}");
        }
    }

    #[test]
    fn probe_only_small_objects() {
        assert!(probe_error_body(br#"{"code":400,"msg":"x"}"#).is_some());
        assert!(probe_error_body(b"[1,2]").is_none());
        assert!(probe_error_body(b"<html>").is_none());
        assert!(probe_error_body(br#"{"apache_rps":[]}"#).is_none());
        assert!(probe_error_body(br#"{"err_key":"1","err_content":"x"}"#).is_some());
    }
}
