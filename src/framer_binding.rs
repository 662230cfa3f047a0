//! `StdioFramer`: the N-API face of [`crate::core::framer::Framer`].
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
//!   `JSON.parse`. Measured on 200,000 small messages: ~8% faster than one
//!   `JSON.parse` per line, and ~2.7x faster than building the objects
//!   through N-API from a `serde_json::Value` (both were built and
//!   measured, then dropped). A line over 64 KiB assembled across chunks gets
//!   a string of its own instead, to spare a copy. A batch with a few
//!   characters beyond ASCII has them written as `\uXXXX` escapes (the
//!   entries' ranges are in that text), so that it stays a one-byte string.
//! * `out[3..]`: those strings and the error fields.
//!
//! With `checkBodies: true` (the default) every line has been validated
//! (UTF-8, JSON, JSON-RPC shape) and classified in Rust before it reaches
//! JavaScript. With `checkBodies: false` (what `lib/stdio.cjs` uses) a
//! message's envelope is read and classified, its body's JSON syntax is
//! left to the `JSON.parse` JavaScript runs anyway: when that throws for a
//! message, `framer.recheck(entryIndex)` gives the checking path's
//! outcome for its line (a result like `push`'s with one entry, or
//! `undefined` for a line the configured SDK drops), from the raw text the
//! framer kept; `framer.text(entryIndex)` is that raw text (the batch and a
//! big message's own string may hold `\uXXXX` escapes instead). Both are
//! valid until the next `push` or `clear`.
//!
//! Memory safety (issue 15): no JavaScript runs inside `push` or `clear`.
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

use std::borrow::Cow;
use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::{Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::boundary;
use crate::napi_support::{check, guarded, invalid_arg as type_error, type_of, OK};
use crate::receiver::{self, instance, run_accessor, Accessor, STDIO_FRAMER};

use crate::core::framer::{
    utf16_len, BlankLines, FrameError, FrameSink, Framer, FramerOptions, Line, LineOutcome,
};
use crate::core::Profile;

fn named(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &std::ffi::CStr,
) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe { sys::napi_get_named_property(env, object, key.as_ptr(), &mut v) },
        "reading options",
    )?;
    Ok(v)
}

fn number(env: sys::napi_env, value: sys::napi_value) -> Option<f64> {
    let mut n = 0f64;
    (unsafe { sys::napi_get_value_double(env, value, &mut n) } == OK).then_some(n)
}

fn string(env: sys::napi_env, value: sys::napi_value) -> Option<String> {
    let mut buf = [0u8; 32];
    let mut len = 0usize;
    let status = unsafe {
        sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), buf.len(), &mut len)
    };
    (status == OK).then(|| String::from_utf8_lossy(&buf[..len]).into_owned())
}

fn latin1(env: sys::napi_env, bytes: &[u8]) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_string_latin1(env, bytes.as_ptr().cast(), bytes.len() as isize, &mut v)
        },
        "creating a string",
    )?;
    Ok(v)
}

fn utf8(env: sys::napi_env, text: &str) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_string_utf8(env, text.as_ptr().cast(), text.len() as isize, &mut v)
        },
        "creating a string",
    )?;
    Ok(v)
}

/// A string from valid UTF-8 text. V8's own UTF-8 decoder
/// (`napi_create_string_utf8`) measured ~100-250 MB/s on text with scattered
/// non-ASCII characters (a 9 MiB message: ~50 ms),
/// so the text is transcoded here instead: ASCII is copied as is (Latin-1);
/// text whose characters all fit in Latin-1 becomes a one-byte string
/// (which `JSON.parse` also reads faster); anything else UTF-16.
fn text_string(env: sys::napi_env, bytes: &[u8]) -> Result<sys::napi_value> {
    // One pass: ASCII if every byte < 0x80; Latin-1 if no lead byte >= 0xC4
    // (U+0100 and above).
    let max = bytes.iter().copied().max().unwrap_or(0);
    if max < 0x80 {
        return latin1(env, bytes);
    }
    if max < 0xC4 {
        return latin1(env, &to_latin1(bytes));
    }
    utf16_string(env, to_utf16(bytes))
}

/// A UTF-16 string this long or longer is handed to V8 as an external
/// string (no copy into the V8 heap) where the runtime has them.
const EXTERNAL_MIN_UNITS: usize = 1 << 20;

