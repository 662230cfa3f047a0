// The fix follows the MCP work, not the first process or thread (the
// per-child rule, lib/rule/children.cjs): under `run`, a host whose first
// process loads the SDK (so register takes the fix's variables out there)
// and then does its MCP work elsewhere loses no progress, and the commands
// it runs for its user still see none of `run`'s variables:
//   - a Node host that starts itself again by fork(), by spawn() of its own
//     script and by process.execve() (Node 24), and one whose client runs in
//     a Worker given `env: { ...process.env }` (test/run/fixtures/relaunch-host.mjs);
//   - a Bun-compiled host whose client runs in a Worker (Bun's and
//     node:worker_threads'), built with Bun 1.3.14 and the pinned Bun: its
//     server gets `run`'s variables too (test/run/fixtures/worker-host/);
//   - a Node app that loads the SDK and starts a Bun-compiled host with a
//     copy of its environment, as an Agent SDK app starts Claude Code.
// Stock, each loses every notification (all arrive in the response's read).
// And a gateway (a server that is itself a client) started by a fixed host,
// through the SDK's stdio transport or one of the host's own that register
// never patched (as Claude Code's wrapper), started in Protocol's connect()
// or in a Client subclass's before it: its upstream progress arrives whole
// under run (stock: none).
// And a wrapper with no SDK that starts a Node single executable application
// (Copilot CLI's loader): the application and the command it runs see none
// of `run`'s variables.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCommand, show, userEnv, CARRIERS_SHELL, NO_CARRIERS as NONE } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { resolvingHome } from '../support/bundles.mjs';
import { installedNode, installedBun, HOST_BUNS } from '../../scripts/node-lines.mjs';
import { createRequire } from 'node:module';

const { standingRecords } = createRequire(import.meta.url)('../../lib/report/index.cjs');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const FIXTURES = path.join(ROOT, 'test', 'run', 'fixtures');
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const PROGRESS = 3;
const LINUX = process.platform === 'linux';
// Skipped off Linux only: .ci/run and the release workflow's Linux jobs run them (Node 24 and Bun 1.3.14
// come from scripts/node-lines.mjs, which npm test's test:lines installs there; a missing one fails the test).
const NOT_LINUX = !LINUX && 'the registry\'s Node and Bun packages are installed on Linux only';

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-children-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** host.mjs's configuration: one raw coalescing server, started through a shell that writes what it got of the carriers to `serverEnv`; a shell command that prints them. */
function hostConfig(serverEnv) {
  const server = `${CARRIERS_SHELL} >> '${serverEnv}'; exec '${process.execPath}' '${RAW_SERVER}' --mode=all-in-one --progress=${PROGRESS}`;
  return JSON.stringify({ servers: [{ name: 'raw', command: '/bin/sh', args: ['-c', server] }], progress: PROGRESS, shell: CARRIERS_SHELL });
}

/** Run `argv` (stock) or `run -- argv`: host.mjs's result line, and what its server got. */
async function start(argv, { underRun, env = {}, cwd = ROOT }) {
  const serverEnv = path.join(dir, `server-env-${Math.random().toString(36).slice(2)}`);
  const config = hostConfig(serverEnv);
  const command = underRun ? [process.execPath, BIN, 'run', '--', ...argv] : argv;
  const r = await runCommand(command[0], [...command.slice(1), ...(env.HOST_CONFIG === null ? [] : [config])].filter((a) => a !== null), { cwd, env: userEnv({ ...env, HOST_CONFIG: config }), timeout: 90_000 });
  assert.equal(r.code, 0, show(r));
  const line = r.stdout.trim().split('\n').pop();
  const result = JSON.parse(line);
  return { ...result, server: fs.existsSync(serverEnv) ? fs.readFileSync(serverEnv, 'utf8') : '', stderr: r.stderr };
}

function assertStockLoses(result) {
  assert.deepEqual(result.servers.map((s) => [s.answered, s.received]), [[true, 0]], JSON.stringify(result));
  assert.equal(result.onerrors.length, PROGRESS, JSON.stringify(result));
}

function assertFixed(result, what) {
  assert.deepEqual(result.servers.map((s) => [s.answered, s.received]), [[true, PROGRESS]], `${what}: ${JSON.stringify(result)}`);
  assert.deepEqual(result.onerrors, [], what);
  assert.match(result.server, /NODE_OPTIONS=[^|]*entries[\\/]register\.cjs/, `${what}: its server got the fix: ${result.server}`);
  assert.equal(result.shell.stdout, NONE, `${what}: the command it runs for its user sees none of run's variables`);
}

const RELAUNCH_HOST = path.join(FIXTURES, 'relaunch-host.mjs');

