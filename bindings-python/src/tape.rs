//! A response body parsed into a flat list of nodes (a "tape") without Python: the parse runs
//! on a runtime thread, without the GIL, and the thread that holds the GIL only builds
//! objects from the tape (`convert::build`). For `AsyncClient` this takes the parse off the
//! event loop; for `Client` it lets other Python threads run while a body is parsed, and a
//! large body is parsed in chunks on another thread while the caller builds the objects of
//! the chunks already parsed ([`parse_chunked`]).

use std::fmt;
use std::sync::mpsc::SyncSender;

use bytes::Bytes;
use monapi::Piece;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// One JSON value or the start or end of a container. Strings are byte ranges: into the
/// body when the JSON text held them as they are, into the tape's own buffer when they
/// had escapes (then decoded).
#[derive(Clone, Copy, Debug)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// An integer beyond 64 bits, or `-0`, which Python's `json` reads as an exact `int`
    /// (serde_json gives a float for both): its digits, a byte range of the body.
    BigInt {
        start: u32,
        len: u32,
    },
    Str {
        start: u32,
        len: u32,
    },
    Unescaped {
        start: u32,
        len: u32,
    },
    /// Followed by the items, then `End`.
    Array,
    /// Followed by key/value pairs (keys are `Str` or `Unescaped`), then `End`.
    Object,
    End,
}

/// A parsed body, or one chunk of it: the nodes in document order, and the strings that had
/// escapes.
#[derive(Default)]
pub struct Tape {
    pub nodes: Vec<Node>,
    unescaped: Vec<u8>,
    /// The text its `Str` and `BigInt` nodes point into, when it is not the body (a member of
    /// a body read as it arrives).
    own_text: Option<Bytes>,
}

impl Tape {
    /// Parses a whole JSON text (one value, whitespace around it allowed). Numbers are as
    /// Python's `json` reads them (`float_roundtrip`); the text must be UTF-8.
    pub fn parse(body: &[u8]) -> Result<Tape, serde_json::Error> {
        if u32::try_from(body.len()).is_err() {
            return Err(de::Error::custom(
                "a response body of 4 GiB or more cannot be decoded",
            ));
        }
        // About one node per 8 bytes in the service's reports; more only costs a regrowth.
        let mut out = Output {
            tape: Tape {
                nodes: Vec::with_capacity(body.len() / 8 + 4),
                unescaped: Vec::new(),
                own_text: None,
            },
            chunks: None,
            chunk_nodes: usize::MAX,
            numbers: Numbers::default(),
        };
        run(body, &mut out)?;
        Ok(out.tape)
    }

    /// The text of a `Str`, `Unescaped` or `BigInt` node of this tape, which was parsed from
    /// `body`.
    pub fn text<'a>(&'a self, body: &'a [u8], node: Node) -> &'a [u8] {
        let body = self.own_text.as_deref().unwrap_or(body);
        match node {
            Node::Str { start, len } | Node::BigInt { start, len } => {
                &body[start as usize..(start + len) as usize]
            }
            Node::Unescaped { start, len } => &self.unescaped[start as usize..(start + len) as usize],
            _ => b"",
        }
    }
}

/// Nodes per chunk of [`parse_chunked`] for the client's responses (1 MiB of nodes).
pub const CHUNK_NODES: usize = 1 << 16;

/// Parses `body` as [`Tape::parse`] does, handing over chunks of at least `chunk_nodes`
/// nodes as they are ready; the last message is the last chunk or the error. A chunk ends
/// only after a complete array item or object value, so that an object key and a scalar
/// value after it are always in the same chunk. Stops early if the receiver is gone.
pub fn parse_chunked(body: &[u8], chunk_nodes: usize, chunks: SyncSender<Result<Tape, serde_json::Error>>) {
    let mut send = |tape| chunks.send(Ok(tape)).is_ok();
    let mut out = Output {
        tape: Tape::default(),
        chunks: Some(&mut send),
        chunk_nodes: chunk_nodes.max(1),
        numbers: Numbers::default(),
    };
    let message = if u32::try_from(body.len()).is_err() {
        Err(de::Error::custom(
            "a response body of 4 GiB or more cannot be decoded",
        ))
    } else {
        run(body, &mut out).map(|()| std::mem::take(&mut out.tape))
    };
    if out.chunks.is_some() {
        let _ = chunks.send(message);
    }
}

