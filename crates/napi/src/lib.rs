//! `mcp-ordered-dispatch`: the Node.js addon, the thin N-API layer over
//! `mcp-ordered-dispatch-core` (`crates/core`, which holds every stage as
//! plain Rust). One file per JavaScript class it exports:
//!
//! * `dispatcher` — `Dispatcher`, `classify` (and the `_testPanic` hook);
//!   `js_view`: the classifier's views of JavaScript values;
//! * `stdio_framer` — `StdioFramer`, the main-thread stdio reader;
//! * `stdio_thread_reader` — `StdioThreadReader`, the off-thread reader over
//!   the core's worker (`stdio_thread`);
//!   `stdio_hub`: the one hand-over of every reader's ready pieces and the
//!   one threadsafe function that wakes JavaScript;
//! * `progress_tokens` — `ProgressTokens`;
//! * `locate` — `locateClasses`, the search by shape's locate step (and
//!   `lexFailure`, for the tests that compare it with the JavaScript);
//!
//! and what they share: `raw` (every raw `napi::sys` call, each behind a
//! thin wrapper whose status is checked: the audit surface of `unsafe`),
//! `options` (reading every constructor's options), `js_out` (the readers'
//! result arrays and text strings, from the core's `out` writer),
//! `napi_support` (N-API helpers over `raw` and the one panic policy,
//! `guarded`), `receiver` (the receiver checks of the classes' accessors).
//! Module init is here: it defines those accessors and exports `boundary`,
//! so that no class module is named by another.

// napi-derive registers the exported functions only outside `cfg(test)`:
// there (`cargo clippy --all-targets` checks this crate's test build too,
// though it has no tests) they look unused. The real build is linted.
#![cfg_attr(test, allow(dead_code))]

mod dispatcher;
mod js_out;
mod js_view;
mod locate;
mod napi_support;
mod options;
mod progress_tokens;
mod raw;
mod receiver;
mod stdio_framer;
mod stdio_hub;
mod stdio_thread_reader;

use std::ffi::CString;
use std::ptr;

use mcp_ordered_dispatch_core::boundary;
use napi::bindgen_prelude::{Env, JsValue, Object};
use napi::sys;

use crate::receiver::{define_accessors, DISPATCHER, PROGRESS_TOKENS, STDIO_FRAMER};

/// Module init (run once per module instance, after napi-rs has defined the
/// classes): every class's accessors (`receiver`), and `exports.boundary`.
#[napi_derive::napi(module_exports)]
pub fn init(env: Env, exports: Object) -> napi::Result<()> {
    let (env, exports) = (env.raw(), exports.raw());
    define_accessors(env, exports, &DISPATCHER, &dispatcher::ACCESSORS)?;
    define_accessors(env, exports, &STDIO_FRAMER, &stdio_framer::ACCESSORS)?;
    define_accessors(env, exports, &PROGRESS_TOKENS, &progress_tokens::ACCESSORS)?;
    export_boundary(env, exports)
}

/// `exports.boundary`: the frozen object of `boundary::EXPORTED`, the
/// constants `lib/native/addon.cjs` checks and the JavaScript reads.
fn export_boundary(env: sys::napi_env, exports: sys::napi_value) -> napi::Result<()> {
    let fail = |what: &str| {
        napi::Error::from_reason(format!(
            "mcp-ordered-dispatch: exporting the boundary constants: {what} failed"
        ))
    };
    let object = raw::create_object(env).map_err(|_| fail("napi_create_object"))?;
    let mut names = Vec::with_capacity(boundary::EXPORTED.len());
    let mut descriptors = Vec::with_capacity(boundary::EXPORTED.len());
    for (name, value) in boundary::EXPORTED {
        let name = CString::new(*name).map_err(|_| fail("a name"))?;
        let v = raw::create_int32(env, *value).map_err(|_| fail("napi_create_int32"))?;
        descriptors.push(sys::napi_property_descriptor {
            utf8name: name.as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: None,
            setter: None,
            value: v,
            attributes: sys::PropertyAttributes::enumerable,
            data: ptr::null_mut(),
        });
        names.push(name);
    }
    let defined = raw::define_properties(env, object, &descriptors)
        .and_then(|()| raw::object_freeze(env, object))
        .and_then(|()| raw::set_named_property(env, exports, c"boundary", object));
    // The descriptors point into `names`, alive until here.
    drop(names);
    defined.map_err(|_| fail("defining the object"))
}
