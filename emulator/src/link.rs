//! A modelled wide-area link between the clients and the emulator: a bandwidth that every
//! connection's answers share, as one link is shared, and a round-trip time. Answers are
//! written paced: each piece is sent when the link would have finished carrying it.

use std::sync::Mutex;
use std::time::Duration;

use axum::body::Body;
use axum::body::HttpBody;
use axum::http::header::CONTENT_LENGTH;
use axum::http::HeaderValue;
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;
use tokio::time::Instant;

/// The most bytes sent at once: small enough that connections sharing the link interleave.
const PIECE: usize = 16 * 1024;

/// How late the next piece of an answer under way may ask for the link and still follow the
/// last one without a gap. A piece is written when its timer fires, always a little after the
/// moment asked for; without this the link would lose that lateness at every piece (a
/// millisecond in 2.6 of a 16 KiB piece at 50 Mbit/s) and carry a third less than its
/// bandwidth. A link idle for longer starts afresh, and an answer's first piece always waits
/// for the moment it asks: the link's idle moments are no credit to send faster than its
/// bandwidth.
const CATCH_UP: Duration = Duration::from_millis(20);

/// The link's settings and the moment it is next free.
#[derive(Default)]
pub(crate) struct Link {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Bits per second; `None`: as fast as the machine goes.
    bandwidth: Option<f64>,
    rtt: Duration,
    free_at: Option<Instant>,
}

impl Link {
    pub(crate) fn new(bandwidth_mbps: Option<f64>, rtt: Duration) -> Link {
        let link = Link::default();
        link.set(bandwidth_mbps, rtt);
        link
    }

    pub(crate) fn set(&self, bandwidth_mbps: Option<f64>, rtt: Duration) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.bandwidth = bandwidth_mbps.map(|mbps| mbps * 1e6);
        state.rtt = rtt;
    }

    /// (Mbit/s, round trip) as set.
    pub(crate) fn settings(&self) -> (Option<f64>, Duration) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        (state.bandwidth.map(|bps| bps / 1e6), state.rtt)
    }

    pub(crate) fn rtt(&self) -> Duration {
        self.settings().1
    }

    /// When `bytes` sent `now` would have crossed the link, after what it carries already;
    /// the link is taken until then. `None` when the bandwidth is not limited. `under_way`: a
    /// later piece of an answer, which follows the link's last piece without a gap (whose timer
    /// may have fired late, [`CATCH_UP`]); an answer's first piece starts at `now` at the
    /// earliest.
    fn reserve(&self, bytes: usize, now: Instant, under_way: bool) -> Option<Instant> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let bps = state.bandwidth?;
        let start = match state.free_at {
            Some(free) if under_way && free + CATCH_UP > now => free,
            Some(free) => free.max(now),
            None => now,
        };
        let done = start + Duration::from_secs_f64(bytes as f64 * 8.0 / bps);
        state.free_at = Some(done);
        Some(done)
    }
}

/// `response` with its body paced by `link` (unchanged when the bandwidth is not limited).
pub(crate) fn paced(response: Response, link: std::sync::Arc<Link>) -> Response {
    if link.settings().0.is_none() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    if let Some(length) = body.size_hint().exact() {
        parts.headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
    }
    let pieces = body.into_data_stream().flat_map(|chunk| {
        let pieces: Vec<Result<Bytes, axum::Error>> = match chunk {
            Ok(mut bytes) => {
                let mut out = Vec::with_capacity(bytes.len().div_ceil(PIECE));
                while bytes.len() > PIECE {
                    out.push(Ok(bytes.split_to(PIECE)));
                }
                out.push(Ok(bytes));
                out
            }
            Err(error) => vec![Err(error)],
        };
        futures::stream::iter(pieces)
    });
    let stream = pieces.enumerate().then(move |(index, piece)| {
        let link = link.clone();
        async move {
            if let Ok(bytes) = &piece
                && let Some(done) = link.reserve(bytes.len(), Instant::now(), index > 0)
            {
                tokio::time::sleep_until(done).await;
            }
            piece
        }
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The moments are given, not read from the clock: a busy machine's late timers and
    // sleeps must not decide what is checked (the catch-up is precisely about lateness).

    #[test]
    fn the_link_carries_one_piece_after_another() {
        let link = Link::new(Some(8.0), Duration::ZERO);
        let now = Instant::now();
        // 1 MB at 8 Mbit/s: one second; the next megabyte queues behind it.
        let first = link.reserve(1_000_000, now, false).unwrap();
        let second = link.reserve(1_000_000, now, false).unwrap();
        assert_eq!(first - now, Duration::from_secs(1));
        assert_eq!(second - first, Duration::from_secs(1));
        link.set(None, Duration::ZERO);
        assert_eq!(link.reserve(1_000_000, now, false), None);
    }

    #[test]
    fn a_busy_link_loses_no_time_to_late_timers() {
        let link = Link::new(Some(8.0), Duration::ZERO);
        let start = Instant::now();
        // 1,000 bytes at 8 Mbit/s: one millisecond.
        let first = link.reserve(1_000, start, false).unwrap();
        assert_eq!(first - start, Duration::from_millis(1));
        // The next piece asks a little after the first was done (its timer fired late): it
        // follows the first at once.
        let late = first + CATCH_UP - Duration::from_millis(1);
        let second = link.reserve(1_000, late, true).unwrap();
        assert_eq!(second - first, Duration::from_millis(1));
        // After a pause longer than the catch-up, the link starts from the moment asked.
        let idle = second + CATCH_UP + Duration::from_millis(5);
        let third = link.reserve(1_000, idle, true).unwrap();
        assert_eq!(third - idle, Duration::from_millis(1));
    }

    #[test]
    fn a_new_answer_gets_no_credit_from_the_link_s_idle_moments() {
        // A login's answer crosses, then the next request's answer starts a little later
        // (the client read the first and sent the second): it crosses in its own time from
        // then, never sooner. With the catch-up's credit it arrived that little bit early,
        // and a test timing an answer against the bandwidth failed now and then.
        let link = Link::new(Some(8.0), Duration::ZERO);
        let start = Instant::now();
        let login = link.reserve(1_000, start, false).unwrap();
        let asked = login + Duration::from_micros(300);
        let report = link.reserve(1_000_000, asked, false).unwrap();
        assert_eq!(report - asked, Duration::from_secs(1));
        // An answer asking while the link still carries another waits for it.
        let queued = link.reserve(1_000, asked, false).unwrap();
        assert_eq!(queued - report, Duration::from_millis(1));
    }
}
