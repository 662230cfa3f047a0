//! `StdioFramer`: the N-API face of [`mcp_ordered_dispatch_core::framer::Framer`].
//!
//! `framer.push(chunk)` frames one chunk in one crossing and returns
//! `undefined` (no line completed) or an array `out`:
//!
//! * `out[0]`: an `Int32Array` (reused across calls) holding `out[1]`
//!   entries of four integers each, in stream order:
//!   - a message: `[code, s, start, end]`. `code` is 1 result, 2 error
//!     response, 3 request, 4 notification, plus 8 when the message is valid
//!     under the configured SDK's schemas but not under 1.x's stricter ones
//!     (a result with an odd `_meta`), plus 16 when the SDK's schema parse
//!     would drop some of its keys (`Message::schema_strips`). `s` is 2: the
//!     message is the next element of the batch `JSON.parse(out[2])`; or another index: the
//!     message is `JSON.parse(out[s].slice(start, end))`. Within the batch,
//!     `out[2].slice(start, end)` is the message's own text (UTF-16 offsets).
//!   - a bad line: `[-1, e, t, 0]`: `out[e]` is the error text, `out[e + 1]`
//!     the stream offset of the line, `out[e + 2]` its 1-based number and
//!     `out[e + 3]` a short code (`"malformed-json"`, `"too-large"`, ...);
//!     when `t` is 1, `out[e + 4]` is the line's text (`FrameError::text`).
//! * `out[2]`: the batch: the chunk's messages as the text of one JSON array
//!   (`[m1,m2,...]`), so that JavaScript builds them all with one
//!   `JSON.parse` (why, and what was measured: the core's `out`, which
//!   writes this layout). A line over 64 KiB assembled across chunks gets
//!   a string of its own instead, to spare a copy. A batch with a few
//!   characters beyond ASCII has them written as `\uXXXX` escapes (the
//!   entries' ranges are in that text), so that it stays a one-byte string.
//! * `out[3..]`: those strings and the error fields.
//!
//! With `checkBodies: true` (the default) every line has been validated
//! (UTF-8, JSON, JSON-RPC shape) and classified in Rust before it reaches
//! JavaScript. With `checkBodies: false` (what `lib/stdio/read-buffer.cjs` uses) a
//! message's envelope is read and classified, its body's JSON syntax is
//! left to the `JSON.parse` JavaScript runs anyway: when that throws for a
//! message, `framer.recheck(entryIndex)` gives the checking path's
//! outcome for its line (a result like `push`'s with one entry, or
//! `undefined` for a line the configured SDK drops), from the raw text the
//! framer kept; `framer.text(entryIndex)` is that raw text (the batch and a
//! big message's own string may hold `\uXXXX` escapes instead). Both are
//! valid until the next `push` or `clear`.
//!
//! Memory safety: no JavaScript runs inside `push` or `clear`.
//! The result array is built with `napi_define_properties` (a data property
//! definition, which never consults `Array.prototype`), not with
//! `napi_set_element` (a `[[Set]]`, which runs any setter an
//! `Array.prototype[i]` accessor installs); everything else `push` calls only
//! creates strings, numbers and arrays. So the chunk's bytes, borrowed for
//! the call, cannot be detached or freed under it, and `push` cannot be
//! re-entered; the `RefCell` around the state turns a re-entry that would
//! still happen into a thrown error rather than two live `&mut`. The entries
//! `Int32Array` is JavaScript's to detach between calls, so its data pointer
//! is read again on every push, never kept. The framer's own buffer is
//! reported to V8 (`napi_adjust_external_memory`), so that garbage framers
//! get collected.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::{Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::js_out::{
    int32_array, js_text, new_int32_array, out_array, out_value, text_string, EXTERNAL_MIN_UNITS,
};
use crate::napi_support::{
    chunk_bytes, guarded, invalid_arg as type_error, js_number, read_number, undefined,
};
use crate::options::framer_options;
use crate::raw::{self, OrFail};
use crate::receiver::{self, instance, run_accessor, Accessor, STDIO_FRAMER};
use mcp_ordered_dispatch_core::framer::{FrameSink, Framer, Line, LineOutcome};
use mcp_ordered_dispatch_core::out::{OutWriter, Placed, Refused};

/// A batch buffer larger than this is released after use.
const BATCH_KEEP: usize = 1 << 20;

/// One push's lines, written by the core's writer of `out`
/// (`mcp_ordered_dispatch_core::out`), its values made JavaScript values as
/// they come (alive in the call's handle scope).
struct JsSink {
    env: sys::napi_env,
    out: OutWriter<sys::napi_value>,
    /// The batch with its non-ASCII characters escaped (reused).
    escaped: Vec<u8>,
    /// The messages whose bodies were not checked (`Message::checked`), in
    /// entry order: what `recheck` needs.
    pending: Vec<Pending>,
    failure: Option<Error>,
}

