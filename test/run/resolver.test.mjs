// run's resolver (lib/native/can-start.cjs resolveCommand) against the cases the
// native launcher's is tested against too (crates/launcher/tests/resolver.rs):
// test/run/resolver-cases.json, with the platform passed in, so the Windows
// cases run on Linux too; and the batch-file test on each case's file.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { resolveCommand } = require('../../lib/native/can-start.cjs');
const { isBatchFile } = require('../../lib/run/plan.cjs');
const { cases } = require('./resolver-cases.json');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-resolver-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the case table has a case of each kind', () => {
  assert.ok(cases.length >= 15);
  for (const platform of ['linux', 'win32']) assert.ok(cases.some((c) => c.platform === platform), platform);
  assert.ok(cases.some((c) => c.batch === true));
});

cases.forEach((c, at) => {
  const skip = process.platform === 'win32' && c.platform !== 'win32' && 'execute bits are Unix\'s';
  test(`${c.platform}: ${c.name}`, { skip }, () => {
    const root = path.join(dir, String(at));
    for (const d of c.dirs ?? []) fs.mkdirSync(path.join(root, d), { recursive: true });
    for (const [file, mode] of Object.entries(c.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), '', { mode: parseInt(mode, 8) });
    }
    fs.mkdirSync(root, { recursive: true });
    const env = {};
    if (c.path !== null) env.PATH = c.path.join(c.platform === 'win32' ? ';' : ':');
    if (typeof c.pathext === 'string') env.PATHEXT = c.pathext;
    const found = resolveCommand(c.command, env, path.join(root, c.cwd ?? '.'), c.platform);
    assert.equal(found, c.found === null ? undefined : path.join(root, c.found));
    if (c.batch !== undefined) assert.equal(isBatchFile(found, c.platform), c.batch);
  });
});
