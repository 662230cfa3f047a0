//! Receiver checks for the classes' accessors.
//!
//! N-API defines class methods with a V8 signature: a method called on a
//! foreign `this` throws "Illegal invocation" before any Rust runs. Accessors
//! get no such check, and `napi_unwrap` returns whatever native pointer the
//! receiver wraps, so `Object.getOwnPropertyDescriptor(StdioFramer.prototype,
//! 'buffered').get.call(aDispatcher)` would read a `Dispatcher` as a
//! `StdioFramer`. So:
//!
//! * every constructor tags its `this` ([`tag_instance`]) with its class's
//!   [`Class::tag`], after checking that nothing wraps it yet (napi-rs wraps
//!   it with the new instance right after the constructor returns);
//! * the accessors are not napi-rs `#[napi(getter)]`s but raw callbacks
//!   defined on each prototype when the module loads ([`define_accessors`]),
//!   and each one reaches its instance only through [`instance`], which checks
//!   the tag (`napi_check_object_type_tag`) before `napi_unwrap`. A foreign
//!   receiver gets a `TypeError`.

use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::sys;

use crate::raw;

/// A class whose instances are type-tagged.
pub(crate) struct Class {
    pub(crate) name: &'static str,
    pub tag: sys::napi_type_tag,
}

// Random 128-bit tags, one per class.
pub(crate) const DISPATCHER: Class = Class {
    name: "Dispatcher",
    tag: sys::napi_type_tag {
        lower: 0x8d3f_61c2_a94e_0b71,
        upper: 0x4c27_e8d5_13b6_f90a,
    },
};
pub(crate) const STDIO_FRAMER: Class = Class {
    name: "StdioFramer",
    tag: sys::napi_type_tag {
        lower: 0x2e91_d7a4_5cf0_386b,
        upper: 0xb7c5_0e62_9a1d_4f83,
    },
};
pub(crate) const STDIO_THREAD_READER: Class = Class {
    name: "StdioThreadReader",
    tag: sys::napi_type_tag {
        lower: 0x6b1e_94c7_d2a0_58f3,
        upper: 0x90d4_3f7a_e15c_b826,
    },
};
pub(crate) const PROGRESS_TOKENS: Class = Class {
    name: "ProgressTokens",
    tag: sys::napi_type_tag {
        lower: 0x5a0c_b3e8_71d9_26f4,
        upper: 0x13f6_9d2b_c480_e75a,
    },
};

pub(crate) use crate::napi_support::{type_error, undefined};

/// Called by a constructor with its `this`: tags it as an instance of `class`.
/// Refuses (TypeError) an object that something already wraps or tagged, such
/// as another class's instance passed as `this` by `Class.call(other)`.
pub(crate) fn tag_instance(
    env: sys::napi_env,
    this: sys::napi_value,
    class: &Class,
) -> napi::Result<()> {
    if raw::unwrap(env, this).is_ok() {
        return Err(type_error(
            env,
            &format!("{}: `this` is already a native object", class.name),
        ));
    }
    if raw::type_tag_object(env, this, &class.tag).is_err() {
        return Err(type_error(
            env,
            &format!(
                "{}: `this` cannot be tagged as a {}",
                class.name, class.name
            ),
        ));
    }
    Ok(())
}

/// The instance of `T` behind `this`, or a `TypeError` if `this` is not an
/// instance of `class`.
///
/// # Safety
/// `T` must be the Rust type that napi-rs wraps into instances of `class`,
/// whose constructor calls [`tag_instance`].
pub(crate) unsafe fn instance<'a, T>(
    env: sys::napi_env,
    this: sys::napi_value,
    class: &Class,
    what: &str,
) -> napi::Result<&'a T> {
    // Not an object (a primitive, null, undefined): a failure, so not tagged.
    if raw::check_object_type_tag(env, this, &class.tag) != Ok(true) {
        return Err(type_error(
            env,
            &format!("{what}: `this` is not a {}", class.name),
        ));
    }
    let wrapped = match raw::unwrap(env, this) {
        Ok(p) if !p.is_null() => p,
        _ => {
            return Err(type_error(
                env,
                &format!("{what}: this {} was not constructed", class.name),
            ))
        }
    };
    // SAFETY: the tag is set only by `class`'s constructor, on an object that
    // nothing wrapped, and napi-rs then wraps that object with a `Box<T>`; so
    // a tagged object that wraps anything wraps a `T`. `this` is an argument
    // of the running call, so the object and its `T` (freed only by the
    // finalizer, after the object is collected) outlive this call. Every
    // method of `T` takes `&self`, so no `&mut T` can be live.
    Ok(unsafe { &*(wrapped as *const T) })
}

/// A raw accessor: `body(env, this, value)` (value: the setter's argument, or
/// `undefined` for a getter) under `catch_unwind`; an `Err` has been thrown or
/// is thrown here.
pub(crate) fn run_accessor(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    what: &str,
    body: impl FnOnce(sys::napi_env, sys::napi_value, sys::napi_value) -> napi::Result<sys::napi_value>,
) -> sys::napi_value {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let Ok(([value], this, _)) = raw::get_cb_info::<1>(env, info) else {
            return Err(napi::Error::from_reason(format!(
                "mcp-ordered-dispatch: {what}: reading the call failed"
            )));
        };
        let value = if value.is_null() {
            undefined(env)
        } else {
            value
        };
        body(env, this, value)
    }));
    let error = match outcome {
        Ok(Ok(value)) => return value,
        Ok(Err(e)) => e,
        Err(payload) => crate::napi_support::panic_error(what, &*payload),
    };
    // A failure to ask counts as pending: nothing is thrown over it.
    if raw::is_exception_pending(env) == Ok(false) {
        let msg = CString::new(error.reason.replace('\0', " ")).unwrap_or_default();
        // Not thrown only if an exception is pending after all: that one is.
        let _ = raw::throw_error(env, &msg);
    }
    ptr::null_mut()
}

/// A getter and optional setter defined on a class's prototype.
pub(crate) struct Accessor {
    pub name: &'static CStr,
    pub getter: sys::napi_callback,
    pub setter: sys::napi_callback,
}

/// Defines `accessors` on `exports[class.name].prototype`, enumerable and
/// configurable like napi-rs' own class accessors.
pub(crate) fn define_accessors(
    env: sys::napi_env,
    exports: sys::napi_value,
    class: &Class,
    accessors: &[Accessor],
) -> napi::Result<()> {
    let fail = |what: &str| {
        napi::Error::from_reason(format!(
            "mcp-ordered-dispatch: defining the {} accessors: {what} failed",
            class.name
        ))
    };
    let name = CString::new(class.name).map_err(|_| fail("the class name"))?;
    let proto = raw::get_named_property(env, exports, &name)
        .and_then(|ctor| raw::get_named_property(env, ctor, c"prototype"))
        .map_err(|_| fail("reading the prototype"))?;
    let descriptors: Vec<sys::napi_property_descriptor> = accessors
        .iter()
        .map(|a| sys::napi_property_descriptor {
            utf8name: a.name.as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: a.getter,
            setter: a.setter,
            value: ptr::null_mut(),
            attributes: sys::PropertyAttributes::enumerable | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        })
        .collect();
    raw::define_properties(env, proto, &descriptors).map_err(|_| fail("napi_define_properties"))
}
