// A short run of `npm run soak` (scripts/soak.mjs): six patched workers in
// parallel — SDK 1.0.0, 1.23.0, 1.32.2, 2.0.0, 2.4.0; ESM and CJS; every
// server write pattern — a few rounds each (bounded by count, so a busy
// machine only makes it slower). Nothing lost, nothing failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SOAK = fileURLToPath(new URL('../../scripts/soak.mjs', import.meta.url));
const ROUNDS = 4;

test(`soak: 6 patched workers, ${ROUNDS} rounds each, lose nothing`, async () => {
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SOAK, `--rounds=${ROUNDS}`, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  const summary = JSON.parse(stdout.trim().split('\n').pop());
  console.log(
    `soak ${summary.rounds} rounds in ${summary.seconds} s: ${summary.calls} calls, progress ${summary.progressReceived} of ${summary.progressExpected}, ` +
      `lost ${summary.lost}, errors ${summary.errors}`,
  );
  assert.equal(summary.workers, 6);
  assert.equal(summary.crashedWorkers, 0, JSON.stringify(summary.perWorker));
  for (const w of summary.perWorker) assert.equal(w.rounds, ROUNDS, `worker ${w.sdk} ${w.build} ${w.mode}: ${JSON.stringify(w)}`);
  assert.equal(summary.lost, 0, JSON.stringify(summary.perWorker));
  assert.equal(summary.progressReceived, summary.progressExpected);
  assert.equal(summary.callsFailed, 0);
  assert.equal(summary.onerrors, 0);
  assert.equal(summary.callsOutOfOrder, 0);
  assert.equal(summary.ok, true);
  assert.equal(code, 0, stderr);
});