/// Whether `node_api_create_external_string_utf16` may be called: Node
/// exports it from 20.4 on (N-API 10 made it stable); another runtime that
/// says it is Node but lacks it fails the call, and the string is copied.
fn external_strings(env: sys::napi_env) -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    // 0: not asked yet, 1: yes, 2: no.
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Ordering::Relaxed) {
        1 => return true,
        2 => return false,
        _ => {}
    }
    let mut version: *const sys::napi_node_version = ptr::null();
    let yes = unsafe { sys::napi_get_node_version(env, &mut version) } == OK
        && !version.is_null()
        && unsafe {
            let v = &*version;
            let release = std::ffi::CStr::from_ptr(v.release);
            release.to_bytes() == b"node" && (v.major > 20 || (v.major == 20 && v.minor >= 4))
        };
    KNOWN.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
    yes
}

/// Frees the units of an external string (V8 calls it when the string is
/// collected, or at once if it copied them).
unsafe extern "C" fn free_units(
    _env: sys::node_api_basic_env,
    _data: *mut std::ffi::c_void,
    hint: *mut std::ffi::c_void,
) {
    // SAFETY: `hint` is the `Box<Vec<u16>>` leaked by `utf16_string`, and
    // this is called once for it.
    drop(unsafe { Box::from_raw(hint.cast::<Vec<u16>>()) });
}

/// Frees the bytes of an external Latin-1 string (see `free_units`).
unsafe extern "C" fn free_bytes(
    _env: sys::node_api_basic_env,
    _data: *mut std::ffi::c_void,
    hint: *mut std::ffi::c_void,
) {
    // SAFETY: `hint` is the `Box<Vec<u8>>` leaked by `latin1_string`, and
    // this is called once for it.
    drop(unsafe { Box::from_raw(hint.cast::<Vec<u8>>()) });
}

/// A one-byte string of `bytes` (Latin-1): a big one external, as
/// `utf16_string`.
fn latin1_string(env: sys::napi_env, bytes: Vec<u8>) -> Result<sys::napi_value> {
    if bytes.len() >= EXTERNAL_MIN_UNITS && external_strings(env) {
        let (data, len) = (bytes.as_ptr(), bytes.len());
        let hint = Box::into_raw(Box::new(bytes));
        let mut v = ptr::null_mut();
        let mut copied = false;
        // SAFETY: as in `utf16_string`.
        let status = unsafe {
            sys::node_api_create_external_string_latin1(
                env,
                data.cast(),
                len as isize,
                Some(free_bytes),
                hint.cast(),
                &mut v,
                &mut copied,
            )
        };
        if status == OK {
            return Ok(v);
        }
        // SAFETY: as in `utf16_string`.
        let bytes = unsafe { Box::from_raw(hint) };
        return latin1(env, &bytes);
    }
    latin1(env, &bytes)
}

/// A string of UTF-16 `units`: a big one as an external string that owns
/// them (V8 would otherwise copy megabytes into its heap), else copied.
fn utf16_string(env: sys::napi_env, units: Vec<u16>) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    if units.len() >= EXTERNAL_MIN_UNITS && external_strings(env) {
        let (data, len) = (units.as_ptr(), units.len());
        let hint = Box::into_raw(Box::new(units));
        let mut copied = false;
        // SAFETY: `data` points to `len` units owned by `*hint`, which stays
        // alive (heap, not moved) until `free_units` drops it.
        let status = unsafe {
            sys::node_api_create_external_string_utf16(
                env,
                data,
                len as isize,
                Some(free_units),
                hint.cast(),
                &mut v,
                &mut copied,
            )
        };
        if status == OK {
            return Ok(v);
        }
        // Not created (the finalizer was not called): take the units back.
        // SAFETY: `hint` came from `Box::into_raw` above and nothing else has it.
        let units = unsafe { Box::from_raw(hint) };
        check(
            unsafe {
                sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut v)
            },
            "creating a string",
        )?;
        return Ok(v);
    }
    check(
        unsafe { sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut v) },
        "creating a string",
    )?;
    Ok(v)
}

/// Latin-1 of valid UTF-8 whose characters are all below U+0100 (lead bytes
/// 0xC2 and 0xC3 only).
fn to_latin1(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        if x < 0x80 {
            out.push(x);
            i += 1;
        } else {
            let next = b.get(i + 1).copied().unwrap_or(0x80);
            out.push(((x & 0x1F) << 6) | (next & 0x3F));
            i += 2;
        }
    }
    out
}

