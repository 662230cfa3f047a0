//! The off-thread stdio reader (issue 13), without N-API: a worker owns a
//! core [`Framer`]; JavaScript hands it each chunk (copied: no pointer into a
//! JavaScript buffer outlives the call), the worker frames, validates and
//! classifies it, and queues the lines as [`pieces`] for JavaScript to take.
//! The binding's `StdioThreadReader` is the class over it.
//!
//! The hand-over, and why it is bounded: the worker wakes JavaScript (a
//! [`Wake`]: the binding's threadsafe function) only when no wake-up is
//! outstanding ("armed"); the JavaScript it wakes takes ONE piece
//! ([`Reader::take`]), delivers it, and asks for the next one from
//! `setImmediate`, so the event loop gets a turn (timers, I/O) between
//! pieces. `take()` disarms when the queue is empty. (The earlier attempt
//! handed every queued batch over in one call: a 210-370 ms stall.)
//!
//! Wire order: one worker per reader, chunks framed in the order pushed,
//! pieces taken in the order made; [`Reader::push`] frames a chunk on the
//! calling thread itself only when the worker is idle with nothing queued
//! either way (so nothing can overtake it): small chunks, where the hop
//! would cost more latency than the framing (a single request's round
//! trip). [`Reader::drain`] blocks until the worker has framed every chunk
//! pushed (the stream ended, the transport closes, the SDK's size rule
//! throws), so that nothing read is lost or reordered.
//!
//! Lifetime: [`Reader::stop`] (and dropping the reader) stops and joins the
//! worker and drops its [`Wake`]. After `stop()` every chunk is framed on
//! the calling thread.
//!
//! Panics: the worker catches a panic of the framer, stops framing, and the
//! next `push`/`take`/`drain` returns its message.

mod pieces;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

pub use pieces::{Bounds, Piece, PieceSink, Ready};

use crate::panic::panic_message;
use crate::{Framer, FramerOptions};

/// How the worker wakes JavaScript (the binding's threadsafe function);
/// dropped when the reader stops.
pub trait Wake: Send {
    /// Asks JavaScript to take what is ready; whether the wake-up was sent.
    fn wake(&self) -> bool;
}

/// The message of a worker's panic.
pub type Failure = String;

/// Buffers of framed chunks kept for the next pushes to copy into (at most
/// this many, of at most `SPARE_BYTES` each): copying a chunk into memory
/// already in use costs the main thread less than into fresh memory
/// (`bench/thread-framing.mjs`, main-thread time of `append`).
const SPARE_CHUNKS: usize = 2;
const SPARE_BYTES: usize = 128 * 1024;

struct Queues {
    /// Chunks pushed and not yet taken by the worker.
    input: VecDeque<Vec<u8>>,
    /// Buffers of chunks framed, for the next pushes to copy into.
    spare: Vec<Vec<u8>>,
    /// The worker is framing a chunk it took.
    busy: bool,
    /// Bytes pushed and not yet taken by JavaScript: chunks queued or being
    /// framed, and the message text of pieces ready (see `backlog()`).
    backlog: usize,
    /// JavaScript paused its stream on the backlog: wake it (as for a
    /// piece) once the backlog is at most this, even if no line completed.
    wake_below: Option<usize>,
    /// Pieces framed and not yet taken by JavaScript.
    output: VecDeque<Ready>,
    /// A threadsafe-function call (or the `setImmediate` chain it starts) is
    /// outstanding: no new call until `take()` finds the queue empty.
    armed: bool,
    stop: bool,
    /// The worker has stopped.
    finished: bool,
    /// The worker panicked (its message).
    failure: Option<String>,
    /// Wakes JavaScript; dropped (released) when the reader stops.
    waker: Option<Box<dyn Wake>>,
}

struct Work {
    framer: Framer,
    /// The piece the worker is filling (never holds lines while it is idle).
    current: Piece,
}

