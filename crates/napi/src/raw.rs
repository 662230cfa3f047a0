//! Every raw N-API call the binding makes (`napi::sys`), each behind a thin
//! `#[inline]` wrapper: the audit surface of the binding's `unsafe` towards
//! N-API. Each wrapper returns its status as a [`Raw`] result (never
//! dropped: a caller that has no use for a failure says so where it ignores
//! it), and fills its out-parameters itself.
//!
//! These calls stay raw on the hot paths (dispatch, pushing a chunk and
//! reading its frames) rather than going through napi-rs's wrappers: that
//! is where they were measured faster. `#[inline]`: each wrapper compiles
//! to the call itself.
//!
//! Safety: the safe wrappers take only handles that N-API handed the
//! running callback (`napi_env`, `napi_value`, which N-API checks itself:
//! a value of the wrong kind is a status, not undefined behaviour) or that
//! the addon holds and has not released (`napi_ref`), and Rust-owned memory
//! they borrow for the call. The `unsafe fn`s hand
//! N-API a pointer it keeps or a callback it calls later: their callers
//! state why that pointer lives long enough.

use std::ffi::{c_char, c_void, CStr};
use std::ptr;

use napi::sys;
use napi::{Error, Status};

pub(crate) const OK: sys::napi_status = sys::Status::napi_ok;
pub(crate) const PENDING: sys::napi_status = sys::Status::napi_pending_exception;

/// A failed N-API call: its status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failed(pub(crate) sys::napi_status);

/// The outcome of one N-API call.
pub(crate) type Raw<T> = std::result::Result<T, Failed>;

impl Failed {
    /// The error for this failure of `what` (a pending exception stays
    /// pending and is what gets thrown).
    pub(crate) fn error(self, what: &str) -> Error {
        if self.0 == PENDING {
            Error::new(Status::PendingException, what.to_owned())
        } else {
            Error::new(
                Status::from(self.0),
                format!("mcp-ordered-dispatch: {what} failed"),
            )
        }
    }
}

/// `.or_fail("what")`: a [`Raw`] result as a `napi::Result`.
pub(crate) trait OrFail<T> {
    fn or_fail(self, what: &str) -> napi::Result<T>;
}

impl<T> OrFail<T> for Raw<T> {
    #[inline]
    fn or_fail(self, what: &str) -> napi::Result<T> {
        self.map_err(|f| f.error(what))
    }
}

#[inline]
fn status(s: sys::napi_status) -> Raw<()> {
    if s == OK {
        Ok(())
    } else {
        Err(Failed(s))
    }
}

/// A call that fills one out-parameter.
#[inline]
fn out<T>(init: T, call: impl FnOnce(&mut T) -> sys::napi_status) -> Raw<T> {
    let mut v = init;
    status(call(&mut v))?;
    Ok(v)
}

// ---------------------------------------------------------------------------
// values: reading

#[inline]
pub(crate) fn type_of(env: sys::napi_env, v: sys::napi_value) -> Raw<sys::napi_valuetype> {
    out(-1, |t| unsafe { sys::napi_typeof(env, v, t) })
}

#[inline]
pub(crate) fn get_value_double(env: sys::napi_env, v: sys::napi_value) -> Raw<f64> {
    out(0.0, |n| unsafe { sys::napi_get_value_double(env, v, n) })
}

#[inline]
pub(crate) fn get_value_int32(env: sys::napi_env, v: sys::napi_value) -> Raw<i32> {
    out(0, |n| unsafe { sys::napi_get_value_int32(env, v, n) })
}

#[inline]
pub(crate) fn get_value_uint32(env: sys::napi_env, v: sys::napi_value) -> Raw<u32> {
    out(0, |n| unsafe { sys::napi_get_value_uint32(env, v, n) })
}

#[inline]
pub(crate) fn get_value_bool(env: sys::napi_env, v: sys::napi_value) -> Raw<bool> {
    out(false, |b| unsafe { sys::napi_get_value_bool(env, v, b) })
}

