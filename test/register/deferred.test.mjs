// register patches each SDK class at its first use (lib/patch/deferred.cjs):
// for 1.x and 2.x, the real SDK's Protocol handed to register's class
// receiver is patched before its first message whichever way the application
// first uses it (a Client constructed; one constructed before and connected
// after; a subclass's own connect(); methods a host wrapped after the
// definition, its wrappers kept), a stdio transport at its start(), the
// trampolines keep each method's name and length, isPatched() and
// patchProtocol() make the deferred patch, and unpatch() restores every
// method. Each row runs again without the trampoline it relies on, and must
// then fail (the call's progress is lost as stock loses it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const APP = path.join(root, 'test', 'register', 'support', 'deferred-app.cjs');

async function run(generation, way, entries) {
  const env = { ...process.env };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
  if (entries !== undefined) env.MCP_ORDERED_DISPATCH_ENTRIES = entries;
  const r = await runCommand(process.execPath, [APP, String(generation), way], { cwd: root, env });
  assert.equal(r.code, 0, show(r));
  return JSON.parse(r.stdout);
}

const IN_ORDER = { seen: [1, 2, 3], errors: [] };

for (const generation of [1, 2]) {
  test(`${generation}.x: a Client constructed is patched at its construction, before any message; the trampolines keep name and length`, async () => {
    const out = await run(generation, 'constructed');
    assert.equal(out.deferred, true, 'nothing patched as the class was defined');
    assert.deepEqual(out.trampolines, [true, true]);
    assert.equal(out.patchedAtConstruction, true);
    assert.deepEqual({ seen: out.seen, errors: out.errors }, IN_ORDER);
    // Without the trampoline on setNotificationHandler the constructor patches nothing.
    assert.equal((await run(generation, 'constructed', 'connect')).patchedAtConstruction, false);
  });

  test(`${generation}.x: a Client constructed before the class was deferred is patched by its connect()`, async () => {
    const out = await run(generation, 'connected');
    assert.equal(out.patchedAtConstruction, false);
    assert.equal(out.patchedAtConnect, true);
    assert.deepEqual({ seen: out.seen, errors: out.errors }, IN_ORDER);
    const without = await run(generation, 'connected', 'setNotificationHandler');
    assert.equal(without.patchedAtConnect, false);
    assert.notDeepEqual(without.seen, [1, 2, 3], `stock loses the progress: ${JSON.stringify(without)}`);
  });

  test(`${generation}.x: methods a host wrapped after the definition stay its wrappers, and the class is patched under them`, async () => {
    const out = await run(generation, 'wrapped');
    assert.equal(out.hostWrappersKept, true);
    assert.ok(out.host.connect >= 1 && out.host.setNotificationHandler >= 1, JSON.stringify(out.host));
    assert.equal(out.patchedAtConstruction, true);
    assert.deepEqual({ seen: out.seen, errors: out.errors }, IN_ORDER);
  });

  test(`${generation}.x: a subclass's own connect() reaches the patched one`, async () => {
    const out = await run(generation, 'subclass');
    assert.equal(out.host.connect, 1);
    assert.deepEqual({ seen: out.seen, errors: out.errors }, IN_ORDER);
  });

  test(`${generation}.x: a stdio transport's class is patched at its start(), not before, and nothing else is`, async () => {
    const out = await run(generation, 'stdio');
    assert.deepEqual([out.stdioBeforeStart, out.stdioAfterStart, out.protocolUntouched], [false, true, true], JSON.stringify(out));
  });

  test(`${generation}.x: isPatched() and patchProtocol() make the deferred patch; unpatch() restores every method`, async () => {
    const out = await run(generation, 'unpatch');
    assert.equal(out.deferred, true);
    assert.equal(out.isPatched, true);
    assert.equal(out.restored, true);
  });
}

test('under run, an app that imports the SDK (by a specifier the rule cannot read) has none of run\'s variables in its environment before it uses it, nor its child', async () => {
  // run's variables leave the environment as the class is defined, not at its deferred first use.
  const probe = "console.log(JSON.stringify([process.env.NODE_OPTIONS ?? null, process.env.MCP_ORDERED_DISPATCH_RUN ?? null]))";
  const app = [
    "const { spawnSync } = require('node:child_process');",
    "const { Client } = require(['@modelcontextprotocol', 'sdk', 'client', 'index.js'].join('/'));",
    "console.log(JSON.stringify([process.env.NODE_OPTIONS ?? null, process.env.MCP_ORDERED_DISPATCH_RUN ?? null]));",
    `const child = spawnSync(process.execPath, ['-e', ${JSON.stringify(probe)}], { encoding: 'utf8', env: { ...process.env } });`,
    "process.stdout.write(child.stdout);",
    "new Client({ name: 'c', version: '1' });",
  ].join('\n');
  const env = { ...process.env };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
  const r = await runCommand(process.execPath, [path.join(root, 'bin', 'mcp-ordered-dispatch.cjs'), 'run', '--', process.execPath, '-e', app], { cwd: root, env });
  assert.equal(r.code, 0, show(r));
  // Its own environment (what a copy of it, as the Agent SDK's query() makes, would hand on), and its child's.
  assert.deepEqual(r.stdout.trim().split('\n').map((line) => JSON.parse(line)), [[null, null], [null, null]], show(r));
});
