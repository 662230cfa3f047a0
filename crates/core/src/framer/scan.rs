//! The envelope scan: what the classifier reads of a line (the same
//! [`Sparse`] as the validating serde visitor of `sparse.rs`), without
//! checking the syntax of the values it skips (tool arguments, results,
//! content). Those are checked by V8's `JSON.parse` of the batch in
//! JavaScript; when that throws, the binding runs the validating path on
//! each line again (see the binding's `StdioFramer.recheck`).
//!
//! Contract, relied on by the binding:
//! * `Some(sparse)` for a line that is valid JSON is exactly what
//!   `parse_sparse` fills (the unit and property tests compare them);
//! * `Some(_)` is only returned when the line is, apart from leading and
//!   trailing JSON whitespace, one object whose closing brace (matched by
//!   counting brackets outside strings, strings delimited as a JSON parser
//!   delimits them) is its last byte; so a JSON array text made of such
//!   lines parses only if every line is valid JSON on its own, and then each
//!   element is exactly one line;
//! * every escape it skips is one of JSON's (`\"`, `\\`, `\/`, `\b`, `\f`,
//!   `\n`, `\r`, `\t`, `\u` and four hex digits): a backslash before any other
//!   byte (a non-ASCII one in particular) makes it return `None`;
//! * `None` for anything else, or anything unusual (an escape in a key or in
//!   a string the classifier reads that serde cannot decode, a number that
//!   overflows f64, a non-JSON-number token where a number is read, ...):
//!   the caller then runs the validating parse, which decides as before.

use std::borrow::Cow;

use super::sparse::{ErrorObject, Leaf, Meta, Sparse, Task, WithMeta};
use crate::boundary::{KEY_ERROR, KEY_ID, KEY_JSONRPC, KEY_METHOD, KEY_PARAMS, KEY_RESULT};
use crate::classify::RELATED_TASK_META_KEY;

/// Scans `text` into `m` (a fresh [`Sparse`], filled in place: the struct
/// is a few hundred bytes); see the module docs.
pub(super) fn scan_envelope<'a>(text: &'a str, m: &mut Sparse<'a>) -> Option<()> {
    let mut s = Scanner {
        b: text.as_bytes(),
        text,
        i: 0,
    };
    s.ws();
    if s.peek()? != b'{' {
        return None;
    }
    s.i += 1;
    s.members(|s, key| {
        match key.as_ref() {
            "jsonrpc" => {
                m.keys |= KEY_JSONRPC;
                m.jsonrpc = s.leaf()?;
            }
            "id" => {
                m.keys |= KEY_ID;
                m.id = s.leaf()?;
            }
            "method" => {
                m.keys |= KEY_METHOD;
                m.method = s.leaf()?;
            }
            "result" => {
                m.keys |= KEY_RESULT;
                s.with_meta(&mut m.result)?;
            }
            "error" => {
                m.keys |= KEY_ERROR;
                s.error(&mut m.error)?;
            }
            "params" => {
                m.keys |= KEY_PARAMS;
                s.with_meta(&mut m.params)?;
            }
            _ => {
                if m.unknown.is_none() {
                    m.unknown = Some(key);
                }
                s.skip_value()?;
            }
        }
        Some(())
    })?;
    s.ws();
    (s.i == s.b.len()).then_some(())
}

struct Scanner<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
}

