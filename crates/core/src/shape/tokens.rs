//! The tokenizer of the search by shape, the same lexical grammar as
//! `lib/shape/tokens.cjs` (which this mirrors rule for rule): comments are
//! skipped; strings, template literals (with nested substitutions), regular
//! expressions (told from division by the token before them), numbers,
//! names, private names and punctuators are handed to a [`Sink`].
//!
//! It reads a text as UTF-16 code units, as the JavaScript does (a
//! JavaScript string, copied out whole), or as UTF-8 bytes (a `Buffer`):
//! see [`Unit`]. Every character the grammar tells apart is ASCII, and no
//! byte of a multi-byte UTF-8 sequence is ASCII, so a non-ASCII character
//! read byte by byte behaves as the JavaScript's one code unit (or surrogate
//! pair) does: it belongs to a name unless it is one of JavaScript's
//! non-ASCII spaces ([`Unit::space_len`]), which both skip whole. Offsets
//! are indices of units; [`super::utf16_offsets`] turns byte offsets into
//! the JavaScript's.

/// A code unit of a text: `u16` (UTF-16, a JavaScript string's own units)
/// or `u8` (UTF-8 bytes).
pub trait Unit: Copy + Eq + 'static {
    /// The unit as a number (an ASCII character is itself in both).
    fn code(self) -> u32;
    /// The length in units of the non-ASCII space that starts at `i`
    /// (U+00A0, U+FEFF, U+2028, U+2029, U+2000-U+200A, U+1680, U+202F,
    /// U+205F, U+3000), or 0 (also past the end).
    fn space_len(s: &[Self], i: usize) -> usize;
    /// The index of the first of `a`, `b`, `c` (ASCII, or for `u8` any
    /// byte) at or after `from`.
    fn find3(s: &[Self], from: usize, a: u8, b: u8, c: u8) -> Option<usize>;
    /// The index of the first `*/` at or after `from`.
    fn find_comment_end(s: &[Self], from: usize) -> Option<usize>;
    /// Where a line comment's text from `from` ends: at a \n, \r, U+2028, U+2029, or the end.
    fn line_end(s: &[Self], from: usize) -> usize;
    /// `text` (UTF-8) in these units.
    fn encode(text: &[u8]) -> Vec<Self>;
    /// The text of `units` (invalid ones as U+FFFD).
    fn decode(units: &[Self]) -> String;
    /// The UTF-16 indices of the indices `sorted` (ascending, at character boundaries).
    fn utf16_offsets(s: &[Self], sorted: &[usize]) -> Vec<usize>;
}

impl Unit for u8 {
    #[inline]
    fn code(self) -> u32 {
        u32::from(self)
    }

    #[inline]
    fn space_len(s: &[u8], i: usize) -> usize {
        let at = |k: usize| s.get(i + k).copied().unwrap_or(0);
        match at(0) {
            0xC2 if at(1) == 0xA0 => 2,
            0xEF if at(1) == 0xBB && at(2) == 0xBF => 3,
            0xE1 if at(1) == 0x9A && at(2) == 0x80 => 3,
            0xE2 if at(1) == 0x80 && matches!(at(2), 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF) => 3,
            0xE2 if at(1) == 0x81 && at(2) == 0x9F => 3,
            0xE3 if at(1) == 0x80 && at(2) == 0x80 => 3,
            _ => 0,
        }
    }

    #[inline]
    fn find3(s: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
        let from = from.min(s.len());
        memchr::memchr3(a, b, c, &s[from..]).map(|k| from + k)
    }

    fn find_comment_end(s: &[u8], from: usize) -> Option<usize> {
        let from = from.min(s.len());
        memchr::memmem::find(&s[from..], b"*/").map(|k| from + k)
    }

    fn line_end(s: &[u8], from: usize) -> usize {
        let mut j = from;
        while let Some(at) = Self::find3(s, j, b'\n', b'\r', 0xE2) {
            if s[at] != 0xE2
                || (s.get(at + 1) == Some(&0x80) && matches!(s.get(at + 2), Some(0xA8 | 0xA9)))
            {
                return at;
            }
            j = at + 1;
        }
        s.len()
    }

