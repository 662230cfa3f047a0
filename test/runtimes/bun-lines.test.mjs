// `bun --preload=<register.mjs>` on every Bun line register may land in
// (scripts/node-lines.mjs's OLD_BUNS, installed before the tests, and the
// pinned Bun): an SDK 1.x client app, ES module and CommonJS, against the raw
// coalescing server. register never breaks the process: the app runs and
// exits as it does stock, with exactly one line on stderr (the OLD_RUNTIME
// warning, naming the Bun version, a minimum it is older than, and the
// fix) on a line register's Bun path cannot run on; on a line it runs on
// (1.3.0-1.4.2 included, where Bun crashes on a require() inside an
// onResolve), 0 progress lost and nothing on stderr.
import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from '../support/runtimes.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';
import { APPS, appSource, resolvingHome, RAW_SERVER, PROGRESS } from '../support/bundles.mjs';
import { OLD_BUNS, installedBun } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const { olderThan } = require('../../lib/register/gate.cjs');
const REGISTER = fileURLToPath(import.meta.resolve('mcp-ordered-dispatch/register'));
const skip = RUNTIMES.bun && process.platform === 'linux' ? false : 'the Bun lines are installed on Linux only';

let home;
let dir;
before(() => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-bun-lines-'));
  home = resolvingHome(dir, 'apps');
  const esm = appSource(APPS.sdk1);
  fs.writeFileSync(path.join(home, 'app.mjs'), esm);
  // The same app as CommonJS: each import a require().
  fs.writeFileSync(path.join(home, 'app.cjs'), esm.replace(/^import \{ (\w+) \} from ("[^"]+");$/gm, 'const { $1 } = require($2);'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** `bun [flags] app` from the apps' directory: { code, json, stderr }. */
async function runApp(bun, flags, app) {
  const env = { ...process.env, RAW_SERVER, RAW_SERVER_NODE: process.execPath };
  for (const name of ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'NODE_TEST_CONTEXT']) delete env[name];
  const r = await runCommand(bun, [...flags, app], { cwd: home, env, timeout: 120_000 });
  let json;
  try {
    json = JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    json = undefined;
  }
  return { code: r.code, signal: r.signal, json, stderr: r.stderr, shown: show(r) };
}

const LINES = [...OLD_BUNS.map((version) => ({ version, bin: () => installedBun(version) })), { version: 'pinned', bin: () => RUNTIMES.bun.command }];

for (const line of LINES) {
  test(`Bun ${line.version}: --preload=<register> on an SDK 1.x ES module and CommonJS app runs and exits as stock; 0 lost where register's Bun path runs, else stock with at most the one OLD_RUNTIME line`, { skip }, async () => {
    const bun = line.bin();
    const version = (await runCommand(bun, ['--version'], {})).stdout.trim();
    for (const app of ['app.mjs', 'app.cjs']) {
      const label = `Bun ${version} ${app}`;
      const stock = await runApp(bun, [], app);
      assert.equal(stock.code, 0, `${label} stock: ${stock.shown}`);
      assert.equal(stock.json?.lost, PROGRESS, `${label}: stock loses, or the run proves nothing: ${stock.shown}`);
      const r = await runApp(bun, [`--preload=${REGISTER}`], app);
      assert.equal(r.code, stock.code, `${label} under register: ${r.shown}`);
      assert.equal(r.signal, stock.signal, label);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      // The minimum as lib/register/gate.cjs's refusal names it; no refusal: register runs here.
      const minimum = /needs Bun (\S+) or newer/.exec(lines[0] ?? '')?.[1];
      if (minimum === undefined) {
        assert.deepEqual({ lost: r.json?.lost, onerrors: r.json?.onerrors, patched: r.json?.patched, stderr: r.stderr }, { lost: 0, onerrors: 0, patched: true, stderr: '' }, `${label}: ${r.shown}`);
        continue;
      }
      assert.ok(olderThan(version, minimum), `${label}: refused, yet not older than the minimum it names: ${lines[0]}`);
      assert.deepEqual(r.json, stock.json, `${label}: as stock`);
      // Exactly one line, from lib/register/gate.cjs, on every line below the minimum (1.1 too).
      assert.equal(lines.length, 1, `${label}: one line says why it runs stock: ${r.stderr}`);
      assert.match(lines[0], /\(MCP_ORDERED_DISPATCH_OLD_RUNTIME\)$/, label);
      assert.ok(lines[0].includes(`Bun ${version}`) && lines[0].includes('upgrade Bun'), `${label}: names the version, the minimum and the fix: ${lines[0]}`);
    }
  });
}
