//! Reading an answer while it arrives: a [`Decoder`] is handed the answer's top-level object
//! in pieces ([`Members`]), each as soon as its last byte has come, so that a large call on a
//! slow link costs about the transfer of its bytes rather than the transfer and then the
//! decoding. Each piece is a whole JSON text that serde_json reads at its full speed.

use std::sync::Arc;

use bytes::Bytes;
use serde::de::DeserializeOwned;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// Bytes of a body read but not yet taken by its decoder: when the decoder falls behind,
/// reading the answer waits rather than holding more. Counted in bytes, not reads: the reads
/// grow to hundreds of KiB on a busy machine, and each read is held twice meanwhile (in the
/// queue and in the whole body the transport keeps).
const DECODER_QUEUE_BYTES: usize = 4 << 20;
/// What a read costs in the queue at least, so that a trickle of tiny reads is bounded too.
const DECODER_QUEUE_MIN_COST: usize = 1 << 10;
/// How much of a body shows how fast it arrives.
const PROBE_BYTES: usize = 2 << 20;
/// Below this rate of arrival (decompressed bytes per second) a body is read member by member
/// as it arrives; above it, whole once arrived: finding the members is a pass over every byte,
/// which costs more than it saves when the bytes come as fast as they can be decoded (see
/// "Decoded as it arrives" in bench/RESULTS.md).
const MEMBERS_BELOW_BYTES_PER_SECOND: f64 = 100e6;

/// How [`Members::next_object_piece`] cuts a body: objects opened down to the third level (the
/// answer's, a site report's monitoring point, its maps keyed by check time) and members in
/// runs of 64 KiB, so that what is left to build after the last byte is one run, whatever the
/// answer's shape.
const OBJECT_DEPTH: u32 = 3;
const OBJECT_RUN_BYTES: usize = 64 << 10;

/// Reads an answer ([`Client::execute_decoded`](crate::Client::execute_decoded)) on a blocking
/// thread: member by member while it arrives when its body is an object and the decoder reads
/// members, whole after it arrived otherwise. The tables and the typed reports use one; the
/// language packages give their own.
pub struct Decoder<T> {
    whole: Arc<Whole<T>>,
    members: Option<Arc<Each<T>>>,
    /// Whether the decoder takes PHP's empty forms (`[]` for an empty map) as the client
    /// reshapes them (`shape.rs`). Then what it read while the body arrived stands
    /// when it succeeded; otherwise only when the body was not reshaped. Any other case reads
    /// the reshaped body again, whole.
    reads_php_shapes: bool,
}

type Whole<T> = dyn Fn(&[u8]) -> serde_json::Result<T> + Send + Sync;
type Each<T> = dyn Fn(&mut Members) -> serde_json::Result<T> + Send + Sync;

impl<T> Clone for Decoder<T> {
    fn clone(&self) -> Self {
        Decoder {
            whole: self.whole.clone(),
            members: self.members.clone(),
            reads_php_shapes: self.reads_php_shapes,
        }
    }
}

impl<T: DeserializeOwned> Decoder<T> {
    /// Reads the body into `T`, as [`RawResponse::json`](crate::RawResponse::json) does
    /// (whole: a derived `Deserialize` cannot be handed members).
    pub(crate) fn json() -> Decoder<T> {
        Decoder::new(false, |body| serde_json::from_slice(body))
    }
}

impl<T> Decoder<T> {
    /// A decoder reading a whole body with `whole`. `reads_php_shapes`: whether it takes PHP's
    /// empty forms (`[]` for an empty map, a whole `null`) as the reshaped answer would read
    /// (see [`RawResponse`](crate::RawResponse)); when it does not, a reshaped answer is read
    /// again.
    pub fn new(
        reads_php_shapes: bool,
        whole: impl Fn(&[u8]) -> serde_json::Result<T> + Send + Sync + 'static,
    ) -> Decoder<T> {
        Decoder {
            whole: Arc::new(whole),
            members: None,
            reads_php_shapes,
        }
    }

