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
//! the transport then closes); lib/stdio.cjs applies that rule before each
//! push, with the same limit, so the framer's own limit is never reached
//! through it.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;

use super::classify::{classify, Classification, Profile, RELATED_TASK_META_KEY};
use super::view::{JsonView, Kind, ViewError};

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
        self.carry.clear();
        if self.carry.capacity() > CARRY_KEEP {
            self.carry = Vec::new();
        }
        self.skipping = false;
    }

    /// Frames `chunk`, reporting every line it completes to `sink`, in order.
    /// An incomplete last line is kept for the next push.
    pub fn push<S: FrameSink + ?Sized>(&mut self, chunk: &[u8], sink: &mut S) {
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
                    let mut carry = std::mem::take(&mut self.carry);
                    let (end, terminator) = strip_cr(&carry, 0, carry.len());
                    let line = Line {
                        offset,
                        number,
                        span: None,
                        terminator,
                        utf16_len: None,
                    };
                    process_line(&self.options, &carry[..end], line, sink);
                    carry.clear();
                    if carry.capacity() <= CARRY_KEEP {
                        self.carry = carry;
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
        self.carry.capacity()
    }
}

/// UTF-16 length of valid UTF-8: one unit per character, two for those
/// outside the BMP (4-byte sequences).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // Two simple counts vectorise well: continuation bytes (0b10xxxxxx, i.e.
    // < -64 as i8) add no unit, 4-byte leaders (>= 0xF0) add one more.
    let b = s.as_bytes();
    let continuation = b.iter().filter(|&&x| (x as i8) < -64).count();
    let four = b.iter().filter(|&&x| x >= 0xF0).count();
    b.len() - continuation + four
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
    let text: &str = &text;
    if line.span.is_some() {
        // Only lines inside the chunk share a string with their neighbours
        // and need their UTF-16 offsets (of the decoded text).
        line.utf16_len = Some(utf16_len(text));
    }
    if is_blank(bytes) {
        let outcome = match options.blank_lines {
            BlankLines::Report => LineOutcome::Error(error(FrameErrorKind::Blank, Some(text))),
            BlankLines::Skip => LineOutcome::Skipped,
        };
        sink.line(&line, outcome);
        return;
    }
    let mut sparse = Sparse::default();
    let outcome = match inspect_into(text, options.profile, &mut sparse) {
        Ok((kind, valid_in_both)) => LineOutcome::Message(Message {
            text,
            kind,
            valid_in_both,
            schema_strips: sparse.schema_strips(),
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

fn needs_sanitizing(e: &serde_json::Error) -> bool {
    let text = e.to_string();
    text.contains("surrogate") || text.contains("escape") || text.contains("number out of range")
}

/// Whether `t` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(t: &[u8]) -> bool {
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < t.len() && t[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    let mut i = 0;
    if t.first() == Some(&b'-') {
        i += 1;
    }
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == t.len()
}

/// Rewrites, without moving any byte, the two things serde_json rejects and
/// `JSON.parse` accepts:
/// * a number that overflows f64 becomes `±1e308` (padded with spaces). In
///   JS it is ±Infinity; every place the classifier reads a number needs a
///   safe integer, and neither value is one;
/// * a surrogate escape (`\uD800`-`\uDFFF`) becomes `\uFFFD`. The classifier
///   only compares strings with ASCII names and `"2.0"`, which a string with
///   a surrogate can never equal, before or after.
///
/// Returns `None` if nothing needed rewriting.
fn sanitize(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        if b.get(i + 1) == Some(&b'u') && i + 6 <= b.len() {
                            let hex = &text.get(i + 2..i + 6).unwrap_or("");
                            if let Ok(cp) = u16::from_str_radix(hex, 16) {
                                if (0xD800..=0xDFFF).contains(&cp) {
                                    out[i + 2..i + 6].copy_from_slice(b"FFFD");
                                    changed = true;
                                }
                            }
                            i += 6;
                            continue;
                        }
                        i += 2;
                        continue;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let token = &text[start..i];
                if !is_json_number(token.as_bytes()) {
                    continue;
                }
                if let Ok(n) = token.parse::<f64>() {
                    if n.is_infinite() {
                        let repl: &[u8] = if n < 0.0 { b"-1e308" } else { b"1e308" };
                        if repl.len() <= token.len() {
                            out[start..start + repl.len()].copy_from_slice(repl);
                            out[start + repl.len()..i].fill(b' ');
                            changed = true;
                        }
                    }
                }
            }
            _ => i += 1,
        }
    }
    if changed {
        String::from_utf8(out).ok()
    } else {
        None
    }
}

