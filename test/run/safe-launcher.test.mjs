// `run` breaks nothing the host starts, and the fix goes where MCP goes:
//   - a Node host (test/run/fixtures/host.mjs: the real SDK Client, each
//     stdio server given `{ ...process.env }` as Claude Code gives it) under
//     `mcp-ordered-dispatch run --`, with raw coalescing servers run by Node
//     16, 18 and 20.10, this Node, Bun 1.1.38, 1.2.23, 1.3.0 and the pinned
//     Bun: every server starts and answers as it does stock, and the host
//     loses 0 progress (stock loses every notification: they all arrive in
//     the response's read);
//   - the same host runs a shell command as an agent's shell tool does: it
//     prints NODE_OPTIONS, BUN_OPTIONS and BUN_INSPECT_PRELOAD and starts
//     Node 18; the user's own values come out intact, none of ours, and Node
//     18 runs without a word from register;
//   - a Node wrapper script that starts a Bun-compiled host, itself run
//     under `run`: the host is reached, 0 lost;
//   - npm's shims written by cmd-shim (.cmd, .ps1) are read through to their
//     targets, a script's through node and an executable's directly.
// The older Node and Bun lines are installed by `node scripts/node-lines.mjs`
// before the suites (npm test), never here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { installedNode, installedBun, OLD_LINES, OLD_BUNS } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const HOST = fileURLToPath(new URL('./fixtures/host.mjs', import.meta.url));
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const PROGRESS = 3;
const LINUX = process.platform === 'linux';
const NOT_LINUX = !LINUX && 'the registry\'s Node and Bun packages are installed on Linux only';
// On Windows the path is quoted in NODE_OPTIONS with its backslashes doubled.
const ours = /mcp-ordered-dispatch|entries[\\/]+register/;

