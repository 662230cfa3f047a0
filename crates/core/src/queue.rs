//! Run-to-completion, wire-order delivery.
//!
//! `run_ordered` is the whole re-entrancy discipline of the dispatcher, kept
//! free of N-API so it can be unit-tested: the first (outermost) caller
//! delivers its item synchronously and then drains, FIFO, everything that was
//! queued while it was delivering. A caller that arrives while a delivery is in
//! progress (a re-entrant call from inside a callback) only enqueues; its item
//! is delivered right after the current callback returns, never before and
//! never lost.
//!
//! No `RefCell` borrow is held while `now`, `enqueue` or `deliver` run, so
//! they may re-enter freely. The "active" flag is reset by a drop guard, so a
//! panic unwinding out of a callback cannot wedge the queue; items that were
//! still queued at that point are delivered (before the new item) by the next
//! outermost call.

use std::cell::RefCell;
use std::collections::VecDeque;

/// The queue state: whether a delivery is in progress, and what is waiting.
#[derive(Debug)]
pub struct OrderedQueue<T> {
    active: bool,
    items: VecDeque<T>,
    max_queued: usize,
}

impl<T> Default for OrderedQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> OrderedQueue<T> {
    pub fn new() -> Self {
        OrderedQueue {
            active: false,
            items: VecDeque::new(),
            max_queued: 0,
        }
    }

    /// Whether a delivery is in progress.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Items queued and not yet delivered.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The largest number of items that were ever waiting at once.
    pub fn max_queued(&self) -> usize {
        self.max_queued
    }

    fn push(&mut self, item: T) {
        self.items.push_back(item);
        self.max_queued = self.max_queued.max(self.items.len());
    }

    /// Removes and returns everything still queued (used on teardown).
    pub fn take_all(&mut self) -> VecDeque<T> {
        std::mem::take(&mut self.items)
    }
}

/// How [`run_ordered`] handled an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// This call was the outermost one: the item and everything queued behind
    /// it have been delivered.
    Delivered,
    /// A delivery was in progress: the item was queued for the outermost call.
    Queued,
}

struct ActiveGuard<'a, T>(&'a RefCell<OrderedQueue<T>>);

impl<T> Drop for ActiveGuard<'_, T> {
    fn drop(&mut self) {
        // try_borrow_mut: never double-panic while unwinding.
        if let Ok(mut q) = self.0.try_borrow_mut() {
            q.active = false;
        }
    }
}

