//! The thin N-API layer: [`JsonView`]s over live JavaScript values and the
//! `Dispatcher` class / `classify` function exported to JavaScript.
//!
//! Hot-path rules followed here:
//! * property reads through N-API are expensive (~150 ns each, against ~1 ns
//!   for a JIT-compiled read), so `lib/native.cjs` gathers the fields the
//!   classifier needs in JavaScript and calls `_dispatchGathered`; Rust then
//!   only inspects values (`napi_typeof`, `napi_get_value_*`) and decides.
//!   The plain native `dispatch`/`classify` read the message themselves
//!   ([`NapiView`]) and serve as the reference path;
//! * the message is classified once, on arrival;
//! * no `napi_ref` on the fast path (no re-entrancy);
//! * callbacks are called with `this === undefined`, exceptions are caught and
//!   cleared (`napi_get_and_clear_last_exception`) so the *thrown value itself*
//!   reaches `onError`, whatever it is (napi-rs' `Function::call` turns it into
//!   a `napi::Error`, which cannot hold a thrown primitive and runs
//!   `toString()` on it);
//! * every entry point runs under `catch_unwind`: a Rust panic becomes a
//!   thrown JavaScript `Error`, never an abort.
//!
//! Memory: the callbacks are held by the `Dispatcher` JavaScript object itself
//! (a non-enumerable, read-only, symbol-keyed property holding a frozen
//! array), and the native side only keeps weak references to them. A user
//! callback that closes over its own dispatcher (the usual case) therefore
//! does not create an uncollectable cycle through a strong `napi_ref` root.
//! The weak references are alive in every method, because the receiver —
//! which keeps the callbacks alive and cannot let go of them — is on the
//! stack (and `callback()` still checks for an empty one).
//!
//! JavaScript inside native calls (issue 15): the binding builds its arrays
//! (the callback table, a queued `[message, extra]`) by defining their
//! elements ([`define_values`]), never with `napi_set_element`, whose
//! `[[Set]]` would run an accessor JavaScript installed on `Array.prototype`.
//! The JavaScript that does run inside `dispatch` — getters of the message
//! while it is classified, the callbacks, a promise's `then` — runs with no
//! `RefCell` borrow held and nothing borrowed from JavaScript memory, and
//! every method takes `&self`, so it may re-enter the dispatcher freely (a
//! re-entrant `dispatch` is queued, see `core::queue`). The `pending` getter
//! checks its receiver (see `crate::receiver`).

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::rc::Rc;

use napi::bindgen_prelude::{Either, Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::core::progress::plain_progress;
use crate::core::{
    classify, run_ordered, Classification, Counters, Delivered, JsonView, Kind, OrderedQueue,
    Profile, ViewError,
};
use crate::receiver::{self, run_accessor, Accessor, DISPATCHER};

const OK: sys::napi_status = sys::Status::napi_ok;
const PENDING: sys::napi_status = sys::Status::napi_pending_exception;

// ---------------------------------------------------------------------------
// panics and errors

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

/// Runs an entry point, turning a panic into a thrown JavaScript `Error`.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(Error::new(
            Status::GenericFailure,
            format!(
                "mcp-ordered-dispatch: internal error in {what} (Rust panic: {})",
                panic_message(&*payload)
            ),
        )),
    }
}

/// Leaves a `TypeError` pending and returns the matching `Err` (napi-rs then
/// leaves the pending exception alone).
fn type_error<T>(env: sys::napi_env, message: &str) -> Result<T> {
    let msg = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { sys::napi_throw_type_error(env, ptr::null(), msg.as_ptr()) };
    Err(Error::new(Status::PendingException, message.to_owned()))
}

/// Turns a napi status into a `Result`, leaving a pending exception pending.
fn check(status: sys::napi_status, what: &str) -> Result<()> {
    if status == OK {
        Ok(())
    } else {
        Err(status_error(status, what))
    }
}

/// The error for a failed napi call (a pending exception stays pending and is
/// what gets thrown).
fn status_error(status: sys::napi_status, what: &str) -> Error {
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
fn take_exception(env: sys::napi_env) -> Option<sys::napi_value> {
    let mut exc = ptr::null_mut();
    let status = unsafe { sys::napi_get_and_clear_last_exception(env, &mut exc) };
    if status == OK && !exc.is_null() {
        Some(exc)
    } else {
        None
    }
}

fn undefined(env: sys::napi_env) -> sys::napi_value {
    let mut v = ptr::null_mut();
    unsafe { sys::napi_get_undefined(env, &mut v) };
    v
}

fn js_string(env: sys::napi_env, s: &str) -> sys::napi_value {
    let mut v = ptr::null_mut();
    let status =
        unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v) };
    if status != OK {
        return undefined(env);
    }
    v
}

fn type_of(env: sys::napi_env, value: sys::napi_value) -> sys::napi_valuetype {
    let mut t = -1;
    if unsafe { sys::napi_typeof(env, value, &mut t) } != OK {
        return -1;
    }
    t
}

