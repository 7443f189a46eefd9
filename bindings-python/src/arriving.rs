//! A large answer built into Python objects while it arrives (the blocking client's reports):
//! the core hands the members of its top-level object, each once arrived, to a decoder that
//! parses them into tape chunks on a blocking thread, and the caller, holding the GIL, builds
//! the objects of each chunk as it comes. On a slow link the call then costs about the
//! transfer of its bytes.
//!
//! An attempt that fails half-way (a connection cut, a corrupt gzip body) is repeated by the
//! core, and its decoder runs again from the start: the objects of the first attempt are
//! dropped. What the objects become is decided by the call's result: an answer that is an
//! error raises it; an answer the core reshaped (PHP's empty forms) is built again from the
//! whole body.

use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::Duration;

use monapi::{Client, Decoder, RawResponse, Request};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::decode::{build, Arriving, Current, Parsed, Source};
use crate::errors::{panic_error, to_pyerr};
use crate::runtime::runtime;
use crate::tape::{parse_members, Tape};
use crate::telemetry;

/// Nodes per chunk: small, because the objects of the last chunk are built after the last
/// byte arrives (128 KiB of nodes, against 1 MiB for a body at hand).
const CHUNK_NODES: usize = 1 << 13;

/// Chunks waiting for the builder: when it falls behind, the parse (and so the reading of the
/// answer) waits rather than holding more (4 MiB of nodes).
const QUEUED_CHUNKS: usize = 32;

/// What the caller receives, in this order for each attempt read as it arrives: `Begin`, the
/// chunks, `Ended`; then, once, `Done` with the call's result (and whether the body was read
/// as it arrived).
pub enum Piece {
    Begin,
    Chunk(Tape),
    Ended,
    Done(monapi::Result<(RawResponse, bool)>),
}

/// A call under way, its answer arriving.
pub struct Arrival {
    pieces: Receiver<Piece>,
    call: tokio::task::JoinHandle<()>,
    /// The piece that ended a build (a new attempt, the end of the call).
    interrupted_by: Option<Piece>,
}

impl Drop for Arrival {
    fn drop(&mut self) {
        // Given up (Ctrl-C, an error while building): the call stops; its decoder finds
        // nobody waiting and stops too.
        self.call.abort();
    }
}

impl Arrival {
    /// Starts `request` on the runtime, its body parsed as it arrives (and its spans recorded
    /// with the call that starts it, when that one is traced).
    pub fn start(client: Client, request: Request) -> Arrival {
        let (sender, pieces) = std::sync::mpsc::sync_channel(QUEUED_CHUNKS);
        let decoder = decoder(sender.clone());
        let call = runtime().spawn(telemetry::carry(async move {
            let done = client.execute_decoded(&request, &decoder).await;
            // The queue may be full: wait for room off the runtime's workers.
            let _ = tokio::task::spawn_blocking(move || sender.send(Piece::Done(done))).await;
        }));
        Arrival {
            pieces,
            call,
            interrupted_by: None,
        }
    }

    /// The next piece, waited for without the GIL; Ctrl-C and the like are raised.
    fn next(&mut self, py: Python<'_>) -> PyResult<Piece> {
        if let Some(piece) = self.interrupted_by.take() {
            return Ok(piece);
        }
        loop {
            // Moved in as `&mut`: a shared `Receiver` cannot cross threads.
            let pieces = &mut self.pieces;
            match py.detach(move || pieces.recv_timeout(Duration::from_millis(100))) {
                Ok(piece) => return Ok(piece),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                // The call's task ended without its result: it panicked.
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(panic_error(py, "the call stopped without a result"));
                }
            }
        }
    }
}

impl Arriving for Arrival {
    /// The next chunk of the attempt being built; any other piece interrupts the build (it is
    /// kept for [`into_py`](Self::into_py)) and gives `Ok(None)`.
    fn next_chunk(&mut self, py: Python<'_>) -> PyResult<Option<Tape>> {
        match self.next(py)? {
            Piece::Chunk(tape) => Ok(Some(tape)),
            other => {
                self.interrupted_by = Some(other);
                Ok(None)
            }
        }
    }

    /// Builds the answer's objects as its chunks come, and returns them once the call has
    /// ended well.
    fn into_py(mut self: Box<Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut built = None;
        loop {
            match self.next(py)? {
                Piece::Begin => {
                    built = None;
                    // Parse errors come with the call's result, not with the chunks.
                    let unused = |error: serde_json::Error| PyValueError::new_err(error.to_string());
                    let tape = Current::Chunk(Tape::default());
                    match build(py, &[], tape, Source::Arriving(&mut *self), &unused) {
                        Ok(value) => built = Some(value.unbind()),
                        // Interrupted: what was built belongs to an attempt that did not end.
                        Err(_) if self.interrupted_by.is_some() => {}
                        Err(error) => return Err(error),
                    }
                }
                // Pieces of an interrupted attempt.
                Piece::Chunk(_) | Piece::Ended => {}
                Piece::Done(Ok((raw, arrived))) => {
                    return match built {
                        Some(built) if arrived => Ok(built),
                        // Arrived fast, not an object, or reshaped: built whole (parsed on
                        // the runtime's blocking threads while this one builds).
                        _ => {
                            let parsed = {
                                let _runtime = runtime().enter();
                                Parsed::streamed(raw)
                            };
                            parsed.into_py(py)
                        }
                    };
                }
                Piece::Done(Err(error)) => return Err(to_pyerr(py, error)),
            }
        }
    }
}

/// The decoder of one call: each attempt read as it arrives announces itself, then sends its
/// chunks. A body that is not an object is not read here (`Ok(false)`): the caller builds it
/// whole, as every other answer.
fn decoder(sender: SyncSender<Piece>) -> Decoder<bool> {
    Decoder::new(false, |_whole| Ok(false)).with_members(move |members| {
        let gone = || <serde_json::Error as serde::de::Error>::custom("nobody is waiting for the body");
        sender.send(Piece::Begin).map_err(|_| gone())?;
        let mut send = |tape| sender.send(Piece::Chunk(tape)).is_ok();
        let parsed = parse_members(members, CHUNK_NODES, &mut send);
        sender.send(Piece::Ended).map_err(|_| gone())?;
        parsed.map(|()| true)
    })
}