// The user's own settings, which must come out of the host's shell command as they went in
// (BUN_INSPECT_PRELOAD: a preload of theirs that does nothing, written in before()).
const USER_ENV = { NODE_OPTIONS: '--max-old-space-size=300', BUN_OPTIONS: '--smol', BUN_INSPECT_PRELOAD: undefined };

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-safe-'));
  USER_ENV.BUN_INSPECT_PRELOAD = path.join(dir, 'user-preload.mjs');
  fs.writeFileSync(USER_ENV.BUN_INSPECT_PRELOAD, '');
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The environment a launcher starts with: the user's settings, none of the test runner's. */
function userEnv(extra = {}) {
  const env = { ...process.env, ...USER_ENV, ...extra };
  for (const name of ['NODE_TEST_CONTEXT', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
  return env;
}

/** Every server: [name, command, args] for the raw coalescing server on each runtime line. */
function servers() {
  const raw = [RAW_SERVER, '--mode=all-in-one', `--progress=${PROGRESS}`];
  return [
    ...OLD_LINES.map((v) => ({ name: `node ${v}`, command: installedNode(v), args: raw })),
    { name: `node ${process.version.slice(1)}`, command: process.execPath, args: raw },
    ...OLD_BUNS.map((v) => ({ name: `bun ${v}`, command: installedBun(v), args: raw })),
    { name: `bun ${RUNTIMES.bun.version ?? 'pinned'}`, command: RUNTIMES.bun.command, args: raw },
  ];
}

function shellCommand() {
  const node18 = installedNode('18.20.8');
  return `printf 'NODE_OPTIONS=%s\\nBUN_OPTIONS=%s\\nBUN_INSPECT_PRELOAD=%s\\nMARKER=%s\\n' "$NODE_OPTIONS" "$BUN_OPTIONS" "$BUN_INSPECT_PRELOAD" "$MCP_ORDERED_DISPATCH_RUN"; '${node18}' -e "console.log('node18', process.version)" 2>&1`;
}

/** The host, under `run` or stock: its parsed result. */
async function host(underRun) {
  const config = JSON.stringify({ servers: servers(), progress: PROGRESS, shell: shellCommand() });
  const argv = underRun ? [BIN, 'run', '--', process.execPath, HOST, config] : [HOST, config];
  const r = await runCommand(process.execPath, argv, { cwd: ROOT, env: userEnv(), timeout: 180_000 });
  assert.equal(r.code, 0, show(r));
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
}

test('a Node host under run: servers on Node 16, 18, 20.10, this Node and Bun 1.1.38, 1.2.23, 1.3.0 and the pinned Bun all start and answer as stock, 0 progress lost; its shell command gets the user\'s environment and Node 18 runs', { skip: NOT_LINUX, timeout: 400_000 }, async () => {
  assert.ok(RUNTIMES.bun, 'the pinned Bun is installed (devDependency bun)');
  const stock = await host(false);
  const patched = await host(true);
  const answered = (r) => r.servers.map((s) => [s.name, s.answered, s.error ?? null]);
  // Every server answers, as it does stock.
  assert.deepEqual(answered(stock), servers().map((s) => [s.name, true, null]).sort((a, b) => a[0].localeCompare(b[0])), JSON.stringify(stock, null, 1));
  assert.deepEqual(answered(patched), answered(stock), JSON.stringify(patched, null, 1));
  // Stock loses every notification (all in the response's read); under run, none.
  for (const s of stock.servers) assert.equal(s.received, 0, `stock, ${s.name}: ${JSON.stringify(s)}`);
  assert.equal(stock.onerrors.length, stock.servers.length * PROGRESS, stock.onerrors.join('\n'));
  for (const s of patched.servers) assert.equal(s.received, PROGRESS, `under run, ${s.name}: ${JSON.stringify(s)}`);
  assert.deepEqual(patched.onerrors, []);
  // A server on a Node line register cannot run on got the fix's variables and said, in one line, that it runs stock.
  for (const s of patched.servers.filter((x) => OLD_LINES.some((v) => x.name === `node ${v}`))) {
    assert.equal(s.stderr.split('\n').filter((l) => l.includes('MCP_ORDERED_DISPATCH_OLD_RUNTIME')).length, 1, `${s.name}: ${s.stderr}`);
  }
  for (const s of stock.servers) assert.ok(!s.stderr.includes('mcp-ordered-dispatch'), `stock, ${s.name}: ${s.stderr}`);
  // The shell command: the user's values exactly, no marker, and Node 18 runs without a word from register.
  for (const r of [stock, patched]) {
    assert.equal(r.shell.code, 0, JSON.stringify(r.shell));
    assert.equal(r.shell.stdout, `NODE_OPTIONS=${USER_ENV.NODE_OPTIONS}\nBUN_OPTIONS=${USER_ENV.BUN_OPTIONS}\nBUN_INSPECT_PRELOAD=${USER_ENV.BUN_INSPECT_PRELOAD}\nMARKER=\nnode18 v18.20.8\n`);
  }
});

test('a Node wrapper script that starts a Bun-compiled host, run under run: the host is reached, 0 lost', { skip: NOT_LINUX, timeout: 300_000 }, async () => {
  assert.ok(RUNTIMES.bun, 'the pinned Bun is installed (devDependency bun)');
  const { buildCompiled, KINDS, compiledEnv } = await import('../support/compiled.mjs');
  const [exe] = buildCompiled(path.join(dir, 'compiled'), { apps: ['sdk1'], kinds: KINDS.filter((k) => k.kind === 'esm') });
  const wrapper = path.join(dir, 'wrapper.cjs');
  fs.writeFileSync(wrapper, `#!/usr/bin/env node\nconst r = require('node:child_process').spawnSync(${JSON.stringify(exe.file)}, { stdio: 'inherit' });\nprocess.exitCode = r.status ?? 1;\n`);
  fs.chmodSync(wrapper, 0o755);
  const env = compiledEnv();
  const run = (argv) => runCommand(process.execPath, argv, { cwd: path.dirname(exe.file), env, timeout: 120_000 });
  const stock = await run([wrapper]);
  const patched = await run([BIN, 'run', '--', process.execPath, wrapper]);
  const result = (r) => {
    assert.equal(r.code, 0, show(r));
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  assert.equal(result(stock).lost, result(stock).expected, show(stock));
  assert.ok(result(stock).expected > 0);
  assert.equal(result(patched).lost, 0, show(patched));
  assert.equal(result(patched).patched, true, show(patched));
});

test('npm shims written by cmd-shim (.cmd, .ps1) resolve to their targets: a script through node, an executable directly', async () => {
  const cmdShim = require('cmd-shim');
  const { shimTarget } = require('../../lib/discover/shims.cjs');
  const pkg = path.join(dir, 'shims', 'node_modules', 'host');
  fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  const script = path.join(pkg, 'bin', 'cli.js');
  const exe = path.join(pkg, 'bin', 'claude.exe');
  fs.writeFileSync(script, '#!/usr/bin/env node\n');
  fs.writeFileSync(exe, 'MZ');
  const bin = path.join(dir, 'shims', 'bin');
  await cmdShim(script, path.join(bin, 'host'));
  await cmdShim(exe, path.join(bin, 'claude'));
  for (const ext of ['.cmd', '.ps1']) {
    assert.deepEqual(shimTarget(path.join(bin, `host${ext}`)), { program: 'node', args: [script], target: script }, ext);
    assert.deepEqual(shimTarget(path.join(bin, `claude${ext}`)), { program: exe, args: [], target: exe }, ext);
  }
  // With a node.exe beside the shim, the shim runs that one.
  fs.writeFileSync(path.join(bin, 'node.exe'), 'MZ');
  assert.equal(shimTarget(path.join(bin, 'host.cmd')).program, path.join(bin, 'node.exe'));
  // What cmd-shim did not write is not read as a shim.
  fs.writeFileSync(path.join(bin, 'other.cmd'), '@echo off\r\necho hi\r\n');
  assert.equal(shimTarget(path.join(bin, 'other.cmd')), undefined);
  assert.equal(shimTarget(path.join(bin, 'host')), undefined, 'the sh shim runs as it is');
});

test('run plans through an npm .cmd shim: the target is what runs, with the fix', { skip: process.platform !== 'win32' && 'PATHEXT finds .cmd shims on Windows only' }, async () => {
  const { plan } = require('../../lib/run/plan.cjs');
  const bin = path.join(dir, 'shims', 'bin');
  const r = plan('host', ['--x'], { env: { ...process.env, PATH: bin }, cwd: dir });
  assert.match(r.commandArgs.join(' '), /cli\.js --x$/);
  assert.match(r.childEnv.NODE_OPTIONS, ours);
});
