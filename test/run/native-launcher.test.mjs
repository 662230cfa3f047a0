// The native launcher (crates/launcher), what setup's shell functions start
// a host with: the first start of a host asks `run` for the plan, which
// writes it in a plan file; every later start starts it directly (no Node
// start) and gives the host what `run` gives it (environment, exit code),
// and more: its own argument and variable bytes, every signal disposition
// the shell gave. What changes the plan (the host's file rewritten, a
// carrier of the user's) asks `run` again. The plan files it cannot trust
// are never started directly, and what a direct start could not reproduce goes through
// `run`. Node starts are counted by a wrapper that the launcher is told is Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { runCommand, show } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const { nativeLauncher } = require('../../lib/native/launcher.cjs');
const { writePlanFile } = require('../../lib/run/plan-file.cjs');
const CONTRACT = require('../../lib/run/launcher-contract.json');
const { plan } = require('../../lib/run/plan.cjs');
// The hosts here are shell scripts: these run on Linux and macOS (.ci/run, the release's test
// jobs); on Windows they skip, and the launcher's Windows paths are untested (docs/run.md).
const POSIX = process.platform === 'win32' && 'the hosts here are shell scripts';
// Under qemu-user (scripts/test-arm64.mjs) the emulated launcher's ignored signals are qemu's own handlers, which the kernel resets at its execve.
const DISPOSITIONS = POSIX || (process.env.MCP_ORDERED_DISPATCH_EMULATOR === 'qemu-user' && "under qemu-user a signal the emulated launcher ignores is not ignored after its execve (qemu keeps the guest's dispositions in handlers of its own)");

let dir;
let binDir;
let cache;
let counter;
let countingNode;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-native-launcher-'));
  binDir = path.join(dir, 'bin');
  cache = path.join(dir, 'cache');
  fs.mkdirSync(binDir);
  fs.mkdirSync(cache, { mode: 0o700 });
  counter = path.join(dir, 'node-starts');
  countingNode = path.join(dir, 'counting-node');
  fs.writeFileSync(countingNode, `#!/bin/sh\necho start >> '${counter}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  writeHost('host', 0);
  // A shell host: its ignored and blocked signal masks, as ps prints them on Linux and macOS (Node ignores SIGPIPE itself, a shell does not).
  fs.writeFileSync(path.join(binDir, 'sh-host'), '#!/bin/sh\necho "signals $(ps -o ignored=,blocked= -p $$)"\necho "$0 $*"\nexit 7\n', { mode: 0o755 });
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A Node host on PATH that prints its arguments and the fix's variables (`version` makes a rewritten file). */
function writeHost(name, version) {
  const text = `#!/usr/bin/env node\n// version ${version}\nconsole.log(JSON.stringify({ argv: process.argv.slice(2), NODE_OPTIONS: process.env.NODE_OPTIONS ?? null, BUN_OPTIONS: process.env.BUN_OPTIONS ?? null, BUN_INSPECT_PRELOAD: process.env.BUN_INSPECT_PRELOAD ?? null, MARKER: process.env.MCP_ORDERED_DISPATCH_RUN ?? null, SEEN: process.env.MCP_ORDERED_DISPATCH_PLAN_SEEN ?? null }));\n`;
  fs.writeFileSync(path.join(binDir, name), text, { mode: 0o755 });
}

function env(extra = {}) {
  const e = { ...process.env, PATH: [binDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter), MCP_ORDERED_DISPATCH_CACHE_DIR: cache, ...extra };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN']) if (!(name in extra)) delete e[name];
  return e;
}

const nodeStarts = () => (fs.existsSync(counter) ? fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length : 0);

/** The launcher as setup's function starts it. */
function launch(command, args, { node = countingNode, extra } = {}) {
  return runCommand(nativeLauncher(), [`--node=${node}`, `--cli=${BIN}`, `--plans=${cache}`, '--', command, ...args], { cwd: dir, env: env(extra) });
}

test('the native launcher is built for this platform', () => {
  assert.ok(nativeLauncher() !== undefined, 'npm install (scripts/build.cjs) builds crates/launcher into the package root');
});

