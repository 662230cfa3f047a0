//! The N-API helpers every binding file uses, and the one panic policy
//! ([`guarded`]) of every exported function, class method and accessor:
//! errors, reading arguments and options (numbers, short strings, the bytes
//! of a `Buffer`), making strings and numbers, and arrays built without
//! `[[Set]]` ([`define_array`]). The strings of framed text (transcoded,
//! external when big) and the framers' result array are `crate::js_out`'s.

use std::borrow::Cow;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use mcp_ordered_dispatch_core::panic::panic_message;
use napi::sys;
use napi::{Error, Result, Status};

pub(crate) const OK: sys::napi_status = sys::Status::napi_ok;
pub(crate) const PENDING: sys::napi_status = sys::Status::napi_pending_exception;

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
    unsafe { sys::napi_throw_type_error(env, ptr::null(), msg.as_ptr()) };
    Error::new(Status::PendingException, message.to_owned())
}

/// An `InvalidArg` error (thrown by napi-rs as an `Error` with that code).
pub(crate) fn invalid_arg<T>(message: &str) -> Result<T> {
    Err(Error::new(Status::InvalidArg, message.to_owned()))
}

/// Turns a napi status into a `Result`, leaving a pending exception pending.
pub(crate) fn check(status: sys::napi_status, what: &str) -> Result<()> {
    if status == OK {
        Ok(())
    } else {
        Err(status_error(status, what))
    }
}

/// The error for a failed napi call (a pending exception stays pending and is
/// what gets thrown).
pub(crate) fn status_error(status: sys::napi_status, what: &str) -> Error {
    if status == PENDING {
        Error::new(Status::PendingException, what.to_owned())
    } else {
        Error::new(
            Status::from(status),
            format!("mcp-ordered-dispatch: {what} failed"),
        )
    }
}

/// Clears a pending exception and returns it (or `None` if none was pending).
pub(crate) fn take_exception(env: sys::napi_env) -> Option<sys::napi_value> {
    let mut exc = ptr::null_mut();
    let status = unsafe { sys::napi_get_and_clear_last_exception(env, &mut exc) };
    if status == OK && !exc.is_null() {
        Some(exc)
    } else {
        None
    }
}

pub(crate) fn undefined(env: sys::napi_env) -> sys::napi_value {
    let mut v = ptr::null_mut();
    unsafe { sys::napi_get_undefined(env, &mut v) };
    v
}

pub(crate) fn js_string(env: sys::napi_env, s: &str) -> sys::napi_value {
    let mut v = ptr::null_mut();
    let status =
        unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v) };
    if status != OK {
        return undefined(env);
    }
    v
}

pub(crate) fn type_of(env: sys::napi_env, value: sys::napi_value) -> sys::napi_valuetype {
    let mut t = -1;
    if unsafe { sys::napi_typeof(env, value, &mut t) } != OK {
        return -1;
    }
    t
}

/// Calls `f(key_ptr)` with `key` as a NUL-terminated C string, on the stack
/// when short.
pub(crate) fn with_c_key<R>(key: &str, f: impl FnOnce(*const c_char) -> R) -> R {
    let mut buf = [0u8; 64];
    if key.len() < buf.len() && !key.contains('\0') {
        buf[..key.len()].copy_from_slice(key.as_bytes());
        f(buf.as_ptr().cast())
    } else {
        let owned = CString::new(key.replace('\0', "")).unwrap_or_default();
        f(owned.as_ptr())
    }
}

pub(crate) fn read_long_string(env: sys::napi_env, value: sys::napi_value) -> String {
    let mut len = 0usize;
    if unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len) } != OK {
        return String::new();
    }
    let mut buf = vec![0u8; len + 1];
    let mut written = 0usize;
    unsafe {
        sys::napi_get_value_string_utf8(
            env,
            value,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut written,
        )
    };
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
    let mut v = ptr::null_mut();
    check(
        unsafe { sys::napi_get_named_property(env, object, key.as_ptr(), &mut v) },
        "reading options",
    )?;
    Ok(v)
}

/// The number `value` is, if it is one.
pub(crate) fn read_number(env: sys::napi_env, value: sys::napi_value) -> Option<f64> {
    let mut n = 0f64;
    (unsafe { sys::napi_get_value_double(env, value, &mut n) } == OK).then_some(n)
}

/// The boolean `value` is, if it is one.
pub(crate) fn read_bool(env: sys::napi_env, value: sys::napi_value) -> Option<bool> {
    let mut b = false;
    (unsafe { sys::napi_get_value_bool(env, value, &mut b) } == OK).then_some(b)
}

/// The string `value` is, if it is one, cut to 31 bytes (for option values
/// such as `'report'`, compared whole).
pub(crate) fn read_short_string(env: sys::napi_env, value: sys::napi_value) -> Option<String> {
    let mut buf = [0u8; 32];
    let mut len = 0usize;
    let status = unsafe {
        sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), buf.len(), &mut len)
    };
    (status == OK).then(|| String::from_utf8_lossy(&buf[..len]).into_owned())
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
    let mut is_typed = false;
    unsafe { sys::napi_is_typedarray(env, chunk, &mut is_typed) };
    let not_bytes = || invalid_arg(&format!("{what}: chunk must be a Buffer or Uint8Array"));
    if !is_typed {
        return not_bytes();
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
    let mut plain = false;
    unsafe { sys::napi_is_arraybuffer(env, buffer, &mut plain) };
    if plain {
        Ok(Cow::Borrowed(bytes))
    } else {
        Ok(Cow::Owned(bytes.to_vec()))
    }
}

// ---------------------------------------------------------------------------
// making values

/// A one-byte string of `bytes` (Latin-1), copied.
pub(crate) fn js_latin1(env: sys::napi_env, bytes: &[u8]) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_string_latin1(env, bytes.as_ptr().cast(), bytes.len() as isize, &mut v)
        },
        "creating a string",
    )?;
    Ok(v)
}

/// A string of UTF-8 `text`, decoded by V8 (for short texts: long ones go
/// through `crate::js_out::text_string`).
pub(crate) fn js_utf8(env: sys::napi_env, text: &str) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_string_utf8(env, text.as_ptr().cast(), text.len() as isize, &mut v)
        },
        "creating a string",
    )?;
    Ok(v)
}

/// A number.
pub(crate) fn js_number(env: sys::napi_env, n: f64) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(
        unsafe { sys::napi_create_double(env, n, &mut v) },
        "creating a number",
    )?;
    Ok(v)
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
    let name = |i: usize| -> *const c_char {
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
        "creating an array",
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
    check(status, "filling an array")?;
    Ok(array)
}
