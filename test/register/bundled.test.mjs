// SDK copies bundled into an application: a 1.x and a 2.x client app,
// taking turns, bundled in this suite by esbuild (CommonJS and ES module output; plain,
// --minify, --minify --keep-names), webpack 5 (development; production,
// minified by its terser; CommonJS and ES module output) and rollup 4
// (CommonJS and ES module; plain and terser-minified) and bun 1.4 (ES module
// plain, --minify, --minify --keep-names; CommonJS --minify). Bundlers rename the
// SDK's classes, so only register's search by shape finds them.
//   - stock: all 60 of 60 coalesced progress notifications are lost;
//   - `--import mcp-ordered-dispatch/register` (and `--require` for the
//     CommonJS bundles): 0 lost, no onerror, nothing on stderr; the bundled
//     Protocol and StdioClientTransport are patched, the native reader reads
//     the child's stdout, and every progress notification takes the fast path.
// Also: the located classes are cached per content (a second run reads the
// cache), and a read-only cache directory changes nothing but the cost.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';
import { cachedBundles, bunBinary, LINE_BUNDLES, ROOT, RAW_SERVER, PROGRESS } from '../support/bundles.mjs';

let dir;
let cache;
let bundles = [];
// Every bundler, output format and variant once, the two apps (SDK
// generations) taking turns so that each bundler's and format's output is
// shown for both: 17 bundles (13 without bun). The second app's bundle of
// the same variant proves nothing the first does not (the search by shape
// reads the same bundler's output), and building and running it doubled
// this suite's time.
const MACHINE_BUNDLES = [
  'sdk1 esbuild cjs plain', 'sdk2 esbuild cjs minify', 'sdk1 esbuild cjs minify-keep-names',
  'sdk2 esbuild esm plain', 'sdk1 esbuild esm minify', 'sdk2 esbuild esm minify-keep-names',
  'sdk1 webpack cjs development', 'sdk2 webpack cjs production-terser', 'sdk1 webpack esm production-terser',
  'sdk2 rollup cjs plain', 'sdk1 rollup cjs terser', 'sdk1 rollup esm plain', 'sdk2 rollup esm terser',
  'sdk1 bun esm plain', 'sdk2 bun esm minify', 'sdk1 bun esm minify-keep-names', 'sdk2 bun cjs minify',
];
// On the other Node lines (scripts/test-node-lines.mjs): every bundler and format once, minified.
const LINES = process.env.MCP_ORDERED_DISPATCH_LINE_RUN === '1';

function env(extra = {}) {
  const e = { ...process.env, PATH: pathWithThisNode(), RAW_SERVER, MCP_ORDERED_DISPATCH_CACHE_DIR: cache, ...extra };
  delete e.NODE_TEST_CONTEXT;
  delete e.NODE_OPTIONS;
  return e;
}

async function run(file, flags = [], extraEnv = {}) {
  const r = await runCommand(process.execPath, [...flags, file], { cwd: dir, env: env(extraEnv), timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr, raw: r };
}

const REGISTER = {
  '--import': ['--import', pathToFileURL(path.join(ROOT, 'entries', 'register.mjs')).href],
  '--require': ['--require', path.join(ROOT, 'entries', 'register.cjs')],
};

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-bundled-'));
  cache = path.join(dir, 'cache');
  // Built once for the Node-line runs too (LINE_BUNDLES is among MACHINE_BUNDLES).
  bundles = await cachedBundles(LINES ? LINE_BUNDLES : MACHINE_BUNDLES);
}, { timeout: 900_000 });

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the suite built every bundle', (t) => {
  const names = bundles.map((b) => `${b.app} ${b.bundler} ${b.format} ${b.variant}`);
  // 13 by esbuild, webpack and rollup; 4 more by bun where its platform binary installed
  // (on the Node-line runs: LINE_BUNDLES, 6 without bun and 2 by bun).
  const withBun = bunBinary() !== undefined;
  if (!withBun) t.diagnostic(`bun: no platform binary for ${process.platform}-${process.arch} installed; its bundles are not built`);
  const expected = LINES ? (withBun ? 8 : 6) : withBun ? 17 : 13;
  assert.equal(names.length, expected, names.join('\n'));
  for (const b of bundles) {
    const text = fs.readFileSync(b.file, 'utf8');
    // The SDK is in there, its class renamed wherever a minifier ran.
    assert.ok(text.includes('_onnotification') && text.includes('_progressHandlers'), b.file);
  }
});

