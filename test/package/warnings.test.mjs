// Every warning this package prints is in one room (lib/warnings/warnings.cjs),
// and README.md names each code with what to do: a code added without its row
// fails here. And no file of lib/ calls process.emitWarning() but the room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { WARNINGS, FIX } = require('../../lib/warnings/warnings.cjs');

/** README.md's table: Map of code -> { type, what, todo }. */
function readmeWarnings() {
  const section = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const rows = new Map();
  for (const [, code, type, what, todo] of section.matchAll(/^\| `([A-Z_]+)` \| `(\w+)` \| ([^|]+) \| ([^|]+) \|$/gm)) rows.set(code, { type, what: what.trim(), todo: todo.trim() });
  return rows;
}

test('README.md names every warning code, its type and what to do', () => {
  const rows = readmeWarnings();
  for (const [name, { code, type }] of Object.entries(WARNINGS)) {
    const row = rows.get(code);
    assert.ok(row, `${name} (${code}) has a row in README.md`);
    assert.equal(row.type, type, `${code}: README.md's type`);
    assert.ok(row.todo.length > 10, `${code}: README.md says what to do`);
  }
  const known = new Set(Object.values(WARNINGS).map((w) => w.code));
  assert.deepEqual([...rows.keys()].filter((code) => !known.has(code)), [], 'README.md names no code the room does not have');
});

test('no process.emitWarning() in lib/ outside the warnings room, and no warning code written as a literal there', () => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'lib'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => /\.(c|m)?js$/.test(f) && fs.existsSync(path.join(ROOT, f)));
  const codes = Object.values(WARNINGS).map((w) => w.code);
  const outside = [];
  for (const file of files) {
    if (file === 'lib/warnings/warnings.cjs') continue;
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    if (/\bprocess\.emitWarning\b|\?\.emitWarning\b/.test(text)) outside.push(`${file}: process.emitWarning`);
    for (const code of codes) if (text.includes(`'${code}'`) || text.includes(`"${code}"`)) outside.push(`${file}: ${code}`);
  }
  assert.deepEqual(outside, []);
});

test('the room: warn() says each once per key, with its code and type', async () => {
  const { warn } = require('../../lib/warnings/warnings.cjs');
  const seen = [];
  const listener = (w) => seen.push([w.name, w.code, w.message]);
  process.on('warning', listener);
  try {
    assert.equal(warn('NO_SDK', 'first', 'key'), true);
    assert.equal(warn('NO_SDK', 'again', 'key'), false);
    assert.equal(warn('NO_SDK', 'another key', 'other'), true);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  assert.deepEqual(seen, [['NoSdkWarning', WARNINGS.NO_SDK.code, 'first'], ['NoSdkWarning', WARNINGS.NO_SDK.code, 'another key']]);
  assert.ok(Object.values(FIX).every((text) => typeof text === 'string' && text.length > 20));
});