// ---------------------------------------------------------------------------
// the sparse parse
//
// What the classifier reads of a message, parsed straight into a small
// fixed-shape struct (strings borrowed from the line unless they contain
// escapes): no `serde_json::Value` tree, no map, no allocation for the usual
// message. `Sparse` implements `JsonView`, so the message goes through the
// same `classify` as everything else; the unit and property tests check that
// it classifies exactly as `classify(&SerdeView, _)` on the full
// `serde_json::Value`.

/// A value the classifier reads: a scalar (strings and numbers kept) or a
/// container reduced to its kind.
#[derive(Debug, Clone, PartialEq, Default)]
enum Leaf<'a> {
    #[default]
    Absent,
    Null,
    Bool,
    Num(f64),
    Str(Cow<'a, str>),
    Array,
    Object,
}

impl Leaf<'_> {
    fn kind(&self) -> Kind {
        match self {
            Leaf::Absent => Kind::Undefined,
            Leaf::Null => Kind::Null,
            Leaf::Bool => Kind::Bool,
            Leaf::Num(n) => Kind::Number(*n),
            Leaf::Str(_) => Kind::String,
            Leaf::Array => Kind::Array,
            Leaf::Object => Kind::Object,
        }
    }

    fn id(&self) -> Option<Id<'_>> {
        match self {
            Leaf::Str(s) => Some(Id::Str(s)),
            Leaf::Num(n) => Some(Id::Num(*n)),
            _ => None,
        }
    }

    fn into_owned(self) -> Leaf<'static> {
        match self {
            Leaf::Absent => Leaf::Absent,
            Leaf::Null => Leaf::Null,
            Leaf::Bool => Leaf::Bool,
            Leaf::Num(n) => Leaf::Num(n),
            Leaf::Str(s) => Leaf::Str(Cow::Owned(s.into_owned())),
            Leaf::Array => Leaf::Array,
            Leaf::Object => Leaf::Object,
        }
    }
}

/// The related-task object of a `_meta`.
#[derive(Debug, Clone, PartialEq, Default)]
struct Task<'a> {
    /// `Leaf::Object` when it is an object (then `task_id` is read).
    kind: Leaf<'a>,
    task_id: Leaf<'a>,
    /// It has keys other than `taskId` (which the schema drops).
    extra: bool,
}

/// A `_meta`.
#[derive(Debug, Clone, PartialEq, Default)]
struct Meta<'a> {
    kind: Leaf<'a>,
    progress_token: Leaf<'a>,
    task: Task<'a>,
    /// Other keys (kept by the schema: `_meta` is open).
    extra: bool,
}

/// `result` or `params`: only their `_meta` matters.
#[derive(Debug, Clone, PartialEq, Default)]
struct WithMeta<'a> {
    kind: Leaf<'a>,
    meta: Meta<'a>,
    /// Other keys (kept by the schema).
    extra: bool,
}

/// `error`.
#[derive(Debug, Clone, PartialEq, Default)]
struct ErrorObject<'a> {
    kind: Leaf<'a>,
    code: Leaf<'a>,
    message: Leaf<'a>,
    /// It has keys other than `code`, `message` and `data` (which the
    /// schema drops).
    extra: bool,
}

// The key bits the JavaScript gatherer uses too.
use crate::boundary::{
    KEY_ERROR as F_ERROR, KEY_ID as F_ID, KEY_JSONRPC as F_JSONRPC, KEY_METHOD as F_METHOD,
    KEY_PARAMS as F_PARAMS, KEY_RESULT as F_RESULT,
};

/// What the classifier reads of a message.
#[derive(Debug, Clone, PartialEq, Default)]
struct Sparse<'a> {
    /// The message itself when it is not an object (`Absent` when it is).
    not_object: Leaf<'a>,
    /// `F_*` bits: the known keys present.
    keys: u8,
    /// The first other key, in the line's order.
    unknown: Option<Cow<'a, str>>,
    jsonrpc: Leaf<'a>,
    id: Leaf<'a>,
    method: Leaf<'a>,
    result: WithMeta<'a>,
    error: ErrorObject<'a>,
    params: WithMeta<'a>,
}

