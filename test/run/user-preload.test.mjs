// A user's own `NODE_OPTIONS=--require=<file>` preload runs in the host as
// often under `mcp-ordered-dispatch run` as when the host is started
// directly, on this Node (20: register installs its ES module hooks with
// module.register(), whose loader thread runs every --require preload again)
// and on Node 24 (module.registerHooks(): no such thread):
//   - an ES module host that imports the SDK: once either way, and patched under run;
//   - the same with a loader thread of the user's own (`--experimental-loader`
//     in NODE_OPTIONS): the direct start runs the preload on that thread too,
//     and so does the start under run, no more.
//   - run puts register's --require before the user's first one in
//     NODE_OPTIONS (after their other options, which stay first), and takes it
//     out again exactly.
// The launcher's own process (a Node process, which reads NODE_OPTIONS too,
// and starts a loader thread of its own for --experimental-loader) is not
// the host: its lines are not counted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { runCommand, show } from '../support/spawn-node.mjs';
import { installedNode } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');

let dir;
let app;
let preload;
let loader;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-user-preload-'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'user-preload-host', private: true }));
  app = path.join(dir, 'app.mjs');
  // A Client constructed: register patches a class at its first use.
  fs.writeFileSync(app, `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
new Client({ name: 'app', version: '1' });
let patched = false;
for (let p = Client.prototype; p !== null; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, Symbol.for('mcp-ordered-dispatch.patch'))) patched = true;
console.log(JSON.stringify({ patched }));
`);
  // One line per run: the process, the thread, and on the main thread the script.
  preload = path.join(dir, 'user-preload.cjs');
  fs.writeFileSync(preload, `const { isMainThread } = require('node:worker_threads');
require('node:fs').appendFileSync(process.env.USER_PRELOAD_LOG, JSON.stringify([process.pid, isMainThread ? 'main' : 'worker', isMainThread ? process.argv[1] : null]) + '\\n');
`);
  loader = path.join(dir, 'user-loader.mjs');
  fs.writeFileSync(loader, 'export async function load(url, context, nextLoad) { return nextLoad(url, context); }\n');
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** An environment with none of the test runner's or this machine's Node settings, and `extra`. */
function cleanEnv(extra) {
  const env = { ...process.env };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN', 'MCP_ORDERED_DISPATCH_NATIVE']) delete env[name];
  return { ...env, ...extra };
}

let starts = 0;
/** Start the host app on `node`, directly or under run (the launcher on this Node): { r, ran: the preload's lines }. */
async function start(node, underRun, nodeOptions) {
  const log = path.join(dir, `ran-${++starts}.log`);
  const env = cleanEnv({ NODE_OPTIONS: nodeOptions, USER_PRELOAD_LOG: log, NODE_NO_WARNINGS: '1' });
  const [command, args] = underRun ? [process.execPath, [BIN, 'run', '--', node, app]] : [node, [app]];
  const r = await runCommand(command, args, { cwd: dir, env, timeout: 120_000 });
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
  // run's own Node runs the preload too (NODE_OPTIONS). On Node 22.15+ it becomes the host by execve, with the same pid:
  // each line is the launcher's or the host's by the script its process's main thread last ran for (a Worker's line names none).
  const scriptOf = new Map();
  const ran = [];
  for (const [pid, thread, script] of lines) {
    if (thread === 'main') scriptOf.set(pid, script);
    if (scriptOf.get(pid) !== BIN) ran.push(thread);
  }
  ran.sort();
  return { r, ran };
}

const HOSTS = [['this Node', () => process.execPath]];
HOSTS.push(['Node 24', () => installedNode('24.22.3'), process.platform !== 'linux' && 'the Node 24 binary is installed from its Linux package here']);

for (const [label, nodeOf, skip] of HOSTS) {
  test(`${label}: a user's --require preload runs in the host as often under run as started directly (once), and the host is patched`, { skip }, async () => {
    const node = nodeOf();
    const nodeOptions = `--require=${preload}`;
    const direct = await start(node, false, nodeOptions);
    assert.equal(direct.r.stdout.trim(), '{"patched":false}', show(direct.r));
    assert.deepEqual(direct.ran, ['main']);
    const run = await start(node, true, nodeOptions);
    assert.equal(run.r.stdout.trim(), '{"patched":true}', show(run.r));
    assert.deepEqual(run.ran, direct.ran, `ran under run: ${run.ran.join(', ')}; directly: ${direct.ran.join(', ')}`);
  });

  test(`${label}: with a loader thread of the user's own (--experimental-loader), the preload runs under run as often as started directly`, { skip }, async () => {
    const node = nodeOf();
    const nodeOptions = `--require=${preload} --experimental-loader=${pathToFileURL(loader).href}`;
    const direct = await start(node, false, nodeOptions);
    assert.equal(direct.r.code, 0, show(direct.r));
    const run = await start(node, true, nodeOptions);
    assert.equal(run.r.stdout.trim(), '{"patched":true}', show(run.r));
    assert.deepEqual(run.ran, direct.ran, `ran under run: ${run.ran.join(', ')}; directly: ${direct.ran.join(', ')}`);
  });
}

test("run puts register's --require before the user's first one, the rest of NODE_OPTIONS as it was, and takes it out exactly", () => {
  const rule = require('../../lib/rule/marker.cjs');
  const ours = '--require=/opt/register.cjs';
  const cases = [
    [undefined, ours],
    ['--no-warnings', `--no-warnings ${ours}`],
    ['--require mine.cjs', `${ours} --require mine.cjs`],
    ['--no-warnings  -r mine.cjs --require=b.cjs', `--no-warnings  ${ours} -r mine.cjs --require=b.cjs`],
    ['--title="a --require b" --require c.cjs', `--title="a --require b" ${ours} --require c.cjs`],
    ['--requirex --import=x.mjs', `--requirex --import=x.mjs ${ours}`],
  ];
  for (const [user, expected] of cases) {
    const env = rule.envWithFix(user === undefined ? {} : { NODE_OPTIONS: user }, ['NODE_OPTIONS'], { NODE_OPTIONS: ours });
    assert.equal(env.NODE_OPTIONS, expected);
    rule.takeFixOut(env);
    assert.equal(env.NODE_OPTIONS, user);
  }
});
