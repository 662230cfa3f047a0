// `mcp-ordered-dispatch/register` in Bun and Deno: the coalescing
// reproduction (a raw server that writes the last progress notification and
// the response in one write; stock loses progress in both runtimes: see
// test/runtimes/in-code.test.mjs) for SDK 1.x and client 2.x, ES module and
// CommonJS apps, under each way a runtime preloads it:
//   - Bun: `--preload <register>`, and a bunfig.toml `preload` entry;
//   - Deno: `--preload <path>` and `--import <path>`; and an app that takes
//     the SDK from `npm:` specifiers with no node_modules (Deno's npm cache),
//     under `--preload` and with install();
// each 0 lost, nothing on stderr. Also: client apps bundled by `bun build
// --minify` (and by esbuild and rollup) and run by Bun under register; a
// dependency's nested SDK copy under Bun; `bun test --preload register` on a
// test that asserts every progress notification; Deno apps register must not
// break (TypeScript, require() of JSON and of a .node addon); Deno without
// read access to the package: one warning, the app runs; and a runtime
// where register cannot hook module loading: one warning, the app runs stock.
import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runReproChild, PAIRS } from '../support/run-repro.mjs';
import { RUNTIMES, assertBunTestNeedsRegister } from '../support/runtimes.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';
import { buildBundles, ROOT, RAW_SERVER, PROGRESS } from '../support/bundles.mjs';
import { makeNestedProject } from '../support/nested-project.mjs';

const require = createRequire(import.meta.url);
const { FLAVORS } = require('../support/sdk.cjs');
const PKG = require('../../package.json');

const REGISTER = path.join(ROOT, 'entries', 'register.mjs');
// Deno's npm cache for the `npm:` specifier apps: kept between runs (like
// .node-lines/), filled from the npm registry the first time.
const DENO_DIR = path.join(ROOT, '.cache', 'deno');
const { bun, deno } = RUNTIMES;

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-runtimes-register-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function assertNoneLost(result, label) {
  assert.equal(result.progressExpected, PAIRS * 3, label);
  assert.equal(result.lost, 0, `${label}: ${JSON.stringify(result)}`);
  assert.equal(result.progressReceived, PAIRS * 3, label);
  assert.equal(result.onerrorCount, 0, `${label}: ${JSON.stringify(result.onerrors)}`);
  assert.equal(result.stderr, '', `${label} wrote to stderr`);
}

function assertLost(result, label) {
  assert.ok(result.lost > 0 && result.unknownTokenErrors > 0, `${label} lost nothing, so the reproduction is not real: ${JSON.stringify(result)}`);
}

/** The reproduction in `runtime` with `flags` before the script. */
function repro(runtime, { sdk, build }, flags, options = {}) {
  return runReproChild({
    sdk,
    build,
    pairs: PAIRS,
    runtime: { ...runtime, args: [...runtime.args, ...flags] },
    env: { ...process.env, ...runtime.env },
    ...options,
  });
}

for (const flavor of FLAVORS) {
  const app = `SDK ${flavor.generation}.x ${flavor.build.toUpperCase()} app`;
  test(`bun: ${app} under --preload register and a bunfig.toml preload: 0 lost`, { skip: bun ? false : 'bun is not installed here' }, async () => {
    assertNoneLost(await repro(bun, flavor, ['--preload', REGISTER]), `bun --preload register, ${app}`);
    const project = fs.mkdtempSync(path.join(dir, 'bunfig-'));
    fs.writeFileSync(path.join(project, 'bunfig.toml'), `preload = [${JSON.stringify(REGISTER)}]\n`);
    assertNoneLost(await repro(bun, flavor, [], { cwd: project }), `bunfig.toml preload, ${app}`);
    // The same directory without the preload entry: stock, so it is the entry that fixed it.
    fs.writeFileSync(path.join(project, 'bunfig.toml'), '');
    assertLost(await repro(bun, flavor, [], { cwd: project }), `bun without the preload, ${app}`);
  });

  test(`deno: ${app} under --preload <path> and --import <path>: 0 lost`, { skip: deno ? false : 'deno is not installed here' }, async () => {
    assertNoneLost(await repro(deno, flavor, ['--preload', REGISTER]), `deno --preload register, ${app}`);
    assertNoneLost(await repro(deno, flavor, ['--import', REGISTER]), `deno --import register, ${app}`);
  });
}

