//! Answers compressed as the request's `Accept-Encoding` asks, as the service's front end
//! (nginx's gzip module) compresses them. A cached report is compressed once per encoding
//! and kept beside its body in the report cache, so that serving it again costs no CPU.

use std::io::Write;
use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, VARY};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use bytes::Bytes;
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use tokio::sync::OnceCell;

use crate::config::Encoding;

/// The level of the front end the benchmarks model (nginx `gzip_comp_level 6`).
const LEVEL: u32 = 6;

/// A cached answer, with its compressed forms made on first use.
#[derive(Default)]
pub(crate) struct CachedBody {
    pub(crate) identity: OnceCell<Bytes>,
    gzip: OnceCell<Bytes>,
    deflate: OnceCell<Bytes>,
}

impl CachedBody {
    /// The body compressed with `encoding`, compressed the first time only (off the threads
    /// that serve requests: a 30-day report takes a while).
    async fn encoded(&self, encoding: Encoding) -> Bytes {
        let identity = self.identity.get().cloned().unwrap_or_default();
        let cell = match encoding {
            Encoding::Gzip => &self.gzip,
            Encoding::Deflate => &self.deflate,
        };
        cell.get_or_init(|| async move {
            tokio::task::spawn_blocking(move || compress(&identity, encoding))
                .await
                .expect("compression does not panic")
        })
        .await
        .clone()
    }

    /// The bytes held: the body and its compressed forms.
    pub(crate) fn len(&self) -> usize {
        [&self.identity, &self.gzip, &self.deflate]
            .into_iter()
            .filter_map(|cell| cell.get().map(Bytes::len))
            .sum()
    }
}

/// Marks a response whose body is `CachedBody::identity`, for [`compress_response`].
#[derive(Clone)]
pub(crate) struct Cached(pub(crate) Arc<CachedBody>);

/// The first of `offered` that `accept` (an `Accept-Encoding` value) takes: listed by name
/// or by `*`, with a q-value above 0.
pub(crate) fn negotiate(accept: &HeaderMap, offered: &[Encoding]) -> Option<Encoding> {
    let accepted: Vec<(String, bool)> = accept
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|item| {
            let mut parts = item.split(';').map(str::trim);
            let name = parts.next()?.to_ascii_lowercase();
            let refused = parts
                .filter_map(|param| param.strip_prefix("q="))
                .any(|q| q.parse::<f32>().is_ok_and(|q| q <= 0.0));
            (!name.is_empty()).then_some((name, !refused))
        })
        .collect();
    let takes = |name: &str| {
        accepted
            .iter()
            .find(|(listed, _)| listed == name)
            .or_else(|| accepted.iter().find(|(listed, _)| listed == "*"))
            .is_some_and(|(_, ok)| *ok)
    };
    offered.iter().copied().find(|encoding| takes(encoding.as_str()))
}

/// `response` compressed with `encoding` (its body read whole; a cached report's compressed
/// form comes from the cache). An empty body is sent as it is.
pub(crate) async fn compress_response(response: Response, encoding: Encoding) -> Response {
    let cached = response.extensions().get::<Cached>().cloned();
    let (mut parts, body) = response.into_parts();
    let compressed = match cached {
        Some(Cached(cached)) => cached.encoded(encoding).await,
        None => {
            let Ok(body) = to_bytes(body, usize::MAX).await else {
                return Response::from_parts(parts, Body::empty());
            };
            if body.is_empty() {
                return Response::from_parts(parts, Body::empty());
            }
            compress(&body, encoding)
        }
    };
    let headers = &mut parts.headers;
    headers.insert(CONTENT_ENCODING, HeaderValue::from_static(encoding.as_str()));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(compressed.len()));
    headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    Response::from_parts(parts, Body::from(compressed))
}

/// `body` compressed with `encoding` at [`LEVEL`].
pub(crate) fn compress(body: &[u8], encoding: Encoding) -> Bytes {
    let level = Compression::new(LEVEL);
    // Writing into a Vec cannot fail.
    let out = match encoding {
        Encoding::Gzip => {
            let mut encoder = GzEncoder::new(Vec::with_capacity(body.len() / 4), level);
            encoder.write_all(body).expect("writes to a Vec");
            encoder.finish().expect("writes to a Vec")
        }
        Encoding::Deflate => {
            let mut encoder = ZlibEncoder::new(Vec::with_capacity(body.len() / 4), level);
            encoder.write_all(body).expect("writes to a Vec");
            encoder.finish().expect("writes to a Vec")
        }
    };
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_first_offered_encoding_the_request_takes_wins() {
        let both = [Encoding::Gzip, Encoding::Deflate];
        assert_eq!(negotiate(&accept("gzip, deflate"), &both), Some(Encoding::Gzip));
        assert_eq!(negotiate(&accept("deflate"), &both), Some(Encoding::Deflate));
        assert_eq!(
            negotiate(&accept("gzip;q=0, deflate"), &both),
            Some(Encoding::Deflate)
        );
        assert_eq!(negotiate(&accept("GZIP ; q=0.5"), &both), Some(Encoding::Gzip));
        assert_eq!(
            negotiate(&accept("*"), &[Encoding::Deflate]),
            Some(Encoding::Deflate)
        );
        assert_eq!(negotiate(&accept("br, identity"), &both), None);
        assert_eq!(negotiate(&accept("gzip"), &[]), None);
        assert_eq!(negotiate(&HeaderMap::new(), &both), None);
    }
}
