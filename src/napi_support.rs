//! The N-API helpers every binding file uses, and the one panic policy
//! ([`guarded`]) of every exported function, class method and accessor.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::sys;
use napi::{Error, Result, Status};

pub(crate) const OK: sys::napi_status = sys::Status::napi_ok;
pub(crate) const PENDING: sys::napi_status = sys::Status::napi_pending_exception;

// ---------------------------------------------------------------------------
// panics and errors

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

/// The error a panic in `what` becomes.
pub(crate) fn panic_error(what: &str, payload: &(dyn std::any::Any + Send)) -> Error {
    Error::new(
        Status::GenericFailure,
        format!(
            "mcp-ordered-dispatch: internal error in {what} (Rust panic: {})",
            panic_message(payload)
        ),
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