/// UTF-16 of valid UTF-8, with a fast path for ASCII runs (8 bytes at a time).
fn to_utf16(b: &[u8]) -> Vec<u16> {
    // At most one unit per byte; written by index into a sized buffer (the
    // 8-byte ASCII copy then compiles to a widening vector move).
    let mut out = vec![0u16; b.len()];
    let (mut i, mut o) = (0, 0);
    while i < b.len() {
        #[cfg(target_arch = "x86_64")]
        while i + 16 <= b.len() {
            use std::arch::x86_64::{
                __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128, _mm_storeu_si128,
                _mm_unpackhi_epi8, _mm_unpacklo_epi8,
            };
            // SAFETY: SSE2 is part of x86_64. `i + 16 <= b.len()`, and `o <=
            // i` (never more units than bytes) with `out.len() == b.len()`,
            // so both 16-unit stores land inside `out`.
            unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(i).cast::<__m128i>());
                if _mm_movemask_epi8(v) != 0 {
                    break;
                }
                let zero = _mm_setzero_si128();
                let dst = out.as_mut_ptr().add(o).cast::<__m128i>();
                _mm_storeu_si128(dst, _mm_unpacklo_epi8(v, zero));
                _mm_storeu_si128(dst.add(1), _mm_unpackhi_epi8(v, zero));
            }
            i += 16;
            o += 16;
        }
        #[cfg(not(target_arch = "x86_64"))]
        while i + 16 <= b.len() {
            let lo = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
            let hi = u64::from_le_bytes(b[i + 8..i + 16].try_into().expect("8 bytes"));
            if (lo | hi) & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            for (dst, &src) in out[o..o + 16].iter_mut().zip(&b[i..i + 16]) {
                *dst = src as u16;
            }
            i += 16;
            o += 16;
        }
        while i + 8 <= b.len() {
            let word = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
            if word & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            for (dst, &src) in out[o..o + 8].iter_mut().zip(&b[i..i + 8]) {
                *dst = src as u16;
            }
            i += 8;
            o += 8;
        }
        if i >= b.len() {
            break;
        }
        let lead = b[i];
        if lead < 0x80 {
            out[o] = lead as u16;
            i += 1;
            o += 1;
            continue;
        }
        // A multi-byte sequence (the caller guarantees valid UTF-8).
        let (len, init) = match lead {
            0xC0..=0xDF => (2, (lead & 0x1F) as u32),
            0xE0..=0xEF => (3, (lead & 0x0F) as u32),
            _ => (4, (lead & 0x07) as u32),
        };
        let mut cp = init;
        for &cont in &b[i + 1..(i + len).min(b.len())] {
            cp = (cp << 6) | (cont & 0x3F) as u32;
        }
        if cp >= 0x1_0000 {
            let c = cp - 0x1_0000;
            out[o] = 0xD800 | (c >> 10) as u16;
            out[o + 1] = 0xDC00 | (c & 0x3FF) as u16;
            o += 2;
        } else {
            out[o] = cp as u16;
            o += 1;
        }
        i += len;
    }
    out.truncate(o);
    out
}

#[cfg(test)]
mod tests {
    use super::{to_latin1, to_utf16};

    #[test]
    fn escaping_non_ascii() {
        for s in [
            "",
            "abc",
            "déjà vu — ✓",
            "😀x\u{10FFFF}",
            "\u{7FF}\u{800}\u{FFFF}",
            "a long run of ascii before é and after it, more than eight bytes ✓ and 😀",
        ] {
            let mut out = Vec::new();
            super::escape_non_ascii(s.as_bytes(), &mut out);
            assert!(out.is_ascii());
            let quoted = format!("\"{}\"", String::from_utf8(out).unwrap());
            assert_eq!(serde_json::from_str::<String>(&quoted).unwrap(), s);
        }
    }

    #[test]
    fn utf16_transcoding() {
        for s in [
            "",
            "abc",
            "héllo wörld, long enough ascii run",
            "\u{80}\u{ff}ÿ ß",
            "€uro",
            "😀x",
            "a😀é€\u{10FFFF}\u{7FF}\u{800} and more ascii after it",
            "a run of ascii longer than sixteen bytes, then é, then another long run ✓ end",
        ] {
            let want: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(to_utf16(s.as_bytes()), want, "{s}");
            if s.chars().all(|c| (c as u32) < 0x100) {
                let latin: Vec<u8> = s.chars().map(|c| c as u32 as u8).collect();
                assert_eq!(to_latin1(s.as_bytes()), latin, "{s}");
            }
        }
    }
}

