// An Electron app's main process built with the bundler plugin (esbuild,
// CommonJS, into dist/ beside the addon the build put there) and packed into
// `app.asar` with @electron/asar, as electron-builder and electron-forge pack
// apps: a `.node` cannot be opened from inside the archive, so it is unpacked
// (`asarUnpack` / `unpack: '*.node'`) into `app.asar.unpacked/` beside it.
//   - Packed with the addon unpacked: the plugin's runtime, handed the
//     bundle's path inside the archive (`.../app.asar/dist/main.cjs`, what
//     the bundle's __filename is in Electron), opens the addon from
//     `.../app.asar.unpacked/dist/`; the addon's exports are there.
//   - Packed without unpacking it (the archive holds the `.node`, nothing
//     beside it): the addon does not load, and the error names the file it
//     looked for and how to fix the build.
// Plain Node stands in for Electron here: it cannot read inside the archive
// either, as Electron cannot open a `.node` there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { APPS, appSource, ROOT, pluginFor } from '../support/bundles.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const asar = require('@electron/asar');
const ADDON = require('../../lib/native/platform.cjs').binaryFileName();
const RUNTIME = path.join(ROOT, 'lib', 'plugin', 'runtime.cjs');
const LOADER = path.join(ROOT, 'lib', 'native', 'addon.cjs');

let dir;
let app;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-electron-'));
  app = path.join(dir, 'app');
  const entry = path.join(dir, 'main.src.mjs');
  fs.writeFileSync(entry, appSource(APPS.sdk1));
  await require('esbuild').build({
    entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', minify: true,
    outfile: path.join(app, 'dist', 'main.cjs'), nodePaths: [path.join(ROOT, 'node_modules')],
    external: ['electron'], logLevel: 'silent', plugins: [pluginFor('esbuild')()],
  });
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'electron-app', main: 'dist/main.cjs' }));
}, { timeout: 120_000 });

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Pack the app into `<resources>/app.asar` (`unpack`: @electron/asar's glob of files kept outside). */
async function pack(name, unpack) {
  const resources = path.join(dir, name, 'resources');
  fs.mkdirSync(resources, { recursive: true });
  await asar.createPackageWithOptions(app, path.join(resources, 'app.asar'), unpack ? { unpack } : {});
  return resources;
}

/** The plugin's runtime started as the packed bundle would start it, then the addon loaded: what loaded, or the error. */
async function startFrom(bundle) {
  const script = `
const start = require(${JSON.stringify(RUNTIME)});
start({ platforms: [require(${JSON.stringify(path.join(ROOT, 'lib', 'native', 'platform.cjs'))}).platformArchABI()] }, ${JSON.stringify(pathToFileURL(bundle).href)});
const native = require(${JSON.stringify(LOADER)});
try {
  native.load();
  console.log(JSON.stringify({ loaded: native.loadedFrom(), dispatcher: typeof native.Dispatcher, classify: typeof native.classify }));
} catch (error) {
  console.log(JSON.stringify({ error: error.message }));
}`;
  const env = { ...process.env, NODE_OPTIONS: '' };
  delete env.MCP_ORDERED_DISPATCH_NATIVE;
  const r = await runCommand(process.execPath, ['-e', script], { cwd: dir, env });
  assert.equal(r.code, 0, show(r));
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('packed with the addon unpacked: opened from app.asar.unpacked beside the archive, for a bundle inside app.asar', async () => {
  const resources = await pack('unpacked', `*.node`);
  assert.equal(asar.statFile(path.join(resources, 'app.asar'), `dist/${ADDON}`).unpacked, true, 'the archive lists the addon as unpacked');
  assert.ok(fs.existsSync(path.join(resources, 'app.asar.unpacked', 'dist', ADDON)));
  const r = await startFrom(path.join(resources, 'app.asar', 'dist', 'main.cjs'));
  assert.equal(r.error, undefined, JSON.stringify(r));
  assert.equal(r.loaded.file, path.join(resources, 'app.asar.unpacked', 'dist', ADDON));
  assert.equal(r.loaded.from, 'the mcp-ordered-dispatch bundler plugin');
  assert.equal(r.dispatcher, 'function');
  assert.equal(r.classify, 'function');
});

test('packed without unpacking it: the addon does not load from inside the archive, and the error says how to fix the build', async () => {
  const resources = await pack('packed', undefined);
  assert.ok(!fs.existsSync(path.join(resources, 'app.asar.unpacked')));
  const r = await startFrom(path.join(resources, 'app.asar', 'dist', 'main.cjs'));
  assert.equal(r.loaded, undefined, JSON.stringify(r));
  assert.match(r.error, new RegExp(`${ADDON.replaceAll('.', '\\.')}`));
  assert.match(r.error, /Ship .* with the bundle/);
});
