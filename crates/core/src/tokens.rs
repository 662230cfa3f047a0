//! The progress-token lifecycle of one protocol instance.
//!
//! A token is *issued* when a request is sent with a progress callback and
//! *retired* when that request is finished (response, cancellation, timeout,
//! failed send, terminal task cleanup). Retired tokens are kept as tombstones
//! in a bounded FIFO, so that progress arriving after its request finished is
//! recognised as *late* (legitimate, and dropped quietly) rather than
//! *unknown* (a token never issued: a real peer bug, reported). When the
//! bound is reached the oldest tombstone is evicted, and progress for it is
//! unknown again. Closing the connection clears everything.
//!
//! Tokens are keyed the way the SDK keys its progress handlers:
//! `Number(progressToken)`, which is an integer for every token the SDK
//! issues. Anything else (NaN, fractions, out of the safe range) is never
//! issued, so it is always unknown.
//!
//! Switched on for a host run's report ([`TokenTable::count_same_read`]),
//! the table also counts the progress the stock SDK drops: a notification
//! delivered to its handler whose request's response came after it in the
//! same read. Stock runs notification handlers a microtask late and the
//! response at once, so that response retires the token first and the
//! notification meets "unknown token". Off, none of it runs.

use std::collections::{HashMap, HashSet, VecDeque};

use super::view::is_safe_integer;

/// The default number of tombstones kept per connection.
pub const DEFAULT_TOMBSTONES: usize = 1024;

/// What a progress notification's token is, right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenState {
    /// Issued and not retired: deliver.
    Active,
    /// Retired, tombstone still kept: drop quietly.
    Late,
    /// Never issued, or its tombstone was evicted: report.
    Unknown,
}

/// Counters for one token table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenStats {
    pub issued: u64,
    pub retired: u64,
    pub late: u64,
    pub unknown: u64,
    pub evicted: u64,
    pub late_responses: u64,
    /// Tokens issued and not yet retired.
    pub active: u64,
    /// Tombstones kept now.
    pub tombstones: u64,
}

/// What a table switched on for the report counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Reads begun ([`TokenTable::begin_read`]).
    pub reads: u64,
    /// Progress notifications delivered to their handler (token active).
    pub progress: u64,
    /// Of those, the ones whose request's response retired the token later
    /// in the same read: what stock drops.
    pub same_read: u64,
}

/// The report's counting: this read's delivered progress, by token.
#[derive(Debug, Default)]
struct SameRead {
    stats: ReadStats,
    delivered: HashMap<i64, u64>,
}

#[derive(Debug)]
pub struct TokenTable {
    active: HashSet<i64>,
    tombstones: VecDeque<i64>,
    tombstoned: HashSet<i64>,
    /// Requests that were rejected while their response may still be on the
    /// wire (maxTotalTimeout crossed while handling a progress notification):
    /// that response is dropped quietly. Bounded like the tombstones.
    late_responses: VecDeque<i64>,
    limit: usize,
    stats: TokenStats,
    /// Only when the report is on.
    same_read: Option<Box<SameRead>>,
}

fn key(token: f64) -> Option<i64> {
    if is_safe_integer(token) {
        Some(token as i64)
    } else {
        None
    }
}

impl Default for TokenTable {
    fn default() -> Self {
        Self::new(DEFAULT_TOMBSTONES)
    }
}