/// Reads `{ sdk?: 1 | 2, maxMessageSize?: number, blankLines?: 'report' | 'skip', strict?: boolean }`.
fn read_options(env: sys::napi_env, options: sys::napi_value) -> Result<FramerOptions> {
    let t = type_of(env, options);
    if t == sys::ValueType::napi_undefined || t == sys::ValueType::napi_null {
        return Ok(FramerOptions::default());
    }
    if t != sys::ValueType::napi_object {
        return type_error("new StdioFramer(options): options must be an object");
    }
    let sdk = named(env, options, c"sdk")?;
    let profile = match type_of(env, sdk) {
        sys::ValueType::napi_undefined => Profile::V1,
        _ => match number(env, sdk) {
            Some(1.0) => Profile::V1,
            Some(2.0) => Profile::V2,
            _ => {
                return type_error(
                    "new StdioFramer(options): options.sdk must be 1 or 2 (the major version of the MCP SDK)",
                )
            }
        },
    };
    let strict = named(env, options, c"strict")?;
    let mut o = match type_of(env, strict) {
        sys::ValueType::napi_undefined => FramerOptions::for_profile(profile),
        sys::ValueType::napi_boolean => {
            let mut b = false;
            unsafe { sys::napi_get_value_bool(env, strict, &mut b) };
            if b {
                FramerOptions::strict(profile)
            } else {
                FramerOptions::for_profile(profile)
            }
        }
        _ => return type_error("new StdioFramer(options): options.strict must be a boolean"),
    };
    let max = named(env, options, c"maxMessageSize")?;
    if type_of(env, max) != sys::ValueType::napi_undefined {
        match number(env, max) {
            Some(n) if n >= 1.0 && n.is_finite() && n.trunc() == n => {
                o.max_message_size = n.min(usize::MAX as f64) as usize;
            }
            _ => {
                return type_error(
                    "new StdioFramer(options): options.maxMessageSize must be a positive integer (bytes)",
                )
            }
        }
    }
    let check_bodies = named(env, options, c"checkBodies")?;
    match type_of(env, check_bodies) {
        sys::ValueType::napi_undefined => {}
        sys::ValueType::napi_boolean => {
            let mut b = true;
            unsafe { sys::napi_get_value_bool(env, check_bodies, &mut b) };
            o.check_bodies = b;
        }
        _ => return type_error("new StdioFramer(options): options.checkBodies must be a boolean"),
    }
    let blank = named(env, options, c"blankLines")?;
    if type_of(env, blank) != sys::ValueType::napi_undefined {
        o.blank_lines = match string(env, blank).as_deref() {
            Some("report") => BlankLines::Report,
            Some("skip") => BlankLines::Skip,
            _ => {
                return type_error(
                    "new StdioFramer(options): options.blankLines must be 'report' or 'skip'",
                )
            }
        };
    }
    Ok(o)
}

/// The bytes of a Buffer / Uint8Array argument: borrowed, or copied when
/// they live in a `SharedArrayBuffer`.
fn chunk_bytes<'a>(env: sys::napi_env, chunk: sys::napi_value) -> Result<Cow<'a, [u8]>> {
    let mut is_typed = false;
    unsafe { sys::napi_is_typedarray(env, chunk, &mut is_typed) };
    if !is_typed {
        return type_error("StdioFramer.push(chunk): chunk must be a Buffer or Uint8Array");
    }
    let mut kind = 0;
    let mut len = 0usize;
    let mut data = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    check(
        unsafe {
            sys::napi_get_typedarray_info(
                env,
                chunk,
                &mut kind,
                &mut len,
                &mut data,
                &mut buffer,
                ptr::null_mut(),
            )
        },
        "reading the chunk",
    )?;
    if kind != sys::TypedarrayType::uint8_array {
        return type_error("StdioFramer.push(chunk): chunk must be a Buffer or Uint8Array");
    }
    if len == 0 || data.is_null() {
        // Empty, or its buffer was detached (a detached view has length 0).
        return Ok(Cow::Borrowed(&[]));
    }
    // SAFETY: `data` points to `len` bytes of the chunk's backing store,
    // off the V8 heap (asking for the buffer, as above, moves a small array's
    // data there), where V8 never moves it. The chunk is an argument of the
    // running call, so its buffer cannot be collected before the call
    // returns; and no JavaScript runs until then (see the module docs), so
    // nothing can detach or transfer it (which would free the bytes) while
    // the slice lives. Only another thread could write it, through a
    // SharedArrayBuffer: that case is copied below.
    let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, len) };
    // A SharedArrayBuffer (`napi_is_arraybuffer` is false for one) can be
    // written by another thread at any time: frame a private copy.
    let mut plain = false;
    unsafe { sys::napi_is_arraybuffer(env, buffer, &mut plain) };
    if plain {
        Ok(Cow::Borrowed(bytes))
    } else {
        Ok(Cow::Owned(bytes.to_vec()))
    }
}

/// A line assembled across chunks larger than this gets a string of its own
/// rather than a copy into the batch.
const BATCH_MAX_COPY: usize = 64 * 1024;