test('deno: an app that takes the SDK from npm: specifiers, no node_modules: stock loses; --preload register and install() lose none', { skip: deno ? false : 'deno is not installed here', timeout: 600_000 }, async () => {
  // The app sits outside the repository, so that Deno reads no package.json and makes no node_modules.
  const project = fs.mkdtempSync(path.join(dir, 'npm-app-'));
  const source = fs.readFileSync(fileURLToPath(new URL('./fixtures/npm-app.mjs', import.meta.url)), 'utf8')
    .replace("'../../support/repro.cjs'", JSON.stringify(path.join(ROOT, 'test', 'support', 'repro.cjs')))
    .replace("'../../../entries/index.mjs'", JSON.stringify(new URL('../../entries/index.mjs', import.meta.url).href));
  const file = path.join(project, 'app.mjs');
  fs.writeFileSync(file, source);
  const env = { ...process.env, ...deno.env, DENO_DIR };
  delete env.NODE_OPTIONS;
  const versions = { 1: PKG.devDependencies['@modelcontextprotocol/sdk'], 2: PKG.devDependencies['@modelcontextprotocol/client'] };
  for (const sdk of [1, 2]) {
    const run = async (flags, extra = []) => {
      const r = await runCommand(deno.command, [...deno.args, '--node-modules-dir=none', ...flags, file, `--sdk=${sdk}`, `--version=${versions[sdk]}`, `--pairs=${PAIRS}`, ...extra], { cwd: project, env, timeout: 300_000 });
      assert.equal(r.code, 0, show(r));
      const result = JSON.parse(r.stdout.trim().split('\n').pop());
      // Loaded from Deno's npm cache, not from any node_modules.
      assert.ok(result.clientFrom.startsWith(new URL(`file://${DENO_DIR}/npm/`).href), result.clientFrom);
      assert.ok(!fs.existsSync(path.join(project, 'node_modules')));
      // Deno reports downloads on stderr (the first run only); nothing else may be there.
      return { ...result, stderr: r.stderr.split('\n').filter((line) => line !== '' && !/Download/.test(line)).join('\n') };
    };
    assertLost(await run([]), `deno stock, npm: SDK ${sdk}.x`);
    assertNoneLost(await run(['--preload', REGISTER]), `deno --preload register, npm: SDK ${sdk}.x`);
    const installed = await run([], ['--apply=install']);
    assertNoneLost(installed, `deno install(), npm: SDK ${sdk}.x`);
    assert.ok(installed.patched.some((f) => f.startsWith(path.join(DENO_DIR, 'npm'))), `install() patched a copy in Deno's npm cache: ${installed.patched}`);
  }
});

// The client apps bundled by `bun build --minify` (ES module), and one CommonJS and one ES module bundle of other bundlers.
const BUN_RUN_BUNDLES = ['sdk1 bun esm minify', 'sdk2 bun esm minify', 'sdk1 esbuild cjs minify', 'sdk2 rollup esm terser'];

