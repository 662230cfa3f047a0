//! The JavaScript side of a framed chunk, for both stdio readers
//! (`crate::stdio_framer`, `crate::stdio_thread_reader`): the strings of
//! framed text (transcoded by the core's `transcode`; a big one external, no
//! copy into the V8 heap) and the result array `out` in the layout of the
//! core's `boundary`.
//! Runs no JavaScript (see `crate::napi_support::define_array`).

use std::ptr;

use napi::sys;
use napi::Result;

use crate::napi_support::{define_array, js_latin1, js_number, js_utf8};
use crate::raw::{self, OrFail};
use mcp_ordered_dispatch_core::boundary;
use mcp_ordered_dispatch_core::out::OutValue;
use mcp_ordered_dispatch_core::transcode::{transcode, JsText};

/// A string from valid UTF-8 text. V8's own UTF-8 decoder
/// (`napi_create_string_utf8`) measured ~100-250 MB/s on text with scattered
/// non-ASCII characters (a 9 MiB message: ~50 ms),
/// so the text is transcoded here instead: ASCII is copied as is (Latin-1);
/// text whose characters all fit in Latin-1 becomes a one-byte string
/// (which `JSON.parse` also reads faster); anything else UTF-16.
pub(crate) fn text_string(env: sys::napi_env, bytes: &[u8]) -> Result<sys::napi_value> {
    js_text(env, transcode(bytes.into()), EXTERNAL_MIN_UNITS)
}

/// The string of transcoded `text`: copied, or (owned, and at least
/// `external_min` units) external.
pub(crate) fn js_text(
    env: sys::napi_env,
    text: JsText<'_>,
    external_min: usize,
) -> Result<sys::napi_value> {
    match text {
        JsText::Latin1(std::borrow::Cow::Borrowed(bytes)) => js_latin1(env, bytes),
        JsText::Latin1(std::borrow::Cow::Owned(bytes)) => latin1_string(env, bytes, external_min),
        JsText::Utf16(units) => utf16_string(env, units, external_min),
    }
}

/// By default, a string this long or longer (in units) is handed to V8 as
/// an external string (no copy into the V8 heap) where the runtime has them.
pub(crate) const EXTERNAL_MIN_UNITS: usize = 1 << 20;

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
    let yes = raw::get_node_version(env).is_ok_and(|(release, major, minor)| {
        release.to_bytes() == b"node" && (major > 20 || (major == 20 && minor >= 4))
    });
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

/// A one-byte string of `bytes` (Latin-1): one of at least `external_min`
/// bytes external, as `utf16_string`.
pub(crate) fn latin1_string(
    env: sys::napi_env,
    bytes: Vec<u8>,
    external_min: usize,
) -> Result<sys::napi_value> {
    if bytes.len() >= external_min && external_strings(env) {
        let (data, len) = (bytes.as_ptr(), bytes.len());
        let hint = Box::into_raw(Box::new(bytes));
        // SAFETY: as in `utf16_string`.
        let made =
            unsafe { raw::create_external_string_latin1(env, data, len, free_bytes, hint.cast()) };
        if let Ok(v) = made {
            return Ok(v);
        }
        // SAFETY: as in `utf16_string`.
        let bytes = unsafe { Box::from_raw(hint) };
        return js_latin1(env, &bytes);
    }
    js_latin1(env, &bytes)
}

/// A string of UTF-16 `units`: one of at least `external_min` units as an
/// external string that owns them (V8 would otherwise copy them into its
/// heap), else copied.
pub(crate) fn utf16_string(
    env: sys::napi_env,
    units: Vec<u16>,
    external_min: usize,
) -> Result<sys::napi_value> {
    if units.len() >= external_min && external_strings(env) {
        let (data, len) = (units.as_ptr(), units.len());
        let hint = Box::into_raw(Box::new(units));
        // SAFETY: `data` points to `len` units owned by `*hint`, which stays
        // alive (heap, not moved) until `free_units` drops it.
        let made =
            unsafe { raw::create_external_string_utf16(env, data, len, free_units, hint.cast()) };
        if let Ok(v) = made {
            return Ok(v);
        }
        // Not created (the finalizer was not called): take the units back.
        // SAFETY: `hint` came from `Box::into_raw` above and nothing else has it.
        let units = unsafe { Box::from_raw(hint) };
        return raw::create_string_utf16(env, &units).or_fail("creating a string");
    }
    raw::create_string_utf16(env, &units).or_fail("creating a string")
}

/// A new `Int32Array` of `meta.len()` integers holding `meta`.
pub(crate) fn new_int32_array(env: sys::napi_env, meta: &[i32]) -> Result<sys::napi_value> {
    int32_array(env, meta, meta.len())
}

/// A new `Int32Array` of `cap` (>= `meta.len()`) integers starting with `meta`.
pub(crate) fn int32_array(env: sys::napi_env, meta: &[i32], cap: usize) -> Result<sys::napi_value> {
    let (buffer, data) =
        raw::create_arraybuffer(env, cap * 4).or_fail("allocating the entries array")?;
    let array = raw::create_typedarray(env, sys::TypedarrayType::int32_array, cap, buffer)
        .or_fail("allocating the entries array")?;
    if !meta.is_empty() {
        // SAFETY: `data` is the new buffer's `cap * 4` bytes (cap >=
        // meta.len()), just allocated; no JavaScript has seen it yet.
        unsafe { ptr::copy_nonoverlapping(meta.as_ptr(), data.cast::<i32>(), meta.len()) };
    }
    Ok(array)
}

/// `out[..OUT_VALUES]`: the entries, their count and the batch, each at its
/// `mcp_ordered_dispatch_core::boundary::OUT_*` index.
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

/// `out`: `entries` (an `Int32Array` holding `count` entries), the batch
/// string (or `undefined`), then `values` (`out[OUT_VALUES..]`).
pub(crate) fn out_array(
    env: sys::napi_env,
    entries: sys::napi_value,
    count: usize,
    batch: sys::napi_value,
    values: &[sys::napi_value],
) -> Result<sys::napi_value> {
    let n = raw::create_uint32(env, count as u32).or_fail("creating a number")?;
    define_array(env, &out_head(entries, n, batch), values)
}

/// A value of `out[OUT_VALUES..]`.
pub(crate) fn out_value(env: sys::napi_env, value: &OutValue) -> Result<sys::napi_value> {
    match value {
        OutValue::Text(s) => js_utf8(env, s),
        OutValue::Number(n) => js_number(env, *n),
    }
}
