//! The off-thread stdio reader, without N-API: each reader owns
//! a core [`Framer`]; JavaScript hands it each chunk (copied: no pointer
//! into a JavaScript buffer outlives the call), a thread of the [`Pool`]
//! frames, validates and classifies it, and queues the lines as [`pieces`]
//! for JavaScript to take. The binding's `StdioThreadReader` is the class
//! over it.
//!
//! One pool for every reader: the threads do not grow with the number of
//! readers ([`POOL_THREADS`] at most, one CPU left to the main thread:
//! [`pool_max`]; started as work first needs them).
//! A reader with chunks to frame is one [`Job`] in the pool's queue (never
//! two: `scheduled`), which frames ONE chunk and goes to the back of the
//! queue, so that a flooding stream cannot hold a thread while another's
//! chunk waits. The addon's `tokio-reader` build runs the same jobs on
//! napi-rs's tokio runtime instead ([`Schedule`]), for the measurements.
//!
//! The hand-over, and why it is bounded: a reader wakes JavaScript (a
//! [`Wake`]: the binding lists it with the one wake-up all readers share)
//! only when no wake-up is outstanding ("armed"); the JavaScript it wakes
//! takes ONE piece at a time ([`Reader::take`]), delivers it, and takes
//! the next in a later turn of its round of ready readers, so the event
//! loop gets turns (timers, I/O) between its budgets. `take()` disarms when
//! the queue is empty.
//!
//! Wire order: a reader's chunks are framed one at a time, under its `work`
//! lock, in the order pushed (whoever frames them: a pool thread, or
//! [`Reader::drain`] on the calling thread), and pieces are taken in the
//! order made; [`Reader::push`] frames a chunk on the calling thread itself
//! only when nothing of the reader is queued either way (so nothing can
//! overtake it): small chunks, where the hop would cost more latency than
//! the framing (a single request's round trip). [`Reader::drain`] frames
//! what is still queued on the calling thread (the stream ended, the
//! transport closes, the SDK's size rule throws), so that nothing read is
//! lost or reordered and the caller never waits for the pool.
//!
//! Lifetime: [`Reader::stop`] (and dropping the reader) drops its [`Wake`];
//! a job still queued then finds it stopped. After `stop()` every chunk is
//! framed on the calling thread.
//!
//! Panics: a panic of the framer is caught where it happens, the reader
//! stops framing, and the next `push`/`take`/`drain` returns its message.

mod pieces;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

pub use pieces::{Bounds, Piece, PieceSink, Ready};

use crate::panic::panic_message;
use crate::{Framer, FramerOptions};

/// How a reader wakes JavaScript (the binding's shared hand-over); dropped
/// when the reader stops.
pub trait Wake: Send {
    /// Asks JavaScript to take what is ready; whether the wake-up was sent.
    fn wake(&self) -> bool;
}

/// The message of a framer's panic.
pub type Failure = String;

/// Buffers of framed chunks kept for the next pushes to copy into, shared
/// by every reader (at most this many, of at most `SPARE_BYTES` each):
/// copying a chunk into memory already in use costs the main thread less
/// than into fresh memory (`bench/thread-framing.mjs`, main-thread time of
/// `append`). Shared, so that a transport that flooded once keeps none of
/// them while idle (`bench/servers.mjs`, RSS of 100 servers).
const SPARE_CHUNKS: usize = 8;
const SPARE_BYTES: usize = 128 * 1024;
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// Threads of the [`Pool`], at most. Framing runs at several hundred MB/s
/// a thread, several times what the main thread can hand to the SDK
/// (`bench/servers.mjs`), so more threads would only add idle stacks; two
/// keep one large message (a 9 MiB result: milliseconds of framing) from
/// holding up every other stream. The pool also leaves one CPU to the main
/// thread ([`pool_max`]).
pub const POOL_THREADS: usize = 2;

/// The most threads the pool starts on a machine with `cpus` CPUs: one CPU
/// is left to the JavaScript thread that takes the pieces. On a small
/// machine, threads as many as its CPUs take turns with the main thread
/// for them, and the main thread's waits for a CPU are event-loop stalls
/// (`bench/servers.mjs` reports that wait beside its worst stall).
pub fn pool_max(cpus: usize) -> usize {
    cpus.saturating_sub(1).clamp(1, POOL_THREADS)
}

/// Readers alive (made and not yet dropped), for the idle-cost figures.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Readers alive in this process.
pub fn live_readers() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The backlogs of every reader, summed ([`Reader::backlog`]).
static BACKLOG: AtomicUsize = AtomicUsize::new(0);

