// The bundler plugin (mcp-ordered-dispatch/esbuild, /rollup, /vite, /webpack,
// /bun) building the 1.x and the 2.x client app of test/support/bundles.mjs,
// each output then run alone: its directory copied into an empty temporary
// directory with no node_modules there or above, against the coalescing
// server (60 progress notifications in the response's read).
//   - built with the plugin: 0 lost, no onerror, stderr empty; the bundled
//     Protocol and stdio transport patched, the addon loaded from the file the
//     build put beside the output;
//   - built without it: every progress notification lost.
// The matrix, bounded to about two minutes on two cores (webpack and Vite
// builds take 5-12 s each here, so each runs where it shows most):
//   1.x app: every bundler - esbuild (CommonJS; ES module minified), rollup
//     (CommonJS terser-minified), Vite build (ES module), webpack (production
//     minified; development with devtool 'eval'), bun build --minify (ES
//     module; CommonJS);
//   2.x app: esbuild (ES module minified), rollup (ES module
//     terser-minified), Vite build (CommonJS), webpack (production minified,
//     ES module), bun build --minify (ES module).
//   Without the plugin: one per bundler (1.x: esbuild, rollup, webpack
//   development 'eval', bun; 2.x: Vite). test/register/bundled.test.mjs runs
//   every other stock bundle of test/support/bundles.mjs, all losing progress.
// Also: a platform the build did not include - the build warns once, the app
// runs stock with one NativeAddonWarning saying what the artifact lacks and how
// to fix the build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { buildBundles, bunBinary, PROGRESS, ROOT, APPS, appSource } from '../support/bundles.mjs';
import { runAlone } from '../support/built-alone.mjs';

const require = createRequire(import.meta.url);
const native = require('../../lib/native/addon.cjs');
const ADDON = native.binaryFileName();

const WITH_PLUGIN = [
  'sdk1 esbuild cjs plain',
  'sdk1 esbuild esm minify',
  'sdk1 rollup cjs terser',
  'sdk1 vite esm build',
  'sdk1 webpack cjs production-terser',
  'sdk1 webpack cjs development-eval',
  'sdk1 bun esm minify',
  'sdk1 bun cjs minify',
  'sdk2 esbuild esm minify',
  'sdk2 rollup esm terser',
  'sdk2 vite cjs build',
  'sdk2 webpack esm production-terser',
  'sdk2 bun esm minify',
];
const WITHOUT_PLUGIN = [
  'sdk1 esbuild cjs plain',
  'sdk1 rollup cjs terser',
  'sdk1 webpack cjs development-eval',
  'sdk1 bun esm minify',
  'sdk2 vite cjs build',
];

const label = (b) => `${b.app} ${b.bundler} ${b.format} ${b.variant}`;
const among = (list) => (b) => list.includes(label(b));

let dir;
let built = [];
let stock = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-plugin-'));
  fs.mkdirSync(path.join(dir, 'with'));
  fs.mkdirSync(path.join(dir, 'without'));
  built = await buildBundles(path.join(dir, 'with'), among(WITH_PLUGIN), { plugin: {}, separate: true, extended: true });
  stock = await buildBundles(path.join(dir, 'without'), among(WITHOUT_PLUGIN), { separate: true, extended: true });
}, { timeout: 600_000 });

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the suite built every bundle of its matrix (bun where its platform binary installed)', (t) => {
  const withBun = bunBinary() !== undefined;
  if (!withBun) t.diagnostic(`bun: no platform binary for ${process.platform}-${process.arch}; its bundles are not built`);
  const expect = (list) => list.filter((l) => withBun || !l.includes(' bun ')).sort();
  assert.deepEqual(built.map(label).sort(), expect(WITH_PLUGIN));
  assert.deepEqual(stock.map(label).sort(), expect(WITHOUT_PLUGIN));
  for (const b of built) {
    const text = fs.readFileSync(b.file, 'utf8');
    // Minified or not, the build-time blocks are in: one per SDK class (Protocol, the stdio transport).
    assert.ok(text.includes('__mcpOrderedDispatchBuilt'), `${label(b)}: the build-time blocks`);
    // webpack says what it could not bundle statically; the plugin adds nothing to say.
    if (b.warnings) assert.deepEqual(b.warnings, [], label(b));
  }
});