/// A message handed over unchecked: its entry's index, where its line was,
/// and its text: `batch[start..end]`, or (a line with a string of its own)
/// that string, which JavaScript passes back.
#[derive(Clone, Copy)]
struct Pending {
    entry: usize,
    offset: u64,
    number: u64,
    terminator: usize,
    text: Option<(usize, usize)>,
}

impl JsSink {
    /// A sink whose batch reuses `batch` (the last push's, kept until now).
    fn new(env: sys::napi_env, batch: Vec<u8>, escaped: Vec<u8>) -> Self {
        JsSink {
            env,
            out: OutWriter::new(batch),
            escaped,
            pending: Vec::new(),
            failure: None,
        }
    }

    fn on_line(&mut self, line: &Line, outcome: LineOutcome<'_>) -> Result<()> {
        let env = self.env;
        match outcome {
            LineOutcome::Message(m) => {
                let entry = self.out.lines();
                let placed = self
                    .out
                    .message(line, &m, |text| js_text(env, text, EXTERNAL_MIN_UNITS))
                    .map_err(refused)?;
                if !m.checked {
                    self.pending.push(Pending {
                        entry,
                        offset: line.offset,
                        number: line.number,
                        terminator: line.terminator,
                        text: match placed {
                            Placed::Batch(start, end) => Some((start, end)),
                            Placed::Own => None,
                        },
                    });
                }
            }
            LineOutcome::Error(e) => self
                .out
                .bad_line(&e, |v| out_value(env, &v))
                .map_err(refused)?,
            LineOutcome::Skipped => {}
        }
        Ok(())
    }

    /// The result array (see the module docs), or `undefined` when no line
    /// was reported; `entries` makes the entries array.
    fn finish(
        &mut self,
        env: sys::napi_env,
        entries: impl FnOnce(sys::napi_env, &[i32]) -> Result<sys::napi_value>,
    ) -> Result<sys::napi_value> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        if self.out.is_empty() {
            return Ok(undefined(env));
        }
        // The batch string first: escaping it moves the entries' ranges.
        let batch = match self.out.batch_text(&mut self.escaped) {
            Some(text) => js_text(env, text, EXTERNAL_MIN_UNITS)?,
            None => undefined(env),
        };
        let meta = entries(env, self.out.entries())?;
        out_array(env, meta, self.out.lines(), batch, self.out.values())
    }

    /// The raw batch text and the escape buffer, for the next push to reuse.
    fn into_buffers(self) -> (Vec<u8>, Vec<u8>, Vec<Pending>) {
        let (_, batch, _) = self.out.into_parts();
        (batch, self.escaped, self.pending)
    }
}

/// The error of a line the writer refused.
fn refused(r: Refused<Error>) -> Error {
    match r {
        Refused::TooManyLines => Error::new(
            Status::InvalidArg,
            "StdioFramer.push(chunk): too many lines in one chunk".to_owned(),
        ),
        Refused::Value(e) => e,
    }
}

impl FrameSink for JsSink {
    fn line(&mut self, line: &Line, outcome: LineOutcome<'_>) {
        if self.failure.is_some() {
            return;
        }
        if let Err(e) = self.on_line(line, outcome) {
            self.failure = Some(e);
        }
    }
}

/// Frames a newline-delimited JSON-RPC byte stream (see the module docs).
#[napi]
pub struct StdioFramer {
    env: sys::napi_env,
    /// Borrowed mutably only inside `push` and `clear`, which run no
    /// JavaScript; a failed borrow means a re-entry, and throws.
    state: RefCell<State>,
}

struct State {
    framer: Framer,
    /// The last push's batch text (kept for `recheck`, and reused).
    batch_raw: Vec<u8>,
    /// The buffer of the batch escaped (reused).
    escaped: Vec<u8>,
    /// The last push's unchecked messages.
    pending: Vec<Pending>,
    /// The reused entries `Int32Array` (its data pointer is read again on
    /// every use: JavaScript may detach it between calls).
    meta_ref: sys::napi_ref,
    /// Bytes reported to V8 with `napi_adjust_external_memory`.
    reported: usize,
}