impl Sparse<'_> {
    fn into_owned(self) -> Sparse<'static> {
        let meta = |m: Meta<'_>| Meta {
            kind: m.kind.into_owned(),
            progress_token: m.progress_token.into_owned(),
            task: Task {
                kind: m.task.kind.into_owned(),
                task_id: m.task.task_id.into_owned(),
                extra: m.task.extra,
            },
            extra: m.extra,
        };
        Sparse {
            not_object: self.not_object.into_owned(),
            keys: self.keys,
            unknown: self.unknown.map(|u| Cow::Owned(u.into_owned())),
            jsonrpc: self.jsonrpc.into_owned(),
            id: self.id.into_owned(),
            method: self.method.into_owned(),
            result: WithMeta {
                kind: self.result.kind.into_owned(),
                meta: meta(self.result.meta),
                extra: self.result.extra,
            },
            error: ErrorObject {
                kind: self.error.kind.into_owned(),
                code: self.error.code.into_owned(),
                message: self.error.message.into_owned(),
                extra: self.error.extra,
            },
            params: WithMeta {
                kind: self.params.kind.into_owned(),
                meta: meta(self.params.meta),
                extra: self.params.extra,
            },
        }
    }

    /// Whether the SDK's schema parse drops keys of this (valid) message:
    /// unknown keys of `error`, or of a related-task object in `_meta`.
    fn schema_strips(&self) -> bool {
        let task = |w: &WithMeta<'_>| {
            w.kind == Leaf::Object
                && w.meta.kind == Leaf::Object
                && w.meta.task.kind == Leaf::Object
                && w.meta.task.extra
        };
        (self.error.kind == Leaf::Object && self.error.extra)
            || task(&self.params)
            || task(&self.result)
    }
}

/// A position in a [`Sparse`], seen through [`JsonView`].
#[derive(Clone, Copy)]
enum Node<'s, 'a> {
    Message(&'s Sparse<'a>),
    Leaf(&'s Leaf<'a>),
    WithMeta(&'s WithMeta<'a>),
    Error(&'s ErrorObject<'a>),
    Meta(&'s Meta<'a>),
    Task(&'s Task<'a>),
}

const ABSENT: Leaf<'static> = Leaf::Absent;

impl Node<'_, '_> {
    fn leaf(&self) -> &Leaf<'_> {
        match self {
            Node::Message(m) => {
                if m.not_object == Leaf::Absent {
                    &Leaf::Object
                } else {
                    &m.not_object
                }
            }
            Node::Leaf(l) => l,
            Node::WithMeta(w) => &w.kind,
            Node::Error(e) => &e.kind,
            Node::Meta(m) => &m.kind,
            Node::Task(t) => &t.kind,
        }
    }
}

impl<'s, 'a> JsonView for Node<'s, 'a> {
    fn kind(&self) -> Kind {
        self.leaf().kind()
    }

    fn string_eq(&self, expected: &str) -> Option<bool> {
        match self.leaf() {
            Leaf::Str(s) => Some(s == expected),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Result<Self, ViewError> {
        let absent = Node::Leaf(&ABSENT);
        Ok(match *self {
            Node::Message(m) if m.not_object == Leaf::Absent => match key {
                "jsonrpc" => Node::Leaf(&m.jsonrpc),
                "id" => Node::Leaf(&m.id),
                "method" => Node::Leaf(&m.method),
                "result" => Node::WithMeta(&m.result),
                "error" => Node::Error(&m.error),
                "params" => Node::WithMeta(&m.params),
                _ => absent,
            },
            Node::WithMeta(w) if w.kind == Leaf::Object && key == "_meta" => Node::Meta(&w.meta),
            Node::Error(e) if e.kind == Leaf::Object => match key {
                "code" => Node::Leaf(&e.code),
                "message" => Node::Leaf(&e.message),
                _ => absent,
            },
            Node::Meta(m) if m.kind == Leaf::Object => match key {
                "progressToken" => Node::Leaf(&m.progress_token),
                k if k == RELATED_TASK_META_KEY => Node::Task(&m.task),
                _ => absent,
            },
            Node::Task(t) if t.kind == Leaf::Object && key == "taskId" => Node::Leaf(&t.task_id),
            _ => absent,
        })
    }

    fn for_each_key<F>(&self, mut f: F) -> Result<(), ViewError>
    where
        F: FnMut(&str, &dyn Fn() -> Result<Self, ViewError>) -> Result<bool, ViewError>,
    {
        // Only the message's own keys are ever listed (for `.strict()`).
        let Node::Message(m) = *self else {
            return Ok(());
        };
        if m.not_object != Leaf::Absent {
            return Ok(());
        }
        for (bit, name) in [
            (F_JSONRPC, "jsonrpc"),
            (F_ID, "id"),
            (F_RESULT, "result"),
            (F_ERROR, "error"),
            (F_METHOD, "method"),
            (F_PARAMS, "params"),
        ] {
            if m.keys & bit != 0 {
                let value = || self.get(name);
                if !f(name, &value)? {
                    return Ok(());
                }
            }
        }
        if let Some(name) = &m.unknown {
            let value = || Ok(Node::Leaf(&ABSENT));
            f(name, &value)?;
        }
        Ok(())
    }
}

fn parse_sparse<'a>(text: &'a str, sparse: &mut Sparse<'a>) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(MessageVisitor(sparse))?;
    de.end()
}

/// Drains a container the classifier does not look into.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A visitor for a value whose kind (and scalar value) is all that matters,
/// unless it is an object: then `on_map` reads it.
macro_rules! leaf_visitor_methods {
    () => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Bool))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Num(v as f64)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Num(v as f64)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Num(v)))
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Str(Cow::Borrowed(v))))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Str(Cow::Owned(v.to_owned()))))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Null))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok(self.leaf(Leaf::Array))
        }
    };
}

