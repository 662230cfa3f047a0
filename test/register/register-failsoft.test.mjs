// A missing binary never stops the host: with no loadable addon (simulated
// with MCP_ORDERED_DISPATCH_NATIVE naming a file that does not exist, which
// the loader then loads and nothing else), `register` prints ONE warning —
// the loader's own message — when the application first uses the SDK, and
// leaves every SDK copy stock; the application and every child that inherits
// NODE_OPTIONS run normally.
//
// "Stock" is observed, not assumed: the stdio reproduction (all-in-one
// writes) loses every progress notification, as the unpatched SDK does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const node = process.execPath;
const MISSING = path.join(path.sep, 'nonexistent', 'x.node');
const RUNNERS = { esm: path.join(root, 'test/support/repro-esm.mjs'), cjs: path.join(root, 'test/support/repro-cjs.cjs') };
const reproArgs = (sdk) => [`--sdk=${sdk}`, '--patched=0', '--pairs=3', '--concurrency=2', '--mode=all-in-one'];

function env(extra = {}) {
  const e = { ...process.env, PATH: pathWithThisNode(), MCP_ORDERED_DISPATCH_NATIVE: MISSING, ...extra };
  delete e.NODE_TEST_CONTEXT;
  if (!('NODE_OPTIONS' in extra)) delete e.NODE_OPTIONS;
  return e;
}

/** The warnings Node printed: one `(node:PID) ... Warning: ...` line each. */
const warningsIn = (stderr) => stderr.split('\n').filter((line) => /^\(node:\d+\) /.test(line));

function assertOneLoadWarning(r) {
  const warnings = warningsIn(r.stderr);
  assert.equal(warnings.length, 1, show(r));
  assert.match(warnings[0], /\[MCP_ORDERED_DISPATCH_LOAD_FAILED\]/, show(r));
  // The loader's message, naming what it tried to load.
  assert.ok(warnings[0].includes(MISSING), show(r));
}

function assertStockRepro(r, sdk) {
  assert.equal(r.code, 0, show(r));
  const result = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(result.sdk, sdk);
  assert.equal(result.progressExpected, 18, show(r));
  assert.equal(result.lost, result.progressExpected, `left stock: ${show(r)}`);
}

test('the simulated missing binary is really missing: loading the addon throws the load error', async () => {
  const r = await runCommand(node, ['-e', `try { require('./lib/native/addon.cjs').load(); } catch (e) { console.log(e.code); process.exit(3); }`], { cwd: root, env: env() });
  assert.equal(r.code, 3, show(r));
  assert.equal(r.stdout.trim(), 'MCP_ORDERED_DISPATCH_LOAD_FAILED');
});

for (const flag of ['--import', '--require']) {
  for (const [build, sdk] of [
    ['esm', 2],
    ['cjs', 1],
    ['esm', 1],
  ]) {
    test(`missing binary, node ${flag} mcp-ordered-dispatch/register, ${build.toUpperCase()} app on SDK ${sdk}.x: exit 0, the app's output, SDK stock, exactly one warning`, async () => {
      const r = await runCommand(node, [flag, 'mcp-ordered-dispatch/register', RUNNERS[build], ...reproArgs(sdk)], { cwd: root, env: env() });
      assertStockRepro(r, sdk);
      assertOneLoadWarning(r);
    });
  }
}

test('missing binary: one process loading every SDK copy (1.x and 2.x, ESM and CJS, client and server) warns once, at the first use (none where it only imports them)', async () => {
  const app = `
    import { createRequire } from 'node:module';
    const require = createRequire(process.cwd() + '/x.js');
    const loaded = [
      (await import('@modelcontextprotocol/sdk/client/index.js')).Client,
      (await import('@modelcontextprotocol/sdk/client/stdio.js')).StdioClientTransport,
      require('@modelcontextprotocol/sdk/server/index.js').Server,
      require('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport,
      (await import('@modelcontextprotocol/client')).Client,
      (await import('@modelcontextprotocol/client/stdio')).StdioClientTransport,
      (await import('@modelcontextprotocol/server')).Server,
      require('@modelcontextprotocol/server/stdio').StdioServerTransport,
    ];
    console.log('app ran: ' + loaded.map((c) => typeof c).join(','));
    // Each Client and Server used (register patches a class at its first use, and warns then).
    if (process.env.USE) for (const Class of [loaded[0], loaded[2], loaded[4], loaded[6]]) new Class({ name: 'a', version: '1' }, { capabilities: {} });`;
  for (const flag of ['--import', '--require']) {
    const imported = await runCommand(node, [flag, 'mcp-ordered-dispatch/register', '--input-type=module', '-e', app], { cwd: root, env: env() });
    assert.equal(imported.code, 0, show(imported));
    assert.equal(imported.stdout, `app ran: ${Array(8).fill('function').join(',')}\n`, show(imported));
    assert.equal(imported.stderr, '', `only imported: the addon is not loaded, nothing to warn of: ${show(imported)}`);
    const r = await runCommand(node, [flag, 'mcp-ordered-dispatch/register', '--input-type=module', '-e', app], { cwd: root, env: env({ USE: '1' }) });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, `app ran: ${Array(8).fill('function').join(',')}\n`, show(r));
    assertOneLoadWarning(r);
  }
});

test('missing binary, NODE_OPTIONS=--import mcp-ordered-dispatch/register: node -e, npm --version and an SDK app all run', async () => {
  const e = env({ NODE_OPTIONS: '--import mcp-ordered-dispatch/register' });
  const plain = await runCommand(node, ['-e', 'console.log("child ok")'], { cwd: root, env: e });
  assert.equal(plain.code, 0, show(plain));
  assert.equal(plain.stdout, 'child ok\n', show(plain));
  // Nothing loaded the SDK, so nothing loaded the addon: not even the warning.
  assert.equal(plain.stderr, '', show(plain));

  const npm = await runCommand(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['--version'], { cwd: root, env: e });
  assert.equal(npm.code, 0, show(npm));
  assert.match(npm.stdout, /^\d+\.\d+\.\d+\n$/, show(npm));
  assert.equal(npm.stderr, '', show(npm));

  // The reproduction's client starts its server as a child with the same NODE_OPTIONS.
  const app = await runCommand(node, [RUNNERS.esm, ...reproArgs(2)], { cwd: root, env: e });
  assertStockRepro(app, 2);
  assertOneLoadWarning(app);
});