test('built with the plugin, each output run alone loses nothing and prints nothing', async (t) => {
  for (const b of built) {
    await t.test(label(b), async () => {
      const out = path.dirname(b.file);
      const r = await runAlone(out, process.execPath, [path.join('{alone}', path.basename(b.file))]);
      // What the build put beside the bundle: the addon (bun names its copy with a content hash).
      const addon = b.bundler === 'bun' ? new RegExp(`^${ADDON.replace('.node', '')}-\\w+\\.node$`) : new RegExp(`^${ADDON.replaceAll('.', '\\.')}$`);
      assert.ok(r.files.some((f) => addon.test(f)), `${label(b)}: the addon beside the output: ${r.files}`);
      assert.equal(r.expected, PROGRESS);
      assert.equal(r.lost, 0, show(r));
      assert.equal(r.onerrors, 0, show(r));
      assert.equal(r.failed, 0, show(r));
      assert.equal(r.patched, true);
      assert.equal(r.framing, true);
      assert.equal(r.fastProgress, PROGRESS);
      assert.equal(r.stderr, '');
    });
  }
});

test('built without the plugin, the same outputs run alone lose the coalesced progress', async (t) => {
  for (const b of stock) {
    await t.test(label(b), async () => {
      const out = path.dirname(b.file);
      const r = await runAlone(out, process.execPath, [path.join('{alone}', path.basename(b.file))]);
      assert.ok(!r.files.some((f) => f.endsWith('.node')), `nothing beside a stock build: ${r.files}`);
      assert.equal(r.expected, PROGRESS);
      assert.equal(r.lost, PROGRESS, show(r));
      assert.equal(r.patched, false);
    });
  }
});

test('a platform the build did not include: one build warning; the app runs stock with one warning saying what the artifact lacks and how to fix the build', async (t) => {
  const esbuild = require('esbuild');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-plugin-missing-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  const entry = path.join(work, 'app.mjs');
  fs.writeFileSync(entry, appSource(APPS.sdk1));
  // A platform other than this one, whose package is not installed here.
  const other = native.platformArchABI() === 'darwin-arm64' ? 'win32-arm64-msvc' : 'darwin-arm64';
  const out = path.join(work, 'out');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: path.join(out, 'app.cjs'),
    nodePaths: [path.join(ROOT, 'node_modules')],
    logLevel: 'silent',
    plugins: [require('../../esbuild.cjs')({ platforms: [other] })],
  });
  const warnings = result.warnings.map((w) => w.text);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], new RegExp(`no addon for ${other}.*${native.platformPackageName(other)}`));
  assert.deepEqual(fs.readdirSync(out), ['app.cjs']);
  const r = await runAlone(out, process.execPath, [path.join('{alone}', 'app.cjs')]);
  assert.equal(r.lost, PROGRESS, show(r));
  assert.equal(r.patched, false);
  const lines = r.stderr.trim().split('\n').filter((l) => l.includes('NativeAddonWarning'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`This build includes no native addon, not ${native.platformArchABI()}'s: add '${native.platformArchABI()}' to the mcp-ordered-dispatch plugin's platforms option`));
});

function show(r) {
  return `${JSON.stringify({ ...r, raw: undefined })}\n--- stderr\n${r.raw?.stderr ?? r.stderr}`;
}

test('a module whose SDK class cannot be given its block is left as it was, and the build says so once, naming it', async (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-plugin-unpatchable-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  // A Protocol-shaped class inside another class's method, reading that class's private field:
  // on its own it does not compile, so the proof of the changed class (lib/shape/blocks.cjs) fails.
  const odd = path.join(work, 'odd.cjs');
  fs.writeFileSync(odd, `class Outer {
  static #k = 1;
  static make() {
    return class {
      constructor() { this._progressHandlers = new Map(); }
      _onnotification(e) { return Outer.#k + e; }
      _onresponse(e) {}
      _onrequest(e, t) {}
    };
  }
}
module.exports = Outer.make();
`);
  fs.writeFileSync(path.join(work, 'entry.cjs'), "const P = require('./odd.cjs'); console.log(typeof P, typeof P.prototype._onnotification);\n");
  const out = path.join(work, 'out', 'app.cjs');
  const result = await require('esbuild').build({ entryPoints: [path.join(work, 'entry.cjs')], bundle: true, platform: 'node', outfile: out, logLevel: 'silent', plugins: [require('../../esbuild.cjs')()] });
  const warnings = result.warnings.map((w) => w.text);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.ok(warnings[0].includes(odd) && /could not be patched at build time; the module is left as it was/.test(warnings[0]), warnings[0]);
  const text = fs.readFileSync(out, 'utf8');
  assert.ok(!text.includes('__mcpOrderedDispatchBuilt') && !text.includes('runtime.cjs'), 'nothing of the plugin in the output');
  const { execFileSync } = await import('node:child_process');
  assert.equal(execFileSync(process.execPath, [out], { encoding: 'utf8' }).trim(), 'function function');
});
