//! The locate step of the search by shape, in Rust: the classes a module's
//! text defines whose members match one of the shapes asked for. It gives
//! what `lib/shape/classes.cjs`'s `locateClasses()` gives for those classes
//! (the JavaScript stays the reference, and `test/shape/native-locate.test.mjs`
//! compares both over real packages): [`tokens`] is the tokenizer, [`classes`]
//! the class tracker. Which shapes make an SDK class is the JavaScript
//! adapters' knowledge (`lib/adapters/shape.cjs`); the binding passes them in.

pub mod classes;
pub mod tokens;

#[cfg(test)]
mod tests;

use classes::{ClassTracker, RawClass};
use tokens::{LexError, Sink, Token, Unit};

/// Members a class body must all have: method names and names it sets.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    pub methods: Vec<Vec<u8>>,
    pub sets: Vec<Vec<u8>>,
}

/// A class (without `extends`) that has every member of one of the shapes:
/// offsets in UTF-16 code units, as a JavaScript string indexes the same text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The index of its `class` keyword.
    pub start: usize,
    /// Just after its body's `{`.
    pub open: usize,
    /// Just after its body's `}`.
    pub end: usize,
    /// Its method names, each once, in the order first met.
    pub methods: Vec<String>,
    /// The names it sets (fields, `this.x =`, define-helper calls), each once, in order.
    pub sets: Vec<String>,
}

/// Every class of `text` (UTF-16 code units or UTF-8 bytes), or `None` when
/// it does not lex as JavaScript (offsets index `text`: see [`classes::RawClass`]).
pub fn locate_classes<T: Unit>(text: &[T]) -> Option<Vec<RawClass>> {
    let mut tracker = ClassTracker::default();
    tokens::tokenize(text, &mut tracker).ok()?;
    Some(tracker.classes)
}

/// Why `text` (UTF-16 code units or UTF-8 bytes) does not lex as JavaScript,
/// or `None` when it does: what the tests hold both tokenizers to.
pub fn lex_error<T: Unit>(text: &[T]) -> Option<LexError> {
    /// A sink that keeps nothing: only whether the text lexes counts.
    struct Nothing;
    impl<T: Unit> Sink<T> for Nothing {
        fn token(&mut self, _: &[T], _: Token, _: usize) {}
        fn substitution_end(&mut self, _: bool) {}
    }
    tokens::tokenize(text, &mut Nothing).err()
}

/// The classes of `text` without `extends` that have all the members of at
/// least one of `shapes`, in source order; `None` when `text` does not lex
/// as JavaScript. `text`: a JavaScript string's UTF-16 code units (offsets
/// are then its own indices) or UTF-8 bytes (offsets are then counted in
/// UTF-16 units, as the same text decoded into a string would index it).
pub fn locate<T: Unit>(text: &[T], shapes: &[Shape]) -> Option<Vec<Located>> {
    let classes = locate_classes(text)?;
    let shapes: Vec<Encoded<T>> = shapes
        .iter()
        .map(|s| {
            let encode = |names: &[Vec<u8>]| names.iter().map(|n| T::encode(n)).collect::<Vec<_>>();
            (encode(&s.methods), encode(&s.sets))
        })
        .collect();
    let has = |names: &[Vec<T>], ranges: &[(usize, usize)]| {
        names
            .iter()
            .all(|name| ranges.iter().any(|&(s, e)| &text[s..e] == name.as_slice()))
    };
    let found: Vec<&RawClass> = classes
        .iter()
        .filter(|c| !c.extends)
        .filter(|c| {
            shapes
                .iter()
                .any(|(m, s)| has(m, &c.methods) && has(s, &c.sets))
        })
        .collect();
    let mut offsets: Vec<usize> = found
        .iter()
        .flat_map(|c| [c.start, c.open, c.end])
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    let units = T::utf16_offsets(text, &offsets);
    let unit_of = |at: usize| units[offsets.binary_search(&at).unwrap_or(0)];
    Some(
        found
            .into_iter()
            .map(|c| Located {
                start: unit_of(c.start),
                open: unit_of(c.open),
                end: unit_of(c.end),
                methods: distinct(text, &c.methods),
                sets: distinct(text, &c.sets),
            })
            .collect(),
    )
}

/// A shape's method and set names in a text's units.
type Encoded<T> = (Vec<Vec<T>>, Vec<Vec<T>>);

/// The names of `ranges`, each once, in the order first met.
fn distinct<T: Unit>(text: &[T], ranges: &[(usize, usize)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &(s, e) in ranges {
        let name = T::decode(&text[s..e]);
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The UTF-16 offsets of the byte offsets `sorted` (ascending, each at a
/// character boundary of the UTF-8 `text`): every character counts one
/// unit, those beyond U+FFFF (4 bytes) two.
pub fn utf16_offsets(text: &[u8], sorted: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(sorted.len());
    let mut units = 0usize;
    let mut at = 0usize;
    for &offset in sorted {
        let offset = offset.min(text.len()).max(at);
        units += crate::transcode::utf16_len(&text[at..offset]);
        at = offset;
        out.push(units);
    }
    out
}
