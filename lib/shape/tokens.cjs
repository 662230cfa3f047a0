'use strict';
// The tokenizer of the search by shape: JavaScript's lexical grammar, enough
// to tell code from what only looks like code. Comments are skipped;
// strings, template literals (with nested substitutions), regular
// expressions (told from division by the token before them), numbers,
// names, private names and punctuators are handed on, one call each, to a
// sink (lib/shape/classes.cjs's class tracker). It knows nothing of classes.
// Dependency-free but for its lists: it also runs on a module.register()
// loader thread.

// Its punctuators and keyword lists: lib/shape/grammar.cjs, which the Rust
// tokenizer's tables are generated from.
const GRAMMAR = require('./grammar.cjs');
const CONTROL_HEADS = new Set(GRAMMAR.controlHeads);
const REGEX_AFTER_WORD = new Set(GRAMMAR.regexAfterWord);
const DIVISION_AFTER_PUNCT = new Set(GRAMMAR.divisionAfterPunct);
const PUNCT_BY_FIRST = new Map();
for (const p of GRAMMAR.punctuators) {
  const list = PUNCT_BY_FIRST.get(p.charCodeAt(0)) ?? [];
  list.push(p);
  PUNCT_BY_FIRST.set(p.charCodeAt(0), list);
}

// ASCII character classes by table (the hot loop): 1 space, 2 name start, 4 digit.
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
function isDigit(c) {
  return c >= 48 && c <= 57;
}

/**
 * The source does not lex as JavaScript: nothing in it is to be trusted. Its
 * message is the kind (the Rust tokenizer's `LexError` names the same):
 * 'unbalanced', 'unexpected character', or 'unterminated ' and 'comment',
 * 'regex', 'string' or 'template'.
 */
class LexError extends Error {}

/**
 * The tokens of one source, handed to `sink` in order:
 *   sink.token(type, value, at): type 'id' | 'num' | 'str' | 'regex' |
 *     'tmpl' | 'private' | 'punct'; brackets are punct tokens: '{', '(',
 *     '[' and '${' (a template substitution) open, '}', ')', ']' close, and
 *     ')head' closes the head of `if`/`while`/`for`/`with` (a `/` after it
 *     starts a regular expression). A string's value is its text as written
 *     (escapes undecoded); regular expressions and templates have none.
 *   sink.substitutionEnd(more): the `}` that ends a template substitution,
 *     and the template text after it; `more` when another substitution
 *     follows (then it is open again), else the template ended.
 */
class Tokenizer {
  constructor(src, sink) {
    this.src = src;
    this.n = src.length;
    this.sink = sink;
    // Open brackets: '{' '(' '[' '${', and whether a '(' heads a control statement.
    this.open = [];
    this.control = [];
    // The last two tokens, for telling a regular expression from division.
    this.prevType = '';
    this.prevValue = '';
    this.prev2Type = '';
    this.prev2Value = '';
  }

  emit(type, value, at) {
    this.prev2Type = this.prevType;
    this.prev2Value = this.prevValue;
    this.prevType = type;
    this.prevValue = value;
    this.sink.token(type, value, at);
  }

  /** Whether the last token was a member access (`.name`, `?.name`): then a keyword is a property name. */
  afterDot() {
    return this.prev2Type === 'punct' && (this.prev2Value === '.' || this.prev2Value === '?.');
  }

  regexAllowed() {
    const { prevType, prevValue } = this;
    if (prevType === '') return true;
    if (prevType === 'id') return REGEX_AFTER_WORD.has(prevValue) && !this.afterDot();
    if (prevType === 'punct') return !DIVISION_AFTER_PUNCT.has(prevValue);
    return false;
  }