test('the first start asks run for the plan; the next start it directly, with no Node start, giving the host what run gives it', { skip: POSIX }, async () => {
  const args = ['a', 'b c', '--flag'];
  const viaRun = await runCommand(process.execPath, [BIN, 'run', '--', 'host', ...args], { cwd: dir, env: env() });
  assert.equal(viaRun.code, 0, show(viaRun));
  const expected = JSON.parse(viaRun.stdout);
  assert.ok(expected.NODE_OPTIONS.includes('register.cjs'), show(viaRun));

  const before = nodeStarts();
  const first = await launch('host', args);
  assert.equal(first.code, 0, show(first));
  assert.deepEqual(JSON.parse(first.stdout), expected);
  assert.equal(nodeStarts(), before + 1, 'the first start went through the Node launcher');
  const planFiles = fs.readdirSync(cache).filter((f) => f.startsWith('run-'));
  assert.deepEqual(planFiles, [`run-${Buffer.from('host').toString('hex')}.json`]);

  for (let i = 0; i < 3; i++) {
    const again = await launch('host', args);
    assert.equal(again.code, 0, show(again));
    assert.deepEqual(JSON.parse(again.stdout), expected, 'the direct start gives what run gives');
  }
  assert.equal(nodeStarts(), before + 1, 'three more starts, no Node start');

  // The host updated (its file rewritten): planned again, then started directly again.
  writeHost('host', 1);
  await launch('host', args);
  assert.equal(nodeStarts(), before + 2, 'a rewritten host is planned again');
  await launch('host', args);
  assert.equal(nodeStarts(), before + 2);

  // A variable the plan reads, set by the user: another plan, theirs first, as run does it.
  const mine = { NODE_OPTIONS: '--no-warnings' };
  const viaRunMine = JSON.parse((await runCommand(process.execPath, [BIN, 'run', '--', 'host', ...args], { cwd: dir, env: env(mine) })).stdout);
  assert.ok(viaRunMine.NODE_OPTIONS.startsWith('--no-warnings '));
  assert.deepEqual(JSON.parse((await launch('host', args, { extra: mine })).stdout), viaRunMine);
  assert.deepEqual(JSON.parse((await launch('host', args, { extra: mine })).stdout), viaRunMine);
  assert.equal(nodeStarts(), before + 3, 'planned once for the new variable, then started directly');
  assert.deepEqual(JSON.parse((await launch('host', args)).stdout), expected);
  assert.equal(nodeStarts(), before + 4, 'and once again without it (one plan file per command: the last plan)');
});

test('a host started directly has its exit code, its arguments and the signal dispositions it has started alone', { skip: DISPOSITIONS }, async () => {
  const plain = await runCommand(path.join(binDir, 'sh-host'), ['x'], { cwd: dir, env: env() });
  await launch('sh-host', ['x']); // planned
  const before = nodeStarts();
  const direct = await launch('sh-host', ['x']);
  assert.equal(nodeStarts(), before, 'started directly');
  assert.equal(direct.code, 7, show(direct));
  assert.equal(direct.stdout, plain.stdout, show(direct));
  const sig = (out) => out.split('\n').find((l) => l.startsWith('signals ')) ?? assert.fail(`no signal masks: ${out}`);
  assert.equal(sig(direct.stdout), sig(plain.stdout), 'no signal ignored or blocked that a shell would not');
  assert.match(direct.stdout, /\/sh-host x$/m);
  assert.match(sig(direct.stdout), /^signals 0+ 0+$/, 'SIGPIPE (which Rust ignores) is not ignored in the host, nothing blocked');
  // A signal the shell ignores (`nohup`, `trap '' HUP`) stays ignored, as the host started alone has it.
  const underTrap = (argv) => runCommand('sh', ['-c', 'trap "" HUP; exec "$@"', 'sh', ...argv], { cwd: dir, env: env() });
  const alone = await underTrap([path.join(binDir, 'sh-host'), 'x']);
  const trapped = await underTrap([nativeLauncher(), `--node=${countingNode}`, `--cli=${BIN}`, `--plans=${cache}`, '--', 'sh-host', 'x']);
  assert.equal(nodeStarts(), before, 'started directly');
  assert.doesNotMatch(sig(alone.stdout), /^signals 0+ /, 'the shell ignores SIGHUP for it');
  assert.equal(sig(trapped.stdout), sig(alone.stdout), 'the same dispositions as the host started alone');
});