/// Calls `f(key_ptr)` with `key` as a NUL-terminated C string, on the stack
/// when short.
fn with_c_key<R>(key: &str, f: impl FnOnce(*const c_char) -> R) -> R {
    let mut buf = [0u8; 64];
    if key.len() < buf.len() && !key.contains('\0') {
        buf[..key.len()].copy_from_slice(key.as_bytes());
        f(buf.as_ptr().cast())
    } else {
        let owned = CString::new(key.replace('\0', "")).unwrap_or_default();
        f(owned.as_ptr())
    }
}

// ---------------------------------------------------------------------------
// JsonView over a live JavaScript value

/// A JavaScript value seen through N-API. Valid for the current handle scope.
#[derive(Clone, Copy)]
struct NapiView {
    env: sys::napi_env,
    value: sys::napi_value,
}

impl NapiView {
    fn read_error(&self, what: &str) -> ViewError {
        // Clear whatever a getter or proxy trap threw; the reason says where.
        let _ = take_exception(self.env);
        ViewError(format!("{what} threw"))
    }
}

impl JsonView for NapiView {
    fn kind(&self) -> Kind {
        match type_of(self.env, self.value) {
            sys::ValueType::napi_undefined => Kind::Undefined,
            sys::ValueType::napi_null => Kind::Null,
            sys::ValueType::napi_boolean => Kind::Bool,
            sys::ValueType::napi_number => {
                let mut n = f64::NAN;
                unsafe { sys::napi_get_value_double(self.env, self.value, &mut n) };
                Kind::Number(n)
            }
            sys::ValueType::napi_string => Kind::String,
            sys::ValueType::napi_object => {
                let mut is_array = false;
                unsafe { sys::napi_is_array(self.env, self.value, &mut is_array) };
                if is_array {
                    Kind::Array
                } else {
                    Kind::Object
                }
            }
            sys::ValueType::napi_function => Kind::Function,
            _ => Kind::Other,
        }
    }

    fn as_number(&self) -> Option<f64> {
        let mut n = 0f64;
        (unsafe { sys::napi_get_value_double(self.env, self.value, &mut n) } == OK).then_some(n)
    }

    fn is_string(&self) -> bool {
        type_of(self.env, self.value) == sys::ValueType::napi_string
    }

    fn string_eq(&self, expected: &str) -> Option<bool> {
        // Room for `expected`, one more UTF-8 character (<= 4 bytes) and the
        // NUL, so that a longer string can never be truncated to a match.
        let mut stack = [0u8; 64];
        let mut heap;
        let cap = expected.len() + 5;
        let buf: &mut [u8] = if cap <= stack.len() {
            &mut stack[..cap]
        } else {
            heap = vec![0u8; cap];
            &mut heap
        };
        let mut len = 0usize;
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                self.env,
                self.value,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut len,
            )
        };
        if status != OK {
            return None;
        }
        Some(&buf[..len] == expected.as_bytes())
    }

    fn get(&self, key: &str) -> std::result::Result<Self, ViewError> {
        let mut out = ptr::null_mut();
        let status = with_c_key(key, |k| unsafe {
            sys::napi_get_named_property(self.env, self.value, k, &mut out)
        });
        if status != OK {
            return Err(self.read_error(&format!("reading {key:?}")));
        }
        Ok(NapiView {
            env: self.env,
            value: out,
        })
    }

    fn for_each_key<F>(&self, mut f: F) -> std::result::Result<(), ViewError>
    where
        F: FnMut(
            &str,
            &dyn Fn() -> std::result::Result<Self, ViewError>,
        ) -> std::result::Result<bool, ViewError>,
    {
        let env = self.env;
        // Enumerable string keys, own and inherited: what `for...in` (and so
        // zod's `.strict()`) sees.
        let mut names = ptr::null_mut();
        if unsafe { sys::napi_get_property_names(env, self.value, &mut names) } != OK {
            return Err(self.read_error("listing the keys"));
        }
        let mut count = 0u32;
        if unsafe { sys::napi_get_array_length(env, names, &mut count) } != OK {
            return Err(self.read_error("listing the keys"));
        }
        let mut buf = [0u8; 64];
        for i in 0..count {
            let mut key = ptr::null_mut();
            if unsafe { sys::napi_get_element(env, names, i, &mut key) } != OK {
                return Err(self.read_error("listing the keys"));
            }
            let mut len = 0usize;
            let status = unsafe {
                sys::napi_get_value_string_utf8(
                    env,
                    key,
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    &mut len,
                )
            };
            let owned;
            let name: &str = if status != OK {
                // Not a string (cannot happen with napi_get_property_names).
                "<non-string key>"
            } else if len + 5 < buf.len() {
                // Not truncated (a truncated copy leaves < 5 bytes of room).
                match std::str::from_utf8(&buf[..len]) {
                    Ok(s) => s,
                    Err(_) => {
                        owned = String::from_utf8_lossy(&buf[..len]).into_owned();
                        &owned
                    }
                }
            } else {
                owned = read_long_string(env, key);
                &owned
            };
            let value = || {
                let mut v = ptr::null_mut();
                if unsafe { sys::napi_get_property(env, self.value, key, &mut v) } != OK {
                    return Err(self.read_error(&format!("reading {name:?}")));
                }
                Ok(NapiView { env, value: v })
            };
            if !f(name, &value)? {
                break;
            }
        }
        Ok(())
    }
}

