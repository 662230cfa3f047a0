// Forward compatibility: an SDK release whose Protocol already dispatches
// notifications in wire order (the fix proposed upstream: _onnotification
// runs the handler synchronously) is recognised as fixed: no throw, no
// warning, left stock; install() lists it in `fixedUpstream`; the doctor says
// "fixed upstream". The copies are the real SDK packages (1.32.2, 2.4.0) with
// that one change applied (test/patch/support/upstream-fixed.cjs), in a temporary
// project; each case runs in its own child process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { makeFixedUpstreamProject } = require('./support/upstream-fixed.cjs');
const { report } = require('../../lib/doctor/index.cjs');

let dir;
before(() => {
  ({ dir } = makeFixedUpstreamProject());
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true }); // none where before() failed
});

function run(args, cwd) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return runCommand(process.execPath, args, { cwd, env, timeout: 90_000 });
}

async function app(build, how, nodeArgs = []) {
  const r = await run([...nodeArgs, 'app.mjs', `--root=${ROOT}`, `--build=${build}`, `--how=${how}`], dir);
  assert.equal(r.code, 0, `exit ${r.signal ?? r.code}\n${r.stderr}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
}

function assertStockAndClean(result) {
  const label = JSON.stringify(result);
  assert.equal(result.threw, null, label);
  assert.deepEqual(result.warnings, [], label);
  assert.doesNotMatch(result.stderr, /Warning|not supported|unpatched/i, result.stderr);
  for (const [key, c] of Object.entries(result.classes)) {
    assert.equal(c.patched, false, `${key}: ${label}`);
    assert.equal(c.hasPatchSymbol, false, `${key}: ${label}`);
    assert.equal(c.unchanged, true, `${key}: ${label}`);
    assert.equal(c.runsHandlerSynchronously, true, `${key}: the fixture's own code runs: ${label}`);
  }
  // The fixed copies lose nothing on their own, Client and Server, 1.x and 2.x.
  for (const generation of ['1', '2']) {
    for (const role of ['client', 'server']) {
      const r = result.results[generation][role];
      assert.equal(r.progressExpected, 6, `${generation}.x ${role}: ${JSON.stringify(r)}`);
      assert.equal(r.lost, 0, `${generation}.x ${role}: ${JSON.stringify(r)}`);
      assert.equal(r.onerrorCount, 0, `${generation}.x ${role}: ${JSON.stringify(r)}`);
      assert.equal(r.callsFailed, 0, `${generation}.x ${role}: ${JSON.stringify(r)}`);
    }
  }
}

// Two builds, four ways to use the package.
const CASES = [];
for (const build of ['esm', 'cjs']) {
  CASES.push([build, 'stock', []]);
  CASES.push([build, 'install', []]);
  CASES.push([build, 'patchProtocol', []]);
  CASES.push([build, 'register', build === 'esm' ? ['--import', pathToFileURL(path.join(ROOT, 'entries', 'register.mjs')).href] : ['--require', path.join(ROOT, 'entries', 'register.cjs')]]);
}

test('the reproduction is real: the same all-in-one calls lose progress with the unchanged SDK', async () => {
  const r = await run(['test/support/repro-esm.mjs', '--sdk=1', '--patched=0', '--pairs=2', '--concurrency=2', '--mode=all-in-one'], ROOT);
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(result.lost, result.progressExpected, JSON.stringify(result));
});

for (const [build, how, nodeArgs] of CASES) {
  test(`fixed upstream, ${build.toUpperCase()} build, ${how}${nodeArgs.length ? ` (${nodeArgs[0]} register)` : ''}: no throw, no warning, left stock, nothing lost`, async () => {
    const result = await app(build, how, nodeArgs);
    assertStockAndClean(result);
    if (how === 'patchProtocol') assert.equal(result.unpatched, true, 'patchProtocol returned an (inert) unpatch function');
    if (how === 'install') {
      assert.deepEqual(result.installed.patched, []);
      const listed = result.installed.fixedUpstream.map((s) => `${s.name}@${s.version} ${s.build} ${s.generation}`).sort();
      assert.deepEqual(listed, [
        '@modelcontextprotocol/client@2.4.0 cjs 2',
        '@modelcontextprotocol/client@2.4.0 esm 2',
        '@modelcontextprotocol/sdk@1.32.2 cjs 1',
        '@modelcontextprotocol/sdk@1.32.2 esm 1',
        '@modelcontextprotocol/server@2.4.0 cjs 2',
        '@modelcontextprotocol/server@2.4.0 esm 2',
      ]);
      for (const s of result.installed.fixedUpstream) assert.ok(s.file.startsWith(fs.realpathSync(dir)), s.file);
    }
  });
}

test('doctor: every fixed copy is "fixed upstream", exit 0', async () => {
  const json = await run([path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs'), 'doctor', '--json', '--pairs=1'], dir);
  assert.equal(json.code, 0, json.stdout + json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(result.rows.length, 6);
  for (const row of result.rows) {
    const label = JSON.stringify(row);
    assert.equal(row.verdict, 'fixed upstream', label);
    assert.equal(row.ok, true, label);
    assert.equal(row.stock.fixedUpstream, true, label);
    assert.equal(row.stock.lost, 0, label);
    assert.equal(row.stock.onerrors, 0, label);
    assert.equal(row.patched.lost, 0, label);
  }
  assert.doesNotMatch(json.stderr, /Warning/);
  // The human-readable form of the same result.
  const text = report(result, { cwd: dir });
  assert.match(text, /\| @modelcontextprotocol\/sdk +\| 1\.32\.2 +\| ESM +\| client \| not needed \| 0\/\d+ lost, 0 onerror \| 0\/\d+ lost, 0 onerror \| fixed upstream \|/);
  assert.match(text, /@modelcontextprotocol\/client@2\.4\.0 \(CJS\): fixed upstream: its Protocol already dispatches notifications in wire order/);
  assert.doesNotMatch(text, /UNSUPPORTED/);
});

test('a Protocol that neither defers nor dispatches in order is still refused (patchProtocol throws UnsupportedSdkError)', async () => {
  // The fixed 1.x copy with its handler lookup taken out: not ours to patch, not fixed either.
  const { patchProtocol, UnsupportedSdkError } = require('../../entries/index.cjs');
  const { Protocol } = require(path.join(dir, 'node_modules/@modelcontextprotocol/sdk/dist/cjs/shared/protocol.js'));
  class Broken extends Protocol {
    _onnotification() {}
  }
  assert.throws(() => patchProtocol(Broken), (e) => e instanceof UnsupportedSdkError && /does not dispatch notifications in wire order itself/.test(e.message));
  // And the fixed class itself is not refused.
  assert.doesNotThrow(() => patchProtocol(Protocol));
});