/// Parses an object body as it arrives, in the pieces `members` hands over for objects
/// ([`monapi::Members::next_object_piece`]), handing over chunks as [`parse_chunked`] does (the
/// last one included). A chunk holds the nodes of one piece at most, and the piece's
/// text, which its strings point into.
pub fn parse_members(
    members: &mut monapi::Members,
    chunk_nodes: usize,
    send: &mut dyn FnMut(Tape) -> bool,
) -> Result<(), serde_json::Error> {
    let gone = || de::Error::custom("nobody is waiting for the rest of the body");
    let mut out = Output {
        tape: Tape::default(),
        chunks: Some(send),
        chunk_nodes: chunk_nodes.max(1),
        numbers: Numbers::default(),
    };
    out.tape.nodes.push(Node::Object);
    while let Some(piece) = members.next_object_piece()? {
        let (text, opens) = match piece {
            Piece::Members(text) => (text, false),
            Piece::Open(key) => (key, true),
            Piece::Close => {
                out.tape.nodes.push(Node::End);
                continue;
            }
        };
        let text = Bytes::copy_from_slice(text.as_bytes());
        if !out.tape.nodes.is_empty() {
            let done = std::mem::take(&mut out.tape);
            if !out.chunks.as_mut().is_some_and(|send| send(done)) {
                return Err(gone());
            }
        }
        out.tape.own_text = Some(text.clone());
        out.numbers = Numbers::default();
        // The text is the piece's own UTF-8 (checked by `Members`).
        let mut deserializer = serde_json::Deserializer::from_slice(&text);
        let seed = Seed {
            out: &mut out,
            body: &text,
        };
        if opens {
            // The key, then the object whose members the next pieces bring.
            KeySeed(seed).deserialize(&mut deserializer)?;
            out.tape.nodes.push(Node::Object);
        } else {
            MemberSeed(seed).deserialize(&mut deserializer)?;
        }
        deserializer.end()?;
    }
    out.tape.nodes.push(Node::End);
    let last = std::mem::take(&mut out.tape);
    match out.chunks.map(|send| send(last)) {
        Some(true) => Ok(()),
        _ => Err(gone()),
    }
}

fn run(body: &[u8], out: &mut Output) -> Result<(), serde_json::Error> {
    // One UTF-8 check of the whole body instead of one per string; an invalid body goes
    // through the checking parser, which says where.
    match std::str::from_utf8(body) {
        Ok(text) => run_with(serde_json::Deserializer::from_str(text), out, body),
        Err(_) => run_with(serde_json::Deserializer::from_slice(body), out, body),
    }
}

fn run_with<'de, R: serde_json::de::Read<'de>>(
    mut deserializer: serde_json::Deserializer<R>,
    out: &mut Output,
    body: &[u8],
) -> Result<(), serde_json::Error> {
    Seed { out, body }.deserialize(&mut deserializer)?;
    deserializer.end()
}

/// Where the nodes go: one tape, or chunks sent as they fill up (`chunks` says whether the
/// receiver is still there).
struct Output<'s> {
    tape: Tape,
    chunks: Option<&'s mut dyn FnMut(Tape) -> bool>,
    chunk_nodes: usize,
    numbers: Numbers,
}

/// The numbers of the body in document order, found by a scan of the text that runs only as
/// far as a number whose text is needed (a float that may have been written as an integer),
/// so the whole body is scanned at most once.
#[derive(Default)]
struct Numbers {
    /// Numbers the parser has handed over so far.
    parsed: usize,
    /// Numbers the scan has passed, and where it stopped.
    scanned: usize,
    at: usize,
}

impl Numbers {
    /// The byte range of the number the parser handed over last.
    fn last(&mut self, body: &[u8]) -> Option<(usize, usize)> {
        let mut found = None;
        while self.scanned < self.parsed {
            found = Some(self.next(body)?);
        }
        found
    }