#[napi]
impl StdioFramer {
    /// `new StdioFramer({ sdk?: 1 | 2, maxMessageSize?: number, blankLines?: 'report' | 'skip', strict?: boolean })`
    #[napi(constructor)]
    pub fn new(env: Env, this: This, options: Unknown) -> Result<Self> {
        let (env, this, options) = (env.raw(), this.object.raw(), options.raw());
        guarded("new StdioFramer()", || {
            // Reading the options may run getters: before anything is held.
            let options = framer_options(env, options, "StdioFramer")?;
            receiver::tag_instance(env, this, &STDIO_FRAMER)?;
            Ok(StdioFramer {
                env,
                state: RefCell::new(State {
                    framer: Framer::new(options),
                    batch_raw: Vec::new(),
                    escaped: Vec::new(),
                    pending: Vec::new(),
                    meta_ref: ptr::null_mut(),
                    reported: 0,
                }),
            })
        })
    }

    /// Frames `chunk`; see the module docs for the result.
    #[napi]
    pub fn push(&self, env: Env, chunk: Unknown) -> Result<sys::napi_value> {
        let (env, chunk) = (env.raw(), chunk.raw());
        guarded("StdioFramer.push()", || {
            let mut state = self.borrow_state("push")?;
            let bytes = chunk_bytes(env, chunk, "StdioFramer.push(chunk)")?;
            // The last push's batch text is kept for `recheck` until now.
            let batch = std::mem::take(&mut state.batch_raw);
            let escaped = std::mem::take(&mut state.escaped);
            let mut sink = JsSink::new(env, batch, escaped);
            state.pending.clear();
            state.framer.push(&bytes[..], &mut sink);
            drop(bytes);
            let result = sink.finish(env, |env, meta| state.write_meta(env, meta));
            (state.batch_raw, state.escaped, state.pending) = sink.into_buffers();
            if state.batch_raw.capacity() > BATCH_KEEP {
                state.batch_raw = Vec::new();
            }
            state.report_memory(env);
            result
        })
    }

    /// The checking path's outcome for entry `entry` of the last push, a
    /// message handed over with its body unchecked (`checkBodies: false`)
    /// whose text `JSON.parse` refused: a result like `push`'s with one entry
    /// (a bad line, or, should the checking parse accept what V8 refused, the
    /// message), or `undefined` (a line the configured SDK drops).
    #[napi]
    pub fn recheck(&self, env: Env, entry: Unknown) -> Result<sys::napi_value> {
        let (env, entry) = (env.raw(), entry.raw());
        guarded("StdioFramer.recheck()", || {
            let index = match read_number(env, entry) {
                Some(n) if n >= 0.0 && n.trunc() == n => n as usize,
                _ => return type_error("StdioFramer.recheck(entry): entry must be an entry index"),
            };
            let state = self.borrow_state("recheck")?;
            let Ok(at) = state.pending.binary_search_by_key(&index, |p| p.entry) else {
                return type_error(
                    "StdioFramer.recheck(entry): entry is not an unchecked message of the last push",
                );
            };
            let p = state.pending[at];
            let bytes = state.raw_text(&p);
            let line = Line {
                offset: p.offset,
                number: p.number,
                span: None,
                terminator: p.terminator,
                utf16_len: None,
            };
            let mut sink = JsSink::new(env, Vec::new(), Vec::new());
            state.framer.recheck(bytes, line, &mut sink);
            // A fresh entries array: the reused one holds the push's entries,
            // which JavaScript is still reading.
            sink.finish(env, new_int32_array)
        })
    }

    /// The text of entry `entry` of the last push, a message handed over
    /// with its body unchecked, as it was on the wire (the batch and a big
    /// message's string may have escapes instead of characters beyond
    /// ASCII); `undefined` for another entry.
    #[napi]
    pub fn text(&self, env: Env, entry: Unknown) -> Result<sys::napi_value> {
        let (env, entry) = (env.raw(), entry.raw());
        guarded("StdioFramer.text()", || {
            let state = self.borrow_state("text")?;
            let found = read_number(env, entry)
                .filter(|n| *n >= 0.0 && n.trunc() == *n)
                .and_then(|n| {
                    let at = state
                        .pending
                        .binary_search_by_key(&(n as usize), |p| p.entry)
                        .ok()?;
                    Some(state.pending[at])
                });
            match found {
                // The framed text is valid UTF-8 (an unchecked message's always is).
                Some(p) => text_string(env, state.raw_text(&p)),
                None => Ok(undefined(env)),
            }
        })
    }

    /// Drops an incomplete line (the SDK's `ReadBuffer.clear()`).
    #[napi]
    pub fn clear(&self, env: Env) -> Result<()> {
        let env = env.raw();
        guarded("StdioFramer.clear()", || {
            let mut state = self.borrow_state("clear")?;
            state.framer.clear();
            state.pending.clear();
            state.report_memory(env);
            Ok(())
        })
    }
}

