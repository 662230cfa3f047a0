//! The `Dispatcher` class and the `classify` function exported to
//! JavaScript (the classifier's views of JavaScript values are in
//! `crate::js_view`).
//!
//! Hot-path rules followed here:
//! * property reads through N-API are expensive (~150 ns each, against ~1 ns
//!   for a JIT-compiled read), so `lib/classify/dispatch.cjs` gathers the fields the
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
//! * every entry point runs under `crate::napi_support::guarded` (the one
//!   panic policy): a Rust panic becomes a thrown JavaScript `Error`, never
//!   an abort. The rejection handler, which must never throw, swallows it.
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
//! No JavaScript runs inside native calls: the binding builds its arrays
//! (the callback table, a queued `[message, extra]`) by defining their
//! elements (`crate::napi_support::define_array`), never with
//! `napi_set_element`, whose `[[Set]]` would run an accessor JavaScript
//! installed on `Array.prototype`.
//! The JavaScript that does run inside `dispatch` — getters of the message
//! while it is classified, the callbacks, a promise's `then` — runs with no
//! `RefCell` borrow held and nothing borrowed from JavaScript memory, and
//! every method takes `&self`, so it may re-enter the dispatcher freely (a
//! re-entrant `dispatch` is queued, see `core::queue`). The `pending` getter
//! checks its receiver (see `crate::receiver`).

use std::cell::RefCell;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::rc::Rc;

use napi::bindgen_prelude::{Either, Env, JsValue, This, Unknown};
use napi::sys;
use napi::{Error, Result};
use napi_derive::napi;

use crate::js_view::{Gathered, GatheredView, NapiView};
use crate::napi_support::{define_array, guarded, js_string, take_exception, undefined};
use crate::options::{
    dispatcher_options, sdk_profile, CALLBACK_NAMES, ON_ERROR, ON_INVALID, ON_NOTIFICATION,
    ON_REQUEST, ON_RESPONSE,
};
use crate::raw::{self, OrFail};
use crate::receiver::{self, run_accessor, Accessor, DISPATCHER};
use mcp_ordered_dispatch_core::boundary::{slot, KEYS_ALL};
use mcp_ordered_dispatch_core::progress::plain_progress;
use mcp_ordered_dispatch_core::{
    classify, run_ordered, Classification, Counters, Delivered, OrderedQueue, Profile,
};

// ---------------------------------------------------------------------------
// callbacks (their options: `crate::options`)

/// The `kind` passed to `onError`, indexed like the first four callbacks.
const KIND_NAMES: [&str; 4] = ["response", "request", "notification", "invalid"];