struct Shared {
    // Lock order: `work` before `queues`.
    work: Mutex<Work>,
    queues: Mutex<Queues>,
    /// Input arrived, or stop.
    wake: Condvar,
    /// The worker finished what it had (or stopped).
    idle: Condvar,
    #[cfg(feature = "task")]
    notify: tokio::sync::Notify,
    bounds: Bounds,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic is caught where it happens (no lock is held across the
    // framer's code but `work`, whose state is then abandoned): poisoning
    // carries no information here.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    fn new(options: FramerOptions, bounds: Bounds, waker: Box<dyn Wake>) -> Arc<Shared> {
        Arc::new(Shared {
            work: Mutex::new(Work {
                framer: Framer::new(options),
                current: Piece::default(),
            }),
            queues: Mutex::new(Queues {
                input: VecDeque::new(),
                spare: Vec::new(),
                busy: false,
                backlog: 0,
                wake_below: None,
                output: VecDeque::new(),
                armed: false,
                stop: false,
                finished: false,
                failure: None,
                waker: Some(waker),
            }),
            wake: Condvar::new(),
            idle: Condvar::new(),
            #[cfg(feature = "task")]
            notify: tokio::sync::Notify::new(),
            bounds,
        })
    }

    /// The next chunk to frame (marking the worker busy), or `None` when
    /// there is none now (idle) or the worker must stop (`finished` set).
    fn next_chunk(&self, q: &mut Queues) -> Option<Vec<u8>> {
        if q.stop {
            q.busy = false;
            q.finished = true;
            self.idle.notify_all();
            return None;
        }
        match q.input.pop_front() {
            Some(chunk) => {
                q.busy = true;
                Some(chunk)
            }
            None => {
                q.busy = false;
                self.idle.notify_all();
                None
            }
        }
    }

    /// The worker on a thread of its own.
    fn worker(self: Arc<Self>) {
        loop {
            let chunk = {
                let mut q = lock(&self.queues);
                loop {
                    if let Some(chunk) = self.next_chunk(&mut q) {
                        break chunk;
                    }
                    if q.finished {
                        return;
                    }
                    q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
                }
            };
            self.frame(chunk);
        }
    }

    /// The worker as a task on a tokio runtime (feature `task`: the addon's
    /// `tokio-reader`, on napi-rs's runtime, for the measurements in README).
    #[cfg(feature = "task")]
    async fn task(self: Arc<Self>) {
        loop {
            let chunk = {
                let mut q = lock(&self.queues);
                let chunk = self.next_chunk(&mut q);
                if chunk.is_none() && q.finished {
                    return;
                }
                chunk
            };
            match chunk {
                Some(chunk) => self.frame(chunk),
                // A notify_one() since the check left a permit: no lost wake-up.
                None => self.notify.notified().await,
            }
        }
    }

    /// Frames one chunk and publishes what is ready.
    fn frame(&self, chunk: Vec<u8>) {
        let mut work = lock(&self.work);
        let current = std::mem::take(&mut work.current);
        let mut sink = PieceSink::new(self.bounds, current);
        let framed = catch_unwind(AssertUnwindSafe(|| work.framer.push(&chunk, &mut sink)));
        let pushed = chunk.len();
        if let Err(payload) = framed {
            let mut q = lock(&self.queues);
            q.failure = Some(panic_message(&*payload));
            q.input.clear();
            q.backlog = q.output.iter().map(|r| r.bytes).sum();
            q.stop = true;
            self.arm(&mut q);
            return;
        }
        // The last piece goes out now only when nothing else is waiting
        // (otherwise the next chunk may fill it further).
        let last = lock(&self.queues).input.is_empty();
        let mut pieces = std::mem::take(&mut sink.done);
        if last {
            if !sink.current.is_empty() {
                pieces.push(std::mem::take(&mut sink.current));
            }
        } else {
            work.current = std::mem::take(&mut sink.current);
        }
        // Transcoding happens here, off the main thread.
        let ready: Vec<Ready> = pieces.into_iter().map(Ready::from).collect();
        let mut q = lock(&self.queues);
        drop(work);
        if q.spare.len() < SPARE_CHUNKS && chunk.capacity() <= SPARE_BYTES {
            q.spare.push(chunk);
        }
        q.backlog = q.backlog.saturating_sub(pushed) + ready.iter().map(|r| r.bytes).sum::<usize>();
        let below = q.wake_below.is_some_and(|w| q.backlog <= w);
        if below {
            q.wake_below = None;
        }
        if !ready.is_empty() || below {
            q.output.extend(ready);
            self.arm(&mut q);
        }
    }

    /// Wakes the worker (input, or stop).
    fn wake_worker(&self) {
        self.wake.notify_all();
        #[cfg(feature = "task")]
        self.notify.notify_one();
    }

    /// Wakes JavaScript unless a wake-up is already outstanding.
    fn arm(&self, q: &mut Queues) {
        if q.armed {
            return;
        }
        if let Some(waker) = &q.waker {
            q.armed = waker.wake();
        }
    }

