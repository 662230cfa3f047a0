// Which ways in a Bun-compiled executable's Bun honours (lib/rule/ways-in.cjs's
// BUN_LAYOUTS, read from the executable's bytes by lib/discover/compiled.cjs):
// executables built here by the pinned Bun and by Bun 1.3.0, with no
// built-in arguments, some, and some ending with `--`, are started with a
// preload in BUN_OPTIONS and in BUN_INSPECT_PRELOAD: the preload runs exactly
// where the rule says. And `run` on one whose Bun reads neither prints
// exactly one line naming it, its Bun, why and the fix, and runs it
// unchanged: none of the carriers set.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUNTIMES } from '../support/runtimes.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';
import { installedBun } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const { compiledKindOf } = require('../../lib/discover/compiled.cjs');
const { wayIn } = require('../../lib/rule/ways-in.cjs');
const { CARRIERS, MARKER } = require('../../lib/rule/marker.cjs');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-ways-in-'));
const PRELOAD = path.join(dir, 'preload.mjs');
const ARGV = { none: [], args: ['--compile-exec-argv=--smol'], dashdash: ['--compile-exec-argv=--smol --'] };
// Bun 1.3.0 is installed from its Linux package (scripts/node-lines.mjs); elsewhere the suite skips.
const LINUX = process.platform === 'linux';
const SKIP = !LINUX && 'Bun 1.3.0 is installed from its Linux package here';
const BUNS = LINUX ? { pinned: RUNTIMES.bun.command, '1.3.0': installedBun('1.3.0') } : {};
const exes = [];

/** An environment without any carrier or marker of the test runner's. */
function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of [...CARRIERS, MARKER, 'NODE_TEST_CONTEXT']) delete env[name];
  return { ...env, ...extra };
}

