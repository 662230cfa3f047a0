// Memory: a smaller run of bench/memory.mjs (200,000 messages through a
// patched real Client, 1.x and 2.x; one call in four answered re-entrantly so
// the dispatcher queues, i.e. creates napi references). Every reference the
// dispatcher created is released, nothing is left queued, every progress
// notification is delivered, and memory (heap, external, resident) does not grow with the message count
// (generous bounds here; `node --expose-gc bench/memory.mjs` measures 1,000,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCH = fileURLToPath(new URL('../../bench/memory.mjs', import.meta.url));
const MESSAGES = 200_000;
const RSS_BOUND_MB = 64;
const HEAP_BOUND_MB = 8;
const EXTERNAL_BOUND_MB = 8;

function runChild(sdk) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', BENCH, '--child', '--variant=patched', `--sdk=${sdk}`, `--messages=${MESSAGES}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`bench/memory.mjs sdk ${sdk} exited ${code}:\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

for (const sdk of [1, 2]) {
  let run;
  test(`SDK ${sdk}.x: ${MESSAGES.toLocaleString('en-US')} messages through a patched Client — napi references balanced, heap and external memory flat`, async () => {
    const r = await (run = runChild(sdk));
    console.log(
      `${sdk}.x: ${r.messages} messages in ${r.ms} ms; RSS ${r.rssStartMB.toFixed(1)} → ${r.rssEndMB.toFixed(1)} MB (peak ${r.peakRssMB.toFixed(1)}); ` +
        `heap growth ${r.heapGrowthMB.toFixed(2)} MB; external growth ${r.externalGrowthMB.toFixed(2)} MB; refs ${r.refsCreated} created / ${r.refsReleased} released`,
    );
    assert.ok(r.messages >= MESSAGES);
    assert.equal(r.progress, r.expectedProgress, 'every progress notification delivered');
    assert.equal(r.errors, 0);
    // Re-entrant delivery was exercised: one call in four queued 3 messages.
    assert.ok(r.refsCreated >= (r.calls / 4) * 3, `expected queued messages, got ${r.refsCreated} refs`);
    assert.equal(r.refsReleased, r.refsCreated, 'every napi reference created was released');
    assert.equal(r.pending, 0);
    assert.ok(r.heapGrowthMB < HEAP_BOUND_MB, `heap grew ${r.heapGrowthMB.toFixed(1)} MB after GC (bound ${HEAP_BOUND_MB} MB)`);
    assert.ok(r.externalGrowthMB < EXTERNAL_BOUND_MB, `external memory grew ${r.externalGrowthMB.toFixed(1)} MB after GC (bound ${EXTERNAL_BOUND_MB} MB)`);
  });

  // Its own test: under Wine, whose process memory counters are not a Windows working set, it is the one skipped (test/support/wine/limits.mjs).
  // The run above's, or its own where that one did not run (a name pattern).
  test(`SDK ${sdk}.x: the same run's resident memory (RSS) flat`, async () => {
    const r = await (run ??= runChild(sdk));
    assert.ok(r.rssGrowthMB < RSS_BOUND_MB, `RSS grew ${r.rssGrowthMB.toFixed(1)} MB (bound ${RSS_BOUND_MB} MB)`);
  });
}