/// A scalar the classifier reads.
struct LeafSeed;

impl LeafSeed {
    fn leaf<'de>(&self, leaf: Leaf<'de>) -> Leaf<'de> {
        leaf
    }
}

impl<'de> DeserializeSeed<'de> for LeafSeed {
    type Value = Leaf<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Leaf<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LeafSeed {
    type Value = Leaf<'de>;
    leaf_visitor_methods!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Leaf<'de>, A::Error> {
        drain_map(map)?;
        Ok(Leaf::Object)
    }
}

/// Which keys of an object the classifier reads.
#[derive(Clone, Copy)]
enum Part {
    /// `result` or `params`: `_meta`.
    WithMeta,
    /// `error`: `code`, `message`.
    Error,
    /// `_meta`: `progressToken`, the related-task object.
    Meta,
    /// The related-task object: `taskId`.
    Task,
}

/// A key of one of those objects: the index of a field it keeps, or none.
struct KeySeed(Part);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<u8>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u8>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Option<u8>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<u8>, E> {
        Ok(match (self.0, v) {
            (Part::WithMeta, "_meta") => Some(0),
            (Part::Error, "code") => Some(0),
            (Part::Error, "message") => Some(1),
            (Part::Error, "data") => Some(2),
            (Part::Meta, "progressToken") => Some(0),
            (Part::Meta, k) if k == RELATED_TASK_META_KEY => Some(1),
            (Part::Task, "taskId") => Some(0),
            _ => None,
        })
    }
}

/// Parses an object of one of those parts into `$ty` in place (the structs
/// are filled where they lie rather than returned, to avoid moving them).
macro_rules! object_seed {
    ($seed:ident, $ty:ident, $part:expr, |$map:ident, $out:ident, $field:ident| $body:block) => {
        struct $seed<'s, 'de>(&'s mut $ty<'de>);

        impl<'de> $seed<'_, 'de> {
            fn leaf(self, kind: Leaf<'de>) {
                *self.0 = $ty {
                    kind,
                    ..Default::default()
                };
            }
        }

        impl<'de> DeserializeSeed<'de> for $seed<'_, 'de> {
            type Value = ();
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.deserialize_any(self)
            }
        }

        impl<'de> Visitor<'de> for $seed<'_, 'de> {
            type Value = ();
            leaf_visitor_methods!();
            fn visit_map<A: MapAccess<'de>>(self, mut $map: A) -> Result<(), A::Error> {
                let $out = self.0;
                // A repeated key: the last value wins, as in JSON.parse.
                *$out = $ty::default();
                $out.kind = Leaf::Object;
                while let Some(key) = $map.next_key_seed(KeySeed($part))? {
                    match key {
                        Some($field) => $body,
                        None => {
                            $out.extra = true;
                            $map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(())
            }
        }
    };
}

object_seed!(
    WithMetaSeed,
    WithMeta,
    Part::WithMeta,
    |map, out, _field| {
        map.next_value_seed(MetaSeed(&mut out.meta))?;
    }
);