/// The UTF-8 length of string `v`, in bytes.
#[inline]
pub(crate) fn string_utf8_len(env: sys::napi_env, v: sys::napi_value) -> Raw<usize> {
    out(0, |len| unsafe {
        sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, len)
    })
}

/// Copies string `v` as UTF-8 into `buf` (NUL-terminated, cut to fit);
/// returns the bytes written before the NUL.
#[inline]
pub(crate) fn get_value_string_utf8(
    env: sys::napi_env,
    v: sys::napi_value,
    buf: &mut [u8],
) -> Raw<usize> {
    out(0, |len| unsafe {
        sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast(), buf.len(), len)
    })
}

#[inline]
pub(crate) fn is_array(env: sys::napi_env, v: sys::napi_value) -> Raw<bool> {
    out(false, |b| unsafe { sys::napi_is_array(env, v, b) })
}

#[inline]
pub(crate) fn is_typedarray(env: sys::napi_env, v: sys::napi_value) -> Raw<bool> {
    out(false, |b| unsafe { sys::napi_is_typedarray(env, v, b) })
}

#[inline]
pub(crate) fn is_arraybuffer(env: sys::napi_env, v: sys::napi_value) -> Raw<bool> {
    out(false, |b| unsafe { sys::napi_is_arraybuffer(env, v, b) })
}

#[inline]
pub(crate) fn is_promise(env: sys::napi_env, v: sys::napi_value) -> Raw<bool> {
    out(false, |b| unsafe { sys::napi_is_promise(env, v, b) })
}

#[inline]
pub(crate) fn get_array_length(env: sys::napi_env, v: sys::napi_value) -> Raw<u32> {
    out(0, |n| unsafe { sys::napi_get_array_length(env, v, n) })
}

/// A typed array's kind, length (in elements), data pointer and buffer.
pub(crate) struct TypedArray {
    pub(crate) kind: sys::napi_typedarray_type,
    pub(crate) len: usize,
    pub(crate) data: *mut c_void,
    pub(crate) buffer: sys::napi_value,
}

#[inline]
pub(crate) fn get_typedarray_info(env: sys::napi_env, v: sys::napi_value) -> Raw<TypedArray> {
    let mut a = TypedArray {
        kind: 0,
        len: 0,
        data: ptr::null_mut(),
        buffer: ptr::null_mut(),
    };
    status(unsafe {
        sys::napi_get_typedarray_info(
            env,
            v,
            &mut a.kind,
            &mut a.len,
            &mut a.data,
            &mut a.buffer,
            ptr::null_mut(),
        )
    })?;
    Ok(a)
}

// ---------------------------------------------------------------------------
// properties and elements (may run JavaScript: getters, proxies)

#[inline]
pub(crate) fn get_named_property(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &CStr,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_named_property(env, object, key.as_ptr(), v)
    })
}

#[inline]
pub(crate) fn set_named_property(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &CStr,
    value: sys::napi_value,
) -> Raw<()> {
    status(unsafe { sys::napi_set_named_property(env, object, key.as_ptr(), value) })
}

#[inline]
pub(crate) fn get_property(
    env: sys::napi_env,
    object: sys::napi_value,
    key: sys::napi_value,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_property(env, object, key, v)
    })
}

#[inline]
pub(crate) fn get_property_names(
    env: sys::napi_env,
    object: sys::napi_value,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_property_names(env, object, v)
    })
}

#[inline]
pub(crate) fn get_element(
    env: sys::napi_env,
    object: sys::napi_value,
    index: u32,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_element(env, object, index, v)
    })
}

/// Defines `descriptors` on `object` (runs no JavaScript). The
/// descriptors' name pointers must be valid for the call (they borrow
/// Rust memory the caller holds).
#[inline]
pub(crate) fn define_properties(
    env: sys::napi_env,
    object: sys::napi_value,
    descriptors: &[sys::napi_property_descriptor],
) -> Raw<()> {
    status(unsafe {
        sys::napi_define_properties(env, object, descriptors.len(), descriptors.as_ptr())
    })
}

#[inline]
pub(crate) fn object_freeze(env: sys::napi_env, object: sys::napi_value) -> Raw<()> {
    status(unsafe { sys::napi_object_freeze(env, object) })
}

