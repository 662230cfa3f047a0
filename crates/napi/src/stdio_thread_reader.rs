//! `StdioThreadReader`: the class over the off-thread stdio reader
//! (the core's `stdio_thread`, issue 13), whose pieces are the very layout
//! `StdioFramer.push` returns (`out`, see the core's `boundary`), so
//! `lib/stdio-thread.cjs` reads them with the main-thread reader's own code
//! (`crate::js_out` builds both).
//!
//! The worker wakes JavaScript through a threadsafe function: the
//! JavaScript it wakes (`onready`) takes one piece (`take()`) at a time.
//! The threadsafe function is unref'd from the start (it never keeps the
//! process alive) and reaches the JavaScript object only through a weak
//! reference (it never keeps the reader alive); `stop()` (and the class's
//! finalizer, on garbage collection) stops and joins the worker and
//! releases it.
//!
//! Panics: every method runs under `crate::napi_support::guarded`; the
//! worker catches a panic of the framer, stops framing and the next
//! `push()`/`take()`/`drain()` throws the same "internal error" a method
//! would.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::{Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::js_out::{int32_array, js_text, out_array, out_value};
use crate::napi_support::{chunk_bytes, guarded, internal_error, js_string, type_of, undefined};
use crate::options::thread_reader_options;
use crate::raw::{self, OrFail};
use crate::receiver::{self, STDIO_THREAD_READER};
use mcp_ordered_dispatch_core::boundary;
use mcp_ordered_dispatch_core::stdio_thread::{Failure, Pushed, Reader, Ready, Wake};

/// The threadsafe function: the worker's [`Wake`] (the handle is
/// thread-safe by N-API's contract), released when dropped, unless N-API
/// destroyed it first (`gone`: set by its finalizer, which also runs when
/// the environment is torn down, possibly before the reader's own finalizer).
struct Tsfn {
    handle: sys::napi_threadsafe_function,
    gone: Arc<AtomicBool>,
}
// SAFETY: N-API documents napi_call_threadsafe_function and
// napi_release_threadsafe_function as callable from any thread.
unsafe impl Send for Tsfn {}

impl Wake for Tsfn {
    fn wake(&self) -> bool {
        if self.gone.load(Ordering::Acquire) {
            return false;
        }
        // SAFETY: not `gone`: N-API has not destroyed it, and only `drop`
        // releases it.
        unsafe { raw::call_threadsafe_function(self.handle) }.is_ok()
    }
}

impl Drop for Tsfn {
    fn drop(&mut self) {
        if self.gone.load(Ordering::Acquire) {
            return;
        }
        // SAFETY: as in `wake`. A failure (the env is going away) leaves it to
        // N-API's teardown, which then finalizes it.
        let _ = unsafe { raw::release_threadsafe_function(self.handle) };
    }
}

/// The threadsafe function's context: a weak reference to the JavaScript
/// reader (deleted by the finalizer, on the main thread).
struct Context {
    weak: sys::napi_ref,
    /// Set when N-API destroys the threadsafe function (see [`Tsfn`]).
    gone: Arc<AtomicBool>,
}

/// On the main thread, for each threadsafe-function call: `reader.onready()`.
unsafe extern "C" fn call_js(
    env: sys::napi_env,
    _js_callback: sys::napi_value,
    context: *mut std::ffi::c_void,
    _data: *mut std::ffi::c_void,
) {
    if env.is_null() || context.is_null() {
        return; // the environment is going away
    }
    // SAFETY: `context` is the `Context` this threadsafe function was made
    // with, freed only by `finalize_context`, after the last call.
    let weak = unsafe { (*(context as *const Context)).weak };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let reader = match raw::get_reference_value(env, weak) {
            Ok(r) if !r.is_null() => r,
            _ => return, // collected
        };
        let Ok(callback) = raw::get_named_property(env, reader, c"onready") else {
            return; // its getter threw: that exception stays pending
        };
        if type_of(env, callback) != sys::ValueType::napi_function {
            return;
        }
        // An exception it throws stays pending: Node reports it as uncaught,
        // as it would one thrown by a 'data' listener.
        let _ = raw::call_function(env, reader, callback, &[]);
    }));
}

unsafe extern "C" fn finalize_context(
    env: sys::napi_env,
    data: *mut std::ffi::c_void,
    _hint: *mut std::ffi::c_void,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `data` is the context leaked by the constructor, and N-API
        // calls this once, after the last `call_js`.
        let context = unsafe { Box::from_raw(data as *mut Context) };
        context.gone.store(true, Ordering::Release);
        if !env.is_null() {
            // Nothing to do about a failure while the env is torn down.
            let _ = raw::delete_reference(env, context.weak);
        }
    }));
}

// ---------------------------------------------------------------------------
// the class

/// Frames a stdio byte stream on a worker thread (see the module docs).
#[napi]
pub struct StdioThreadReader {
    reader: Reader,
}

/// The error a worker's panic becomes.
fn thread_error(message: Failure) -> Error {
    internal_error("the stdio reader thread", &message)
}

