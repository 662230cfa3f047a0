//! `StdioThreadReader`: stdio framing off the main thread (issue 13).
//!
//! A worker thread owns a core [`Framer`]; JavaScript hands it each chunk
//! (copied: no pointer into a JavaScript buffer outlives the call), the
//! worker frames, validates and classifies it, and queues the lines as
//! *pieces*: the very layout `StdioFramer.push` returns (`out`, see
//! `src/boundary.rs`), so `lib/stdio-thread.cjs` reads them with the main-
//! thread reader's own code. Each piece is bounded by bytes of message text
//! and by count (a single larger message makes a piece of its own), its text
//! already transcoded to Latin-1 or UTF-16 by the worker, so that the main
//! thread only copies it into a string and `JSON.parse`s it.
//!
//! The hand-over, and why it is bounded: the worker calls a threadsafe
//! function only when no call is outstanding ("armed"); the JavaScript it
//! wakes takes ONE piece (`take()`), delivers it, and asks for the next one
//! from `setImmediate`, so the event loop gets a turn (timers, I/O) between
//! pieces. `take()` disarms when the queue is empty. (The earlier attempt
//! handed every queued batch over in one call: a 210-370 ms stall.)
//!
//! Wire order: one worker per reader, chunks framed in the order pushed,
//! pieces taken in the order made; `push` frames a chunk on the calling
//! thread itself only when the worker is idle with nothing queued either
//! way (so nothing can overtake it): small chunks, where the hop would cost
//! more latency than the framing (a single request's round trip).
//! `drain()` blocks until the worker has framed every chunk pushed (the
//! stream ended, the transport closes, the SDK's size rule throws), so that
//! nothing read is lost or reordered.
//!
//! Lifetime: `stop()` (and the class's finalizer, on garbage collection)
//! stops and joins the worker and releases the threadsafe function, which is
//! unref'd from the start (it never keeps the process alive) and reaches the
//! JavaScript object only through a weak reference (it never keeps the
//! reader alive). After `stop()` every chunk is framed on the calling thread.
//!
//! Panics: every method runs under `crate::napi_support::guarded`; the
//! worker catches a panic of the framer, stops framing and the next
//! `take()`/`drain()` throws the same "internal error" a method would.

use std::collections::VecDeque;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use napi::bindgen_prelude::{Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::boundary;
use crate::core::framer::{utf16_len, BlankLines, FrameError, FrameSink, Line, LineOutcome};
use crate::core::{Framer, FramerOptions, Profile};
use crate::napi_support::{check, guarded, invalid_arg, panic_message, OK};
use crate::receiver::{self, Class};

// ---------------------------------------------------------------------------
// pieces (no N-API)

/// A value of `out[OUT_VALUES..]`: a bad line's fields.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Number(f64),
}

/// The batch text, transcoded for the string V8 makes of it.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchText {
    None,
    /// Every character below U+0100 (ASCII included): one byte each.
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

/// Lines framed and not yet handed over, in the layout of `out`.
#[derive(Debug, Default)]
pub struct Piece {
    /// Entries `[code, slot, start, end]` (`src/boundary.rs`).
    pub meta: Vec<i32>,
    /// The messages as the UTF-8 text of one JSON array, without its `]`.
    pub batch: Vec<u8>,
    /// UTF-16 length of `batch`.
    units: usize,
    pub values: Vec<Value>,
    /// Entries so far.
    pub lines: usize,
}

/// A piece ready for JavaScript.
#[derive(Debug)]
pub struct Ready {
    /// Bytes of message text it carries (for the backlog count).
    pub bytes: usize,
    pub meta: Vec<i32>,
    pub text: BatchText,
    pub values: Vec<Value>,
}

impl Piece {
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    fn entry(&mut self, [code, slot, start, end]: [i32; boundary::ENTRY_SIZE]) {
        let mut fields = [0; boundary::ENTRY_SIZE];
        fields[boundary::ENTRY_CODE] = code;
        fields[boundary::ENTRY_SLOT] = slot;
        fields[boundary::ENTRY_START] = start;
        fields[boundary::ENTRY_END] = end;
        self.meta.extend_from_slice(&fields);
        self.lines += 1;
    }

    fn message(&mut self, code: i32, text: &str, units: usize) {
        self.batch
            .push(if self.batch.is_empty() { b'[' } else { b',' });
        self.batch.extend_from_slice(text.as_bytes());
        let start = self.units + 1;
        self.units = start + units;
        self.entry([
            code,
            boundary::OUT_BATCH as i32,
            start as i32,
            self.units as i32,
        ]);
    }

    fn error(&mut self, error: &FrameError) {
        let slot = (boundary::OUT_VALUES + self.values.len()) as i32;
        let mut fields = vec![Value::Number(0.0); boundary::BAD_TEXT];
        fields[boundary::BAD_MESSAGE] = Value::Text(error.to_string());
        fields[boundary::BAD_OFFSET] = Value::Number(error.offset as f64);
        fields[boundary::BAD_LINE] = Value::Number(error.line as f64);
        fields[boundary::BAD_REASON] = Value::Text(error.kind.code().to_owned());
        let has_text = match &error.text {
            Some(text) => {
                fields.push(Value::Text(text.clone()));
                1
            }
            None => 0,
        };
        self.values.extend(fields);
        self.entry([boundary::CODE_BAD_LINE, slot, has_text, 0]);
    }

