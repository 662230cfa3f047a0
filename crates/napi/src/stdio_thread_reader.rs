//! `StdioThreadReader`: the class over the off-thread stdio reader
//! (the core's `stdio_thread`, woken through `crate::stdio_hub`), whose pieces are the very
//! layout `StdioFramer.push` returns (`out`, see the core's `boundary`), so
//! `lib/stdio/thread-read-buffer.cjs` reads them with the main-thread
//! reader's own code (`crate::js_out` builds both).
//!
//! Every reader's chunks are framed by the core's one pool of threads (or,
//! in the `tokio-reader` build, on napi-rs's tokio runtime), and every
//! reader of the environment hands its pieces over through the one hub
//! (`crate::stdio_hub`): `StdioThreadReader.hub(pump)` registers the
//! JavaScript that takes them, `StdioThreadReader.nextReady()` gives it the
//! next listed reader, whose `onready()` takes one piece (`take()`). The
//! hub reaches a reader only through a weak reference (it never keeps one
//! alive); `stop()` (and the class's finalizer, on garbage collection)
//! stops the reader.
//!
//! Panics: every method runs under `crate::napi_support::guarded`; a panic
//! of the framer is caught where it happens, the reader stops framing and
//! the next `push()`/`take()`/`drain()` throws the same "internal error" a
//! method would.

use std::sync::Arc;