object_seed!(ErrorSeed, ErrorObject, Part::Error, |map, out, field| {
    match field {
        0 => out.code = map.next_value_seed(LeafSeed)?,
        1 => out.message = map.next_value_seed(LeafSeed)?,
        // `data`: anything, kept by the schema.
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

object_seed!(MetaSeed, Meta, Part::Meta, |map, out, field| {
    if field == 0 {
        out.progress_token = map.next_value_seed(LeafSeed)?;
    } else {
        map.next_value_seed(TaskSeed(&mut out.task))?;
    }
});

object_seed!(TaskSeed, Task, Part::Task, |map, out, _field| {
    out.task_id = map.next_value_seed(LeafSeed)?;
});

/// A top-level key: a known field (its `F_*` bit) or another key.
enum TopKey<'a> {
    Known(u8),
    Other(Cow<'a, str>),
}

struct TopKeySeed;

impl<'de> DeserializeSeed<'de> for TopKeySeed {
    type Value = TopKey<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TopKey<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TopKeySeed {
    type Value = TopKey<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<TopKey<'de>, E> {
        Ok(top_key(v).unwrap_or(TopKey::Other(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<TopKey<'de>, E> {
        Ok(top_key(v).unwrap_or_else(|| TopKey::Other(Cow::Owned(v.to_owned()))))
    }
}

fn top_key<'a>(key: &str) -> Option<TopKey<'a>> {
    Some(TopKey::Known(match key {
        "jsonrpc" => F_JSONRPC,
        "id" => F_ID,
        "result" => F_RESULT,
        "error" => F_ERROR,
        "method" => F_METHOD,
        "params" => F_PARAMS,
        _ => return None,
    }))
}

struct MessageVisitor<'s, 'de>(&'s mut Sparse<'de>);

impl<'de> MessageVisitor<'_, 'de> {
    fn leaf(self, leaf: Leaf<'de>) {
        self.0.not_object = leaf;
    }
}

impl<'de> Visitor<'de> for MessageVisitor<'_, 'de> {
    type Value = ();
    leaf_visitor_methods!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let m = self.0;
        while let Some(key) = map.next_key_seed(TopKeySeed)? {
            // Like JSON.parse, a repeated key keeps its last value (and its
            // first position, which only matters for `unknown`).
            match key {
                TopKey::Known(bit) => {
                    m.keys |= bit;
                    match bit {
                        F_JSONRPC => m.jsonrpc = map.next_value_seed(LeafSeed)?,
                        F_ID => m.id = map.next_value_seed(LeafSeed)?,
                        F_METHOD => m.method = map.next_value_seed(LeafSeed)?,
                        F_RESULT => map.next_value_seed(WithMetaSeed(&mut m.result))?,
                        F_ERROR => map.next_value_seed(ErrorSeed(&mut m.error))?,
                        _ => map.next_value_seed(WithMetaSeed(&mut m.params))?,
                    }
                }
                TopKey::Other(name) => {
                    if m.unknown.is_none() {
                        m.unknown = Some(name);
                    }
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Out = Vec<Result<(String, Classification), FrameError>>;

    fn frame(options: FramerOptions, chunks: &[&[u8]]) -> Out {
        let mut framer = Framer::new(options);
        let mut out = Out::new();
        for chunk in chunks {
            framer.push(chunk, &mut out);
        }
        out
    }

    fn v1() -> FramerOptions {
        FramerOptions::for_profile(Profile::V1)
    }

    fn ok(text: &str, kind: Classification) -> Result<(String, Classification), FrameError> {
        Ok((text.to_owned(), kind))
    }

    const REQ: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p"}}}"#;
    const NOTE: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#;
    const RES: &str =
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"é😀"}]}}"#;

    #[test]
    fn frames_and_classifies() {
        let stream = format!("{REQ}\n{NOTE}\r\n{RES}\n");
        let out = frame(v1(), &[stream.as_bytes()]);
        assert_eq!(
            out,
            vec![
                ok(REQ, Classification::Request),
                ok(NOTE, Classification::Notification),
                ok(RES, Classification::Result),
            ]
        );
    }

    #[test]
    fn incomplete_last_line_waits() {
        let mut framer = Framer::new(v1());
        let mut out = Out::new();
        framer.push(REQ.as_bytes(), &mut out);
        assert!(out.is_empty());
        assert_eq!(framer.buffered(), REQ.len());
        framer.push(b"\n", &mut out);
        assert_eq!(out, vec![ok(REQ, Classification::Request)]);
        assert_eq!(framer.buffered(), 0);
    }

    #[test]
    fn every_split_gives_the_same_messages() {
        let stream = format!("{REQ}\n{NOTE}\r\n\n{RES}\nnot json\n{RES}\n");
        let bytes = stream.as_bytes();
        let whole = frame(v1(), &[bytes]);
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let parts = frame(v1(), &[&bytes[..i], &bytes[i..j], &bytes[j..]]);
                assert_eq!(parts, whole, "split at {i}, {j}");
            }
        }
    }

    #[test]
    fn accessors() {
        let mut framer = Framer::new(v1());
        struct Grab(Vec<(Option<String>, Option<String>, Option<String>)>);
        impl FrameSink for Grab {
            fn line(&mut self, _line: &Line, outcome: LineOutcome<'_>) {
                if let LineOutcome::Message(m) = outcome {
                    let show = |id: Option<Id<'_>>| {
                        id.map(|i| match i {
                            Id::Str(s) => format!("s:{s}"),
                            Id::Num(n) => format!("n:{n}"),
                        })
                    };
                    self.0.push((
                        show(m.id()),
                        m.method().map(str::to_owned),
                        show(m.progress_token()),
                    ));
                }
            }
        }
        let mut grab = Grab(Vec::new());
        framer.push(format!("{REQ}\n{NOTE}\n{RES}\n").as_bytes(), &mut grab);
        assert_eq!(
            grab.0,
            vec![
                (
                    Some("n:1".into()),
                    Some("tools/call".into()),
                    Some("s:p".into())
                ),
                (None, Some("notifications/progress".into()), None),
                (Some("n:1".into()), None, None),
            ]
        );
    }

    #[test]
    fn bad_lines_are_reported_with_offsets_and_skipped() {
        let stream = format!("{REQ}\n{{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}}\n{{oops\n\n\u{e9}\n{NOTE}\n");
        let mut bytes = stream.into_bytes();
        // make the "\xff" line real invalid UTF-8
        let pos = bytes.iter().position(|&b| b == 0xC3).unwrap();
        bytes[pos] = 0xFF;
        bytes.remove(pos + 1);
        // By default the \xFF line is U+FFFD, which is not JSON.
        let lossy = frame(v1(), &[&bytes]);
        assert_eq!(lossy.len(), 6, "{lossy:?}");
        assert!(
            matches!(
                &lossy[4],
                Err(FrameError {
                    kind: FrameErrorKind::MalformedJson { .. },
                    ..
                })
            ),
            "{lossy:?}"
        );
        let out = frame(FramerOptions::strict(Profile::V1), &[&bytes]);
        assert_eq!(out.len(), 6, "{out:?}");
        assert_eq!(out[0], ok(REQ, Classification::Request));
        let second = REQ.len() as u64 + 1;
        let Err(e) = &out[1] else { panic!() };
        assert_eq!(e.offset, second);
        assert_eq!(e.line, 2);
        assert_eq!(
            e.to_string(),
            format!("not a valid JSON-RPC 2.0 message at byte offset {second} (line 2): \"id\" must be a string or an integer (got 1.5)")
        );
        let Err(e) = &out[2] else { panic!() };
        assert_eq!(e.line, 3);
        assert!(
            matches!(e.kind, FrameErrorKind::MalformedJson { at, .. } if at == e.offset + 1),
            "{e}"
        );
        assert!(
            e.to_string().starts_with("malformed JSON at byte offset"),
            "{e}"
        );
        let Err(e) = &out[3] else { panic!() };
        assert_eq!(e.kind, FrameErrorKind::Blank);
        assert_eq!(e.line, 4);
        let Err(e) = &out[4] else { panic!() };
        assert_eq!(e.kind, FrameErrorKind::InvalidUtf8 { at: e.offset });
        assert_eq!(out[5], ok(NOTE, Classification::Notification));
    }

    #[test]
    fn invalid_utf8_is_replaced_as_buffer_to_string_does() {
        // Each maximal invalid subpart becomes one U+FFFD (WHATWG), in a
        // string value and in a key, in one chunk and cut inside a sequence.
        let cases: [(&[u8], &str); 7] = [
            (b"caf\xe9", "caf\u{FFFD}"),
            (b"\xc3\x28", "\u{FFFD}("),
            (b"\xe2\x82", "\u{FFFD}"),
            (b"\xf0\x9f\x98", "\u{FFFD}"),
            (b"\xed\xa0\x80", "\u{FFFD}\u{FFFD}\u{FFFD}"),
            (b"\xc0\xaf", "\u{FFFD}\u{FFFD}"),
            (b"\xf4\x90\x80\x80x", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}x"),
        ];
        for (bad, want) in cases {
            let mut line = br#"{"jsonrpc":"2.0","method":"m","params":{"k"#.to_vec();
            line.extend_from_slice(bad);
            line.extend_from_slice(br#"":""#);
            line.extend_from_slice(bad);
            line.extend_from_slice(b"\"}}\n");
            let text =
                format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"k{want}":"{want}"}}}}"#);
            assert_eq!(String::from_utf8_lossy(&line[..line.len() - 1]), text);
            for profile in [Profile::V1, Profile::V2] {
                let options = FramerOptions::for_profile(profile);
                for cut in 0..=line.len() {
                    let out = frame(options, &[&line[..cut], &line[cut..]]);
                    assert_eq!(
                        out,
                        vec![ok(&text, Classification::Notification)],
                        "{profile:?} cut {cut}"
                    );
                }
                let out = frame(FramerOptions::strict(profile), &[&line]);
                assert!(
                    matches!(
                        &out[..],
                        [Err(FrameError {
                            kind: FrameErrorKind::InvalidUtf8 { .. },
                            ..
                        })]
                    ),
                    "{out:?}"
                );
            }
        }
    }

    #[test]
    fn not_json_skipped_under_2x_unless_strict() {
        let stream = format!("{{oops\n\u{feff}{NOTE}\n\0\n\n{NOTE}\n[1]\n");
        let v2 = frame(
            FramerOptions::for_profile(Profile::V2),
            &[stream.as_bytes()],
        );
        assert_eq!(v2.len(), 2, "{v2:?}");
        assert_eq!(v2[0], ok(NOTE, Classification::Notification));
        assert!(matches!(
            &v2[1],
            Err(FrameError {
                kind: FrameErrorKind::NotJsonRpc { .. },
                ..
            })
        ));
        let codes = |out: &Out| -> Vec<&'static str> {
            out.iter()
                .map(|r| match r {
                    Ok(_) => "message",
                    Err(e) => e.kind.code(),
                })
                .collect()
        };
        let all = [
            "malformed-json",
            "malformed-json",
            "malformed-json",
            "blank-line",
            "message",
            "not-json-rpc",
        ];
        assert_eq!(codes(&frame(v1(), &[stream.as_bytes()])), all);
        let strict = frame(FramerOptions::strict(Profile::V2), &[stream.as_bytes()]);
        assert_eq!(codes(&strict), all);
    }

    #[test]
    fn schema_strips() {
        struct Strips(Vec<bool>);
        impl FrameSink for Strips {
            fn line(&mut self, _line: &Line, outcome: LineOutcome<'_>) {
                if let LineOutcome::Message(m) = outcome {
                    self.0.push(m.schema_strips);
                }
            }
        }
        let lines = [
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"x":1}}}"#,
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","extra":1}}"#,
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"m","params":{"x":1,"_meta":{"y":2,"io.modelcontextprotocol/related-task":{"taskId":"t"}}}}"#,
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","z":1}}}}"#,
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","z":1}}}}"#,
                true,
            ),
            (REQ, false),
        ];
        for profile in [Profile::V1, Profile::V2] {
            let mut framer = Framer::new(FramerOptions::for_profile(profile));
            let mut got = Strips(Vec::new());
            for (line, _) in lines {
                framer.push(format!("{line}\n").as_bytes(), &mut got);
            }
            assert_eq!(got.0, lines.map(|(_, want)| want), "{profile:?}");
        }
    }

    #[test]
    fn blank_lines_skipped_under_2x() {
        let out = frame(
            FramerOptions::for_profile(Profile::V2),
            &[format!("\n  \r\n{NOTE}\n").as_bytes()],
        );
        assert_eq!(out, vec![ok(NOTE, Classification::Notification)]);
    }

    #[test]
    fn too_large_lines_are_skipped_without_buffering() {
        let options = FramerOptions {
            max_message_size: 64,
            ..v1()
        };
        let small = r#"{"jsonrpc":"2.0","method":"a"}"#;
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"b","params":{{"x":"{}"}}}}"#,
            "y".repeat(200)
        );
        let stream = format!("{small}\n{big}\n{small}\n");
        let bytes = stream.as_bytes();
        for step in [1, 7, 64, 1000] {
            let mut framer = Framer::new(options);
            let mut out = Out::new();
            for chunk in bytes.chunks(step) {
                framer.push(chunk, &mut out);
                assert!(framer.buffered() <= 64);
            }
            assert_eq!(out.len(), 3, "{out:?}");
            assert_eq!(out[0], ok(small, Classification::Notification));
            let Err(e) = &out[1] else { panic!() };
            assert_eq!(e.kind, FrameErrorKind::TooLarge { limit: 64 });
            assert_eq!(e.offset, small.len() as u64 + 1);
            assert_eq!(e.line, 2);
            assert_eq!(out[2], ok(small, Classification::Notification));
        }
        // exactly at the limit is fine
        let exact = format!(r#"{{"jsonrpc":"2.0","method":"{}"}}"#, "m".repeat(64 - 29));
        assert_eq!(exact.len(), 64);
        let out = frame(options, &[format!("{exact}\n").as_bytes()]);
        assert_eq!(out, vec![ok(&exact, Classification::Notification)]);
    }

    #[test]
    fn what_json_parse_accepts_and_serde_json_does_not() {
        // overflowing numbers are ±Infinity in JS: fine where anything goes,
        // never a valid id
        let accept = [
            r#"{"jsonrpc":"2.0","method":"m","params":{"x":1e400}}"#,
            r#"{"jsonrpc":"2.0","id":1e400,"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"\ud800"}"#,
            r#"{"jsonrpc":"2.0","id":"\udc00x","method":"m","params":{"\ud800":{"\udfff":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1e-400,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.00000000000000001,"method":"m"}"#,
        ];
        for text in accept {
            assert!(
                inspect(text, Profile::V1).is_ok(),
                "{text}: {:?} / {:?}",
                inspect(text, Profile::V1),
                parse_sparse(text, &mut Sparse::default()).map_err(|e| e.to_string())
            );
        }
        let reject = [
            r#"{"jsonrpc":"2.0","id":1e400,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":-1E999,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":1e400}}}"#,
            r#"{"jsonrpc":"\ud800","method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.0000000000000002,"method":"m"}"#,
        ];
        for text in reject {
            assert!(
                matches!(inspect(text, Profile::V1), Err(Inspect::Rpc(_))),
                "{text}: {:?}",
                inspect(text, Profile::V1)
            );
        }
        // not JSON numbers, whatever Rust's float parser thinks
        for text in [
            r#"{"jsonrpc":"2.0","method":"m","params":{"x":01e400}}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":{"x":1.e400}}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":{"x":-e400}}"#,
        ] {
            assert!(
                matches!(inspect(text, Profile::V1), Err(Inspect::Json { .. })),
                "{text}"
            );
        }
        assert!(is_json_number(b"-0.5e+10"));
        assert!(is_json_number(b"0"));
        assert!(!is_json_number(b"00"));
        assert!(!is_json_number(b"1e"));
        assert!(!is_json_number(b"-"));
        // still malformed after sanitizing
        assert!(matches!(
            inspect(r#"{"jsonrpc":"\ud800","method":1e400,}"#, Profile::V1),
            Err(Inspect::Json { .. })
        ));
        // deep nesting where anything goes (serde_json's recursion limit is 128)
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"m","params":{{"x":{}1{}}}}}"#,
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert!(inspect(&deep, Profile::V1).is_ok());
    }

    #[test]
    fn profiles() {
        let v2_only = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":1.5}}}"#;
        assert!(matches!(
            inspect(v2_only, Profile::V1),
            Err(Inspect::Rpc(_))
        ));
        let (kind, both) = inspect(v2_only, Profile::V2).unwrap();
        assert_eq!(kind, Classification::Result);
        assert!(!both);
        let (_, both) = inspect(RES, Profile::V2).unwrap();
        assert!(both);
    }

    #[test]
    fn utf16_lengths() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("€"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀é"), 4);
    }

    #[test]
    fn line_spans() {
        struct Spans(Vec<Line>);
        impl FrameSink for Spans {
            fn line(&mut self, line: &Line, _outcome: LineOutcome<'_>) {
                self.0.push(*line);
            }
        }
        let mut framer = Framer::new(v1());
        let mut spans = Spans(Vec::new());
        framer.push(b"{\"a\xc3\xa9\":1}\r\n{}\n{\"b", &mut spans);
        framer.push(b"\":2}\n", &mut spans);
        let s = &spans.0;
        assert_eq!(s.len(), 3);
        assert_eq!(
            s[0],
            Line {
                offset: 0,
                number: 1,
                span: Some((0, 9)),
                terminator: 2,
                utf16_len: Some(8)
            }
        );
        assert_eq!(s[1].span, Some((11, 13)));
        assert_eq!(s[1].offset, 11);
        assert_eq!(
            s[2],
            Line {
                offset: 14,
                number: 3,
                span: None,
                terminator: 1,
                utf16_len: None
            }
        );
    }
}