    /// Closes the batch and transcodes it (ASCII and Latin-1 text to one
    /// byte a character, anything else to UTF-16), so that the main thread
    /// only copies it into a string.
    pub fn finish(mut self) -> Ready {
        let bytes = self.batch.len();
        let text = if self.batch.is_empty() {
            BatchText::None
        } else {
            self.batch.push(b']');
            let max = self.batch.iter().copied().max().unwrap_or(0);
            if max < 0x80 {
                BatchText::Latin1(self.batch)
            } else {
                // Valid UTF-8: every message passed `str` validation.
                let s = String::from_utf8(self.batch)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                if max < 0xC4 {
                    BatchText::Latin1(s.chars().map(|c| c as u32 as u8).collect())
                } else {
                    BatchText::Utf16(s.encode_utf16().collect())
                }
            }
        };
        Ready {
            bytes,
            meta: self.meta,
            text,
            values: self.values,
        }
    }
}

/// How much one hand-over may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Bytes of message text; a message larger than this is a piece of its own.
    pub max_bytes: usize,
    /// Lines (messages and bad lines).
    pub max_lines: usize,
}

/// Collects lines into pieces of at most [`Bounds`].
pub struct PieceSink {
    bounds: Bounds,
    /// The piece being filled.
    pub current: Piece,
    /// Full pieces, in order.
    pub done: Vec<Piece>,
}

impl PieceSink {
    pub fn new(bounds: Bounds, current: Piece) -> Self {
        PieceSink {
            bounds,
            current,
            done: Vec::new(),
        }
    }

    fn room_for(&mut self, bytes: usize) {
        let c = &self.current;
        if c.lines > 0
            && (c.lines >= self.bounds.max_lines || c.batch.len() + bytes > self.bounds.max_bytes)
        {
            self.done.push(std::mem::take(&mut self.current));
        }
    }

    /// Everything collected, in order.
    pub fn into_pieces(mut self) -> Vec<Piece> {
        if !self.current.is_empty() {
            self.done.push(self.current);
        }
        self.done
    }
}

impl FrameSink for PieceSink {
    fn line(&mut self, line: &Line, outcome: LineOutcome<'_>) {
        match outcome {
            LineOutcome::Message(m) => {
                let code = boundary::kind_code(&m.kind).unwrap_or(boundary::CODE_NOTIFICATION)
                    | if m.valid_in_both {
                        0
                    } else {
                        boundary::CODE_NOT_IN_BOTH
                    }
                    | if m.schema_strips {
                        boundary::CODE_SCHEMA_STRIPS
                    } else {
                        0
                    };
                self.room_for(m.text.len() + 1);
                let units = line.utf16_len.unwrap_or_else(|| utf16_len(m.text));
                self.current.message(code, m.text, units);
            }
            LineOutcome::Error(e) => {
                self.room_for(0);
                self.current.error(&e);
            }
            LineOutcome::Skipped => {}
        }
    }
}

// ---------------------------------------------------------------------------
// the worker

/// The threadsafe function, used from the worker (the handle is thread-safe
/// by N-API's contract).
#[derive(Clone, Copy)]
struct Tsfn(sys::napi_threadsafe_function);
// SAFETY: N-API documents napi_call_threadsafe_function and
// napi_release_threadsafe_function as callable from any thread.
unsafe impl Send for Tsfn {}

struct Queues {
    /// Chunks pushed and not yet taken by the worker.
    input: VecDeque<Vec<u8>>,
    /// The worker is framing a chunk it took.
    busy: bool,
    /// Bytes pushed and not yet taken by JavaScript: chunks queued or being
    /// framed, and the message text of pieces ready (see `backlog()`).
    backlog: usize,
    /// JavaScript paused its stream on the backlog: wake it (as for a
    /// piece) once the backlog is at most this, even if no line completed.
    wake_below: Option<usize>,
    /// Pieces framed and not yet taken by JavaScript.
    output: VecDeque<Ready>,
    /// A threadsafe-function call (or the `setImmediate` chain it starts) is
    /// outstanding: no new call until `take()` finds the queue empty.
    armed: bool,
    stop: bool,
    /// The worker has stopped.
    finished: bool,
    /// The worker panicked (its message).
    failure: Option<String>,
    tsfn: Option<Tsfn>,
}

struct Work {
    framer: Framer,
    /// The piece the worker is filling (never holds lines while it is idle).
    current: Piece,
}