test('bun: client apps bundled by `bun build --minify` (and by esbuild and rollup), run by Bun under --preload register: 0 lost; stock: all lost', { skip: bun ? false : 'bun is not installed here' }, async () => {
  const bundles = await buildBundles(fs.mkdtempSync(path.join(dir, 'bundles-')), ({ app, bundler, format, variant }) => BUN_RUN_BUNDLES.includes(`${app} ${bundler} ${format} ${variant}`));
  assert.equal(bundles.length, BUN_RUN_BUNDLES.length);
  for (const { app, file } of bundles) {
    // A CommonJS bundle is require()d (as an editor's extension host loads one): Bun loads a
    // CommonJS entry file itself through no hook register has (README: Bun and Deno).
    let entry = file;
    if (file.endsWith('.cjs')) {
      entry = `${file}.entry.cjs`;
      fs.writeFileSync(entry, `require(${JSON.stringify(file)});\n`);
    }
    const run = async (flags) => {
      const r = await runCommand(bun.command, [...flags, entry], { cwd: path.dirname(file), env: { ...process.env, RAW_SERVER }, timeout: 120_000 });
      assert.equal(r.code, 0, show(r));
      return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
    };
    const stock = await run([]);
    assert.equal(stock.lost, PROGRESS, `${app} stock: ${JSON.stringify(stock)}`);
    const patched = await run(['--preload', REGISTER]);
    assert.equal(patched.lost, 0, `${app} under register: ${JSON.stringify(patched)}`);
    assert.equal(patched.onerrors, 0);
    assert.equal(patched.patched, true);
    assert.equal(patched.stderr, '');
  }
});

test('bun: a dependency\'s own nested SDK copy (1.23.0 in dep/node_modules), CommonJS and ES module builds, under --preload register: 0 lost; stock: all lost', { skip: bun ? false : 'bun is not installed here' }, async () => {
  const project = makeNestedProject();
  try {
    const nested = project.copies.nested;
    const repro = JSON.stringify(path.join(ROOT, 'test', 'support', 'repro.cjs'));
    const body = `const r = await runRepro({ Client, StdioClientTransport, generation: 1 }, { pairs: 3, progress: 20, mode: 'all-in-one' });
console.log(JSON.stringify({ lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount }));`;
    fs.writeFileSync(path.join(project.dir, 'app.cjs'), `const { runRepro } = require(${repro});
const { Client } = require(${JSON.stringify(path.join(nested, 'dist/cjs/client/index.js'))});
const { StdioClientTransport } = require(${JSON.stringify(path.join(nested, 'dist/cjs/client/stdio.js'))});
(async () => { ${body} })();\n`);
    fs.writeFileSync(path.join(project.dir, 'app.mjs'), `import { createRequire } from 'node:module';
const { runRepro } = createRequire(import.meta.url)(${repro});
const { Client } = await import(${JSON.stringify(path.join(nested, 'dist/esm/client/index.js'))});
const { StdioClientTransport } = await import(${JSON.stringify(path.join(nested, 'dist/esm/client/stdio.js'))});
${body}\n`);
    for (const app of ['app.cjs', 'app.mjs']) {
      const run = async (flags) => {
        const r = await runCommand(bun.command, [...flags, app], { cwd: project.dir, timeout: 120_000 });
        assert.equal(r.code, 0, show(r));
        return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
      };
      const stock = await run([]);
      assert.equal(stock.lost, 60, `${app} stock: ${JSON.stringify(stock)}`);
      const patched = await run(['--preload', REGISTER]);
      assert.deepEqual(patched, { lost: 0, expected: 60, onerrors: 0, stderr: '' }, app);
    }
  } finally {
    fs.rmSync(project.dir, { recursive: true, force: true });
  }
});

test('bun test --preload register: a test asserting every progress notification arrives passes (and fails without it)', { skip: bun ? false : 'bun is not installed here' }, async () => {
  const project = fs.mkdtempSync(path.join(dir, 'bun-test-'));
  const spec = path.join(project, 'progress.test.mjs');
  fs.writeFileSync(spec, `import { test, expect } from 'bun:test';
import { Client } from ${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/client/index.js'))};
import { StdioClientTransport } from ${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'))};
import { runRepro } from ${JSON.stringify(path.join(ROOT, 'test', 'support', 'repro.cjs'))};
test('every progress notification arrives', async () => {
  const r = await runRepro({ Client, StdioClientTransport, generation: 1 }, { pairs: ${PAIRS}, progress: 3, mode: 'last-with-response' });
  expect(r.progressReceived).toBe(${PAIRS * 3});
  expect(r.onerrorCount).toBe(0);
}, 60000);
`);
  await assertBunTestNeedsRegister(spec, { cwd: project, env: process.env, register: REGISTER });
});