test('a Node host that starts itself again (fork, spawn, process.execve on Node 24) or works in a Worker given an env: 0 lost under run, its commands see none of run\'s variables', { skip: NOT_LINUX, timeout: 300_000 }, async () => {
  const node24 = installedNode('24.22.3');
  assert.ok(node24, 'Node 24 is installed (node scripts/node-lines.mjs)');
  assertStockLoses(await start([process.execPath, RELAUNCH_HOST, 'spawn'], { underRun: false }));
  const cases = [
    ['fork', process.execPath],
    ['spawn', process.execPath],
    ['execve', node24],
    ['worker', process.execPath],
  ];
  const report = path.join(dir, 'worker-report.jsonl');
  const results = await Promise.all(cases.map(([mode, node]) => start([node, RELAUNCH_HOST, mode], { underRun: true, env: mode === 'worker' ? { MCP_ORDERED_DISPATCH_REPORT: report } : {} })));
  cases.forEach(([mode], i) => assertFixed(results[i], mode));
  // Each thread that patched an SDK class wrote its report line, named: the Worker, which holds the MCP
  // work. The main thread only imported the SDK: register patches a class at its first use, so it patched nothing.
  const records = standingRecords(fs.readFileSync(report, 'utf8').trim().split('\n').map((line) => JSON.parse(line)));
  assert.deepEqual(records.map((r) => r.thread.replace(/\d+/, 'N')).sort(), ['worker N'], JSON.stringify(records));
  assert.equal(records.find((r) => r.thread !== 'main').counts.progressDelivered, PROGRESS, JSON.stringify(records));
});