/// Bytes pushed and not yet taken, of every reader in this process: what
/// JavaScript bounds memory by overall (`lib/stdio/hub.cjs`).
pub fn total_backlog() -> usize {
    BACKLOG.load(Ordering::Relaxed)
}

impl Queues {
    /// Sets this reader's backlog, and the total by the difference.
    fn set_backlog(&mut self, backlog: usize) {
        if backlog >= self.backlog {
            BACKLOG.fetch_add(backlog - self.backlog, Ordering::Relaxed);
        } else {
            BACKLOG.fetch_sub(self.backlog - backlog, Ordering::Relaxed);
        }
        self.backlog = backlog;
    }
}

struct Queues {
    /// Chunks pushed and not yet framed.
    input: VecDeque<Vec<u8>>,
    /// A [`Job`] of this reader is queued or running (at most one is).
    scheduled: bool,
    /// Bytes pushed and not yet taken by JavaScript: chunks queued or being
    /// framed, and the message text of pieces ready (see `backlog()`).
    backlog: usize,
    /// JavaScript paused its stream on the backlog: wake it (as for a
    /// piece) once the backlog is at most this, even if no line completed.
    wake_below: Option<usize>,
    /// Pieces framed and not yet taken by JavaScript.
    output: VecDeque<Ready>,
    /// A wake-up is outstanding: no new one until `take()` finds the queue
    /// empty.
    armed: bool,
    /// Stopped ([`Reader::stop`], a drop, or a framer's panic): no job
    /// frames for it any more.
    stop: bool,
    /// [`Reader::stop`] (or a drop) ran.
    stopped: bool,
    /// The framer panicked (its message).
    failure: Option<String>,
    /// Wakes JavaScript; dropped (released) when the reader stops.
    waker: Option<Box<dyn Wake>>,
}

struct Work {
    framer: Framer,
    /// The piece being filled (never holds lines while nothing is queued).
    current: Piece,
}

