// TypeScript users: test/types/*.mts|*.cts use the public API and
// mcp-ordered-dispatch/testing the way a user's test would (imported by the
// package's own name, so through its `exports` map), and must compile with
// `tsc --noEmit --strict`; testing.d.ts itself must check too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

function tsc(project) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, '-p', project, '--noEmit', '--strict', '--pretty', 'false'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

test('the TypeScript examples (ESM and CommonJS) compile with tsc --noEmit --strict', async () => {
  const { code, output } = await tsc('test/types/tsconfig.json');
  assert.equal(code, 0, output);
});

test('testing.d.ts compiles on its own with tsc --noEmit --strict', async () => {
  const { code, output } = await tsc('test/types/tsconfig.dts.json');
  assert.equal(code, 0, output);
});
