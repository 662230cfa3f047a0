'use strict';
// The class tracker of the search by shape: over the tokens of a module
// (lib/shape/tokens.cjs), it keeps one stack of open brackets and, for each
// `class` keyword that heads a class, follows its head (name, `extends`
// expression) to the brace that opens its body. Inside a body it reads the
// class elements: method names (`name(`, also after static/async/get/set/
// `*`), field names (`name =`, `name;`) and the properties the body's code
// sets on `this` (`this.name =`, and a define helper's call
// `f(this, "name", ...)`, as esbuild writes class fields).
// Generic JavaScript only: which classes matter is lib/adapters/shape.cjs's.
// Dependency-free: it also runs on a module.register() loader thread.

const { tokenize, LexError } = require('./tokens.cjs');

/** Words that may stand before a class element's name. */
const MODIFIERS = new Set(['static', 'async', 'get', 'set', 'accessor']);

class ClassTracker {
  constructor() {
    /** [{ start, open, end, extends, name, methods, fields, sets }], in source order. */
    this.classes = [];
    // Open brackets: { ch } or, for a class body, { ch: '{', cls, state, name }.
    this.stack = [];
    // A `class` keyword whose body brace has not come yet.
    this.pending = null;
    // The last three tokens.
    this.prevType = '';
    this.prevValue = '';
    this.prev2Type = '';
    this.prev2Value = '';
    this.prev3Type = '';
    this.prev3Value = '';
  }

  token(type, value, at) {
    if (type === 'punct') {
      if (value === '{' || value === '(' || value === '[' || value === '${') return this.open(value, at);
      if (value === '}' || value === ')' || value === ']' || value === ')head') return this.close(value, at);
    }
    this.see(type, value, at);
  }

  substitutionEnd(more) {
    this.stack.pop();
    if (more) this.stack.push({ ch: '${' });
    this.prevType = more ? 'punct' : 'tmpl';
    this.prevValue = more ? '${' : '';
  }

  open(ch, at) {
    let cls;
    const { pending } = this;
    if (ch === '{' && pending !== null && this.stack.length === pending.depth && !this.prevIs('id', 'extends')) {
      cls = { start: pending.start, open: at + 1, end: -1, extends: pending.extends, name: pending.name, methods: new Set(), fields: new Set(), sets: new Set() };
      this.classes.push(cls);
      this.pending = null;
    }
    this.see('punct', ch, at);
    this.stack.push(cls === undefined ? { ch } : { ch, cls, state: 'start', name: null });
  }

  close(value, at) {
    const frame = this.stack.pop();
    if (frame.cls !== undefined) frame.cls.end = at + 1;
    // Back at a class body's own level: a method body (or a static block) ended.
    const outer = this.stack[this.stack.length - 1];
    if (value === '}' && outer !== undefined && outer.cls !== undefined && outer.state === 'body') {
      outer.state = 'start';
      outer.name = null;
    }
    this.see('punct', value, at);
  }

  prevIs(type, value) {
    return this.prevType === type && this.prevValue === value;
  }

  /** The innermost class whose body holds the current token, or undefined. */
  innermostClass() {
    for (let k = this.stack.length - 1; k >= 0; k--) {
      if (this.stack[k].cls !== undefined) return this.stack[k].cls;
    }
    return undefined;
  }

  see(type, value, at) {
    const frame = this.stack[this.stack.length - 1];
    if (frame !== undefined && frame.ch === '{' && frame.cls !== undefined) this.element(frame, type, value);
    this.memberSet(type, value);
    this.classHead(type, value, at);
    this.prev3Type = this.prev2Type;
    this.prev3Value = this.prev2Value;
    this.prev2Type = this.prevType;
    this.prev2Value = this.prevValue;
    this.prevType = type;
    this.prevValue = value;
  }

  /** `this.name =` anywhere in a class body, or a define helper's call `f(this, "name", ...)` (esbuild's __publicField). */
  memberSet(type, value) {
    if (type === 'punct' && value === '=' && this.prevType === 'id' && this.prev2Type === 'punct' && this.prev2Value === '.' && this.prev3Type === 'id' && this.prev3Value === 'this') {
      this.innermostClass()?.sets.add(this.prevValue);
    } else if (type === 'str' && this.prevIs('punct', ',') && this.prev2Type === 'id' && this.prev2Value === 'this' && this.prev3Type === 'punct' && this.prev3Value === '(') {
      this.innermostClass()?.sets.add(value);
    }
  }

  /** A class head: `class`, its name, `extends`; a `class` that turns out to be a property name is dropped. */
  classHead(type, value, at) {
    const { pending } = this;
    const afterClass = this.prevIs('id', 'class');
    if (pending !== null && this.stack.length === pending.depth && !(type === 'punct' && value === '{')) {
      if (type === 'id' && value === 'extends') pending.extends = true;
      else if (type === 'id' && pending.name === null && !pending.extends && afterClass) pending.name = value;
      else if (!pending.extends && !afterClass) this.pending = null; // `class` was a property name (`{ class: 1 }`, `class()`)
      else if (afterClass && type === 'punct') this.pending = null;
    }
    if (type === 'id' && value === 'class' && !(this.prevType === 'punct' && (this.prevValue === '.' || this.prevValue === '?.'))) {
      this.pending = { start: at, depth: this.stack.length, extends: false, name: null };
    }
  }

  /** A token at a class body's own level: its elements' names. */
  element(frame, type, value) {
    const { cls, state } = frame;
    if (state === 'method') {
      if (type === 'punct' && value === '{') frame.state = 'body';
      return;
    }
    if (state === 'field') {
      if (type === 'punct' && value === ';') {
        frame.state = 'start';
        frame.name = null;
      }
      return;
    }
    if (state !== 'start' && state !== 'name') return;
    if (type === 'punct') {
      if (value === ';') {
        if (state === 'name' && frame.name !== null) cls.fields.add(frame.name);
        frame.state = 'start';
        frame.name = null;
      } else if (value === '(') {
        if (frame.name !== null) cls.methods.add(frame.name);
        frame.state = 'method';
      } else if (value === '=') {
        if (frame.name !== null) {
          cls.fields.add(frame.name);
          cls.sets.add(frame.name);
        }
        frame.state = 'field';
      } else if (value === '[') {
        frame.name = null;
      } else if (value === '{') {
        frame.state = 'body'; // static { ... }: this brace opens the block
      }
    } else if (type === 'id' || type === 'str' || type === 'num' || type === 'private') {
      // `name` then another name: a field without `;` (ASI) before it.
      if (state === 'name' && frame.name !== null && !MODIFIERS.has(frame.name)) cls.fields.add(frame.name);
      frame.name = value;
      frame.state = 'name';
    }
  }
}

/**
 * Every class in `source` (a string): [{ start, open, end, extends, name,
 * methods: Set, fields: Set, sets: Set }] - `start` the index of its `class`
 * keyword, `open` the index just after its body's `{`, `end` just after its
 * `}`. Undefined when the source does not lex as JavaScript (an
 * unterminated string, template, comment or regular expression, unbalanced
 * brackets): nothing in it is then trusted.
 */
function locateClasses(source) {
  const tracker = new ClassTracker();
  try {
    tokenize(source, tracker);
  } catch (error) {
    if (error instanceof LexError) return undefined;
    throw error;
  }
  return tracker.classes;
}

module.exports = { locateClasses };
