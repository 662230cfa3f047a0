//! `locateClasses(text, shapes)`: the search by shape's locate step over the
//! core's tokenizer and class tracker (`mcp_ordered_dispatch_core::shape`),
//! for `lib/shape/sdk-classes.cjs`. `text` is a string (read as its UTF-16
//! code units: copying them out costs a fraction of a UTF-8 conversion) or a
//! `Buffer` of UTF-8 (invalid sequences read as U+FFFD, as
//! `buffer.toString('utf8')` reads them); `shapes` is `[{ methods, sets }]`, the member names a class
//! must all have (`lib/adapters/shape.cjs`'s). Returns `null` when the text
//! does not lex as JavaScript, else the matching classes without `extends`,
//! in source order: `[{ start, open, end, methods, sets }]`, offsets in
//! UTF-16 code units (a JavaScript string's indices), names each once.

use mcp_ordered_dispatch_core::shape::{lex_error, locate, Shape};
use napi::bindgen_prelude::{BufferSlice, Either, Utf16String};
use napi::Result;
use napi_derive::napi;

use crate::napi_support::guarded;

/// The member names a class must all have.
#[napi(object)]
pub struct ClassShape {
    pub methods: Vec<String>,
    pub sets: Vec<String>,
}

/// A class found: offsets in UTF-16 code units.
#[napi(object)]
pub struct LocatedClass {
    pub start: u32,
    pub open: u32,
    pub end: u32,
    pub methods: Vec<String>,
    pub sets: Vec<String>,
}

#[napi(js_name = "locateClasses")]
pub fn locate_classes(
    text: Either<Utf16String, BufferSlice>,
    shapes: Vec<ClassShape>,
) -> Result<Option<Vec<LocatedClass>>> {
    guarded("locateClasses()", || {
        let shapes: Vec<Shape> = shapes
            .into_iter()
            .map(|s| Shape {
                methods: s.methods.into_iter().map(String::into_bytes).collect(),
                sets: s.sets.into_iter().map(String::into_bytes).collect(),
            })
            .collect();
        let found = match &text {
            Either::A(units) => locate(&units[..], &shapes),
            Either::B(bytes) => locate(String::from_utf8_lossy(&bytes[..]).as_bytes(), &shapes),
        };
        let unit = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(found.map(|classes| {
            classes
                .into_iter()
                .map(|c| LocatedClass {
                    start: unit(c.start),
                    open: unit(c.open),
                    end: unit(c.end),
                    methods: c.methods,
                    sets: c.sets,
                })
                .collect()
        }))
    })
}

/// Why `text` does not lex as JavaScript, as `lib/shape/tokens.cjs`'s
/// `LexError` words it (`'unterminated string'`, ...), or `null` when it
/// lexes: for the tests that hold both tokenizers to the same failures
/// (`test/shape/mutations.test.mjs`).
#[napi(js_name = "lexFailure")]
pub fn lex_failure(text: Utf16String) -> Result<Option<String>> {
    guarded("lexFailure()", || {
        Ok(lex_error(&text[..]).map(|e| e.text().to_owned()))
    })
}
