// The bundler plugin's runtime as one module (lib/plugin/runtime-bundle.cjs):
//   - a rollup build with the plugin takes the one module, not the thirty it
//     is made from;
//   - in a copy of the package (lib/ and package.json, outside this
//     repository: no esbuild of its own to find), without the bundle: none is
//     made and the plugin takes runtime.cjs; written with an esbuild, it is
//     current, and it runs (start and its helpers); one of its files changed,
//     it is stale: not taken without an esbuild, made again with one.
// Each step in a child process of its own (the module keeps what it found).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ESBUILD = require.resolve('esbuild');

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-runtime-bundle-'));
});
after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

/** Runs `body` (with `b`, the copy's runtime-bundle.cjs, and `esbuild`) in a child; returns what it printed, parsed. */
function inChild(pkg, body) {
  const script = `const b = require(${JSON.stringify(path.join(pkg, 'lib', 'plugin', 'runtime-bundle.cjs'))});
const esbuild = require(${JSON.stringify(ESBUILD)});
console.log(JSON.stringify((() => { ${body} })()));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('a rollup build with the plugin takes the runtime as its one module, none of the files it is made from', async () => {
  const { rollup } = require('rollup');
  const app = path.join(dir, 'rollup-app.mjs');
  fs.writeFileSync(app, "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nconsole.log(typeof Client);\n");
  const plugin = require(path.join(ROOT, 'entries', 'rollup.cjs'))();
  const bundle = await rollup({
    input: app,
    onwarn: () => {},
    plugins: [plugin, require('@rollup/plugin-node-resolve').default({ preferBuiltins: true, exportConditions: ['node'], modulePaths: [path.join(ROOT, 'node_modules')] }), require('@rollup/plugin-commonjs').default(), require('@rollup/plugin-json').default()],
  });
  try {
    const own = bundle.watchFiles.filter((id) => id.startsWith(path.join(ROOT, 'lib')));
    assert.deepEqual(own, [path.join(ROOT, 'lib', 'plugin', 'runtime.bundle.cjs')]);
  } finally {
    await bundle.close();
  }
});

test('a copy of the package: no bundle and no esbuild → runtime.cjs; written → current and running; a file changed → stale, made again with an esbuild', () => {
  const pkg = path.join(dir, 'pkg');
  fs.cpSync(path.join(ROOT, 'lib'), path.join(pkg, 'lib'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
  const bundleFile = path.join(pkg, 'lib', 'plugin', 'runtime.bundle.cjs');
  fs.rmSync(bundleFile, { force: true });

  assert.deepEqual(inChild(pkg, 'return { found: b.runtimeBundle() ?? null, file: b.runtimeFile() };'), { found: null, file: path.join(pkg, 'lib', 'plugin', 'runtime.cjs') });
  assert.equal(fs.existsSync(bundleFile), false);

  assert.equal(inChild(pkg, 'return b.writeRuntimeBundle(esbuild);'), bundleFile);
  const written = fs.readFileSync(bundleFile, 'utf8');
  const { inputs } = JSON.parse(written.slice(written.indexOf('{'), written.indexOf('\n')));
  for (const input of ['runtime.cjs', '../native/platform.cjs', '../patch/receiver.cjs', '../../package.json']) assert.ok(inputs.includes(input), `${input} in ${inputs}`);
  assert.equal(inputs.some((input) => input.startsWith('/') || input.includes('node_modules')), false, inputs.join(' '));
  const ran = inChild(pkg, `const found = b.runtimeBundle(); const start = require(b.runtimeFile());
    return { file: found.file, start: typeof start, same: start === start.default };`);
  assert.deepEqual(ran, { file: bundleFile, start: 'function', same: true });

  fs.appendFileSync(path.join(pkg, 'lib', 'native', 'platform.cjs'), '\n// changed after the bundle was made\n');
  assert.deepEqual(inChild(pkg, 'return { found: b.runtimeBundle() ?? null, file: b.runtimeFile() };'), { found: null, file: path.join(pkg, 'lib', 'plugin', 'runtime.cjs') });
  assert.equal(fs.readFileSync(bundleFile, 'utf8'), written, 'a stale bundle is left alone when nothing can make it');
  assert.equal(inChild(pkg, 'return b.runtimeBundle(esbuild).file;'), bundleFile);
  assert.notEqual(fs.readFileSync(bundleFile, 'utf8').split('\n')[0], written.split('\n')[0], 'made again, from the changed file');
  assert.equal(inChild(pkg, 'return b.runtimeBundle().file;'), bundleFile);
});