struct Shared {
    // Lock order: `work` before `queues`.
    work: Mutex<Work>,
    queues: Mutex<Queues>,
    /// Input arrived, or stop.
    wake: Condvar,
    /// The worker finished what it had (or stopped).
    idle: Condvar,
    #[cfg(feature = "tokio-reader")]
    notify: tokio::sync::Notify,
    bounds: Bounds,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic is caught where it happens (no lock is held across the
    // framer's code but `work`, whose state is then abandoned): poisoning
    // carries no information here.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// The next chunk to frame (marking the worker busy), or `None` when
    /// there is none now (idle) or the worker must stop (`finished` set).
    fn next_chunk(&self, q: &mut Queues) -> Option<Vec<u8>> {
        if q.stop {
            q.busy = false;
            q.finished = true;
            self.idle.notify_all();
            return None;
        }
        match q.input.pop_front() {
            Some(chunk) => {
                q.busy = true;
                Some(chunk)
            }
            None => {
                q.busy = false;
                self.idle.notify_all();
                None
            }
        }
    }

    /// The worker on a thread of its own.
    #[cfg_attr(feature = "tokio-reader", allow(dead_code))]
    fn worker(self: Arc<Self>) {
        loop {
            let chunk = {
                let mut q = lock(&self.queues);
                loop {
                    if let Some(chunk) = self.next_chunk(&mut q) {
                        break chunk;
                    }
                    if q.finished {
                        return;
                    }
                    q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
                }
            };
            self.frame(chunk);
        }
    }

    /// The worker as a task on napi-rs's tokio runtime (feature
    /// `tokio-reader`, for the measurements in README).
    #[cfg(feature = "tokio-reader")]
    async fn task(self: Arc<Self>) {
        loop {
            let chunk = {
                let mut q = lock(&self.queues);
                let chunk = self.next_chunk(&mut q);
                if chunk.is_none() && q.finished {
                    return;
                }
                chunk
            };
            match chunk {
                Some(chunk) => self.frame(chunk),
                // A notify_one() since the check left a permit: no lost wake-up.
                None => self.notify.notified().await,
            }
        }
    }

    /// Frames one chunk and publishes what is ready.
    fn frame(&self, chunk: Vec<u8>) {
        let mut work = lock(&self.work);
        let current = std::mem::take(&mut work.current);
        let mut sink = PieceSink::new(self.bounds, current);
        let framed = catch_unwind(AssertUnwindSafe(|| work.framer.push(&chunk, &mut sink)));
        let pushed = chunk.len();
        drop(chunk);
        if let Err(payload) = framed {
            let mut q = lock(&self.queues);
            q.failure = Some(panic_message(&*payload));
            q.input.clear();
            q.backlog = q.output.iter().map(|r| r.bytes).sum();
            q.stop = true;
            self.arm(&mut q);
            return;
        }
        // The last piece goes out now only when nothing else is waiting
        // (otherwise the next chunk may fill it further).
        let last = lock(&self.queues).input.is_empty();
        let mut pieces = std::mem::take(&mut sink.done);
        if last {
            if !sink.current.is_empty() {
                pieces.push(std::mem::take(&mut sink.current));
            }
        } else {
            work.current = std::mem::take(&mut sink.current);
        }
        // Transcoding happens here, off the main thread.
        let ready: Vec<Ready> = pieces.into_iter().map(Piece::finish).collect();
        let mut q = lock(&self.queues);
        drop(work);
        q.backlog = q.backlog.saturating_sub(pushed) + ready.iter().map(|r| r.bytes).sum::<usize>();
        let below = q.wake_below.is_some_and(|w| q.backlog <= w);
        if below {
            q.wake_below = None;
        }
        if !ready.is_empty() || below {
            q.output.extend(ready);
            self.arm(&mut q);
        }
    }

    /// Wakes the worker (input, or stop).
    fn wake_worker(&self) {
        self.wake.notify_all();
        #[cfg(feature = "tokio-reader")]
        self.notify.notify_one();
    }

    /// Wakes JavaScript unless a wake-up is already outstanding.
    fn arm(&self, q: &mut Queues) {
        if q.armed {
            return;
        }
        if let Some(Tsfn(f)) = q.tsfn {
            let status = unsafe {
                sys::napi_call_threadsafe_function(
                    f,
                    ptr::null_mut(),
                    sys::ThreadsafeFunctionCallMode::nonblocking,
                )
            };
            q.armed = status == OK;
        }
    }

    /// Blocks until the worker has framed every chunk pushed.
    fn wait_idle(&self) -> MutexGuard<'_, Queues> {
        let mut q = lock(&self.queues);
        while !q.input.is_empty() || q.busy {
            q = self.idle.wait(q).unwrap_or_else(|p| p.into_inner());
        }
        q
    }
}

/// The threadsafe function's context: a weak reference to the JavaScript
/// reader (deleted by the finalizer, on the main thread).
struct Context {
    weak: sys::napi_ref,
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
    let context = context as *const Context;
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let mut reader = ptr::null_mut();
        if sys::napi_get_reference_value(env, (*context).weak, &mut reader) != OK
            || reader.is_null()
        {
            return; // collected
        }
        let mut callback = ptr::null_mut();
        if sys::napi_get_named_property(env, reader, c"onready".as_ptr(), &mut callback) != OK {
            return;
        }
        let mut t = 0;
        sys::napi_typeof(env, callback, &mut t);
        if t != sys::ValueType::napi_function {
            return;
        }
        // An exception it throws stays pending: Node reports it as uncaught,
        // as it would one thrown by a 'data' listener.
        let mut result = ptr::null_mut();
        sys::napi_call_function(env, reader, callback, 0, ptr::null(), &mut result);
    }));
}

unsafe extern "C" fn finalize_context(
    env: sys::napi_env,
    data: *mut std::ffi::c_void,
    _hint: *mut std::ffi::c_void,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let context = Box::from_raw(data as *mut Context);
        if !env.is_null() {
            sys::napi_delete_reference(env, context.weak);
        }
    }));
}