/** The worker host built with `bun` into `dir`: the executable's path. */
function buildWorkerHost(bun, name) {
  const home = resolvingHome(dir, `src-${name}`);
  for (const file of ['main.mjs', 'sdk-part.mjs']) fs.copyFileSync(path.join(FIXTURES, 'worker-host', file), path.join(home, file));
  fs.copyFileSync(path.join(FIXTURES, 'host.mjs'), path.join(home, 'host.mjs'));
  const file = path.join(dir, name, 'host');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync(bun, ['build', '--compile', 'main.mjs', 'host.mjs', '--splitting', `--outfile=${file}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  return file;
}

test('a Bun-compiled host whose client runs in a Worker (Bun\'s, node:worker_threads\'), Bun 1.3.14 and the pinned Bun: 0 lost under run, its server gets the fix, its commands none', { skip: NOT_LINUX, timeout: 300_000 }, async () => {
  assert.ok(RUNTIMES.bun, 'the pinned Bun is installed (devDependency bun)');
  const buns = [...HOST_BUNS.map((v) => [v, installedBun(v)]), [RUNTIMES.bun.version ?? 'pinned', RUNTIMES.bun.command]];
  for (const [version, bun] of buns) assert.ok(bun, `Bun ${version} is installed (node scripts/node-lines.mjs)`);
  const exes = buns.map(([version, bun]) => [version, buildWorkerHost(bun, `worker-host-${version}`)]);
  assertStockLoses(await start([exes[0][1]], { underRun: false, env: { HOST_CONFIG: null }, cwd: path.dirname(exes[0][1]) }));
  const cases = exes.flatMap(([version, file]) => ['web', 'threads'].map((kind) => [`Bun ${version}, ${kind} Worker`, file, kind]));
  const results = await Promise.all(cases.map(([, file, kind]) => start([file], { underRun: true, env: { HOST_CONFIG: null, WORKER_KIND: kind }, cwd: path.dirname(file) })));
  cases.forEach(([what], i) => assertFixed(results[i], what));
  // Ended as opencode's TUI ends (the Worker terminated, then process.exit(): Bun 1.3 runs no exit
  // listener then), the Worker that did the MCP work has its report record all the same.
  for (const [version, file] of exes) {
    const report = path.join(dir, `terminated-${version}.jsonl`);
    await start([file], { underRun: true, env: { HOST_CONFIG: null, TERMINATE_AFTER_MS: '2500', MCP_ORDERED_DISPATCH_REPORT: report }, cwd: path.dirname(file) });
    const records = fs.readFileSync(report, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const worker = records.filter((r) => r.thread !== 'main').pop();
    assert.equal(worker?.counts.progressDelivered, PROGRESS, `Bun ${version}: ${JSON.stringify(records)}`);
  }
});

test('a Node app that loads the SDK and starts a Bun-compiled host with a copy of its environment (an Agent SDK app): the host is reached under run, 0 lost', { skip: NOT_LINUX, timeout: 300_000 }, async () => {
  assert.ok(RUNTIMES.bun, 'the pinned Bun is installed (devDependency bun)');
  const { buildCompiled, KINDS, compiledEnv } = await import('../support/compiled.mjs');
  const [exe] = buildCompiled(path.join(dir, 'compiled'), { apps: ['sdk1'], kinds: KINDS.filter((k) => k.kind === 'esm') });
  const app = path.join(FIXTURES, 'spawns-compiled.mjs');
  const go = async (argv) => {
    const r = await runCommand(process.execPath, argv, { cwd: path.dirname(exe.file), env: compiledEnv(), timeout: 120_000 });
    assert.equal(r.code, 0, show(r));
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  const stock = await go([app, exe.file]);
  assert.ok(stock.expected > 0 && stock.lost === stock.expected, JSON.stringify(stock));
  const fixed = await go([BIN, 'run', '--', process.execPath, app, exe.file]);
  assert.equal(fixed.lost, 0, JSON.stringify(fixed));
  assert.equal(fixed.patched, true, JSON.stringify(fixed));
});

test('a wrapper with no SDK that starts a Node single executable application: it and the command it runs see none of run\'s variables', { skip: NOT_LINUX, timeout: 120_000 }, async () => {
  const node24 = installedNode('24.22.3');
  assert.ok(node24, 'Node 24 is installed (node scripts/node-lines.mjs)');
  const build = path.join(dir, 'sea');
  fs.mkdirSync(build);
  const main = `const { execFileSync } = require('node:child_process');
process.stdout.write(execFileSync('/bin/sh', ['-c', ${JSON.stringify(CARRIERS_SHELL)}], { encoding: 'utf8' }));`;
  fs.writeFileSync(path.join(build, 'main.cjs'), main);
  fs.writeFileSync(path.join(build, 'sea-config.json'), JSON.stringify({ main: 'main.cjs', output: 'app.blob', disableExperimentalSEAWarning: true }));
  execFileSync(node24, ['--experimental-sea-config', 'sea-config.json'], { cwd: build, stdio: 'pipe', timeout: 120_000 });
  const exe = path.join(build, 'app');
  fs.copyFileSync(node24, exe);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'), exe, 'NODE_SEA_BLOB', path.join(build, 'app.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'pipe', timeout: 120_000 });
  const r = await runCommand(process.execPath, [BIN, 'run', '--', process.execPath, path.join(FIXTURES, 'sea-wrapper.cjs'), exe], { cwd: dir, env: userEnv(), timeout: 60_000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stdout, NONE, show(r));
});

for (const [kind, transport] of [
  ['sdk', "the SDK's stdio transport"],
  ['own', 'a transport of its own that register never patched'],
  ['own-early', "that transport, started by its Client subclass's connect() before Protocol's (as 2.x's negotiating Client does)"],
]) {
  test(`a gateway server started by a fixed host through ${transport} receives every upstream progress notification under run, with 0 onerrors (stock: none)`, { timeout: 60_000 }, async () => {
    const argv = [path.join(FIXTURES, 'gateway-host.mjs'), kind, RAW_SERVER, String(PROGRESS)];
    const go = async (launched) => {
      const r = await runCommand(process.execPath, launched ? [BIN, 'run', '--', process.execPath, ...argv] : argv, { cwd: ROOT, env: userEnv(), timeout: 30_000 });
      assert.equal(r.code, 0, show(r));
      return JSON.parse(r.stdout.trim().split('\n').pop());
    };
    const stock = await go(false);
    assert.equal(stock.received, 0, JSON.stringify(stock));
    assert.equal(stock.onerrors.length, PROGRESS, JSON.stringify(stock));
    assert.deepEqual(await go(true), { received: PROGRESS, onerrors: [] });
  });
}

test('a fixed host that copied its environment before run\'s variables were taken out gives its commands none of them, through a shell too', { skip: NOT_LINUX, timeout: 60_000 }, async () => {
  const host = `const early = { ...process.env };
await import('@modelcontextprotocol/sdk/client/index.js');
const cp = await import('node:child_process');
const out = [
  cp.execSync(${JSON.stringify(CARRIERS_SHELL)}, { env: early, encoding: 'utf8' }),
  cp.execFileSync('/bin/sh', ['-c', ${JSON.stringify(CARRIERS_SHELL)}], { env: early, encoding: 'utf8' }),
  await new Promise((resolve) => cp.exec(${JSON.stringify(CARRIERS_SHELL)}, { env: early }, (error, stdout) => resolve(stdout))),
];
process.stdout.write(JSON.stringify(out));`;
  const r = await runCommand(process.execPath, [BIN, 'run', '--', process.execPath, '--input-type=module', '-e', host], { cwd: ROOT, env: userEnv(), timeout: 30_000 });
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout), [NONE, NONE, NONE]);
});
