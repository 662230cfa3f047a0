// A short run of `npm run soak` (scripts/soak.mjs): six patched workers in
// parallel — SDK 1.0.0, 1.23.0, 1.32.2, 2.0.0, 2.4.0; ESM and CJS; every
// server write pattern — for a few seconds. Nothing lost, nothing failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SOAK = fileURLToPath(new URL('../../scripts/soak.mjs', import.meta.url));
const SECONDS = 8;

test(`soak: 6 patched workers for ${SECONDS} s lose nothing`, async () => {
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SOAK, `--seconds=${SECONDS}`, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  const summary = JSON.parse(stdout.trim().split('\n').pop());
  console.log(
    `soak ${summary.seconds} s: ${summary.calls} calls, progress ${summary.progressReceived} of ${summary.progressExpected}, ` +
      `lost ${summary.lost}, errors ${summary.errors}`,
  );
  assert.equal(summary.workers, 6);
  assert.equal(summary.crashedWorkers, 0, JSON.stringify(summary.perWorker));
  for (const w of summary.perWorker) assert.ok(w.calls > 0, `worker ${w.sdk} ${w.build} ${w.mode} made no calls`);
  assert.equal(summary.lost, 0, JSON.stringify(summary.perWorker));
  assert.equal(summary.progressReceived, summary.progressExpected);
  assert.equal(summary.callsFailed, 0);
  assert.equal(summary.onerrors, 0);
  assert.equal(summary.callsOutOfOrder, 0);
  assert.equal(summary.ok, true);
  assert.equal(code, 0, stderr);
});