/// A batch buffer larger than this is released after use.
const BATCH_KEEP: usize = 1 << 20;

/// Collects one push's lines into `meta`, the batch and the values of
/// `out[3..]`.
struct JsSink {
    env: sys::napi_env,
    /// `out[3..]`: strings and numbers, alive in the call's handle scope.
    values: Vec<sys::napi_value>,
    meta: Vec<i32>,
    /// The messages, as the text of one JSON array, and its UTF-16 length.
    batch: Vec<u8>,
    batch_units: usize,
    /// Each batch message's entry (its index in `meta`) and byte range in
    /// `batch`.
    batch_spans: Vec<(usize, usize, usize)>,
    /// Bytes of the batch beyond its UTF-16 length (a measure of how much of
    /// it is not ASCII).
    batch_non_ascii: usize,
    /// The batch with its non-ASCII characters escaped (see `batch_string`).
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

/// The first index of `out` after the entries, the count and the batch.
const FIRST_VALUE: usize = boundary::OUT_VALUES;

/// `out[..OUT_VALUES]`: the entries, their count and the batch, each at its
/// `crate::boundary::OUT_*` index.
fn out_head(
    entries: sys::napi_value,
    count: sys::napi_value,
    batch: sys::napi_value,
) -> [sys::napi_value; boundary::OUT_VALUES] {
    let mut head = [ptr::null_mut(); boundary::OUT_VALUES];
    head[boundary::OUT_ENTRIES] = entries;
    head[boundary::OUT_COUNT] = count;
    head[boundary::OUT_BATCH] = batch;
    head
}

impl JsSink {
    fn new(env: sys::napi_env) -> Self {
        JsSink {
            env,
            values: Vec::new(),
            meta: Vec::new(),
            batch: Vec::new(),
            batch_units: 0,
            batch_spans: Vec::new(),
            batch_non_ascii: 0,
            escaped: Vec::new(),
            pending: Vec::new(),
            failure: None,
        }
    }

    /// Adds a value to `out` and returns its index.
    fn append(&mut self, value: sys::napi_value) -> Result<u32> {
        let index = FIRST_VALUE + self.values.len();
        if index > i32::MAX as usize {
            return type_error("StdioFramer.push(chunk): too many lines in one chunk");
        }
        self.values.push(value);
        Ok(index as u32)
    }

    /// Adds an entry: `[code, slot, start, end]`.
    fn entry(&mut self, [code, slot, start, end]: [i32; boundary::ENTRY_SIZE]) {
        let mut fields = [0; boundary::ENTRY_SIZE];
        fields[boundary::ENTRY_CODE] = code;
        fields[boundary::ENTRY_SLOT] = slot;
        fields[boundary::ENTRY_START] = start;
        fields[boundary::ENTRY_END] = end;
        self.meta.extend_from_slice(&fields);
    }

    /// A bad line's entry, and its fields at `out[slot + BAD_*]` (the line's
    /// text, when there is one, last).
    fn error(&mut self, error: &FrameError) -> Result<()> {
        let env = self.env;
        let mut fields = [ptr::null_mut(); boundary::BAD_TEXT + 1];
        fields[boundary::BAD_MESSAGE] = utf8(env, &error.to_string())?;
        for (at, n) in [
            (boundary::BAD_OFFSET, error.offset),
            (boundary::BAD_LINE, error.line),
        ] {
            check(
                unsafe { sys::napi_create_double(env, n as f64, &mut fields[at]) },
                "creating a number",
            )?;
        }
        fields[boundary::BAD_REASON] = latin1(env, error.kind.code().as_bytes())?;
        let (count, has_text) = match &error.text {
            Some(text) => {
                fields[boundary::BAD_TEXT] = utf8(env, text)?;
                (boundary::BAD_TEXT + 1, 1)
            }
            None => (boundary::BAD_TEXT, 0),
        };
        let slot = FIRST_VALUE + self.values.len();
        for value in &fields[..count] {
            self.append(*value)?;
        }
        self.entry([boundary::CODE_BAD_LINE, slot as i32, has_text, 0]);
        Ok(())
    }

