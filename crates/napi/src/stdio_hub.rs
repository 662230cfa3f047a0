//! The one hand-over of every off-thread stdio reader in this environment:
//! a reader with pieces ready is listed here ([`Listing`], its
//! core `Wake`), and the first listing since JavaScript last found the list
//! empty wakes the main thread once, through ONE threadsafe function, for
//! any number of ready readers. The JavaScript it calls (the pump that
//! `StdioThreadReader.hub(pump)` registered, `lib/stdio/hub.cjs`) takes the
//! readers in turn (`StdioThreadReader.nextReady()`) and shares one budget
//! per event-loop turn among them, round-robin.
//!
//! The list holds a weak reference to each reader's JavaScript object (it
//! never keeps a reader alive; a reader collected meanwhile is passed over),
//! and the threadsafe function is unref'd (it never keeps the process
//! alive). One hub per environment: per JavaScript thread (the main thread
//! and each worker thread have their own).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use napi::sys;
use napi::{Error, Result, Status};

use crate::napi_support::{js_string, type_of, undefined};
use crate::raw::{self, OrFail};
use mcp_ordered_dispatch_core::stdio_thread::Wake;

/// A reader as the list holds it: a weak reference to its JavaScript object.
pub(crate) struct Entry {
    weak: sys::napi_ref,
    /// The reader was finalized (its reference deleted): pass it over.
    dead: AtomicBool,
}

// SAFETY: `weak` is read and deleted only on the environment's JavaScript
// thread (`next_ready`, `Entry::finalize`); other threads only move the
// `Arc` and read `dead`.
unsafe impl Send for Entry {}
unsafe impl Sync for Entry {}

impl Entry {
    /// A weak reference to `object` (the reader being constructed).
    pub(crate) fn new(env: sys::napi_env, object: sys::napi_value) -> Result<Arc<Entry>> {
        let weak = raw::create_reference(env, object, 0).or_fail("referencing the reader")?;
        Ok(Arc::new(Entry {
            weak,
            dead: AtomicBool::new(false),
        }))
    }

    /// The reader is finalized (on the JavaScript thread): deletes the
    /// reference; a listing left behind is passed over.
    pub(crate) fn finalize(&self, env: sys::napi_env) {
        if !self.dead.swap(true, Ordering::AcqRel) {
            // Nothing to do about a failure while the env is torn down.
            let _ = raw::delete_reference(env, self.weak);
        }
    }
}

struct List {
    ready: VecDeque<Arc<Entry>>,
    /// A call of the threadsafe function is outstanding, or JavaScript is
    /// taking from the list: no new call until `next_ready` finds it empty.
    armed: bool,
}

pub(crate) struct Hub {
    list: Mutex<List>,
    tsfn: sys::napi_threadsafe_function,
    /// Set when N-API destroys the threadsafe function (its finalizer; also
    /// when the environment is torn down).
    gone: Arc<AtomicBool>,
}

// SAFETY: N-API documents napi_call_threadsafe_function and
// napi_release_threadsafe_function as callable from any thread; `list` is a
// mutex.
unsafe impl Send for Hub {}
unsafe impl Sync for Hub {}

fn lock(m: &Mutex<List>) -> MutexGuard<'_, List> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hub {
    /// Lists `entry`; wakes JavaScript unless a wake-up is outstanding.
    /// Whether JavaScript will take it.
    fn list(&self, entry: &Arc<Entry>) -> bool {
        if self.gone.load(Ordering::Acquire) {
            return false;
        }
        let mut list = lock(&self.list);
        list.ready.push_back(Arc::clone(entry));
        if !list.armed {
            // SAFETY: not `gone`: N-API has not destroyed it, and it is
            // never released while a reader holds the hub (`Drop`).
            list.armed = unsafe { raw::call_threadsafe_function(self.tsfn) }.is_ok();
        }
        list.armed
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        if !self.gone.load(Ordering::Acquire) {
            // SAFETY: as in `list`; the last holder is gone.
            let _ = unsafe { raw::release_threadsafe_function(self.tsfn) };
        }
    }
}

/// A reader's core `Wake`: lists it with its environment's hub.
pub(crate) struct Listing {
    hub: Arc<Hub>,
    entry: Arc<Entry>,
}

impl Wake for Listing {
    fn wake(&self) -> bool {
        self.hub.list(&self.entry)
    }
}

thread_local! {
    /// This JavaScript thread's hub, once `StdioThreadReader.hub()` made it.
    static HUB: RefCell<Option<Arc<Hub>>> = const { RefCell::new(None) };
}