    /// Blocks until the worker has framed every chunk pushed.
    fn wait_idle(&self) -> MutexGuard<'_, Queues> {
        let mut q = lock(&self.queues);
        while !q.input.is_empty() || q.busy {
            q = self.idle.wait(q).unwrap_or_else(|p| p.into_inner());
        }
        q
    }
}

/// What [`Reader::push`] did with a chunk.
pub enum Pushed {
    /// Handed to the worker: its lines come out of [`Reader::take`].
    Queued,
    /// Framed on the calling thread: its lines, if it completed any.
    Framed(Option<Ready>),
}

/// The worker: a thread, or (feature `task`) a task.
enum Worker {
    Thread(JoinHandle<()>),
    /// A task on the caller's tokio runtime: stopped when `finished` is set.
    #[cfg(feature = "task")]
    Task,
}

/// A reader: the worker, its queues, and the calling thread's side.
pub struct Reader {
    shared: Arc<Shared>,
    /// `None` once stopped.
    worker: Mutex<Option<Worker>>,
    /// Chunks of at most this many bytes are framed on the calling thread
    /// when the worker is idle with nothing queued.
    inline_max: usize,
}

impl Reader {
    /// Starts the worker, on a thread of its own, of a reader that frames
    /// with `options`, hands over pieces of at most `bounds`, and wakes
    /// JavaScript with `waker` (dropped at once if the worker cannot start).
    pub fn start(
        options: FramerOptions,
        bounds: Bounds,
        inline_max: usize,
        waker: Box<dyn Wake>,
    ) -> std::io::Result<Reader> {
        let shared = Shared::new(options, bounds, waker);
        let worker = Arc::clone(&shared);
        let started = std::thread::Builder::new()
            .name("mcp-od-stdio".into())
            .spawn(move || worker.worker())
            .map(Worker::Thread);
        Reader::with_worker(shared, started, inline_max)
    }

    /// As [`Reader::start`], with the worker as a task that `spawn` runs on
    /// a tokio runtime (the binding's: napi-rs's).
    #[cfg(feature = "task")]
    pub fn start_task(
        options: FramerOptions,
        bounds: Bounds,
        inline_max: usize,
        waker: Box<dyn Wake>,
        spawn: impl FnOnce(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>),
    ) -> std::io::Result<Reader> {
        let shared = Shared::new(options, bounds, waker);
        spawn(Box::pin(Arc::clone(&shared).task()));
        Reader::with_worker(shared, Ok(Worker::Task), inline_max)
    }

    fn with_worker(
        shared: Arc<Shared>,
        started: std::io::Result<Worker>,
        inline_max: usize,
    ) -> std::io::Result<Reader> {
        match started {
            Ok(w) => Ok(Reader {
                shared,
                worker: Mutex::new(Some(w)),
                inline_max,
            }),
            Err(e) => {
                drop(lock(&shared.queues).waker.take());
                Err(e)
            }
        }
    }

    /// Hands `chunk` to the worker; or, when the worker is idle with nothing
    /// queued and the chunk is small (or the reader is stopped), frames it
    /// here.
    pub fn push(&self, chunk: Cow<'_, [u8]>) -> Result<Pushed, Failure> {
        {
            let mut q = lock(&self.shared.queues);
            if let Some(message) = &q.failure {
                return Err(message.clone());
            }
            let idle = q.input.is_empty() && !q.busy && q.output.is_empty();
            if !(idle && (q.stop || chunk.len() <= self.inline_max)) {
                q.backlog += chunk.len();
                let owned = match (chunk, q.spare.pop()) {
                    (Cow::Borrowed(bytes), Some(mut buffer)) => {
                        buffer.clear();
                        buffer.extend_from_slice(bytes);
                        buffer
                    }
                    (chunk, _) => chunk.into_owned(),
                };
                q.input.push_back(owned);
                self.shared.wake_worker();
                return Ok(Pushed::Queued);
            }
        }
        // Idle, nothing queued: frame here, in order.
        let mut work = lock(&self.shared.work);
        let current = std::mem::take(&mut work.current);
        let mut sink = PieceSink::new(Bounds::NONE, current);
        work.framer.push(&chunk, &mut sink);
        drop(work);
        let first = sink.into_pieces().into_iter().next();
        Ok(Pushed::Framed(first.map(Ready::from)))
    }

