//! The N-API helpers every binding file uses (over `crate::raw`), and the one panic policy
//! ([`guarded`]) of every exported function, class method and accessor:
//! errors, reading arguments and options (numbers, short strings, the bytes
//! of a `Buffer`), making strings and numbers, and arrays built without
//! `[[Set]]` ([`define_array`]). The strings of framed text (transcoded,
//! external when big) and the framers' result array are `crate::js_out`'s.

use std::borrow::Cow;
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use mcp_ordered_dispatch_core::panic::panic_message;
use napi::sys;
use napi::{Error, Result, Status};

use crate::raw::{self, OrFail};

// ---------------------------------------------------------------------------
// panics and errors

/// The error a panic in `what` becomes.
pub(crate) fn panic_error(what: &str, payload: &(dyn std::any::Any + Send)) -> Error {
    internal_error(what, &panic_message(payload))
}

/// The error of a Rust panic with message `message` in `what` (caught where
/// it happened, for instance on another thread, and thrown later).
pub(crate) fn internal_error(what: &str, message: &str) -> Error {
    Error::new(
        Status::GenericFailure,
        format!("mcp-ordered-dispatch: internal error in {what} (Rust panic: {message})"),
    )
}

/// The one panic policy: every exported function, method and accessor runs
/// its body under this (accessors through `crate::receiver::run_accessor`),
/// so a Rust panic becomes a thrown JavaScript `Error` ("internal error in
/// {what} (Rust panic: ...)"), never an abort.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panic_error(what, &*payload)))
}

/// Leaves a `TypeError` pending and returns the matching error (napi-rs then
/// leaves the pending exception alone).
pub(crate) fn type_error(env: sys::napi_env, message: &str) -> Error {
    let msg = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // Not thrown only when another exception is pending: that one is thrown.
    let _ = raw::throw_type_error(env, &msg);
    Error::new(Status::PendingException, message.to_owned())
}

/// An `InvalidArg` error (thrown by napi-rs as an `Error` with that code).
pub(crate) fn invalid_arg<T>(message: &str) -> Result<T> {
    Err(Error::new(Status::InvalidArg, message.to_owned()))
}

/// Clears a pending exception and returns it (or `None` if none was pending).
pub(crate) fn take_exception(env: sys::napi_env) -> Option<sys::napi_value> {
    raw::get_and_clear_last_exception(env)
        .ok()
        .filter(|exc| !exc.is_null())
}

/// `undefined` (null, which N-API reads as undefined, should N-API fail to
/// give it: it never does for a live env).
pub(crate) fn undefined(env: sys::napi_env) -> sys::napi_value {
    raw::get_undefined(env).unwrap_or(ptr::null_mut())
}

/// A string of `s`, or `undefined` if it cannot be made.
pub(crate) fn js_string(env: sys::napi_env, s: &str) -> sys::napi_value {
    raw::create_string_utf8(env, s).unwrap_or_else(|_| undefined(env))
}

/// The type of `value`; -1 (no type) if N-API cannot tell.
pub(crate) fn type_of(env: sys::napi_env, value: sys::napi_value) -> sys::napi_valuetype {
    raw::type_of(env, value).unwrap_or(-1)
}

/// Calls `f(key)` with `key` as a NUL-terminated C string, on the stack
/// when short.
pub(crate) fn with_c_key<R>(key: &str, f: impl FnOnce(&CStr) -> R) -> R {
    let mut buf = [0u8; 64];
    if key.len() < buf.len() && !key.contains('\0') {
        buf[..key.len()].copy_from_slice(key.as_bytes());
        match CStr::from_bytes_until_nul(&buf) {
            Ok(k) => f(k),
            Err(_) => unreachable!("the buffer ends with a NUL"),
        }
    } else {
        let owned = CString::new(key.replace('\0', "")).unwrap_or_default();
        f(&owned)
    }
}

/// The string `value` is, whole (lossy UTF-8); empty if it is none.
pub(crate) fn read_long_string(env: sys::napi_env, value: sys::napi_value) -> String {
    let Ok(len) = raw::string_utf8_len(env, value) else {
        return String::new();
    };
    let mut buf = vec![0u8; len + 1];
    let written = raw::get_value_string_utf8(env, value, &mut buf).unwrap_or(0);
    buf.truncate(written);
    String::from_utf8_lossy(&buf).into_owned()
}

// ---------------------------------------------------------------------------
// reading arguments and options

/// `object[key]` (may run a getter; a thrown exception stays pending).
pub(crate) fn read_named(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &CStr,
) -> Result<sys::napi_value> {
    raw::get_named_property(env, object, key).or_fail("reading options")
}

/// The number `value` is, if it is one.
pub(crate) fn read_number(env: sys::napi_env, value: sys::napi_value) -> Option<f64> {
    raw::get_value_double(env, value).ok()
}

/// The boolean `value` is, if it is one.
pub(crate) fn read_bool(env: sys::napi_env, value: sys::napi_value) -> Option<bool> {
    raw::get_value_bool(env, value).ok()
}

