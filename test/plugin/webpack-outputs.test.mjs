// The bundler plugin's output path in webpack and rspack
// (lib/plugin/webpack-outputs.cjs: each output asset holding an SDK class
// patched after the minimizer), beyond test/plugin/webpack.test.mjs's
// matrix and test/plugin/source-maps.test.mjs:
//   - an app without the SDK: every output file (the bundle, its source map)
//     byte-identical to the build without the plugin, and no addon; an SDK
//     module another plugin copies in as an asset is left as it was too;
//   - the SDK in a chunk of its own in a subfolder (a dynamic import,
//     chunkFilename 'chunks/[id].cjs'; rspack): the addon lands beside that chunk,
//     not beside the entry, and the output run alone loses nothing;
//   - `devtool: false` with the eval plugin added by hand (rspack's
//     EvalSourceMapDevToolPlugin; modules inside eval strings, where an
//     output's classes cannot be reached): the plugin takes the loader, and
//     the output run alone loses nothing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { APPS, PROGRESS, appSource, pluginFor, resolvingHome } from '../support/bundles.mjs';
import { runAlone } from '../support/built-alone.mjs';

const require = createRequire(import.meta.url);
const native = require('../../lib/native/platform.cjs');
const ADDON = native.binaryFileName();
// An SDK class module (1.x's Protocol, ES module), as a plugin might copy it into the output.
const SDK_PROTOCOL = require.resolve('@modelcontextprotocol/sdk/shared/protocol.js').replace(`${path.sep}cjs${path.sep}`, `${path.sep}esm${path.sep}`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-webpack-outputs-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const BUNDLERS = {
  webpack: () => require('webpack'),
  rspack: () => require('@rspack/core').rspack,
};

/** A plugin that copies `file` in as the asset `name`, as copy-webpack-plugin does. */
function copying(file, name) {
  return {
    apply(compiler) {
      const { Compilation, sources } = compiler.webpack ?? compiler.rspack;
      compiler.hooks.thisCompilation.tap('copying', (compilation) => {
        compilation.hooks.processAssets.tap({ name: 'copying', stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
          compilation.emitAsset(name, new sources.RawSource(fs.readFileSync(file)));
        });
      });
    },
  };
}

/** A production build of `entry` into `out` by `bundler`, with the plugin or not: the build's warnings. */
function build(bundler, entry, out, { plugin, devtool = false, chunkFilename, also = [] } = {}) {
  return new Promise((resolve, reject) => {
    BUNDLERS[bundler]()({
      mode: 'production', target: 'node20', entry, devtool, context: path.dirname(entry),
      output: { path: out, filename: 'app.cjs', library: { type: 'commonjs2' }, ...(chunkFilename ? { chunkFilename } : {}) },
      performance: { hints: false }, infrastructureLogging: { level: 'none' }, stats: 'none',
      plugins: [...(plugin ? [pluginFor(bundler)()] : []), ...also],
    }, (error, stats) => (error || stats.hasErrors() ? reject(error ?? new Error(stats.toString('errors-only'))) : resolve(stats.compilation.getWarnings().map((w) => w.message))));
  });
}

/** Every file under `root`, relative, sorted. */
function filesUnder(root) {
  return fs.readdirSync(root, { recursive: true }).filter((f) => fs.statSync(path.join(root, f)).isFile()).sort();
}

for (const bundler of Object.keys(BUNDLERS)) {
  test(`${bundler}: an output without the SDK is byte-identical to the build without the plugin (its source map too), and gets no addon; so is an SDK module copied in as an asset`, async () => {
    const home = resolvingHome(dir, `plain-${bundler}`);
    const entry = path.join(home, 'app.mjs');
    // The marker names in a string: the first test passes, there is no class.
    fs.writeFileSync(entry, "import path from 'node:path';\nconsole.log(path.join('a', 'b'), ['_progressHandlers', '_onnotification', '_onrequest'].join());\n");
    const outs = {};
    for (const plugin of [false, true]) {
      const out = path.join(dir, `plain-${bundler}-${plugin ? 'plugin' : 'stock'}`);
      const also = [copying(SDK_PROTOCOL, 'vendor/protocol.js')];
      assert.deepEqual(await build(bundler, entry, out, { plugin, devtool: 'source-map', also }), []);
      outs[plugin ? 'plugin' : 'stock'] = out;
    }
    assert.deepEqual(filesUnder(outs.plugin), filesUnder(outs.stock));
    assert.ok(!filesUnder(outs.plugin).includes(ADDON));
    for (const name of filesUnder(outs.stock)) assert.ok(fs.readFileSync(path.join(outs.plugin, name)).equals(fs.readFileSync(path.join(outs.stock, name))), name);
    // (The minimizer takes the copied module as any script; the plugin leaves it to the stock build's bytes.)
    assert.ok(filesUnder(outs.plugin).includes(path.join('vendor', 'protocol.js')), 'the copied SDK module is in the output');
  });

  // One bundler for the split build (the same code serves both; a webpack build of the app takes ~10 s here).
  if (bundler === 'rspack') test(`${bundler}: the SDK in a chunk of its own in a subfolder gets the addon beside it, and the output run alone loses nothing`, async () => {
    const home = resolvingHome(dir, `split-${bundler}`);
    fs.writeFileSync(path.join(home, 'client.mjs'), appSource(APPS.sdk1));
    const entry = path.join(home, 'app.mjs');
    fs.writeFileSync(entry, "import('./client.mjs');\n");
    const out = path.join(dir, `split-${bundler}`);
    assert.deepEqual(await build(bundler, entry, out, { plugin: true, chunkFilename: 'chunks/[id].cjs' }), []);
    const files = filesUnder(out);
    const chunks = files.filter((f) => f.startsWith(`chunks${path.sep}`) && f.endsWith('.cjs'));
    assert.ok(chunks.length >= 1, `a chunk split off: ${files.join(', ')}`);
    assert.ok(files.includes(path.join('chunks', ADDON)), `the addon beside the SDK's chunk: ${files.join(', ')}`);
    assert.ok(!files.includes(ADDON), `no addon beside the entry, which holds no SDK class: ${files.join(', ')}`);
    assert.ok(!fs.readFileSync(path.join(out, 'app.cjs'), 'utf8').includes('__mcpOrderedDispatchBuilt'), 'the entry is left as the bundler wrote it');
    const r = await runAlone(out, process.execPath, ['{alone}/app.cjs']);
    assert.equal(r.stderr, '');
    assert.deepEqual({ lost: r.lost, expected: r.expected, onerrors: r.onerrors, patched: r.patched }, { lost: 0, expected: PROGRESS, onerrors: 0, patched: true });
  });

  if (bundler === 'rspack') test(`${bundler}: devtool false with the eval plugin added by hand takes the loader; the output run alone loses nothing`, async () => {
    const home = resolvingHome(dir, `eval-${bundler}`);
    const entry = path.join(home, 'app.mjs');
    fs.writeFileSync(entry, appSource(APPS.sdk1));
    const out = path.join(dir, `eval-${bundler}`);
    const { EvalSourceMapDevToolPlugin } = require('@rspack/core');
    assert.deepEqual(await build(bundler, entry, out, { plugin: true, also: [new EvalSourceMapDevToolPlugin({})] }), []);
    const code = fs.readFileSync(path.join(out, 'app.cjs'), 'utf8');
    assert.match(code, /eval\(/, 'the modules are inside eval strings');
    assert.ok(!code.startsWith('typeof globalThis.__mcpOrderedDispatchBuilt'), 'no runtime head: the loader path, not the output path');
    const r = await runAlone(out, process.execPath, ['{alone}/app.cjs']);
    assert.equal(r.stderr, '');
    assert.deepEqual({ lost: r.lost, expected: r.expected, onerrors: r.onerrors, patched: r.patched }, { lost: 0, expected: PROGRESS, onerrors: 0, patched: true });
  });
}