before(() => {
  fs.writeFileSync(PRELOAD, 'globalThis.__waysInPreloaded = true;\n');
  fs.writeFileSync(path.join(dir, 'main.mjs'), `console.log(JSON.stringify({ preloaded: globalThis.__waysInPreloaded === true, env: Object.fromEntries(${JSON.stringify([...CARRIERS, MARKER])}.map((n) => [n, process.env[n] ?? null])) }));\n`);
  for (const [bun, command] of Object.entries(BUNS)) {
    for (const [argv, flags] of Object.entries(ARGV)) {
      const file = path.join(dir, `exe-${bun}-${argv}`);
      execFileSync(command, ['build', '--compile', 'main.mjs', ...flags, `--outfile=${file}`], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
      exes.push({ bun, argv, file });
    }
  }
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * The carriers the rule counts on to preload into `compiled`, as wayIn()
 * picks them: BUN_OPTIONS where it takes that alone, BUN_INSPECT_PRELOAD
 * where it takes it for a register path with spaces (which BUN_OPTIONS
 * cannot carry).
 */
function countedOn(compiled) {
  const plain = wayIn({ compiled });
  const spaced = wayIn({ compiled, spacedPath: true });
  return [
    ...(plain.bailOut === undefined && !plain.carriers.includes('BUN_INSPECT_PRELOAD') ? ['BUN_OPTIONS'] : []),
    ...(spaced.bailOut === undefined ? ['BUN_INSPECT_PRELOAD'] : []),
  ];
}

async function start(file, env) {
  const r = await runCommand(file, [], { cwd: dir, env: cleanEnv(env), timeout: 60_000 });
  assert.equal(r.code, 0, show(r));
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('each Bun honours the ways in the rule says it does, read from its executable', { skip: SKIP }, async () => {
  for (const { bun, argv, file } of exes) {
    const honours = countedOn(compiledKindOf(file));
    for (const [carrier, value] of [['BUN_OPTIONS', `--preload=${PRELOAD}`], ['BUN_INSPECT_PRELOAD', PRELOAD]]) {
      const { preloaded } = await start(file, { [carrier]: value });
      assert.equal(preloaded, honours.includes(carrier), `Bun ${bun}, built-in arguments ${argv}: ${carrier} ${preloaded ? 'preloads' : 'does not preload'}`);
    }
    assert.equal((await start(file, {})).preloaded, false);
  }
  // The rule is not vacuous: some executable here has no way in, and some has each.
  const ways = exes.map(({ file }) => countedOn(compiledKindOf(file)));
  assert.ok(ways.some((h) => h.length === 0));
  assert.ok(ways.some((h) => h.includes('BUN_OPTIONS')) && ways.some((h) => h.includes('BUN_INSPECT_PRELOAD') && !h.includes('BUN_OPTIONS')));
});

test('run on an executable whose Bun reads no preload: exactly one line, and it runs unchanged', { skip: SKIP }, async () => {
  const { file } = exes.find((e) => e.bun === '1.3.0' && e.argv === 'none');
  assert.equal(wayIn({ compiled: compiledKindOf(file) }).bailOut, 'NO_WAY_IN');
  const r = await runCommand(process.execPath, [BIN, 'run', '--', file], { cwd: dir, env: cleanEnv(), timeout: 60_000 });
  assert.equal(r.code, 0, show(r));
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, show(r));
  assert.ok(lines[0].includes(file), lines[0]);
  assert.match(lines[0], /Bun 1\.2 to 1\.3\.x before 1\.3\.13/);
  assert.match(lines[0], /reads neither BUN_OPTIONS nor BUN_INSPECT_PRELOAD/);
  assert.match(lines[0], /runs unchanged/);
  assert.match(lines[0], /bundler plugin/);
  const seen = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(seen.preloaded, false);
  assert.deepEqual(seen.env, Object.fromEntries([...CARRIERS, MARKER].map((n) => [n, null])), 'no carrier set');
  // One with a way in, under run: nothing said, and its carrier set.
  const reached = exes.find((e) => e.bun === 'pinned' && e.argv === 'dashdash').file;
  const ok = await runCommand(process.execPath, [BIN, 'run', '--', reached], { cwd: dir, env: cleanEnv(), timeout: 60_000 });
  assert.equal(ok.stderr, '', show(ok));
  assert.notEqual(JSON.parse(ok.stdout.trim().split('\n').pop()).env.BUN_INSPECT_PRELOAD, null);

  // Both as setup's function starts them, the plan started directly by the native launcher: the same line, the same start.
  for (const [exe, viaRun] of [[file, r], [reached, ok]]) {
    const direct = await startDirectly(exe);
    assert.equal(direct.stderr, viaRun.stderr, `${exe}: ${show(direct)}`);
    assert.deepEqual(JSON.parse(direct.stdout.trim().split('\n').pop()), JSON.parse(viaRun.stdout.trim().split('\n').pop()), exe);
  }
});

/** `file` started twice through the native launcher: the first has run write its plan, the second (told a Node that fails) starts it directly. */
async function startDirectly(file) {
  const { nativeLauncher } = require('../../lib/native/launcher.cjs');
  const records = path.join(dir, 'records');
  fs.mkdirSync(records, { recursive: true, mode: 0o700 });
  const env = cleanEnv({ MCP_ORDERED_DISPATCH_CACHE_DIR: records });
  const words = (node) => [`--node=${node}`, `--cli=${BIN}`, `--plans=${records}`, '--', file];
  const first = await runCommand(nativeLauncher(), words(process.execPath), { cwd: dir, env, timeout: 60_000 });
  assert.equal(first.code, 0, show(first));
  const noNode = path.join(dir, 'no-node.sh');
  fs.writeFileSync(noNode, '#!/bin/sh\nexit 99\n', { mode: 0o755 });
  const second = await runCommand(nativeLauncher(), words(noNode), { cwd: dir, env, timeout: 60_000 });
  assert.equal(second.code, 0, `started directly, not through Node: ${show(second)}`);
  return second;
}
