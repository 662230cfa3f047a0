//! `ProgressTokens`: the napi face of [`crate::core::tokens::TokenTable`],
//! one per protocol instance. No callbacks run inside these methods, so a
//! `RefCell` borrow can never be re-entered.

use std::cell::RefCell;

use napi_derive::napi;

use crate::core::tokens::{TokenState, TokenTable, DEFAULT_TOMBSTONES};

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

#[napi]
impl ProgressTokens {
    /// `new ProgressTokens(maxTombstones = 1024)`
    #[napi(constructor, catch_unwind)]
    pub fn new(max_tombstones: Option<u32>) -> Self {
        let limit = max_tombstones.map_or(DEFAULT_TOMBSTONES, |n| n as usize);
        Self {
            table: RefCell::new(TokenTable::new(limit)),
        }
    }

    #[napi(getter, catch_unwind)]
    pub fn max_tombstones(&self) -> u32 {
        self.table.borrow().limit() as u32
    }

    #[napi(setter, catch_unwind)]
    pub fn set_max_tombstones(&self, limit: u32) {
        self.table.borrow_mut().set_limit(limit as usize);
    }

    #[napi(catch_unwind)]
    pub fn issue(&self, token: f64) {
        self.table.borrow_mut().issue(token);
    }

    #[napi(catch_unwind)]
    pub fn retire(&self, token: f64) -> bool {
        self.table.borrow_mut().retire(token)
    }

    /// `"active" | "late" | "unknown"` for a progress notification's
    /// `Number(progressToken)`; counts late and unknown ones.
    #[napi(catch_unwind)]
    pub fn on_progress(&self, token: f64) -> &'static str {
        match self.table.borrow_mut().on_progress(token) {
            TokenState::Active => "active",
            TokenState::Late => "late",
            TokenState::Unknown => "unknown",
        }
    }

    #[napi(catch_unwind)]
    pub fn expect_late_response(&self, id: f64) {
        self.table.borrow_mut().expect_late_response(id);
    }

    #[napi(catch_unwind)]
    pub fn take_late_response(&self, id: f64) -> bool {
        self.table.borrow_mut().take_late_response(id)
    }

    #[napi(getter, catch_unwind)]
    pub fn expects_late_responses(&self) -> bool {
        self.table.borrow().expects_late_responses()
    }

    #[napi(catch_unwind)]
    pub fn clear(&self) {
        self.table.borrow_mut().clear();
    }

    #[napi(catch_unwind)]
    pub fn stats(&self) -> ProgressTokenStats {
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