    fn encode(text: &[u8]) -> Vec<u8> {
        text.to_vec()
    }

    fn decode(units: &[u8]) -> String {
        String::from_utf8_lossy(units).into_owned()
    }

    fn utf16_offsets(s: &[u8], sorted: &[usize]) -> Vec<usize> {
        super::utf16_offsets(s, sorted)
    }
}

impl Unit for u16 {
    #[inline]
    fn code(self) -> u32 {
        u32::from(self)
    }

    #[inline]
    fn space_len(s: &[u16], i: usize) -> usize {
        match s.get(i) {
            Some(
                0xA0
                | 0xFEFF
                | 0x2028
                | 0x2029
                | 0x2000..=0x200A
                | 0x1680
                | 0x202F
                | 0x205F
                | 0x3000,
            ) => 1,
            _ => 0,
        }
    }

    #[inline]
    fn find3(s: &[u16], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
        let (a, b, c) = (u16::from(a), u16::from(b), u16::from(c));
        s.get(from..)?
            .iter()
            .position(|&u| u == a || u == b || u == c)
            .map(|k| from + k)
    }

    fn find_comment_end(s: &[u16], from: usize) -> Option<usize> {
        let mut j = from;
        loop {
            let at = j + s.get(j..)?.iter().position(|&u| u == u16::from(b'*'))?;
            if s.get(at + 1) == Some(&u16::from(b'/')) {
                return Some(at);
            }
            j = at + 1;
        }
    }

    fn line_end(s: &[u16], from: usize) -> usize {
        s.get(from..)
            .and_then(|rest| {
                rest.iter()
                    .position(|&u| matches!(u, 10 | 13 | 0x2028 | 0x2029))
            })
            .map_or(s.len(), |k| from + k)
    }

    fn encode(text: &[u8]) -> Vec<u16> {
        String::from_utf8_lossy(text).encode_utf16().collect()
    }

    fn decode(units: &[u16]) -> String {
        String::from_utf16_lossy(units)
    }

    fn utf16_offsets(_: &[u16], sorted: &[usize]) -> Vec<usize> {
        sorted.to_vec()
    }
}

/// What a token is (`lib/shape/tokens.cjs`'s token types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No token yet (the start of the source).
    None,
    Id,
    Num,
    Str,
    Regex,
    Tmpl,
    Private,
    Punct,
}

/// A punctuator as a number: its bytes, little-endian (all are 1 to 4 bytes
/// long), so that telling punctuators apart is comparing integers.
pub const fn punct(p: &[u8]) -> u32 {
    let mut code = 0u32;
    let mut k = 0;
    while k < p.len() {
        code |= (p[k] as u32) << (8 * k);
        k += 1;
    }
    code
}

/// The `)` that closes the head of `if`/`while`/`for`/`with` (the
/// JavaScript's `')head'`): a `/` after it starts a regular expression.
pub const HEAD_CLOSE: u32 = punct(b")h");

/// The text of a punctuator code (`")head"` for [`HEAD_CLOSE`]).
pub fn punct_text(code: u32) -> String {
    if code == HEAD_CLOSE {
        return ")head".to_owned();
    }
    let bytes: Vec<u8> = code.to_le_bytes().into_iter().filter(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One token: its kind, its punctuator (0 unless [`Kind::Punct`], see
/// [`punct`]) and the range of its value in the source (a string's text
/// between its quotes, escapes undecoded; empty for regular expressions and
/// templates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub punct: u32,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub const NONE: Token = Token {
        kind: Kind::None,
        punct: 0,
        start: 0,
        end: 0,
    };

    /// Whether this is the punctuator `p` (a [`punct`] code).
    #[inline]
    pub fn is_punct(&self, p: u32) -> bool {
        self.kind == Kind::Punct && self.punct == p
    }

    /// Whether this is the name `word` (as written, escapes undecoded).
    #[inline]
    pub fn is_id<T: Unit>(&self, src: &[T], word: &[u8]) -> bool {
        self.kind == Kind::Id && is_word(&src[self.start..self.end], word)
    }

    /// The value's units (empty for a punctuator: see [`punct_text`]).
    #[inline]
    pub fn value<'a, T: Unit>(&self, src: &'a [T]) -> &'a [T] {
        &src[self.start..self.end]
    }
}

