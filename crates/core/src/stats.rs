//! Dispatcher counters (interior-mutable, single-threaded).

use std::cell::Cell;

/// A snapshot of the counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Messages delivered to a callback (any kind).
    pub dispatched: u64,
    /// Result and error responses delivered to `onResponse`.
    pub responses: u64,
    pub requests: u64,
    pub notifications: u64,
    pub invalid: u64,
    /// Callbacks that threw, plus returned promises that rejected.
    pub handler_errors: u64,
    /// Times `onError` itself threw (swallowed).
    pub on_error_failures: u64,
    /// Largest number of messages waiting at once (re-entrant delivery).
    pub max_queued: u64,
    /// References created / released to hold re-entrantly delivered messages.
    pub refs_created: u64,
    pub refs_released: u64,
}

/// What a message was delivered as, for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered {
    Response,
    Request,
    Notification,
    Invalid,
}

/// The live counters. `max_queued` lives in the queue itself.
#[derive(Debug, Default)]
pub struct Counters {
    dispatched: Cell<u64>,
    responses: Cell<u64>,
    requests: Cell<u64>,
    notifications: Cell<u64>,
    invalid: Cell<u64>,
    handler_errors: Cell<u64>,
    on_error_failures: Cell<u64>,
    refs_created: Cell<u64>,
    refs_released: Cell<u64>,
}

fn bump(c: &Cell<u64>) {
    c.set(c.get().wrapping_add(1));
}

impl Counters {
    pub fn delivered(&self, kind: Delivered) {
        bump(&self.dispatched);
        bump(match kind {
            Delivered::Response => &self.responses,
            Delivered::Request => &self.requests,
            Delivered::Notification => &self.notifications,
            Delivered::Invalid => &self.invalid,
        });
    }

    pub fn handler_error(&self) {
        bump(&self.handler_errors);
    }

    pub fn on_error_failure(&self) {
        bump(&self.on_error_failures);
    }

    pub fn ref_created(&self) {
        bump(&self.refs_created);
    }

    pub fn ref_released(&self) {
        bump(&self.refs_released);
    }

    pub fn snapshot(&self, max_queued: usize) -> Stats {
        Stats {
            dispatched: self.dispatched.get(),
            responses: self.responses.get(),
            requests: self.requests.get(),
            notifications: self.notifications.get(),
            invalid: self.invalid.get(),
            handler_errors: self.handler_errors.get(),
            on_error_failures: self.on_error_failures.get(),
            max_queued: max_queued as u64,
            refs_created: self.refs_created.get(),
            refs_released: self.refs_released.get(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let c = Counters::default();
        c.delivered(Delivered::Response);
        c.delivered(Delivered::Response);
        c.delivered(Delivered::Request);
        c.delivered(Delivered::Notification);
        c.delivered(Delivered::Invalid);
        c.handler_error();
        c.on_error_failure();
        c.ref_created();
        c.ref_created();
        c.ref_released();
        assert_eq!(
            c.snapshot(7),
            Stats {
                dispatched: 5,
                responses: 2,
                requests: 1,
                notifications: 1,
                invalid: 1,
                handler_errors: 1,
                on_error_failures: 1,
                max_queued: 7,
                refs_created: 2,
                refs_released: 1,
            }
        );
    }
}