impl TokenTable {
    /// A table keeping at most `limit` tombstones (0 keeps none: every late
    /// progress is then unknown, as in the stock SDK).
    pub fn new(limit: usize) -> Self {
        Self {
            active: HashSet::new(),
            tombstones: VecDeque::new(),
            tombstoned: HashSet::new(),
            late_responses: VecDeque::new(),
            limit,
            stats: TokenStats::default(),
            same_read: None,
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Change the bound; excess tombstones are evicted oldest first.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
        self.evict_to(limit);
    }

    /// A request was sent with a progress callback under `token`.
    pub fn issue(&mut self, token: f64) {
        let Some(k) = key(token) else { return };
        if self.tombstoned.remove(&k) {
            self.tombstones.retain(|t| *t != k);
        }
        if self.active.insert(k) {
            self.stats.issued += 1;
        }
    }

    /// The request behind `token` is finished. Returns false if the token was
    /// not active (nothing to retire).
    pub fn retire(&mut self, token: f64) -> bool {
        self.retire_as(token, false)
    }

    /// `retire`, by the response to the token's request: progress delivered
    /// earlier in this read counts as what stock drops (when switched on).
    pub fn retire_answered(&mut self, token: f64) -> bool {
        self.retire_as(token, true)
    }

    fn retire_as(&mut self, token: f64, answered: bool) -> bool {
        let Some(k) = key(token) else { return false };
        if !self.active.remove(&k) {
            return false;
        }
        if let Some(s) = self.same_read.as_deref_mut() {
            let delivered = s.delivered.remove(&k).unwrap_or(0);
            if answered {
                s.stats.same_read += delivered;
            }
        }
        self.stats.retired += 1;
        if self.limit == 0 {
            return true;
        }
        self.evict_to(self.limit - 1);
        self.tombstones.push_back(k);
        self.tombstoned.insert(k);
        true
    }

    fn evict_to(&mut self, len: usize) {
        while self.tombstones.len() > len {
            if let Some(old) = self.tombstones.pop_front() {
                self.tombstoned.remove(&old);
                self.stats.evicted += 1;
            }
        }
        while self.late_responses.len() > self.limit {
            self.late_responses.pop_front();
        }
    }

    /// Where `token` stands, without counting.
    pub fn state(&self, token: f64) -> TokenState {
        match key(token) {
            Some(k) if self.active.contains(&k) => TokenState::Active,
            Some(k) if self.tombstoned.contains(&k) => TokenState::Late,
            _ => TokenState::Unknown,
        }
    }

    /// Where a progress notification for `token` stands; counts late and
    /// unknown ones.
    pub fn on_progress(&mut self, token: f64) -> TokenState {
        let state = self.state(token);
        match state {
            TokenState::Late => self.stats.late += 1,
            TokenState::Unknown => self.stats.unknown += 1,
            TokenState::Active => {}
        }
        state
    }

    /// Switch the report's counting on (it stays on).
    pub fn count_same_read(&mut self) {
        if self.same_read.is_none() {
            self.same_read = Some(Box::default());
        }
    }

    /// A read begins: what the last one delivered can no longer be followed
    /// by its response in the same read.
    pub fn begin_read(&mut self) {
        if let Some(s) = self.same_read.as_deref_mut() {
            s.stats.reads += 1;
            s.delivered.clear();
        }
    }

    /// A progress notification for `token` goes to its handler now (counted
    /// only while the token is active, as the SDK delivers only then).
    pub fn progress_delivered(&mut self, token: f64) {
        let Some(s) = self.same_read.as_deref_mut() else {
            return;
        };
        let Some(k) = key(token).filter(|k| self.active.contains(k)) else {
            return;
        };
        s.stats.progress += 1;
        *s.delivered.entry(k).or_default() += 1;
    }

    /// The report's counts, when switched on.
    pub fn read_stats(&self) -> Option<ReadStats> {
        self.same_read.as_deref().map(|s| s.stats)
    }

    /// The request `id` was rejected although its response may still arrive.
    pub fn expect_late_response(&mut self, id: f64) {
        let Some(k) = key(id) else { return };
        if self.limit == 0 {
            return;
        }
        if self.late_responses.len() >= self.limit {
            self.late_responses.pop_front();
        }
        self.late_responses.push_back(k);
    }

    /// True (once) if a response for `id` is one `expect_late_response` announced.
    pub fn take_late_response(&mut self, id: f64) -> bool {
        let Some(k) = key(id) else { return false };
        match self.late_responses.iter().position(|t| *t == k) {
            Some(i) => {
                self.late_responses.remove(i);
                self.stats.late_responses += 1;
                true
            }
            None => false,
        }
    }

    /// Whether any late response is expected (a cheap check for the hot path).
    pub fn expects_late_responses(&self) -> bool {
        !self.late_responses.is_empty()
    }

    /// The connection closed: forget every token and tombstone. Counters stay.
    pub fn clear(&mut self) {
        self.active.clear();
        self.tombstones.clear();
        self.tombstoned.clear();
        self.late_responses.clear();
        if let Some(s) = self.same_read.as_deref_mut() {
            s.delivered.clear();
        }
    }

    pub fn stats(&self) -> TokenStats {
        TokenStats {
            active: self.active.len() as u64,
            tombstones: self.tombstones.len() as u64,
            ..self.stats
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_tokens_are_active_until_retired_then_late() {
        let mut t = TokenTable::new(4);
        t.issue(0.0);
        assert_eq!(t.on_progress(0.0), TokenState::Active);
        assert!(t.retire(0.0));
        assert_eq!(t.on_progress(0.0), TokenState::Late);
        assert_eq!(t.stats().late, 1);
        assert!(!t.retire(0.0), "retiring twice does nothing");
    }

    #[test]
    fn never_issued_tokens_are_unknown() {
        let mut t = TokenTable::new(4);
        t.issue(1.0);
        assert_eq!(t.on_progress(2.0), TokenState::Unknown);
        assert_eq!(t.on_progress(f64::NAN), TokenState::Unknown);
        assert_eq!(t.on_progress(1.5), TokenState::Unknown);
        assert_eq!(t.on_progress(9_007_199_254_740_992.0), TokenState::Unknown);
        assert_eq!(t.stats().unknown, 4);
    }

    #[test]
    fn the_oldest_tombstone_is_evicted_at_the_bound() {
        let mut t = TokenTable::new(2);
        for id in 0..3 {
            t.issue(id as f64);
        }
        for id in 0..3 {
            t.retire(id as f64);
        }
        assert_eq!(t.state(0.0), TokenState::Unknown, "evicted");
        assert_eq!(t.state(1.0), TokenState::Late);
        assert_eq!(t.state(2.0), TokenState::Late);
        assert_eq!(t.stats().evicted, 1);
        assert_eq!(t.stats().tombstones, 2);
    }

    #[test]
    fn a_zero_bound_keeps_no_tombstones() {
        let mut t = TokenTable::new(0);
        t.issue(7.0);
        t.retire(7.0);
        assert_eq!(t.state(7.0), TokenState::Unknown);
        t.expect_late_response(7.0);
        assert!(!t.take_late_response(7.0));
    }

    #[test]
    fn lowering_the_bound_evicts_oldest_first() {
        let mut t = TokenTable::new(8);
        for id in 0..5 {
            t.issue(id as f64);
            t.retire(id as f64);
        }
        t.set_limit(2);
        assert_eq!(t.state(2.0), TokenState::Unknown);
        assert_eq!(t.state(3.0), TokenState::Late);
        assert_eq!(t.state(4.0), TokenState::Late);
    }

    #[test]
    fn reissuing_a_tombstoned_token_makes_it_active() {
        let mut t = TokenTable::new(4);
        t.issue(3.0);
        t.retire(3.0);
        t.issue(3.0);
        assert_eq!(t.state(3.0), TokenState::Active);
        assert_eq!(t.stats().tombstones, 0);
    }

    #[test]
    fn clear_forgets_tokens_and_tombstones_but_keeps_counts() {
        let mut t = TokenTable::new(4);
        t.issue(1.0);
        t.issue(2.0);
        t.retire(2.0);
        t.expect_late_response(5.0);
        t.clear();
        assert_eq!(t.state(1.0), TokenState::Unknown);
        assert_eq!(t.state(2.0), TokenState::Unknown);
        assert!(!t.expects_late_responses());
        assert_eq!(t.stats().issued, 2);
    }

    /// The stock SDK's loss, replayed: one read is a run of messages; a
    /// notification's handler runs after the whole read, the response at
    /// once. Returns how many delivered notifications found their token gone.
    fn stock_drops(reads: &[&[(bool, i64)]]) -> u64 {
        let mut active: HashSet<i64> = (0..8).collect();
        let mut dropped = 0;
        for read in reads {
            let mut deferred = Vec::new();
            for &(response, token) in *read {
                if response {
                    active.remove(&token);
                } else if active.contains(&token) {
                    deferred.push(token);
                }
            }
            dropped += deferred.iter().filter(|t| !active.contains(t)).count() as u64;
        }
        dropped
    }

    /// The same reads through the table switched on (issue, deliver, retire
    /// by the response), as the patched SDK drives it.
    fn counted(reads: &[&[(bool, i64)]]) -> ReadStats {
        let mut t = TokenTable::new(4);
        t.count_same_read();
        for token in 0..8 {
            t.issue(token as f64);
        }
        for read in reads {
            t.begin_read();
            for &(response, token) in *read {
                if response {
                    t.retire_answered(token as f64);
                } else {
                    t.progress_delivered(token as f64);
                }
            }
        }
        t.read_stats().unwrap()
    }

    #[test]
    fn progress_before_its_response_in_one_read_is_what_stock_drops() {
        const P: bool = false;
        const R: bool = true;
        let cases: [&[&[(bool, i64)]]; 6] = [
            // all-in-one: three notifications and the response in one read
            &[&[(P, 0), (P, 0), (P, 0), (R, 0)]],
            // last-with-response
            &[&[(P, 1)], &[(P, 1)], &[(P, 1), (R, 1)]],
            // separate: every message its own read
            &[&[(P, 2)], &[(P, 2)], &[(R, 2)]],
            // the response before the progress (late: never delivered)
            &[&[(R, 3), (P, 3)]],
            // two requests interleaved in one read, one answered
            &[&[(P, 4), (P, 5), (R, 4), (P, 5)], &[(R, 5)]],
            // a response for another request does not count this one
            &[&[(P, 6), (R, 7)], &[(R, 6)]],
        ];
        let expected = [3, 1, 0, 0, 1, 0];
        for (reads, want) in cases.iter().zip(expected) {
            let stats = counted(reads);
            assert_eq!(stats.same_read, want, "{reads:?}");
            assert_eq!(stock_drops(reads), want, "the stock model: {reads:?}");
            assert_eq!(stats.reads, reads.len() as u64);
        }
    }

    #[test]
    fn same_read_counting_is_off_by_default_and_ignores_other_retires() {
        let mut t = TokenTable::new(4);
        t.issue(1.0);
        t.begin_read();
        t.progress_delivered(1.0);
        t.retire_answered(1.0);
        assert_eq!(t.read_stats(), None);

        let mut t = TokenTable::new(4);
        t.count_same_read();
        t.issue(1.0);
        t.issue(2.0);
        t.begin_read();
        t.progress_delivered(1.0);
        // cancelled, not answered: stock would have delivered it
        assert!(t.retire(1.0));
        t.progress_delivered(9.0); // never issued: not delivered
        t.progress_delivered(2.0);
        t.clear(); // closed: nothing carries over
        t.issue(2.0);
        t.retire_answered(2.0);
        assert_eq!(
            t.read_stats(),
            Some(ReadStats {
                reads: 1,
                progress: 2,
                same_read: 0
            })
        );
    }

    #[test]
    fn a_late_response_is_taken_once() {
        let mut t = TokenTable::new(4);
        t.expect_late_response(9.0);
        assert!(t.expects_late_responses());
        assert!(t.take_late_response(9.0));
        assert!(!t.take_late_response(9.0));
        assert_eq!(t.stats().late_responses, 1);
    }
}