use napi::bindgen_prelude::{Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::js_out::{int32_array, js_text, out_array, out_value};
use crate::napi_support::{chunk_bytes, guarded, internal_error, undefined};
use crate::options::thread_reader_options;
use crate::receiver::{self, STDIO_THREAD_READER};
use crate::stdio_hub::{self, Entry};
use mcp_ordered_dispatch_core::boundary;
use mcp_ordered_dispatch_core::stdio_thread::{self, Failure, Pushed, Reader, Ready};

/// The `tokio-reader` build: the readers' jobs as tasks on napi-rs's tokio
/// runtime instead of the core's pool (for the measurements in
/// docs/performance.md).
#[cfg(feature = "tokio-reader")]
struct Tokio;

#[cfg(feature = "tokio-reader")]
impl stdio_thread::Schedule for Tokio {
    fn schedule(&self, job: stdio_thread::Job) {
        napi::bindgen_prelude::spawn(async move {
            // One chunk a task: the next goes to the back of the runtime's queue.
            if let Some(next) = job.run() {
                Tokio.schedule(next);
            }
        });
    }
}

// ---------------------------------------------------------------------------
// the class

/// Frames a stdio byte stream off the main thread (see the module docs).
#[napi]
pub struct StdioThreadReader {
    reader: Reader,
    entry: Arc<Entry>,
    env: sys::napi_env,
}

impl Drop for StdioThreadReader {
    // On the JavaScript thread (napi-rs's finalizer): the hub's weak
    // reference goes; `reader` (dropped next) stops and drops its listing.
    fn drop(&mut self) {
        self.entry.finalize(self.env);
    }
}

/// The error a framer's panic off the main thread becomes.
fn thread_error(message: Failure) -> Error {
    internal_error("the stdio reader thread", &message)
}

#[napi]
impl StdioThreadReader {
    /// `new StdioThreadReader({ sdk?, maxMessageSize?, blankLines?, strict?, maxBatchBytes?, maxBatchMessages?, inlineMax? })`:
    /// the options of `StdioFramer` and the pieces' bounds
    /// (`crate::options::thread_reader_options`). `StdioThreadReader.hub()`
    /// must have been called in this environment.
    #[napi(constructor)]
    pub fn new(env: Env, this: This, options: Unknown) -> Result<Self> {
        let (env, this, options) = (env.raw(), this.object.raw(), options.raw());
        guarded("new StdioThreadReader()", || {
            // Reading the options may run getters: before anything is held.
            let (options, bounds, inline_max) = thread_reader_options(env, options)?;
            // Refuses a `this` that is already a native object
            // (`StdioThreadReader.call(aDispatcher, ...)`), before anything starts.
            receiver::tag_instance(env, this, &STDIO_THREAD_READER)?;
            let entry = Entry::new(env, this)?;
            let waker = match stdio_hub::listing(Arc::clone(&entry)) {
                Ok(listing) => Box::new(listing),
                Err(e) => {
                    entry.finalize(env);
                    return Err(e);
                }
            };
            #[cfg(not(feature = "tokio-reader"))]
            let started = Reader::start(options, bounds, inline_max, waker);
            #[cfg(feature = "tokio-reader")]
            let started = Ok::<_, std::io::Error>(Reader::start_on(
                options, bounds, inline_max, waker, &Tokio,
            ));
            match started {
                Ok(reader) => Ok(StdioThreadReader { reader, entry, env }),
                Err(e) => {
                    entry.finalize(env);
                    Err(Error::new(
                        Status::GenericFailure,
                        format!("mcp-ordered-dispatch: cannot start the stdio reader thread: {e}"),
                    ))
                }
            }
        })
    }

    /// `StdioThreadReader.hub(pump)`: registers this environment's pump, the
    /// function called (with no arguments) when readers have pieces ready;
    /// it takes them with `nextReady()`. Once per environment: a later call
    /// keeps the first pump and returns `false`.
    #[napi]
    pub fn hub(env: Env, pump: Unknown) -> Result<bool> {
        let (env, pump) = (env.raw(), pump.raw());
        guarded("StdioThreadReader.hub()", || stdio_hub::start(env, pump))
    }

    /// `StdioThreadReader.nextReady()`: the next reader with pieces ready
    /// (each listed once until its `take()` finds none), or `undefined` once
    /// there is none (the next reader ready calls the pump again).
    #[napi]
    pub fn next_ready(env: Env) -> Result<sys::napi_value> {
        let env = env.raw();
        guarded("StdioThreadReader.nextReady()", || {
            Ok(stdio_hub::next_ready(env))
        })
    }

    /// `StdioThreadReader.pool()`: `{ threads, max, readers }`: threads the
    /// pool started so far, the most it starts, readers alive in the process.
    #[napi]
    pub fn pool() -> PoolInfo {
        let pool = stdio_thread::Pool::get();
        PoolInfo {
            threads: pool.threads() as u32,
            max: pool.max() as u32,
            readers: stdio_thread::live_readers() as u32,
        }
    }

    /// `StdioThreadReader.backlogAll()`: bytes pushed and not yet taken, of
    /// every reader in the process (what `lib/stdio/hub.cjs` bounds overall).
    #[napi]
    pub fn backlog_all() -> f64 {
        stdio_thread::total_backlog() as f64
    }

    /// Queues `chunk` (a Buffer or Uint8Array; copied) for the pool and
    /// returns `undefined`; or, when nothing of this reader is queued and
    /// the chunk is small (or the reader is stopped), frames it here and
    /// returns its `out` (`undefined` when it completes no line).
    #[napi]
    pub fn push(&self, env: Env, chunk: Unknown) -> Result<sys::napi_value> {
        let (env, chunk) = (env.raw(), chunk.raw());
        guarded("StdioThreadReader.push()", || {
            // Borrowed until `push` returns, and no JavaScript runs meanwhile.
            let bytes = chunk_bytes(env, chunk, "StdioThreadReader.push(chunk)")?;
            match self.reader.push(bytes).map_err(thread_error)? {
                Pushed::Queued | Pushed::Framed(None) => Ok(undefined(env)),
                Pushed::Framed(Some(ready)) => to_out(env, ready),
            }
        })
    }

    /// The next piece's `out`, or `undefined` (and the reader listed again
    /// with the next piece) when none is ready.
    #[napi]
    pub fn take(&self, env: Env) -> Result<sys::napi_value> {
        let env = env.raw();
        guarded("StdioThreadReader.take()", || {
            match self.reader.take().map_err(thread_error)? {
                Some(ready) => to_out(env, ready),
                None => Ok(undefined(env)),
            }
        })
    }

    /// Frames, here, every chunk pushed and not yet framed; their pieces are
    /// then ready for `take()`.
    #[napi]
    pub fn drain(&self) -> Result<()> {
        guarded("StdioThreadReader.drain()", || {
            self.reader.drain().map_err(thread_error)
        })
    }

    /// Drops an incomplete line, after framing what was queued (the SDK's
    /// `ReadBuffer.clear()`).
    #[napi]
    pub fn clear(&self) -> Result<()> {
        guarded("StdioThreadReader.clear()", || {
            self.reader.clear();
            Ok(())
        })
    }

    /// Bytes of an incomplete line held (after framing what was queued).
    #[napi]
    pub fn buffered(&self) -> Result<f64> {
        guarded("StdioThreadReader.buffered()", || {
            Ok(self.reader.buffered() as f64)
        })
    }

    /// Bytes pushed and not yet taken (chunks not yet framed, message text
    /// of pieces not yet taken): what `lib/stdio/thread-read-buffer.cjs`
    /// pauses the stream on.
    #[napi]
    pub fn backlog(&self) -> f64 {
        self.reader.backlog() as f64
    }

    /// Asks to be listed (`onready`) once the backlog is at most `bytes`
    /// (JavaScript paused its stream), now if it already is.
    #[napi]
    pub fn wake_below(&self, bytes: f64) {
        self.reader.wake_below(bytes.max(0.0) as usize);
    }

    /// Whether the reader still frames off the main thread (not stopped).
    #[napi]
    pub fn running(&self) -> bool {
        self.reader.running()
    }

    /// Frames what is queued, then stops (no more listings). Idempotent;
    /// later chunks are framed on the calling thread.
    #[napi]
    pub fn stop(&self) -> Result<()> {
        guarded("StdioThreadReader.stop()", || {
            self.reader.stop();
            Ok(())
        })
    }
}

/// `StdioThreadReader.pool()`.
#[napi(object)]
pub struct PoolInfo {
    pub threads: u32,
    pub max: u32,
    pub readers: u32,
}

/// A piece's text of at least this many units is handed to V8 as an
/// external string (it owns the worker's buffer), not copied into the V8
/// heap: the main thread then does not copy the pieces of a stream of small
/// messages (64 KiB each by default), which took it about 6% of its time on
/// 200,000 small messages (`bench/thread-framing.mjs`, 1.10-1.12x against
/// 1.02-1.05x JSON.parse). A smaller piece (a round trip's few messages)
/// is copied, as the main-thread reader copies all but megabyte texts.
const PIECE_EXTERNAL_MIN: usize = 16 * 1024;

/// `out` of a piece: `[Int32Array entries, count, batch string | undefined, ...values]`
/// (`crate::js_out`; no `Array.prototype` setter runs).
fn to_out(env: sys::napi_env, ready: Ready) -> Result<sys::napi_value> {
    let count = ready.meta.len() / boundary::ENTRY_SIZE;
    let entries = int32_array(env, &ready.meta, ready.meta.len().max(1))?;
    let batch = match ready.text {
        None => undefined(env),
        Some(text) => js_text(env, text, PIECE_EXTERNAL_MIN)?,
    };
    let values = ready
        .values
        .iter()
        .map(|v| out_value(env, v))
        .collect::<Result<Vec<_>>>()?;
    out_array(env, entries, count, batch, &values)
}