// ---------------------------------------------------------------------------
// the class

/// Frames a stdio byte stream on a worker thread (see the module docs).
#[napi]
pub struct StdioThreadReader {
    shared: Arc<Shared>,
    /// `None` once stopped.
    thread: Mutex<Option<Worker>>,
    /// Chunks of at most this many bytes are framed on the calling thread
    /// when the worker is idle with nothing queued.
    inline_max: usize,
}

enum Worker {
    #[cfg_attr(feature = "tokio-reader", allow(dead_code))]
    Thread(JoinHandle<()>),
    /// A task on napi-rs's tokio runtime: stopped when `finished` is set.
    #[cfg(feature = "tokio-reader")]
    Task,
}

/// Its instances' type tag (`crate::receiver`).
const STDIO_THREAD_READER: Class = Class {
    name: "StdioThreadReader",
    tag: sys::napi_type_tag {
        lower: 0x6b1e_94c7_d2a0_58f3,
        upper: 0x90d4_3f7a_e15c_b826,
    },
};

fn thread_error(what: &str, message: String) -> Error {
    Error::new(
        Status::GenericFailure,
        format!("mcp-ordered-dispatch: internal error in {what} (Rust panic: {message})"),
    )
}

#[napi]
impl StdioThreadReader {
    /// `new StdioThreadReader(sdk, maxMessageSize, blankLines, strict, maxBatchBytes, maxBatchMessages, inlineMax)`:
    /// positional, checked by `lib/stdio-thread.cjs`. `blankLines`: 0 as
    /// the SDK, 1 report, 2 skip.
    #[allow(clippy::too_many_arguments)]
    #[napi(constructor)]
    pub fn new(
        env: Env,
        this: This,
        sdk: u32,
        max_message_size: f64,
        blank_lines: u32,
        strict: bool,
        max_batch_bytes: u32,
        max_batch_messages: u32,
        inline_max: u32,
    ) -> Result<Self> {
        let (env, this) = (env.raw(), this.object.raw());
        guarded("new StdioThreadReader()", || {
            // Refuses a `this` that is already a native object
            // (`StdioThreadReader.call(aDispatcher, ...)`), before any thread starts.
            receiver::tag_instance(env, this, &STDIO_THREAD_READER)?;
            let profile = match sdk {
                1 => Profile::V1,
                2 => Profile::V2,
                _ => return invalid_arg("new StdioThreadReader(): sdk must be 1 or 2"),
            };
            let mut options = if strict {
                FramerOptions::strict(profile)
            } else {
                FramerOptions::for_profile(profile)
            };
            if max_message_size.is_nan() || max_message_size < 1.0 {
                return invalid_arg("new StdioThreadReader(): maxMessageSize must be positive");
            }
            options.max_message_size = max_message_size.min(usize::MAX as f64) as usize;
            match blank_lines {
                0 => {}
                1 => options.blank_lines = BlankLines::Report,
                2 => options.blank_lines = BlankLines::Skip,
                _ => return invalid_arg("new StdioThreadReader(): blankLines must be 0, 1 or 2"),
            }
            let bounds = Bounds {
                max_bytes: max_batch_bytes.max(1) as usize,
                max_lines: max_batch_messages.max(1) as usize,
            };
            let shared = Arc::new(Shared {
                work: Mutex::new(Work {
                    framer: Framer::new(options),
                    current: Piece::default(),
                }),
                queues: Mutex::new(Queues {
                    input: VecDeque::new(),
                    busy: false,
                    backlog: 0,
                    wake_below: None,
                    output: VecDeque::new(),
                    armed: false,
                    stop: false,
                    finished: false,
                    failure: None,
                    tsfn: None,
                }),
                wake: Condvar::new(),
                idle: Condvar::new(),
                #[cfg(feature = "tokio-reader")]
                notify: tokio::sync::Notify::new(),
                bounds,
            });
            // The threadsafe function: no JavaScript function of its own (it
            // would keep the reader alive); its context reaches the reader
            // through a weak reference.
            let mut weak = ptr::null_mut();
            check(
                unsafe { sys::napi_create_reference(env, this, 0, &mut weak) },
                "referencing the reader",
            )?;
            let context = Box::into_raw(Box::new(Context { weak }));
            let mut name = ptr::null_mut();
            let label = CString::new("mcp-ordered-dispatch stdio reader").unwrap_or_default();
            unsafe { sys::napi_create_string_utf8(env, label.as_ptr(), -1, &mut name) };
            let mut tsfn = ptr::null_mut();
            let status = unsafe {
                sys::napi_create_threadsafe_function(
                    env,
                    ptr::null_mut(),
                    ptr::null_mut(),
                    name,
                    0,
                    1,
                    context.cast(),
                    Some(finalize_context),
                    context.cast(),
                    Some(call_js),
                    &mut tsfn,
                )
            };
            if status != OK {
                // SAFETY: not handed to N-API.
                let context = unsafe { Box::from_raw(context) };
                unsafe { sys::napi_delete_reference(env, context.weak) };
                return check(status, "creating the threadsafe function").map(|_| unreachable!());
            }
            // Never keeps the process alive (the stream does while it is open).
            unsafe { sys::napi_unref_threadsafe_function(env, tsfn) };
            lock(&shared.queues).tsfn = Some(Tsfn(tsfn));
            let worker = Arc::clone(&shared);
            #[cfg(feature = "tokio-reader")]
            let thread: Result<Worker> = {
                napi::bindgen_prelude::spawn(worker.task());
                Ok(Worker::Task)
            };
            #[cfg(not(feature = "tokio-reader"))]
            let thread = std::thread::Builder::new()
                .name("mcp-od-stdio".into())
                .spawn(move || worker.worker())
                .map(Worker::Thread)
                .map_err(|e| {
                    Error::new(
                        Status::GenericFailure,
                        format!("mcp-ordered-dispatch: cannot start the stdio reader thread: {e}"),
                    )
                });
            let thread = match thread {
                Ok(t) => Some(t),
                Err(e) => {
                    let tsfn = lock(&shared.queues).tsfn.take();
                    if let Some(Tsfn(f)) = tsfn {
                        unsafe {
                            sys::napi_release_threadsafe_function(
                                f,
                                sys::ThreadsafeFunctionReleaseMode::abort,
                            )
                        };
                    }
                    return Err(e);
                }
            };
            Ok(StdioThreadReader {
                shared,
                thread: Mutex::new(thread),
                inline_max: inline_max as usize,
            })
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
            let bytes = chunk_bytes(env, chunk)?;
            {
                let q = lock(&self.shared.queues);
                if let Some(message) = &q.failure {
                    return Err(thread_error("the stdio reader thread", message.clone()));
                }
                let idle = q.input.is_empty() && !q.busy && q.output.is_empty();
                if !(idle && (q.stop || bytes.len() <= self.inline_max)) {
                    let mut q = q;
                    // SAFETY: see `chunk_bytes`; copied before returning.
                    q.input.push_back(unsafe { bytes.to_vec() });
                    q.backlog += bytes.len();
                    self.shared.wake_worker();
                    return Ok(undefined(env));
                }
            }
            // Idle, nothing queued: frame here, in order.
            let mut work = lock(&self.shared.work);
            let current = std::mem::take(&mut work.current);
            let mut sink = PieceSink::new(
                Bounds {
                    max_bytes: usize::MAX,
                    max_lines: usize::MAX,
                },
                current,
            );
            // SAFETY: see `chunk_bytes`.
            work.framer.push(unsafe { bytes.slice() }, &mut sink);
            drop(work);
            let mut pieces = sink.into_pieces().into_iter();
            match pieces.next() {
                None => Ok(undefined(env)),
                Some(piece) => to_out(env, piece.finish()),
            }
        })
    }

