// NODE_DEBUG=mcp-ordered-dispatch names each SDK copy register patched, one
// line per process and copy, on Node and on Bun (whose util.debuglog() has
// no `enabled`); without it, nothing is printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = path.join(ROOT, 'entries', 'register.mjs');
// Both of the SDK's modules with classes (Protocol, the stdio client transport): one copy, used (a
// Client constructed: register patches each class at its first use, lib/patch/deferred.cjs).
const IMPORTS = "const { Client } = await import('@modelcontextprotocol/sdk/client/index.js'); await import('@modelcontextprotocol/sdk/client/stdio.js');";
const APP = `${IMPORTS} new Client({ name: 'c', version: '1' });`;

function env(extra) {
  const out = { ...process.env, ...extra };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN']) delete out[name];
  if (extra.NODE_DEBUG === undefined) delete out.NODE_DEBUG;
  return out;
}

// Bun's row skips only where no Bun platform package exists: on the systems the suites are tested on,
// test/support/runtimes.mjs fails the suite when Bun is missing, so it always runs in .ci/run.
const RUNNERS = [
  ['node', process.execPath, ['--import', pathToFileURL(REGISTER).href, '--input-type=module', '-e', APP]],
  ['bun', RUNTIMES.bun?.command, ['--preload', REGISTER, '-e', APP]],
];

for (const [name, command, args] of RUNNERS) {
  test(`${name}: one NODE_DEBUG line for the SDK copy patched, none without NODE_DEBUG`, { skip: command === undefined && 'Bun is not installed for this platform' }, async () => {
    const on = await runCommand(command, args, { cwd: ROOT, env: env({ NODE_DEBUG: 'mcp-ordered-dispatch' }) });
    assert.equal(on.code, 0, show(on));
    const lines = on.stderr.split('\n').filter((l) => /^MCP-ORDERED-DISPATCH \d+: patched /.test(l));
    assert.equal(lines.length, 1, show(on));
    assert.match(lines[0], /patched @modelcontextprotocol\/sdk@\d+\.\d+\.\d+/);
    const off = await runCommand(command, args, { cwd: ROOT, env: env({}) });
    assert.equal(off.code, 0, show(off));
    assert.equal(off.stderr, '', show(off));
    // Imported and never used: nothing patched yet, so no line.
    const unused = await runCommand(command, args.map((a) => (a === APP ? IMPORTS : a)), { cwd: ROOT, env: env({ NODE_DEBUG: 'mcp-ordered-dispatch' }) });
    assert.equal(unused.code, 0, show(unused));
    assert.deepEqual(unused.stderr.split('\n').filter((l) => / patched /.test(l)), [], show(unused));
  });
}
