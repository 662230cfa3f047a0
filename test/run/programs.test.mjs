// The fix follows what each program is (lib/rule/children.cjs), not only
// what its parent has done:
//   - an app holding an SDK that starts this Node on a bundle holding one
//     (an app on @qwen-code/sdk starting `node cli.js`): the bundle gets
//     the fix, 0 lost; the app's shell command and its `node --test` get
//     none of run's variables;
//   - a bin launcher holding no SDK that starts, with a copy of its
//     environment, a Bun-compiled executable holding one whose built-in
//     arguments end with `--` (`kilo`'s bin/kilo starting bin/.kilo; an app
//     on @opencode-ai/sdk starting `opencode serve`): its Bun reads only
//     BUN_INSPECT_PRELOAD, which the launcher adds: 0 lost; the same
//     launcher started directly by an app that holds the SDK: 0 lost;
//   - a fixed host's Worker that never loads the SDK (Node's, given no env
//     and a copy; Bun's two): the Worker and its shell command, its `node
//     --test` and an older Node it starts get none of run's variables;
//   - a host with no main script (`node -e`) relaunches nothing: its Node
//     child gets none of them;
//   - a host that loads the SDK lazily is a host from its start: the
//     command it runs before its import gets none of them.
// Stock, the first two lose every notification; each fails on c77583f.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show, userEnv, CARRIERS_SHELL, NO_CARRIERS as NONE } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { ESM_BANNER } from '../support/bundles.mjs';
import { installedNode } from '../../scripts/node-lines.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const FIXTURES = path.join(ROOT, 'test', 'run', 'fixtures');
const PROGRAMS = path.join(FIXTURES, 'programs');
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const PROGRESS = 3;
// Skipped off Linux only: the shell commands are /bin/sh's, and Node 18 and Bun come from scripts/node-lines.mjs there.
const NOT_LINUX = process.platform !== 'linux' && 'the fixtures run /bin/sh, and the registry\'s Node lines are installed on Linux only';

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-programs-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** `argv` run stock, or under `run`: its output's JSON lines. */
async function lines(argv, { underRun, env, cwd = ROOT }) {
  const command = underRun ? [process.execPath, BIN, 'run', '--', ...argv] : argv;
  const r = await runCommand(command[0], command.slice(1), { cwd, env: userEnv(env), timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  return r.stdout.trim().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

test('an app holding an SDK starts this Node on a bundle holding one (an app on @qwen-code/sdk): the bundle gets the fix, 0 lost; the app\'s shell command and node --test get none of run\'s variables', { skip: NOT_LINUX, timeout: 120_000 }, async () => {
  const { buildSync } = await import('esbuild');
  const bundle = path.join(dir, 'qwen-like', 'cli.mjs');
  buildSync({ entryPoints: [path.join(FIXTURES, 'host.mjs')], bundle: true, platform: 'node', format: 'esm', banner: { js: ESM_BANNER }, outfile: bundle, logLevel: 'silent' });
  const serverEnv = path.join(dir, 'bundle-server-env');
  const carriersOut = path.join(dir, 'bundle-test-carriers');
  const server = `printf 'NODE_OPTIONS=%s\\n' "$NODE_OPTIONS" >> '${serverEnv}'; exec '${process.execPath}' '${RAW_SERVER}' --mode=all-in-one --progress=${PROGRESS}`;
  const env = {
    HOST_CONFIG: JSON.stringify({ servers: [{ name: 'raw', command: '/bin/sh', args: ['-c', server] }], progress: PROGRESS, shell: CARRIERS_SHELL }),
    CARRIERS_SHELL,
    TEST_FILE: path.join(PROGRAMS, 'carriers.test.mjs'),
    CARRIERS_OUT: carriersOut,
  };
  const argv = [process.execPath, path.join(PROGRAMS, 'app-spawns-bundle.mjs'), bundle];
  const [stockHost] = await lines(argv, { underRun: false, env });
  assert.deepEqual(stockHost.servers.map((s) => s.received), [0], JSON.stringify(stockHost));
  assert.equal(stockHost.onerrors.length, PROGRESS, JSON.stringify(stockHost));
  fs.rmSync(serverEnv, { force: true });
  const [host, app] = await lines(argv, { underRun: true, env });
  assert.deepEqual(host.servers.map((s) => [s.answered, s.received]), [[true, PROGRESS]], JSON.stringify(host));
  assert.deepEqual(host.onerrors, [], JSON.stringify(host));
  assert.match(fs.readFileSync(serverEnv, 'utf8'), /entries[\\/]register\.cjs/, 'the bundle\'s server got the fix');
  assert.equal(host.shell.stdout, NONE, 'the bundle\'s shell command');
  assert.equal(app.shell, NONE, 'the app\'s shell command');
  assert.equal(app.test.status, 0, app.test.stdout);
  assert.equal(fs.readFileSync(carriersOut, 'utf8'), NONE, 'the app\'s node --test');
});

test('a bin launcher holding no SDK starts a Bun-compiled executable holding one whose built-in arguments end with `--` (kilo\'s bin/kilo, opencode serve): reached through BUN_INSPECT_PRELOAD, 0 lost', { skip: NOT_LINUX || (RUNTIMES.bun === undefined && 'bun is not installed for this platform'), timeout: 300_000 }, async () => {
  const { buildCompiled, KINDS } = await import('../support/compiled.mjs');
  const esm = KINDS.find((k) => k.kind === 'esm');
  const [exe] = buildCompiled(path.join(dir, 'compiled'), { apps: ['sdk1'], kinds: [{ ...esm, kind: 'esm-blocked', flags: [...esm.flags, '--compile-exec-argv=--smol --'] }] });
  const bin = path.join(dir, 'kilo-like', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(dir, 'kilo-like', 'package.json'), JSON.stringify({ name: 'kilo-like', version: '1.0.0', bin: { tool: 'bin/tool' } }));
  fs.copyFileSync(exe.file, path.join(bin, '.host'));
  fs.copyFileSync(path.join(PROGRAMS, 'launcher.cjs'), path.join(bin, 'tool'));
  fs.chmodSync(path.join(bin, 'tool'), 0o755);
  const env = { CARRIERS_SHELL, RAW_SERVER, RAW_SERVER_NODE: process.execPath, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
  const [stock] = await lines([path.join(bin, 'tool')], { underRun: false, env, cwd: bin });
  assert.ok(stock.expected > 0 && stock.lost === stock.expected, JSON.stringify(stock));
  const [fixed, launcher] = await lines([path.join(bin, 'tool')], { underRun: true, env, cwd: bin });
  assert.equal(fixed.lost, 0, JSON.stringify(fixed));
  assert.equal(fixed.patched, true, JSON.stringify(fixed));
  assert.equal(launcher.status, 0, JSON.stringify(launcher));
  assert.equal(launcher.shell, NONE, 'the launcher\'s shell command');
  // The executable in the launcher's platform package instead (@kilocode/cli's bin/kilo where no postinstall put bin/.kilo beside it).
  const platform = path.join(dir, 'kilo-like', 'node_modules', 'kilo-like-platform');
  fs.mkdirSync(path.join(platform, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(platform, 'package.json'), JSON.stringify({ name: 'kilo-like-platform', version: '1.0.0', os: [process.platform], cpu: [process.arch] }));
  fs.renameSync(path.join(bin, '.host'), path.join(platform, 'bin', 'host'));
  fs.writeFileSync(path.join(dir, 'kilo-like', 'package.json'), JSON.stringify({ name: 'kilo-like', version: '1.0.0', bin: { tool: 'bin/tool' }, optionalDependencies: { 'kilo-like-platform': '1.0.0', 'kilo-like-other': '1.0.0' } }));
  const withPlatform = { ...env, LAUNCHER_HOST: path.join(platform, 'bin', 'host') };
  const [inPackage, itsLauncher] = await lines([path.join(bin, 'tool')], { underRun: true, env: withPlatform, cwd: bin });
  assert.equal(inPackage.lost, 0, JSON.stringify(inPackage));
  assert.equal(itsLauncher.shell, NONE, 'the launcher\'s shell command');
  const [byAppInPackage] = await lines([process.execPath, path.join(PROGRAMS, 'app-spawns.mjs'), path.join(bin, 'tool')], { underRun: true, env: withPlatform });
  assert.equal(byAppInPackage.lost, 0, JSON.stringify(byAppInPackage));
  fs.renameSync(path.join(platform, 'bin', 'host'), path.join(bin, '.host'));
  // Started by an app that holds the SDK itself (run's variables out of its environment): the launcher is a step toward the executable.
  const [byApp] = await lines([process.execPath, path.join(PROGRAMS, 'app-spawns.mjs'), path.join(bin, 'tool')], { underRun: true, env });
  assert.equal(byApp.lost, 0, JSON.stringify(byApp));
  assert.equal(byApp.patched, true, JSON.stringify(byApp));
});

test('a fixed host\'s Worker that never loads the SDK (Node\'s, given no env and a copy; Bun\'s two): it, its shell command, its node --test and a Node 18 it starts get none of run\'s variables', { skip: NOT_LINUX, timeout: 180_000 }, async () => {
  const node18 = installedNode('18.20.8');
  assert.ok(node18, 'Node 18 is installed (node scripts/node-lines.mjs)');
  const cases = [['Node, no env', process.execPath, 'threads'], ['Node, a copy of process.env', process.execPath, 'env']];
  if (RUNTIMES.bun !== undefined) cases.push(['Bun, node:worker_threads', RUNTIMES.bun.command, 'threads'], ['Bun, its global Worker', RUNTIMES.bun.command, 'web']);
  const results = await Promise.all(cases.map(async ([what, runtime, kind]) => {
    const carriersOut = path.join(dir, `worker-test-${kind}-${path.basename(runtime)}`);
    const env = { WORKER_KIND: kind, CARRIERS_SHELL, TEST_FILE: path.join(PROGRAMS, 'carriers.test.mjs'), CARRIERS_OUT: carriersOut, TEST_NODE: process.execPath, OLD_NODE: node18 };
    const [message] = await lines([runtime, path.join(PROGRAMS, 'worker-host.mjs')], { underRun: true, env });
    return [what, { ...message, testCarriers: fs.readFileSync(carriersOut, 'utf8') }];
  }));
  const clean = { own: '|||', shell: NONE, test: 0, old: { stdout: '|||\n', stderr: '' }, testCarriers: NONE };
  assert.deepEqual(Object.fromEntries(results), Object.fromEntries(cases.map(([what]) => [what, clean])));
});

test('a host with no main script (node -e) relaunches nothing: its Node child gets none of run\'s variables', { timeout: 60_000 }, async () => {
  const host = `await import('@modelcontextprotocol/sdk/client/index.js');
const { spawnSync } = await import('node:child_process');
const child = spawnSync(process.execPath, ['-p', "['NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN'].map((name) => process.env[name] ?? '').join('|')"], { env: { ...process.env }, encoding: 'utf8' });
process.stdout.write(JSON.stringify({ child: child.stdout }) + '\\n');`;
  const [result] = await lines([process.execPath, '--input-type=module', '-e', host], { underRun: true, env: {} });
  assert.deepEqual(result, { child: '|\n' });
});

test('a host that loads the SDK lazily (a literal import()) is a host from its start: the command it runs before the import gets none of run\'s variables', { timeout: 60_000 }, async () => {
  const [result] = await lines([process.execPath, path.join(PROGRAMS, 'lazy-host.mjs')], { underRun: true, env: {} });
  assert.deepEqual(result, { before: '|||\n', loaded: 'function' });
});