    /// The next piece's `out`, or `undefined` (and the next threadsafe call
    /// re-armed) when none is ready.
    #[napi]
    pub fn take(&self, env: Env) -> Result<sys::napi_value> {
        let env = env.raw();
        guarded("StdioThreadReader.take()", || {
            let ready = {
                let mut q = lock(&self.shared.queues);
                match q.output.pop_front() {
                    Some(r) => {
                        q.backlog = q.backlog.saturating_sub(r.bytes);
                        r
                    }
                    None => {
                        q.armed = false;
                        if let Some(message) = &q.failure {
                            return Err(thread_error("the stdio reader thread", message.clone()));
                        }
                        return Ok(undefined(env));
                    }
                }
            };
            to_out(env, ready)
        })
    }

    /// Blocks until the worker has framed every chunk pushed; their pieces
    /// are then ready for `take()`.
    #[napi]
    pub fn drain(&self) -> Result<()> {
        guarded("StdioThreadReader.drain()", || {
            let q = self.shared.wait_idle();
            if q.output.is_empty() {
                if let Some(message) = &q.failure {
                    return Err(thread_error("the stdio reader thread", message.clone()));
                }
            }
            Ok(())
        })
    }

    /// Drops an incomplete line, after the worker framed what it had (the
    /// SDK's `ReadBuffer.clear()`).
    #[napi]
    pub fn clear(&self) -> Result<()> {
        guarded("StdioThreadReader.clear()", || {
            drop(self.shared.wait_idle());
            lock(&self.shared.work).framer.clear();
            Ok(())
        })
    }

    /// Bytes of an incomplete line held (after the worker framed what it had).
    #[napi]
    pub fn buffered(&self) -> Result<f64> {
        guarded("StdioThreadReader.buffered()", || {
            drop(self.shared.wait_idle());
            Ok(lock(&self.shared.work).framer.buffered() as f64)
        })
    }

    /// Bytes pushed and not yet taken (chunks not yet framed, message text
    /// of pieces not yet taken): what `lib/stdio-thread.cjs` pauses the
    /// stream on.
    #[napi]
    pub fn backlog(&self) -> f64 {
        lock(&self.shared.queues).backlog as f64
    }

    /// Asks for a wake-up (`onready`) once the backlog is at most `bytes`
    /// (JavaScript paused its stream), now if it already is.
    #[napi]
    pub fn wake_below(&self, bytes: f64) {
        let mut q = lock(&self.shared.queues);
        let bytes = bytes.max(0.0) as usize;
        if q.backlog <= bytes {
            q.wake_below = None;
            self.shared.arm(&mut q);
        } else {
            q.wake_below = Some(bytes);
        }
    }

