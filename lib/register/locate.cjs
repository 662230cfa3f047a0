'use strict';
// The locate step: a JavaScript lexer that finds every class body in a
// module's source and what each defines, exactly, wherever braces and
// member names also appear inside strings, template literals, regular
// expression literals and comments (as they do in real bundles).
//
// It tokenizes the whole source once (comments, strings, templates with
// nested substitutions, regular expressions told from division by the
// token before them, numbers, names, punctuators), keeps one stack of
// open brackets, and for each `class` keyword that heads a class follows
// its head (name, `extends` expression) to the brace that opens its body.
// Inside a body it reads the class elements: method names (`name(`, also
// after static/async/get/set/`*`), field names (`name =`, `name;`) and the
// properties the body's code sets on `this` (`this.name =`, and a define
// helper's call `f(this, "name", ...)`, as esbuild writes class fields).
//
// Generic JavaScript only: which classes matter is lib/adapters/shape.cjs's.
// Dependency-free: it also runs on a module.register() loader thread.
// Loaded only for a module that passed the prefilter.

/** Keywords whose parenthesized head a statement follows: after its `)` a `/` starts a regular expression. */
const CONTROL_HEADS = new Set(['if', 'while', 'for', 'with']);
/** Keywords after which a `/` starts a regular expression literal. */
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await', 'extends']);
/**
 * Punctuators after which a `/` is division. After a `}` it starts a regular
 * expression: a block or body ended and a statement begins (a template
 * substitution's `}` is the template's, and an object literal is not divided).
 */
const DIVISION_AFTER_PUNCT = new Set([')', ']', '++', '--']);
/** Punctuators, longest first within each first character. */
const PUNCTUATORS = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>',
  '{', '}', '(', ')', '[', ']', ';', ',', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '!', '~', '?', ':', '=', '.', '@', '#',
];
const PUNCT_BY_FIRST = new Map();
for (const p of PUNCTUATORS) {
  const list = PUNCT_BY_FIRST.get(p.charCodeAt(0)) ?? [];
  list.push(p);
  PUNCT_BY_FIRST.set(p.charCodeAt(0), list);
}
const MODIFIERS = new Set(['static', 'async', 'get', 'set', 'accessor']);

// ASCII character classes by table (the lexer's hot loop): 1 space, 2 name start, 4 digit.
const SPACE = 1;
const NAME = 2;
const DIGIT = 4;
const ASCII = new Uint8Array(128);
for (const c of [32, 9, 10, 13, 11, 12]) ASCII[c] = SPACE;
for (let c = 97; c <= 122; c++) ASCII[c] = NAME;
for (let c = 65; c <= 90; c++) ASCII[c] = NAME;
for (const c of [36, 95, 92]) ASCII[c] = NAME;
for (let c = 48; c <= 57; c++) ASCII[c] = DIGIT;

function isSpace(c) {
  if (c < 128) return c >= 0 && ASCII[c] === SPACE;
  return c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029 || (c >= 0x2000 && c <= 0x200a) || c === 0x1680 || c === 0x202f || c === 0x205f || c === 0x3000;
}
// Past the end of the source charCodeAt() gives NaN, which is none of these.
function isIdStart(c) {
  if (c < 128) return c >= 0 && ASCII[c] === NAME;
  return c >= 128 && !isSpace(c);
}
function isIdPart(c) {
  if (c < 128) return c >= 0 && (ASCII[c] & (NAME | DIGIT)) !== 0;
  return c >= 128 && !isSpace(c);
}

class LexError extends Error {}

/**
 * Every class in `source` (a string): [{ start, open, end, extends, name,
 * methods: Set, sets: Set }] - `start` the index of its `class` keyword,
 * `open` the index just after its body's `{`, `end` just after its `}`.
 * Returns undefined when the source does not lex as JavaScript (an
 * unterminated string, template, comment or regular expression, unbalanced
 * brackets): nothing in it is then trusted.
 */