test('deno: apps register must not break (TypeScript, require() of JSON and of a .node addon) run as they do without it', { skip: deno ? false : 'deno is not installed here' }, async () => {
  const project = fs.mkdtempSync(path.join(dir, 'deno-apps-'));
  fs.writeFileSync(path.join(project, 'data.json'), '{"answer":42}');
  fs.copyFileSync(path.join(ROOT, require('../../lib/native/platform.cjs').binaryFileName()), path.join(project, 'addon.node'));
  fs.writeFileSync(path.join(project, 'app.ts'), 'const n: number = 40 + 2;\nconsole.log(JSON.stringify({ n }));\n');
  fs.writeFileSync(path.join(project, 'app.cjs'), "console.log(JSON.stringify({ n: require('./data.json').answer, addon: typeof require('./addon.node').classify }));\n");
  for (const [app, expected] of [['app.ts', { n: 42 }], ['app.cjs', { n: 42, addon: 'function' }]]) {
    for (const flags of [[], ['--preload', REGISTER]]) {
      const r = await runCommand(deno.command, [...deno.args, ...flags, app], { cwd: project, env: { ...process.env, ...deno.env }, timeout: 120_000 });
      assert.equal(r.code, 0, show(r));
      assert.deepEqual(JSON.parse(r.stdout.trim()), expected, `${app} ${flags.join(' ')}`);
      assert.equal(r.stderr, '');
    }
  }
});

test('deno without read access to the package: register warns once and the app runs (it died of the first require() before)', { skip: deno ? false : 'deno is not installed here' }, async () => {
  const project = fs.mkdtempSync(path.join(dir, 'deno-no-read-'));
  fs.writeFileSync(path.join(project, 'app.mjs'), "console.log(JSON.stringify({ ran: true }));\n");
  const run = (permissions) => runCommand(deno.command, ['run', '--no-lock', ...permissions, '--preload', REGISTER, 'app.mjs'], { cwd: project, env: { ...process.env, ...deno.env }, timeout: 120_000 });
  const r = await run([]);
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout.trim()), { ran: true });
  const warned = r.stderr.split('\n').filter((line) => line.includes('MCP_ORDERED_DISPATCH_NO_READ'));
  assert.equal(warned.length, 1, r.stderr);
  assert.match(r.stderr, /register cannot read its own files .* in Deno: read access is not granted .*--allow-read and --allow-ffi/);
  // Read access to a folder that is not the package's is not enough either.
  const elsewhere = await run([`--allow-read=${project}`]);
  assert.equal(elsewhere.code, 0, show(elsewhere));
  assert.equal(elsewhere.stderr.split('\n').filter((line) => line.includes('MCP_ORDERED_DISPATCH_NO_READ')).length, 1, elsewhere.stderr);
  // With it, nothing is said.
  const allowed = await run(['-A']);
  assert.equal(allowed.code, 0, show(allowed));
  assert.equal(allowed.stderr, '');
});

test('a runtime where register cannot hook module loading: one warning naming the runtime and install(); the app runs stock', async () => {
  // Node with neither module.registerHooks() nor a working module.register() (a stub, as Bun's is), nor
  // Bun.plugin(). (Bun's own Bun.plugin cannot be taken away to simulate it there: it is not configurable.)
  const stub = path.join(dir, 'no-hooks.cjs');
  fs.writeFileSync(stub, "const Module = require('node:module');\ndelete Module.registerHooks;\nModule.register = () => undefined;\n");
  const node = { name: 'node', command: process.execPath, args: [] };
  const warned = (stderr) => stderr.split('\n').filter((line) => line.includes('MCP_ORDERED_DISPATCH_NO_HOOKS'));
  for (const flavor of [{ generation: 1, build: 'esm' }]) {
    const r = await repro(node, flavor, ['--require', stub, '--import', pathToFileURL(REGISTER).href]);
    assertLost(r, 'node without hooks');
    assert.equal(warned(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /cannot hook ES module loading in Node v[\d.]+ \(its module\.register\(\) installed no hooks\), so every MCP SDK copy loaded as an ES module stays stock.*call install\(\)/);
  }
});