    /// Whether the worker still runs.
    #[napi]
    pub fn running(&self) -> bool {
        lock(&self.thread).is_some()
    }

    /// Frames what is queued, then stops and joins the worker and releases
    /// the threadsafe function. Idempotent; later chunks are framed on the
    /// calling thread.
    #[napi]
    pub fn stop(&self) -> Result<()> {
        guarded("StdioThreadReader.stop()", || {
            self.shutdown(true);
            Ok(())
        })
    }
}

impl StdioThreadReader {
    fn shutdown(&self, wait: bool) {
        let Some(thread) = lock(&self.thread).take() else {
            return;
        };
        let tsfn = {
            let mut q = if wait {
                self.shared.wait_idle()
            } else {
                lock(&self.shared.queues)
            };
            q.stop = true;
            self.shared.wake_worker();
            q.tsfn.take()
        };
        match thread {
            Worker::Thread(thread) => {
                let _ = thread.join();
            }
            #[cfg(feature = "tokio-reader")]
            Worker::Task => {
                let mut q = lock(&self.shared.queues);
                while !q.finished {
                    q = self.shared.idle.wait(q).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
        if let Some(Tsfn(f)) = tsfn {
            unsafe {
                sys::napi_release_threadsafe_function(f, sys::ThreadsafeFunctionReleaseMode::abort)
            };
        }
    }
}

impl Drop for StdioThreadReader {
    fn drop(&mut self) {
        // Collected: nobody will take what is queued.
        let _ = catch_unwind(AssertUnwindSafe(|| self.shutdown(false)));
    }
}

// ---------------------------------------------------------------------------
// N-API helpers

fn undefined(env: sys::napi_env) -> sys::napi_value {
    crate::napi_support::undefined(env)
}

/// A chunk argument's bytes, read for the duration of the call only.
struct ChunkBytes {
    data: *const u8,
    len: usize,
}

impl ChunkBytes {
    /// SAFETY: only while the call that made it runs, before any JavaScript.
    unsafe fn slice(&self) -> &[u8] {
        if self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.data, self.len)
        }
    }

    /// SAFETY: as [`ChunkBytes::slice`].
    unsafe fn to_vec(&self) -> Vec<u8> {
        self.slice().to_vec()
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// The bytes of a Buffer / Uint8Array argument. Nothing keeps the pointer:
/// `push` copies the bytes (to the worker) or frames them (no JavaScript
/// runs in between, so the buffer cannot be detached or collected) before
/// it returns. A SharedArrayBuffer's bytes are read the same way: the
/// copy is what the worker sees, as the main-thread framer frames a copy.
fn chunk_bytes(env: sys::napi_env, chunk: sys::napi_value) -> Result<ChunkBytes> {
    let mut is_typed = false;
    unsafe { sys::napi_is_typedarray(env, chunk, &mut is_typed) };
    let fail =
        || invalid_arg("StdioThreadReader.push(chunk): chunk must be a Buffer or Uint8Array");
    if !is_typed {
        return fail();
    }
    let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
    check(
        unsafe {
            sys::napi_get_typedarray_info(
                env,
                chunk,
                &mut kind,
                &mut len,
                &mut data,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        },
        "reading the chunk",
    )?;
    if kind != sys::TypedarrayType::uint8_array {
        return fail();
    }
    if len > (i32::MAX as usize) / 2 {
        return invalid_arg("StdioThreadReader.push(chunk): chunk larger than 1 GiB");
    }
    Ok(ChunkBytes {
        data: data as *const u8,
        len: if data.is_null() { 0 } else { len },
    })
}

fn js_number(env: sys::napi_env, n: f64) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe { sys::napi_create_double(env, n, &mut v) },
        "creating a number",
    )?;
    Ok(v)
}

fn js_text(env: sys::napi_env, s: &str) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v) },
        "creating a string",
    )?;
    Ok(v)
}

/// A piece's text of at least this many characters becomes an external
/// string (no copy into the V8 heap), where the host has them.
const EXTERNAL_MIN: usize = 1 << 20;

type ExternalLatin1 = unsafe extern "C" fn(
    sys::napi_env,
    *const std::ffi::c_char,
    isize,
    sys::napi_finalize,
    *mut std::ffi::c_void,
    *mut sys::napi_value,
    *mut bool,
) -> sys::napi_status;
type ExternalUtf16 = unsafe extern "C" fn(
    sys::napi_env,
    *const u16,
    isize,
    sys::napi_finalize,
    *mut std::ffi::c_void,
    *mut sys::napi_value,
    *mut bool,
) -> sys::napi_status;