impl StdioFramer {
    fn borrow_state(&self, method: &str) -> Result<std::cell::RefMut<'_, State>> {
        self.state.try_borrow_mut().map_err(|_| {
            Error::new(
                Status::GenericFailure,
                format!(
                    "mcp-ordered-dispatch: StdioFramer.{method}() called while this framer is busy \
                     (re-entered from JavaScript that ran inside it)"
                ),
            )
        })
    }
}

impl State {
    /// The raw text of an unchecked message of the last push.
    fn raw_text(&self, p: &Pending) -> &[u8] {
        match p.text {
            Some((start, end)) => &self.batch_raw[start..end],
            // A line assembled across chunks, the only one of its push.
            None => self.framer.assembled(),
        }
    }

    /// Tells V8 how much native memory the framer holds now.
    fn report_memory(&mut self, env: sys::napi_env) {
        let now = self.framer.heap_bytes() + self.batch_raw.capacity();
        if now != self.reported {
            let change = now as i64 - self.reported as i64;
            // Not reported (it never fails for a live env): tried again next time.
            if raw::adjust_external_memory(env, change).is_ok() {
                self.reported = now;
            }
        }
    }

    /// Copies `meta` into the reused entries array (a new one if it is too
    /// small or was detached) and returns the array.
    fn write_meta(&mut self, env: sys::napi_env, meta: &[i32]) -> Result<sys::napi_value> {
        if !self.meta_ref.is_null() {
            let array = raw::get_reference_value(env, self.meta_ref)
                .or_fail("reading the entries array")?;
            let info = (!array.is_null())
                .then(|| raw::get_typedarray_info(env, array).ok())
                .flatten();
            if let Some(a) = info.filter(|a| {
                a.kind == sys::TypedarrayType::int32_array
                    && !a.data.is_null()
                    && a.len >= meta.len()
            }) {
                // SAFETY: `data` and `len` were read just now, and no
                // JavaScript runs between that and this copy (so the array
                // cannot have been detached since): `data` points to `len`
                // >= meta.len() i32s of the array's live backing store.
                unsafe {
                    ptr::copy_nonoverlapping(meta.as_ptr(), a.data.cast::<i32>(), meta.len())
                };
                return Ok(array);
            }
        }
        // First use, too small, or detached: a new array.
        let array = int32_array(env, meta, meta.len().max(1024).next_power_of_two())?;
        let r = raw::create_reference(env, array, 1).or_fail("referencing the entries array")?;
        if !self.meta_ref.is_null() {
            // A failure leaks the old array (it cannot fail for a live ref).
            let _ = raw::delete_reference(env, self.meta_ref);
        }
        self.meta_ref = r;
        Ok(array)
    }
}

impl Drop for StdioFramer {
    fn drop(&mut self) {
        let state = self.state.get_mut();
        // In a finalizer nothing can be thrown: a failure (the env is being
        // torn down) leaves the array to the teardown and the count to V8.
        if !state.meta_ref.is_null() {
            let _ = raw::delete_reference(self.env, state.meta_ref);
        }
        if state.reported > 0 {
            let _ = raw::adjust_external_memory(self.env, -(state.reported as i64));
        }
    }
}

/// The accessors, defined by module init (`crate::init`).
pub(crate) const ACCESSORS: [Accessor; 3] = [
    Accessor {
        name: c"buffered",
        getter: Some(get_buffered),
        setter: None,
    },
    Accessor {
        name: c"offset",
        getter: Some(get_offset),
        setter: None,
    },
    Accessor {
        name: c"maxMessageSize",
        getter: Some(get_max_message_size),
        setter: None,
    },
];

/// A getter returning a number read from the framer.
fn framer_number(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    what: &str,
    read: fn(&Framer) -> f64,
) -> sys::napi_value {
    run_accessor(env, info, what, |env, this, _| {
        // SAFETY: `StdioFramer` is what napi-rs wraps into this class.
        let framer = unsafe { instance::<StdioFramer>(env, this, &STDIO_FRAMER, what)? };
        let state = framer.state.try_borrow().map_err(|_| {
            Error::from_reason(format!("mcp-ordered-dispatch: {what}: the framer is busy"))
        })?;
        js_number(env, read(&state.framer))
    })
}

/// Bytes of an incomplete line held, waiting for its newline.
unsafe extern "C" fn get_buffered(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    framer_number(env, info, "StdioFramer.buffered", |f| f.buffered() as f64)
}

/// Bytes pushed so far (the stream offset of the next chunk).
unsafe extern "C" fn get_offset(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    framer_number(env, info, "StdioFramer.offset", |f| f.offset() as f64)
}

/// The largest accepted line, in bytes.
unsafe extern "C" fn get_max_message_size(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    framer_number(env, info, "StdioFramer.maxMessageSize", |f| {
        f.options().max_message_size as f64
    })
}