    /// Reads an object body member by member while it arrives with `each`, which must give
    /// what `whole` gives for the same body. A body that is not an object, or that `each`
    /// fails on, is read whole once it has arrived (so that its error is the whole body's).
    pub fn with_members(
        mut self,
        each: impl Fn(&mut Members) -> serde_json::Result<T> + Send + Sync + 'static,
    ) -> Decoder<T> {
        self.members = Some(Arc::new(each));
        self
    }

    /// Reads a whole body.
    ///
    /// # Errors
    ///
    /// The error of the function the decoder reads whole bodies with (given to
    /// [`new`](Decoder::new)): the body is not what it reads.
    pub fn read(&self, body: &[u8]) -> serde_json::Result<T> {
        (self.whole)(body)
    }

    /// Reads `members` as it reads a body arriving slowly: `None` when it reads bodies whole
    /// only. For the fuzz targets (`fuzz/`), which feed it a body cut anywhere.
    #[doc(hidden)]
    pub fn read_members(&self, members: &mut Members) -> Option<serde_json::Result<T>> {
        self.members.as_ref().map(|each| each(members))
    }

    /// Whether what it read while the body arrived is the answer's decoding.
    pub(crate) fn stands(&self, decoded: &serde_json::Result<T>, reshaped: bool) -> bool {
        decoded.is_ok() && (!reshaped || self.reads_php_shapes)
    }
}

impl<T: Send + 'static> Decoder<T> {
    /// Starts reading a body as it arrives, when this decoder reads members.
    pub(crate) fn start(&self) -> Option<Feed<T>> {
        let each = self.members.clone()?;
        let (sender, coming) = mpsc::unbounded_channel();
        let decoding = tokio::task::spawn_blocking(move || {
            let mut members = Members::new(coming);
            if !members.arrives_slowly() || !members.is_object() {
                return None;
            }
            Some(each(&mut members))
        });
        Some(Feed::new(sender, decoding))
    }
}

/// A decoder beside the reading of one answer, on tokio's blocking pool rather than on the
/// task that reads: a bulk call polls all its fetches from one task, so decoded in place its
/// answers would be decoded one after the other on one thread; aside, they are decoded on every
/// core while the workers go on receiving. When the call is cancelled the decoder sees the
/// body end, fails, and its result is dropped.
pub(crate) struct Feed<T> {
    sender: Option<mpsc::UnboundedSender<Queued>>,
    /// The queue's room left, in bytes ([`DECODER_QUEUE_BYTES`]).
    room: Arc<Semaphore>,
    /// None: the body is not an object, to be read whole.
    decoding: tokio::task::JoinHandle<Option<serde_json::Result<T>>>,
}

impl<T> Feed<T> {
    fn new(
        sender: mpsc::UnboundedSender<Queued>,
        decoding: tokio::task::JoinHandle<Option<serde_json::Result<T>>>,
    ) -> Feed<T> {
        Feed {
            sender: Some(sender),
            room: Arc::new(Semaphore::new(DECODER_QUEUE_BYTES)),
            decoding,
        }
    }

    /// Hands `piece` to the decoder; waits while the decoder has not taken
    /// [`DECODER_QUEUE_BYTES`] of those before it.
    pub(crate) async fn push(&mut self, piece: Bytes) {
        let Some(sender) = &self.sender else { return };
        let cost = piece.len().clamp(DECODER_QUEUE_MIN_COST, DECODER_QUEUE_BYTES) as u32;
        // Never closed. A decoder that stops drops what it had not taken, which frees its room.
        let room = self.room.clone().acquire_many_owned(cost).await.ok();
        if sender.send(Queued { piece, _room: room }).is_err() {
            // The decoder stopped (the body is not an object, or not what it reads); the body
            // is still read whole, to be classified.
            self.sender = None;
        }
    }

    /// What the decoder read; None when the body is to be read whole.
    pub(crate) async fn finish(mut self) -> Option<serde_json::Result<T>> {
        self.sender = None;
        match self.decoding.await {
            Ok(decoded) => decoded,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            // Only when the runtime shuts down, which ends the call anyway.
            Err(_) => None,
        }
    }
}

/// A read of the body waiting for its decoder; its room in the queue is freed when taken.
struct Queued {
    piece: Bytes,
    _room: Option<OwnedSemaphorePermit>,
}