  run() {
    const { src, n } = this;
    let i = 0;
    if (src.charCodeAt(0) === 0x23 && src.charCodeAt(1) === 0x21) {
      while (i < n && src.charCodeAt(i) !== 10) i++; // #! line
    }
    while (i < n) {
      const c = src.charCodeAt(i);
      if (isSpace(c)) i++;
      else if (c === 47) i = this.slash(i);
      else if (c === 39 || c === 34) i = this.string(i, c);
      else if (c === 96) i = this.templateStart(i);
      else if (c === 123 || c === 40 || c === 91) i = this.openBracket(String.fromCharCode(c), i);
      else if (c === 125 || c === 41 || c === 93) i = this.closeBracket(c, i);
      else if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) i = this.number(i);
      else if (c === 35 && isIdStart(src.charCodeAt(i + 1))) i = this.privateName(i);
      else if (isIdStart(c)) i = this.name(i);
      else i = this.punctuator(i, c);
    }
    if (this.open.length !== 0) throw new LexError('unbalanced');
  }

  /** The end of a line comment's text from `from`: a \n, lone \r, \u2028 or \u2029, or the end. */
  lineEnd(from) {
    const { src } = this;
    const nl = src.indexOf('\n', from);
    const end = nl < 0 ? this.n : nl;
    for (let j = from; j < end; j++) {
      const e = src.charCodeAt(j);
      if (e === 13 || e === 0x2028 || e === 0x2029) return j;
    }
    return end;
  }

  /** A `/`: a comment, a regular expression, or a punctuator. */
  slash(i) {
    const d = this.src.charCodeAt(i + 1);
    if (d === 47) return this.lineEnd(i + 2);
    if (d === 42) {
      const end = this.src.indexOf('*/', i + 2);
      if (end < 0) throw new LexError('unterminated comment');
      return end + 2;
    }
    return this.regexAllowed() ? this.regex(i) : this.punctuator(i, 47);
  }

  regex(i) {
    const { src, n } = this;
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
    this.emit('regex', '', i);
    return j;
  }

  string(i, quote) {
    const { src, n } = this;
    let j = i + 1;
    for (;;) {
      if (j >= n) throw new LexError('unterminated string');
      const e = src.charCodeAt(j);
      if (e === quote) break;
      if (e === 92) {
        j += 2;
        continue;
      }
      if (e === 10 || e === 13) throw new LexError('unterminated string');
      j++;
    }
    this.emit('str', src.slice(i + 1, j), i);
    return j + 1;
  }

  /** Template text from `from` (after a backtick or a substitution's `}`): { end, sub } - after the closing backtick, or after a `${`. */
  templateText(from) {
    const { src, n } = this;
    let j = from;
    for (;;) {
      if (j >= n) throw new LexError('unterminated template');
      const c = src.charCodeAt(j);
      if (c === 92) j += 2;
      else if (c === 96) return { end: j + 1, sub: false };
      else if (c === 36 && src.charCodeAt(j + 1) === 123) return { end: j + 2, sub: true };
      else j++;
    }
  }

  templateStart(i) {
    const t = this.templateText(i + 1);
    if (t.sub) this.openBracket('${', i);
    else this.emit('tmpl', '', i);
    return t.end;
  }

  openBracket(ch, i) {
    this.control.push(ch === '(' && this.prevType === 'id' && CONTROL_HEADS.has(this.prevValue) && !this.afterDot());
    this.open.push(ch);
    this.emit('punct', ch, i);
    return i + (ch === '${' ? 2 : 1);
  }

  closeBracket(c, i) {
    const ch = this.open.pop();
    const control = this.control.pop();
    if (c === 125 && ch === '${') return this.substitutionEnd(i);
    const want = c === 125 ? ch === '{' : c === 41 ? ch === '(' : ch === '[';
    if (!want) throw new LexError('unbalanced');
    this.emit('punct', control ? ')head' : String.fromCharCode(c), i);
    return i + 1;
  }

  /** A `}` that ends a substitution: the template goes on (the last token is then its `${`, or the template itself). */
  substitutionEnd(i) {
    const t = this.templateText(i + 1);
    if (t.sub) {
      this.open.push('${');
      this.control.push(false);
    }
    this.prevType = t.sub ? 'punct' : 'tmpl';
    this.prevValue = t.sub ? '${' : '';
    this.sink.substitutionEnd(t.sub);
    return t.end;
  }

  number(i) {
    const { src, n } = this;
    const hex = src.charCodeAt(i) === 48 && (src.charCodeAt(i + 1) | 32) === 120;
    let j = i + 1;
    while (j < n) {
      const e = src.charCodeAt(j);
      if (isIdPart(e) || e === 46) j++;
      else if ((e === 43 || e === 45) && (src.charCodeAt(j - 1) | 32) === 101 && !hex) j++; // 1e+5, not 0xe+5
      else break;
    }
    this.emit('num', src.slice(i, j), i);
    return j;
  }

  privateName(i) {
    let j = i + 1;
    while (j < this.n && isIdPart(this.src.charCodeAt(j))) j++;
    this.emit('private', this.src.slice(i, j), i);
    return j;
  }

  name(i) {
    const { src, n } = this;
    let j = i + 1;
    while (j < n) {
      const e = src.charCodeAt(j);
      if (e === 92) j += 2;
      else if (isIdPart(e)) j++;
      else break;
    }
    this.emit('id', src.slice(i, j), i);
    return j;
  }

  punctuator(i, c) {
    const list = PUNCT_BY_FIRST.get(c);
    if (list === undefined) throw new LexError('unexpected character');
    let p = list[list.length - 1];
    for (const candidate of list) {
      if (this.src.startsWith(candidate, i)) {
        p = candidate;
        break;
      }
    }
    // `?.` followed by a digit is `?` then a number
    if (p === '?.' && isDigit(this.src.charCodeAt(i + 2))) p = '?';
    this.emit('punct', p, i);
    return i + p.length;
  }
}

/** Hands every token of `src` to `sink` (see Tokenizer). Throws a LexError when `src` does not lex. */
function tokenize(src, sink) {
  new Tokenizer(src, sink).run();
}

module.exports = { tokenize, LexError };