    /// The next number token after `at`, outside strings (the text before the parser's
    /// position is valid JSON: only strings can hold a `-` or a digit that is not a number).
    fn next(&mut self, body: &[u8]) -> Option<(usize, usize)> {
        let mut i = self.at;
        while i < body.len() {
            match body[i] {
                b'"' => {
                    i += 1;
                    while i < body.len() && body[i] != b'"' {
                        i += if body[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i < body.len() && matches!(body[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                    self.at = i;
                    self.scanned += 1;
                    return Some((start, i));
                }
                _ => i += 1,
            }
        }
        self.at = i;
        None
    }
}

impl Output<'_> {
    /// Called after each complete array item and object value: a chunk may end here.
    fn value_done<E: de::Error>(&mut self) -> Result<(), E> {
        if let Some(send) = &mut self.chunks {
            if self.tape.nodes.len() >= self.chunk_nodes {
                let chunk = std::mem::take(&mut self.tape);
                self.tape.own_text = chunk.own_text.clone();
                if !send(chunk) {
                    self.chunks = None;
                    return Err(E::custom("nobody is waiting for the rest of the body"));
                }
                self.tape.nodes.reserve(self.chunk_nodes + self.chunk_nodes / 4);
            }
        }
        Ok(())
    }
}

/// Appends the nodes of one value to the output, from `body`: a borrowed string's offset is
/// its address minus the body's.
struct Seed<'t, 's, 'b> {
    out: &'t mut Output<'s>,
    body: &'b [u8],
}

impl Seed<'_, '_, '_> {
    fn push(self, node: Node) {
        self.out.tape.nodes.push(node);
    }

    fn borrowed(self, v: &str) {
        let node = Node::Str {
            start: (v.as_ptr() as usize - self.body.as_ptr() as usize) as u32,
            len: v.len() as u32,
        };
        self.push(node);
    }

    fn owned(self, v: &str) {
        let unescaped = &mut self.out.tape.unescaped;
        let node = Node::Unescaped {
            start: unescaped.len() as u32,
            len: v.len() as u32,
        };
        unescaped.extend_from_slice(v.as_bytes());
        self.push(node);
    }

    fn number(self, node: Node) {
        self.out.numbers.parsed += 1;
        self.push(node);
    }

    /// A float, unless its text is an integer: serde_json gives a float for an integer beyond
    /// 64 bits and for `-0`, where Python's `json` gives an exact `int`. Only a float that is a
    /// whole number of 2^63 or more, or -0.0, can be one, so only then is its text looked at.
    fn float(self, v: f64) {
        let maybe_integer = v.fract() == 0.0 && (v.abs() >= 9.2e18 || (v == 0.0 && v.is_sign_negative()));
        if !maybe_integer {
            return self.number(Node::Float(v));
        }
        self.out.numbers.parsed += 1;
        let node = match self.out.numbers.last(self.body) {
            Some((start, end))
                if !self.body[start..end]
                    .iter()
                    .any(|b| matches!(b, b'.' | b'e' | b'E')) =>
            {
                Node::BigInt {
                    start: start as u32,
                    len: (end - start) as u32,
                }
            }
            _ => Node::Float(v),
        };
        self.push(node);
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.push(Node::Bool(v));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.number(Node::Int(v));
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.number(Node::UInt(v));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.float(v);
        Ok(())
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        self.borrowed(v);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.owned(v);
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.push(Node::Null);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Seed { out, body } = self;
        out.tape.nodes.push(Node::Array);
        while seq.next_element_seed(Seed { out: &mut *out, body })?.is_some() {
            out.value_done()?;
        }
        out.tape.nodes.push(Node::End);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let Seed { out, body } = self;
        out.tape.nodes.push(Node::Object);
        MemberSeed(Seed { out: &mut *out, body }).visit_map(map)?;
        out.tape.nodes.push(Node::End);
        Ok(())
    }
}

/// An object key: always a string.
struct KeySeed<'t, 's, 'b>(Seed<'t, 's, 'b>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        self.0.borrowed(v);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.owned(v);
        Ok(())
    }
}

/// The members of an object, its braces left out: every object's members, and a member of a
/// body read as it arrives (given as `{"key": value}`) within the object the body opened.
struct MemberSeed<'t, 's, 'b>(Seed<'t, 's, 'b>);

impl<'de> DeserializeSeed<'de> for MemberSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MemberSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object member")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Seed { out, body } = self.0;
        while map
            .next_key_seed(KeySeed(Seed { out: &mut *out, body }))?
            .is_some()
        {
            map.next_value_seed(Seed { out: &mut *out, body })?;
            out.value_done()?;
        }
        Ok(())
    }
}