/// Delivers one item in order.
///
/// * `now` delivers the new item directly (fast path: nothing is queued and
///   nothing needs to be retained);
/// * `enqueue` turns the new item into something that can wait in the queue
///   (called only when the item cannot be delivered immediately);
/// * `deliver` delivers a queued item.
pub fn run_ordered<T, N, E, D>(
    cell: &RefCell<OrderedQueue<T>>,
    now: N,
    enqueue: E,
    mut deliver: D,
) -> Outcome
where
    N: FnOnce(),
    E: FnOnce() -> T,
    D: FnMut(T),
{
    let (active, backlog) = {
        let q = cell.borrow();
        (q.active, !q.items.is_empty())
    };
    if active {
        let item = enqueue();
        cell.borrow_mut().push(item);
        return Outcome::Queued;
    }
    cell.borrow_mut().active = true;
    let _guard = ActiveGuard(cell);
    if backlog {
        // Left over from a drain interrupted by a panic: they came first.
        let item = enqueue();
        cell.borrow_mut().push(item);
    } else {
        now();
    }
    loop {
        let next = cell.borrow_mut().items.pop_front();
        match next {
            Some(item) => deliver(item),
            None => break,
        }
    }
    Outcome::Delivered
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::HashMap;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// Messages are numbers; `script[m]` lists the messages that the callback
    /// for `m` dispatches re-entrantly (before returning).
    #[derive(Default)]
    struct Harness {
        queue: RefCell<OrderedQueue<u32>>,
        log: RefCell<Vec<String>>,
        script: HashMap<u32, Vec<u32>>,
        panic_on: Cell<Option<u32>>,
        enqueued: Cell<usize>,
    }

    impl Harness {
        fn with_script(script: &[(u32, &[u32])]) -> Self {
            Harness {
                script: script.iter().map(|(k, v)| (*k, v.to_vec())).collect(),
                ..Default::default()
            }
        }

        fn dispatch(&self, m: u32) -> Outcome {
            run_ordered(
                &self.queue,
                || self.deliver(m),
                || {
                    self.enqueued.set(self.enqueued.get() + 1);
                    m
                },
                |m| self.deliver(m),
            )
        }

        fn deliver(&self, m: u32) {
            assert!(self.queue.borrow().is_active(), "delivered while inactive");
            self.log.borrow_mut().push(format!("begin {m}"));
            if self.panic_on.get() == Some(m) {
                self.panic_on.set(None);
                panic!("callback {m} panicked");
            }
            if let Some(next) = self.script.get(&m) {
                for &n in next {
                    assert_eq!(self.dispatch(n), Outcome::Queued);
                }
            }
            self.log.borrow_mut().push(format!("end {m}"));
        }

        fn log(&self) -> Vec<String> {
            self.log.borrow().clone()
        }
    }

    fn seq(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fast_path_enqueues_nothing() {
        let h = Harness::default();
        assert_eq!(h.dispatch(1), Outcome::Delivered);
        assert_eq!(h.dispatch(2), Outcome::Delivered);
        assert_eq!(h.log(), seq(&["begin 1", "end 1", "begin 2", "end 2"]));
        assert_eq!(h.enqueued.get(), 0);
        assert_eq!(h.queue.borrow().max_queued(), 0);
        assert!(!h.queue.borrow().is_active());
    }

    #[test]
    fn reentrant_messages_wait_for_the_current_callback() {
        let h = Harness::with_script(&[(1, &[2, 3])]);
        assert_eq!(h.dispatch(1), Outcome::Delivered);
        assert_eq!(
            h.log(),
            seq(&["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3"])
        );
        assert_eq!(h.enqueued.get(), 2);
        assert_eq!(h.queue.borrow().max_queued(), 2);
        assert!(h.queue.borrow().is_empty());
        assert!(!h.queue.borrow().is_active());
    }

    #[test]
    fn nested_reentrancy_is_fifo() {
        // 1 -> (2, 3); 2 -> (4); 3 -> (5, 6); 4 -> (7)
        let h = Harness::with_script(&[(1, &[2, 3]), (2, &[4]), (3, &[5, 6]), (4, &[7])]);
        h.dispatch(1);
        let order: Vec<String> = h
            .log()
            .into_iter()
            .filter(|l| l.starts_with("begin"))
            .collect();
        assert_eq!(
            order,
            seq(&["begin 1", "begin 2", "begin 3", "begin 4", "begin 5", "begin 6", "begin 7"])
        );
        // every callback ends before the next begins
        let log = h.log();
        for pair in log.chunks(2) {
            assert_eq!(pair[0].replace("begin", "end"), pair[1]);
        }
        assert_eq!(h.enqueued.get(), 6);
    }

    #[test]
    fn panic_resets_active_and_keeps_queued_items() {
        let h = Harness::with_script(&[(1, &[2, 3])]);
        h.panic_on.set(Some(2));
        let r = catch_unwind(AssertUnwindSafe(|| h.dispatch(1)));
        assert!(r.is_err());
        assert!(!h.queue.borrow().is_active(), "active flag must be reset");
        assert_eq!(h.queue.borrow().len(), 1, "3 is still waiting");
        // The next outermost dispatch delivers the backlog first, then 4.
        assert_eq!(h.dispatch(4), Outcome::Delivered);
        assert_eq!(
            h.log(),
            seq(&["begin 1", "end 1", "begin 2", "begin 3", "end 3", "begin 4", "end 4"])
        );
        assert!(h.queue.borrow().is_empty());
    }

    #[test]
    fn panic_in_first_callback_resets_active() {
        let h = Harness::default();
        h.panic_on.set(Some(1));
        assert!(catch_unwind(AssertUnwindSafe(|| h.dispatch(1))).is_err());
        assert!(!h.queue.borrow().is_active());
        assert_eq!(h.dispatch(2), Outcome::Delivered);
        assert_eq!(h.log(), seq(&["begin 1", "begin 2", "end 2"]));
    }

    #[test]
    fn max_queued_tracks_high_water_mark() {
        let h = Harness::with_script(&[(1, &[2, 3, 4]), (2, &[5])]);
        h.dispatch(1);
        // after 1: [2,3,4] = 3; while 2 runs: [3,4,5] = 3
        assert_eq!(h.queue.borrow().max_queued(), 3);
        let h = Harness::with_script(&[(1, &[2]), (2, &[3, 4, 5, 6])]);
        h.dispatch(1);
        assert_eq!(h.queue.borrow().max_queued(), 4);
    }

    #[test]
    fn many_messages() {
        let script: Vec<(u32, Vec<u32>)> = (0..1000).map(|i| (i, vec![i + 1])).collect();
        let h = Harness {
            script: script.into_iter().collect(),
            ..Default::default()
        };
        h.dispatch(0);
        let begins: Vec<u32> = h
            .log()
            .iter()
            .filter_map(|l| l.strip_prefix("begin ").map(|n| n.parse().unwrap()))
            .collect();
        assert_eq!(begins, (0..=1000).collect::<Vec<u32>>());
        assert_eq!(h.queue.borrow().max_queued(), 1);
    }

    #[test]
    fn take_all_empties() {
        let mut q = OrderedQueue::new();
        q.push(1);
        q.push(2);
        assert_eq!(q.len(), 2);
        assert_eq!(q.take_all().into_iter().collect::<Vec<_>>(), vec![1, 2]);
        assert!(q.is_empty());
        assert_eq!(q.max_queued(), 2);
        let d: OrderedQueue<u8> = OrderedQueue::default();
        assert!(d.is_empty());
    }
}