fn read_long_string(env: sys::napi_env, value: sys::napi_value) -> String {
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
// JsonView over fields gathered by JavaScript

// Every `napi_get_property`-like call costs ~150 ns (V8 API lookup without
// inline caches, plus the N-API exception preamble), while a JIT-compiled
// property read in JavaScript costs ~1 ns. So `lib/native.cjs` reads, in
// JavaScript, exactly the fields the classifier looks at (`for...in` for the
// key set, then the known properties, nested ones only under objects) and
// passes them as arguments. Rust still makes every decision; it only
// inspects the gathered values with cheap calls (`napi_typeof`,
// `napi_get_value_*`). Anything not gathered falls back to a real lookup.

use crate::boundary::{slot, KEYS_ALL, PROGRESS_KEYS, TOP_KEYS};

/// Where a gathered value is: an argument slot of `_dispatchGathered`
/// (`crate::boundary::slot`), or not gathered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slot {
    Gathered(usize),
    /// Not gathered: a plain N-API view.
    Free,
}

struct Gathered {
    env: sys::napi_env,
    /// `_dispatchGathered`'s arguments, by `crate::boundary::slot`.
    args: [sys::napi_value; slot::COUNT],
    /// Bit i set: `TOP_KEYS[i]` is a `for...in` key.
    keys: u8,
    /// Bit i set: `PROGRESS_KEYS[i]` is a `for...in` key of `params`; -1:
    /// the params of this message were not gathered.
    progress_keys: i32,
}

#[derive(Clone, Copy)]
struct GatheredView<'g> {
    g: &'g Gathered,
    slot: Slot,
    raw: NapiView,
}

impl<'g> GatheredView<'g> {
    fn root(g: &'g Gathered) -> Self {
        GatheredView {
            g,
            slot: Slot::Gathered(slot::MESSAGE),
            raw: NapiView {
                env: g.env,
                value: g.args[slot::MESSAGE],
            },
        }
    }

    fn at(&self, slot: Slot) -> Self {
        let value = match slot {
            Slot::Gathered(i) => self.g.args[i],
            Slot::Free => self.raw.value,
        };
        GatheredView {
            g: self.g,
            slot,
            raw: NapiView {
                env: self.g.env,
                value,
            },
        }
    }

    fn gathered_child(&self, key: &str) -> Option<Slot> {
        use crate::core::classify::RELATED_TASK_META_KEY as RT;
        let Slot::Gathered(at) = self.slot else {
            return None;
        };
        Some(Slot::Gathered(match (at, key) {
            (slot::MESSAGE, k) => slot::TOP + TOP_KEYS.iter().position(|n| *n == k)?,
            (slot::RESULT, "_meta") => slot::R_META,
            (slot::R_META, "progressToken") => slot::R_TOKEN,
            (slot::R_META, k) if k == RT => slot::R_TASK,
            (slot::R_TASK, "taskId") => slot::R_TASK_ID,
            (slot::ERROR, "code") => slot::E_CODE,
            (slot::ERROR, "message") => slot::E_MESSAGE,
            (slot::PARAMS, "_meta") => slot::P_META,
            (slot::P_META, "progressToken") => slot::P_TOKEN,
            (slot::P_META, k) if k == RT => slot::P_TASK,
            (slot::P_TASK, "taskId") => slot::P_TASK_ID,
            (slot::PARAMS, k) if self.g.progress_keys >= 0 => {
                slot::PR_TOKEN + PROGRESS_KEYS.iter().position(|n| *n == k)?
            }
            _ => return None,
        }))
    }
}