test('an argument and a variable that are not UTF-8 reach the host byte for byte, on its first start and the next', { skip: POSIX }, async () => {
  fs.writeFileSync(path.join(binDir, 'bytes-host'), '#!/bin/sh\nprintf "%s" "$1" | od -An -tx1\nprintf "%s" "$MCP_OD_BYTES" | od -An -tx1\n', { mode: 0o755 });
  // Node cannot spawn bytes that are not UTF-8: a shell makes them.
  const script = 'b=$(printf "\\377\\376"); MCP_OD_BYTES="$b" exec "$0" "$@" "$b"';
  const start = () => runCommand('sh', ['-c', script, nativeLauncher(), `--node=${countingNode}`, `--cli=${BIN}`, `--plans=${cache}`, '--', 'bytes-host'], { cwd: dir, env: env() });
  for (const [label, starts] of [['the first start (planned by run)', 1], ['a direct start', 0]]) {
    const before = nodeStarts();
    const r = await start();
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(r.stdout.trim().split(/\s+/), ['ff', 'fe', 'ff', 'fe'], `${label}: ${show(r)}`);
    assert.equal(nodeStarts(), before + starts, label);
  }
});

test("a signal the shell ignores stays ignored in the host, SIGPIPE included (`trap '' PIPE`), on its first start and the next", { skip: DISPOSITIONS }, async () => {
  fs.copyFileSync(path.join(binDir, 'sh-host'), path.join(binDir, 'pipe-host'));
  const underTrap = (argv) => runCommand('sh', ['-c', 'trap "" PIPE; exec "$@"', 'sh', ...argv], { cwd: dir, env: env() });
  const sig = (out) => out.split('\n').find((l) => l.startsWith('signals ')) ?? assert.fail(`no signal masks: ${out}`);
  const alone = sig((await underTrap([path.join(binDir, 'pipe-host')])).stdout);
  assert.doesNotMatch(alone, /^signals 0+ /, 'the shell ignores SIGPIPE for it');
  for (const [label, starts] of [['the first start', 1], ['a direct start', 0]]) {
    const before = nodeStarts();
    const r = await underTrap([nativeLauncher(), `--node=${countingNode}`, `--cli=${BIN}`, `--plans=${cache}`, '--', 'pipe-host']);
    assert.equal(sig(r.stdout), alone, `${label}: ${show(r)}`);
    assert.equal(nodeStarts(), before + starts, label);
  }
});

test('a plans folder or a plan file that is a link is never started directly: such starts go through Node, with the fix', { skip: POSIX }, async () => {
  const real = path.join(dir, 'real-plans');
  const link = path.join(dir, 'linked-plans');
  fs.mkdirSync(real, { mode: 0o700 });
  fs.symlinkSync(real, link);
  const viaLink = () => runCommand(nativeLauncher(), [`--node=${countingNode}`, `--cli=${BIN}`, `--plans=${link}`, '--', 'host'], { cwd: dir, env: env({ MCP_ORDERED_DISPATCH_CACHE_DIR: link }) });
  for (let i = 0; i < 2; i++) {
    const before = nodeStarts();
    const r = await viaLink();
    assert.equal(r.code, 0, show(r));
    assert.ok(JSON.parse(r.stdout).NODE_OPTIONS.includes('register.cjs'), show(r));
    assert.ok(nodeStarts() > before, `start ${i + 1} through a linked folder went through Node`);
  }
  await launch('host', []);
  const plan = path.join(cache, `run-${Buffer.from('host').toString('hex')}.json`);
  const elsewhere = path.join(real, 'elsewhere.json');
  fs.renameSync(plan, elsewhere);
  fs.symlinkSync(elsewhere, plan);
  const before = nodeStarts();
  assert.equal((await launch('host', [])).code, 0);
  assert.equal(nodeStarts(), before + 1, 'a plan file that is a link went through Node');
});