/// Where the tokens go (the class tracker).
pub trait Sink<T: Unit> {
    /// One token; `at` is the index where it starts.
    fn token(&mut self, src: &[T], token: Token, at: usize);
    /// The `}` that ends a template substitution and the template text after
    /// it; `more` when another substitution follows.
    fn substitution_end(&mut self, more: bool);
}

/// The source does not lex as JavaScript; the kind is the JavaScript
/// `LexError`'s message ([`LexError::text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LexError {
    Unbalanced,
    UnexpectedCharacter,
    UnterminatedComment,
    UnterminatedRegex,
    UnterminatedString,
    UnterminatedTemplate,
}

impl LexError {
    /// The JavaScript tokenizer's message for the same failure.
    pub fn text(self) -> &'static str {
        match self {
            LexError::Unbalanced => "unbalanced",
            LexError::UnexpectedCharacter => "unexpected character",
            LexError::UnterminatedComment => "unterminated comment",
            LexError::UnterminatedRegex => "unterminated regex",
            LexError::UnterminatedString => "unterminated string",
            LexError::UnterminatedTemplate => "unterminated template",
        }
    }
}

// PUNCTUATORS, PUNCT_SECOND, CONTROL_HEADS, REGEX_AFTER_WORD, LONGEST_WORD,
// DIVISION_AFTER_PUNCT: lib/shape/grammar.cjs, the lists the JavaScript
// requires, made into tables by build.rs.
include!(concat!(env!("OUT_DIR"), "/grammar.rs"));

/// The punctuators that start with `c`, longest first; empty for any other
/// character (brackets are not among them: the tokenizer reads those itself).
#[inline]
fn punctuators(c: u8) -> &'static [&'static str] {
    PUNCTUATORS.get(usize::from(c)).copied().unwrap_or(&[])
}

const SPACE: u8 = 1;
const NAME: u8 = 2;
const DIGIT: u8 = 4;

/// ASCII character classes: 1 space, 2 name start, 4 digit.
const ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let spaces = [32u8, 9, 10, 13, 11, 12];
    let mut k = 0;
    while k < spaces.len() {
        t[spaces[k] as usize] = SPACE;
        k += 1;
    }
    let mut c = b'a';
    while c <= b'z' {
        t[c as usize] = NAME;
        t[(c - 32) as usize] = NAME;
        c += 1;
    }
    t[b'$' as usize] = NAME;
    t[b'_' as usize] = NAME;
    t[b'\\' as usize] = NAME;
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = DIGIT;
        d += 1;
    }
    t
};

/// Whether the unit at `i` may start a name (past the end: no).
#[inline]
fn is_id_start<T: Unit>(s: &[T], i: usize) -> bool {
    match s.get(i) {
        None => false,
        Some(&c) if c.code() < 128 => ASCII[c.code() as usize] == NAME,
        Some(_) => T::space_len(s, i) == 0,
    }
}

/// Whether the unit at `i` may continue a name (past the end: no).
#[inline]
fn is_id_part<T: Unit>(s: &[T], i: usize) -> bool {
    match s.get(i) {
        None => false,
        Some(&c) if c.code() < 128 => ASCII[c.code() as usize] & (NAME | DIGIT) != 0,
        Some(_) => T::space_len(s, i) == 0,
    }
}

#[inline]
fn is_digit_at<T: Unit>(s: &[T], i: usize) -> bool {
    matches!(s.get(i).map(|c| c.code()), Some(0x30..=0x39))
}

