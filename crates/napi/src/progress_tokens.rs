//! `ProgressTokens`: the napi face of [`mcp_ordered_dispatch_core::tokens::TokenTable`],
//! one per protocol instance. No JavaScript runs inside these methods (their
//! arguments are numbers read with `napi_get_value_*`, which never call
//! `valueOf`), so a `RefCell` borrow can never be re-entered.
//!
//! The accessors (`maxTombstones`, `expectsLateResponses`) check their
//! receiver (see `crate::receiver`).

use std::cell::RefCell;

use napi::bindgen_prelude::{Env, JsValue, This};
use napi::sys;
use napi_derive::napi;

use crate::napi_support::{guarded, undefined};
use crate::receiver::{self, instance, run_accessor, Accessor, PROGRESS_TOKENS};
use mcp_ordered_dispatch_core::tokens::{TokenState, TokenTable, DEFAULT_TOMBSTONES};

use crate::raw::{self, OrFail};

#[napi]
pub struct ProgressTokens {
    table: RefCell<TokenTable>,
}

/// `tokens.stats()`.
#[napi(object)]
pub struct ProgressTokenStats {
    pub issued: f64,
    pub retired: f64,
    pub late: f64,
    pub unknown: f64,
    pub evicted: f64,
    pub late_responses: f64,
    pub active: f64,
    pub tombstones: f64,
}

/// `tokens._readStats()`: the report's counts (see `TokenTable::count_same_read`).
#[napi(object)]
pub struct ProgressReadStats {
    pub reads: f64,
    pub progress: f64,
    pub same_read: f64,
}

#[napi]
impl ProgressTokens {
    /// `new ProgressTokens(maxTombstones = 1024)`
    #[napi(constructor)]
    pub fn new(env: Env, this: This, max_tombstones: Option<u32>) -> napi::Result<Self> {
        guarded("new ProgressTokens()", || {
            receiver::tag_instance(env.raw(), this.object.raw(), &PROGRESS_TOKENS)?;
            let limit = max_tombstones.map_or(DEFAULT_TOMBSTONES, |n| n as usize);
            Ok(Self {
                table: RefCell::new(TokenTable::new(limit)),
            })
        })
    }

    #[napi]
    pub fn issue(&self, token: f64) -> napi::Result<()> {
        guarded("ProgressTokens.issue()", || {
            self.table.borrow_mut().issue(token);
            Ok(())
        })
    }

    #[napi]
    pub fn retire(&self, token: f64) -> napi::Result<bool> {
        guarded("ProgressTokens.retire()", || {
            Ok(self.table.borrow_mut().retire(token))
        })
    }

    /// `"active" | "late" | "unknown"` for a progress notification's
    /// `Number(progressToken)`; counts late and unknown ones.
    #[napi]
    pub fn on_progress(&self, token: f64) -> napi::Result<&'static str> {
        guarded("ProgressTokens.onProgress()", || {
            Ok(match self.table.borrow_mut().on_progress(token) {
                TokenState::Active => "active",
                TokenState::Late => "late",
                TokenState::Unknown => "unknown",
            })
        })
    }

    /// `retire`, by the response to the token's request (the report counts it).
    /// The report's methods are internal (`_`): lib/progress/ alone calls them.
    #[napi(js_name = "_retireAnswered")]
    pub fn retire_answered(&self, token: f64) -> napi::Result<bool> {
        guarded("ProgressTokens.retireAnswered()", || {
            Ok(self.table.borrow_mut().retire_answered(token))
        })
    }

    /// Switches the report's counting on, for good.
    #[napi(js_name = "_countSameRead")]
    pub fn count_same_read(&self) -> napi::Result<()> {
        guarded("ProgressTokens.countSameRead()", || {
            self.table.borrow_mut().count_same_read();
            Ok(())
        })
    }

    #[napi(js_name = "_beginRead")]
    pub fn begin_read(&self) -> napi::Result<()> {
        guarded("ProgressTokens.beginRead()", || {
            self.table.borrow_mut().begin_read();
            Ok(())
        })
    }

    #[napi(js_name = "_progressDelivered")]
    pub fn progress_delivered(&self, token: f64) -> napi::Result<()> {
        guarded("ProgressTokens.progressDelivered()", || {
            self.table.borrow_mut().progress_delivered(token);
            Ok(())
        })
    }

    /// The report's counts, or undefined when counting is off.
    #[napi(js_name = "_readStats")]
    pub fn read_stats(&self) -> napi::Result<Option<ProgressReadStats>> {
        guarded("ProgressTokens.readStats()", || {
            Ok(self.table.borrow().read_stats().map(|s| ProgressReadStats {
                reads: s.reads as f64,
                progress: s.progress as f64,
                same_read: s.same_read as f64,
            }))
        })
    }

    #[napi]
    pub fn expect_late_response(&self, id: f64) -> napi::Result<()> {
        guarded("ProgressTokens.expectLateResponse()", || {
            self.table.borrow_mut().expect_late_response(id);
            Ok(())
        })
    }

    #[napi]
    pub fn take_late_response(&self, id: f64) -> napi::Result<bool> {
        guarded("ProgressTokens.takeLateResponse()", || {
            Ok(self.table.borrow_mut().take_late_response(id))
        })
    }

    #[napi]
    pub fn clear(&self) -> napi::Result<()> {
        guarded("ProgressTokens.clear()", || {
            self.table.borrow_mut().clear();
            Ok(())
        })
    }

    #[napi]
    pub fn stats(&self) -> napi::Result<ProgressTokenStats> {
        guarded("ProgressTokens.stats()", || Ok(self.stats_now()))
    }
}

