// SDK copies installed under an npm alias (the version matrix's
// devDependencies: "sdk-1-oldest": "npm:@modelcontextprotocol/sdk@1.0.0",
// "sdk-1-oldest-cjs": "npm:@modelcontextprotocol/sdk@1.2.0") are found by the
// `name` in their package.json and patched by install() and by register. Each
// case is a real child process running the Client stdio reproduction
// (all-in-one writes) against the aliased copy (test/register/support/alias-app.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { runCommand, preload } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const APP = path.join(ROOT, 'test', 'register', 'support', 'alias-app.mjs');
const { findSdkCopies } = require('../../lib/discover/discover.cjs');
const { isSdkModuleFile } = require('../../lib/discover/package-of.cjs');

async function app(nodeArgs, args) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = await runCommand(process.execPath, [...nodeArgs, APP, ...args], { cwd: ROOT, env });
  if (r.code !== 0) throw new Error(`alias-app ${args.join(' ')} exited with ${r.signal ?? r.code}:\n${r.stderr}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
}

// [alias, version, build]: 1.0.0 is ESM only (require() loads that ESM build); 1.2.0 has a CJS build.
const COPIES = [
  ['sdk-1-oldest', '1.0.0', 'esm'],
  ['sdk-1-oldest-cjs', '1.2.0', 'esm'],
  ['sdk-1-oldest-cjs', '1.2.0', 'cjs'],
];

test('discovery: aliased copies are found by the name in their package.json; isSdkModuleFile says so of their files', () => {
  const copies = findSdkCopies([ROOT]).filter((c) => c.installedAs !== undefined);
  const found = copies.map((c) => `${c.installedAs} ${c.name}@${c.version} ${c.build}`).sort();
  for (const expected of [
    'client-2-oldest @modelcontextprotocol/client@2.0.0 cjs',
    'client-2-oldest @modelcontextprotocol/client@2.0.0 esm',
    'sdk-1-middle @modelcontextprotocol/sdk@1.23.0 cjs',
    'sdk-1-middle @modelcontextprotocol/sdk@1.23.0 esm',
    'sdk-1-oldest @modelcontextprotocol/sdk@1.0.0 esm',
    'sdk-1-oldest-cjs @modelcontextprotocol/sdk@1.2.0 cjs',
    'sdk-1-oldest-cjs @modelcontextprotocol/sdk@1.2.0 esm',
    'server-2-oldest @modelcontextprotocol/server@2.0.0 cjs',
    'server-2-oldest @modelcontextprotocol/server@2.0.0 esm',
  ]) {
    assert.ok(found.includes(expected), `${expected} not in ${JSON.stringify(found)}`);
  }
  assert.equal(isSdkModuleFile(path.join(ROOT, 'node_modules', 'sdk-1-oldest', 'dist', 'shared', 'protocol.js')), true);
  assert.equal(isSdkModuleFile(new URL('../../node_modules/client-2-oldest/dist/index.mjs', import.meta.url).href), true);
  assert.equal(isSdkModuleFile(path.join(ROOT, 'node_modules', 'zod', 'index.js')), false);
  assert.equal(isSdkModuleFile(path.join(ROOT, 'lib', 'patch', 'protocol.cjs')), false);
  assert.equal(isSdkModuleFile('node:fs'), false);
});

for (const [alias, version, build] of COPIES) {
  test(`${alias} (@modelcontextprotocol/sdk@${version}, ${build.toUpperCase()}): stock loses progress; install() patches it and it loses none`, async () => {
    const args = [`--alias=${alias}`, `--build=${build}`];
    const [stock, installed] = await Promise.all([app([], [...args, '--how=stock']), app([], [...args, '--how=install'])]);
    assert.equal(stock.patched, false);
    assert.equal(stock.result.lost, stock.result.progressExpected, JSON.stringify(stock.result));
    assert.equal(installed.patched, true, JSON.stringify(installed));
    assert.equal(installed.installed.length > 0, true, JSON.stringify(installed.installed));
    for (const p of installed.installed) {
      assert.equal(p.name, '@modelcontextprotocol/sdk');
      assert.equal(p.version, version);
    }
    assert.equal(installed.result.progressExpected, 12);
    assert.equal(installed.result.lost, 0, JSON.stringify(installed.result));
    assert.equal(installed.result.onerrorCount, 0, JSON.stringify(installed.result.onerrors));
    assert.deepEqual(installed.warnings, []);
  });

  const [flag, entry] = build === 'esm' ? ['--import', 'entries/register.mjs'] : ['--require', 'entries/register.cjs'];
  test(`${alias} (@modelcontextprotocol/sdk@${version}, ${build.toUpperCase()}): node ${flag} register patches it as it loads; it loses none`, async () => {
    const registered = await app(preload(flag, path.join(ROOT, entry)), [`--alias=${alias}`, `--build=${build}`, '--how=register']);
    assert.equal(registered.patched, true, JSON.stringify(registered));
    assert.equal(registered.result.progressExpected, 12);
    assert.equal(registered.result.lost, 0, JSON.stringify(registered.result));
    assert.equal(registered.result.onerrorCount, 0, JSON.stringify(registered.result.onerrors));
    assert.deepEqual(registered.warnings, []);
  });
}
