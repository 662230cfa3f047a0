//! The class tracker of the search by shape, mirroring
//! `lib/shape/classes.cjs` rule for rule: over the tokens of a module
//! ([`super::tokens`]) it keeps one stack of open brackets and, for each
//! `class` keyword that heads a class, follows its head (name, `extends`) to
//! the brace that opens its body. Inside a body it reads the method names
//! (`name(`, also after static/async/get/set/`*`), field names (`name =`)
//! and the properties the body's code sets on `this` (`this.name =`, and a
//! define helper's call `f(this, "name", ...)`, as esbuild writes class
//! fields). Member names are kept as ranges of the source. (The
//! JavaScript also keeps field names without a set; nothing reads them, so
//! they are not kept here.)

use super::tokens::{punct, Kind, Sink, Token, Unit, HEAD_CLOSE};

const OPEN_BRACE: u32 = punct(b"{");
const CLOSE_BRACE: u32 = punct(b"}");
const OPEN_PAREN: u32 = punct(b"(");
const CLOSE_PAREN: u32 = punct(b")");
const OPEN_BRACKET: u32 = punct(b"[");
const CLOSE_BRACKET: u32 = punct(b"]");
const SUBSTITUTION: u32 = punct(b"${");
const DOT: u32 = punct(b".");
const OPTIONAL_DOT: u32 = punct(b"?.");
const ASSIGN: u32 = punct(b"=");
const COMMA: u32 = punct(b",");
const SEMICOLON: u32 = punct(b";");

/// A class the tracker found; offsets are indices of the text's units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawClass {
    /// The offset of its `class` keyword.
    pub start: usize,
    /// Just after its body's `{`.
    pub open: usize,
    /// Just after its body's `}` (`usize::MAX` until it is seen).
    pub end: usize,
    pub extends: bool,
    /// Method names, as source ranges, in the order met (repeats kept).
    pub methods: Vec<(usize, usize)>,
    /// Names set on `this` or as fields, as source ranges, in the order met.
    pub sets: Vec<(usize, usize)>,
}

/// Where a class body's reader is (`element` in the JavaScript).
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Name,
    Method,
    Field,
    Body,
}

/// No class on a frame.
const NO_CLASS: usize = usize::MAX;

#[derive(Clone, Copy)]
struct Frame {
    /// `{`, `(`, `[` or `$` (a template substitution).
    ch: u8,
    cls: usize,
    state: State,
    /// The name read last at a class body's own level (a value's byte range).
    name: Option<(usize, usize)>,
}

/// A `class` keyword whose body brace has not come yet.
#[derive(Clone, Copy)]
struct Pending {
    start: usize,
    depth: usize,
    extends: bool,
    named: bool,
}

/// The tracker: a [`Sink`] of the tokenizer.
#[derive(Default)]
pub struct ClassTracker {
    pub classes: Vec<RawClass>,
    stack: Vec<Frame>,
    /// Indices into `stack` of the frames that are class bodies.
    class_frames: Vec<usize>,
    pending: Option<Pending>,
    prev: Option<Token>,
    prev2: Option<Token>,
    prev3: Option<Token>,
}

#[inline]
fn is_punct(t: &Option<Token>, p: u32) -> bool {
    matches!(t, Some(t) if t.is_punct(p))
}

#[inline]
fn is_id<T: Unit>(t: &Option<Token>, src: &[T], word: &[u8]) -> bool {
    matches!(t, Some(t) if t.is_id(src, word))
}

#[inline]
fn kind_of(t: &Option<Token>) -> Option<Kind> {
    t.map(|t| t.kind)
}

/// The value range of a token that names an element (id, str, num, private).
#[inline]
fn range_of(t: &Token) -> (usize, usize) {
    (t.start, t.end)
}

impl<T: Unit> Sink<T> for ClassTracker {
    fn token(&mut self, src: &[T], token: Token, at: usize) {
        if token.kind == Kind::Punct {
            match token.punct {
                OPEN_BRACE | OPEN_PAREN | OPEN_BRACKET | SUBSTITUTION => {
                    return self.open(src, token, at)
                }
                CLOSE_BRACE | CLOSE_PAREN | CLOSE_BRACKET | HEAD_CLOSE => {
                    return self.close(src, token, at)
                }
                _ => {}
            }
        }
        self.see(src, token, at);
    }

    fn substitution_end(&mut self, more: bool) {
        self.pop();
        let prev = if more {
            self.push(Frame {
                ch: b'$',
                cls: NO_CLASS,
                state: State::Start,
                name: None,
            });
            Token {
                kind: Kind::Punct,
                punct: SUBSTITUTION,
                start: 0,
                end: 0,
            }
        } else {
            Token {
                kind: Kind::Tmpl,
                punct: 0,
                start: 0,
                end: 0,
            }
        };
        self.prev = Some(prev);
    }
}

impl ClassTracker {
    fn push(&mut self, frame: Frame) {
        if frame.cls != NO_CLASS {
            self.class_frames.push(self.stack.len());
        }
        self.stack.push(frame);
    }

    fn pop(&mut self) -> Option<Frame> {
        let frame = self.stack.pop()?;
        if frame.cls != NO_CLASS {
            self.class_frames.pop();
        }
        Some(frame)
    }