// ---------------------------------------------------------------------------
// values: making

#[inline]
pub(crate) fn get_undefined(env: sys::napi_env) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_undefined(env, v)
    })
}

#[inline]
pub(crate) fn get_boolean(env: sys::napi_env, b: bool) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_boolean(env, b, v)
    })
}

#[inline]
pub(crate) fn create_double(env: sys::napi_env, n: f64) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_double(env, n, v)
    })
}

#[inline]
pub(crate) fn create_int32(env: sys::napi_env, n: i32) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_int32(env, n, v)
    })
}

#[inline]
pub(crate) fn create_uint32(env: sys::napi_env, n: u32) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_uint32(env, n, v)
    })
}

#[inline]
pub(crate) fn create_string_utf8(env: sys::napi_env, s: &str) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, v)
    })
}

/// A one-byte string of `bytes` (Latin-1), copied.
#[inline]
pub(crate) fn create_string_latin1(env: sys::napi_env, bytes: &[u8]) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_string_latin1(env, bytes.as_ptr().cast(), bytes.len() as isize, v)
    })
}

#[inline]
pub(crate) fn create_string_utf16(env: sys::napi_env, units: &[u16]) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, v)
    })
}

/// The finalizer of an external string's memory.
pub(crate) type ExternalFinalize =
    unsafe extern "C" fn(sys::node_api_basic_env, *mut c_void, *mut c_void);

/// An external string of `len` UTF-16 units at `data` (V8 does not copy
/// them, or says it did); `finalize(hint)` frees them once V8 is done.
/// Whether V8 copied is of no use to the callers.
///
/// # Safety
/// `data` must point to `len` units that stay valid and unchanged until
/// `finalize` is called with `hint`, which N-API does once if (and only if)
/// this returns `Ok`.
#[inline]
pub(crate) unsafe fn create_external_string_utf16(
    env: sys::napi_env,
    data: *const u16,
    len: usize,
    finalize: ExternalFinalize,
    hint: *mut c_void,
) -> Raw<sys::napi_value> {
    let mut copied = false;
    out(ptr::null_mut(), |v| unsafe {
        sys::node_api_create_external_string_utf16(
            env,
            data,
            len as isize,
            Some(finalize),
            hint,
            v,
            &mut copied,
        )
    })
}

/// As [`create_external_string_utf16`], for `len` Latin-1 bytes.
///
/// # Safety
/// As [`create_external_string_utf16`].
#[inline]
pub(crate) unsafe fn create_external_string_latin1(
    env: sys::napi_env,
    data: *const u8,
    len: usize,
    finalize: ExternalFinalize,
    hint: *mut c_void,
) -> Raw<sys::napi_value> {
    let mut copied = false;
    out(ptr::null_mut(), |v| unsafe {
        sys::node_api_create_external_string_latin1(
            env,
            data.cast::<c_char>(),
            len as isize,
            Some(finalize),
            hint,
            v,
            &mut copied,
        )
    })
}

#[inline]
pub(crate) fn create_object(env: sys::napi_env) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_object(env, v)
    })
}

#[inline]
pub(crate) fn create_array_with_length(env: sys::napi_env, len: usize) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_array_with_length(env, len, v)
    })
}

/// A new `ArrayBuffer` of `bytes` bytes and its data pointer.
#[inline]
pub(crate) fn create_arraybuffer(
    env: sys::napi_env,
    bytes: usize,
) -> Raw<(sys::napi_value, *mut c_void)> {
    let mut data = ptr::null_mut();
    let buffer = out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_arraybuffer(env, bytes, &mut data, v)
    })?;
    Ok((buffer, data))
}

#[inline]
pub(crate) fn create_typedarray(
    env: sys::napi_env,
    kind: sys::napi_typedarray_type,
    len: usize,
    buffer: sys::napi_value,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_typedarray(env, kind, len, buffer, 0, v)
    })
}

#[inline]
pub(crate) fn create_symbol(
    env: sys::napi_env,
    description: sys::napi_value,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_symbol(env, description, v)
    })
}