    fn on_line(&mut self, line: &Line, outcome: LineOutcome<'_>) -> Result<()> {
        match outcome {
            LineOutcome::Message(m) => {
                let code = boundary::kind_code(&m.kind).expect("a framed message is valid")
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
                let mut pending = Pending {
                    entry: self.meta.len() / boundary::ENTRY_SIZE,
                    offset: line.offset,
                    number: line.number,
                    terminator: line.terminator,
                    text: None,
                };
                if line.span.is_none() && m.text.len() > BATCH_MAX_COPY {
                    // A big line assembled across chunks: a string of its own,
                    // taken whole (`slice(0, i32::MAX)` is the string itself).
                    // Escaped like a batch when little of it is beyond ASCII
                    // (its raw text stays in the framer: `Framer::assembled`).
                    let non_ascii = m.text.len() - utf16_len(m.text);
                    let s = if non_ascii > 0 && non_ascii * ESCAPE_BELOW <= m.text.len() {
                        let mut out = Vec::with_capacity(m.text.len() + non_ascii * 4);
                        escape_non_ascii(m.text.as_bytes(), &mut out);
                        latin1_string(self.env, out)?
                    } else {
                        text_string(self.env, m.text.as_bytes())?
                    };
                    let slot = self.append(s)? as i32;
                    self.entry([code, slot, 0, i32::MAX]);
                    if !m.checked {
                        self.pending.push(pending);
                    }
                } else {
                    let units = line.utf16_len.unwrap_or_else(|| utf16_len(m.text));
                    self.batch
                        .push(if self.batch.is_empty() { b'[' } else { b',' });
                    if !m.checked {
                        pending.text = Some((self.batch.len(), self.batch.len() + m.text.len()));
                        self.pending.push(pending);
                    }
                    let byte_start = self.batch.len();
                    self.batch.extend_from_slice(m.text.as_bytes());
                    self.batch_spans
                        .push((self.meta.len(), byte_start, self.batch.len()));
                    self.batch_non_ascii += m.text.len() - units;
                    let start = self.batch_units + 1;
                    self.batch_units = start + units;
                    self.entry([
                        code,
                        boundary::OUT_BATCH as i32,
                        start as i32,
                        self.batch_units as i32,
                    ]);
                }
            }
            LineOutcome::Error(e) => self.error(&e)?,
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
        if self.meta.is_empty() {
            let mut undefined = ptr::null_mut();
            unsafe { sys::napi_get_undefined(env, &mut undefined) };
            return Ok(undefined);
        }
        // The batch string first: escaping it moves the entries' ranges.
        let batch = self.batch_string()?;
        let meta = entries(env, &self.meta)?;
        let mut count = ptr::null_mut();
        check(
            unsafe {
                sys::napi_create_uint32(
                    env,
                    (self.meta.len() / boundary::ENTRY_SIZE) as u32,
                    &mut count,
                )
            },
            "creating a number",
        )?;
        define_array(env, &out_head(meta, count, batch), &self.values)
    }

    /// The batch string (`out[2]`), or `undefined` when no message went into it.
    fn batch_string(&mut self) -> Result<sys::napi_value> {
        if self.batch.is_empty() {
            let mut undefined = ptr::null_mut();
            unsafe { sys::napi_get_undefined(self.env, &mut undefined) };
            return Ok(undefined);
        }
        self.batch.push(b']');
        if self.batch_non_ascii == 0 {
            return latin1(self.env, &self.batch);
        }
        if self.batch_non_ascii * ESCAPE_BELOW > self.batch.len() {
            // Mostly not ASCII: UTF-16.
            return text_string(self.env, &self.batch);
        }
        // A few characters that are not ASCII (a message in a chunk of
        // hundreds): written as `\uXXXX` escapes, the batch stays ASCII, a
        // one-byte string V8 copies as is, instead of a UTF-16 transcode of
        // the whole chunk at twice the size. Valid: every message is a JSON
        // object whose characters beyond ASCII can only be inside strings,
        // and never right after a backslash (the envelope scan and
        // serde_json both refuse `\` before anything but an escape
        // character); so each message parses to the same value. The raw
        // batch is kept (for `recheck`); the entries' ranges move to the
        // escaped text.
        let mut out = std::mem::take(&mut self.escaped);
        out.clear();
        out.reserve(self.batch.len() + self.batch_non_ascii * 4);
        let mut copied = 0;
        for &(entry, start, end) in &self.batch_spans {
            out.extend_from_slice(&self.batch[copied..start]);
            self.meta[entry + boundary::ENTRY_START] = out.len() as i32;
            escape_non_ascii(&self.batch[start..end], &mut out);
            self.meta[entry + boundary::ENTRY_END] = out.len() as i32;
            copied = end;
        }
        out.extend_from_slice(&self.batch[copied..]);
        let result = latin1(self.env, &out);
        self.escaped = out;
        result
    }
}

/// A batch whose non-ASCII share (bytes beyond its UTF-16 length, per byte)
/// is below 1 / this is escaped to ASCII rather than transcoded to UTF-16.
const ESCAPE_BELOW: usize = 16;

/// The length of the ASCII run `b` starts with (eight bytes at a time).
fn ascii_run(b: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let high = w & 0x8080_8080_8080_8080;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&x| x >= 0x80)
        .unwrap_or(b.len() - i)
}

/// Appends valid UTF-8 `text` with every character beyond ASCII written as
/// JSON `\uXXXX` escapes (two for one outside the BMP).
fn escape_non_ascii(text: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let unit = |u: u16, out: &mut Vec<u8>| {
        out.extend_from_slice(&[
            b'\\',
            b'u',
            HEX[(u >> 12) as usize],
            HEX[((u >> 8) & 15) as usize],
            HEX[((u >> 4) & 15) as usize],
            HEX[(u & 15) as usize],
        ]);
    };
    let mut i = 0;
    while i < text.len() {
        let run = ascii_run(&text[i..]);
        out.extend_from_slice(&text[i..i + run]);
        i += run;
        if i >= text.len() {
            break;
        }
        let lead = text[i];
        let (len, init) = match lead {
            0xC0..=0xDF => (2, (lead & 0x1F) as u32),
            0xE0..=0xEF => (3, (lead & 0x0F) as u32),
            _ => (4, (lead & 0x07) as u32),
        };
        let mut cp = init;
        for &cont in &text[i + 1..(i + len).min(text.len())] {
            cp = (cp << 6) | (cont & 0x3F) as u32;
        }
        if cp >= 0x1_0000 {
            let c = cp - 0x1_0000;
            unit(0xD800 | (c >> 10) as u16, out);
            unit(0xDC00 | (c & 0x3FF) as u16, out);
        } else {
            unit(cp as u16, out);
        }
        i += len;
    }
}

/// Appends the decimal digits of `n`.
fn push_decimal(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Index names for the usual result arrays (no allocation).
const SMALL_NAMES: [&std::ffi::CStr; 12] = [
    c"0", c"1", c"2", c"3", c"4", c"5", c"6", c"7", c"8", c"9", c"10", c"11",
];

/// `[first, ...rest]` as a new array whose elements are own data properties
/// defined with `napi_define_properties`: unlike `napi_set_element` (a
/// `[[Set]]`, which finds and calls an accessor that JavaScript installed on
/// `Array.prototype` for a missing index), defining runs no JavaScript.
fn define_array(
    env: sys::napi_env,
    first: &[sys::napi_value],
    rest: &[sys::napi_value],
) -> Result<sys::napi_value> {
    let len = first.len() + rest.len();
    // The names of indices past SMALL_NAMES, NUL-terminated, one after the
    // other (not changed again once the descriptors point into them).
    let mut names = Vec::new();
    let mut starts = Vec::new();
    for i in SMALL_NAMES.len()..len {
        starts.push(names.len());
        push_decimal(&mut names, i);
        names.push(0);
    }
    let name = |i: usize| -> *const std::ffi::c_char {
        match SMALL_NAMES.get(i) {
            Some(n) => n.as_ptr(),
            None => names[starts[i - SMALL_NAMES.len()]..].as_ptr().cast(),
        }
    };
    let descriptor = |i: usize, value: sys::napi_value| sys::napi_property_descriptor {
        utf8name: name(i),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value,
        // As an element an array literal makes.
        attributes: sys::PropertyAttributes::writable
            | sys::PropertyAttributes::enumerable
            | sys::PropertyAttributes::configurable,
        data: ptr::null_mut(),
    };
    let mut array = ptr::null_mut();
    check(
        unsafe { sys::napi_create_array_with_length(env, len, &mut array) },
        "creating the result array",
    )?;
    let values = first.iter().chain(rest).copied();
    let status = if len <= SMALL_NAMES.len() {
        let mut small = [descriptor(0, ptr::null_mut()); SMALL_NAMES.len()];
        for (i, value) in values.enumerate() {
            small[i] = descriptor(i, value);
        }
        unsafe { sys::napi_define_properties(env, array, len, small.as_ptr()) }
    } else {
        let all: Vec<_> = values.enumerate().map(|(i, v)| descriptor(i, v)).collect();
        unsafe { sys::napi_define_properties(env, array, len, all.as_ptr()) }
    };
    check(status, "filling the result array")?;
    Ok(array)
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
            let options = read_options(env, options)?;
            receiver::tag_instance(env, this, &STDIO_FRAMER)?;
            Ok(StdioFramer {
                env,
                state: RefCell::new(State {
                    framer: Framer::new(options),
                    batch_raw: Vec::new(),
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
            let bytes = chunk_bytes(env, chunk)?;
            if bytes.len() > (i32::MAX as usize) / 2 {
                return type_error("StdioFramer.push(chunk): chunk larger than 1 GiB");
            }
            let mut sink = JsSink::new(env);
            // The last push's batch text is kept for `recheck` until now.
            sink.batch = std::mem::take(&mut state.batch_raw);
            sink.batch.clear();
            state.pending.clear();
            state.framer.push(&bytes[..], &mut sink);
            drop(bytes);
            let result = sink.finish(env, |env, meta| state.write_meta(env, meta));
            state.pending = std::mem::take(&mut sink.pending);
            state.batch_raw = std::mem::take(&mut sink.batch);
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
            let index = match number(env, entry) {
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
            let mut sink = JsSink::new(env);
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
            let found = number(env, entry)
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
                None => {
                    let mut undefined = ptr::null_mut();
                    unsafe { sys::napi_get_undefined(env, &mut undefined) };
                    Ok(undefined)
                }
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
            let mut total = 0i64;
            if unsafe { sys::napi_adjust_external_memory(env, change, &mut total) } == OK {
                self.reported = now;
            }
        }
    }

    /// Copies `meta` into the reused entries array (a new one if it is too
    /// small or was detached) and returns the array.
    fn write_meta(&mut self, env: sys::napi_env, meta: &[i32]) -> Result<sys::napi_value> {
        if !self.meta_ref.is_null() {
            let mut array = ptr::null_mut();
            check(
                unsafe { sys::napi_get_reference_value(env, self.meta_ref, &mut array) },
                "reading the entries array",
            )?;
            let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
            if !array.is_null()
                && unsafe {
                    sys::napi_get_typedarray_info(
                        env,
                        array,
                        &mut kind,
                        &mut len,
                        &mut data,
                        ptr::null_mut(),
                        ptr::null_mut(),
                    )
                } == OK
                && kind == sys::TypedarrayType::int32_array
                && !data.is_null()
                && len >= meta.len()
            {
                // SAFETY: `data` and `len` were read just now, and no
                // JavaScript runs between that and this copy (so the array
                // cannot have been detached since): `data` points to `len`
                // >= meta.len() i32s of the array's live backing store.
                unsafe { ptr::copy_nonoverlapping(meta.as_ptr(), data.cast::<i32>(), meta.len()) };
                return Ok(array);
            }
        }
        // First use, too small, or detached: a new array.
        let array = int32_array(env, meta, meta.len().max(1024).next_power_of_two())?;
        let mut r = ptr::null_mut();
        check(
            unsafe { sys::napi_create_reference(env, array, 1, &mut r) },
            "referencing the entries array",
        )?;
        if !self.meta_ref.is_null() {
            unsafe { sys::napi_delete_reference(env, self.meta_ref) };
        }
        self.meta_ref = r;
        Ok(array)
    }
}

/// A new `Int32Array` of `meta.len()` integers holding `meta`.
fn new_int32_array(env: sys::napi_env, meta: &[i32]) -> Result<sys::napi_value> {
    int32_array(env, meta, meta.len())
}

/// A new `Int32Array` of `cap` (>= `meta.len()`) integers starting with `meta`.
fn int32_array(env: sys::napi_env, meta: &[i32], cap: usize) -> Result<sys::napi_value> {
    let mut data = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    check(
        unsafe { sys::napi_create_arraybuffer(env, cap * 4, &mut data, &mut buffer) },
        "allocating the entries array",
    )?;
    let mut array = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_typedarray(
                env,
                sys::TypedarrayType::int32_array,
                cap,
                buffer,
                0,
                &mut array,
            )
        },
        "allocating the entries array",
    )?;
    if !meta.is_empty() {
        // SAFETY: `data` is the new buffer's `cap * 4` bytes (cap >=
        // meta.len()), just allocated; no JavaScript has seen it yet.
        unsafe { ptr::copy_nonoverlapping(meta.as_ptr(), data.cast::<i32>(), meta.len()) };
    }
    Ok(array)
}

impl Drop for StdioFramer {
    fn drop(&mut self) {
        let state = self.state.get_mut();
        if !state.meta_ref.is_null() {
            unsafe { sys::napi_delete_reference(self.env, state.meta_ref) };
        }
        if state.reported > 0 {
            let mut total = 0i64;
            unsafe {
                sys::napi_adjust_external_memory(self.env, -(state.reported as i64), &mut total)
            };
        }
    }
}

/// The accessors, defined by `crate::receiver::init`.
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
        let mut v = ptr::null_mut();
        check(
            unsafe { sys::napi_create_double(env, read(&state.framer), &mut v) },
            "creating a number",
        )?;
        Ok(v)
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
