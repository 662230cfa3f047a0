'use strict';
// The class receiver's call the search by shape inserts: a static block right after the
// `{` of each SDK class body it found,
//
//   static{try{typeof globalThis.<global>=="function"&&globalThis.<global>("protocol",2,"<file>",this)}catch{}}
//
// It runs once, as the class is defined, before any instance exists - in a
// `var X = class`, an esbuild lazy-init wrapper, a webpack module closure, a
// rollup or bun chunk, named or anonymous - and hands the class to whoever
// defined the global (register: lib/register/hooks.cjs). Without it the
// block does nothing.
// Dependency-free: it also runs on a module.register() loader thread.

/** Non-ASCII as \u escapes, so the inserted text is plain ASCII whatever the path. */
function asciiJson(value) {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The static block for one class. */
function block(global, kind, generation, file) {
  return `${blockHead(global)}"function"&&globalThis.${global}(${asciiJson(kind)},${generation},${asciiJson(file)},this)}catch{}}`;
}

/** What every block calling `global` starts with. */
function blockHead(global) {
  return `static{try{typeof globalThis.${global}==`;
}

/** Whether the class body opening at `open` starts with a block calling one of `globals` (as inserted, or as a bundler printed it again). */
function hasBlock(text, open, globals) {
  const head = /^\s*static\s*\{\s*try\s*\{\s*typeof\s+globalThis\.([\w$]+)/.exec(text.slice(open, open + 200));
  return head !== null && globals.includes(head[1]);
}

/** The insertions for `at` ([[offset, kind, generation]], by offset): [[offset, block]], for a caller that records them (a source map). */
function blocksAt(at, global, file) {
  return at.map(([offset, kind, generation]) => [offset, block(global, kind, generation, file)]);
}

/** `text` with a block at each of `at` ([[offset, kind, generation]], by offset). */
function insertBlocks(text, at, global, file) {
  let out = '';
  let last = 0;
  for (const [offset, inserted] of blocksAt(at, global, file)) {
    out += text.slice(last, offset) + inserted;
    last = offset;
  }
  return out + text.slice(last);
}

/**
 * Whether `changed` (= insertBlocks(text, at, ...)) is still sound; `found`:
 * the classes sdkClassesIn() found in the text. A block is one balanced run
 * of tokens ending in `}`, put right after a class body's `{`: after either
 * brace the tokenizer reads what follows alike (a `/` starts a regular
 * expression after both), so the rest of the module lexes as it did, and
 * what is left to prove is each changed class itself: lexed on its own (by
 * the same locate step as the text, lib/shape/sdk-classes.cjs), it
 * must be one class with the same members and the block as its first
 * element, and it must compile in V8 as a class expression (compiled, not
 * run). A CommonJS module ('commonjs') must also compile whole, as Node will
 * wrap it (V8 parses an ES module, 'module', only to run it, so there the
 * classes are what is proven). Where only the syntax decides the format
 * (`format` undefined: compilesAsCommonJs() below), `changed` must compile whole
 * as CommonJS unless `original` does not: then Node runs both as ES modules.
 */
function verifyBlocks(found, changed, at, global, file, format, original) {
  const vm = require('node:vm');
  const { classesIn } = require('./sdk-classes.cjs');
  const byOpen = new Map(found.map((cls) => [cls.open, cls]));
  let shift = 0;
  for (const [offset, kind, generation] of at) {
    const cls = byOpen.get(offset);
    const inserted = block(global, kind, generation, file);
    if (cls === undefined || cls.end < 0) return false;
    const text = changed.slice(cls.start + shift, cls.end + shift + inserted.length);
    shift += inserted.length;
    // (A class with `extends` is not among them: the first then starts later, or there is none.)
    const top = classesIn(text)?.[0];
    if (top === undefined || top.start !== 0 || top.end !== text.length) return false;
    if (top.methods.length !== cls.methods.size || top.sets.length !== cls.sets.size) return false;
    if (!text.startsWith(inserted, top.open)) return false;
    try {
      new vm.Script(`(${text})`);
    } catch {
      return false;
    }
  }
  if (format === 'module') return true;
  if (compilesAsCommonJs(changed)) return true;
  // Undecided (a format only the syntax decides): the changed text is run as an ES module exactly when the original is.
  return format === undefined && !compilesAsCommonJs(original);
}

/**
 * Whether `text` compiles as a CommonJS module body, as Node wraps one (a
 * leading `#!` line is a comment to Node). Where a module's package.json
 * names no `type` (a `.js` file, an extensionless main script), Node hands
 * the load hooks no format and decides by this: it runs the text as an ES
 * module only when it does not compile so, on module syntax. The one place
 * that compile is written: the proof above, and the formats by syntax of
 * lib/discover/package-of.cjs and lib/register/bun-disk.cjs. Not
 * parenthesized: V8 then pre-parses the body (every syntax error, no code
 * made), about 40% less than compiling it.
 */
function compilesAsCommonJs(text) {
  try {
    const body = text.startsWith('#!') ? `//${text.slice(2)}` : text;
    new (require('node:vm').Script)(`void function (exports, require, module, __filename, __dirname) {${body}\n}`);
    return true;
  } catch {
    return false;
  }
}

module.exports = { insertBlocks, blocksAt, verifyBlocks, hasBlock, compilesAsCommonJs };
