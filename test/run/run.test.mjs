// `mcp-ordered-dispatch run -- COMMAND`, with real child processes:
//   - what passes through untouched: the child's exit code, its death by a
//     signal sent to the launcher (the launcher dies by the same signal), and
//     stdin to stdout byte for byte; each with the launcher on this Node (20:
//     the command a child, the signal forwarded) and on Node 24 (the launcher
//     replaced by the command through process.execve());
//   - a Node 24 single executable application (built as
//     test/plugin/artifacts.test.mjs builds one) is named in exactly one
//     line on stderr and runs unchanged, its output intact;
//   - the coalescing reproduction's Node client app (test/support/run-repro.mjs
//     against test/fixtures/raw-server.mjs, its server a Node child that
//     inherits NODE_OPTIONS): 0 lost under run, and stock loses; a user's
//     own NODE_OPTIONS preload runs beside register;
//   - a Bun-compiled client executable (test/support/compiled.mjs): 0 lost
//     under run, stock loses; with a user's own BUN_OPTIONS preload, and
//     built with arguments ending in `--` (as opencode is) with a user's own
//     BUN_INSPECT_PRELOAD, both preloads run;
//   - a client app as an npm-bin-shaped script (#!/usr/bin/env node) and
//     run by `bun`: patched under run, stock not;
//   - a Deno app (no -A) under `run -- deno run app.mjs`: its SDK patched
//     with the scoped permissions run adds; stock Deno leaves it stock;
//   - a Node host under run whose stdio MCP servers (the real
//     server-everything) are run by node and by bun, each inheriting the
//     launcher's environment: both connect and list their tools.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { runReproChild, PAIRS } from '../support/run-repro.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { installedNode } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const bun = RUNTIMES.bun?.command;

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-run-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The environment of a launcher started here: none of the test runner's or a user's Node or Bun settings. */
function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_NATIVE']) delete env[name];
  return { ...env, ...extra };
}

/** `mcp-ordered-dispatch run -- command ...args` to its end: { code, signal, stdout, stderr }. */
function launch(command, args, { env = {}, cwd = dir, node = process.execPath } = {}) {
  return runCommand(node, [BIN, 'run', '--', command, ...args], { cwd, env: cleanEnv(env), timeout: 120_000 });
}

// The launcher on this Node, and on a Node with process.execve() (Linux: from its npm package).
const LAUNCHERS = [['this Node', () => process.execPath]];
if (process.platform === 'linux' && typeof process.execve !== 'function') LAUNCHERS.push(['Node 24 (execve)', () => installedNode('24.22.3')]);

