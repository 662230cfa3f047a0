// The UNREACHED line says what happened: a Bun-compiled executable whose SDK
// copy sits in its entry module (built as one file) with Bun 1.3.14
// (opencode's and Kilo's line) and the pinned Bun, started under `run
// --report` (BUN_OPTIONS, the way in these lines read for an executable with
// no built-in arguments): Bun serves that entry through no hook of
// register's, so the copy stays stock and loses every notification, and the
// host says so in exactly one line, decided once the entry is loaded; the
// report holds that process's record with the warning and nothing patched.
// That is an entry named as the executable, as `bun build --compile` names
// it: one that keeps a JavaScript file's name (an executable built as
// `tool.js`; Kilo's `src/index.js`, from Bun 1.3's Bun.build()) Bun serves
// through register, 0 lost and no line, and doctor says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { appSource, APPS, resolvingHome } from '../support/bundles.mjs';
import { compiledEnv } from '../support/compiled.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { installedBun, HOST_BUNS } from '../../scripts/node-lines.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const skip = process.platform !== 'linux' && 'the registry\'s Bun packages are installed on Linux only';

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-unreached-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The SDK 1.x app built as one file by Bun 1.3.14 and the pinned Bun, each to `outfile(version)`: [[version, executable]]. */
function buildEach(outfile) {
  const home = resolvingHome(dir, `src-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(path.join(home, 'app.mjs'), appSource(APPS.sdk1));
  return [...HOST_BUNS.map((v) => [v, installedBun(v)]), [RUNTIMES.bun?.version ?? 'pinned', RUNTIMES.bun?.command]].map(([version, bun]) => {
    assert.ok(bun, `Bun ${version} is installed (node scripts/node-lines.mjs)`);
    const exe = outfile(version);
    fs.mkdirSync(path.dirname(exe), { recursive: true });
    execFileSync(bun, ['build', '--compile', 'app.mjs', '--minify', `--outfile=${exe}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
    return [version, exe];
  });
}

test('the SDK in the entry module, Bun 1.3.14 and the pinned Bun, under run --report: every notification lost, exactly one UNREACHED line, the report says so', { skip, timeout: 180_000 }, async () => {
  for (const [version, exe] of buildEach((version) => path.join(dir, `single-${version}`))) {
    const cache = path.join(dir, `cache-${version}`);
    const r = await runCommand(process.execPath, [BIN, 'run', '--report', '--', exe], { cwd: dir, env: compiledEnv({ MCP_ORDERED_DISPATCH_CACHE_DIR: cache }), timeout: 60_000 });
    assert.equal(r.code, 0, show(r));
    const result = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.ok(result.expected > 0 && result.lost === result.expected, `Bun ${version}: ${JSON.stringify(result)}`);
    assert.equal(r.stderr.split('\n').filter((l) => l.includes('MCP_ORDERED_DISPATCH_UNREACHED')).length, 1, `Bun ${version}: ${show(r)}`);
    const shown = await runCommand(process.execPath, [BIN, 'report', '--json'], { cwd: dir, env: compiledEnv({ MCP_ORDERED_DISPATCH_CACHE_DIR: cache }) });
    assert.equal(shown.code, 0, show(shown));
    const { records } = JSON.parse(shown.stdout);
    assert.deepEqual(records.map((x) => [x.copies.length, x.warnings]), [[0, ['MCP_ORDERED_DISPATCH_UNREACHED']]], `Bun ${version}: ${shown.stdout}`);
  }
});

test('the same entry named as a JavaScript file (built as tool.js), Bun 1.3.14 and the pinned Bun: served through register, 0 lost, no UNREACHED line; doctor says it is reached', { skip, timeout: 180_000 }, async () => {
  for (const [version, exe] of buildEach((version) => path.join(dir, `named-${version}`, 'tool.js'))) {
    const r = await runCommand(process.execPath, [BIN, 'run', '--', exe], { cwd: dir, env: compiledEnv({ MCP_ORDERED_DISPATCH_CACHE_DIR: path.join(dir, `cache-named-${version}`) }), timeout: 60_000 });
    assert.equal(r.code, 0, show(r));
    const result = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.deepEqual({ lost: result.lost, patched: result.patched, stderr: r.stderr }, { lost: 0, patched: true, stderr: '' }, `Bun ${version}: ${show(r)}`);
    const doctor = await runCommand(process.execPath, [BIN, 'doctor', '--json', exe], { cwd: dir, timeout: 60_000 });
    const [listed] = JSON.parse(doctor.stdout).executables;
    assert.deepEqual(listed.sdk.map((m) => [m.name, m.entry, m.reached]), [['/$bunfs/root/tool.js', true, true]], `Bun ${version}: ${doctor.stdout}`);
  }
});
