//! Answers handed to JavaScript: the body as one string, which the TypeScript layer hands to
//! `JSON.parse` (V8's parser is much faster than building the objects field by field through
//! N-API); or, for the large reports, the body in pieces as it arrives, which the layer parses
//! as they come (`ts/lib/arriving.ts`), so that on a slow link the objects are ready about
//! when the last byte is. At most [`PIECES_QUEUED`] pieces wait for JavaScript: when its
//! thread is busy, the reading of the answer waits too.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use monapi::{Client, Decoder, Piece, RawResponse, Request};
use napi::bindgen_prelude::{Either, Function, Status, ToNapiValue};
use napi::sys;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};

use crate::errors::Result;

/// A body that reaches JavaScript as one string, without an intermediate copy.
pub struct JsonText {
    raw: RawResponse,
    ascii: bool,
}

impl JsonText {
    pub fn new(raw: RawResponse) -> Result<JsonText> {
        let ascii = raw.body().is_ascii();
        if !ascii && std::str::from_utf8(raw.body()).is_err() {
            return Err(raw.decode_error("the answer is not valid UTF-8").into());
        }
        Ok(JsonText { raw, ascii })
    }
}

impl ToNapiValue for JsonText {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let body = val.raw.body();
        let mut out = std::ptr::null_mut();
        // ASCII (most answers) is copied as Latin-1, which V8 takes without decoding.
        let status = if val.ascii {
            sys::napi_create_string_latin1(env, body.as_ptr().cast(), body.len() as isize, &mut out)
        } else {
            sys::napi_create_string_utf8(env, body.as_ptr().cast(), body.len() as isize, &mut out)
        };
        napi::check_status!(status, "cannot create the answer string")?;
        Ok(out)
    }
}

/// Runs `request`; its body as one string.
pub async fn execute(client: Client, request: Request) -> Result<JsonText> {
    JsonText::new(client.execute(&request).await?)
}

/// Pieces of a body (runs of about 64 KiB) that may wait for the JavaScript thread. A piece
/// beyond them waits in the decoder, which then stops taking the body, and the core stops
/// reading the answer (its own bounded queue, `arriving.rs`): a busy JavaScript thread holds
/// up the transfer rather than the whole body piling up in memory.
const PIECES_QUEUED: usize = 16;

/// Where the pieces of a body go: the layer's `Arrival.onPiece`. Strong (unlike the logger's
/// and the token listener's), so that the process waits for the pieces of a call under way;
/// it is released with the call. Its queue holds [`PIECES_QUEUED`] pieces.
pub type PieceSink = ThreadsafeFunction<String, (), String, Status, false, false, PIECES_QUEUED>;

/// The sink of `on_piece` (on the JavaScript thread, before the call starts).
pub fn piece_sink(on_piece: Option<Function<String, ()>>) -> napi::Result<Option<PieceSink>> {
    on_piece
        .map(|function| {
            function
                .build_threadsafe_function::<String>()
                .callee_handled::<false>()
                .weak::<false>()
                .max_queue_size::<PIECES_QUEUED>()
                .build()
        })
        .transpose()
}

/// Runs `request`, its body handed to `sink` in pieces as it arrives when it comes slowly,
/// each a kind letter and a text: `b` an attempt begins (a retry starts again), `m` a run of
/// members of the object open (`{...}`, checked to be JSON), `o` an object opens under the key
/// that follows (JSON text), `c` it closes, `e` the attempt's last piece. Resolves with the
/// number of the attempt whose pieces stand (the last to begin), or with the body to parse
/// whole: it came fast, is not an object, or was reshaped by the core.
pub async fn execute_arriving(
    client: Client,
    request: Request,
    sink: Option<PieceSink>,
) -> Result<Either<JsonText, u32>> {
    let Some(sink) = sink else {
        return Ok(Either::A(execute(client, request).await?));
    };
    let attempts = Arc::new(AtomicU32::new(0));
    let begun = attempts.clone();
    let decoder = Decoder::new(false, |_| Ok(false)).with_members(move |members| {
        begun.fetch_add(1, Ordering::SeqCst);
        // Waits while the queue is full: the decoder runs on tokio's blocking pool (the core's
        // `Decoder`), so waiting here holds up no task, only this body.
        let send = |piece: String| match sink.call(piece, ThreadsafeFunctionCallMode::Blocking) {
            Status::Ok => Ok(()),
            // JavaScript is going away: the body is read whole, for nothing.
            _ => Err(<serde_json::Error as serde::de::Error>::custom(
                "JavaScript takes no more pieces",
            )),
        };
        send("b".into())?;
        while let Some(piece) = members.next_object_piece()? {
            // What JSON.parse is handed is JSON: what is not is read whole, failing there.
            send(match piece {
                Piece::Members(text) => {
                    serde_json::from_str::<serde::de::IgnoredAny>(text)?;
                    format!("m{text}")
                }
                Piece::Open(key) => {
                    serde_json::from_str::<String>(key)?;
                    format!("o{key}")
                }
                Piece::Close => "c".into(),
            })?;
        }
        send("e".into())?;
        Ok(true)
    });
    let (raw, arrived) = client.execute_decoded(&request, &decoder).await?;
    Ok(if arrived {
        Either::B(attempts.load(Ordering::SeqCst))
    } else {
        Either::A(JsonText::new(raw)?)
    })
}
