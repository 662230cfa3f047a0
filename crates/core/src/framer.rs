//! Newline-delimited JSON-RPC framing for the MCP stdio transport.
//!
//! A [`Framer`] takes the byte stream in whatever chunks it arrives in and
//! reports every line, in order, to a [`FrameSink`]: a valid JSON-RPC
//! [`Message`] (already classified), a line that is skipped, or a
//! [`FrameError`] saying what is wrong and where (the byte offset in the
//! stream). A bad line never affects the lines after it: the framer always
//! resynchronises at the next newline.
//!
//! Cost model:
//! * each byte is scanned for `\n` once (`memchr`), from a cursor: a line
//!   that spans chunks is never rescanned from its start;
//! * a line that lies inside one chunk is parsed where it lies (no copy); a
//!   line that spans chunks is copied once into a growable buffer (`carry`)
//!   that never holds more than the size limit: an oversized line is
//!   reported as soon as it crosses the limit and the rest of it is skipped
//!   without being buffered;
//! * the JSON is validated by `serde_json` in one pass, but only what the
//!   classifier reads (the top-level keys and values, `result._meta`,
//!   `error.code`/`message`, `params._meta`, ...) is kept, in a small
//!   fixed-shape struct that borrows its strings from the line (no
//!   `serde_json::Value` tree, no allocation for a usual message); everything
//!   else (tool arguments, results, content) is checked for syntax and
//!   skipped. That struct is a [`JsonView`], so it goes through the same
//!   `classify` as everything else, and the tests check that it classifies
//!   exactly as `classify(&SerdeView, _)` on the full `serde_json::Value`: a
//!   message is accepted exactly when the SDK's `JSONRPCMessageSchema`
//!   accepts `JSON.parse(line)`.
//!
//! Line rules, as the SDK's `ReadBuffer` (`buffer.toString('utf8')`, split on
//! `\n`, strip one trailing `\r`, `JSON.parse`, `JSONRPCMessageSchema`):
//! * invalid UTF-8 is replaced with U+FFFD, as `Buffer#toString('utf8')` does
//!   (maximal subparts, per the WHATWG decoder; `String::from_utf8_lossy`
//!   implements the same rule). Only a line that fails validation takes that
//!   path; valid UTF-8 is parsed where it lies;
//! * a blank line or a line that is not JSON: reported under 1.x (the SDK's
//!   `JSON.parse` throws) and skipped under 2.x (its `ReadBuffer` drops
//!   `SyntaxError`s);
//! * valid JSON that is not a JSON-RPC message: reported (both generations).
//!
//! [`FramerOptions::strict`] reports all of them instead (invalid UTF-8 as an
//! error of its own). The size limit is the framer's own memory bound: a line
//! over it is reported as soon as it crosses the limit and the rest of it is
//! skipped. The SDK's rule is a different one (its `ReadBuffer.append` throws
//! when the incomplete line held plus the new chunk exceed the limit, and
//! the transport then closes); lib/stdio/read-buffer.cjs applies that rule before each
//! push, with the same limit, so the framer's own limit is never reached
//! through it.

use std::fmt;

use std::borrow::Cow;

use super::classify::{classify, Classification, Profile};
use super::transcode::utf16_len;

/// The SDK's `STDIO_DEFAULT_MAX_BUFFER_SIZE`: 10 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 10 * 1024 * 1024;

/// What to do with a line that is empty or only whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlankLines {
    /// Report it as a [`FrameErrorKind::Blank`] error (SDK 1.x reports the
    /// `SyntaxError` of `JSON.parse("")`).
    Report,
    /// Skip it silently (SDK 2.x drops lines that are not JSON).
    Skip,
}

/// What to do with a line that is not JSON (blank lines aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotJson {
    /// Report it as [`FrameErrorKind::MalformedJson`] (SDK 1.x).
    Report,
    /// Skip it silently (SDK 2.x's `ReadBuffer` drops `SyntaxError`s).
    Skip,
}

/// What to do with a line that is not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidUtf8 {
    /// Replace each maximal invalid subpart with U+FFFD and go on with the
    /// line, exactly as `Buffer#toString('utf8')` does (both SDK generations).
    Replace,
    /// Report it as [`FrameErrorKind::InvalidUtf8`] (strict).
    Report,
}

