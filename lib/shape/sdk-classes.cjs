'use strict';
// The search by shape's one question: which SDK classes a module's text
// defines, whatever a bundler or minifier made of their names. Every class
// body without `extends` that the locate step finds is judged by its
// members (lib/adapters/shape.cjs). Asked by register's transform
// (lib/shape/rewrite.cjs), discover's search of files on disk
// (lib/discover/discover.cjs) and the bundler plugin alike.
//
// Two locate steps give the same records: the addon's (`locateClasses`,
// crates/core/src/shape.rs: Rust, about 10x faster), used whenever the addon
// loads on this thread, and the JavaScript one (lib/shape/classes.cjs over
// lib/shape/tokens.cjs), the reference, used otherwise. The addon reads
// UTF-8, where a string's lone surrogate becomes U+FFFD: the same one code
// unit, read alike, but two names that differ only there would count as one,
// so a string whose SDK classes name a U+FFFD is located again in JavaScript.
// test/shape/native-locate.test.mjs compares the two over real packages.
// Dependency-free but for the adapter and the addon's loader: it also runs
// on a module.register() loader thread (where it opens the addon too: a
// module that reaches this step is usually a bundle, megabytes long).

const { classOfMembers, CLASS_SHAPES } = require('../adapters/shape.cjs');

/** The record of one SDK class, or undefined for any other class ({ start, open, end, methods: Set, sets: Set }). */
function recordOf(cls) {
  const what = classOfMembers(cls);
  if (what === undefined) return undefined;
  return { start: cls.start, open: cls.open, end: cls.end, methods: cls.methods, sets: cls.sets, kind: what.kind, generation: what.generation ?? 0 };
}

/** sdkClassesIn() by the JavaScript locate step (a string). */
function jsSdkClassesIn(text) {
  const classes = require('./classes.cjs').locateClasses(text);
  if (classes === undefined) return undefined;
  const found = [];
  for (const cls of classes) {
    if (cls.extends) continue;
    const record = recordOf(cls);
    if (record !== undefined) found.push(record);
  }
  return found;
}

/** sdkClassesIn() by the addon's locate step (`addon`: the addon's exports; `text` a string or a Buffer of UTF-8). */
function nativeSdkClassesIn(addon, text) {
  const classes = addon.locateClasses(text, CLASS_SHAPES);
  if (classes === null) return undefined;
  const found = [];
  for (const { start, open, end, methods, sets } of classes) {
    const record = recordOf({ start, open, end, methods: new Set(methods), sets: new Set(sets) });
    if (record !== undefined) found.push(record);
  }
  return found;
}

/** Whether a record names a member with U+FFFD in it. */
function namesReplacement({ methods, sets }) {
  for (const name of methods) if (name.includes('\ufffd')) return true;
  for (const name of sets) if (name.includes('\ufffd')) return true;
  return false;
}

// The addon's exports once it loaded on this thread, null when it does not.
let native;

function nativeAddon() {
  if (native === undefined) {
    try {
      const addon = require('../native/addon.cjs').load();
      native = typeof addon.locateClasses === 'function' ? addon : null;
    } catch {
      native = null;
    }
  }
  return native;
}

/** A shape every class has: the addon then returns every class without `extends`. */
const EVERY_CLASS = [{ methods: [], sets: [] }];

/**
 * Every class of `text` (a string) without `extends`, in source order:
 * [{ start, open, end, methods, sets }] (names each once, in order), by the
 * addon when it loads (but where a name holds U+FFFD, as sdkClassesIn()),
 * else by the JavaScript; undefined when `text` does not lex. What
 * lib/shape/blocks.cjs's proof lexes each changed class with.
 */
function classesIn(text) {
  const addon = nativeAddon();
  if (addon !== null) {
    try {
      const classes = addon.locateClasses(text, EVERY_CLASS);
      if (classes === null) return undefined;
      if (!classes.some(namesReplacement)) return classes;
    } catch {
      // An addon older than this file, or an internal error: the reference below.
    }
  }
  const classes = require('./classes.cjs').locateClasses(text);
  return classes?.filter((c) => !c.extends).map(({ start, open, end, methods, sets }) => ({ start, open, end, methods: [...methods], sets: [...sets] }));
}

/**
 * The SDK classes `text` (a string, or a Buffer of UTF-8) defines, in source
 * order: [{ start, open, end, methods, sets, kind: 'protocol' | 'stdio',
 * generation }] - `open` just after the body's `{` (offsets index the text
 * as a string), `generation` 1 or 2 for a Protocol and 0 for a stdio
 * transport. Undefined when `text` does not lex as JavaScript.
 */
function sdkClassesIn(text) {
  const addon = nativeAddon();
  if (addon !== null) {
    try {
      const found = nativeSdkClassesIn(addon, text);
      if (typeof text !== 'string' || !found?.some(namesReplacement)) return found;
    } catch {
      // An addon older than this file, or an internal error: the reference below.
    }
  }
  return jsSdkClassesIn(typeof text === 'string' ? text : text.toString('utf8'));
}

module.exports = { sdkClassesIn, classesIn, jsSdkClassesIn, nativeSdkClassesIn };