/// `node_api_create_external_string_latin1` / `_utf16` (Node >= 20.4; N-API
/// 10), looked up in the host process once: the pinned napi-sys declares
/// them only under its `napi10` feature, which would make every symbol of
/// N-API 10 a load-time requirement. Unix only; elsewhere (or missing) the
/// text is copied.
#[cfg(unix)]
fn external_strings() -> Option<(ExternalLatin1, ExternalUtf16)> {
    static FOUND: std::sync::OnceLock<Option<(ExternalLatin1, ExternalUtf16)>> =
        std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        let host = libloading::os::unix::Library::this();
        // SAFETY: the signatures are N-API's (js_native_api.h).
        unsafe {
            let latin1 = host
                .get::<ExternalLatin1>(b"node_api_create_external_string_latin1\0")
                .ok()?;
            let utf16 = host
                .get::<ExternalUtf16>(b"node_api_create_external_string_utf16\0")
                .ok()?;
            Some((*latin1, *utf16))
        }
    })
}

#[cfg(not(unix))]
fn external_strings() -> Option<(ExternalLatin1, ExternalUtf16)> {
    None
}

/// Frees an external string's text when V8 collects the string.
unsafe extern "C" fn free_text<T>(
    _env: sys::napi_env,
    data: *mut std::ffi::c_void,
    hint: *mut std::ffi::c_void,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `data`/`hint` are the pointer and length of the boxed
        // slice leaked in `batch_string`, handed back once.
        drop(Box::from_raw(ptr::slice_from_raw_parts_mut(
            data as *mut T,
            hint as usize,
        )));
    }));
}

/// The batch string: copied into the V8 heap, or for a big text an
/// external string that V8 reads where the worker wrote it.
fn batch_string(env: sys::napi_env, text: BatchText) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    let external = external_strings();
    match text {
        BatchText::Latin1(b) => {
            if let (Some((latin1, _)), true) = (external, b.len() >= EXTERNAL_MIN) {
                let len = b.len();
                let data = Box::into_raw(b.into_boxed_slice()) as *mut u8;
                let mut copied = false;
                let status = unsafe {
                    latin1(
                        env,
                        data.cast(),
                        len as isize,
                        Some(free_text::<u8>),
                        len as *mut _,
                        &mut v,
                        &mut copied,
                    )
                };
                if status != OK || copied {
                    // Not taken (or copied): ours to free.
                    unsafe { drop(Box::from_raw(ptr::slice_from_raw_parts_mut(data, len))) };
                }
                check(status, "creating the batch string")?;
                return Ok(v);
            }
            check(
                unsafe {
                    sys::napi_create_string_latin1(env, b.as_ptr().cast(), b.len() as isize, &mut v)
                },
                "creating the batch string",
            )?;
        }
        BatchText::Utf16(u) => {
            if let (Some((_, utf16)), true) = (external, u.len() >= EXTERNAL_MIN) {
                let len = u.len();
                let data = Box::into_raw(u.into_boxed_slice()) as *mut u16;
                let mut copied = false;
                let status = unsafe {
                    utf16(
                        env,
                        data,
                        len as isize,
                        Some(free_text::<u16>),
                        len as *mut _,
                        &mut v,
                        &mut copied,
                    )
                };
                if status != OK || copied {
                    unsafe { drop(Box::from_raw(ptr::slice_from_raw_parts_mut(data, len))) };
                }
                check(status, "creating the batch string")?;
                return Ok(v);
            }
            check(
                unsafe { sys::napi_create_string_utf16(env, u.as_ptr(), u.len() as isize, &mut v) },
                "creating the batch string",
            )?;
        }
        BatchText::None => v = undefined(env),
    }
    Ok(v)
}

