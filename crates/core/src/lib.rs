//! `mcp-ordered-dispatch-core`: every stage of the addon as plain Rust, no
//! N-API (the `mcp-ordered-dispatch` crate, `crates/napi`, is the thin
//! Node.js layer over it), all of it tested with `cargo test`:
//!
//! * [`boundary`] — the wire contract: every bit mask, slot index and code
//!   the binding and its JavaScript share;
//! * [`framer`] — newline-delimited JSON-RPC framing, validation and
//!   classification of each line;
//! * [`out`] — the one writer of the stdio readers' result layout `out`;
//! * [`transcode`] — UTF-8 text in the forms a JavaScript string is made of;
//! * [`classify`], [`view`] — the classifier (mirroring the MCP SDK's zod
//!   schemas) over any [`JsonView`] of a message;
//! * [`queue`], [`stats`] — the re-entrancy-safe ordered queue and its counters;
//! * [`progress`], [`tokens`] — progress notifications and the progress-token
//!   lifecycle;
//! * [`stdio_thread`] — the off-thread stdio reader's worker, woken up
//!   through a [`stdio_thread::Wake`] the binding supplies;
//! * [`panic`] — the text of a caught panic.
//!
//! No `unsafe` but where SIMD needs it (`transcode::to_utf16`, allowed
//! there alone, with its safety argument).
#![deny(unsafe_code)]

pub mod boundary;
pub mod classify;
pub mod framer;
pub mod out;
pub mod panic;
pub mod progress;
pub mod queue;
pub mod shape;
pub mod stats;
pub mod stdio_thread;
pub mod tokens;
pub mod transcode;
pub mod view;

pub use classify::{classify, Classification, Profile};
pub use framer::{
    BlankLines, FrameError, FrameErrorKind, FrameSink, Framer, FramerOptions, Line, LineOutcome,
    Message,
};
pub use queue::{run_ordered, OrderedQueue, Outcome};
pub use stats::{Counters, Delivered, Stats};
pub use view::{is_safe_integer, JsonView, Kind, SerdeView, ViewError};