/// Framer settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramerOptions {
    /// Which SDK's schemas to mirror.
    pub profile: Profile,
    /// The largest line accepted, in bytes, not counting the `\n`.
    pub max_message_size: usize,
    pub blank_lines: BlankLines,
    pub not_json: NotJson,
    pub invalid_utf8: InvalidUtf8,
    /// Whether every message's JSON syntax is checked (the default). When
    /// `false`, a line of valid UTF-8 whose envelope the scan reads
    /// (`scan.rs`) and classifies as valid is reported as a [`Message`] with
    /// `checked: false`, its body unchecked: the consumer parses it with a
    /// full JSON parser and, if that fails, calls [`Framer::recheck`] for the
    /// outcome the checking path gives. Everything else is checked as before.
    pub check_bodies: bool,
}

impl FramerOptions {
    /// The stock SDK's behaviour for `profile`: 10 MiB; invalid UTF-8
    /// replaced; blank lines and lines that are not JSON reported by 1.x and
    /// skipped by 2.x.
    pub fn for_profile(profile: Profile) -> Self {
        let skip = profile == Profile::V2;
        FramerOptions {
            profile,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            blank_lines: if skip {
                BlankLines::Skip
            } else {
                BlankLines::Report
            },
            not_json: if skip { NotJson::Skip } else { NotJson::Report },
            invalid_utf8: InvalidUtf8::Replace,
            check_bodies: true,
        }
    }

    /// Stricter than the SDK: every bad line is reported, invalid UTF-8
    /// included (as an error of its own rather than U+FFFD).
    pub fn strict(profile: Profile) -> Self {
        FramerOptions {
            blank_lines: BlankLines::Report,
            not_json: NotJson::Report,
            invalid_utf8: InvalidUtf8::Report,
            ..FramerOptions::for_profile(profile)
        }
    }
}

impl Default for FramerOptions {
    fn default() -> Self {
        FramerOptions::for_profile(Profile::V1)
    }
}

/// A request id or progress token.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Id<'a> {
    Str(&'a str),
    Num(f64),
}

/// Where a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Stream offset of the line's first byte.
    pub offset: u64,
    /// 1-based line number.
    pub number: u64,
    /// `Some((start, end))`: the line's text (without its terminator) is
    /// `chunk[start..end]` of the chunk being pushed. `None`: the line spans
    /// chunks (its text was assembled in the framer's buffer), or it was
    /// too large and only partly seen.
    pub span: Option<(usize, usize)>,
    /// Length of the terminator: 1 (`\n`) or 2 (`\r\n`); 0 for a line that
    /// was reported before its end arrived (too large).
    pub terminator: usize,
    /// The text's length in UTF-16 code units, for a line inside the chunk
    /// (`span` is `Some`) whose text is valid UTF-8.
    pub utf16_len: Option<usize>,
}

/// A valid JSON-RPC message.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    /// The line, without its terminator. Valid UTF-8 and valid JSON.
    pub text: &'a str,
    /// What it is: never `Classification::Invalid` (an invalid line is a
    /// [`FrameError`]).
    pub kind: Classification,
    /// Whether the message is valid under both SDK profiles. Only a result
    /// whose `result._meta` passes 2.x but not 1.x's stricter checks is not.
    pub valid_in_both: bool,
    /// Whether the SDK's schema parse would return it changed, not just
    /// `JSON.parse` of the line: the schema drops unknown keys of an `error`
    /// object and (newer SDKs) of the related-task object in `_meta`.
    /// Rare; the JavaScript side lets the SDK's own parse have it.
    pub schema_strips: bool,
    /// Whether `text` is known to be valid JSON. `false` only under
    /// `FramerOptions::check_bodies == false`: the envelope was read and is
    /// valid, the rest was not checked (see [`Framer::recheck`]).
    pub checked: bool,
    /// What the classifier read (see the module docs): enough for the
    /// accessors below, not the whole message.
    sparse: &'a Sparse<'a>,
}

impl Message<'_> {
    /// `id` (requests and responses; an error response may have none).
    pub fn id(&self) -> Option<Id<'_>> {
        self.sparse.id.id()
    }

    /// `method` (requests and notifications).
    pub fn method(&self) -> Option<&str> {
        match &self.sparse.method {
            Leaf::Str(s) => Some(s),
            _ => None,
        }
    }

    /// `params._meta.progressToken` (requests and notifications).
    pub fn progress_token(&self) -> Option<Id<'_>> {
        self.sparse.params.meta.progress_token.id()
    }
}