/// `out` of a piece: `[Int32Array entries, count, batch string | undefined, ...values]`,
/// built with `napi_define_properties` (no `Array.prototype` setter runs).
fn to_out(env: sys::napi_env, ready: Ready) -> Result<sys::napi_value> {
    let count = ready.meta.len() / boundary::ENTRY_SIZE;
    // The entries.
    let mut data = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let n = ready.meta.len().max(1);
    check(
        unsafe { sys::napi_create_arraybuffer(env, n * 4, &mut data, &mut buffer) },
        "allocating the entries array",
    )?;
    // SAFETY: `data` is the new buffer's n * 4 bytes; no JavaScript has seen it.
    unsafe { ptr::copy_nonoverlapping(ready.meta.as_ptr(), data.cast::<i32>(), ready.meta.len()) };
    let mut entries = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_typedarray(
                env,
                sys::TypedarrayType::int32_array,
                n,
                buffer,
                0,
                &mut entries,
            )
        },
        "allocating the entries array",
    )?;
    let batch = match ready.text {
        BatchText::None => undefined(env),
        text => batch_string(env, text)?,
    };
    let mut values = vec![ptr::null_mut(); boundary::OUT_VALUES];
    values[boundary::OUT_ENTRIES] = entries;
    values[boundary::OUT_COUNT] = js_number(env, count as f64)?;
    values[boundary::OUT_BATCH] = batch;
    for v in &ready.values {
        values.push(match v {
            Value::Text(s) => js_text(env, s)?,
            Value::Number(n) => js_number(env, *n)?,
        });
    }
    let names: Vec<CString> = (0..values.len())
        .map(|i| CString::new(i.to_string()).unwrap_or_default())
        .collect();
    let descriptors: Vec<sys::napi_property_descriptor> = values
        .iter()
        .zip(&names)
        .map(|(&value, name)| sys::napi_property_descriptor {
            utf8name: name.as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: None,
            setter: None,
            value,
            attributes: sys::PropertyAttributes::writable
                | sys::PropertyAttributes::enumerable
                | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        })
        .collect();
    let mut array = ptr::null_mut();
    check(
        unsafe { sys::napi_create_array_with_length(env, values.len(), &mut array) },
        "creating the result array",
    )?;
    check(
        unsafe { sys::napi_define_properties(env, array, descriptors.len(), descriptors.as_ptr()) },
        "filling the result array",
    )?;
    Ok(array)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(bounds: Bounds, chunks: &[&[u8]]) -> Vec<Ready> {
        let mut framer = Framer::new(FramerOptions::for_profile(Profile::V1));
        let mut sink = PieceSink::new(bounds, Piece::default());
        for c in chunks {
            framer.push(c, &mut sink);
        }
        sink.into_pieces().into_iter().map(Piece::finish).collect()
    }

    fn text(r: &Ready) -> String {
        match &r.text {
            BatchText::None => String::new(),
            BatchText::Latin1(b) => b.iter().map(|&x| x as char).collect(),
            BatchText::Utf16(u) => String::from_utf16(u).unwrap(),
        }
    }

    const NOTE: &str =
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}"#;

    #[test]
    fn pieces_are_bounded_by_count_and_bytes_in_order() {
        let stream: String = (0..10)
            .map(|i| NOTE.replace('x', &i.to_string()) + "\n")
            .collect();
        let by_count = frame(
            Bounds {
                max_bytes: usize::MAX,
                max_lines: 3,
            },
            &[stream.as_bytes()],
        );
        assert_eq!(
            by_count
                .iter()
                .map(|r| r.meta.len() / 4)
                .collect::<Vec<_>>(),
            [3, 3, 3, 1]
        );
        let by_bytes = frame(
            Bounds {
                max_bytes: 2 * NOTE.len() + 2,
                max_lines: 100,
            },
            &[stream.as_bytes()],
        );
        assert_eq!(
            by_bytes
                .iter()
                .map(|r| r.meta.len() / 4)
                .collect::<Vec<_>>(),
            [2, 2, 2, 2, 2]
        );
        // Every piece's batch is a JSON array of its messages, in order, and
        // the entries' offsets slice each message out of it.
        let mut seen = Vec::new();
        for r in &by_bytes {
            let t = text(r);
            let all: Vec<serde_json::Value> = serde_json::from_str(&t).unwrap();
            let units: Vec<u16> = t.encode_utf16().collect();
            for (k, m) in all.iter().enumerate() {
                let e = &r.meta[4 * k..4 * k + 4];
                assert_eq!(e[1], boundary::OUT_BATCH as i32);
                let own = String::from_utf16(&units[e[2] as usize..e[3] as usize]).unwrap();
                assert_eq!(&serde_json::from_str::<serde_json::Value>(&own).unwrap(), m);
                seen.push(m["params"]["data"].as_str().unwrap().to_owned());
            }
        }
        assert_eq!(seen, (0..10).map(|i| i.to_string()).collect::<Vec<_>>());
        // A message larger than the bound is a piece of its own.
        let big = frame(
            Bounds {
                max_bytes: 10,
                max_lines: 100,
            },
            &[stream.as_bytes()],
        );
        assert_eq!(big.len(), 10);
    }

    #[test]
    fn text_is_transcoded_and_bad_lines_keep_their_place() {
        let chunks: [&[u8]; 4] = [
            b"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":{\"t\":\"caf\xc3\xa9\"}}\n{oops}\n",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"b\",\"params\":{\"t\":\"\xe2\x82",
            b"\xac \xf0\x9f\x98\x80\"}}\n",
            b"\n",
        ];
        let all = frame(
            Bounds {
                max_bytes: usize::MAX,
                max_lines: usize::MAX,
            },
            &chunks,
        );
        assert_eq!(all.len(), 1);
        let r = &all[0];
        assert!(matches!(r.text, BatchText::Utf16(_)));
        let codes: Vec<i32> = r.meta.chunks(4).map(|e| e[0]).collect();
        assert_eq!(
            codes,
            [
                boundary::CODE_NOTIFICATION,
                -1,
                boundary::CODE_NOTIFICATION,
                -1
            ]
        );
        let v: serde_json::Value = serde_json::from_str(&text(r)).unwrap();
        assert_eq!(v[0]["params"]["t"], "café");
        assert_eq!(v[1]["params"]["t"], "€ 😀");
        let e = r.meta[5] as usize - boundary::OUT_VALUES;
        assert_eq!(
            r.values[e + boundary::BAD_REASON],
            Value::Text("malformed-json".into())
        );
        assert_eq!(r.values[e + boundary::BAD_LINE], Value::Number(2.0));
        assert_eq!(
            r.values[e + boundary::BAD_TEXT],
            Value::Text("{oops}".into())
        );
        let first = chunks[0].iter().position(|&b| b == b'\n').unwrap() + 1;
        let latin = frame(
            Bounds {
                max_bytes: usize::MAX,
                max_lines: usize::MAX,
            },
            &[&chunks[0][..first]],
        );
        assert!(
            matches!(latin[0].text, BatchText::Latin1(_)),
            "{:?}",
            latin[0].text
        );
        assert_eq!(
            text(&latin[0]),
            "[{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":{\"t\":\"café\"}}]"
        );
    }
}