for (const [label, nodeOf] of LAUNCHERS) {
  test(`${label}: the child's exit code passes through`, async () => {
    const r = await launch(process.execPath, ['-e', 'process.exitCode = 7'], { node: nodeOf() });
    assert.equal(r.code, 7, show(r));
    assert.equal(r.stderr, '');
  });

  test(`${label}: SIGTERM sent to the launcher ends the command, and the launcher ends by the same signal`, async (t) => {
    const child = spawn(nodeOf(), [BIN, 'run', '--', process.execPath, '-e', "process.stdout.write('ready'); setInterval(() => {}, 1000);"], { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGTERM');
    const [code, signal] = await new Promise((resolve) => child.once('close', (c, s) => resolve([c, s])));
    assert.deepEqual({ code, signal, stderr }, { code: null, signal: 'SIGTERM', stderr: '' });
  });

  test(`${label}: the command starts with no signal ignored (Node ignores SIGPIPE and SIGXFSZ; the command must not inherit that)`, { skip: process.platform !== 'linux' && '/proc/self/status is Linux\'s' }, async () => {
    const r = await launch('/bin/sh', ['-c', 'grep SigIgn /proc/self/status'], { node: nodeOf() });
    assert.equal(r.stdout, 'SigIgn:\t0000000000000000\n', show(r));
  });

  test(`${label}: stdin to stdout, byte for byte (1 MiB of random bytes through the command)`, async (t) => {
    const bytes = crypto.randomBytes(1024 * 1024);
    const child = spawn(nodeOf(), [BIN, 'run', '--', process.execPath, '-e', 'process.stdin.pipe(process.stdout)'], { cwd: dir, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    const out = [];
    let stderr = '';
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.stdin.end(bytes);
    const code = await new Promise((resolve) => child.once('close', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    assert.ok(Buffer.concat(out).equals(bytes), 'the bytes came out as they went in');
  });
}

test('a Node single executable application with no SDK inside: one line on stderr says so, without advice; it runs unchanged, its output and exit code intact', { skip: process.platform !== 'linux' && 'the Node 24 binary is installed from its Linux package here' }, async () => {
  const node24 = installedNode('24.22.3');
  const build = path.join(dir, 'sea');
  fs.mkdirSync(build);
  fs.writeFileSync(path.join(build, 'main.cjs'), "process.stdout.write('sea ' + process.argv.slice(2).join(' ') + ' ' + JSON.stringify(process.env.NODE_OPTIONS ?? null) + '\\n'); process.exitCode = 3;\n");
  fs.writeFileSync(path.join(build, 'sea-config.json'), JSON.stringify({ main: 'main.cjs', output: 'app.blob', disableExperimentalSEAWarning: true }));
  execFileSync(node24, ['--experimental-sea-config', 'sea-config.json'], { cwd: build, stdio: 'pipe', timeout: 120_000 });
  const exe = path.join(build, 'app');
  fs.copyFileSync(node24, exe);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'), exe, 'NODE_SEA_BLOB', path.join(build, 'app.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'pipe', timeout: 120_000 });
  const r = await launch(exe, ['a', 'b c']);
  assert.equal(r.code, 3, show(r));
  assert.equal(r.stdout, 'sea a b c null\n', 'run unchanged: its arguments, and no NODE_OPTIONS of ours');
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  // Its MCP client (if any) is not this SDK (Copilot CLI's is Rust): no advice about building the fix in.
  assert.match(lines[0], /^mcp-ordered-dispatch run: .*app is a Node single executable application with no MCP TypeScript SDK inside it, so the fix has nothing to change there; it runs unchanged\.$/);
});

/** The reproduction's Node client app (ES module build of SDK 1.x), under `run` when `launched`. */
function nodeRepro(launched, env = {}) {
  const runtime = launched ? { name: 'run', command: process.execPath, args: [BIN, 'run', '--', process.execPath] } : undefined;
  return runReproChild({ sdk: 1, build: 'esm', pairs: PAIRS, mode: 'last-with-response', runtime, env: cleanEnv(env) });
}

test('a Node client app: 0 lost under run (and its raw server, a Node child, keeps working); stock loses; a user\'s NODE_OPTIONS preload runs beside register', async () => {
  const stock = await nodeRepro(false);
  assert.ok(stock.lost > 0, `stock lost nothing, so the reproduction is not real: ${JSON.stringify(stock)}`);
  const spy = path.join(dir, 'user-preload.cjs');
  fs.writeFileSync(spy, "process.stderr.write('user preload ran in ' + require('node:path').basename(process.argv[1] ?? '-') + '\\n');\n");
  // The user's preload runs in the app, once (and in the launcher; test/run/user-preload.test.mjs
  // counts the threads); its servers (Node children spawned with the SDK's default environment, which carries
  // no NODE_OPTIONS) get register back, not the user's preload, as stock.
  const launched = await nodeRepro(true, { NODE_OPTIONS: `--require ${spy}` });
  assert.equal(launched.progressExpected, PAIRS * 3);
  assert.equal(launched.lost, 0, JSON.stringify(launched));
  assert.equal(launched.onerrorCount, 0, JSON.stringify(launched.onerrors));
  const ran = launched.stderr.split('\n').filter(Boolean);
  assert.ok(ran.every((line) => line.startsWith('user preload ran in ')), launched.stderr);
  assert.equal(ran.filter((line) => line.endsWith(' repro-esm.mjs')).length, 1, launched.stderr);
  assert.equal(ran.filter((line) => line.includes('raw-server')).length, 0, launched.stderr);
});

/** A client app (SDK 1.x) in its own folder that prints whether its Client class is patched once used (register patches at first use); `shebang` its first line. */
function patchedApp(name, shebang = '') {
  const project = path.join(dir, name);
  fs.mkdirSync(project);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'junction');
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name, private: true }));
  const app = path.join(project, 'app.mjs');
  fs.writeFileSync(app, `${shebang}import { Client } from '@modelcontextprotocol/sdk/client/index.js';
new Client({ name: 'app', version: '1' });
let patched = false;
for (let p = Client.prototype; p !== null; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, Symbol.for('mcp-ordered-dispatch.patch'))) patched = true;
console.log(JSON.stringify({ patched }));
`);
  fs.chmodSync(app, 0o755);
  return { project, app };
}

test('an npm-bin-shaped script (#!/usr/bin/env node, started by its path) and a script run by bun: patched under run, stock not', { skip: process.platform === 'win32' && 'a #! script is started by the kernel' }, async () => {
  const { project, app } = patchedApp('shebang-app', '#!/usr/bin/env node\n');
  const env = { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
  const stock = await runCommand(app, [], { cwd: project, env: cleanEnv(env) });
  assert.equal(stock.stdout.trim(), '{"patched":false}', show(stock));
  const r = await launch(app, [], { cwd: project, env });
  assert.deepEqual([r.code, r.stdout.trim(), r.stderr], [0, '{"patched":true}', ''], show(r));
  if (bun === undefined) return;
  const bunStock = await runCommand(bun, ['app.mjs'], { cwd: project, env: cleanEnv() });
  assert.equal(bunStock.stdout.trim(), '{"patched":false}', show(bunStock));
  const underBun = await launch(bun, ['app.mjs'], { cwd: project });
  assert.deepEqual([underBun.code, underBun.stdout.trim(), underBun.stderr], [0, '{"patched":true}', ''], show(underBun));
});

test('deno run without -A: run inserts --preload and the scoped permissions register needs; the SDK is patched (stock: not)', { skip: RUNTIMES.deno === undefined && 'deno is not installed for this platform' }, async () => {
  const { project } = patchedApp('deno-app');
  const deno = RUNTIMES.deno;
  const env = cleanEnv(deno.env);
  const stock = await runCommand(deno.command, ['run', '--no-lock', 'app.mjs'], { cwd: project, env, timeout: 120_000 });
  assert.equal(stock.stdout.trim(), '{"patched":false}', show(stock));
  const r = await launch(deno.command, ['run', '--no-lock', 'app.mjs'], { cwd: project, env: deno.env });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stdout.trim(), '{"patched":true}', show(r));
  assert.equal(r.stderr, '');
});

