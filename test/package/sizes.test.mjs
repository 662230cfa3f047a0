// lib/'s rooms stay small enough to read: no source file over 400 lines, and
// no function over 150 (declarations, expressions, arrows and methods alike,
// measured from their first line to their last; a class body is not a
// function, its methods are). Functions are found by a real parser (acorn,
// installed with the dev dependencies through terser), not by pattern, so a
// brace in a string or a regular expression cannot hide one. Every tracked or
// new, not ignored, .cjs/.mjs/.js file under lib/ is read; a generated file
// (git-ignored, such as the plugin's runtime bundle) is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { parse } = createRequire(import.meta.url)('acorn');

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 150;
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** The .cjs/.mjs/.js files under lib/, tracked or new (not ignored), relative to the root. */
function libSources() {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'lib/'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(?:c|m)?js$/.test(f) && fs.existsSync(path.join(ROOT, f)))
    .sort();
}

/** A text's line count, as `wc -l` gives it for a file ending in a newline. */
export function lineCount(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** The program of a source file: an ES module for .mjs, CommonJS (a script where top-level return is allowed) else. */
function programOf(file, text) {
  const options = { ecmaVersion: 'latest', locations: true, allowHashBang: true };
  if (file.endsWith('.mjs')) return parse(text, { ...options, sourceType: 'module' });
  return parse(text, { ...options, sourceType: 'script', allowReturnOutsideFunction: true });
}

/** A function's name, from itself or from where it stands (a variable, a property, a method, an assignment). */
function nameOf(node, parent) {
  if (node.id?.name) return node.id.name;
  const key = parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition' ? parent.key : undefined;
  if (key) return key.name ?? key.value ?? '[computed]';
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
  if (parent?.type === 'AssignmentExpression') {
    const left = parent.left;
    if (left.type === 'Identifier') return left.name;
    if (left.type === 'MemberExpression' && !left.computed) return left.property.name;
  }
  return '(anonymous)';
}

/**
 * Every function of a source text: [{ name, line, lines }], `line` where it
 * starts (a method's from its name) and `lines` its span.
 */
export function functionsOf(file, text) {
  const found = [];
  const visit = (node, parent) => {
    if (FUNCTIONS.has(node.type)) {
      const from = parent?.type === 'MethodDefinition' || (parent?.type === 'Property' && parent.value === node) ? parent : node;
      found.push({ name: nameOf(node, parent), line: from.loc.start.line, lines: node.loc.end.line - from.loc.start.line + 1 });
    }
    for (const key of Object.keys(node)) {
      if (key === 'loc') continue;
      const value = node[key];
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child.type === 'string') visit(child, node);
      }
    }
  };
  visit(programOf(file, text), undefined);
  return found;
}

test('functionsOf: declarations, expressions, arrows and methods, not class bodies', () => {
  const text = [
    'function a() {', '  return 1;', '}', // 1-3
    'const b = () => {', '};', // 4-5
    'class C {', '  m() {', '    return 2;', '  }', '}', // 6-10
    'module.exports.d = function () {', '  const e = { f() {} };', '};', // 11-13
  ].join('\n') + '\n';
  const got = functionsOf('x.cjs', text).map(({ name, line, lines }) => `${name}@${line}:${lines}`);
  assert.deepEqual(got, ['a@1:3', 'b@4:2', 'm@7:3', 'd@11:3', 'f@12:1']);
  assert.equal(lineCount(text), 13);
});

test(`lib/: no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
  const files = libSources();
  assert.ok(files.length > 30, `lib/ has its sources (${files.length})`);
  const offenders = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const lines = lineCount(text);
    if (lines > MAX_FILE_LINES) offenders.push(`${file}: ${lines} lines (at most ${MAX_FILE_LINES})`);
    for (const fn of functionsOf(file, text)) {
      if (fn.lines > MAX_FUNCTION_LINES) {
        offenders.push(`${file}:${fn.line}: function ${fn.name} spans ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
      }
    }
  }
  assert.deepEqual(offenders, [], `lib/ has files or functions too long to read:\n  ${offenders.join('\n  ')}\n`);
});