#[inline]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Scanner<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if !is_ws(c) {
                break;
            }
            self.i += 1;
        }
    }

    /// After an object's `{`: each member's key (decoded) to `f`, which reads
    /// or skips its value; up to and including the `}`.
    fn members<F>(&mut self, mut f: F) -> Option<()>
    where
        F: FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    {
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.i += 1;
            self.ws();
            f(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Skips a string from its opening quote; returns its raw contents
    /// (between the quotes) and whether it has escapes.
    #[inline]
    fn raw_string(&mut self) -> Option<(usize, usize, bool)> {
        let start = self.i + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = find_quote_or_backslash(self.b, i)?;
            if self.b[i] == b'"' {
                self.i = i + 1;
                return Some((start, i, escaped));
            }
            escaped = true;
            i += match self.b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                b'u' => {
                    let hex = self.b.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    6
                }
                _ => return None,
            };
        }
    }

    /// A string the classifier reads, decoded as serde_json decodes it.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let open = self.i;
        let (start, end, escaped) = self.raw_string()?;
        if !escaped {
            // (A control character makes the line invalid JSON: JSON.parse
            // refuses it and the recheck reports it, whatever is read here.)
            return Some(Cow::Borrowed(&self.text[start..end]));
        }
        // Rare: serde_json decodes it (None for what it refuses, such as an
        // unpaired surrogate: the validating parse then decides).
        serde_json::from_str::<String>(&self.text[open..self.i])
            .ok()
            .map(Cow::Owned)
    }

    /// A value the classifier reads as a [`Leaf`].
    fn leaf(&mut self) -> Option<Leaf<'a>> {
        Some(match self.peek()? {
            b'"' => Leaf::Str(self.string()?),
            b'{' => {
                self.skip_value()?;
                Leaf::Object
            }
            b'[' => {
                self.skip_value()?;
                Leaf::Array
            }
            b't' => self.literal(b"true", Leaf::Bool)?,
            b'f' => self.literal(b"false", Leaf::Bool)?,
            b'n' => self.literal(b"null", Leaf::Null)?,
            _ => Leaf::Num(self.number()?),
        })
    }

    fn literal(&mut self, word: &[u8], leaf: Leaf<'a>) -> Option<Leaf<'a>> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Some(leaf)
        } else {
            None
        }
    }

    /// A JSON number, as serde_json (with `float_roundtrip`) reads it: the
    /// correctly rounded f64. One that overflows is left to the validating
    /// parse (which neutralises it; see `sanitize.rs`).
    fn number(&mut self) -> Option<f64> {
        let start = self.i;
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                break;
            }
            self.i += 1;
        }
        let token = &self.b[start..self.i];
        if !token.is_empty() && token.len() <= 15 && token.iter().all(u8::is_ascii_digit) {
            // A small non-negative integer (most ids): exact in f64.
            if token[0] == b'0' && token.len() > 1 {
                return None;
            }
            return Some(
                token
                    .iter()
                    .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64,
            );
        }
        if !super::sanitize::is_json_number(token) {
            return None;
        }
        let n: f64 = self.text[start..self.i].parse().ok()?;
        n.is_finite().then_some(n)
    }

    /// `result` or `params`: only `_meta` is read.
    /// (Each reader resets its target first: a repeated key's last value
    /// wins, as in `JSON.parse`.)
    fn with_meta(&mut self, w: &mut WithMeta<'a>) -> Option<()> {
        *w = WithMeta::default();
        if self.peek()? != b'{' {
            w.kind = self.leaf()?;
            return Some(());
        }
        self.i += 1;
        w.kind = Leaf::Object;
        self.members(|s, key| {
            if key == "_meta" {
                s.meta(&mut w.meta)?;
            } else {
                w.extra = true;
                s.skip_value()?;
            }
            Some(())
        })
    }

    fn meta(&mut self, m: &mut Meta<'a>) -> Option<()> {
        *m = Meta::default();
        if self.peek()? != b'{' {
            m.kind = self.leaf()?;
            return Some(());
        }
        self.i += 1;
        m.kind = Leaf::Object;
        self.members(|s, key| {
            if key == "progressToken" {
                m.progress_token = s.leaf()?;
            } else if key == RELATED_TASK_META_KEY {
                s.task(&mut m.task)?;
            } else {
                m.extra = true;
                s.skip_value()?;
            }
            Some(())
        })
    }

    fn task(&mut self, t: &mut Task<'a>) -> Option<()> {
        *t = Task::default();
        if self.peek()? != b'{' {
            t.kind = self.leaf()?;
            return Some(());
        }
        self.i += 1;
        t.kind = Leaf::Object;
        self.members(|s, key| {
            if key == "taskId" {
                t.task_id = s.leaf()?;
            } else {
                t.extra = true;
                s.skip_value()?;
            }
            Some(())
        })
    }

    fn error(&mut self, e: &mut ErrorObject<'a>) -> Option<()> {
        *e = ErrorObject::default();
        if self.peek()? != b'{' {
            e.kind = self.leaf()?;
            return Some(());
        }
        self.i += 1;
        e.kind = Leaf::Object;
        self.members(|s, key| {
            match key.as_ref() {
                "code" => e.code = s.leaf()?,
                "message" => e.message = s.leaf()?,
                "data" => s.skip_value()?,
                _ => {
                    e.extra = true;
                    s.skip_value()?;
                }
            }
            Some(())
        })
    }

    /// Skips a value the classifier does not read, without checking its
    /// syntax beyond what the module docs promise: strings are delimited
    /// exactly, containers by counting brackets outside strings.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.raw_string()?;
            }
            b'{' | b'[' => self.skip_container()?,
            _ => {
                // A scalar: up to the next delimiter. Its syntax is V8's to
                // check; a quote cannot be part of one.
                while let Some(&c) = self.b.get(self.i) {
                    match c {
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' => break,
                        b'"' | b'{' | b'[' => return None,
                        _ => self.i += 1,
                    }
                }
            }
        }
        Some(())
    }

    /// From a `{` or `[` to its matching close.
    fn skip_container(&mut self) -> Option<()> {
        let mut depth = 0usize;
        let b = self.b;
        let mut i = self.i;
        loop {
            let c = *b.get(i)?;
            match CLASS[c as usize] {
                OPEN => {
                    depth += 1;
                    i += 1;
                }
                CLOSE => {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        self.i = i;
                        return Some(());
                    }
                }
                QUOTE => {
                    self.i = i;
                    self.raw_string()?;
                    i = self.i;
                }
                BACKSLASH => return None,
                _ => i += 1,
            }
        }
    }
}

/// The first `"` or `\\` at or after `i`: eight bytes at a time (most
/// strings of a message are short, and a call into memchr costs more than
/// scanning them), then memchr2 for a long one.
#[inline]
fn find_quote_or_backslash(b: &[u8], mut i: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let near = b.len().min(i + 64);
    while i + 8 <= near {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let q = w ^ (ONES * b'"' as u64);
        let s = w ^ (ONES * b'\\' as u64);
        // A zero byte of q or s: the lowest flagged byte is exact.
        let hit = (q.wrapping_sub(ONES) & !q | s.wrapping_sub(ONES) & !s) & HIGH;
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    if i < near {
        for (j, &c) in b[i..near].iter().enumerate() {
            if c == b'"' || c == b'\\' {
                return Some(i + j);
            }
        }
        i = near;
    }
    memchr::memchr2(b'"', b'\\', &b[i..]).map(|j| i + j)
}

const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const QUOTE: u8 = 3;
const BACKSLASH: u8 = 4;

/// The bytes `skip_container` stops at.
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    t[b'{' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b'"' as usize] = QUOTE;
    t[b'\\' as usize] = BACKSLASH;
    t
};
