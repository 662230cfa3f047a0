// The bundler plugin through mcp-ordered-dispatch/esbuild (esbuild itself and
// tsup 9, which runs esbuild with write: false and writes the files itself)
// and /bun building the 1.x and the 2.x client app of
// test/support/bundles.mjs (rollup, rolldown, Vite: test/plugin/rollup.test.mjs;
// webpack, rspack: test/plugin/webpack.test.mjs), each output then run
// alone: its directory copied into an empty temporary directory with no
// node_modules there or above, against the coalescing server (60 progress
// notifications in the response's read); test/support/plugin-matrix.mjs runs
// the matrix:
//   - built with the plugin: 0 lost, no onerror, stderr empty; the bundled
//     Protocol and stdio transport patched, the addon loaded from the file the
//     build put beside the output; no path of this repository in the output;
//   - built without it: every progress notification lost, the app started.
// Every ES module output has only the usual banner defining `require`
// (createRequire(import.meta.url)): nothing the plugin adds needs
// __dirname or __filename. The matrix: both apps for esbuild (ES module,
// minified; CommonJS), tsup (ES module; CommonJS; both formats in one call,
// into one directory) and Bun.build (ES module, minified); Bun.build
// CommonJS for the 1.x app. Without the plugin: esbuild's and tsup's (below;
// bun build --compile, with and without: test/plugin/artifacts.test.mjs).
// Also: a platform the build did not include - the build warns once, the app
// runs stock with one NativeAddonWarning saying what the artifact lacks and how
// to fix the build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PROGRESS, ROOT, APPS, appSource, pluginFor } from '../support/bundles.mjs';
import { runAlone } from '../support/built-alone.mjs';
import { pluginMatrixSuite, show } from '../support/plugin-matrix.mjs';

const require = createRequire(import.meta.url);
const native = require('../../lib/native/platform.cjs');

const WITH_PLUGIN = [
  ...['sdk1', 'sdk2'].flatMap((app) => [
    `${app} esbuild esm minify`,
    `${app} esbuild cjs plain`,
    `${app} tsup esm one`,
    `${app} tsup cjs one`,
    `${app} tsup esm dual`,
    `${app} tsup cjs dual`,
    `${app} bun esm minify`,
  ]),
  'sdk1 bun cjs minify',
];
// The control: the same pipeline without the plugin loses progress run alone
// (esbuild's and bun's other stock bundles: test/register/bundled.test.mjs).
const WITHOUT_PLUGIN = [
  'sdk2 esbuild cjs plain',
  'sdk1 tsup esm dual',
  'sdk1 tsup cjs dual',
];

pluginMatrixSuite({ withPlugin: WITH_PLUGIN, withoutPlugin: WITHOUT_PLUGIN });

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
    plugins: [pluginFor('esbuild')({ platforms: [other] })],
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