#[inline]
pub(crate) fn create_error(env: sys::napi_env, message: sys::napi_value) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_error(env, ptr::null_mut(), message, v)
    })
}

/// A function named `name` whose body is `callback`, which N-API calls
/// with `data`.
///
/// # Safety
/// `data` must stay valid for as long as the function can be called.
#[inline]
pub(crate) unsafe fn create_function(
    env: sys::napi_env,
    name: &str,
    callback: sys::napi_callback,
    data: *mut c_void,
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr().cast(),
            name.len() as isize,
            callback,
            data,
            v,
        )
    })
}

/// Calls `finalize(data)` when `object` is collected.
///
/// # Safety
/// `finalize` must be sound to call once with `data` at any later time.
#[inline]
pub(crate) unsafe fn add_finalizer(
    env: sys::napi_env,
    object: sys::napi_value,
    data: *mut c_void,
    finalize: sys::napi_finalize,
) -> Raw<()> {
    status(unsafe {
        sys::napi_add_finalizer(
            env,
            object,
            data,
            finalize,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    })
}

// ---------------------------------------------------------------------------
// calls, exceptions, scopes

/// Up to `N` arguments of the running callback (missing ones null), `this`
/// and the callback's data.
#[inline]
pub(crate) fn get_cb_info<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Raw<([sys::napi_value; N], sys::napi_value, *mut c_void)> {
    let mut argc = N;
    let mut argv = [ptr::null_mut(); N];
    let mut this = ptr::null_mut();
    let mut data = ptr::null_mut();
    status(unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            &mut this,
            &mut data,
        )
    })?;
    Ok((argv, this, data))
}

/// `f.apply(this, args)`: a thrown exception stays pending (the status is
/// `napi_pending_exception`).
#[inline]
pub(crate) fn call_function(
    env: sys::napi_env,
    this: sys::napi_value,
    f: sys::napi_value,
    args: &[sys::napi_value],
) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_call_function(env, this, f, args.len(), args.as_ptr(), v)
    })
}

#[inline]
pub(crate) fn throw_error(env: sys::napi_env, message: &CStr) -> Raw<()> {
    status(unsafe { sys::napi_throw_error(env, ptr::null(), message.as_ptr()) })
}

#[inline]
pub(crate) fn throw_type_error(env: sys::napi_env, message: &CStr) -> Raw<()> {
    status(unsafe { sys::napi_throw_type_error(env, ptr::null(), message.as_ptr()) })
}

#[inline]
pub(crate) fn is_exception_pending(env: sys::napi_env) -> Raw<bool> {
    out(false, |b| unsafe { sys::napi_is_exception_pending(env, b) })
}

/// Clears the pending exception and returns it (null if none was pending).
#[inline]
pub(crate) fn get_and_clear_last_exception(env: sys::napi_env) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_and_clear_last_exception(env, v)
    })
}

#[inline]
pub(crate) fn open_handle_scope(env: sys::napi_env) -> Raw<sys::napi_handle_scope> {
    out(ptr::null_mut(), |s| unsafe {
        sys::napi_open_handle_scope(env, s)
    })
}

#[inline]
pub(crate) fn close_handle_scope(env: sys::napi_env, scope: sys::napi_handle_scope) -> Raw<()> {
    status(unsafe { sys::napi_close_handle_scope(env, scope) })
}

// ---------------------------------------------------------------------------
// references, wrapping, type tags, memory

#[inline]
pub(crate) fn create_reference(
    env: sys::napi_env,
    v: sys::napi_value,
    count: u32,
) -> Raw<sys::napi_ref> {
    out(ptr::null_mut(), |r| unsafe {
        sys::napi_create_reference(env, v, count, r)
    })
}

/// The referenced value, or null when a weak reference's value was collected.
#[inline]
pub(crate) fn get_reference_value(env: sys::napi_env, r: sys::napi_ref) -> Raw<sys::napi_value> {
    out(ptr::null_mut(), |v| unsafe {
        sys::napi_get_reference_value(env, r, v)
    })
}

#[inline]
pub(crate) fn delete_reference(env: sys::napi_env, r: sys::napi_ref) -> Raw<()> {
    status(unsafe { sys::napi_delete_reference(env, r) })
}

