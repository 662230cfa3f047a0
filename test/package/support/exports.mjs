// What lib/'s files export and which of those names another file outside
// test/ imports: the reading behind test/package/exports.test.mjs.
// Text-level, so that the requires inside generated scripts (template
// literals) count too.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const STRING = /(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
const NAME = '[A-Za-z_$][\\w$]*';

/** `text` without whole-line comments and without block comments. */
export function withoutComments(text) {
  return text
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, '')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*)/.test(line))
    .join('\n');
}

/** The text from `open` (the index of a bracket) to its matching close, brackets only counted. */
function balanced(text, open) {
  const pairs = { '(': ')', '{': '}', '[': ']' };
  const stack = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
    }
  }
  return { inner: text.slice(open + 1), end: text.length };
}

/** The keys of an object literal's or a destructuring pattern's text, at its top level. */
export function keysOf(inner) {
  const keys = [];
  let depth = 0;
  let part = '';
  for (const c of `${inner},`) {
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    if (c === ',' && depth === 0) {
      const m = new RegExp(`^\\s*(?:(?:get|set|async)\\s+(?=${NAME}\\s*\\())?\\*?\\s*(\\.\\.\\.)?\\s*(${NAME}|'[^']*'|"[^"]*")`).exec(part);
      if (m && !m[1]) keys.push(m[2].replace(/^['"]|['"]$/g, ''));
      part = '';
    } else part += c;
  }
  return keys;
}

/** The names a lib/ file exports (CommonJS `module.exports = { ... }`, `exports.X =`, ES `export`). */
export function exportsOf(text) {
  const code = withoutComments(text);
  const names = new Set();
  const literal = /\bmodule\.exports\s*=\s*\{/.exec(code);
  if (literal) for (const key of keysOf(balanced(code, literal.index + literal[0].length - 1).inner)) names.add(key);
  for (const m of code.matchAll(new RegExp(`(?:\\bmodule\\.exports|^exports)\\.(${NAME})\\s*=(?!=)`, 'gm'))) names.add(m[1]);
  for (const m of code.matchAll(new RegExp(`^export\\s+(?:default\\s+)?(?:async\\s+)?(?:function\\*?|const|let|var|class)\\s+(${NAME})`, 'gm'))) names.add(m[1]);
  for (const m of code.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const spec of m[1].split(',')) {
      const as = spec.trim().split(/\s+as\s+/);
      if (as[0]) names.add(as[as.length - 1]);
    }
  }
  return names;
}

/**
 * The lib/ files a require()'s or import's argument text names, relative to
 * the root: a relative specifier resolved from `from`, or the string pieces
 * of a path.join() (`'lib', 'run', 'plan.cjs'`) joined; else each string
 * that names one (a table of modules, `TABLE[command]`).
 */
function targetsOf(argument, from, libFiles) {
  const pieces = [...argument.matchAll(STRING)].map((m) => m[2]).filter((s) => !s.includes('${'));
  const resolve = (spec) => spec.startsWith('.')
    ? path.posix.normalize(path.posix.join(path.posix.dirname(from), spec))
    : spec.replace(/^.*?(?=\blib\/)/, '');
  if (pieces.length === 0) return [];
  const joined = resolve(pieces.length === 1 ? pieces[0] : pieces.join('/'));
  if (libFiles.has(joined)) return [joined];
  return pieces.map(resolve).filter((f) => libFiles.has(f));
}

/**
 * The names `binding` (a module object's variable) is read by in `code`:
 * `binding.name`, `{ name } = binding`; and `get().name` where a function
 * `get` returns the binding (a module loaded on first use).
 */
function readsOf(text, binding) {
  const code = text.replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''");
  const names = [];
  const read = (pattern) => {
    for (const m of code.matchAll(new RegExp(`(?<![\\w$])(?<![^.]\\.)${pattern}\\s*\\??\\.\\s*(${NAME})`, 'g'))) names.push(m[1]);
    for (const m of code.matchAll(new RegExp(`\\{([^{}]*)\\}\\s*=\\s*${pattern}(?![\\w$])`, 'g'))) names.push(...keysOf(m[1]));
  };
  read(binding.replace(/\$/g, '\\$'));
  for (const m of code.matchAll(new RegExp(`function\\s+(${NAME})\\s*\\(\\)\\s*\\{(?:(?!\\bfunction\\b)[\\s\\S])*?\\breturn\\s+${binding.replace(/\$/g, '\\$')}\\s*;`, 'g'))) read(`${m[1]}\\(\\)`);
  return names;
}

/** The names a destructuring pattern takes; `default: name` (a CommonJS module imported) stands for the names `name` reads. */
function destructured(code, pattern) {
  const alias = new RegExp(`\\bdefault\\s*:\\s*(${NAME})`).exec(pattern);
  return alias ? readsOf(code, alias[1]) : keysOf(pattern);
}

/** The text that defines each name an argument uses (`const RUNTIME = path.join(…)`), one level deep. */
function definitionsIn(code, argument) {
  return [...argument.matchAll(new RegExp(NAME, 'g'))]
    .map((m) => new RegExp(`(?:const|let|var)\\s+${m[0].replace(/\$/g, '\\$')}\\s*=\\s*([^;\\n]+)`).exec(code)?.[1] ?? '')
    .join(' ');
}

/**
 * What one file imports of lib/: Map of lib/ file -> Set of names, where the
 * name '*' means the whole module (re-exported, or handed on as a value).
 */
export function importsOf(text, from, libFiles) {
  const code = withoutComments(text);
  const found = new Map();
  const use = (target, names) => {
    if (!found.has(target)) found.set(target, new Set());
    for (const n of names) found.get(target).add(n);
  };
  // require(…), import(…), and createRequire(…)(…)
  const calls = /(?<![\w$.])(?:require|import|(?:[\w$]+(?:\([^()]*\))?\s*\.\s*)*createRequire\([^()]*\))\s*\(/g;
  for (const m of code.matchAll(calls)) {
    const { inner, end } = balanced(code, m.index + m[0].length - 1);
    const direct = targetsOf(inner, from, libFiles);
    const targets = direct.length ? direct : targetsOf(definitionsIn(code, inner), from, libFiles);
    for (const target of targets) importOf(target, code, m.index, end);
  }
  function importOf(target, code, start, end) {
    const before = code.slice(Math.max(0, start - 400), start);
    const after = code.slice(end, end + 80);
    const member = new RegExp(`^\\)?\\s*\\??\\.\\s*(${NAME})`).exec(after);
    const pattern = /(?:const|let|var)\s*\{([^{}]*)\}\s*=\s*(?:await\s*)?$/.exec(before);
    const bound = new RegExp(`(?:(?:const|let|var)\\s+|[;{]\\s*)(${NAME})\\s*=\\s*(?:await\\s*)?$`).exec(before);
    const then = new RegExp(`^\\s*\\.then\\(\\s*\\(?\\s*(${NAME}|\\{[^}]*\\})`).exec(after);
    if (then) use(target, then[1].startsWith('{') ? destructured(code, then[1].slice(1, -1)) : readsOf(code, then[1]));
    else if (member) use(target, [member[1]]);
    else if (pattern) use(target, destructured(code, pattern[1]));
    else if (bound) use(target, readsOf(code, bound[1]));
    else use(target, ['*']);
  }
  const statics = /\b(import|export)\s+([^;'"]*?)\s*from\s*(['"])([^'"]+)\3/g;
  for (const m of code.matchAll(statics)) {
    const [target] = targetsOf(`'${m[4]}'`, from, libFiles);
    if (!target) continue;
    const clause = m[2];
    const named = /\{([^}]*)\}/.exec(clause);
    const names = named ? named[1].split(',').map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean) : [];
    const whole = /^(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)/.exec(clause.replace(/\{[^}]*\}/, '').trim());
    if (m[1] === 'export' && clause.includes('*')) names.push('*');
    else if (whole && !clause.startsWith('type')) names.push(...readsOf(code, whole[1]));
    use(target, names);
  }
  return found;
}

/** The .cjs/.mjs/.js files git tracks or would (not ignored: no generated bundle, no node_modules), relative to the root. */
export function sourcesIn(root, dirs = []) {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...dirs], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(?:c|m)?js$/.test(f) && fs.existsSync(path.join(root, f)));
}

/**
 * Each lib/ file's exported names that no other file outside test/ imports:
 * Map of file -> names. A test's import is no use: what a test needs of a
 * file, it reaches through the public function that uses it.
 */
export function unimported(root) {
  const libFiles = new Set(sourcesIn(root, ['lib/']));
  const used = new Map();
  for (const file of sourcesIn(root)) {
    if (file.startsWith('test/')) continue;
    for (const [target, names] of importsOf(fs.readFileSync(path.join(root, file), 'utf8'), file, libFiles)) {
      if (target === file) continue;
      if (!used.has(target)) used.set(target, new Set());
      for (const n of names) used.get(target).add(n);
    }
  }
  const unused = new Map();
  for (const file of libFiles) {
    const names = used.get(file) ?? new Set();
    if (names.has('*')) continue;
    const left = [...exportsOf(fs.readFileSync(path.join(root, file), 'utf8'))].filter((n) => !names.has(n));
    if (left.length) unused.set(file, left);
  }
  return unused;
}