impl ProgressTokens {
    fn stats_now(&self) -> ProgressTokenStats {
        let s = self.table.borrow().stats();
        ProgressTokenStats {
            issued: s.issued as f64,
            retired: s.retired as f64,
            late: s.late as f64,
            unknown: s.unknown as f64,
            evicted: s.evicted as f64,
            late_responses: s.late_responses as f64,
            active: s.active as f64,
            tombstones: s.tombstones as f64,
        }
    }
}

/// The accessors, defined by module init (`crate::init`).
pub(crate) const ACCESSORS: [Accessor; 2] = [
    Accessor {
        name: c"maxTombstones",
        getter: Some(get_max_tombstones),
        setter: Some(set_max_tombstones),
    },
    Accessor {
        name: c"expectsLateResponses",
        getter: Some(get_expects_late_responses),
        setter: None,
    },
];

unsafe extern "C" fn get_max_tombstones(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    const WHAT: &str = "ProgressTokens.maxTombstones";
    run_accessor(env, info, WHAT, |env, this, _| {
        // SAFETY: `ProgressTokens` is what napi-rs wraps into this class.
        let tokens = unsafe { instance::<ProgressTokens>(env, this, &PROGRESS_TOKENS, WHAT)? };
        let limit = tokens.table.borrow().limit() as u32;
        raw::create_uint32(env, limit).or_fail("creating a number")
    })
}

unsafe extern "C" fn set_max_tombstones(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    const WHAT: &str = "ProgressTokens.maxTombstones";
    run_accessor(env, info, WHAT, |env, this, value| {
        // SAFETY: `ProgressTokens` is what napi-rs wraps into this class.
        let tokens = unsafe { instance::<ProgressTokens>(env, this, &PROGRESS_TOKENS, WHAT)? };
        // ToUint32 of a number, as napi-rs' u32 conversion; no valueOf().
        let Ok(limit) = raw::get_value_uint32(env, value) else {
            return Err(receiver::type_error(
                env,
                "ProgressTokens.maxTombstones must be a number",
            ));
        };
        tokens.table.borrow_mut().set_limit(limit as usize);
        Ok(undefined(env))
    })
}

unsafe extern "C" fn get_expects_late_responses(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    const WHAT: &str = "ProgressTokens.expectsLateResponses";
    run_accessor(env, info, WHAT, |env, this, _| {
        // SAFETY: `ProgressTokens` is what napi-rs wraps into this class.
        let tokens = unsafe { instance::<ProgressTokens>(env, this, &PROGRESS_TOKENS, WHAT)? };
        let expects = tokens.table.borrow().expects_late_responses();
        raw::get_boolean(env, expects).or_fail("creating a boolean")
    })
}