/// A unit as an ASCII byte (0 for any other, and past the end: the
/// JavaScript's NaN, none of the characters looked for).
#[inline]
fn byte_at<T: Unit>(s: &[T], i: usize) -> u8 {
    match s.get(i) {
        Some(&c) if c.code() < 128 => c.code() as u8,
        _ => 0,
    }
}

/// Whether `units` are the ASCII `word`.
#[inline]
pub fn is_word<T: Unit>(units: &[T], word: &[u8]) -> bool {
    units.len() == word.len()
        && units
            .iter()
            .zip(word)
            .all(|(&u, &w)| u.code() == u32::from(w))
}

fn one_of<T: Unit>(word: &[T], words: &[&[u8]]) -> bool {
    word.len() <= LONGEST_WORD && words.iter().any(|w| is_word(word, w))
}

fn division_after_punct(p: u32) -> bool {
    DIVISION_AFTER_PUNCT.contains(&p)
}

/// An open bracket: `{`, `(`, `[` or `${`, and whether a `(` heads a control statement.
#[derive(Clone, Copy)]
struct Open {
    ch: u8,
    control: bool,
}

/// The `${` of a template substitution, as a bracket.
const SUBST: u8 = b'$';

struct Tokenizer<'a, T: Unit, S: Sink<T>> {
    src: &'a [T],
    sink: &'a mut S,
    open: Vec<Open>,
    prev: Token,
    prev2: Token,
}

/// Hands every token of `src` to `sink`; `Err` (what went wrong) when `src` does not lex.
pub fn tokenize<T: Unit, S: Sink<T>>(src: &[T], sink: &mut S) -> Result<(), LexError> {
    let mut t = Tokenizer {
        src,
        sink,
        open: Vec::new(),
        prev: Token::NONE,
        prev2: Token::NONE,
    };
    t.run()
}

