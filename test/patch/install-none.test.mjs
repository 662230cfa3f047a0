// install() where no SDK copy can be found: it patches nothing, as before,
// but never silently: one NoSdkWarning names where it looked and what reaches
// a copy it cannot see, and the result lists the directories searched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('install() with no SDK in reach: patched [], the directories searched, and one warning that says so', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-no-sdk-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = `const { install } = require(${JSON.stringify(ROOT)});
    const a = install(); const b = install();
    console.log(JSON.stringify({ patched: a.patched.length, framing: a.framing.length, searched: a.searched, again: b.patched.length }));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim());
  assert.equal(out.patched, 0);
  assert.equal(out.framing, 0);
  assert.equal(out.again, 0);
  assert.equal(out.searched[0], fs.realpathSync(dir), 'the working directory is searched first');
  const warnings = r.stderr.split('\n').filter((l) => l.includes('NoSdkWarning'));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(warnings[0], /install\(\) found no MCP SDK copy to patch\. It looked for .* node_modules directories that .*mcp-od-no-sdk-/);
  assert.match(r.stderr, /patchProtocol\(\)/);
});

test('install() that finds the SDK says nothing of it', () => {
  const r = spawnSync(process.execPath, ['-e', `const i = require(${JSON.stringify(ROOT)}).install(); console.log(i.patched.length, i.searched.length); i.uninstall();`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Number(r.stdout.split(' ')[0]) > 0, r.stdout);
  assert.doesNotMatch(r.stderr, /NoSdkWarning/);
});
