// Runner setup, for real: each test runner runs a small fixture project
// (test/register/runners/<runner>/) whose one test checks for the lost-progress bug
// against the raw server (all progress and the response in one write). It
// passes only when the SDK is patched, and the only thing that patches it is
// the runner's setup line:
//
//   node --test --import mcp-ordered-dispatch/register
//   Vitest: test.setupFiles: ['mcp-ordered-dispatch/register']   (vitest.config.mjs; also
//           under the vmThreads and vmForks pools: vitest.vmThreads.config.mjs, vitest.vmForks.config.mjs)
//   Jest:   setupFiles: ['mcp-ordered-dispatch/register']        (jest.config.cjs; also in
//           Jest's ESM mode, node --experimental-vm-modules: test/register/runners/jest-esm/)
//
// Where register cannot work — loaded by another module rather than as the
// setup file itself under Jest's ESM mode or a Vitest vm pool — it says so,
// naming the supported setups, and the fixture test fails.
//
// The fixtures import `mcp-ordered-dispatch` by name: they have no
// package.json of their own, so the name resolves to this package (package
// self-reference), as it would from node_modules in a user's project.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNNERS = path.join(ROOT, 'test', 'register', 'runners');
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
// Caches the runners write: Jest's in a temporary directory, Vitest's in
// the node_modules folder of test/register/runners/vitest/ (its cacheDir and bundled
// config); both removed after.
const JEST_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-runners-jest-'));
after(() => {
  fs.rmSync(JEST_CACHE, { recursive: true, force: true });
  fs.rmSync(path.join(RUNNERS, 'vitest', 'node_modules'), { recursive: true, force: true });
});

