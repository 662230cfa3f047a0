// install() and patchProtocol() in Bun and Deno: the coalescing reproduction
// (a raw server that writes the last progress notification and the response
// in one write) for SDK 1.x and client 2.x, ES module and CommonJS apps, run
// in the runtime itself. Stock loses progress there as it does in Node;
// patched, nothing is lost and nothing is written to stderr.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { runReproChild, PAIRS } from '../support/run-repro.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { FLAVORS } = require('../support/sdk.cjs');

for (const [name, runtime] of Object.entries(RUNTIMES)) {
  for (const { generation: sdk, build } of FLAVORS) {
    const label = `${name}: SDK ${sdk}.x ${build.toUpperCase()} app, stock loses progress; install() and patchProtocol() lose none`;
    test(label, { skip: runtime ? false : `${name} is not installed for ${process.platform}-${process.arch}` }, async () => {
      const run = (options) => runReproChild({ sdk, build, pairs: PAIRS, mode: 'last-with-response', runtime, env: { ...process.env, ...runtime.env }, ...options });
      const stock = await run({ patched: false });
      assert.equal(stock.progressExpected, PAIRS * 3);
      assert.ok(stock.lost > 0 && stock.unknownTokenErrors > 0, `stock ${name} lost nothing, so the reproduction is not real: ${JSON.stringify(stock)}`);
      for (const apply of ['install', 'patchProtocol']) {
        const patched = await run({ patched: true, apply });
        assert.equal(patched.lost, 0, `${apply}() in ${name}: ${JSON.stringify(patched)}`);
        assert.equal(patched.progressReceived, PAIRS * 3);
        assert.equal(patched.onerrorCount, 0, JSON.stringify(patched.onerrors));
        assert.equal(patched.callsOutOfOrder, 0);
        assert.equal(patched.stderr, '', `${apply}() in ${name} wrote to stderr`);
      }
    });
  }
}

test('both runtimes come from their registry packages on this platform (linux x64: never skipped here)', { skip: process.platform === 'linux' && process.arch === 'x64' ? false : 'only linux x64 is checked' }, () => {
  assert.ok(RUNTIMES.bun, '@oven/bun-linux-x64 is installed (devDependency bun)');
  assert.ok(RUNTIMES.deno, '@deno/linux-x64-glibc is installed (devDependency deno)');
});

test('deno without FFI permission: install() throws the NativeAddonError that names --allow-ffi, not a reinstall', { skip: RUNTIMES.deno ? false : 'deno is not installed here' }, async () => {
  const { spawnSync } = await import('node:child_process');
  const fixture = fileURLToPath(new URL('./fixtures/install-error.mjs', import.meta.url));
  const run = (permissions) => spawnSync(RUNTIMES.deno.command, ['run', '--no-lock', ...permissions, fixture], { encoding: 'utf8', env: { ...process.env, ...RUNTIMES.deno.env }, timeout: 120_000 });
  const refused = run(['--allow-read', '--allow-env', '--allow-sys']);
  assert.equal(refused.status, 0, refused.stderr);
  const error = JSON.parse(refused.stdout.trim().split('\n').pop());
  assert.equal(error.name, 'NativeAddonError');
  assert.equal(error.code, 'MCP_ORDERED_DISPATCH_LOAD_FAILED');
  assert.match(error.message, /refused to load the native addon.*--allow-ffi \(or -A\)/);
  assert.doesNotMatch(error.message, /not installed|Reinstall/);
  // With the permission, the same app installs.
  const allowed = run(['-A']);
  assert.equal(allowed.status, 0, allowed.stderr);
  assert.ok(JSON.parse(allowed.stdout.trim().split('\n').pop()).installed > 0, allowed.stdout);
});

test('a Bun-compiled executable with no addon inside: install() throws the NativeAddonError that says so and how to build it in, not "is not installed"', { skip: RUNTIMES.bun ? false : 'bun is not installed here' }, async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { runCommand, show } = await import('../support/spawn-node.mjs');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-bun-compiled-'));
  try {
    // The package as it ships (its files, no .node and no clone beside them), as an app's bundle would take it.
    const pkg = path.join(dir, 'pkg');
    for (const entry of ['package.json', ...require('../../package.json').files]) {
      if (fs.existsSync(path.join(root, entry))) fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true });
    }
    fs.writeFileSync(path.join(dir, 'app.mjs'), `import { install } from ${JSON.stringify(path.join(pkg, 'entries', 'index.mjs'))};
try { install(); console.log(JSON.stringify({ installed: true })); } catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })); }
`);
    const built = await runCommand(RUNTIMES.bun.command, ['build', '--compile', 'app.mjs', '--outfile', path.join(dir, 'run', 'app')], { cwd: dir, timeout: 120_000 });
    assert.equal(built.code, 0, show(built));
    const r = await runCommand(path.join(dir, 'run', 'app'), [], { cwd: path.join(dir, 'run'), timeout: 60_000 });
    assert.equal(r.code, 0, show(r));
    const error = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.equal(error.name, 'NativeAddonError');
    assert.match(error.message, /This process is a Bun-compiled executable: nothing can be installed into it.*bundler plugin.*MCP_ORDERED_DISPATCH_NATIVE/);
    assert.doesNotMatch(error.message, /is not installed|Reinstall/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