impl JsonView for GatheredView<'_> {
    fn kind(&self) -> Kind {
        self.raw.kind()
    }

    fn as_number(&self) -> Option<f64> {
        self.raw.as_number()
    }

    fn is_string(&self) -> bool {
        self.raw.is_string()
    }

    fn string_eq(&self, expected: &str) -> Option<bool> {
        self.raw.string_eq(expected)
    }

    fn get(&self, key: &str) -> std::result::Result<Self, ViewError> {
        match self.gathered_child(key) {
            Some(slot) => Ok(self.at(slot)),
            None => {
                let raw = self.raw.get(key)?;
                Ok(GatheredView {
                    g: self.g,
                    slot: Slot::Free,
                    raw,
                })
            }
        }
    }

    fn for_each_key<F>(&self, mut f: F) -> std::result::Result<(), ViewError>
    where
        F: FnMut(
            &str,
            &dyn Fn() -> std::result::Result<Self, ViewError>,
        ) -> std::result::Result<bool, ViewError>,
    {
        if self.slot == Slot::Gathered(slot::PARAMS) && self.g.progress_keys >= 0 {
            for (i, name) in PROGRESS_KEYS.iter().enumerate() {
                if self.g.progress_keys & (1 << i) != 0 {
                    let value = || Ok(self.at(Slot::Gathered(slot::PR_TOKEN + i)));
                    if !f(name, &value)? {
                        return Ok(());
                    }
                }
            }
            let unknown = self.g.args[slot::PR_UNKNOWN];
            if type_of(self.g.env, unknown) == sys::ValueType::napi_string {
                let name = read_long_string(self.g.env, unknown);
                let value = || self.get(&name);
                f(&name, &value)?;
            }
            return Ok(());
        }
        if self.slot != Slot::Gathered(slot::MESSAGE) {
            let g = self.g;
            return self.raw.for_each_key(|k, value| {
                let wrapped = || {
                    value().map(|raw| GatheredView {
                        g,
                        slot: Slot::Free,
                        raw,
                    })
                };
                f(k, &wrapped)
            });
        }
        // The known keys, then the first unknown one (all the classifier
        // needs: it stops caring after the first unexpected key).
        for (i, name) in TOP_KEYS.iter().enumerate() {
            if self.g.keys & (1 << i) != 0 {
                let value = || Ok(self.at(Slot::Gathered(slot::TOP + i)));
                if !f(name, &value)? {
                    return Ok(());
                }
            }
        }
        let unknown = self.g.args[slot::UNKNOWN];
        if type_of(self.g.env, unknown) == sys::ValueType::napi_string {
            let name = read_long_string(self.g.env, unknown);
            let value = || self.get(&name);
            f(&name, &value)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// options

const CALLBACK_NAMES: [&str; 5] = [
    "onResponse",
    "onRequest",
    "onNotification",
    "onInvalid",
    "onError",
];
const ON_RESPONSE: usize = 0;
const ON_REQUEST: usize = 1;
const ON_NOTIFICATION: usize = 2;
const ON_INVALID: usize = 3;
const ON_ERROR: usize = 4;

/// The `kind` passed to `onError`, indexed like the first four callbacks.
const KIND_NAMES: [&str; 4] = ["response", "request", "notification", "invalid"];

fn read_profile(env: sys::napi_env, sdk: sys::napi_value, what: &str) -> Result<Profile> {
    let mut n = 0f64;
    match type_of(env, sdk) {
        sys::ValueType::napi_undefined => Ok(Profile::V1),
        sys::ValueType::napi_number
            if unsafe { sys::napi_get_value_double(env, sdk, &mut n) } == OK
                && (n == 1.0 || n == 2.0) =>
        {
            Ok(if n == 1.0 { Profile::V1 } else { Profile::V2 })
        }
        _ => type_error(
            env,
            &format!("{what} must be 1 or 2 (the major version of the MCP SDK schemas to mirror)"),
        ),
    }
}

// ---------------------------------------------------------------------------
// rejection handler: `reportRejection(onError, kind, reason)`, bound per kind

/// The native body of the per-dispatcher rejection handler. `data` is an
/// `Rc<Counters>` (released by the function's finalizer). Never throws.
unsafe extern "C" fn report_rejection(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let mut argc = 3usize;
        let mut argv = [ptr::null_mut(); 3];
        let mut data = ptr::null_mut();
        if unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                &mut argc,
                argv.as_mut_ptr(),
                ptr::null_mut(),
                &mut data,
            )
        } != OK
        {
            return;
        }
        // SAFETY: `data` is the `Rc<Counters>` leaked for this function and
        // released only by its finalizer, so it is alive while we run.
        let counters = unsafe { &*(data as *const Counters) };
        counters.handler_error();
        let (on_error, kind, reason) = (argv[0], argv[1], argv[2]);
        call_on_error(env, counters, on_error, reason, kind);
    }));
    ptr::null_mut()
}

unsafe extern "C" fn release_counters(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    let _ = catch_unwind(|| {
        // SAFETY: `data` came from `Rc::into_raw` in `make_rejection_handlers`.
        drop(unsafe { Rc::from_raw(data as *const Counters) });
    });
}

/// Calls `onError(error, kind)` with `this` undefined; swallows (and counts)
/// whatever it throws.
fn call_on_error(
    env: sys::napi_env,
    counters: &Counters,
    on_error: sys::napi_value,
    error: sys::napi_value,
    kind: sys::napi_value,
) {
    let argv = [error, kind];
    let mut ret = ptr::null_mut();
    let status = unsafe {
        sys::napi_call_function(env, undefined(env), on_error, 2, argv.as_ptr(), &mut ret)
    };
    if status != OK {
        let _ = take_exception(env);
        counters.on_error_failure();
    }
}