/// Classifies a live JavaScript value, reading it through N-API.
fn classify_live(env: sys::napi_env, value: sys::napi_value, profile: Profile) -> Classification {
    classify(&NapiView { env, value }, profile)
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
        let Ok((argv, _, data)) = raw::get_cb_info::<3>(env, info) else {
            return;
        };
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
    if raw::call_function(env, undefined(env), on_error, &[error, kind]).is_err() {
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
    // SAFETY: `data` (one count of the `Rc`) is released only by the
    // finalizer attached below, after the function is collected.
    let report = match unsafe { raw::create_function(env, name, Some(report_rejection), data) } {
        Ok(f) => f,
        Err(failed) => {
            // SAFETY: not handed to N-API: the count is ours to drop.
            unsafe { drop(Rc::from_raw(data as *const Counters)) };
            return Err(failed.error("creating the rejection handler"));
        }
    };
    // SAFETY: `release_counters` drops that one count, once.
    unsafe { raw::add_finalizer(env, report, data, Some(release_counters)) }
        // Leak one Rc rather than risk a dangling pointer.
        .or_fail("attaching the rejection handler finalizer")?;
    let bind = raw::get_named_property(env, report, c"bind").or_fail("Function.prototype.bind")?;
    let mut out = [ptr::null_mut(); 4];
    for (slot, kind) in out.iter_mut().zip(KIND_NAMES) {
        let argv = [undefined(env), on_error, js_string(env, kind)];
        *slot = raw::call_function(env, report, bind, &argv)
            .or_fail("binding the rejection handler")?;
    }
    Ok(out)
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
        let (callbacks, profile) = dispatcher_options(env, options.raw())?;
        let mut fns = [ptr::null_mut(); 9];
        fns[..5].copy_from_slice(&callbacks);

        let counters = Rc::new(Counters::default());
        let handlers = make_rejection_handlers(env, &counters, fns[ON_ERROR])?;
        fns[5..].copy_from_slice(&handlers);

        // Anchor everything on `this` (non-enumerable, read-only, symbol key),
        // in a frozen array whose elements are defined, not assigned (no
        // `Array.prototype` setter can take a callback away).
        let anchor = define_array(env, &fns, &[])?;
        raw::object_freeze(env, anchor).or_fail("freezing the callback table")?;
        let key = raw::create_symbol(env, js_string(env, "mcp-ordered-dispatch callbacks"))
            .or_fail("creating the callback symbol")?;
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
        raw::define_properties(env, this.object.raw(), &[descriptor])
            .or_fail("anchoring the callbacks")?;

        let mut refs = [ptr::null_mut(); 9];
        for (r, f) in refs.iter_mut().zip(fns) {
            *r = raw::create_reference(env, f, 0).or_fail("referencing a callback")?;
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
    /// This native version reads the message through N-API; `lib/classify/dispatch.cjs`
    /// replaces it with a JavaScript `dispatch` that gathers the fields first
    /// and calls `_dispatchGathered` (same semantics, ~5x cheaper).
    #[napi]
    pub fn dispatch(&self, env: Env, message: Unknown, extra: Unknown) -> Result<()> {
        let (env, message, extra) = (env.raw(), message.raw(), extra.raw());
        guarded("dispatch()", || {
            let class = classify_live(env, message, self.profile);
            self.dispatch_classified(env, message, extra, (class, false));
            Ok(())
        })
    }

    /// `dispatch` with the fields gathered by JavaScript (see `lib/classify/dispatch.cjs`),
    /// positionally as `mcp_ordered_dispatch_core::boundary::slot` lays them out. `keys` < 0 means
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
            // Not a number: nothing was gathered.
            let k = raw::get_value_int32(env, args[slot::KEYS]).unwrap_or(-1);
            let (class, plain) = if k < 0 {
                let class = classify_live(env, message, self.profile);
                (class, false)
            } else {
                let progress_keys = raw::get_value_int32(env, args[slot::PR_KEYS]).unwrap_or(-1);
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
    /// `mcp_ordered_dispatch_core::boundary`). A code that is no valid kind reads the message
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
            let class = mcp_ordered_dispatch_core::boundary::class_of_code(code)
                .unwrap_or_else(|| classify_live(env, message, self.profile));
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
                // Without a scope of its own (it never fails to open), the
                // message's handles live in the caller's.
                let scope = raw::open_handle_scope(env).ok();
                let (message, extra, class) = self.take(env, queued);
                self.deliver(env, message, extra, class);
                if let Some(scope) = scope {
                    // Closing the scope just opened cannot fail.
                    let _ = raw::close_handle_scope(env, scope);
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
        let held = define_array(env, &[message, extra], &[])
            .ok()
            .and_then(|holder| raw::create_reference(env, holder, 1).ok());
        let Some(r) = held else {
            // Caught by `guarded`: the re-entrant dispatch() call throws.
            let _ = take_exception(env);
            panic!("could not retain a re-entrantly dispatched message");
        };
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
        // The holder is strong: reading it fails only with a broken env,
        // and then the message is delivered as `undefined`.
        let element =
            |holder, i| raw::get_element(env, holder, i).unwrap_or_else(|_| undefined(env));
        let (message, extra) = match raw::get_reference_value(env, queued.holder) {
            Ok(holder) if !holder.is_null() => (element(holder, 0), element(holder, 1)),
            _ => (undefined(env), undefined(env)),
        };
        // Deleting a live reference cannot fail.
        let _ = raw::delete_reference(env, queued.holder);
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
        // Getting a boolean cannot fail for a live env; `undefined` if it did.
        let boolean = |b| raw::get_boolean(env, b).unwrap_or_else(|_| undefined(env));
        let mut second = extra;
        let third = boolean(plain_progress);
        let (index, counted) = match class {
            Classification::Result | Classification::Error => {
                second = boolean(matches!(class, Classification::Error));
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
        let failed = match raw::call_function(env, undefined(env), callback, &argv[..argc]) {
            Ok(ret) => {
                if !ret.is_null() && raw::is_promise(env, ret) == Ok(true) {
                    self.watch_promise(env, ret, index);
                }
                return;
            }
            Err(failed) => failed,
        };
        self.counters.handler_error();
        let error = take_exception(env).unwrap_or_else(|| {
            let msg = js_string(
                env,
                &format!(
                    "mcp-ordered-dispatch: calling {} failed (napi status {})",
                    CALLBACK_NAMES[index], failed.0
                ),
            );
            // No error object either: onError gets the message itself.
            raw::create_error(env, msg).unwrap_or(msg)
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
        let watched = raw::get_named_property(env, promise, c"then")
            .and_then(|then| raw::call_function(env, promise, then, &[undefined(env), handler]));
        if watched.is_err() {
            let _ = take_exception(env);
        }
    }

    fn callback(&self, env: sys::napi_env, r: sys::napi_ref) -> Option<sys::napi_value> {
        raw::get_reference_value(env, r)
            .ok()
            .filter(|f| !f.is_null())
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        let env = self.env;
        // In a finalizer nothing can be thrown: a reference that cannot be
        // deleted (the env is being torn down) goes with the env.
        for r in self.callbacks.iter().chain(self.rejection_handlers.iter()) {
            let _ = raw::delete_reference(env, *r);
        }
        if let Ok(mut q) = self.queue.try_borrow_mut() {
            for item in q.take_all() {
                let _ = raw::delete_reference(env, item.holder);
                self.counters.ref_released();
            }
        }
    }
}

/// The accessors, defined by module init (`crate::init`).
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
        raw::create_uint32(env, pending).or_fail("creating a number")
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
        let profile = sdk_profile(env, sdk, "classify(message, sdk): sdk")?;
        Ok(match classify_live(env, message, profile) {
            Classification::Invalid(reason) => Either::B(InvalidClassification { invalid: reason }),
            other => Either::A(other.name().to_owned()),
        })
    })
}

/// Test hook: panics inside a guarded entry point, which must surface as a
/// thrown JavaScript `Error` (never an abort).
#[napi(js_name = "_testPanic")]
pub fn test_panic() -> Result<()> {
    guarded("_testPanic()", || panic!("deliberate test panic"))
}
