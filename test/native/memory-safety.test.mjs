// Memory safety of the N-API layer: one regression per finding of its audit,
// each run in its own child process (test/native/support/memory-safety-cases.cjs)
// with a time limit, so that a segfault, an abort or a hang fails the test
// instead of killing the runner. Before the fixes: `detached-entries`
// aborted (heap corruption), `push-prototype-setter-frees-chunk` segfaulted,
// `read-buffer-backlog` looped until the heap ran out, and the others
// returned foreign or forged data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runChild, LIMIT_MS } from './support/memory-safety-child.mjs';
import { fileURLToPath } from 'node:url';

const CASES = fileURLToPath(new URL('./support/memory-safety-cases.cjs', import.meta.url));
function assertClean(r, what) {
  const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-15).join('\n');
  assert.equal(r.timedOut, false, `${what}: hung (killed after ${LIMIT_MS} ms)\n${tail}`);
  assert.equal(r.signal, null, `${what}: crashed with ${r.signal}\n${tail}`);
  assert.equal(r.code, 0, `${what}: exit code ${r.code}\n${tail}`);
}

const findings = [
  ['detached-entries', 'a detached, collected entries Int32Array (NativeReadBuffer._meta) is never written again'],
  ['accessor-receivers', 'every accessor throws a TypeError for a foreign receiver and damages nothing'],
  ['push-prototype-setter-frees-chunk', 'an Array.prototype setter cannot run inside push() and free the chunk'],
  ['push-prototype-setter-reenters', 'an Array.prototype setter cannot run inside push() and re-enter it'],
  ['dispatcher-prototype-accessors', 'Array.prototype accessors neither swallow nor forge a queued message or a callback'],
  ['read-buffer-backlog', 'NativeReadBuffer: appends with a backlog of two or more entries and no read in between'],
  ['external-memory', "framers' native buffers are reported to V8: 600 MiB of garbage framers stay collected"],
];

for (const [name, title] of findings) {
  test(`${name}: ${title}`, async () => {
    const r = await runChild([CASES, name]);
    assertClean(r, name);
    assert.match(r.stdout, new RegExp(`^ok ${name}:`, 'm'));
  });
}