struct Shared {
    // Lock order: `work` before `queues`. A chunk is taken from `input` only
    // while `work` is held, so chunks are framed in the order pushed
    // whichever thread frames them.
    work: Mutex<Work>,
    queues: Mutex<Queues>,
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
        LIVE.fetch_add(1, Ordering::Relaxed);
        Arc::new(Shared {
            work: Mutex::new(Work {
                framer: Framer::new(options),
                current: Piece::default(),
            }),
            queues: Mutex::new(Queues {
                input: VecDeque::new(),
                scheduled: false,
                backlog: 0,
                wake_below: None,
                output: VecDeque::new(),
                armed: false,
                stop: false,
                stopped: false,
                failure: None,
                waker: Some(waker),
            }),
            bounds,
        })
    }

    /// Frames the next queued chunk, if any; whether it did. The caller
    /// holds `work`. (A stopped reader's input is framed as it is pushed,
    /// or was cleared.)
    fn frame_next(&self, work: &mut Work) -> bool {
        let chunk = lock(&self.queues).input.pop_front();
        match chunk {
            Some(chunk) => {
                self.frame(work, chunk);
                true
            }
            None => false,
        }
    }

    /// Frames every queued chunk (on the calling thread); returns with
    /// `work` held, so that nothing is being framed meanwhile.
    fn frame_all(&self) -> MutexGuard<'_, Work> {
        let mut work = lock(&self.work);
        while self.frame_next(&mut work) {}
        work
    }

    /// Frames one chunk and publishes what is ready.
    fn frame(&self, work: &mut Work, chunk: Vec<u8>) {
        let current = std::mem::take(&mut work.current);
        let mut sink = PieceSink::new(self.bounds, current);
        let framed = catch_unwind(AssertUnwindSafe(|| work.framer.push(&chunk, &mut sink)));
        let pushed = chunk.len();
        if let Err(payload) = framed {
            let mut q = lock(&self.queues);
            q.failure = Some(panic_message(&*payload));
            q.input.clear();
            let left = q.output.iter().map(|r| r.bytes).sum();
            q.set_backlog(left);
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
        // Transcoding happens here, off the main thread (on a pool thread).
        let ready: Vec<Ready> = pieces.into_iter().map(Ready::from).collect();
        let mut q = lock(&self.queues);
        if chunk.capacity() <= SPARE_BYTES {
            let mut spare = lock(&SPARE);
            if spare.len() < SPARE_CHUNKS {
                spare.push(chunk);
            }
        }
        let backlog =
            q.backlog.saturating_sub(pushed) + ready.iter().map(|r| r.bytes).sum::<usize>();
        q.set_backlog(backlog);
        let below = q.wake_below.is_some_and(|w| q.backlog <= w);
        if below {
            q.wake_below = None;
        }
        if !ready.is_empty() || below {
            q.output.extend(ready);
            self.arm(&mut q);
        }
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
}

impl Drop for Shared {
    fn drop(&mut self) {
        lock(&self.queues).set_backlog(0);
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A reader with chunks to frame, as its scheduler holds it.
pub struct Job(Arc<Shared>);

impl Job {
    /// Frames one chunk of the reader; the job again while it has more (to
    /// be scheduled at the back), `None` once it has none (or stopped).
    pub fn run(self) -> Option<Job> {
        let shared = Arc::clone(&self.0);
        let mut work = lock(&shared.work);
        if shared.frame_next(&mut work) {
            return Some(self);
        }
        // Nothing queued, with `work` held: a push that comes now sees
        // `scheduled` cleared (under the same lock `input` was found empty
        // with) and schedules the reader again.
        let mut q = lock(&shared.queues);
        if q.input.is_empty() || q.stop {
            q.scheduled = false;
            None
        } else {
            Some(self)
        }
    }
}

/// Runs [`Job`]s: the [`Pool`], or (the addon's `tokio-reader` build) a
/// tokio runtime.
pub trait Schedule: Sync {
    /// Runs `job` on another thread, and again whatever it returns.
    fn schedule(&self, job: Job);
}

/// The threads every reader's jobs run on (see the module docs).
pub struct Pool {
    state: Mutex<PoolState>,
    work: Condvar,
}

struct PoolState {
    jobs: VecDeque<Job>,
    threads: usize,
    /// Threads waiting for a job.
    waiting: usize,
    /// The most threads: [`pool_max`] of the machine's CPUs.
    max: usize,
}

static POOL: OnceLock<Pool> = OnceLock::new();

impl Pool {
    /// The process's pool (no thread started yet).
    pub fn get() -> &'static Pool {
        POOL.get_or_init(|| Pool {
            state: Mutex::new(PoolState {
                jobs: VecDeque::new(),
                threads: 0,
                waiting: 0,
                max: pool_max(std::thread::available_parallelism().map_or(1, |n| n.get())),
            }),
            work: Condvar::new(),
        })
    }

    /// Threads started so far.
    pub fn threads(&self) -> usize {
        lock(&self.state).threads
    }

    /// The most threads it starts.
    pub fn max(&self) -> usize {
        lock(&self.state).max
    }

    /// Starts the first thread, if none runs yet (its error, if it cannot).
    pub fn start(&'static self) -> std::io::Result<()> {
        let mut state = lock(&self.state);
        if state.threads == 0 {
            self.spawn(&mut state)?;
        }
        Ok(())
    }

    fn spawn(&'static self, state: &mut PoolState) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("mcp-od-stdio".into())
            .spawn(move || self.thread())?;
        state.threads += 1;
        Ok(())
    }

    fn thread(&'static self) {
        loop {
            let job = {
                let mut state = lock(&self.state);
                loop {
                    if let Some(job) = state.jobs.pop_front() {
                        break job;
                    }
                    state.waiting += 1;
                    state = self.work.wait(state).unwrap_or_else(|p| p.into_inner());
                    state.waiting -= 1;
                }
            };
            // A framer's panic is caught in `frame`; anything else is a bug
            // of this module, and the thread must outlive it.
            if let Ok(Some(next)) = catch_unwind(AssertUnwindSafe(|| job.run())) {
                self.schedule(next);
            }
        }
    }
}

impl Schedule for Pool {
    fn schedule(&self, job: Job) {
        let mut state = lock(&self.state);
        state.jobs.push_back(job);
        if state.waiting > 0 {
            self.work.notify_one();
        } else if state.threads < state.max {
            // Another thread only when none waits; with none started, a job
            // waits for the first (`start`) to finish its own.
            let _ = Pool::get().spawn(&mut state);
        }
    }
}

/// What [`Reader::push`] did with a chunk.
pub enum Pushed {
    /// Queued: its lines come out of [`Reader::take`].
    Queued,
    /// Framed on the calling thread: its lines, if it completed any.
    Framed(Option<Ready>),
}

/// A reader: its framer, its queues, and the calling thread's side.
pub struct Reader {
    shared: Arc<Shared>,
    schedule: &'static dyn Schedule,
    /// Chunks of at most this many bytes are framed on the calling thread
    /// when nothing is queued.
    inline_max: usize,
}

impl Reader {
    /// A reader whose chunks the process's [`Pool`] frames with `options`,
    /// handing over pieces of at most `bounds` and waking JavaScript with
    /// `waker` (dropped at once if no pool thread can start).
    pub fn start(
        options: FramerOptions,
        bounds: Bounds,
        inline_max: usize,
        waker: Box<dyn Wake>,
    ) -> std::io::Result<Reader> {
        let pool = Pool::get();
        pool.start()?;
        Ok(Reader::start_on(options, bounds, inline_max, waker, pool))
    }

    /// As [`Reader::start`], with its jobs run by `schedule` (the binding's
    /// tokio runtime).
    pub fn start_on(
        options: FramerOptions,
        bounds: Bounds,
        inline_max: usize,
        waker: Box<dyn Wake>,
        schedule: &'static dyn Schedule,
    ) -> Reader {
        Reader {
            shared: Shared::new(options, bounds, waker),
            schedule,
            inline_max,
        }
    }

    /// Queues `chunk` for the pool; or, when nothing is queued either way
    /// and the chunk is small (or the reader is stopped), frames it here.
    pub fn push(&self, chunk: Cow<'_, [u8]>) -> Result<Pushed, Failure> {
        let mut q = lock(&self.shared.queues);
        if let Some(message) = &q.failure {
            return Err(message.clone());
        }
        let idle = q.input.is_empty() && !q.scheduled && q.output.is_empty();
        if idle && (q.stop || chunk.len() <= self.inline_max) {
            // Nothing queued: frame here, in order (`scheduled` is false, so
            // no job takes the `work` lock meanwhile but a finishing one).
            drop(q);
            let mut work = lock(&self.shared.work);
            let current = std::mem::take(&mut work.current);
            let mut sink = PieceSink::new(Bounds::NONE, current);
            work.framer.push(&chunk, &mut sink);
            drop(work);
            let first = sink.into_pieces().into_iter().next();
            return Ok(Pushed::Framed(first.map(Ready::from)));
        }
        let backlog = q.backlog + chunk.len();
        q.set_backlog(backlog);
        let spare = match chunk {
            Cow::Borrowed(_) => lock(&SPARE).pop(),
            Cow::Owned(_) => None,
        };
        let owned = match (chunk, spare) {
            (Cow::Borrowed(bytes), Some(mut buffer)) => {
                buffer.clear();
                buffer.extend_from_slice(bytes);
                buffer
            }
            (chunk, _) => chunk.into_owned(),
        };
        q.input.push_back(owned);
        if q.stop {
            // Stopped with pieces not yet taken: frame it here, after them.
            drop(q);
            drop(self.shared.frame_all());
        } else if !q.scheduled {
            q.scheduled = true;
            drop(q);
            self.schedule.schedule(Job(Arc::clone(&self.shared)));
        }
        Ok(Pushed::Queued)
    }

    /// The next piece, or `None` (and the next wake-up re-armed) when none
    /// is ready.
    pub fn take(&self) -> Result<Option<Ready>, Failure> {
        let mut q = lock(&self.shared.queues);
        match q.output.pop_front() {
            Some(r) => {
                let backlog = q.backlog.saturating_sub(r.bytes);
                q.set_backlog(backlog);
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

    /// Frames every chunk pushed and not yet framed, here; their pieces are
    /// then ready for [`Reader::take`].
    pub fn drain(&self) -> Result<(), Failure> {
        drop(self.shared.frame_all());
        let q = lock(&self.shared.queues);
        if q.output.is_empty() {
            if let Some(message) = &q.failure {
                return Err(message.clone());
            }
        }
        Ok(())
    }

    /// Drops an incomplete line, after framing what was queued.
    pub fn clear(&self) {
        self.shared.frame_all().framer.clear();
    }

    /// Bytes of an incomplete line held (after framing what was queued).
    pub fn buffered(&self) -> usize {
        self.shared.frame_all().framer.buffered()
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

    /// Whether the reader still frames off the calling thread (not stopped).
    pub fn running(&self) -> bool {
        !lock(&self.shared.queues).stopped
    }

    /// Frames what is queued, then stops: drops its [`Wake`]; later chunks
    /// are framed on the calling thread. Idempotent.
    pub fn stop(&self) {
        self.shutdown(true);
    }

    fn shutdown(&self, frame_queued: bool) {
        let work = frame_queued.then(|| self.shared.frame_all());
        let waker = {
            let mut q = lock(&self.shared.queues);
            q.stop = true;
            q.stopped = true;
            if !frame_queued {
                q.input.clear();
            }
            q.waker.take()
        };
        drop(work);
        // Outside the locks: releasing the binding's wake-up may take its own.
        drop(waker);
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // Dropped: nobody will take what is queued. A job still queued for
        // it holds the shared state until it runs and finds it stopped.
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

    /// Held by the tests that push borrowed chunks: the spare buffers are
    /// shared by every reader in the process, so a test that counts them
    /// must not run while another takes them.
    static SPARE_USERS: Mutex<()> = Mutex::new(());

    fn note(data: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{data}"}}}}"#
        )
    }

    #[test]
    fn chunks_copied_into_recycled_buffers_frame_as_they_came() {
        let _spare = lock(&SPARE_USERS);
        lock(&SPARE).clear();
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
            // Every chunk framed leaves its buffer for the next push, which
            // takes it.
            assert_eq!(lock(&SPARE).len(), 1, "after chunk {k}");
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

    /// Counts wake-ups (as the binding's hub would list the reader).
    struct CountWake(Arc<AtomicUsize>);
    impl Wake for CountWake {
        fn wake(&self) -> bool {
            self.0.fetch_add(1, Ordering::Relaxed);
            true
        }
    }

    fn data_of(ready: &Ready) -> Vec<String> {
        let all: Vec<serde_json::Value> = serde_json::from_str(&pieces::text_of(ready)).unwrap();
        all.iter()
            .map(|m| m["params"]["data"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn the_pool_leaves_one_cpu_to_the_main_thread() {
        assert_eq!(pool_max(0), 1);
        assert_eq!(pool_max(1), 1);
        assert_eq!(pool_max(2), 1);
        assert_eq!(pool_max(3), 2);
        assert_eq!(pool_max(64), POOL_THREADS);
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(Pool::get().max(), pool_max(cpus));
    }

    #[test]
    fn one_pool_frames_many_readers_each_in_order() {
        let _spare = lock(&SPARE_USERS);
        const READERS: usize = 60;
        const CHUNKS: usize = 40;
        let wakes = Arc::new(AtomicUsize::new(0));
        let readers: Vec<Reader> = (0..READERS)
            .map(|_| {
                Reader::start(
                    FramerOptions::for_profile(Profile::V1),
                    Bounds {
                        max_bytes: 600,
                        max_lines: 7,
                    },
                    0,
                    Box::new(CountWake(Arc::clone(&wakes))),
                )
                .unwrap()
            })
            .collect();
        let mut seen = vec![Vec::new(); READERS];
        // Chunks of every reader interleaved, lines cut across chunks; some
        // pieces taken while the pool still frames, the rest after drain().
        for c in 0..CHUNKS {
            for (r, reader) in readers.iter().enumerate() {
                let text: String = (0..5)
                    .map(|k| note(&format!("{r}:{}", c * 5 + k)) + "\n")
                    .collect();
                let (head, tail) = text.split_at(text.len() / 3);
                for part in [head, tail] {
                    assert!(matches!(
                        reader.push(Cow::Borrowed(part.as_bytes())),
                        Ok(Pushed::Queued)
                    ));
                }
                if c % 3 == 0 {
                    if let Some(ready) = reader.take().unwrap() {
                        seen[r].extend(data_of(&ready));
                    }
                }
            }
        }
        for (r, reader) in readers.iter().enumerate() {
            reader.drain().unwrap();
            while let Some(ready) = reader.take().unwrap() {
                seen[r].extend(data_of(&ready));
            }
            let expected: Vec<String> = (0..CHUNKS * 5).map(|i| format!("{r}:{i}")).collect();
            assert_eq!(seen[r], expected, "reader {r}");
            assert_eq!(reader.backlog(), 0);
        }
        let pool = Pool::get();
        assert!(total_backlog() >= readers.iter().map(Reader::backlog).sum::<usize>());
        assert!(pool.threads() >= 1 && pool.threads() <= pool.max() && pool.max() <= POOL_THREADS);
        assert!(wakes.load(Ordering::Relaxed) > 0);
        // Stopped or dropped with chunks still queued for the pool: the jobs
        // left behind find them stopped.
        for (k, reader) in readers.into_iter().enumerate() {
            for _ in 0..4 {
                let _ = reader.push(Cow::Owned(note("late").into_bytes()));
            }
            if k % 2 == 0 {
                reader.stop();
                assert!(!reader.running());
            }
            drop(reader);
        }
    }
}
