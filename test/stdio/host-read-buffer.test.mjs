// A host that owns its transport's read buffer keeps it. Claude Code's
// client transport subclasses the SDK's StdioClientTransport, puts its own
// bounded buffer in `_readBuffer` and throws after start() when the buffer
// is no longer its own: native framing must step aside for such a
// transport (the dispatch fix still applies) and still frame the plain SDK
// transports of the same process. Checked for SDK 1.32.2 and client 2.4.0
// under each way the fix is applied - register, install(), a bundle built
// with the plugin (run alone) - with framing on (the default); stock loses
// progress through the same host transport
// (test/stdio/fixtures/host-transport-app.mjs).
import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { runAlone } from '../support/built-alone.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const APP = fileURLToPath(new URL('./fixtures/host-transport-app.mjs', import.meta.url));
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const NATIVE_BUFFERS = ['NativeReadBuffer', 'ThreadReadBuffer'];

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-host-read-buffer-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function env() {
  const e = { ...process.env, RAW_SERVER };
  delete e.NODE_OPTIONS;
  delete e.NODE_TEST_CONTEXT;
  delete e.MCP_ORDERED_DISPATCH_NATIVE;
  return e;
}

function parse(r) {
  assert.equal(r.code, 0, show(r));
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function assertFixed(out, label) {
  const { host, plain } = out;
  assert.equal(host.failed, 0, `${label}: the host transport's calls failed: ${JSON.stringify(host)}`);
  assert.equal(host.readBuffer, 'BoundedReadBuffer', `${label}: the host's buffer was replaced`);
  assert.equal(host.patched, true, label);
  assert.equal(host.lost, 0, `${label}: ${JSON.stringify(host)}`);
  assert.equal(host.onerrors, 0, `${label}: ${JSON.stringify(host)}`);
  assert.equal(host.expected, 40, label);
  // Framing still on for the SDK's own transport in the same process.
  assert.ok(NATIVE_BUFFERS.includes(plain.readBuffer), `${label}: the plain transport reads through ${plain.readBuffer}`);
  assert.equal(plain.lost, 0, `${label}: ${JSON.stringify(plain)}`);
}

for (const sdk of [1, 2]) {
  test(`SDK ${sdk}.x: stock loses progress through the host's transport`, async () => {
    const out = parse(await runCommand(process.execPath, [APP, `--sdk=${sdk}`], { cwd: ROOT, env: env(), timeout: 60_000 }));
    assert.equal(out.host.readBuffer, 'BoundedReadBuffer');
    // Every notification arrives in its response's read: stock loses each, with one onerror each.
    assert.deepEqual({ lost: out.host.lost, onerrors: out.host.onerrors, expected: out.host.expected }, { lost: 40, onerrors: 40, expected: 40 }, JSON.stringify(out.host));
  });

  test(`SDK ${sdk}.x: under register, the host keeps its read buffer and loses nothing; plain transports are framed`, async () => {
    const r = await runCommand(process.execPath, ['--import', 'mcp-ordered-dispatch/register', APP, `--sdk=${sdk}`], { cwd: ROOT, env: env(), timeout: 60_000 });
    assert.equal(r.stderr, '', show(r));
    assertFixed(parse(r), 'register');
  });

  test(`SDK ${sdk}.x: with install(), the host keeps its read buffer and loses nothing; plain transports are framed`, async () => {
    const r = await runCommand(process.execPath, [APP, `--sdk=${sdk}`, '--install'], { cwd: ROOT, env: env(), timeout: 60_000 });
    assert.equal(r.stderr, '', show(r));
    assertFixed(parse(r), 'install()');
  });
}

test('a bundle built with the plugin (esbuild, run alone): the host keeps its read buffer and loses nothing, for both SDK generations', async () => {
  const esbuild = require('esbuild');
  const out = path.join(dir, 'plugin');
  await esbuild.build({
    entryPoints: [APP],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: path.join(out, 'app.cjs'),
    logLevel: 'silent',
    plugins: [require('mcp-ordered-dispatch/esbuild')()],
  });
  for (const sdk of [1, 2]) {
    const result = await runAlone(out, process.execPath, ['{alone}/app.cjs', `--sdk=${sdk}`]);
    assert.equal(result.stderr, '', JSON.stringify(result));
    assertFixed(result, `plugin build, SDK ${sdk}.x`);
  }
});
