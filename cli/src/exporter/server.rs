//! The exporter's HTTP server: `/metrics` (the last rendering, gzipped when asked), `/` (a
//! page linking to it, as exporters have), `/health` (liveness) and `/ready` (readiness); over
//! HTTPS, and `/metrics` with basic auth, as the web configuration asks.

use std::future::Future;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt as _;
use axum::Router;
use bytes::Bytes;

use super::auth;
use super::metrics::{Exposition, CONTENT_TYPE};
use super::tls::TlsListener;
use super::web_config::WebConfig;

const PAGE: &str = r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>monapi exporter</title></head>
<body><h1>monapi exporter</h1>
<p>The monitoring service's sites, services and agents as Prometheus metrics.</p>
<ul><li><a href="metrics">Metrics</a></li><li><a href="health">Health</a> (liveness)</li>
<li><a href="ready">Ready</a> (readiness)</li></ul>
</body></html>
"#;

pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    exposition: Arc<Exposition>,
    web: WebConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut scrape = get(metrics);
    if let Some(users) = web.users {
        // Only /metrics: the page holds nothing, and the probes must stay open to what holds no
        // password (a kubelet, a load balancer), as the exposition is what is worth guarding.
        scrape = scrape.layer(middleware::from_fn_with_state(Arc::new(users), auth::require));
    }
    let app = Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/metrics", scrape)
        .route("/health", get(health))
        .route("/ready", get(ready))
        .with_state(exposition);
    match web.tls {
        Some(config) => {
            let listener = TlsListener::new(listener, config);
            axum::serve(listener, app).with_graceful_shutdown(shutdown).await
        }
        None => {
            // A scrape's answer is two writes (the data's compressed blocks, then the exporter's
            // own): with Nagle's algorithm the second waited for the scraper's delayed ACK, 40 ms.
            let listener = listener.tap_io(|stream| {
                let _ = stream.set_nodelay(true);
            });
            axum::serve(listener, app).with_graceful_shutdown(shutdown).await
        }
    }
}

/// The last rendering and the exporter's own metrics, one gzip member: sent as it is when the
/// scraper accepts gzip (Prometheus does), decompressed as it is sent otherwise.
async fn metrics(State(exposition): State<Arc<Exposition>>, headers: HeaderMap) -> Response {
    let (data, own) = exposition.scrape();
    let gzipped = accepts_gzip(&headers);
    let member = data.member(own.as_bytes());
    let body = if gzipped {
        Body::from_stream(futures::stream::iter(member.map(Ok::<_, std::io::Error>)))
    } else {
        Body::from_stream(decompressed(member))
    };
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        CONTENT_TYPE.parse().expect("a header value"),
    );
    if gzipped {
        headers.insert(header::CONTENT_ENCODING, "gzip".parse().expect("a header value"));
    }
    response
}

/// Whether `Accept-Encoding` names gzip (or its old name x-gzip) with a weight above 0
/// (RFC 9110, 12.5.3: `gzip;q=0` refuses it).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|parameter| {
                let (key, value) = parameter.split_once('=').unwrap_or((parameter, ""));
                key.trim().eq_ignore_ascii_case("q") && value.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip")) && !refused
        })
}

/// A gzip member in two parts, decompressed in pieces of 64 KiB on the blocking pool: a plain
/// scrape never holds the whole text.
fn decompressed([head, tail]: [Bytes; 2]) -> impl futures::Stream<Item = std::io::Result<Bytes>> {
    let (sender, receiver) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(4);
    tokio::task::spawn_blocking(move || {
        let parts = std::io::Read::chain(&head[..], &tail[..]);
        let mut reader = flate2::read::GzDecoder::new(parts);
        loop {
            let mut piece = vec![0; 64 * 1024];
            match std::io::Read::read(&mut reader, &mut piece) {
                Ok(0) => break,
                Ok(n) => {
                    piece.truncate(n);
                    // The scraper went away: stop.
                    if sender.blocking_send(Ok(Bytes::from(piece))).is_err() {
                        return;
                    }
                }
                Err(error) => {
                    let _ = sender.blocking_send(Err(error));
                    return;
                }
            }
        }
    });
    futures::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|piece| (piece, receiver))
    })
}

/// Liveness: 200 while the refresh loop runs, 503 once it has died. An outage of the service
/// never fails it (a restart would not help, and a liveness probe would restart the exporter
/// in a loop); `/ready` says that.
async fn health(State(exposition): State<Arc<Exposition>>) -> impl IntoResponse {
    let (status, text) = if exposition.alive() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "the refresh loop has ended")
    };
    json(status, format!(r#"{{"status":"{text}"}}"#))
}

/// Readiness: 503 until the first refresh has ended, and while the last
/// [`UNREADY_AFTER`](super::metrics::UNREADY_AFTER) refreshes have all failed as a whole;
/// 200 otherwise.
async fn ready(State(exposition): State<Arc<Exposition>>) -> impl IntoResponse {
    let (ready, failed) = (exposition.ready(), exposition.failed_in_a_row());
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = format!(
        r#"{{"ready":{ready},"refreshed":{},"failed_in_a_row":{failed}}}"#,
        exposition.refreshed()
    );
    json(status, body)
}

fn json(status: StatusCode, body: String) -> impl IntoResponse {
    (status, [(header::CONTENT_TYPE, "application/json")], body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_sent_when_accepted_with_a_weight_above_0() {
        let accepts = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(header::ACCEPT_ENCODING, value.parse().unwrap());
            }
            accepts_gzip(&headers)
        };
        assert!(accepts(&["gzip"]));
        assert!(accepts(&["deflate, GZip;q=0.5"]));
        assert!(accepts(&["br", "x-gzip"]));
        assert!(!accepts(&[]));
        assert!(!accepts(&["identity"]));
        assert!(!accepts(&["gzip;q=0"]));
        assert!(!accepts(&["deflate, gzip ; q=0.000"]));
        assert!(!accepts(&["gzipped"]));
    }
}
