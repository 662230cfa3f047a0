// `npm pack`, then `npm install ./mcp-ordered-dispatch-<version>.tgz` in an
// empty directory outside this repository: the tarball carries the binary
// built here and works from there; where that binary does not load, the
// install builds from the sources the tarball carries.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const repro = path.join(root, 'test', 'support', 'repro.cjs');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir;

function sh(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

const APP = `
const { install } = require('mcp-ordered-dispatch');
const { runRepro } = require(${JSON.stringify(repro)});
(async () => {
  const { patched } = install();
  const out = { patched: patched.map((p) => p.file) };
  const v1 = require('@modelcontextprotocol/sdk/client/index.js');
  const t1 = require('@modelcontextprotocol/sdk/client/stdio.js');
  out[1] = await runRepro({ Client: v1.Client, StdioClientTransport: t1.StdioClientTransport, generation: 1 }, { pairs: 3, concurrency: 2, mode: 'all-in-one' });
  const v2 = await import('@modelcontextprotocol/client');
  const t2 = await import('@modelcontextprotocol/client/stdio');
  out[2] = await runRepro({ Client: v2.Client, StdioClientTransport: t2.StdioClientTransport, generation: 2 }, { pairs: 3, concurrency: 2, mode: 'all-in-one' });
  console.log(JSON.stringify(out));
})();
`;

function runApp() {
  const out = execFileSync(process.execPath, ['app.cjs'], { cwd: dir, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

function assertNoLoss(result) {
  for (const g of ['1', '2']) {
    assert.equal(result[g].progressExpected, 18);
    assert.equal(result[g].lost, 0, JSON.stringify(result[g]));
    assert.equal(result[g].onerrorCount, 0, JSON.stringify(result[g].onerrors));
  }
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-ordered-dispatch-pack-'));
  sh(npm, ['pack', '--pack-destination', dir], root);
  const tarball = path.join(dir, `${pkg.name}-${pkg.version}.tgz`);
  assert.ok(fs.existsSync(tarball), 'npm pack wrote the tarball');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'pack-test', version: '1.0.0', private: true }));
  fs.writeFileSync(path.join(dir, 'app.cjs'), APP);
  const sdk = pkg.devDependencies;
  sh(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      `./${path.basename(tarball)}`,
      `@modelcontextprotocol/sdk@${sdk['@modelcontextprotocol/sdk']}`,
      `@modelcontextprotocol/client@${sdk['@modelcontextprotocol/client']}`,
      `zod@${sdk.zod}`,
    ],
    dir,
  );
});

after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

test('the tarball carries the prebuilt binary, the sources to rebuild it, and no test files', () => {
  const installed = path.join(dir, 'node_modules', pkg.name);
  const prebuilds = fs.readdirSync(path.join(installed, 'prebuilds'));
  assert.equal(prebuilds.length, 1);
  for (const file of ['Cargo.toml', 'Cargo.lock', 'build.rs', 'src/lib.rs', 'index.d.ts', 'register.mjs', 'register.cjs']) {
    assert.ok(fs.existsSync(path.join(installed, file)), `${file} is in the tarball`);
  }
  assert.equal(fs.existsSync(path.join(installed, 'test')), false);
});

test('installed from the tarball in an empty directory, it fixes the lost progress there', () => {
  const result = runApp();
  assert.ok(result.patched.length >= 3, JSON.stringify(result.patched));
  for (const file of result.patched) assert.ok(file.startsWith(fs.realpathSync(dir)), `${file} is the copy installed beside the app`);
  assertNoLoss(result);
});

test('where the prebuilt binary does not load, the install builds it from source', { timeout: 600_000 }, () => {
  const installed = path.join(dir, 'node_modules', pkg.name);
  const [key] = fs.readdirSync(path.join(installed, 'prebuilds'));
  fs.writeFileSync(path.join(installed, 'prebuilds', key, 'mcp_ordered_dispatch.node'), 'not a shared library');
  // Reuse this repository's compiled dependencies; the package's own crate is rebuilt from the tarball's sources.
  const log = sh(npm, ['rebuild', pkg.name, '--foreground-scripts'], dir, {
    CARGO_TARGET_DIR: path.join(root, 'target'),
  });
  assert.match(log, /does not load .*building from source/);
  assert.match(log, /verified: .* loads/);
  assertNoLoss(runApp());
});
