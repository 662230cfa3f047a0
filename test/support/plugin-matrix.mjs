// Test helper: the bundler plugin's matrix suite - the 1.x and 2.x client
// apps of test/support/bundles.mjs built with the plugin (`withPlugin`) and
// without it (`withoutPlugin`), each a list of 'app bundler format variant',
// each output then run alone (test/support/built-alone.mjs): with the plugin
// 0 lost, nothing on stderr, the addon beside the output, webpack and rspack
// with nothing to warn about, no path of the build machine (this
// repository's) in the output; without it every progress notification lost,
// the app starting all the same. Declares the suite's tests; used by
// test/plugin/bundlers.test.mjs, test/plugin/rollup.test.mjs and test/plugin/webpack.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { buildBundles, bunBinary, PROGRESS, ROOT } from './bundles.mjs';
import { runAlone } from './built-alone.mjs';

const require = createRequire(import.meta.url);
const ADDON = require('../../lib/native/platform.cjs').binaryFileName();

const label = (b) => `${b.app} ${b.bundler} ${b.format} ${b.variant}`;
const among = (list) => (b) => list.includes(label(b));

/** A result for a failure message: the app's line and its stderr. */
export function show(r) {
  return `${JSON.stringify({ ...r, raw: undefined })}\n--- stderr\n${r.raw?.stderr ?? r.stderr}`;
}

export function pluginMatrixSuite({ withPlugin, withoutPlugin }) {
  let dir;
  let built = [];
  let stock = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-plugin-'));
    fs.mkdirSync(path.join(dir, 'with'));
    fs.mkdirSync(path.join(dir, 'without'));
    built = await buildBundles(path.join(dir, 'with'), among(withPlugin), { plugin: {}, separate: true, extended: true });
    stock = await buildBundles(path.join(dir, 'without'), among(withoutPlugin), { separate: true, extended: true });
  }, { timeout: 600_000 });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the suite built every bundle of its matrix (bun where its platform binary installed)', (t) => {
    const withBun = bunBinary() !== undefined;
    if (!withBun) t.diagnostic(`bun: no platform binary for ${process.platform}-${process.arch}; its bundles are not built`);
    const expect = (list) => list.filter((l) => withBun || !l.includes(' bun ')).sort();
    assert.deepEqual(built.map(label).sort(), expect(withPlugin));
    assert.deepEqual(stock.map(label).sort(), expect(withoutPlugin));
    for (const b of built) {
      const text = fs.readFileSync(b.file, 'utf8');
      // Minified or not, the build-time blocks are in: one per SDK class (Protocol, the stdio transport).
      assert.ok(text.includes('__mcpOrderedDispatchBuilt'), `${label(b)}: the build-time blocks`);
      // devtool 'eval': each module's code is an eval string, the blocks inside it.
      if (b.variant === 'development-eval') assert.match(text, /eval\("[^\n]*__mcpOrderedDispatchBuilt/, `${label(b)}: the blocks inside the eval strings`);
      // webpack says what it could not bundle statically; the plugin adds nothing to say.
      if (b.warnings) assert.deepEqual(b.warnings, [], label(b));
    }
  });

  test('no path of the build machine in any output built with the plugin (a grep for this repository\'s)', () => {
    const root = path.resolve(ROOT);
    for (const b of built) {
      for (const name of fs.readdirSync(path.dirname(b.file)).filter((f) => /\.[cm]?js$/.test(f))) {
        const text = fs.readFileSync(path.join(path.dirname(b.file), name), 'utf8');
        const at = text.indexOf(root);
        const where = at < 0 ? '' : text.slice(Math.max(0, at - 80), at + root.length + 40);
        assert.equal(at, -1, `${label(b)}: ${name} holds ${root}: ...${where}...`);
      }
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
}
