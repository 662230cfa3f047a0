// The artifacts MCP hosts ship, built with the bundler plugin, each run from
// an empty directory holding only what the build produced (no node_modules),
// against the coalescing server (60 progress notifications in the response's read):
//   - an editor extension: esbuild, platform node, format cjs, `vscode`
//     external, as VS Code extensions build theirs; its dist/ (the bundle and
//     the addon the build put beside it) and package.json, loaded by
//     require() from a host that provides `vscode` the way the extension host
//     does: 0 lost, nothing on stderr;
//   - a Bun-compiled executable (Bun.build with compile, the plugin's
//     static require of the addon embedding it): 0 lost; the same compiled
//     without the plugin loses the progress;
//   - a Node 24 single executable application (esbuild with the plugin, the
//     addon as a SEA asset in sea-config.json, the blob injected with postject):
//     0 lost, the addon written once into the per-user cache directory under its
//     content hash; the same built without the plugin loses the progress;
//   - a plugin-built bundle run under `--import mcp-ordered-dispatch/register`:
//     0 lost, no warning, patched once - by the bundle's own runtime; register
//     leaves the build-time copy alone (its patcher never loads).
// The servers are spawned by the built app on Node (RAW_SERVER_NODE: an
// executable's process.execPath is the executable itself).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { APPS, appSource, bunBinary, bunBuild, resolvingHome, PROGRESS, ROOT } from '../support/bundles.mjs';
import { runAlone } from '../support/built-alone.mjs';
import { installedNode } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const native = require('../../lib/native/platform.cjs');
const ADDON = native.binaryFileName();
const NODE_MODULES = path.join(ROOT, 'node_modules');
// The executables built here: Windows starts none without its .exe.
const APP = process.platform === 'win32' ? 'app.exe' : 'app';
const esbuildPlugin = require('mcp-ordered-dispatch/esbuild');

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-artifacts-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the suite's. */
function fresh(name) {
  const d = path.join(dir, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/** The 1.x client app's entry (test/support/bundles.mjs), written into `into`, with `prefix` before it. */
function entryIn(into, prefix = '', app = APPS.sdk1) {
  const entry = path.join(into, 'app.src.mjs');
  fs.writeFileSync(entry, prefix + appSource(app));
  return entry;
}

function assertNoneLost(r) {
  assert.equal(r.expected, PROGRESS, r.raw.stdout);
  assert.equal(r.lost, 0, `${r.raw.stdout}\n${r.stderr}`);
  assert.equal(r.onerrors, 0);
  assert.equal(r.failed, 0);
  assert.equal(r.patched, true);
}

test('an editor extension (esbuild, platform node, format cjs, vscode external): its dist/ alone, loaded by require(), loses nothing', async () => {
  const work = fresh('extension');
  const entry = entryIn(work, "import * as vscode from 'vscode';\nexport function activate(context) { context.subscriptions.push(vscode.window.createOutputChannel('mcp')); }\nexport function deactivate() {}\n");
  const out = path.join(work, 'extension');
  const result = await require('esbuild').build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
    outfile: path.join(out, 'dist', 'extension.js'),
    nodePaths: [NODE_MODULES],
    logLevel: 'silent',
    minify: true,
    plugins: [esbuildPlugin()],
  });
  assert.deepEqual(result.warnings, []);
  fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify({ name: 'mcp-extension', version: '0.0.1', main: './dist/extension.js', engines: { vscode: '^1.90.0' } }));
  assert.deepEqual(fs.readdirSync(path.join(out, 'dist')).sort(), ['extension.js', ADDON].sort());
  // The extension host: `vscode` comes from the host (as VS Code's own module loader provides it), the extension by require().
  const host = `const Module = require('node:module');
    const load = Module._load;
    const subscriptions = [];
    Module._load = function (request, ...rest) {
      if (request === 'vscode') return { window: { createOutputChannel: (name) => ({ name, dispose() {} }) } };
      return load.call(this, request, ...rest);
    };
    const dir = process.argv[1];
    const extension = require(require('node:path').join(dir, require(dir + '/package.json').main));
    extension.activate({ subscriptions });
    if (subscriptions.length !== 1) throw new Error('not activated');`;
  const r = await runAlone(out, process.execPath, ['-e', host, '{alone}']);
  assertNoneLost(r);
  assert.equal(r.stderr, '');
});