/// A piece of an object body read as it arrives ([`Members::next_piece`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Whole members of the innermost open object, as an object text of their own,
    /// `{"key": value, ...}`: the body's own bytes, the separators before the first and after
    /// the last standing in for the braces.
    Members(&'a str),
    /// A member whose value is an object, opened: its own members come in the pieces that
    /// follow, until [`Piece::Close`]. Holds the member's key as JSON text (quoted).
    Open(&'a str),
    /// The innermost open object ends.
    Close,
}

/// The members of an answer's top-level object as it arrives, handed over as soon as each has
/// arrived whole: one by one ([`next_member`](Self::next_member)), or in runs, with the objects
/// inside opened down to a depth ([`next_piece`](Self::next_piece)), so that what is left to
/// decode after the last byte is small however the body nests.
pub struct Members {
    coming: mpsc::UnboundedReceiver<Queued>,
    /// The body from the separator that starts the pending members on (the innermost open
    /// object's `{`, or a comma).
    text: Vec<u8>,
    /// Where the scan is in `text`, and what it is inside of.
    scan: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Objects open: the body's own, and those handed over as [`Piece::Open`].
    open: u32,
    /// Where the last member wholly read at the open level ends (its separator); 0: none yet.
    last_end: usize,
    /// Where the piece handed over last ends: the text up to there goes at the next call.
    handed: Option<usize>,
    /// The pending members follow a comma (so a member must come).
    after_comma: bool,
    /// Where the colon of the member being read is, while its value has not begun and may
    /// be an object to open.
    colon: Option<usize>,
    /// The members handed over last ended their object, which closes at the next call.
    closing: bool,
    /// An opened object has closed: a separator of the level around it comes next.
    after_close: bool,
    /// The body's object was closed.
    closed: bool,
}

impl Members {
    fn new(coming: mpsc::UnboundedReceiver<Queued>) -> Members {
        Members {
            coming,
            text: Vec::new(),
            scan: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            open: 0,
            last_end: 0,
            handed: None,
            after_comma: false,
            colon: None,
            closing: false,
            after_close: false,
            closed: false,
        }
    }

    /// The members of a body that has arrived in `pieces` (cut anywhere), when it is an
    /// object. For the fuzz targets (`fuzz/`) and the tests; no runtime may be running on
    /// this thread (the pieces are received as on the blocking pool).
    ///
    /// # Panics
    ///
    /// When called on a thread that runs a tokio runtime (from async code), as does every
    /// read of the members it gives there.
    #[doc(hidden)]
    pub fn from_pieces(pieces: Vec<Bytes>) -> Option<Members> {
        let (sender, coming) = mpsc::unbounded_channel();
        for piece in pieces {
            sender.send(Queued { piece, _room: None }).ok()?;
        }
        drop(sender);
        let mut members = Members::new(coming);
        members.is_object().then_some(members)
    }

    /// Whether the body arrives slower than it is decoded whole (a body that ends within the
    /// probe does not).
    fn arrives_slowly(&mut self) -> bool {
        let mut first_piece = None;
        while self.text.len() < PROBE_BYTES {
            if !self.more() {
                return false;
            }
            first_piece.get_or_insert_with(std::time::Instant::now);
        }
        let seconds = first_piece.map_or(0.0, |first| first.elapsed().as_secs_f64());
        (self.text.len() as f64) < MEMBERS_BELOW_BYTES_PER_SECOND * seconds
    }

    /// Whether the body starts as an object (waiting for its first byte that is not blank);
    /// the scan then stands on its `{`.
    fn is_object(&mut self) -> bool {
        loop {
            match self.text.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(at) => {
                    self.text.drain(..at);
                    return self.text[0] == b'{';
                }
                None if self.more() => {}
                None => return false,
            }
        }
    }

    /// The next piece of the body appended; false at its end.
    fn more(&mut self) -> bool {
        // On a blocking thread (see `Feed`): waiting here holds up no task.
        match self.coming.blocking_recv() {
            Some(queued) => {
                self.text.extend_from_slice(&queued.piece);
                true
            }
            None => false,
        }
    }

    /// The next member of the body's object as `{"key": value}`; None after the last, once
    /// the rest of the body is found blank.
    ///
    /// # Errors
    ///
    /// As [`next_piece`](Members::next_piece): the body ends inside the object, holds more
    /// after it, or its separators are amiss.
    pub fn next_member(&mut self) -> serde_json::Result<Option<&str>> {
        match self.next_piece(1, 0)? {
            Some(Piece::Members(member)) => Ok(Some(member)),
            // Depth 1 opens nothing, so nothing closes but the body's object.
            Some(Piece::Open(_) | Piece::Close) => unreachable!("depth 1 opens no object"),
            None => Ok(None),
        }
    }

    /// The next piece of the body as a decoder that builds a language's objects takes it
    /// (opened to the third level, in runs of 64 KiB): what is left after the last byte is one
    /// run.
    ///
    /// # Errors
    ///
    /// As [`next_piece`](Members::next_piece).
    pub fn next_object_piece(&mut self) -> serde_json::Result<Option<Piece<'_>>> {
        self.next_piece(OBJECT_DEPTH, OBJECT_RUN_BYTES)
    }

    /// The next piece of the body: objects that are members' values are opened down to
    /// `depth` (1: the body's object only), and the whole members of the open object are
    /// handed over in runs of at least `run_bytes` of text (0: one by one), a run ending early
    /// where an object opens or closes. Give the same `depth` and `run_bytes` at every call.
    /// None after the body's object, once the rest of the body is found blank.
    ///
    /// # Errors
    ///
    /// A [`serde_json::Error`] of the data (what is inside a member is for its reader to
    /// check) when the body:
    ///
    /// - ends inside its object, or holds more than blanks after it;
    /// - has its separators amiss: a comma without a member, a member following an opened
    ///   object without a comma, a `]` closing an object, an opened member without a key;
    /// - is not UTF-8 text, or nests more than 2^32 - 1 levels deep.
    ///
    /// A function given to [`Decoder::with_members`] returns it: the body is then read whole
    /// once it has arrived, so that the error is the whole body's.
    pub fn next_piece(&mut self, depth: u32, run_bytes: usize) -> serde_json::Result<Option<Piece<'_>>> {
        if let Some(end) = self.handed.take() {
            self.text.drain(..end);
            self.scan -= end;
            if let Some(colon) = &mut self.colon {
                *colon -= end;
            }
        }
        if self.closing {
            self.closing = false;
            return self.close();
        }
        if self.closed {
            return self.rest_is_blank().map(|()| None);
        }
        if self.open == 0 {
            // `is_object` stood the scan on the body's `{`.
            (self.open, self.depth, self.scan) = (1, 1, 1);
        }
        loop {
            while self.scan < self.text.len() {
                let byte = self.text[self.scan];
                if self.in_string {
                    if self.escaped {
                        self.escaped = false;
                    } else if byte == b'\\' {
                        self.escaped = true;
                    } else if byte == b'"' {
                        self.in_string = false;
                    } else {
                        // Most of a string is plain bytes: skip to the next quote or escape.
                        let rest = &self.text[self.scan..];
                        self.scan += memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                        continue;
                    }
                    self.scan += 1;
                    continue;
                }
                if let Some(colon) = self.colon {
                    match byte {
                        _ if byte.is_ascii_whitespace() => {
                            self.scan += 1;
                            continue;
                        }
                        // The members before the one to open go first.
                        b'{' if self.last_end > 0 => return self.hand_members(self.last_end),
                        b'{' => return self.open_member(colon),
                        _ => self.colon = None,
                    }
                }
                let at_level = self.depth == self.open;
                if at_level && self.after_close && !matches!(byte, b',' | b'}') && !byte.is_ascii_whitespace()
                {
                    return Err(malformed("a member follows an object without a comma"));
                }
                match byte {
                    b'"' => self.in_string = true,
                    // Checked: a body of 4 GiB of brackets is for the reader to refuse, not to
                    // wrap the count.
                    b'{' | b'[' => {
                        self.depth = self
                            .depth
                            .checked_add(1)
                            .ok_or_else(|| malformed("the body nests too deep"))?;
                    }
                    b'}' if at_level => return self.end_of_object(),
                    b']' if at_level => return Err(malformed("a `]` closes an object")),
                    b'}' | b']' => self.depth -= 1,
                    b',' if at_level => {
                        let run_ends = self.end_of_member()? && self.scan >= run_bytes;
                        if run_ends {
                            self.scan += 1;
                            return self.hand_members(self.last_end);
                        }
                    }
                    b':' if at_level && self.open < depth => self.colon = Some(self.scan),
                    _ => {}
                }
                self.scan += 1;
            }
            if !self.more() {
                return Err(malformed("the body ends inside its object"));
            }
        }
    }

    /// A comma at the open level (the scan on it): whether it ends a member (rather than the
    /// object opened before it, whose members were handed over).
    fn end_of_member(&mut self) -> serde_json::Result<bool> {
        let at = self.scan;
        if self.after_close {
            // The pending members start here.
            self.after_close = false;
            self.text.drain(..at);
            self.scan = 0;
            self.after_comma = true;
            return Ok(false);
        }
        if self.member_is_blank(at) {
            return Err(malformed("a comma without a member"));
        }
        self.last_end = at;
        Ok(true)
    }

    /// The `}` of the innermost open object (the scan on it): its last members, then its end.
    fn end_of_object(&mut self) -> serde_json::Result<Option<Piece<'_>>> {
        let at = self.scan;
        self.scan += 1;
        if self.after_close {
            self.after_close = false;
        } else if !self.member_is_blank(at) {
            self.last_end = at;
        } else if self.last_end > 0 || self.after_comma {
            return Err(malformed("a comma without a member"));
        }
        if self.last_end > 0 {
            self.closing = true;
            return self.hand_members(self.last_end);
        }
        self.handed = Some(at);
        self.close()
    }

    /// Whether the text from the last member's end (or the pending members' start) to `at`
    /// is blank.
    fn member_is_blank(&self, at: usize) -> bool {
        self.text[self.last_end + 1..at]
            .iter()
            .all(u8::is_ascii_whitespace)
    }

    /// The innermost open object ends.
    fn close(&mut self) -> serde_json::Result<Option<Piece<'_>>> {
        self.open -= 1;
        self.depth -= 1;
        if self.open == 0 {
            self.closed = true;
            return self.rest_is_blank().map(|()| None);
        }
        self.after_close = true;
        Ok(Some(Piece::Close))
    }

    /// The pending members, up to the separator at `end`, as an object text.
    fn hand_members(&mut self, end: usize) -> serde_json::Result<Option<Piece<'_>>> {
        self.after_comma = self.text[end] == b',';
        self.last_end = 0;
        self.handed = Some(end);
        self.text[0] = b'{';
        self.text[end] = b'}';
        let members = std::str::from_utf8(&self.text[..=end])
            .map_err(|e| malformed(&format!("the body is not UTF-8 text: {e}")))?;
        Ok(Some(Piece::Members(members)))
    }

    /// Opens the member whose value begins at the scan, its key between the pending members'
    /// start (no member pends) and `colon`.
    fn open_member(&mut self, colon: usize) -> serde_json::Result<Option<Piece<'_>>> {
        let at = self.scan;
        self.colon = None;
        self.open += 1;
        self.depth += 1;
        self.scan += 1;
        // The value's `{` starts the members of the opened object.
        self.handed = Some(at);
        self.after_comma = false;
        let key = std::str::from_utf8(self.text[1..colon].trim_ascii())
            .map_err(|e| malformed(&format!("the body is not UTF-8 text: {e}")))?;
        if key.is_empty() {
            return Err(malformed("a member without a key"));
        }
        Ok(Some(Piece::Open(key)))
    }

    /// Reads the rest of the body, which must be blank.
    fn rest_is_blank(&mut self) -> serde_json::Result<()> {
        loop {
            let rest = self.scan.min(self.text.len());
            if !self.text[rest..].iter().all(u8::is_ascii_whitespace) {
                return Err(malformed("trailing characters after the object"));
            }
            self.text.truncate(rest);
            if !self.more() {
                return Ok(());
            }
        }
    }
}

