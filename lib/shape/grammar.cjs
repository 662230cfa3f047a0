'use strict';
// The lists both tokenizers of the search by shape are made of, written once:
// lib/shape/tokens.cjs requires this file, and crates/core/build.rs reads it
// (the object after `module.exports =`, which must stay JSON) into the Rust
// tokenizer's tables (crates/core/src/shape/tokens.rs).
//   punctuators: every punctuator but the brackets (each tokenizer reads
//     those on its own), longest first within each first character;
//   controlHeads: keywords whose parenthesized head a statement follows
//     (after its `)` a `/` starts a regular expression);
//   regexAfterWord: keywords after which a `/` starts a regular expression;
//   divisionAfterPunct: punctuators after which a `/` is division. After a
//     `}` it starts a regular expression: a block or body ended and a
//     statement begins (a template substitution's `}` is the template's, and
//     an object literal is not divided).
// test/shape/cases.mjs and crates/core/src/shape/tests.rs run every entry
// through both tokenizers.
module.exports = {
  "punctuators": [
    ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
    "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>",
    ";", ",", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?", ":", "=", ".", "@", "#"
  ],
  "controlHeads": ["if", "while", "for", "with"],
  "regexAfterWord": ["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await", "extends"],
  "divisionAfterPunct": [")", "]", "++", "--"]
};