    /// The next piece, or `None` (and the next wake-up re-armed) when none
    /// is ready.
    pub fn take(&self) -> Result<Option<Ready>, Failure> {
        let mut q = lock(&self.shared.queues);
        match q.output.pop_front() {
            Some(r) => {
                q.backlog = q.backlog.saturating_sub(r.bytes);
                Ok(Some(r))
            }
            None => {
                q.armed = false;
                match &q.failure {
                    Some(message) => Err(message.clone()),
                    None => Ok(None),
                }
            }
        }
    }

    /// Blocks until the worker has framed every chunk pushed; their pieces
    /// are then ready for [`Reader::take`].
    pub fn drain(&self) -> Result<(), Failure> {
        let q = self.shared.wait_idle();
        if q.output.is_empty() {
            if let Some(message) = &q.failure {
                return Err(message.clone());
            }
        }
        Ok(())
    }

    /// Drops an incomplete line, after the worker framed what it had.
    pub fn clear(&self) {
        drop(self.shared.wait_idle());
        lock(&self.shared.work).framer.clear();
    }

    /// Bytes of an incomplete line held (after the worker framed what it had).
    pub fn buffered(&self) -> usize {
        drop(self.shared.wait_idle());
        lock(&self.shared.work).framer.buffered()
    }

    /// Bytes pushed and not yet taken (chunks not yet framed, message text
    /// of pieces not yet taken).
    pub fn backlog(&self) -> usize {
        lock(&self.shared.queues).backlog
    }

    /// Asks for a wake-up once the backlog is at most `bytes`, now if it
    /// already is.
    pub fn wake_below(&self, bytes: usize) {
        let mut q = lock(&self.shared.queues);
        if q.backlog <= bytes {
            q.wake_below = None;
            self.shared.arm(&mut q);
        } else {
            q.wake_below = Some(bytes);
        }
    }

    /// Whether the worker still runs.
    pub fn running(&self) -> bool {
        lock(&self.worker).is_some()
    }

    /// Frames what is queued, then stops and joins the worker and drops its
    /// [`Wake`]. Idempotent.
    pub fn stop(&self) {
        self.shutdown(true);
    }

    fn shutdown(&self, wait: bool) {
        let Some(worker) = lock(&self.worker).take() else {
            return;
        };
        let waker = {
            let mut q = if wait {
                self.shared.wait_idle()
            } else {
                lock(&self.shared.queues)
            };
            q.stop = true;
            self.shared.wake_worker();
            q.waker.take()
        };
        match worker {
            Worker::Thread(thread) => {
                let _ = thread.join();
            }
            #[cfg(feature = "task")]
            Worker::Task => {
                let mut q = lock(&self.shared.queues);
                while !q.finished {
                    q = self.shared.idle.wait(q).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
        drop(waker);
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // Dropped: nobody will take what is queued.
        let _ = catch_unwind(AssertUnwindSafe(|| self.shutdown(false)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    struct NoWake;
    impl Wake for NoWake {
        fn wake(&self) -> bool {
            false
        }
    }

    fn note(data: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{data}"}}}}"#
        )
    }

    #[test]
    fn chunks_copied_into_recycled_buffers_frame_as_they_came() {
        let reader = Reader::start(
            FramerOptions::for_profile(Profile::V1),
            Bounds::NONE,
            0,
            Box::new(NoWake),
        )
        .unwrap();
        // A long chunk, then shorter ones copied into its buffer (and a line
        // cut across two of them): nothing of an earlier chunk shows through.
        let long = format!(
            "{}\n{}\n{}\n",
            note("one"),
            note("two"),
            note(&"x".repeat(500))
        );
        let cut = note("four");
        let (head, tail) = cut.split_at(20);
        let chunks = [long, head.to_string(), format!("{tail}\n{}\n", note("5"))];
        let mut seen = Vec::new();
        for (k, chunk) in chunks.iter().enumerate() {
            assert!(matches!(
                reader.push(Cow::Borrowed(chunk.as_bytes())),
                Ok(Pushed::Queued)
            ));
            reader.drain().unwrap();
            // Every chunk framed leaves its buffer for the next push.
            assert_eq!(
                lock(&reader.shared.queues).spare.len(),
                1,
                "after chunk {k}"
            );
            while let Some(ready) = reader.take().unwrap() {
                let all: Vec<serde_json::Value> =
                    serde_json::from_str(&pieces::text_of(&ready)).unwrap();
                seen.extend(
                    all.iter()
                        .map(|m| m["params"]["data"].as_str().unwrap().to_owned()),
                );
            }
        }
        assert_eq!(seen, ["one", "two", &"x".repeat(500), "four", "5"]);
        reader.stop();
    }
}