    fn open<T: Unit>(&mut self, src: &[T], token: Token, at: usize) {
        let mut cls = NO_CLASS;
        if token.punct == OPEN_BRACE {
            if let Some(p) = self.pending {
                if self.stack.len() == p.depth && !is_id(&self.prev, src, b"extends") {
                    cls = self.classes.len();
                    self.classes.push(RawClass {
                        start: p.start,
                        open: at + 1,
                        end: usize::MAX,
                        extends: p.extends,
                        methods: Vec::new(),
                        sets: Vec::new(),
                    });
                    self.pending = None;
                }
            }
        }
        self.see(src, token, at);
        let ch = match token.punct {
            SUBSTITUTION => b'$',
            other => other as u8,
        };
        self.push(Frame {
            ch,
            cls,
            state: State::Start,
            name: None,
        });
    }

    fn close<T: Unit>(&mut self, src: &[T], token: Token, at: usize) {
        if let Some(frame) = self.pop() {
            if frame.cls != NO_CLASS {
                self.classes[frame.cls].end = at + 1;
            }
        }
        // Back at a class body's own level: a method body (or a static block) ended.
        if token.punct == CLOSE_BRACE {
            if let Some(outer) = self.stack.last_mut() {
                if outer.cls != NO_CLASS && outer.state == State::Body {
                    outer.state = State::Start;
                    outer.name = None;
                }
            }
        }
        self.see(src, token, at);
    }

    /// The innermost class whose body holds the current token.
    fn innermost_class(&self) -> Option<usize> {
        self.class_frames.last().map(|&k| self.stack[k].cls)
    }

    fn see<T: Unit>(&mut self, src: &[T], token: Token, at: usize) {
        let top = self.stack.len().wrapping_sub(1);
        if let Some(frame) = self.stack.get(top) {
            if frame.ch == b'{' && frame.cls != NO_CLASS {
                self.element(top, &token);
            }
        }
        self.member_set(src, &token);
        self.class_head(src, &token, at);
        self.prev3 = self.prev2;
        self.prev2 = self.prev;
        self.prev = Some(token);
    }

    /// `this.name =` anywhere in a class body, or `f(this, "name", ...)`.
    fn member_set<T: Unit>(&mut self, src: &[T], token: &Token) {
        let name = if token.is_punct(ASSIGN)
            && kind_of(&self.prev) == Some(Kind::Id)
            && is_punct(&self.prev2, DOT)
            && is_id(&self.prev3, src, b"this")
        {
            self.prev.map(|t| range_of(&t))
        } else if token.kind == Kind::Str
            && is_punct(&self.prev, COMMA)
            && is_id(&self.prev2, src, b"this")
            && is_punct(&self.prev3, OPEN_PAREN)
        {
            Some(range_of(token))
        } else {
            None
        };
        if let (Some(name), Some(cls)) = (name, self.innermost_class()) {
            self.classes[cls].sets.push(name);
        }
    }

    /// A class head: `class`, its name, `extends`; a `class` that turns out to be a property name is dropped.
    fn class_head<T: Unit>(&mut self, src: &[T], token: &Token, at: usize) {
        let after_class = is_id(&self.prev, src, b"class");
        if let Some(p) = self.pending.as_mut() {
            if self.stack.len() == p.depth && !token.is_punct(OPEN_BRACE) {
                if token.is_id(src, b"extends") {
                    p.extends = true;
                } else if token.kind == Kind::Id && !p.named && !p.extends && after_class {
                    p.named = true;
                } else if (!p.extends && !after_class) || (after_class && token.kind == Kind::Punct)
                {
                    self.pending = None;
                }
            }
        }
        if token.is_id(src, b"class")
            && !(is_punct(&self.prev, DOT) || is_punct(&self.prev, OPTIONAL_DOT))
        {
            self.pending = Some(Pending {
                start: at,
                depth: self.stack.len(),
                extends: false,
                named: false,
            });
        }
    }

    /// A token at a class body's own level: its elements' names.
    fn element(&mut self, k: usize, token: &Token) {
        let frame = &mut self.stack[k];
        let cls = &mut self.classes[frame.cls];
        match frame.state {
            State::Method => {
                if token.is_punct(OPEN_BRACE) {
                    frame.state = State::Body;
                }
                return;
            }
            State::Field => {
                if token.is_punct(SEMICOLON) {
                    frame.state = State::Start;
                    frame.name = None;
                }
                return;
            }
            State::Body => return,
            State::Start | State::Name => {}
        }
        match token.kind {
            Kind::Punct => match token.punct {
                SEMICOLON => {
                    frame.state = State::Start;
                    frame.name = None;
                }
                OPEN_PAREN => {
                    if let Some(name) = frame.name {
                        cls.methods.push(name);
                    }
                    frame.state = State::Method;
                }
                ASSIGN => {
                    if let Some(name) = frame.name {
                        cls.sets.push(name);
                    }
                    frame.state = State::Field;
                }
                OPEN_BRACKET => frame.name = None,
                OPEN_BRACE => frame.state = State::Body, // static { ... }
                _ => {}
            },
            Kind::Id | Kind::Str | Kind::Num | Kind::Private => {
                frame.name = Some(range_of(token));
                frame.state = State::Name;
            }
            _ => {}
        }
    }
}