/// The native pointer `object` wraps (dereferencing it is the caller's
/// `unsafe`, see `crate::receiver::instance`).
#[inline]
pub(crate) fn unwrap(env: sys::napi_env, object: sys::napi_value) -> Raw<*mut c_void> {
    out(ptr::null_mut(), |p| unsafe {
        sys::napi_unwrap(env, object, p)
    })
}

#[inline]
pub(crate) fn type_tag_object(
    env: sys::napi_env,
    object: sys::napi_value,
    tag: &sys::napi_type_tag,
) -> Raw<()> {
    status(unsafe { sys::napi_type_tag_object(env, object, tag) })
}

#[inline]
pub(crate) fn check_object_type_tag(
    env: sys::napi_env,
    object: sys::napi_value,
    tag: &sys::napi_type_tag,
) -> Raw<bool> {
    out(false, |b| unsafe {
        sys::napi_check_object_type_tag(env, object, tag, b)
    })
}

/// Tells V8 the addon holds `change` bytes more (or fewer) native memory;
/// returns the new total.
#[inline]
pub(crate) fn adjust_external_memory(env: sys::napi_env, change: i64) -> Raw<i64> {
    out(0, |total| unsafe {
        sys::napi_adjust_external_memory(env, change, total)
    })
}

/// The runtime's name and version (Node's static data).
#[inline]
pub(crate) fn get_node_version(env: sys::napi_env) -> Raw<(&'static CStr, u32, u32)> {
    let version = out(ptr::null(), |v| unsafe {
        sys::napi_get_node_version(env, v)
    })?;
    if version.is_null() {
        return Err(Failed(sys::Status::napi_generic_failure));
    }
    // SAFETY: N-API returns a pointer to static data of the runtime, whose
    // `release` is a NUL-terminated string.
    let v = unsafe { &*version };
    Ok((unsafe { CStr::from_ptr(v.release) }, v.major, v.minor))
}

// ---------------------------------------------------------------------------
// threadsafe functions

/// A threadsafe function with no JavaScript function of its own: N-API calls
/// `call_js(env, null, context, null)` on the main thread for each call,
/// and `finalize(context)` when it is destroyed.
///
/// # Safety
/// `context` must stay valid until `finalize` runs (which N-API does once
/// if, and only if, this returns `Ok`).
#[inline]
pub(crate) unsafe fn create_threadsafe_function(
    env: sys::napi_env,
    name: sys::napi_value,
    context: *mut c_void,
    finalize: sys::napi_finalize,
    call_js: sys::napi_threadsafe_function_call_js,
) -> Raw<sys::napi_threadsafe_function> {
    out(ptr::null_mut(), |f| unsafe {
        sys::napi_create_threadsafe_function(
            env,
            ptr::null_mut(),
            ptr::null_mut(),
            name,
            0,
            1,
            context,
            finalize,
            context,
            call_js,
            f,
        )
    })
}

#[inline]
pub(crate) fn unref_threadsafe_function(
    env: sys::napi_env,
    f: sys::napi_threadsafe_function,
) -> Raw<()> {
    status(unsafe { sys::napi_unref_threadsafe_function(env, f) })
}

/// Queues a call of `f` without blocking (callable from any thread).
///
/// # Safety
/// `f` must not have been destroyed (released, or finalized by N-API).
#[inline]
pub(crate) unsafe fn call_threadsafe_function(f: sys::napi_threadsafe_function) -> Raw<()> {
    status(unsafe {
        sys::napi_call_threadsafe_function(
            f,
            ptr::null_mut(),
            sys::ThreadsafeFunctionCallMode::nonblocking,
        )
    })
}

/// Releases `f`, aborting its queue (callable from any thread).
///
/// # Safety
/// As [`call_threadsafe_function`]; `f` is destroyed after this.
#[inline]
pub(crate) unsafe fn release_threadsafe_function(f: sys::napi_threadsafe_function) -> Raw<()> {
    status(unsafe {
        sys::napi_release_threadsafe_function(f, sys::ThreadsafeFunctionReleaseMode::abort)
    })
}
