//! Every constructor's options, read in one place: `new Dispatcher(options)`
//! and `classify(message, sdk)` ([`dispatcher_options`], [`sdk_profile`]),
//! `new StdioFramer(options)` ([`framer_options`]) and `new
//! StdioThreadReader(options)` ([`thread_reader_options`]). One rule each:
//! `sdk` is 1 or 2 (undefined: 1), `blankLines` `'report'` or `'skip'`
//! (undefined: as the SDK of that major version), `maxMessageSize` a
//! positive integer of bytes, `strict` and `checkBodies` booleans. The
//! messages are the ones JavaScript has always seen (a `TypeError` for
//! `Dispatcher` and `classify`, an `InvalidArg` error for the readers).
//!
//! Reading an option may run a getter: every caller reads them before it
//! holds anything.

use std::ffi::{CStr, CString};

use mcp_ordered_dispatch_core::stdio_thread::Bounds;
use mcp_ordered_dispatch_core::{BlankLines, FramerOptions, JsonView, Profile};
use napi::sys;
use napi::Result;

use crate::js_view::NapiView;
use crate::napi_support::{
    invalid_arg, read_bool, read_named, read_number, read_short_string, type_error, type_of,
};

/// The callbacks of `new Dispatcher(options)`, by index.
pub(crate) const CALLBACK_NAMES: [&str; 5] = [
    "onResponse",
    "onRequest",
    "onNotification",
    "onInvalid",
    "onError",
];
pub(crate) const ON_RESPONSE: usize = 0;
pub(crate) const ON_REQUEST: usize = 1;
pub(crate) const ON_NOTIFICATION: usize = 2;
pub(crate) const ON_INVALID: usize = 3;
pub(crate) const ON_ERROR: usize = 4;

/// The profile `sdk` names: undefined is 1; `None` for anything but
/// undefined, 1 or 2.
fn sdk_of(env: sys::napi_env, sdk: sys::napi_value) -> Option<Profile> {
    match type_of(env, sdk) {
        sys::ValueType::napi_undefined => Some(Profile::V1),
        _ => match read_number(env, sdk) {
            Some(1.0) => Some(Profile::V1),
            Some(2.0) => Some(Profile::V2),
            _ => None,
        },
    }
}

/// `sdk` of `Dispatcher` and `classify` (`what`: how the message names it).
pub(crate) fn sdk_profile(env: sys::napi_env, sdk: sys::napi_value, what: &str) -> Result<Profile> {
    sdk_of(env, sdk).ok_or_else(|| {
        type_error(
            env,
            &format!("{what} must be 1 or 2 (the major version of the MCP SDK schemas to mirror)"),
        )
    })
}

/// `new Dispatcher({ onResponse, onRequest, onNotification, onInvalid, onError, sdk? })`:
/// the five callbacks (by [`CALLBACK_NAMES`]) and the profile.
pub(crate) fn dispatcher_options(
    env: sys::napi_env,
    options: sys::napi_value,
) -> Result<([sys::napi_value; 5], Profile)> {
    let t = type_of(env, options);
    if t != sys::ValueType::napi_object && t != sys::ValueType::napi_function {
        return Err(type_error(
            env,
            "new Dispatcher(options): options must be an object with onResponse, onRequest, \
             onNotification, onInvalid and onError functions",
        ));
    }
    let mut fns = [std::ptr::null_mut(); 5];
    for (f, name) in fns.iter_mut().zip(CALLBACK_NAMES) {
        // The constructor, not a hot path: the key's C string is allocated.
        let key = CString::new(name).expect("a callback name has no NUL");
        let v = read_named(env, options, &key)?;
        if type_of(env, v) != sys::ValueType::napi_function {
            let got = NapiView { env, value: v }.kind().describe();
            return Err(type_error(
                env,
                &format!("new Dispatcher(options): options.{name} must be a function (got {got})"),
            ));
        }
        *f = v;
    }
    let sdk = read_named(env, options, c"sdk")?;
    let profile = sdk_profile(env, sdk, "new Dispatcher(options): options.sdk")?;
    Ok((fns, profile))
}

/// `options[key]`, or `None` when it is undefined.
fn option(
    env: sys::napi_env,
    options: sys::napi_value,
    key: &CStr,
) -> Result<Option<sys::napi_value>> {
    let v = read_named(env, options, key)?;
    Ok((type_of(env, v) != sys::ValueType::napi_undefined).then_some(v))
}