fn malformed(message: &str) -> serde_json::Error {
    <serde_json::Error as serde::de::Error>::custom(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(pieces: &[&str]) -> Vec<Bytes> {
        pieces
            .iter()
            .map(|piece| Bytes::from(piece.to_string()))
            .collect()
    }

    /// The members of `pieces` (the body cut there), or the error.
    fn members(pieces: &[&str]) -> Result<Vec<String>, String> {
        let Some(mut members) = Members::from_pieces(bodies(pieces)) else {
            return Err("not an object".into());
        };
        let mut out = Vec::new();
        while let Some(member) = members.next_member().map_err(|e| e.to_string())? {
            let _: serde_json::Value = serde_json::from_str(member).map_err(|e| e.to_string())?;
            out.push(member.to_string());
        }
        Ok(out)
    }

    /// Whether pushing `piece` waits; polled once, outside the runtime, so that tokio's
    /// cooperative budget plays no part.
    fn push_waits(feed: &mut Feed<()>, piece: &Bytes) -> bool {
        let push = std::pin::pin!(feed.push(piece.clone()));
        push.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
            .is_pending()
    }

    #[test]
    fn reading_waits_while_the_decoder_has_its_bytes_untaken_whatever_the_reads_sizes() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let feed = || {
            let (sender, coming) = mpsc::unbounded_channel();
            (Feed::<()>::new(sender, runtime.spawn(async { None })), coming)
        };
        let (mut feed_large, mut coming) = feed();
        let read = Bytes::from(vec![b' '; DECODER_QUEUE_BYTES / 4]);
        for _ in 0..4 {
            assert!(
                !push_waits(&mut feed_large, &read),
                "a read within the queue's bytes"
            );
        }
        assert!(
            push_waits(&mut feed_large, &read),
            "a read beyond the queue's bytes waits"
        );
        drop(coming.try_recv().unwrap());
        assert!(
            !push_waits(&mut feed_large, &read),
            "a read taken makes room for the next"
        );

        // Tiny reads cost their minimum: the queue holds a bounded number of them too.
        let (mut feed_tiny, coming) = feed();
        let tiny = Bytes::from_static(b" ");
        let room_for = DECODER_QUEUE_BYTES / DECODER_QUEUE_MIN_COST;
        let pushed = (0..=room_for)
            .take_while(|_| !push_waits(&mut feed_tiny, &tiny))
            .count();
        assert_eq!(pushed, room_for);
        // A decoder that stops frees the room of what it had not taken: reading goes on whole.
        drop(coming);
        assert!(
            !push_waits(&mut feed_tiny, &tiny),
            "a stopped decoder holds up no read"
        );
        assert!(feed_tiny.sender.is_none());
    }

    #[test]
    fn members_arrive_whole_wherever_the_body_is_cut() {
        let body = r#" {"a": [1, {"b": "},]\"{"}], "c\"": {"d": [[]]}, "e": null} "#;
        let expected = vec![
            r#"{"a": [1, {"b": "},]\"{"}]}"#.to_string(),
            r#"{ "c\"": {"d": [[]]}}"#.to_string(),
            r#"{ "e": null}"#.to_string(),
        ];
        for cut in 0..=body.len() {
            for second in cut..=body.len() {
                let pieces = [&body[..cut], &body[cut..second], &body[second..]];
                assert_eq!(members(&pieces).unwrap(), expected, "cut at {cut} and {second}");
            }
        }
    }

    /// The value the pieces of `pieces` (the body cut there) make, objects opened down to
    /// `depth` and members handed in runs of `run_bytes`; every piece must be valid alone.
    fn rebuilt(pieces: &[&str], depth: u32, run_bytes: usize) -> Result<serde_json::Value, String> {
        use serde_json::{Map, Value};
        let mut members = Members::from_pieces(bodies(pieces)).expect("an object");
        let mut open: Vec<(String, Map<String, Value>)> = vec![(String::new(), Map::new())];
        while let Some(piece) = members.next_piece(depth, run_bytes).map_err(|e| e.to_string())? {
            match piece {
                Piece::Members(text) => {
                    let run: Map<String, Value> = serde_json::from_str(text).map_err(|e| e.to_string())?;
                    open.last_mut().unwrap().1.extend(run);
                }
                Piece::Open(key) => {
                    assert!(open.len() < depth as usize, "opened beyond the depth");
                    open.push((serde_json::from_str(key).map_err(|e| e.to_string())?, Map::new()));
                }
                Piece::Close => {
                    let (key, object) = open.pop().unwrap();
                    open.last_mut().unwrap().1.insert(key, Value::Object(object));
                }
            }
        }
        assert_eq!(open.len(), 1, "objects left open");
        Ok(Value::Object(open.pop().unwrap().1))
    }

    #[test]
    fn pieces_make_the_body_at_every_depth_and_run_wherever_it_is_cut() {
        let body = r#" {"0": {"name": "avg", "uprate": {"1": {"u": "9,}"}, "2" : {"u": "{"}},
            "fault": null, "resptime": [], "e": {}}, "1\"": {"uprate": {"3": {"u": [1, {}]}}}, "z": 1} "#;
        let whole: serde_json::Value = serde_json::from_str(body).unwrap();
        for depth in 1..=4 {
            for run_bytes in [0, 12, 40, 1 << 20] {
                for cut in (0..=body.len()).filter(|&cut| body.is_char_boundary(cut)) {
                    let pieces = [&body[..cut], &body[cut..]];
                    let value = rebuilt(&pieces, depth, run_bytes);
                    assert_eq!(
                        value.as_ref(),
                        Ok(&whole),
                        "depth {depth}, runs of {run_bytes}, cut at {cut}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_object_opens_into_runs_of_its_members() {
        let mut members = Members::from_pieces(bodies(&[r#"{"a": {"b": 1, "c": [2], "d": 3}, "e": 4}"#]))
            .expect("an object");
        let mut pieces = Vec::new();
        while let Some(piece) = members.next_piece(2, 8).unwrap() {
            pieces.push(format!("{piece:?}"));
        }
        assert_eq!(
            pieces,
            [
                r#"Open("\"a\"")"#,
                r#"Members("{\"b\": 1, \"c\": [2]}")"#,
                r#"Members("{ \"d\": 3}")"#,
                "Close",
                r#"Members("{ \"e\": 4}")"#,
            ]
        );
    }

    #[test]
    fn separators_amiss_in_an_opened_object_are_errors() {
        for (body, error) in [
            (r#"{"a": {"b": 1,}}"#, "comma without"),
            (r#"{"a": {,"b": 1}}"#, "comma without"),
            (r#"{"a": {"b": 1},}"#, "comma without"),
            (r#"{"a": {"b": 1} "c": 2}"#, "without a comma"),
            (r#"{"a": {"b": 1]}"#, "closes an object"),
            (r#"{: {"b": 1}}"#, "without a key"),
            (r#"{"a": {"b": 1}"#, "ends inside"),
            (r#"{"a": {"b": 1}} x"#, "trailing"),
        ] {
            let message = rebuilt(&[body], 3, 0).unwrap_err();
            assert!(message.contains(error), "{body}: {message}");
        }
    }

    #[test]
    fn what_is_not_a_whole_object_is_an_error() {
        assert_eq!(members(&["{}"]).unwrap(), Vec::<String>::new());
        assert_eq!(members(&["  { }  "]).unwrap(), Vec::<String>::new());
        assert_eq!(members(&["[1]"]).unwrap_err(), "not an object");
        assert_eq!(members(&["null"]).unwrap_err(), "not an object");
        for (body, error) in [
            (r#"{"a": 1"#, "ends inside"),
            (r#"{"a": 1,}"#, "comma without"),
            (r#"{,"a": 1}"#, "comma without"),
            (r#"{"a": 1} x"#, "trailing"),
            (r#"{"a": 1}}"#, "trailing"),
        ] {
            let message = members(&[body]).unwrap_err();
            assert!(message.contains(error), "{body}: {message}");
        }
    }
}
