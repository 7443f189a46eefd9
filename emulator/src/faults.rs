//! The layer in front of every API endpoint: counting, latency, fault injection,
//! compression (as the front end compresses, faults included) and the modelled link.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;

use crate::app::{App, Endpoint};
use crate::compression::{compress, compress_response, negotiate};
use crate::config::{Encoding, FaultKind};
use crate::link::paced;
use crate::response::{api_error, php_body, MAX_FORM_BYTES, PHP_CONTENT_TYPE};
use crate::server::ConnectionControl;

/// What an old PHP app prints when it dies mid-request.
const PHP_FATAL: &str = "<br />\n<b>Fatal error</b>:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in <b>/var/www/api/v2/report.php</b> on line <b>211</b><br />\n";

/// Counts the request, waits the configured latency, then either answers with a fault
/// or lets the endpoint answer; the answer is compressed when the request asks.
pub(crate) async fn api_layer(
    State((app, endpoint)): State<(Arc<App>, Endpoint)>,
    request: Request,
    next: Next,
) -> Response {
    let encoding = negotiate(request.headers(), &app.compression);
    let response = answer(&app, endpoint, request, next, encoding).await;
    paced(encode(&app, response, encoding).await, app.link.clone())
}

/// `response` compressed with `encoding`, unless it has an encoding already (a fault's
/// corrupt gzip, or an answer compressed before it was cut).
async fn encode(app: &App, response: Response, encoding: Option<Encoding>) -> Response {
    match encoding {
        Some(encoding) if response.headers().get(CONTENT_ENCODING).is_none() => {
            app.count_compressed();
            compress_response(response, encoding).await
        }
        _ => response,
    }
}

async fn answer(
    app: &Arc<App>,
    endpoint: Endpoint,
    request: Request,
    next: Next,
    encoding: Option<Encoding>,
) -> Response {
    app.count(endpoint);
    if let Some(traceparent) = request.headers().get("traceparent").and_then(|v| v.to_str().ok()) {
        app.count_traced(traceparent);
    }
    let _in_progress = app.in_progress();
    let request = if endpoint == Endpoint::Token {
        match count_grant(app, request).await {
            Ok(request) => request,
            Err(response) => return response,
        }
    } else {
        request
    };
    // The round trip of the modelled link: the request's way there, the answer's first byte
    // back.
    let latency = app.latency() + app.link.rtt();
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let Some((fault, retry_after)) = app.next_fault() else {
        return next.run(request).await;
    };
    tracing::debug!(?fault, path = request.uri().path(), "injecting fault");
    let connection = request.extensions().get::<ConnectionControl>().cloned();
    match fault {
        FaultKind::Error500 => api_error(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
        FaultKind::Error503 => with_retry_after(
            api_error(StatusCode::SERVICE_UNAVAILABLE, "service temporarily unavailable"),
            retry_after,
        ),
        FaultKind::Error429 => with_retry_after(
            api_error(StatusCode::TOO_MANY_REQUESTS, "too many requests"),
            retry_after,
        ),
        FaultKind::DropConnection => {
            if let Some(connection) = connection {
                connection.close();
            }
            // The connection task drops this request together with the connection.
            std::future::pending().await
        }
        FaultKind::TruncatedBody => {
            // Cut after compression, as a connection breaking under the front end would.
            truncate(encode(app, next.run(request).await, encoding).await, connection).await
        }
        FaultKind::MalformedBody => php_body(StatusCode::OK, PHP_FATAL),
        FaultKind::CorruptGzip => corrupt_gzip(),
    }
}

/// The token endpoint's grant counters need the form body, which must be read here
/// because a fault may answer before the handler runs. The body is put back.
async fn count_grant(app: &App, request: Request) -> Result<Request, Response> {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, MAX_FORM_BYTES)
        .await
        .map_err(|_| api_error(StatusCode::PAYLOAD_TOO_LARGE, "request body too large"))?;
    if let Ok(form) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&bytes)
        && let Some((_, grant)) = form.iter().find(|(key, _)| key == "grant_type")
    {
        app.count_grant(grant);
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// A gzip header, then bytes that are no DEFLATE stream.
fn corrupt_gzip() -> Response {
    let mut body = compress(b"{\"code\":200}", Encoding::Gzip).to_vec();
    body.truncate(10);
    body.extend_from_slice(&[0xff; 32]);
    let mut response = php_body(StatusCode::OK, body);
    response
        .headers_mut()
        .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    response
}

fn with_retry_after(mut response: Response, seconds: u64) -> Response {
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// The real response with its full Content-Length but only the first half of the
/// body; then the connection is closed.
async fn truncate(response: Response, connection: Option<ConnectionControl>) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(full) = to_bytes(body, usize::MAX).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "").into_response();
    };
    parts
        .headers
        .insert(CONTENT_LENGTH, HeaderValue::from(full.len()));
    parts.headers.entry(CONTENT_TYPE).or_insert(PHP_CONTENT_TYPE);
    let half = full.slice(..full.len() / 2);
    let rest = futures::stream::once(async move {
        // A short pause lets the first half reach the socket before the close.
        tokio::time::sleep(Duration::from_millis(20)).await;
        if let Some(connection) = connection {
            connection.close();
        }
        Err::<Bytes, _>(io::Error::other("body truncated by the emulator"))
    });
    let stream = futures::stream::iter([Ok(half)]).chain(rest);
    Response::from_parts(parts, Body::from_stream(stream))
}