/// Creates `reportRejection` bound to `(onError, kind)` for each kind.
fn make_rejection_handlers(
    env: sys::napi_env,
    counters: &Rc<Counters>,
    on_error: sys::napi_value,
) -> Result<[sys::napi_value; 4]> {
    let name = "reportRejection";
    let data = Rc::into_raw(Rc::clone(counters)) as *mut c_void;
    let mut report = ptr::null_mut();
    let status = unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr().cast(),
            name.len() as isize,
            Some(report_rejection),
            data,
            &mut report,
        )
    };
    if status != OK {
        unsafe { drop(Rc::from_raw(data as *const Counters)) };
        return Err(status_error(status, "creating the rejection handler"));
    }
    let status = unsafe {
        sys::napi_add_finalizer(
            env,
            report,
            data,
            Some(release_counters),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if status != OK {
        // Leak one Rc rather than risk a dangling pointer.
        return Err(status_error(
            status,
            "attaching the rejection handler finalizer",
        ));
    }
    let mut bind = ptr::null_mut();
    check(
        unsafe { sys::napi_get_named_property(env, report, c"bind".as_ptr(), &mut bind) },
        "Function.prototype.bind",
    )?;
    let mut out = [ptr::null_mut(); 4];
    for (slot, kind) in out.iter_mut().zip(KIND_NAMES) {
        let argv = [undefined(env), on_error, js_string(env, kind)];
        check(
            unsafe { sys::napi_call_function(env, report, bind, 3, argv.as_ptr(), slot) },
            "binding the rejection handler",
        )?;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// arrays without [[Set]]

/// A new array of `values`, its elements defined with `napi_define_properties`
/// (own data properties): unlike `napi_set_element`, a `[[Set]]` that calls
/// an accessor JavaScript installed on `Array.prototype` for a missing index,
/// this runs no JavaScript.
fn define_values(env: sys::napi_env, values: &[sys::napi_value]) -> Result<sys::napi_value> {
    const NAMES: [&std::ffi::CStr; 9] = [c"0", c"1", c"2", c"3", c"4", c"5", c"6", c"7", c"8"];
    assert!(
        values.len() <= NAMES.len(),
        "define_values: too many values"
    );
    let mut descriptors = [sys::napi_property_descriptor {
        utf8name: ptr::null(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value: ptr::null_mut(),
        attributes: sys::PropertyAttributes::writable
            | sys::PropertyAttributes::enumerable
            | sys::PropertyAttributes::configurable,
        data: ptr::null_mut(),
    }; NAMES.len()];
    for ((d, name), value) in descriptors.iter_mut().zip(NAMES).zip(values) {
        d.utf8name = name.as_ptr();
        d.value = *value;
    }
    let mut array = ptr::null_mut();
    check(
        unsafe { sys::napi_create_array_with_length(env, values.len(), &mut array) },
        "creating an array",
    )?;
    check(
        unsafe { sys::napi_define_properties(env, array, values.len(), descriptors.as_ptr()) },
        "filling an array",
    )?;
    Ok(array)
}

// ---------------------------------------------------------------------------
// Dispatcher

/// A message (and its `extra`) waiting for the current callback to return:
/// a strong reference to a `[message, extra]` array.
struct Queued {
    holder: sys::napi_ref,
    class: Routed,
}

/// A classification, and whether a notification is a plain progress
/// notification (see `core::progress`), which `onNotification` is told.
type Routed = (Classification, bool);

/// Delivers inbound JSON-RPC messages to callbacks in wire order.
#[napi]
pub struct Dispatcher {
    env: sys::napi_env,
    /// Weak references; the strong edges live on the JS object (see module docs).
    callbacks: [sys::napi_ref; 5],
    /// Weak references to the bound rejection handlers, per kind.
    rejection_handlers: [sys::napi_ref; 4],
    queue: RefCell<OrderedQueue<Queued>>,
    counters: Rc<Counters>,
    profile: Profile,
}

/// `d.stats()`.
#[napi(object)]
pub struct DispatcherStats {
    pub dispatched: f64,
    pub responses: f64,
    pub requests: f64,
    pub notifications: f64,
    pub invalid: f64,
    pub handler_errors: f64,
    pub on_error_failures: f64,
    pub max_queued: f64,
    pub refs_created: f64,
    pub refs_released: f64,
}

#[napi]
impl Dispatcher {
    /// `new Dispatcher({ onResponse, onRequest, onNotification, onInvalid, onError, sdk? })`
    #[napi(constructor)]
    pub fn new(env: Env, this: This, options: Unknown) -> Result<Self> {
        guarded("new Dispatcher()", || {
            Self::construct(env.raw(), this, options)
        })
    }

    fn construct(env: sys::napi_env, this: This, options: Unknown) -> Result<Self> {
        let options = options.raw();
        let t = type_of(env, options);
        if t != sys::ValueType::napi_object && t != sys::ValueType::napi_function {
            return type_error(
                env,
                "new Dispatcher(options): options must be an object with onResponse, onRequest, \
                 onNotification, onInvalid and onError functions",
            );
        }
        let mut fns = [ptr::null_mut(); 9];
        for (i, name) in CALLBACK_NAMES.iter().enumerate() {
            let mut v = ptr::null_mut();
            with_c_key(name, |k| {
                check(
                    unsafe { sys::napi_get_named_property(env, options, k, &mut v) },
                    "reading options",
                )
            })?;
            if type_of(env, v) != sys::ValueType::napi_function {
                let got = NapiView { env, value: v }.kind().describe();
                return type_error(
                    env,
                    &format!(
                        "new Dispatcher(options): options.{name} must be a function (got {got})"
                    ),
                );
            }
            fns[i] = v;
        }
        let mut sdk = ptr::null_mut();
        check(
            unsafe { sys::napi_get_named_property(env, options, c"sdk".as_ptr(), &mut sdk) },
            "reading options",
        )?;
        let profile = read_profile(env, sdk, "new Dispatcher(options): options.sdk")?;

        let counters = Rc::new(Counters::default());
        let handlers = make_rejection_handlers(env, &counters, fns[ON_ERROR])?;
        fns[5..].copy_from_slice(&handlers);

        // Anchor everything on `this` (non-enumerable, read-only, symbol key),
        // in a frozen array whose elements are defined, not assigned (no
        // `Array.prototype` setter can take a callback away).
        let anchor = define_values(env, &fns)?;
        check(
            unsafe { sys::napi_object_freeze(env, anchor) },
            "freezing the callback table",
        )?;
        let mut key = ptr::null_mut();
        check(
            unsafe {
                sys::napi_create_symbol(
                    env,
                    js_string(env, "mcp-ordered-dispatch callbacks"),
                    &mut key,
                )
            },
            "creating the callback symbol",
        )?;
        let descriptor = sys::napi_property_descriptor {
            utf8name: ptr::null(),
            name: key,
            method: None,
            getter: None,
            setter: None,
            value: anchor,
            attributes: sys::PropertyAttributes::default,
            data: ptr::null_mut(),
        };
        check(
            unsafe { sys::napi_define_properties(env, this.object.raw(), 1, &descriptor) },
            "anchoring the callbacks",
        )?;

        let mut refs = [ptr::null_mut(); 9];
        for (r, f) in refs.iter_mut().zip(fns) {
            check(
                unsafe { sys::napi_create_reference(env, f, 0, r) },
                "referencing a callback",
            )?;
        }
        // Last: nothing can fail after `this` is tagged (napi-rs wraps it next).
        receiver::tag_instance(env, this.object.raw(), &DISPATCHER)?;
        let mut callbacks = [ptr::null_mut(); 5];
        callbacks.copy_from_slice(&refs[..5]);
        let mut rejection_handlers = [ptr::null_mut(); 4];
        rejection_handlers.copy_from_slice(&refs[5..]);
        Ok(Dispatcher {
            env,
            callbacks,
            rejection_handlers,
            queue: RefCell::new(OrderedQueue::new()),
            counters,
            profile,
        })
    }

    /// Classifies `message` and calls the matching callback; queued instead if
    /// a callback of this dispatcher is running (delivered right after it).
    ///
    /// This native version reads the message through N-API; `lib/native.cjs`
    /// replaces it with a JavaScript `dispatch` that gathers the fields first
    /// and calls `_dispatchGathered` (same semantics, ~5x cheaper).
    #[napi]
    pub fn dispatch(&self, env: Env, message: Unknown, extra: Unknown) -> Result<()> {
        let (env, message, extra) = (env.raw(), message.raw(), extra.raw());
        guarded("dispatch()", || {
            let class = classify(
                &NapiView {
                    env,
                    value: message,
                },
                self.profile,
            );
            self.dispatch_classified(env, message, extra, (class, false));
            Ok(())
        })
    }

    /// `dispatch` with the fields gathered by JavaScript (see `lib/native.cjs`),
    /// positionally as `crate::boundary::slot` lays them out. `keys` < 0 means
    /// "not gathered" (the message is not an object, or reading it threw):
    /// the message is then read through N-API.
    #[napi(js_name = "_dispatchGathered")]
    #[allow(clippy::too_many_arguments)]
    pub fn dispatch_gathered(
        &self,
        env: Env,
        a0: Unknown,
        a1: Unknown,
        a2: Unknown,
        a3: Unknown,
        a4: Unknown,
        a5: Unknown,
        a6: Unknown,
        a7: Unknown,
        a8: Unknown,
        a9: Unknown,
        a10: Unknown,
        a11: Unknown,
        a12: Unknown,
        a13: Unknown,
        a14: Unknown,
        a15: Unknown,
        a16: Unknown,
        a17: Unknown,
        a18: Unknown,
        a19: Unknown,
        a20: Unknown,
        a21: Unknown,
        a22: Unknown,
        a23: Unknown,
        a24: Unknown,
        a25: Unknown,
    ) -> Result<()> {
        let env = env.raw();
        let args = [
            a0.raw(),
            a1.raw(),
            a2.raw(),
            a3.raw(),
            a4.raw(),
            a5.raw(),
            a6.raw(),
            a7.raw(),
            a8.raw(),
            a9.raw(),
            a10.raw(),
            a11.raw(),
            a12.raw(),
            a13.raw(),
            a14.raw(),
            a15.raw(),
            a16.raw(),
            a17.raw(),
            a18.raw(),
            a19.raw(),
            a20.raw(),
            a21.raw(),
            a22.raw(),
            a23.raw(),
            a24.raw(),
            a25.raw(),
        ];
        guarded("dispatch()", || {
            let (message, extra) = (args[slot::MESSAGE], args[slot::EXTRA]);
            let mut k = -1i32;
            unsafe { sys::napi_get_value_int32(env, args[slot::KEYS], &mut k) };
            let (class, plain) = if k < 0 {
                let class = classify(
                    &NapiView {
                        env,
                        value: message,
                    },
                    self.profile,
                );
                (class, false)
            } else {
                let mut progress_keys = -1i32;
                unsafe { sys::napi_get_value_int32(env, args[slot::PR_KEYS], &mut progress_keys) };
                let g = Gathered {
                    env,
                    args,
                    keys: k as u8 & KEYS_ALL,
                    progress_keys,
                };
                let root = GatheredView::root(&g);
                let class = classify(&root, self.profile);
                let plain = progress_keys >= 0
                    && class == Classification::Notification
                    && plain_progress(&root);
                (class, plain)
            };
            self.dispatch_classified(env, message, extra, (class, plain));
            Ok(())
        })
    }

    /// `dispatch` of a message the native stdio framer has already validated
    /// and classified (`code`: a framed message's code, see
    /// `crate::boundary`). A code that is no valid kind reads the message
    /// through N-API and classifies it here.
    #[napi(js_name = "_dispatchClassified")]
    pub fn dispatch_classified_js(
        &self,
        env: Env,
        message: Unknown,
        extra: Unknown,
        code: i32,
    ) -> Result<()> {
        let (env, message, extra) = (env.raw(), message.raw(), extra.raw());
        guarded("dispatch()", || {
            let class = crate::boundary::class_of_code(code).unwrap_or_else(|| {
                classify(
                    &NapiView {
                        env,
                        value: message,
                    },
                    self.profile,
                )
            });
            self.dispatch_classified(env, message, extra, (class, false));
            Ok(())
        })
    }

    /// Counters since construction.
    #[napi]
    pub fn stats(&self) -> Result<DispatcherStats> {
        guarded("stats()", || {
            let max_queued = self.queue.try_borrow().map(|q| q.max_queued()).unwrap_or(0);
            let s = self.counters.snapshot(max_queued);
            Ok(DispatcherStats {
                dispatched: s.dispatched as f64,
                responses: s.responses as f64,
                requests: s.requests as f64,
                notifications: s.notifications as f64,
                invalid: s.invalid as f64,
                handler_errors: s.handler_errors as f64,
                on_error_failures: s.on_error_failures as f64,
                max_queued: s.max_queued as f64,
                refs_created: s.refs_created as f64,
                refs_released: s.refs_released as f64,
            })
        })
    }
}

impl Dispatcher {
    /// Wire order: deliver now, or queue behind the callback that is running.
    /// The message is classified on arrival (by the caller).
    fn dispatch_classified(
        &self,
        env: sys::napi_env,
        message: sys::napi_value,
        extra: sys::napi_value,
        class: Routed,
    ) {
        let class = std::cell::Cell::new(Some(class));
        let take_class = || {
            class
                .take()
                .unwrap_or((Classification::Invalid(String::new()), false))
        };
        run_ordered(
            &self.queue,
            || self.deliver(env, message, extra, take_class()),
            || self.enqueue(env, message, extra, take_class()),
            |queued| {
                let mut scope = ptr::null_mut();
                let opened = unsafe { sys::napi_open_handle_scope(env, &mut scope) } == OK;
                let (message, extra, class) = self.take(env, queued);
                self.deliver(env, message, extra, class);
                if opened {
                    unsafe { sys::napi_close_handle_scope(env, scope) };
                }
            },
        );
    }

    fn enqueue(
        &self,
        env: sys::napi_env,
        message: sys::napi_value,
        extra: sys::napi_value,
        class: Routed,
    ) -> Queued {
        // `[message, extra]`, defined rather than assigned: no JavaScript runs
        // (an `Array.prototype[0]` setter cannot swallow the message).
        let mut r = ptr::null_mut();
        let ok = match define_values(env, &[message, extra]) {
            Ok(holder) => unsafe { sys::napi_create_reference(env, holder, 1, &mut r) == OK },
            Err(_) => false,
        };
        if !ok {
            // Caught by `guarded`: the re-entrant dispatch() call throws.
            let _ = take_exception(env);
            panic!("could not retain a re-entrantly dispatched message");
        }
        self.counters.ref_created();
        Queued { holder: r, class }
    }

    /// Reads the queued `[message, extra]` and releases the reference. Its
    /// elements are own data properties, so reading them runs no JavaScript.
    fn take(
        &self,
        env: sys::napi_env,
        queued: Queued,
    ) -> (sys::napi_value, sys::napi_value, Routed) {
        let mut holder = ptr::null_mut();
        let mut message = undefined(env);
        let mut extra = undefined(env);
        unsafe {
            if sys::napi_get_reference_value(env, queued.holder, &mut holder) == OK
                && !holder.is_null()
            {
                sys::napi_get_element(env, holder, 0, &mut message);
                sys::napi_get_element(env, holder, 1, &mut extra);
            }
            sys::napi_delete_reference(env, queued.holder);
        }
        self.counters.ref_released();
        (message, extra, queued.class)
    }

    /// Calls the callback for `class`; never throws into the caller.
    fn deliver(
        &self,
        env: sys::napi_env,
        message: sys::napi_value,
        extra: sys::napi_value,
        (class, plain_progress): Routed,
    ) {
        let mut second = extra;
        let mut third = ptr::null_mut();
        unsafe { sys::napi_get_boolean(env, plain_progress, &mut third) };
        let (index, counted) = match class {
            Classification::Result | Classification::Error => {
                let is_error = matches!(class, Classification::Error);
                unsafe { sys::napi_get_boolean(env, is_error, &mut second) };
                (ON_RESPONSE, Delivered::Response)
            }
            Classification::Request => (ON_REQUEST, Delivered::Request),
            Classification::Notification => (ON_NOTIFICATION, Delivered::Notification),
            Classification::Invalid(reason) => {
                second = js_string(env, &reason);
                (ON_INVALID, Delivered::Invalid)
            }
        };
        self.counters.delivered(counted);
        let Some(callback) = self.callback(env, self.callbacks[index]) else {
            return;
        };
        // onNotification(message, extra, plainProgress); the others take two.
        let argv = [message, second, third];
        let argc = if index == ON_NOTIFICATION { 3 } else { 2 };
        let mut ret = ptr::null_mut();
        let status = unsafe {
            sys::napi_call_function(env, undefined(env), callback, argc, argv.as_ptr(), &mut ret)
        };
        if status == OK {
            let mut is_promise = false;
            if !ret.is_null()
                && unsafe { sys::napi_is_promise(env, ret, &mut is_promise) } == OK
                && is_promise
            {
                self.watch_promise(env, ret, index);
            }
            return;
        }
        self.counters.handler_error();
        let error = take_exception(env).unwrap_or_else(|| {
            let mut e = ptr::null_mut();
            let msg = js_string(
                env,
                &format!(
                    "mcp-ordered-dispatch: calling {} failed (napi status {status})",
                    CALLBACK_NAMES[index]
                ),
            );
            unsafe { sys::napi_create_error(env, ptr::null_mut(), msg, &mut e) };
            e
        });
        if let Some(on_error) = self.callback(env, self.callbacks[ON_ERROR]) {
            call_on_error(
                env,
                &self.counters,
                on_error,
                error,
                js_string(env, KIND_NAMES[index]),
            );
        }
    }

    /// `promise.then(undefined, handler)`; the handler reports rejections.
    fn watch_promise(&self, env: sys::napi_env, promise: sys::napi_value, index: usize) {
        let Some(handler) = self.callback(env, self.rejection_handlers[index]) else {
            return;
        };
        let mut then = ptr::null_mut();
        let mut ret = ptr::null_mut();
        let ok = unsafe {
            sys::napi_get_named_property(env, promise, c"then".as_ptr(), &mut then) == OK
                && sys::napi_call_function(
                    env,
                    promise,
                    then,
                    2,
                    [undefined(env), handler].as_ptr(),
                    &mut ret,
                ) == OK
        };
        if !ok {
            let _ = take_exception(env);
        }
    }

    fn callback(&self, env: sys::napi_env, r: sys::napi_ref) -> Option<sys::napi_value> {
        let mut f = ptr::null_mut();
        let status = unsafe { sys::napi_get_reference_value(env, r, &mut f) };
        (status == OK && !f.is_null()).then_some(f)
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        let env = self.env;
        unsafe {
            for r in self.callbacks.iter().chain(self.rejection_handlers.iter()) {
                sys::napi_delete_reference(env, *r);
            }
        }
        if let Ok(mut q) = self.queue.try_borrow_mut() {
            for item in q.take_all() {
                unsafe { sys::napi_delete_reference(env, item.holder) };
                self.counters.ref_released();
            }
        }
    }
}

/// The accessors, defined by `crate::receiver::init`.
pub(crate) const ACCESSORS: [Accessor; 1] = [Accessor {
    name: c"pending",
    getter: Some(get_pending),
    setter: None,
}];

/// `dispatcher.pending`: messages queued by re-entrant delivery and not yet
/// dispatched.
unsafe extern "C" fn get_pending(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    const WHAT: &str = "Dispatcher.pending";
    run_accessor(env, info, WHAT, |env, this, _| {
        // SAFETY: `Dispatcher` is what napi-rs wraps into this class.
        let d = unsafe { receiver::instance::<Dispatcher>(env, this, &DISPATCHER, WHAT)? };
        let pending = d
            .queue
            .try_borrow()
            .map_err(|_| Error::from_reason("mcp-ordered-dispatch: queue busy"))?
            .len() as u32;
        let mut v = ptr::null_mut();
        check(
            unsafe { sys::napi_create_uint32(env, pending, &mut v) },
            "creating a number",
        )?;
        Ok(v)
    })
}

/// The result of `classify()` for an invalid message.
#[napi(object)]
pub struct InvalidClassification {
    pub invalid: String,
}

/// `classify(message, sdk?)` → `'result' | 'error' | 'request' |
/// 'notification' | { invalid: reason }`.
#[napi(js_name = "classify")]
pub fn classify_js(
    env: Env,
    message: Unknown,
    sdk: Unknown,
) -> Result<Either<String, InvalidClassification>> {
    let (env, message, sdk) = (env.raw(), message.raw(), sdk.raw());
    guarded("classify()", || {
        let profile = read_profile(env, sdk, "classify(message, sdk): sdk")?;
        Ok(
            match classify(
                &NapiView {
                    env,
                    value: message,
                },
                profile,
            ) {
                Classification::Invalid(reason) => {
                    Either::B(InvalidClassification { invalid: reason })
                }
                other => Either::A(other.name().to_owned()),
            },
        )
    })
}

/// Test hook: panics inside a guarded entry point, which must surface as a
/// thrown JavaScript `Error` (never an abort).
#[napi(js_name = "_testPanic")]
pub fn test_panic() -> Result<()> {
    guarded("_testPanic()", || panic!("deliberate test panic"))
}