fn current() -> Option<Arc<Hub>> {
    HUB.with(|h| h.borrow().clone())
        .filter(|hub| !hub.gone.load(Ordering::Acquire))
}

/// The `Wake` of a reader of this environment, or an error when no pump is
/// registered (`StdioThreadReader.hub(pump)`).
pub(crate) fn listing(entry: Arc<Entry>) -> Result<Listing> {
    match current() {
        Some(hub) => Ok(Listing { hub, entry }),
        None => Err(Error::new(
            Status::GenericFailure,
            "mcp-ordered-dispatch: StdioThreadReader.hub(pump) must be called before a reader is made",
        )),
    }
}

/// The context of the hub's threadsafe function: a strong reference to the
/// pump (deleted by its finalizer, on the JavaScript thread).
struct Context {
    pump: sys::napi_ref,
    gone: Arc<AtomicBool>,
}

/// Registers `pump` (called with no arguments whenever readers are listed)
/// unless this environment already has a hub. Whether it made one.
pub(crate) fn start(env: sys::napi_env, pump: sys::napi_value) -> Result<bool> {
    if current().is_some() {
        return Ok(false);
    }
    if type_of(env, pump) != sys::ValueType::napi_function {
        return Err(Error::new(
            Status::InvalidArg,
            "StdioThreadReader.hub(pump): pump must be a function",
        ));
    }
    let pump = raw::create_reference(env, pump, 1).or_fail("referencing the pump")?;
    let gone = Arc::new(AtomicBool::new(false));
    let context = Box::into_raw(Box::new(Context {
        pump,
        gone: Arc::clone(&gone),
    }));
    let name = js_string(env, "mcp-ordered-dispatch stdio hand-over");
    // SAFETY: `context` stays alive until `finalize_context` frees it.
    let made = unsafe {
        raw::create_threadsafe_function(
            env,
            name,
            context.cast(),
            Some(finalize_context),
            Some(call_js),
        )
    };
    let tsfn = match made {
        Ok(tsfn) => tsfn,
        Err(failed) => {
            // SAFETY: not handed to N-API.
            let context = unsafe { Box::from_raw(context) };
            let _ = raw::delete_reference(env, context.pump);
            return Err(failed.error("creating the threadsafe function"));
        }
    };
    // Never keeps the process alive (each stream does while it is open).
    let _ = raw::unref_threadsafe_function(env, tsfn);
    let hub = Arc::new(Hub {
        list: Mutex::new(List {
            ready: VecDeque::new(),
            armed: false,
        }),
        tsfn,
        gone,
    });
    HUB.with(|h| *h.borrow_mut() = Some(hub));
    Ok(true)
}

/// The next listed reader's JavaScript object, or `undefined` (and the next
/// listing wakes JavaScript again) once none is listed.
pub(crate) fn next_ready(env: sys::napi_env) -> sys::napi_value {
    let Some(hub) = current() else {
        return undefined(env);
    };
    let mut list = lock(&hub.list);
    while let Some(entry) = list.ready.pop_front() {
        if entry.dead.load(Ordering::Acquire) {
            continue;
        }
        match raw::get_reference_value(env, entry.weak) {
            Ok(object) if !object.is_null() => return object,
            _ => continue, // collected, not yet finalized
        }
    }
    list.armed = false;
    undefined(env)
}

/// On the JavaScript thread, for each threadsafe-function call: `pump()`.
unsafe extern "C" fn call_js(
    env: sys::napi_env,
    _js_callback: sys::napi_value,
    context: *mut std::ffi::c_void,
    _data: *mut std::ffi::c_void,
) {
    if env.is_null() || context.is_null() {
        return; // the environment is going away
    }
    // SAFETY: `context` is the `Context` this threadsafe function was made
    // with, freed only by `finalize_context`, after the last `call_js`.
    let pump = unsafe { (*(context as *const Context)).pump };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let Ok(pump) = raw::get_reference_value(env, pump) else {
            return;
        };
        // An exception it throws stays pending: Node reports it as uncaught,
        // as it would one thrown by a 'data' listener.
        let _ = raw::call_function(env, undefined(env), pump, &[]);
    }));
}

unsafe extern "C" fn finalize_context(
    env: sys::napi_env,
    data: *mut std::ffi::c_void,
    _hint: *mut std::ffi::c_void,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `data` is the context leaked by `start`, and N-API calls
        // this once, after the last `call_js`.
        let context = unsafe { Box::from_raw(data as *mut Context) };
        context.gone.store(true, Ordering::Release);
        if !env.is_null() {
            let _ = raw::delete_reference(env, context.pump);
        }
    }));
}
