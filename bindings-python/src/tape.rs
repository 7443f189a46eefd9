//! A response body parsed into a flat list of nodes (a "tape") without Python: the parse runs
//! on a runtime thread, without the GIL, and the thread that holds the GIL only builds
//! objects from the tape (`convert::build`). For `AsyncClient` this takes the parse off the
//! event loop; for `Client` it lets other Python threads run while a body is parsed, and a
//! large body is parsed in chunks on another thread while the caller builds the objects of
//! the chunks already parsed ([`parse_chunked`]).

use std::fmt;
use std::sync::mpsc::SyncSender;

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
            },
            chunks: None,
            chunk_nodes: usize::MAX,
        };
        run(body, &mut out)?;
        Ok(out.tape)
    }

    /// The text of a `Str` or `Unescaped` node of this tape, which was parsed from `body`.
    pub fn text<'a>(&'a self, body: &'a [u8], node: Node) -> &'a [u8] {
        match node {
            Node::Str { start, len } => &body[start as usize..(start + len) as usize],
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
    let mut out = Output {
        tape: Tape::default(),
        chunks: Some(chunks),
        chunk_nodes: chunk_nodes.max(1),
    };
    let message = if u32::try_from(body.len()).is_err() {
        Err(de::Error::custom(
            "a response body of 4 GiB or more cannot be decoded",
        ))
    } else {
        run(body, &mut out).map(|()| std::mem::take(&mut out.tape))
    };
    if let Some(chunks) = out.chunks {
        let _ = chunks.send(message);
    }
}

fn run(body: &[u8], out: &mut Output) -> Result<(), serde_json::Error> {
    let base = body.as_ptr() as usize;
    // One UTF-8 check of the whole body instead of one per string; an invalid body goes
    // through the checking parser, which says where.
    match std::str::from_utf8(body) {
        Ok(text) => run_with(serde_json::Deserializer::from_str(text), out, base),
        Err(_) => run_with(serde_json::Deserializer::from_slice(body), out, base),
    }
}

fn run_with<'de, R: serde_json::de::Read<'de>>(
    mut deserializer: serde_json::Deserializer<R>,
    out: &mut Output,
    base: usize,
) -> Result<(), serde_json::Error> {
    Seed { out, base }.deserialize(&mut deserializer)?;
    deserializer.end()
}

/// Where the nodes go: one tape, or chunks sent as they fill up.
struct Output {
    tape: Tape,
    chunks: Option<SyncSender<Result<Tape, serde_json::Error>>>,
    chunk_nodes: usize,
}

impl Output {
    /// Called after each complete array item and object value: a chunk may end here.
    fn value_done<E: de::Error>(&mut self) -> Result<(), E> {
        if let Some(chunks) = &self.chunks {
            if self.tape.nodes.len() >= self.chunk_nodes {
                let chunk = std::mem::take(&mut self.tape);
                if chunks.send(Ok(chunk)).is_err() {
                    self.chunks = None;
                    return Err(E::custom("nobody is waiting for the rest of the body"));
                }
                self.tape.nodes.reserve(self.chunk_nodes + self.chunk_nodes / 4);
            }
        }
        Ok(())
    }
}

/// Appends the nodes of one value to the output. `base` is the body's address: a borrowed
/// string's offset is its address minus `base`.
struct Seed<'t> {
    out: &'t mut Output,
    base: usize,
}

impl Seed<'_> {
    fn push(self, node: Node) {
        self.out.tape.nodes.push(node);
    }

    fn borrowed(self, v: &str) {
        let node = Node::Str {
            start: (v.as_ptr() as usize - self.base) as u32,
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
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.push(Node::Bool(v));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.push(Node::Int(v));
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.push(Node::UInt(v));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.push(Node::Float(v));
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
        let Seed { out, base } = self;
        out.tape.nodes.push(Node::Array);
        while seq.next_element_seed(Seed { out: &mut *out, base })?.is_some() {
            out.value_done()?;
        }
        out.tape.nodes.push(Node::End);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Seed { out, base } = self;
        out.tape.nodes.push(Node::Object);
        while map
            .next_key_seed(KeySeed(Seed { out: &mut *out, base }))?
            .is_some()
        {
            map.next_value_seed(Seed { out: &mut *out, base })?;
            out.value_done()?;
        }
        out.tape.nodes.push(Node::End);
        Ok(())
    }
}

/// An object key: always a string.
struct KeySeed<'t>(Seed<'t>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
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