function locateClasses(source) {
  try {
    return lex(source);
  } catch (error) {
    if (error instanceof LexError) return undefined;
    throw error;
  }
}

function lex(src) {
  const n = src.length;
  const classes = [];
  // Open brackets: { ch: '{' | '(' | '[' | '${', cls?: the class whose body this is }
  const stack = [];
  // The last two significant tokens, [type, value]: type 'id' | 'num' | 'str' | 'regex' | 'tmpl' | 'punct' | 'private'.
  let prevType = '';
  let prevValue = '';
  let prev2Type = '';
  let prev2Value = '';
  let prev3Type = '';
  let prev3Value = '';
  // A `class` keyword whose body brace has not come yet.
  let pending = null;
  let i = 0;
  if (src.charCodeAt(0) === 0x23 && src.charCodeAt(1) === 0x21) {
    // #! line
    while (i < n && src.charCodeAt(i) !== 10) i++;
  }

  const regexAllowed = () => {
    if (prevType === '') return true;
    if (prevType === 'id') return REGEX_AFTER_WORD.has(prevValue) && !(prev2Type === 'punct' && (prev2Value === '.' || prev2Value === '?.'));
    if (prevType === 'punct') return !DIVISION_AFTER_PUNCT.has(prevValue);
    return false;
  };

  // The class element state of the class body on top of the stack.
  const top = () => stack[stack.length - 1];

  const emit = (type, value, at) => {
    const frame = top();
    const cls = frame !== undefined && frame.ch === '{' ? frame.cls : undefined;
    if (cls !== undefined) element(cls, frame, type, value);
    // `this.name =` / `this["name"] =` anywhere in a class body
    if (type === 'punct' && value === '=' && prevType === 'id' && prev2Type === 'punct' && prev2Value === '.' && prev3Type === 'id' && prev3Value === 'this') {
      for (let k = stack.length - 1; k >= 0; k--) {
        if (stack[k].cls !== undefined) {
          stack[k].cls.sets.add(prevValue);
          break;
        }
      }
    }
    // f(this, "name", ...): a define helper's call (esbuild's __publicField)
    if (type === 'str' && prevType === 'punct' && prevValue === ',' && prev2Type === 'id' && prev2Value === 'this' && prev3Type === 'punct' && prev3Value === '(') {
      for (let k = stack.length - 1; k >= 0; k--) {
        if (stack[k].cls !== undefined) {
          stack[k].cls.sets.add(value);
          break;
        }
      }
    }
    // class heads
    if (pending !== null && stack.length === pending.depth && !(type === 'punct' && value === '{')) {
      if (type === 'id' && value === 'extends') pending.extends = true;
      else if (type === 'id' && pending.name === null && !pending.extends && prevType === 'id' && prevValue === 'class') pending.name = value;
      else if (!pending.extends && !(prevType === 'id' && prevValue === 'class')) pending = null; // `class` was a property name (`{ class: 1 }`, `class()`)
      else if (prevType === 'id' && prevValue === 'class' && type === 'punct') pending = null;
    }
    if (type === 'id' && value === 'class' && !(prevType === 'punct' && (prevValue === '.' || prevValue === '?.'))) {
      pending = { start: at, depth: stack.length, extends: false, name: null };
    }
    prev3Type = prev2Type;
    prev3Value = prev2Value;
    prev2Type = prevType;
    prev2Value = prevValue;
    prevType = type;
    prevValue = value;
  };

  // Class elements, read at the body's own level.
  const element = (cls, frame, type, value) => {
    const state = frame.state;
    if (state === 'start' || state === 'name') {
      if (type === 'punct' && value === ';') {
        if (state === 'name' && frame.name !== null) cls.fields.add(frame.name);
        frame.state = 'start';
        frame.name = null;
      } else if (type === 'punct' && value === '(') {
        if (frame.name !== null) cls.methods.add(frame.name);
        frame.state = 'method';
      } else if (type === 'punct' && value === '=') {
        if (frame.name !== null) {
          cls.fields.add(frame.name);
          cls.sets.add(frame.name);
        }
        frame.state = 'field';
      } else if (type === 'punct' && (value === '*' || value === '[' || value === '#')) {
        if (value === '[') frame.name = null;
      } else if (type === 'punct' && value === '{') {
        frame.state = 'body'; // static { ... }: this brace opens the block
      } else if (type === 'id' || type === 'str' || type === 'num' || type === 'private') {
        if (state === 'name' && frame.name !== null && !MODIFIERS.has(frame.name)) {
          // `name` then another name: a field without `;` (ASI) before it.
          cls.fields.add(frame.name);
        }
        frame.name = value;
        frame.state = 'name';
      }
    } else if (state === 'method') {
      if (type === 'punct' && value === '{') frame.state = 'body';
    } else if (state === 'field') {
      if (type === 'punct' && value === ';') {
        frame.state = 'start';
        frame.name = null;
      }
    }
  };

  const open = (ch, at) => {
    let cls;
    // `if (…) /re/.test(x)`: the `)` of a control head is followed by a statement.
    const control = ch === '(' && prevType === 'id' && CONTROL_HEADS.has(prevValue) && !(prev2Type === 'punct' && (prev2Value === '.' || prev2Value === '?.'));
    if (ch === '{' && pending !== null && stack.length === pending.depth && !(prevType === 'id' && prevValue === 'extends')) {
      cls = { start: pending.start, open: at + 1, end: -1, extends: pending.extends, name: pending.name, methods: new Set(), fields: new Set(), sets: new Set() };
      classes.push(cls);
      pending = null;
    }
    emit('punct', ch === '${' ? '${' : ch, at);
    stack.push(cls === undefined ? (control ? { ch, control } : { ch }) : { ch, cls, state: 'start', name: null });
  };

  const close = (ch, at) => {
    const frame = stack.pop();
    if (frame === undefined) throw new LexError('unbalanced');
    const want = ch === '}' ? (frame.ch === '{' || frame.ch === '${') : ch === ')' ? frame.ch === '(' : frame.ch === '[';
    if (!want) throw new LexError('unbalanced');
    if (frame.cls !== undefined) frame.cls.end = at + 1;
    // Back at a class body's own level: a method body (or a static block) ended.
    const outer = top();
    if (ch === '}' && outer !== undefined && outer.cls !== undefined && outer.state === 'body') {
      outer.state = 'start';
      outer.name = null;
    }
    // the value of prevType for what follows (a control head's `)` is not one a `/` divides)
    emit('punct', frame.control ? ')head' : ch, at);
    return frame;
  };

  const template = (from) => {
    // from: just after ` or after the } of a substitution; returns the index after the closing ` (or after `${`, pushing it)
    let j = from;
    for (;;) {
      if (j >= n) throw new LexError('unterminated template');
      const c = src.charCodeAt(j);
      if (c === 92) {
        j += 2;
      } else if (c === 96) {
        return { end: j + 1, sub: false };
      } else if (c === 36 && src.charCodeAt(j + 1) === 123) {
        return { end: j + 2, sub: true };
      } else {
        j++;
      }
    }
  };

  while (i < n) {
    const c = src.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 47) {
      const d = src.charCodeAt(i + 1);
      if (d === 47) {
        // to the end of the line (\n; a lone \r, \u2028 or \u2029 ends it too)
        const nl = src.indexOf('\n', i + 2);
        let end = nl < 0 ? n : nl;
        for (let j = i + 2; j < end; j++) {
          const e = src.charCodeAt(j);
          if (e === 13 || e === 0x2028 || e === 0x2029) {
            end = j;
            break;
          }
        }
        i = end;
        continue;
      }
      if (d === 42) {
        const end = src.indexOf('*/', i + 2);
        if (end < 0) throw new LexError('unterminated comment');
        i = end + 2;
        continue;
      }
      if (regexAllowed()) {
        const start = i;
        let j = i + 1;
        let inClass = false;
        for (;;) {
          if (j >= n) throw new LexError('unterminated regex');
          const e = src.charCodeAt(j);
          if (e === 10 || e === 13) throw new LexError('unterminated regex');
          if (e === 92) j += 2;
          else if (e === 91) {
            inClass = true;
            j++;
          } else if (e === 93) {
            inClass = false;
            j++;
          } else if (e === 47 && !inClass) {
            j++;
            break;
          } else j++;
        }
        while (j < n && isIdPart(src.charCodeAt(j))) j++; // flags
        emit('regex', '', start);
        i = j;
        continue;
      }
    }
    if (c === 39 || c === 34) {
      // Its value as written (escapes undecoded: the names looked for have none).
      const start = i;
      let j = i + 1;
      for (;;) {
        if (j >= n) throw new LexError('unterminated string');
        const e = src.charCodeAt(j);
        if (e === c) break;
        if (e === 92) {
          j += 2;
          continue;
        }
        if (e === 10 || e === 13) throw new LexError('unterminated string');
        j++;
      }
      emit('str', src.slice(i + 1, j), start);
      i = j + 1;
      continue;
    }
    if (c === 96) {
      const t = template(i + 1);
      if (t.sub) {
        open('${', i);
      } else {
        emit('tmpl', '', i);
      }
      i = t.end;
      continue;
    }
    if (c === 125) {
      // `}`: closes a block, or a template substitution (then the template goes on)
      const frame = top();
      if (frame !== undefined && frame.ch === '${') {
        stack.pop();
        const t = template(i + 1);
        if (t.sub) {
          stack.push({ ch: '${' });
          prevType = 'punct';
          prevValue = '${';
        } else {
          prevType = 'tmpl';
          prevValue = '';
        }
        i = t.end;
        continue;
      }
      close('}', i);
      i++;
      continue;
    }
    if (c === 123 || c === 40 || c === 91) {
      open(String.fromCharCode(c), i);
      i++;
      continue;
    }
    if (c === 41 || c === 93) {
      close(String.fromCharCode(c), i);
      i++;
      continue;
    }
    if (c >= 48 && c <= 57 || (c === 46 && src.charCodeAt(i + 1) >= 48 && src.charCodeAt(i + 1) <= 57)) {
      const start = i;
      let j = i + 1;
      while (j < n) {
        const e = src.charCodeAt(j);
        if (isIdPart(e) || e === 46) j++;
        else if ((e === 43 || e === 45) && (src.charCodeAt(j - 1) === 101 || src.charCodeAt(j - 1) === 69) && !/^0[xX]/.test(src.slice(start, start + 2))) j++;
        else break;
      }
      emit('num', src.slice(start, j), start);
      i = j;
      continue;
    }
    if (c === 35 && isIdStart(src.charCodeAt(i + 1))) {
      // #private
      const start = i;
      let j = i + 1;
      while (j < n && isIdPart(src.charCodeAt(j))) j++;
      emit('private', src.slice(start, j), start);
      i = j;
      continue;
    }
    if (isIdStart(c)) {
      const start = i;
      let j = i + 1;
      while (j < n) {
        const e = src.charCodeAt(j);
        if (e === 92) j += 2;
        else if (isIdPart(e)) j++;
        else break;
      }
      emit('id', src.slice(start, j), start);
      i = j;
      continue;
    }
    const list = PUNCT_BY_FIRST.get(c);
    if (list === undefined) throw new LexError(`unexpected character ${c}`);
    let p = list[list.length - 1];
    for (const candidate of list) {
      if (src.startsWith(candidate, i)) {
        p = candidate;
        break;
      }
    }
    // `?.` followed by a digit is `?` then a number
    if (p === '?.' && src.charCodeAt(i + 2) >= 48 && src.charCodeAt(i + 2) <= 57) p = '?';
    emit('punct', p, i);
    i += p.length;
  }
  if (stack.length !== 0) throw new LexError('unbalanced');
  return classes;
}

module.exports = { locateClasses };