#[napi]
impl StdioThreadReader {
    /// `new StdioThreadReader({ sdk?, maxMessageSize?, blankLines?, strict?, maxBatchBytes?, maxBatchMessages?, inlineMax? })`:
    /// the options of `StdioFramer` and the pieces' bounds
    /// (`crate::options::thread_reader_options`).
    #[napi(constructor)]
    pub fn new(env: Env, this: This, options: Unknown) -> Result<Self> {
        let (env, this, options) = (env.raw(), this.object.raw(), options.raw());
        guarded("new StdioThreadReader()", || {
            // Reading the options may run getters: before anything is held.
            let (options, bounds, inline_max) = thread_reader_options(env, options)?;
            // Refuses a `this` that is already a native object
            // (`StdioThreadReader.call(aDispatcher, ...)`), before any thread starts.
            receiver::tag_instance(env, this, &STDIO_THREAD_READER)?;
            // The threadsafe function: no JavaScript function of its own (it
            // would keep the reader alive); its context reaches the reader
            // through a weak reference.
            let weak = raw::create_reference(env, this, 0).or_fail("referencing the reader")?;
            let gone = Arc::new(AtomicBool::new(false));
            let context = Box::into_raw(Box::new(Context {
                weak,
                gone: Arc::clone(&gone),
            }));
            let name = js_string(env, "mcp-ordered-dispatch stdio reader");
            // SAFETY: `context` stays alive until `finalize_context` frees it.
            let made = unsafe {
                raw::create_threadsafe_function(
                    env,
                    name,
                    context.cast(),
                    Some(finalize_context),
                    Some(call_js),
                )
            };
            let tsfn = match made {
                Ok(tsfn) => tsfn,
                Err(failed) => {
                    // SAFETY: not handed to N-API.
                    let context = unsafe { Box::from_raw(context) };
                    let _ = raw::delete_reference(env, context.weak);
                    return Err(failed.error("creating the threadsafe function"));
                }
            };
            // Never keeps the process alive (the stream does while it is
            // open). It cannot fail for a threadsafe function just made; if
            // it did, the reader would keep the process alive until stopped.
            let _ = raw::unref_threadsafe_function(env, tsfn);
            let waker = Box::new(Tsfn { handle: tsfn, gone });
            #[cfg(not(feature = "tokio-reader"))]
            let started = Reader::start(options, bounds, inline_max, waker);
            #[cfg(feature = "tokio-reader")]
            let started = Reader::start_task(options, bounds, inline_max, waker, |task| {
                napi::bindgen_prelude::spawn(task);
            });
            let reader = started.map_err(|e| {
                Error::new(
                    Status::GenericFailure,
                    format!("mcp-ordered-dispatch: cannot start the stdio reader thread: {e}"),
                )
            })?;
            Ok(StdioThreadReader { reader })
        })
    }

    /// Hands `chunk` (a Buffer or Uint8Array; copied) to the worker and
    /// returns `undefined`; or, when the worker is idle with nothing queued
    /// and the chunk is small (or the reader is stopped), frames it here and
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

    /// The next piece's `out`, or `undefined` (and the next threadsafe call
    /// re-armed) when none is ready.
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

    /// Blocks until the worker has framed every chunk pushed; their pieces
    /// are then ready for `take()`.
    #[napi]
    pub fn drain(&self) -> Result<()> {
        guarded("StdioThreadReader.drain()", || {
            self.reader.drain().map_err(thread_error)
        })
    }

    /// Drops an incomplete line, after the worker framed what it had (the
    /// SDK's `ReadBuffer.clear()`).
    #[napi]
    pub fn clear(&self) -> Result<()> {
        guarded("StdioThreadReader.clear()", || {
            self.reader.clear();
            Ok(())
        })
    }

    /// Bytes of an incomplete line held (after the worker framed what it had).
    #[napi]
    pub fn buffered(&self) -> Result<f64> {
        guarded("StdioThreadReader.buffered()", || {
            Ok(self.reader.buffered() as f64)
        })
    }

    /// Bytes pushed and not yet taken (chunks not yet framed, message text
    /// of pieces not yet taken): what `lib/stdio-thread.cjs` pauses the
    /// stream on.
    #[napi]
    pub fn backlog(&self) -> f64 {
        self.reader.backlog() as f64
    }

    /// Asks for a wake-up (`onready`) once the backlog is at most `bytes`
    /// (JavaScript paused its stream), now if it already is.
    #[napi]
    pub fn wake_below(&self, bytes: f64) {
        self.reader.wake_below(bytes.max(0.0) as usize);
    }

    /// Whether the worker still runs.
    #[napi]
    pub fn running(&self) -> bool {
        self.reader.running()
    }

    /// Frames what is queued, then stops and joins the worker and releases
    /// the threadsafe function. Idempotent; later chunks are framed on the
    /// calling thread.
    #[napi]
    pub fn stop(&self) -> Result<()> {
        guarded("StdioThreadReader.stop()", || {
            self.reader.stop();
            Ok(())
        })
    }
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