// One test per bundle: built in before(), so listed through a subtest loop.
test('each bundle: stock loses all coalesced progress; under register it loses none and prints nothing', async (t) => {
  for (const b of bundles) {
    await t.test(`${b.app} ${b.bundler} ${b.format} ${b.variant}`, async () => {
      const stock = await run(b.file);
      assert.equal(stock.expected, PROGRESS);
      assert.equal(stock.lost, PROGRESS, `stock ${b.file}: ${show(stock.raw)}`);
      assert.equal(stock.patched, false);
      for (const flag of b.format === 'cjs' ? ['--import', '--require'] : ['--import']) {
        const r = await run(b.file, REGISTER[flag]);
        const label = `${flag} ${b.file}: ${show(r.raw)}`;
        assert.equal(r.stderr, '', label);
        assert.equal(r.lost, 0, label);
        assert.equal(r.onerrors, 0, label);
        assert.equal(r.failed, 0, label);
        assert.equal(r.patched, true, label);
        assert.equal(r.framing, true, label);
        assert.equal(r.readBuffer, 'ThreadReadBuffer', label);
        assert.equal(r.fastProgress, PROGRESS, label);
      }
    });
  }
});

test('the located classes are cached per content: a second process reads them from the cache', async () => {
  const b = bundles.find((x) => x.bundler === 'esbuild' && x.format === 'cjs' && x.variant.startsWith('minify'));
  const own = path.join(dir, 'cache-once');
  const first = await run(b.file, REGISTER['--import'], { MCP_ORDERED_DISPATCH_CACHE_DIR: own });
  assert.equal(first.lost, 0);
  // The content-keyed entries (a large module's per-file entry, file-*.json, is lib/shape/file-cache.cjs's: test/shape/file-cache.test.mjs).
  const entries = fs.readdirSync(own).filter((f) => f.endsWith('.json') && !f.startsWith('file-'));
  assert.ok(entries.length >= 1, `cache entries: ${entries}`);
  const located = entries.map((f) => JSON.parse(fs.readFileSync(path.join(own, f), 'utf8'))).filter((e) => e.at.length > 0);
  assert.equal(located.length, 1, 'one module (the bundle) with located classes');
  assert.deepEqual(located[0].at.map(([, kind, generation]) => `${kind}:${generation}`).sort(), [`protocol:${b.app === 'sdk1' ? 1 : 2}`, 'stdio:0']);
  const second = await run(b.file, REGISTER['--import'], { MCP_ORDERED_DISPATCH_CACHE_DIR: own });
  assert.equal(second.lost, 0);
  assert.equal(second.stderr, '');
  assert.equal(second.framing, true);
  // That the second process read the cache rather than locating again: leave
  // only the Protocol's entry in it (still one the bundle's braces bear out),
  // and the stdio transport is then not handed over.
  const file = entries.find((f) => JSON.parse(fs.readFileSync(path.join(own, f), 'utf8')).at.length > 0);
  fs.writeFileSync(path.join(own, file), JSON.stringify({ at: located[0].at.filter(([, kind]) => kind === 'protocol') }));
  for (const f of fs.readdirSync(own).filter((name) => name.startsWith('file-'))) fs.rmSync(path.join(own, f));
  const third = await run(b.file, REGISTER['--import'], { MCP_ORDERED_DISPATCH_CACHE_DIR: own });
  assert.equal(third.stderr, '');
  assert.equal(third.patched, true);
  assert.equal(third.lost, 0);
  assert.equal(third.framing, false, 'the stdio transport, left out of the cache entry, was not handed over: the cache was read');
});

test('a cache directory that cannot be written: the bundle is still patched, nothing printed', async (t) => {
  const b = bundles.find((x) => x.bundler === 'rollup' && x.format === 'esm' && x.variant === 'terser' && x.app === 'sdk2');
  // A regular file where the directory would be: mkdir and every write fail (as root too).
  const blocked = path.join(dir, 'not-a-dir');
  fs.writeFileSync(blocked, '');
  const r = await run(b.file, REGISTER['--import'], { MCP_ORDERED_DISPATCH_CACHE_DIR: path.join(blocked, 'cache') });
  assert.equal(r.stderr, '', show(r.raw));
  assert.equal(r.lost, 0, show(r.raw));
  assert.equal(r.patched, true);
});