test('a plan file it cannot trust is not started directly, and a Node that is gone is replaced by the one on PATH', { skip: POSIX }, async () => {
  await launch('host', []);
  const planFile = path.join(cache, `run-${Buffer.from('host').toString('hex')}.json`);
  const good = fs.readFileSync(planFile, 'utf8');
  let before = nodeStarts();
  fs.chmodSync(planFile, 0o666); // writable by others
  assert.equal((await launch('host', [])).code, 0);
  assert.equal(nodeStarts(), before + 1, 'a plan file others can write goes through Node');
  before = nodeStarts();
  fs.writeFileSync(planFile, good.replace(`"v":${CONTRACT.version}`, `"v":${CONTRACT.version},"set":`));
  const damaged = await launch('host', []);
  assert.equal(damaged.code, 0, show(damaged));
  assert.equal(nodeStarts(), before + 1, 'a damaged plan file goes through Node');
  // The Node setup named is gone: the launcher starts the `node` on PATH, and the host still gets the fix.
  fs.rmSync(planFile);
  const gone = await launch('host', [], { node: path.join(dir, 'no-such-node') });
  assert.equal(gone.code, 0, show(gone));
  assert.ok(JSON.parse(gone.stdout).NODE_OPTIONS.includes('register.cjs'), show(gone));
});

test("the launcher contract's variables are the rule's carriers and marker: what a plan reads and a direct start may set", () => {
  const { CARRIERS, MARKER } = require('../../lib/rule/marker.cjs');
  assert.deepEqual([...CONTRACT.planReads].sort(), [...CARRIERS, MARKER].sort());
  assert.deepEqual([...CONTRACT.directMaySet].sort(), [...CARRIERS, MARKER].sort());
});

test('what a direct start could not reproduce goes through run, and a key that does not cover what the plan read is refused', { skip: POSIX }, () => {
  const cwd = dir;
  const at = (command, args, e = env()) => ({ planned: plan(command, args, { env: e, cwd }), env: e, command, args });
  const every = Object.fromEntries(CONTRACT.planReads.map((name) => [name, null]));
  const seenOf = (file, vars = every) => JSON.stringify({ v: CONTRACT.version, command: 'host', file, env: vars });
  const { planned, env: e, args } = at('host', ['x']);
  const options = { env: e, command: 'host', args, cwd };
  // The plan file run writes for a start (into the cache directory, as `run --plan-file` does), or undefined when it writes none.
  const written = (p, o) => {
    const file = path.join(cache, 'written.json');
    fs.rmSync(file, { force: true });
    const was = process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
    process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = cache;
    try {
      return writePlanFile(file, p, o) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
    } finally {
      if (was === undefined) delete process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
      else process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = was;
    }
  };
  const direct = (seen, o = options, p = planned) => written(p, { ...o, seen })?.direct;
  assert.equal(direct(seenOf(planned.file)), true, 'a plain host is started directly');
  assert.equal(written(planned, { ...options, seen: seenOf(planned.file) })?.cwd, null, 'the working directory is no part of its key');
  assert.equal(direct(seenOf('/elsewhere/host')), undefined, 'another file than the one the native launcher saw');
  assert.equal(direct(seenOf(planned.file, { ...every, NODE_OPTIONS: '--other' })), undefined, 'a variable seen otherwise than the plan read it');
  assert.equal(direct(seenOf(planned.file, {})), undefined, 'a key that covers none of the variables the plan read');
  const { MCP_ORDERED_DISPATCH_RUN: _, ...fewer } = every;
  assert.equal(direct(seenOf(planned.file, fewer)), undefined, 'a key that covers some of them');
  assert.equal(direct(seenOf(planned.file, { ...every, OTHER: null })), undefined, 'a key with a variable the plan does not read');
  assert.equal(direct(seenOf(planned.file), { ...options, command: 'other' }), undefined, 'another command');
  assert.equal(direct('not json'), undefined);
  const withPreload = env({ BUN_INSPECT_PRELOAD: path.join(dir, 'mine.mjs') });
  const chained = at('host', ['x'], withPreload);
  const seenChained = seenOf(chained.planned.file, { ...every, BUN_INSPECT_PRELOAD: withPreload.BUN_INSPECT_PRELOAD });
  assert.equal(direct(seenChained, { ...options, env: withPreload }, chained.planned), false, "a preload chained to the user's: through run");
  const moved = { ...planned, commandArgs: ['--preload', 'x', 'x'] };
  assert.equal(direct(seenOf(planned.file), options, moved), false, 'arguments inserted (deno): through run');
});