bunTests();

function bunTests() {
  const skip = bun === undefined && 'bun is not installed for this platform';
  let compiled;
  const built = () => {
    if (compiled !== undefined) return compiled;
    const support = import('../support/compiled.mjs');
    compiled = support.then(({ buildCompiled, KINDS }) => {
      const esm = KINDS.find((k) => k.kind === 'esm');
      const [plain] = buildCompiled(path.join(dir, 'compiled'), { apps: ['sdk1'], kinds: [esm] });
      const [blocked] = buildCompiled(path.join(dir, 'compiled-blocked'), { apps: ['sdk1'], kinds: [{ ...esm, kind: 'esm-blocked', flags: [...esm.flags, '--compile-exec-argv=--smol --'] }] });
      return { plain, blocked };
    });
    return compiled;
  };

  test('a Bun-compiled client executable: 0 lost under run, stock loses; a user\'s BUN_OPTIONS preload runs beside ours', { skip }, async () => {
    const { runCompiled, PROGRESS } = await import('../support/compiled.mjs');
    const { plain } = await built();
    const stock = await runCompiled(plain.file);
    assert.equal(stock.lost, PROGRESS, JSON.stringify(stock));
    const spy = path.join(dir, 'user-bun-preload.mjs');
    fs.writeFileSync(spy, "process.stderr.write('user bun preload ran\\n');\n");
    const launched = await runCompiled(process.execPath, { args: [BIN, 'run', '--', plain.file], env: { BUN_OPTIONS: `--preload ${spy}` }, cwd: path.dirname(plain.file) });
    assert.equal(launched.lost, 0, JSON.stringify(launched));
    assert.equal(launched.onerrors, 0);
    assert.equal(launched.patched, true);
    assert.equal(launched.stderr, 'user bun preload ran\n');
  });

  test('a Bun-compiled executable whose built-in arguments end with `--` (as opencode\'s): reached through BUN_INSPECT_PRELOAD, 0 lost, a user\'s BUN_INSPECT_PRELOAD kept', { skip }, async () => {
    const { runCompiled, PROGRESS } = await import('../support/compiled.mjs');
    const { blocked } = await built();
    const stock = await runCompiled(blocked.file);
    assert.equal(stock.lost, PROGRESS, JSON.stringify(stock));
    const spy = path.join(dir, 'user-inspect-preload.mjs');
    fs.writeFileSync(spy, "process.stderr.write('user inspect preload ran\\n');\n");
    const launched = await runCompiled(process.execPath, { args: [BIN, 'run', '--', blocked.file], env: { BUN_INSPECT_PRELOAD: spy }, cwd: path.dirname(blocked.file) });
    assert.equal(launched.lost, 0, JSON.stringify(launched));
    assert.equal(launched.patched, true);
    assert.equal(launched.stderr, 'user inspect preload ran\n');
  });

  test('a Node host under run: its stdio MCP servers run by node and by bun (server-everything, "type": "module") inherit the environment and keep working', { skip }, async () => {
    const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js', { paths: [ROOT] });
    const host = path.join(dir, 'host.mjs');
    const sdk = (p) => JSON.stringify(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`, { paths: [ROOT] })).href);
    fs.writeFileSync(host, `import { Client } from ${sdk('client/index.js')};
import { StdioClientTransport } from ${sdk('client/stdio.js')};
const result = {};
for (const [name, command] of [['node', process.execPath], ['bun', ${JSON.stringify(bun)}]]) {
  const client = new Client({ name: 'host', version: '0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command, args: [${JSON.stringify(everything)}, 'stdio'], env: process.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c) => (stderr += c));
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    result[name] = { tools: tools.length, echo: echoed.content?.[0]?.text };
  } catch (error) {
    result[name] = { error: String(error), stderr };
  } finally {
    await client.close();
  }
}
console.log(JSON.stringify(result));
`);
    const r = await launch(process.execPath, [host]);
    assert.equal(r.code, 0, show(r));
    const result = JSON.parse(r.stdout.trim().split('\n').pop());
    for (const name of ['node', 'bun']) {
      assert.ok(result[name].tools > 0, `${name}: ${JSON.stringify(result[name])}`);
      assert.match(result[name].echo, /hi/, `${name}: ${JSON.stringify(result[name])}`);
    }
  });
}
