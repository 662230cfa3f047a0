// `doctor` on a project whose dependencies carry their own SDK copies
// (nested at any depth, and in pnpm's store): every copy is listed, with
// where it is, and its reproduction is run; the summary counts them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, show } from '../support/spawn-node.mjs';
import { makeNestedProject, ROOT } from '../support/nested-project.mjs';

const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
let project;

before(() => {
  project = makeNestedProject();
});
after(() => project && fs.rmSync(project.dir, { recursive: true, force: true }));

test('doctor lists the top-level and every nested copy, runs each, and says where each is', async () => {
  const r = await runCommand(process.execPath, [BIN, 'doctor', '--json', '--pairs=1'], { cwd: project.dir, timeout: 600_000 });
  assert.equal(r.code, 0, show(r));
  const result = JSON.parse(r.stdout);
  const rows = result.rows.map((row) => `${row.name}@${row.version} ${row.build} ${row.where} ${row.verdict}`).sort();
  assert.deepEqual(rows, [
    '@modelcontextprotocol/client@2.0.0 cjs nested fixed',
    '@modelcontextprotocol/client@2.0.0 esm nested fixed',
    '@modelcontextprotocol/sdk@1.2.0 cjs nested fixed',
    '@modelcontextprotocol/sdk@1.2.0 esm nested fixed',
    '@modelcontextprotocol/sdk@1.23.0 cjs nested fixed',
    '@modelcontextprotocol/sdk@1.23.0 esm nested fixed',
    '@modelcontextprotocol/sdk@1.32.2 cjs top-level fixed',
    '@modelcontextprotocol/sdk@1.32.2 esm top-level fixed',
  ]);
  for (const row of result.rows) {
    assert.ok(row.stock.lost > 0, `${row.name}@${row.version}: stock lost progress`);
    assert.equal(row.patched.lost, 0, `${row.name}@${row.version}: patched lost none`);
  }
  assert.match(result.message, /Found 8 SDK build\(s\): 2 top-level, 6 nested, 0 bundled\./);
  assert.match(result.message, /All 8 SDK build\(s\) found are fixed/);
  assert.match(result.message, /@modelcontextprotocol\/sdk@1\.23\.0 \(CJS, nested\): \S*node_modules\/dep\/node_modules\/@modelcontextprotocol\/sdk \(\S*sdk-1-middle/);
});