function run(args, cwd) {
  // Not a child of this test runner: without NODE_TEST_CONTEXT the inner
  // `node --test` reports on its own instead of to us.
  const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', CI: '1' };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

const SUPPORTED = /UnsupportedSetupWarning: .*Supported setups: node --import\/--require mcp-ordered-dispatch\/register; Vitest \(any pool, vmThreads and vmForks included\) with test\.setupFiles: \['mcp-ordered-dispatch\/register'\]; Jest, CommonJS or ESM mode \(--experimental-vm-modules\), with setupFiles: \['mcp-ordered-dispatch\/register'\]/;

const show = (result) => `exit ${result.signal ?? result.code}\n${result.output}`;

test('node --test --import mcp-ordered-dispatch/register: the fixture test passes', async () => {
  const cwd = path.join(RUNNERS, 'node-test');
  const result = await run(['--test', '--test-reporter=tap', '--import', 'mcp-ordered-dispatch/register', 'lost-progress.test.mjs'], cwd);
  assert.equal(result.code, 0, show(result));
  assert.match(result.output, /^# pass 1$/m, show(result));
  assert.match(result.output, /^# fail 0$/m, show(result));
});

test('node --test without the setup line: the same fixture test fails (progress lost)', async () => {
  const cwd = path.join(RUNNERS, 'node-test');
  const result = await run(['--test', '--test-reporter=tap', 'lost-progress.test.mjs'], cwd);
  assert.equal(result.code, 1, show(result));
  assert.match(result.output, /^# fail 1$/m, show(result));
  assert.match(result.output, /progress sent in the same write as the response is not lost/, show(result));
  assert.match(result.output, /MCP callbacks did not run in wire order/, show(result));
  assert.match(result.output, /progress lost: #2 notifications\/progress/, show(result));
});

test('Vitest with setupFiles: [mcp-ordered-dispatch/register]: the fixture test passes', async () => {
  const cwd = path.join(RUNNERS, 'vitest');
  const result = await run([VITEST, 'run'], cwd);
  assert.equal(result.code, 0, show(result));
  assert.match(result.output, /Tests\s+1 passed \(1\)/, show(result));
});

test('Vitest without the setup file: the same fixture test fails', async () => {
  const cwd = path.join(RUNNERS, 'vitest');
  const result = await run([VITEST, 'run', '--config', 'vitest.stock.config.mjs'], cwd);
  assert.equal(result.code, 1, show(result));
  assert.match(result.output, /Tests\s+1 failed \(1\)/, show(result));
  assert.match(result.output, /progress lost: #2 notifications\/progress/, show(result));
});

test('Jest with setupFiles: [mcp-ordered-dispatch/register] (CommonJS): the fixture test passes', async () => {
  const cwd = path.join(RUNNERS, 'jest');
  const result = await run([JEST, '--ci', '--watchman=false', '--cacheDirectory', JEST_CACHE], cwd);
  assert.equal(result.code, 0, show(result));
  assert.match(result.output, /Tests:\s+1 passed, 1 total/, show(result));
});

test('Jest without the setup file: the same fixture test fails', async () => {
  const cwd = path.join(RUNNERS, 'jest');
  const config = JSON.stringify({ rootDir: cwd, testEnvironment: 'node', transform: {} });
  const result = await run([JEST, '--ci', '--watchman=false', '--cacheDirectory', JEST_CACHE, '--config', config], cwd);
  assert.equal(result.code, 1, show(result));
  assert.match(result.output, /Tests:\s+1 failed, 1 total/, show(result));
  assert.match(result.output, /progress lost: #2 notifications\/progress/, show(result));
});

for (const pool of ['vmThreads', 'vmForks']) {
  test(`Vitest ${pool} pool with setupFiles: [mcp-ordered-dispatch/register]: the fixture test passes`, async () => {
    const cwd = path.join(RUNNERS, 'vitest');
    const result = await run([VITEST, 'run', '--config', `vitest.${pool}.config.mjs`], cwd);
    assert.equal(result.code, 0, show(result));
    assert.match(result.output, /Tests\s+1 passed \(1\)/, show(result));
    assert.doesNotMatch(result.output, /Warning/, show(result));
  });
}

test('Vitest vmThreads pool, register required from another setup file: refused with a warning naming the supported setups; the test fails', async () => {
  const cwd = path.join(RUNNERS, 'vitest');
  const result = await run([VITEST, 'run', '--config', 'vitest.vmThreads-require.config.mjs'], cwd);
  assert.equal(result.code, 1, show(result));
  assert.match(result.output, /register was loaded under Vitest's vmThreads pool other than as the setup file itself/, show(result));
  assert.match(result.output, SUPPORTED, show(result));
  assert.match(result.output, /Tests\s+1 failed \(1\)/, show(result));
  assert.match(result.output, /progress lost: #2 notifications\/progress/, show(result));
});

const JEST_ESM = ['--experimental-vm-modules', JEST, '--ci', '--watchman=false', '--cacheDirectory', JEST_CACHE];

test('Jest ESM mode (--experimental-vm-modules) with setupFiles: [mcp-ordered-dispatch/register]: the fixture test passes', async () => {
  const cwd = path.join(RUNNERS, 'jest-esm');
  const result = await run(JEST_ESM, cwd);
  assert.equal(result.code, 0, show(result));
  assert.match(result.output, /Tests:\s+1 passed, 1 total/, show(result));
  assert.doesNotMatch(result.output, /UnsupportedSetupWarning|UnsupportedSdkWarning/, show(result));
});

test('Jest ESM mode without the setup file: the same fixture test fails', async () => {
  const cwd = path.join(RUNNERS, 'jest-esm');
  const config = JSON.stringify({ rootDir: cwd, testEnvironment: 'node', transform: {}, testMatch: ['**/*.test.mjs'] });
  const result = await run([...JEST_ESM, '--config', config], cwd);
  assert.equal(result.code, 1, show(result));
  assert.match(result.output, /Tests:\s+1 failed, 1 total/, show(result));
  assert.match(result.output, /progress lost: #2 notifications\/progress/, show(result));
});

test('Jest ESM mode, register required from another setup file: refused with a warning naming the supported setups; the test fails', async () => {
  const cwd = path.join(RUNNERS, 'jest-esm');
  const config = JSON.stringify({
    rootDir: cwd,
    testEnvironment: 'node',
    transform: {},
    testMatch: ['**/*.test.mjs'],
    setupFiles: ['<rootDir>/require-setup.cjs'],
  });
  const result = await run([...JEST_ESM, '--config', config], cwd);
  assert.equal(result.code, 1, show(result));
  assert.match(result.output, /register was loaded under Jest ESM mode \(--experimental-vm-modules\) other than as the setup file itself/, show(result));
  assert.match(result.output, SUPPORTED, show(result));
  assert.match(result.output, /Tests:\s+1 failed, 1 total/, show(result));
});
