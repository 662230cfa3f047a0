//! The pure core: no N-API types here, everything is unit-tested with
//! `cargo test`.

pub mod classify;
pub mod framer;
pub mod progress;
pub mod queue;
pub mod stats;
pub mod tokens;
pub mod view;

pub use classify::{classify, Classification, Profile};
pub use framer::{
    BlankLines, FrameError, FrameErrorKind, FrameSink, Framer, FramerOptions, Line, LineOutcome,
    Message,
};
pub use queue::{run_ordered, OrderedQueue, Outcome};
pub use stats::{Counters, Delivered, Stats};
pub use view::{is_safe_integer, JsonView, Kind, SerdeView, ViewError};
