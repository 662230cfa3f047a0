// Hostile-JavaScript fuzz of the native layer, bounded by its number of steps:
// test/native/support/memory-safety-fuzz.cjs in child processes (a crash or a hang
// fails the test), two seeds: a fixed one, and one that changes per run
// (printed on failure, to replay with --seed=N).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runChild } from './support/memory-safety-child.mjs';

const FUZZ = fileURLToPath(new URL('./support/memory-safety-fuzz.cjs', import.meta.url));
const STEPS = Number(process.env.MCP_ORDERED_DISPATCH_FUZZ_STEPS ?? 32_000);

for (const seed of [0x15, (Date.now() % 0xffffffff) >>> 0]) {
  test(`random calls, receivers, arguments, prototype accessors and detached buffers: ${STEPS} steps (seed ${seed})`, async () => {
    // A hang's bound, far above what the steps take on a busy machine.
    const r = await runChild([FUZZ, `--steps=${STEPS}`, `--seed=${seed}`], { limitMs: 180_000 });
    const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n');
    assert.equal(r.timedOut, false, `hung (seed ${seed})\n${tail}`);
    assert.equal(r.signal, null, `crashed with ${r.signal} (seed ${seed})\n${tail}`);
    assert.equal(r.code, 0, `exit code ${r.code} (seed ${seed})\n${tail}`);
    assert.match(r.stdout, new RegExp(`^ok seed=${seed} `, 'm'));
  });
}
