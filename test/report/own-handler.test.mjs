// A host with its own progress handler (Gemini CLI's way): under
// `run --report` every notification reaches it, as stock, and the report
// counts them in a counter of their own (toOwnHandler), claiming none in the
// same read as their response as dropped by stock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const HOST = fileURLToPath(new URL('./fixtures/own-handler-host.mjs', import.meta.url));
const SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const PROGRESS = 3;

test('a host with its own progress handler: every notification delivered, stock and under run; the report counts them apart', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-own-'));
  try {
    const env = { ...process.env, MCP_ORDERED_DISPATCH_CACHE_DIR: cache };
    for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
    const args = [HOST, SERVER, String(PROGRESS)];
    const stock = await runCommand(process.execPath, args, { cwd: ROOT, env });
    assert.equal(stock.code, 0, show(stock));
    assert.deepEqual(JSON.parse(stock.stdout), { received: PROGRESS, onerrors: [] });
    const fixed = await runCommand(process.execPath, [BIN, 'run', '--report', '--', process.execPath, ...args], { cwd: ROOT, env });
    assert.equal(fixed.code, 0, show(fixed));
    assert.deepEqual(JSON.parse(fixed.stdout.trim().split('\n').pop()), { received: PROGRESS, onerrors: [] });
    const shown = await runCommand(process.execPath, [BIN, 'report', '--json'], { cwd: ROOT, env });
    assert.equal(shown.code, 0, show(shown));
    const host = JSON.parse(shown.stdout).records.find((r) => r.copies.length > 0);
    assert.ok(host, shown.stdout);
    assert.equal(host.counts.toOwnHandler, PROGRESS, JSON.stringify(host.counts));
    assert.equal(host.counts.sameRead, 0, JSON.stringify(host.counts));
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