test('a Bun-compiled executable (bun build --compile) run from an empty directory: the plugin embeds the addon and nothing is lost; without it the progress is lost', async (t) => {
  const bun = bunBinary();
  if (bun === undefined) return t.skip(`no bun platform binary for ${process.platform}-${process.arch}`);
  const home = resolvingHome(dir, 'bun');
  const entry = entryIn(home);
  const node = process.execPath;
  for (const plugin of [true, false]) {
    const out = fresh(`bun-compiled-${plugin}`);
    const exe = path.join(out, APP);
    if (plugin) bunBuild(bun, { entrypoints: [entry], compile: { outfile: exe }, minify: true }, {}, home);
    else execFileSync(bun, ['build', entry, '--compile', '--minify', `--outfile=${exe}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
    // The executable alone: the addon is inside it.
    assert.deepEqual(fs.readdirSync(out), [APP]);
    const r = await runAlone(out, path.join('{alone}', APP), [], { env: { RAW_SERVER_NODE: node } });
    if (plugin) {
      assertNoneLost(r);
      assert.equal(r.stderr, '');
    } else {
      assert.equal(r.lost, PROGRESS, r.raw.stdout);
      assert.equal(r.patched, false);
    }
  }
});

test('a Node 24 single executable application: the addon travels as a SEA asset, is written once to the per-user cache by content hash, and nothing is lost; without the plugin the progress is lost', async () => {
  // Installed before the suites (npm test's test:lines); off Linux, the job's own Node.
  const node24 = process.platform === 'linux' ? installedNode('24.22.3') : process.execPath;
  const work = fresh('sea');
  const entry = entryIn(work);
  // The per-user cache folder, where each platform's runtime looks for it (lib/plugin/runtime.cjs's userCacheDir()).
  const home = fresh('sea-home');
  const [cacheHome, cacheEnv] =
    process.platform === 'win32' ? [home, { LOCALAPPDATA: home }]
    : process.platform === 'darwin' ? [path.join(home, 'Library', 'Caches'), { HOME: home }]
    : [home, { XDG_CACHE_HOME: home }];
  for (const plugin of [true, false]) {
    const build = fresh(`sea-build-${plugin}`);
    const result = await require('esbuild').build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: path.join(build, 'app.cjs'),
      nodePaths: [NODE_MODULES],
      logLevel: 'silent',
      plugins: plugin ? [esbuildPlugin()] : [],
    });
    assert.deepEqual(result.warnings, []);
    // sea-config.json: the bundle as main, the addon the build wrote beside it as the asset named after it.
    const config = { main: 'app.cjs', output: 'app.blob', disableExperimentalSEAWarning: true, assets: plugin ? { [ADDON]: ADDON } : {} };
    fs.writeFileSync(path.join(build, 'sea-config.json'), JSON.stringify(config));
    execFileSync(node24, ['--experimental-sea-config', 'sea-config.json'], { cwd: build, stdio: 'pipe', timeout: 120_000 });
    const out = fresh(`sea-out-${plugin}`);
    const exe = path.join(out, APP);
    fs.copyFileSync(node24, exe);
    execFileSync(process.execPath, [path.join(NODE_MODULES, 'postject', 'dist', 'cli.js'), exe, 'NODE_SEA_BLOB', path.join(build, 'app.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'pipe', timeout: 120_000 });
    assert.deepEqual(fs.readdirSync(out), [APP]);
    const env = { RAW_SERVER_NODE: process.execPath, ...cacheEnv };
    const r = await runAlone(out, path.join('{alone}', APP), [], { env });
    if (plugin) {
      assertNoneLost(r);
      assert.equal(r.stderr, '');
      // Written once, under its content hash; a second run opens the same file.
      const seaDir = path.join(cacheHome, 'mcp-ordered-dispatch', 'sea');
      const hashes = fs.readdirSync(seaDir);
      assert.equal(hashes.length, 1);
      const written = path.join(seaDir, hashes[0], ADDON);
      assert.ok(fs.readFileSync(written).equals(fs.readFileSync(path.join(build, ADDON))), 'the asset written out is the addon the build included');
      const before = fs.statSync(written).mtimeMs;
      assertNoneLost(await runAlone(out, path.join('{alone}', APP), [], { env }));
      assert.equal(fs.statSync(written).mtimeMs, before);
    } else {
      assert.equal(r.lost, PROGRESS, r.raw.stdout);
      assert.equal(r.patched, false);
    }
  }
});

test('a plugin-built bundle under --import mcp-ordered-dispatch/register: 0 lost, no warning, patched once (register leaves the build-time copy alone)', async () => {
  const work = fresh('register');
  const entry = entryIn(work, '', APPS.sdk2);
  const out = path.join(work, 'out');
  await require('esbuild').build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: path.join(out, 'app.cjs'),
    nodePaths: [NODE_MODULES],
    logLevel: 'silent',
    plugins: [esbuildPlugin()],
  });
  // What of the package's own lib/ register loaded by the time the process exits: its patcher would be there had it patched anything.
  const spy = path.join(work, 'spy.mjs');
  const lib = path.join(ROOT, 'lib');
  fs.writeFileSync(spy, `import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    process.on('exit', () => console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(lib)})))));\n`);
  const r = await runAlone(out, process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'entries', 'register.mjs')).href, path.join('{alone}', 'app.cjs')], { env: { MCP_ORDERED_DISPATCH_CACHE_DIR: fresh('register-cache') } });
  assertNoneLost(r);
  assert.equal(r.stderr, '');
  assert.equal(r.fastProgress, PROGRESS, 'one dispatcher: every progress notification took the fast path once');
  // The app's result line is last but for the spy's; run again with the spy to see what register loaded.
  const spied = await runAlone(out, process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'entries', 'register.mjs')).href, '--import', pathToFileURL(spy).href, path.join('{alone}', 'app.cjs')], { env: { MCP_ORDERED_DISPATCH_CACHE_DIR: fresh('register-cache-2') } });
  const loaded = JSON.parse(spied.raw.stdout.trim().split('\n').pop()).map((f) => path.relative(lib, f));
  assert.ok(loaded.includes(path.join('register', 'hooks.cjs')), `register looked at the modules: ${loaded}`);
  for (const never of ['patch/protocol.cjs', 'patch/receiver.cjs', 'native/addon.cjs']) assert.ok(!loaded.includes(never), `register loaded ${never}: it patched something: ${loaded}`);
});