/// The string `value` is, if it is one, cut to 31 bytes (for option values
/// such as `'report'`, compared whole).
pub(crate) fn read_short_string(env: sys::napi_env, value: sys::napi_value) -> Option<String> {
    let mut buf = [0u8; 32];
    let len = raw::get_value_string_utf8(env, value, &mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf[..len]).into_owned())
}

/// The largest chunk the framers take (their offsets are `i32` UTF-16 units).
const CHUNK_MAX: usize = (i32::MAX as usize) / 2;

/// The bytes of a Buffer / Uint8Array argument of `what` (`"StdioFramer.push(chunk)"`):
/// borrowed, or copied when they live in a `SharedArrayBuffer`. Refuses
/// (`InvalidArg`) anything else and a chunk over 1 GiB.
///
/// The borrow is valid only until the running call returns, and only while
/// no JavaScript runs: the caller must not keep it, nor call into
/// JavaScript while it lives.
pub(crate) fn chunk_bytes<'a>(
    env: sys::napi_env,
    chunk: sys::napi_value,
    what: &str,
) -> Result<Cow<'a, [u8]>> {
    let not_bytes = || invalid_arg(&format!("{what}: chunk must be a Buffer or Uint8Array"));
    if raw::is_typedarray(env, chunk) != Ok(true) {
        return not_bytes();
    }
    let raw::TypedArray {
        kind,
        len,
        data,
        buffer,
    } = raw::get_typedarray_info(env, chunk).or_fail("reading the chunk")?;
    if kind != sys::TypedarrayType::uint8_array {
        return not_bytes();
    }
    if len > CHUNK_MAX {
        return invalid_arg(&format!("{what}: chunk larger than 1 GiB"));
    }
    if len == 0 || data.is_null() {
        // Empty, or its buffer was detached (a detached view has length 0).
        return Ok(Cow::Borrowed(&[]));
    }
    // SAFETY: `data` points to `len` bytes of the chunk's backing store,
    // off the V8 heap (asking for the buffer, as above, moves a small array's
    // data there), where V8 never moves it. The chunk is an argument of the
    // running call, so its buffer cannot be collected before the call
    // returns; and no JavaScript runs until then (the caller's contract), so
    // nothing can detach or transfer it (which would free the bytes) while
    // the slice lives. Only another thread could write it, through a
    // SharedArrayBuffer: that case is copied below.
    let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, len) };
    // A SharedArrayBuffer (`napi_is_arraybuffer` is false for one) can be
    // written by another thread at any time: a private copy.
    // (Not known to be a plain one: copied too.)
    if raw::is_arraybuffer(env, buffer) == Ok(true) {
        Ok(Cow::Borrowed(bytes))
    } else {
        Ok(Cow::Owned(bytes.to_vec()))
    }
}

// ---------------------------------------------------------------------------
// making values

/// A one-byte string of `bytes` (Latin-1), copied.
pub(crate) fn js_latin1(env: sys::napi_env, bytes: &[u8]) -> Result<sys::napi_value> {
    raw::create_string_latin1(env, bytes).or_fail("creating a string")
}

/// A string of UTF-8 `text`, decoded by V8 (for short texts: long ones go
/// through `crate::js_out::text_string`).
pub(crate) fn js_utf8(env: sys::napi_env, text: &str) -> Result<sys::napi_value> {
    raw::create_string_utf8(env, text).or_fail("creating a string")
}

/// A number.
pub(crate) fn js_number(env: sys::napi_env, n: f64) -> Result<sys::napi_value> {
    raw::create_double(env, n).or_fail("creating a number")
}

// ---------------------------------------------------------------------------
// arrays without [[Set]]

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

/// Index names for the usual arrays (no allocation).
const SMALL_NAMES: [&CStr; 12] = [
    c"0", c"1", c"2", c"3", c"4", c"5", c"6", c"7", c"8", c"9", c"10", c"11",
];

/// `[...first, ...rest]` as a new array whose elements are own data
/// properties defined with `napi_define_properties`: unlike
/// `napi_set_element` (a `[[Set]]`, which finds and calls an accessor that
/// JavaScript installed on `Array.prototype` for a missing index), defining
/// runs no JavaScript.
pub(crate) fn define_array(
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
    let array = raw::create_array_with_length(env, len).or_fail("creating an array")?;
    let values = first.iter().chain(rest).copied();
    let defined = if len <= SMALL_NAMES.len() {
        let mut small = [descriptor(0, ptr::null_mut()); SMALL_NAMES.len()];
        for (i, value) in values.enumerate() {
            small[i] = descriptor(i, value);
        }
        raw::define_properties(env, array, &small[..len])
    } else {
        let all: Vec<_> = values.enumerate().map(|(i, v)| descriptor(i, v)).collect();
        raw::define_properties(env, array, &all)
    };
    defined.or_fail("filling an array")?;
    Ok(array)
}