impl<T: Unit, S: Sink<T>> Tokenizer<'_, T, S> {
    #[inline]
    fn emit(&mut self, token: Token, at: usize) {
        self.prev2 = self.prev;
        self.prev = token;
        self.sink.token(self.src, token, at);
    }

    #[inline]
    fn emit_punct(&mut self, p: u32, at: usize) {
        self.emit(
            Token {
                kind: Kind::Punct,
                punct: p,
                start: at,
                end: at,
            },
            at,
        );
    }

    #[inline]
    fn emit_value(&mut self, kind: Kind, start: usize, end: usize, at: usize) {
        self.emit(
            Token {
                kind,
                punct: 0,
                start,
                end,
            },
            at,
        );
    }

    /// Whether the last token was a member access (`.name`, `?.name`).
    #[inline]
    fn after_dot(&self) -> bool {
        self.prev2.is_punct(punct(b".")) || self.prev2.is_punct(punct(b"?."))
    }

    fn regex_allowed(&self) -> bool {
        match self.prev.kind {
            Kind::None => true,
            Kind::Id => one_of(self.prev.value(self.src), &REGEX_AFTER_WORD) && !self.after_dot(),
            Kind::Punct => !division_after_punct(self.prev.punct),
            _ => false,
        }
    }

    fn run(&mut self) -> Result<(), LexError> {
        let src = self.src;
        let n = src.len();
        let mut i = 0;
        if byte_at(src, 0) == b'#' && byte_at(src, 1) == b'!' {
            i = T::find3(src, 0, b'\n', b'\n', b'\n').unwrap_or(n);
        }
        while i < n {
            let code = src[i].code();
            if code >= 128 {
                let space = T::space_len(src, i);
                i = if space > 0 { i + space } else { self.name(i) };
                continue;
            }
            let c = code as u8;
            let class = ASCII[c as usize];
            i = if class == SPACE {
                i + 1
            } else if class == NAME {
                self.name(i)
            } else {
                match c {
                    b'/' => self.slash(i)?,
                    b'\'' | b'"' => self.string(i, c)?,
                    b'`' => self.template_start(i)?,
                    b'{' | b'(' | b'[' => self.open_bracket(c, i),
                    b'}' | b')' | b']' => self.close_bracket(c, i)?,
                    b'0'..=b'9' => self.number(i),
                    b'.' if is_digit_at(src, i + 1) => self.number(i),
                    b'#' if is_id_start(src, i + 1) => self.private_name(i),
                    _ => self.punctuator(i, c)?,
                }
            };
        }
        if self.open.is_empty() {
            Ok(())
        } else {
            Err(LexError::Unbalanced)
        }
    }

    /// A `/`: a comment, a regular expression, or a punctuator.
    fn slash(&mut self, i: usize) -> Result<usize, LexError> {
        let src = self.src;
        match byte_at(src, i + 1) {
            b'/' => Ok(T::line_end(src, i + 2)),
            b'*' => match T::find_comment_end(src, i + 2) {
                Some(at) => Ok(at + 2),
                None => Err(LexError::UnterminatedComment),
            },
            _ if self.regex_allowed() => self.regex(i),
            _ => self.punctuator(i, b'/'),
        }
    }

    fn regex(&mut self, i: usize) -> Result<usize, LexError> {
        let src = self.src;
        let n = src.len();
        let mut j = i + 1;
        let mut in_class = false;
        loop {
            if j >= n {
                return Err(LexError::UnterminatedRegex);
            }
            match byte_at(src, j) {
                b'\n' | b'\r' => return Err(LexError::UnterminatedRegex),
                b'\\' => j += 2,
                b'[' => {
                    in_class = true;
                    j += 1;
                }
                b']' => {
                    in_class = false;
                    j += 1;
                }
                b'/' if !in_class => {
                    j += 1;
                    break;
                }
                _ => j += 1,
            }
        }
        while is_id_part(src, j) {
            j += 1; // flags
        }
        self.emit_value(Kind::Regex, i, i, i);
        Ok(j)
    }

    fn string(&mut self, i: usize, quote: u8) -> Result<usize, LexError> {
        let src = self.src;
        let n = src.len();
        let mut j = i + 1;
        loop {
            if j >= n {
                return Err(LexError::UnterminatedString);
            }
            let e = byte_at(src, j);
            if e == quote {
                break;
            }
            if e == b'\\' {
                j += 2;
                continue;
            }
            if e == b'\n' || e == b'\r' {
                return Err(LexError::UnterminatedString);
            }
            j += 1;
        }
        self.emit_value(Kind::Str, i + 1, j, i);
        Ok(j + 1)
    }

    /// Template text from `from`: (end, sub) - after the closing backtick, or after a `${`.
    fn template_text(&self, from: usize) -> Result<(usize, bool), LexError> {
        let src = self.src;
        let n = src.len();
        let mut j = from;
        loop {
            if j >= n {
                return Err(LexError::UnterminatedTemplate);
            }
            match T::find3(src, j, b'\\', b'`', b'$') {
                None => return Err(LexError::UnterminatedTemplate),
                Some(at) => j = at,
            }
            match byte_at(src, j) {
                b'\\' => j += 2,
                b'`' => return Ok((j + 1, false)),
                _ if byte_at(src, j + 1) == b'{' => return Ok((j + 2, true)),
                _ => j += 1,
            }
        }
    }

    fn template_start(&mut self, i: usize) -> Result<usize, LexError> {
        let (end, sub) = self.template_text(i + 1)?;
        if sub {
            self.open_bracket(SUBST, i);
        } else {
            self.emit_value(Kind::Tmpl, i, i, i);
        }
        Ok(end)
    }

    fn open_bracket(&mut self, ch: u8, i: usize) -> usize {
        let control = ch == b'('
            && self.prev.kind == Kind::Id
            && one_of(self.prev.value(self.src), &CONTROL_HEADS)
            && !self.after_dot();
        self.open.push(Open { ch, control });
        let (p, len) = match ch {
            SUBST => (punct(b"${"), 2),
            _ => (u32::from(ch), 1),
        };
        self.emit_punct(p, i);
        i + len
    }

    fn close_bracket(&mut self, c: u8, i: usize) -> Result<usize, LexError> {
        let top = self.open.pop();
        if c == b'}' && matches!(top, Some(Open { ch: SUBST, .. })) {
            return self.substitution_end(i);
        }
        let Some(Open { ch, control }) = top else {
            return Err(LexError::Unbalanced);
        };
        let want = match c {
            b'}' => b'{',
            b')' => b'(',
            _ => b'[',
        };
        if ch != want {
            return Err(LexError::Unbalanced);
        }
        let p = if control { HEAD_CLOSE } else { u32::from(c) };
        self.emit_punct(p, i);
        Ok(i + 1)
    }

    /// A `}` that ends a substitution: the template goes on.
    fn substitution_end(&mut self, i: usize) -> Result<usize, LexError> {
        let (end, sub) = self.template_text(i + 1)?;
        if sub {
            self.open.push(Open {
                ch: SUBST,
                control: false,
            });
            self.prev = Token {
                kind: Kind::Punct,
                punct: punct(b"${"),
                start: i,
                end: i,
            };
        } else {
            self.prev = Token {
                kind: Kind::Tmpl,
                punct: 0,
                start: i,
                end: i,
            };
        }
        self.sink.substitution_end(sub);
        Ok(end)
    }

    fn number(&mut self, i: usize) -> usize {
        let src = self.src;
        let n = src.len();
        let hex = byte_at(src, i) == b'0' && (byte_at(src, i + 1) | 32) == b'x';
        let mut j = i + 1;
        while j < n {
            let e = byte_at(src, j);
            if is_id_part(src, j) || e == b'.' {
                j += 1;
            } else if (e == b'+' || e == b'-') && (byte_at(src, j - 1) | 32) == b'e' && !hex {
                j += 1; // 1e+5, not 0xe+5
            } else {
                break;
            }
        }
        self.emit_value(Kind::Num, i, j, i);
        j
    }

    fn private_name(&mut self, i: usize) -> usize {
        let mut j = i + 1;
        while is_id_part(self.src, j) {
            j += 1;
        }
        self.emit_value(Kind::Private, i, j, i);
        j
    }

    fn name(&mut self, i: usize) -> usize {
        let src = self.src;
        let n = src.len();
        let mut j = i + 1;
        while j < n {
            let e = src[j].code();
            if e == u32::from(b'\\') {
                j += 2;
            } else if e < 128 {
                if ASCII[e as usize] & (NAME | DIGIT) == 0 {
                    break;
                }
                j += 1;
            } else if T::space_len(src, j) == 0 {
                j += 1;
            } else {
                break;
            }
        }
        let end = j.min(n);
        self.emit_value(Kind::Id, i, end, i);
        j
    }

    fn punctuator(&mut self, i: usize, c: u8) -> Result<usize, LexError> {
        let src = self.src;
        let list = punctuators(c);
        let Some(&last) = list.last() else {
            return Err(LexError::UnexpectedCharacter);
        };
        // After a character that is no longer punctuator's second, `c` stands
        // alone (most punctuators, looked up no further).
        let mut p = last;
        if list.len() > 1 && PUNCT_SECOND[usize::from(byte_at(src, i + 1))] {
            p = list
                .iter()
                .copied()
                .find(|p| p.bytes().enumerate().all(|(k, b)| byte_at(src, i + k) == b))
                .unwrap_or(last);
        }
        // `?.` followed by a digit is `?` then a number
        if p == "?." && is_digit_at(self.src, i + 2) {
            p = "?";
        }
        let code = if p.len() == 1 {
            u32::from(c)
        } else {
            punct(p.as_bytes())
        };
        self.emit_punct(code, i);
        Ok(i + p.len())
    }
}
