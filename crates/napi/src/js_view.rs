//! [`JsonView`]s over JavaScript values: [`NapiView`] reads a live value
//! through N-API (the reference path), [`GatheredView`] serves the values
//! `lib/classify/dispatch.cjs` gathered in JavaScript and passed to `_dispatchGathered`
//! (laid out by `mcp_ordered_dispatch_core::boundary::slot`), falling back to N-API for the rest.

use napi::sys;

use crate::napi_support::{read_long_string, read_number, take_exception, type_of, with_c_key};
use crate::raw;
use mcp_ordered_dispatch_core::boundary::{slot, PROGRESS_KEYS, TOP_KEYS};
use mcp_ordered_dispatch_core::{JsonView, Kind, ViewError};

// ---------------------------------------------------------------------------
// JsonView over a live JavaScript value

/// A JavaScript value seen through N-API. Valid for the current handle scope.
#[derive(Clone, Copy)]
pub(crate) struct NapiView {
    pub(crate) env: sys::napi_env,
    pub(crate) value: sys::napi_value,
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
                Kind::Number(raw::get_value_double(self.env, self.value).unwrap_or(f64::NAN))
            }
            sys::ValueType::napi_string => Kind::String,
            sys::ValueType::napi_object => {
                if raw::is_array(self.env, self.value) == Ok(true) {
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
        read_number(self.env, self.value)
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
        let len = raw::get_value_string_utf8(self.env, self.value, buf).ok()?;
        Some(&buf[..len] == expected.as_bytes())
    }

    fn get(&self, key: &str) -> std::result::Result<Self, ViewError> {
        match with_c_key(key, |k| raw::get_named_property(self.env, self.value, k)) {
            Ok(value) => Ok(NapiView {
                env: self.env,
                value,
            }),
            Err(_) => Err(self.read_error(&format!("reading {key:?}"))),
        }
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
        let listed = raw::get_property_names(env, self.value)
            .and_then(|names| Ok((names, raw::get_array_length(env, names)?)));
        let Ok((names, count)) = listed else {
            return Err(self.read_error("listing the keys"));
        };
        let mut buf = [0u8; 64];
        for i in 0..count {
            let Ok(key) = raw::get_element(env, names, i) else {
                return Err(self.read_error("listing the keys"));
            };
            let copied = raw::get_value_string_utf8(env, key, &mut buf);
            let len = copied.unwrap_or(0);
            let owned;
            let name: &str = if copied.is_err() {
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
            let value = || match raw::get_property(env, self.value, key) {
                Ok(value) => Ok(NapiView { env, value }),
                Err(_) => Err(self.read_error(&format!("reading {name:?}"))),
            };
            if !f(name, &value)? {
                break;
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// JsonView over fields gathered by JavaScript

// Every `napi_get_property`-like call costs ~150 ns (V8 API lookup without
// inline caches, plus the N-API exception preamble), while a JIT-compiled
// property read in JavaScript costs ~1 ns. So `lib/classify/dispatch.cjs` reads, in
// JavaScript, exactly the fields the classifier looks at (`for...in` for the
// key set, then the known properties, nested ones only under objects) and
// passes them as arguments. Rust still makes every decision; it only
// inspects the gathered values with cheap calls (`napi_typeof`,
// `napi_get_value_*`). Anything not gathered falls back to a real lookup.

/// Where a gathered value is: an argument slot of `_dispatchGathered`
/// (`mcp_ordered_dispatch_core::boundary::slot`), or not gathered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slot {
    Gathered(usize),
    /// Not gathered: a plain N-API view.
    Free,
}

pub(crate) struct Gathered {
    pub(crate) env: sys::napi_env,
    /// `_dispatchGathered`'s arguments, by `mcp_ordered_dispatch_core::boundary::slot`.
    pub(crate) args: [sys::napi_value; slot::COUNT],
    /// Bit i set: `TOP_KEYS[i]` is a `for...in` key.
    pub(crate) keys: u8,
    /// Bit i set: `PROGRESS_KEYS[i]` is a `for...in` key of `params`; -1:
    /// the params of this message were not gathered.
    pub(crate) progress_keys: i32,
}

#[derive(Clone, Copy)]
pub(crate) struct GatheredView<'g> {
    g: &'g Gathered,
    slot: Slot,
    raw: NapiView,
}

impl<'g> GatheredView<'g> {
    /// `for_each_key` over gathered keys: `names[i]` (at slot `first + i`)
    /// where bit i of `keys` is set, then the first unknown key (at slot
    /// `unknown`, a string or undefined): all the classifier needs, as it
    /// stops caring after the first unexpected key.
    fn each_gathered<F>(
        &self,
        keys: u8,
        names: &[&str],
        first: usize,
        unknown: usize,
        mut f: F,
    ) -> std::result::Result<(), ViewError>
    where
        F: FnMut(
            &str,
            &dyn Fn() -> std::result::Result<Self, ViewError>,
        ) -> std::result::Result<bool, ViewError>,
    {
        for (i, name) in names.iter().enumerate() {
            if keys & (1 << i) != 0 {
                let value = || Ok(self.at(Slot::Gathered(first + i)));
                if !f(name, &value)? {
                    return Ok(());
                }
            }
        }
        let unknown = self.g.args[unknown];
        if type_of(self.g.env, unknown) == sys::ValueType::napi_string {
            let name = read_long_string(self.g.env, unknown);
            let value = || self.get(&name);
            f(&name, &value)?;
        }
        Ok(())
    }

    pub(crate) fn root(g: &'g Gathered) -> Self {
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
        use mcp_ordered_dispatch_core::classify::RELATED_TASK_META_KEY as RT;
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
            let keys = self.g.progress_keys as u8;
            return self.each_gathered(keys, &PROGRESS_KEYS, slot::PR_TOKEN, slot::PR_UNKNOWN, f);
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
        self.each_gathered(self.g.keys, &TOP_KEYS, slot::TOP, slot::UNKNOWN, f)
    }
}