/// An integer option of at least `min`, or `None` when undefined.
fn integer(
    env: sys::napi_env,
    options: sys::napi_value,
    key: &CStr,
    min: f64,
    message: impl FnOnce() -> String,
) -> Result<Option<usize>> {
    let Some(v) = option(env, options, key)? else {
        return Ok(None);
    };
    match read_number(env, v) {
        Some(n) if n >= min && n.is_finite() && n.trunc() == n => {
            Ok(Some(n.min(usize::MAX as f64) as usize))
        }
        _ => invalid_arg(&message()),
    }
}

/// A boolean option, or `None` when undefined.
fn boolean(
    env: sys::napi_env,
    options: sys::napi_value,
    key: &CStr,
    message: impl FnOnce() -> String,
) -> Result<Option<bool>> {
    match option(env, options, key)? {
        None => Ok(None),
        Some(v) => match read_bool(env, v) {
            Some(b) => Ok(Some(b)),
            None => invalid_arg(&message()),
        },
    }
}

/// `{ sdk?: 1 | 2, strict?: boolean, maxMessageSize?: number, checkBodies?: boolean, blankLines?: 'report' | 'skip' }`
/// of `new {class}(options)`, read in that order; undefined or null options
/// are the defaults.
pub(crate) fn framer_options(
    env: sys::napi_env,
    options: sys::napi_value,
    class: &str,
) -> Result<FramerOptions> {
    let t = type_of(env, options);
    if t == sys::ValueType::napi_undefined || t == sys::ValueType::napi_null {
        return Ok(FramerOptions::default());
    }
    let what = format!("new {class}(options)");
    if t != sys::ValueType::napi_object {
        return invalid_arg(&format!("{what}: options must be an object"));
    }
    let sdk = read_named(env, options, c"sdk")?;
    let Some(profile) = sdk_of(env, sdk) else {
        return invalid_arg(&format!(
            "{what}: options.sdk must be 1 or 2 (the major version of the MCP SDK)"
        ));
    };
    let strict = boolean(env, options, c"strict", || {
        format!("{what}: options.strict must be a boolean")
    })?;
    let mut o = if strict == Some(true) {
        FramerOptions::strict(profile)
    } else {
        FramerOptions::for_profile(profile)
    };
    if let Some(max) = integer(env, options, c"maxMessageSize", 1.0, || {
        format!("{what}: options.maxMessageSize must be a positive integer (bytes)")
    })? {
        o.max_message_size = max;
    }
    if let Some(check) = boolean(env, options, c"checkBodies", || {
        format!("{what}: options.checkBodies must be a boolean")
    })? {
        o.check_bodies = check;
    }
    if let Some(blank) = option(env, options, c"blankLines")? {
        o.blank_lines = match read_short_string(env, blank).as_deref() {
            Some("report") => BlankLines::Report,
            Some("skip") => BlankLines::Skip,
            _ => {
                return invalid_arg(&format!(
                    "{what}: options.blankLines must be 'report' or 'skip'"
                ))
            }
        };
    }
    Ok(o)
}

/// `new StdioThreadReader(options)`: [`framer_options`] (with `checkBodies`
/// left on: the worker's pieces have no `recheck`) and
/// `{ maxBatchBytes?, maxBatchMessages?: positive integers (undefined: no bound), inlineMax?: integer >= 0 (undefined: 0) }`
/// (`lib/stdio/thread-read-buffer.cjs` passes its defaults). Returns the framer's
/// options, the pieces' bounds and the inline limit.
pub(crate) fn thread_reader_options(
    env: sys::napi_env,
    options: sys::napi_value,
) -> Result<(FramerOptions, Bounds, usize)> {
    const WHAT: &str = "new StdioThreadReader(options)";
    let framer = framer_options(env, options, "StdioThreadReader")?;
    if !framer.check_bodies {
        return invalid_arg(&format!(
            "{WHAT}: options.checkBodies must be true: the off-thread reader has no recheck"
        ));
    }
    let mut bounds = Bounds::NONE;
    let mut inline_max = 0;
    if type_of(env, options) == sys::ValueType::napi_object {
        let positive = |key: &CStr, name: &str| {
            integer(env, options, key, 1.0, || {
                format!("{WHAT}: options.{name} must be a positive integer")
            })
        };
        if let Some(n) = positive(c"maxBatchBytes", "maxBatchBytes")? {
            bounds.max_bytes = n;
        }
        if let Some(n) = positive(c"maxBatchMessages", "maxBatchMessages")? {
            bounds.max_lines = n;
        }
        if let Some(n) = integer(env, options, c"inlineMax", 0.0, || {
            format!("{WHAT}: options.inlineMax must be an integer of 0 or more")
        })? {
            inline_max = n;
        }
    }
    Ok((framer, bounds, inline_max))
}
