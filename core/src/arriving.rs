//! Reading an answer while it arrives: a [`Decoder`] is handed the members of the answer's
//! top-level object one by one, each as soon as its last byte has come, so that a large call
//! on a slow link costs about the transfer of its bytes rather than the transfer and then the
//! decoding. Each member is read by serde_json from a whole text, at its full speed.

use std::sync::Arc;

use bytes::Bytes;
use serde::de::DeserializeOwned;

/// Pieces of a body waiting for its decoder: when the decoder falls behind, reading the
/// answer waits rather than holding more.
const DECODER_QUEUE: usize = 64;
/// How much of a body shows how fast it arrives.
const PROBE_BYTES: usize = 2 << 20;
/// Below this rate of arrival (decompressed bytes per second) a body is read member by member
/// as it arrives; above it, whole once arrived: finding the members is a pass over every byte,
/// which costs more than it saves when the bytes come as fast as they can be decoded (see
/// "Decoded as it arrives" in bench/RESULTS.md).
const MEMBERS_BELOW_BYTES_PER_SECOND: f64 = 100e6;

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
    pub fn read(&self, body: &[u8]) -> serde_json::Result<T> {
        (self.whole)(body)
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
        let (sender, coming) = tokio::sync::mpsc::channel(DECODER_QUEUE);
        let decoding = tokio::task::spawn_blocking(move || {
            let mut members = Members::new(coming);
            if !members.arrives_slowly() || !members.is_object() {
                return None;
            }
            Some(each(&mut members))
        });
        Some(Feed {
            sender: Some(sender),
            decoding,
        })
    }
}

/// A decoder beside the reading of one answer, on tokio's blocking pool rather than on the
/// task that reads: a bulk call polls all its fetches from one task, so decoded in place its
/// answers would be decoded one after the other on one thread; aside, they are decoded on every
/// core while the workers go on receiving. When the call is cancelled the decoder sees the
/// body end, fails, and its result is dropped.
pub(crate) struct Feed<T> {
    sender: Option<tokio::sync::mpsc::Sender<Bytes>>,
    /// None: the body is not an object, to be read whole.
    decoding: tokio::task::JoinHandle<Option<serde_json::Result<T>>>,
}

impl<T> Feed<T> {
    pub(crate) async fn push(&mut self, piece: Bytes) {
        if let Some(sender) = &self.sender
            && sender.send(piece).await.is_err()
        {
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

/// The members of an answer's top-level object as it arrives, each handed over as a JSON
/// object of its own, `{"key": value}`, once it has arrived whole. The text is the body's own
/// bytes: the comma before a member and the one after it stand in for the braces.
pub struct Members {
    coming: tokio::sync::mpsc::Receiver<Bytes>,
    /// The body from the start of the current member (its `{` or `,`) on.
    text: Vec<u8>,
    /// Where the scan is in `text`, and what it is inside of.
    scan: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Where the member handed over last ends (and the next one starts).
    end: Option<usize>,
    /// The current member follows a comma (rather than the object's `{`).
    after_comma: bool,
    /// The object's closing brace was read.
    closed: bool,
}

impl Members {
    fn new(coming: tokio::sync::mpsc::Receiver<Bytes>) -> Members {
        Members {
            coming,
            text: Vec::new(),
            scan: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            end: None,
            after_comma: false,
            closed: false,
        }
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
            Some(piece) => {
                self.text.extend_from_slice(&piece);
                true
            }
            None => false,
        }
    }

    /// The next member as `{"key": value}`; None after the last, once the rest of the body
    /// is found blank. An error when the body ends inside the object or holds more after it.
    pub fn next_member(&mut self) -> serde_json::Result<Option<&str>> {
        if let Some(end) = self.end.take() {
            // The separator after the last member opens this one.
            self.text.drain(..end);
            self.scan -= end;
            self.text[0] = b'{';
        }
        if self.closed {
            return self.rest_is_blank().map(|()| None);
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
                match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self
                            .depth
                            .checked_sub(1)
                            .ok_or_else(|| malformed("a bracket closes nothing"))?;
                        if self.depth == 0 {
                            self.closed = true;
                            return self.member(self.scan);
                        }
                    }
                    b',' if self.depth == 1 => return self.member(self.scan),
                    _ => {}
                }
                self.scan += 1;
            }
            if !self.more() {
                return Err(malformed("the body ends inside its object"));
            }
        }
    }

    /// The member from the start of the text to the separator at `at`.
    fn member(&mut self, at: usize) -> serde_json::Result<Option<&str>> {
        self.scan = at + 1;
        if self.text[1..at].iter().all(u8::is_ascii_whitespace) {
            // `{}`, or a comma with nothing before it (`{,` `,,` `,}`).
            return if self.closed && !self.after_comma {
                self.rest_is_blank().map(|()| None)
            } else {
                Err(malformed("a comma without a member"))
            };
        }
        self.after_comma = self.text[at] == b',';
        self.text[at] = b'}';
        self.end = Some(at);
        let member = std::str::from_utf8(&self.text[..=at])
            .map_err(|e| malformed(&format!("the body is not UTF-8 text: {e}")))?;
        Ok(Some(member))
    }

    /// Reads the rest of the body, which must be blank.
    fn rest_is_blank(&mut self) -> serde_json::Result<()> {
        let end = self.end.take().map_or(self.scan, |end| end + 1);
        loop {
            if !self.text[end.min(self.text.len())..]
                .iter()
                .all(u8::is_ascii_whitespace)
            {
                return Err(malformed("trailing characters after the object"));
            }
            self.text.truncate(end.min(self.text.len()));
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

    /// The members of `pieces` (the body cut there), or the error.
    fn members(pieces: &[&str]) -> Result<Vec<String>, String> {
        let (sender, coming) = tokio::sync::mpsc::channel(pieces.len() + 1);
        for piece in pieces {
            sender.try_send(Bytes::from(piece.to_string())).unwrap();
        }
        drop(sender);
        let mut members = Members::new(coming);
        if !members.is_object() {
            return Err("not an object".into());
        }
        let mut out = Vec::new();
        while let Some(member) = members.next_member().map_err(|e| e.to_string())? {
            let _: serde_json::Value = serde_json::from_str(member).map_err(|e| e.to_string())?;
            out.push(member.to_string());
        }
        Ok(out)
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
