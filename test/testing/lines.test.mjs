// lib/testing/lines.cjs: the one newline-delimited splitter the raw server,
// replay, the doctor's probe and these tests read streams with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { lineSplitter } = require('../../lib/testing/lines.cjs');

test('lineSplitter: lines across chunks, CRLF, blank lines, the last line held back', () => {
  const linesOf = lineSplitter();
  assert.deepEqual(linesOf('{"a":1}\n{"b"'), ['{"a":1}']);
  assert.deepEqual(linesOf(Buffer.from(':2}\r\n\n')), ['{"b":2}', '']);
  assert.deepEqual(linesOf('{"c":3}'), []);
  assert.deepEqual(linesOf('\n'), ['{"c":3}']);
});

test('lineSplitter: a character cut between chunks stays whole', () => {
  const linesOf = lineSplitter();
  const bytes = Buffer.from('"é€😀"\n');
  const lines = [];
  for (let i = 0; i < bytes.length; i++) lines.push(...linesOf(bytes.subarray(i, i + 1)));
  assert.deepEqual(lines, ['"é€😀"']);
});