/// A line that is not a valid message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError {
    /// Stream offset of the line's first byte.
    pub offset: u64,
    /// 1-based line number.
    pub line: u64,
    pub kind: FrameErrorKind,
    /// The line's text as the SDK decodes it (U+FFFD for invalid UTF-8,
    /// without its `\n` but with a `\r` before it, which each SDK release
    /// strips or not), for a blank line, malformed JSON and valid JSON that
    /// is not JSON-RPC: JavaScript gives it to the SDK's own parse to get the
    /// SDK's own error. `None` for the others.
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameErrorKind {
    /// An empty or whitespace-only line.
    Blank,
    /// A line longer than the limit; it is skipped up to the next newline.
    TooLarge { limit: usize },
    /// `at`: stream offset of the first byte that is not UTF-8.
    InvalidUtf8 { at: u64 },
    /// `at`: stream offset where the JSON parser gave up.
    MalformedJson { at: u64, detail: String },
    /// Valid JSON that is not a JSON-RPC 2.0 message the SDK accepts.
    NotJsonRpc { reason: String },
}

impl FrameErrorKind {
    /// A short machine-readable name.
    pub fn code(&self) -> &'static str {
        match self {
            FrameErrorKind::Blank => "blank-line",
            FrameErrorKind::TooLarge { .. } => "too-large",
            FrameErrorKind::InvalidUtf8 { .. } => "invalid-utf8",
            FrameErrorKind::MalformedJson { .. } => "malformed-json",
            FrameErrorKind::NotJsonRpc { .. } => "not-json-rpc",
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (offset, line) = (self.offset, self.line);
        match &self.kind {
            FrameErrorKind::Blank => {
                write!(f, "blank line at byte offset {offset} (line {line})")
            }
            FrameErrorKind::TooLarge { limit } => write!(
                f,
                "message at byte offset {offset} (line {line}) is larger than the \
                 maximum message size of {limit} bytes; skipped to the next newline"
            ),
            FrameErrorKind::InvalidUtf8 { at } => write!(
                f,
                "invalid UTF-8 at byte offset {at} in the line at byte offset {offset} (line {line})"
            ),
            FrameErrorKind::MalformedJson { at, detail } => write!(
                f,
                "malformed JSON at byte offset {at} in the line at byte offset {offset} (line {line}): {detail}"
            ),
            FrameErrorKind::NotJsonRpc { reason } => write!(
                f,
                "not a valid JSON-RPC 2.0 message at byte offset {offset} (line {line}): {reason}"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// What became of a line.
#[derive(Debug)]
pub enum LineOutcome<'a> {
    Message(Message<'a>),
    /// A blank line skipped under [`BlankLines::Skip`], or a line that is
    /// not JSON under [`NotJson::Skip`].
    Skipped,
    Error(FrameError),
}

/// Receives every line, in stream order.
pub trait FrameSink {
    fn line(&mut self, line: &Line, outcome: LineOutcome<'_>);
}

/// Collects outcomes (tests).
#[cfg(test)]
impl FrameSink for Vec<Result<(String, Classification), FrameError>> {
    fn line(&mut self, _line: &Line, outcome: LineOutcome<'_>) {
        match outcome {
            LineOutcome::Message(m) => self.push(Ok((m.text.to_owned(), m.kind))),
            LineOutcome::Skipped => {}
            LineOutcome::Error(e) => self.push(Err(e)),
        }
    }
}

/// The stream state.
#[derive(Debug)]
pub struct Framer {
    options: FramerOptions,
    /// The start of the current line, when it began in an earlier chunk.
    carry: Vec<u8>,
    /// Stream offset of `carry[0]`.
    carry_offset: u64,
    /// Discarding a too-large line up to its newline.
    skipping: bool,
    /// Bytes pushed so far: the stream offset of the next chunk.
    offset: u64,
    /// Lines completed so far.
    lines: u64,
    /// The text (`..assembled_len`) of the last line assembled across
    /// chunks, kept until the next one (or `clear`): see [`Framer::assembled`].
    assembled: Vec<u8>,
    assembled_len: usize,
}

/// A carry buffer larger than this is released after use.
const CARRY_KEEP: usize = 1 << 20;

impl Framer {
    pub fn new(options: FramerOptions) -> Self {
        Framer {
            options,
            carry: Vec::new(),
            carry_offset: 0,
            skipping: false,
            offset: 0,
            lines: 0,
            assembled: Vec::new(),
            assembled_len: 0,
        }
    }

    pub fn options(&self) -> &FramerOptions {
        &self.options
    }

    /// Bytes pushed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes of an incomplete line held, waiting for its newline.
    pub fn buffered(&self) -> usize {
        self.carry.len()
    }

    /// Drops any incomplete line (the SDK's `ReadBuffer.clear()`). Offsets
    /// and line numbers keep counting.
    pub fn clear(&mut self) {
        self.assembled = Vec::new();
        self.assembled_len = 0;
        self.carry.clear();
        if self.carry.capacity() > CARRY_KEEP {
            self.carry = Vec::new();
        }
        self.skipping = false;
    }

    /// Frames `chunk`, reporting every line it completes to `sink`, in order.
    /// An incomplete last line is kept for the next push.
    pub fn push<S: FrameSink + ?Sized>(&mut self, chunk: &[u8], sink: &mut S) {
        if self.assembled.capacity() > CARRY_KEEP {
            // The last push's big line is not needed any more.
            self.assembled = Vec::new();
            self.assembled_len = 0;
        }
        let base = self.offset;
        self.offset += chunk.len() as u64;
        let limit = self.options.max_message_size;
        let mut pos = 0;
        while pos < chunk.len() {
            let Some(found) = memchr::memchr(b'\n', &chunk[pos..]) else {
                self.keep_tail(&chunk[pos..], base + pos as u64, sink);
                return;
            };
            let nl = pos + found;
            let number = self.lines + 1;
            self.lines += 1;
            if self.skipping {
                // The rest of a too-large line (already reported).
                self.skipping = false;
            } else if self.carry.is_empty() {
                let offset = base + pos as u64;
                if nl - pos > limit {
                    self.too_large(offset, number, sink);
                } else {
                    let (end, terminator) = strip_cr(chunk, pos, nl);
                    let line = Line {
                        offset,
                        number,
                        span: Some((pos, end)),
                        terminator,
                        utf16_len: None,
                    };
                    process_line(&self.options, &chunk[pos..end], line, sink);
                }
            } else {
                let offset = self.carry_offset;
                if self.carry.len() + (nl - pos) > limit {
                    self.carry.clear();
                    self.too_large(offset, number, sink);
                } else {
                    self.carry.extend_from_slice(&chunk[pos..nl]);
                    let carry = std::mem::take(&mut self.carry);
                    let (end, terminator) = strip_cr(&carry, 0, carry.len());
                    let line = Line {
                        offset,
                        number,
                        span: None,
                        terminator,
                        utf16_len: None,
                    };
                    process_line(&self.options, &carry[..end], line, sink);
                    // Kept until the next line assembled across chunks (see
                    // `assembled`); the buffer it replaces is reused.
                    let mut spare = std::mem::replace(&mut self.assembled, carry);
                    self.assembled_len = end;
                    spare.clear();
                    if spare.capacity() <= CARRY_KEEP {
                        self.carry = spare;
                    }
                }
            }
            pos = nl + 1;
        }
    }

    /// Keeps the incomplete last line of a chunk, or starts skipping it if it
    /// has grown past the limit.
    fn keep_tail<S: FrameSink + ?Sized>(&mut self, tail: &[u8], offset: u64, sink: &mut S) {
        if self.skipping {
            return;
        }
        if self.carry.is_empty() {
            self.carry_offset = offset;
        }
        if self.carry.len() + tail.len() > self.options.max_message_size {
            let start = self.carry_offset;
            self.clear();
            self.skipping = true;
            self.too_large(start, self.lines + 1, sink);
        } else {
            if self.carry.capacity() - self.carry.len() < tail.len() {
                // Grow geometrically, but never past the limit.
                let want = (self.carry.len() + tail.len())
                    .max(self.carry.capacity() * 2)
                    .min(self.options.max_message_size);
                self.carry.reserve_exact(want - self.carry.len());
            }
            self.carry.extend_from_slice(tail);
        }
    }

    /// The text (without terminator) of the last line that was assembled
    /// across chunks (`Line::span` `None`, not too large), until another one
    /// is or [`Framer::clear`] runs: a push completes at most one such line,
    /// its first, so after a push that reported one this is its text.
    pub fn assembled(&self) -> &[u8] {
        &self.assembled[..self.assembled_len]
    }

    /// The checking path's outcome for a line reported earlier as a
    /// [`Message`] with `checked: false` (whose text a JSON parser then
    /// refused): `bytes` is its text (without terminator), `line` where it
    /// was. Reports exactly what [`Framer::push`] would have reported for it
    /// with `check_bodies` on. The framer's state is not touched.
    pub fn recheck<S: FrameSink + ?Sized>(&self, bytes: &[u8], line: Line, sink: &mut S) {
        let options = FramerOptions {
            check_bodies: true,
            ..self.options
        };
        process_line(&options, bytes, line, sink);
    }

    fn too_large<S: FrameSink + ?Sized>(&self, offset: u64, number: u64, sink: &mut S) {
        let line = Line {
            offset,
            number,
            span: None,
            terminator: 0,
            utf16_len: None,
        };
        let error = FrameError {
            offset,
            line: number,
            kind: FrameErrorKind::TooLarge {
                limit: self.options.max_message_size,
            },
            text: None,
        };
        sink.line(&line, LineOutcome::Error(error));
    }
}

/// `(end, terminator length)` of the line `bytes[start..nl]` after stripping
/// one trailing `\r`.
fn strip_cr(bytes: &[u8], start: usize, nl: usize) -> (usize, usize) {
    if nl > start && bytes[nl - 1] == b'\r' {
        (nl - 1, 2)
    } else {
        (nl, 1)
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

impl Framer {
    /// Heap bytes the framer holds (its carry buffer's capacity), for the
    /// binding to report to V8 (`napi_adjust_external_memory`).
    pub fn heap_bytes(&self) -> usize {
        self.carry.capacity() + self.assembled.capacity()
    }
}

fn process_line<S: FrameSink + ?Sized>(
    options: &FramerOptions,
    bytes: &[u8],
    mut line: Line,
    sink: &mut S,
) {
    let terminator = line.terminator;
    let error = |kind, text: Option<&str>| FrameError {
        offset: line.offset,
        line: line.number,
        kind,
        // With the `\r` that was stripped: SDK releases before 1.23 keep it.
        text: text.map(|t| {
            if terminator == 2 {
                format!("{t}\r")
            } else {
                t.to_owned()
            }
        }),
    };
    // Valid UTF-8 (the usual case) is parsed where it lies; only a line that
    // fails validation is decoded again, with replacement characters.
    let text: Cow<'_, str> = match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(e) => match options.invalid_utf8 {
            InvalidUtf8::Replace => String::from_utf8_lossy(bytes),
            InvalidUtf8::Report => {
                let at = line.offset + e.valid_up_to() as u64;
                sink.line(
                    &line,
                    LineOutcome::Error(error(FrameErrorKind::InvalidUtf8 { at }, None)),
                );
                return;
            }
        },
    };
    let owned = matches!(text, Cow::Owned(_));
    let text: &str = &text;
    if line.span.is_some() {
        // Only lines inside the chunk share a string with their neighbours
        // and need their UTF-16 offsets (of the decoded text).
        line.utf16_len = Some(utf16_len(text.as_bytes()));
    }
    if is_blank(bytes) {
        let outcome = match options.blank_lines {
            BlankLines::Report => LineOutcome::Error(error(FrameErrorKind::Blank, Some(text))),
            BlankLines::Skip => LineOutcome::Skipped,
        };
        sink.line(&line, outcome);
        return;
    }
    // The envelope alone, when the consumer checks the syntax (valid UTF-8
    // only: a replaced line takes the checking path, so that a recheck of
    // its bytes gives the same outcome). Anything the scan does not read, or
    // reads as invalid, is decided by the checking parse below.
    if !options.check_bodies && !owned {
        let mut sparse = Sparse::default();
        if scan_envelope(text, &mut sparse).is_some() {
            if let Ok((kind, valid_in_both)) = classify_sparse(&sparse, options.profile) {
                let message = Message {
                    text,
                    kind,
                    valid_in_both,
                    schema_strips: sparse.schema_strips(),
                    checked: false,
                    sparse: &sparse,
                };
                sink.line(&line, LineOutcome::Message(message));
                return;
            }
        }
    }
    let mut sparse = Sparse::default();
    let outcome = match inspect_into(text, options.profile, &mut sparse) {
        Ok((kind, valid_in_both)) => LineOutcome::Message(Message {
            text,
            kind,
            valid_in_both,
            schema_strips: sparse.schema_strips(),
            checked: true,
            sparse: &sparse,
        }),
        Err(Inspect::Json { .. }) if options.not_json == NotJson::Skip => LineOutcome::Skipped,
        Err(Inspect::Json { column, detail }) => {
            // `column` is a byte position in `text`, which is `bytes` unless
            // invalid UTF-8 was replaced (then it is approximate).
            LineOutcome::Error(error(
                FrameErrorKind::MalformedJson {
                    at: line.offset + column.min(bytes.len()) as u64,
                    detail,
                },
                Some(text),
            ))
        }
        Err(Inspect::Rpc(reason)) => {
            LineOutcome::Error(error(FrameErrorKind::NotJsonRpc { reason }, Some(text)))
        }
    };
    sink.line(&line, outcome);
}

/// Why [`inspect`] rejected a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inspect {
    /// Not JSON. `column`: 0-based byte position where parsing failed.
    Json { column: usize, detail: String },
    /// JSON, but not a valid JSON-RPC message; the classifier's reason.
    Rpc(String),
}

/// Parses one line of JSON text and classifies it as the SDK would
/// `JSON.parse` it and check it against `JSONRPCMessageSchema`. Returns the
/// kind and whether it is valid under both profiles.
pub fn inspect(text: &str, profile: Profile) -> Result<(Classification, bool), Inspect> {
    inspect_into(text, profile, &mut Sparse::default())
}

/// [`inspect`], leaving what the classifier read in `sparse` (filled in
/// place: the struct is a few hundred bytes).
fn inspect_into<'a>(
    text: &'a str,
    profile: Profile,
    sparse: &mut Sparse<'a>,
) -> Result<(Classification, bool), Inspect> {
    if let Err(first) = parse_sparse(text, sparse) {
        {
            // serde_json refuses two things `JSON.parse` accepts: numbers
            // that overflow f64 (JS: ±Infinity) and unpaired surrogate
            // escapes. Neither can change whether a message is valid (see
            // `sanitize`), so retry with them neutralised.
            let retry = if needs_sanitizing(&first) {
                sanitize(text).and_then(|s| {
                    let mut again = Sparse::default();
                    parse_sparse(&s, &mut again).ok()?;
                    Some(again.into_owned())
                })
            } else {
                None
            };
            match retry {
                Some(v) => *sparse = v,
                None => return Err(json_error(&first)),
            }
        }
    }
    classify_sparse(sparse, profile)
}

/// The classification of what the classifier read, and whether it is valid
/// under both profiles.
fn classify_sparse(
    sparse: &Sparse<'_>,
    profile: Profile,
) -> Result<(Classification, bool), Inspect> {
    let kind = match classify(&Node::Message(sparse), profile) {
        Classification::Invalid(reason) => return Err(Inspect::Rpc(reason)),
        valid => valid,
    };
    // 1.x's result schema is the stricter one: a result valid under 1.x is
    // valid under 2.x; the converse needs checking.
    let valid_in_both = kind != Classification::Result
        || profile == Profile::V1
        || classify(&Node::Message(sparse), Profile::V1) == Classification::Result;
    Ok((kind, valid_in_both))
}

fn json_error(e: &serde_json::Error) -> Inspect {
    let text = e.to_string();
    let detail = match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    };
    // One line, so the column is the byte position (1-based; 0 at the end).
    Inspect::Json {
        column: e.column().saturating_sub(1),
        detail,
    }
}

// The parts: `sanitize` (what serde_json refuses and JSON.parse accepts),
// `sparse` (the validating serde visitor the classifier reads), `tests`.
mod sanitize;
mod scan;
mod sparse;
#[cfg(test)]
mod tests;

use sanitize::{needs_sanitizing, sanitize};
use scan::scan_envelope;
use sparse::{parse_sparse, Leaf, Node, Sparse};
