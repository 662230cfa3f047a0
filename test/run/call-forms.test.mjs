// Under `run`, a fixed host's spawn functions are wrapped (lib/patch/children.cjs,
// lib/patch/call-forms.cjs): every call form Node and Bun accept returns what
// it returns without `run`, and only the environment the rule decides
// differs. A host (test/run/fixtures/call-forms-host.mjs) makes every call
// form of child_process (spawn, spawnSync, exec, execSync, execFile,
// execFileSync, fork: args left out, null or undefined, options left out or
// null, shell, stdio, input, encoding, cwd, env absent or given, signal,
// timeout, maxBuffer, windowsHide, argv0, a missing file, an argument of the
// wrong type), once for a child the rule gives the fix to (started where a
// transport starts its MCP server) and once for one it takes the fix out for
// (a program given an environment copied before the SDK loaded); on Bun,
// Bun.spawn and Bun.spawnSync. Stock and under `run`, each call's return
// type, status, output, error class, code and message are the same; whether
// the child had run's variables is what the rule says; an error thrown
// through a wrapper has no frame of ours, and the wrapped functions keep
// their names and lengths. And process.execve() (Node 24) of the host itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { installedNode } from '../../scripts/node-lines.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const HOST = fileURLToPath(new URL('./fixtures/call-forms-host.mjs', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-call-forms-'));

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The host's results (call form -> what it gave), started as `command` stock or under run. */
async function results(name, command, underRun, extraEnv = {}) {
  const out = path.join(dir, `${name}-${underRun ? 'run' : 'stock'}.json`);
  const env = { ...process.env, CALL_FORMS_OUT: out, ...extraEnv };
  for (const key of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD']) delete env[key];
  const [file, ...args] = underRun ? [process.execPath, BIN, 'run', '--', ...command] : command;
  const r = await runCommand(file, args, { cwd: dir, env, timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  return { forms: JSON.parse(fs.readFileSync(out, 'utf8')), stdout: r.stdout, stderr: r.stderr };
}

const FIX = /(fix\\*":)(true|false)/g;

/** A form's result with whether its child had run's variables taken out: { shown, fix: [true | false, ...] }. */
function split(result) {
  const text = JSON.stringify(result);
  return { shown: text.replace(FIX, '$1?'), fix: [...text.matchAll(FIX)].map((m) => m[2] === 'true') };
}

/** Whether the rule gives the child of `form` run's variables: one started where a transport starts its server. */
function expectFix(form) {
  return form.endsWith('[server]');
}

/** Where stock and run give other results than the fix, which is the rule's: a line for each form. */
function differences(stock, fixed) {
  assert.deepEqual(Object.keys(fixed).sort(), Object.keys(stock).sort());
  const wrong = [];
  for (const form of Object.keys(stock)) {
    const s = split(stock[form]);
    const r = split(fixed[form]);
    if (r.shown !== s.shown) wrong.push(`${form}: stock and run differ beyond the environment:\n  stock ${s.shown}\n  run   ${r.shown}`);
    if (s.fix.some((f) => f !== false)) wrong.push(`${form}: stock's child had run's variables: ${s.shown}`);
    // A child that started prints one line (the callback's output and the error's carry it too).
    if (r.fix.some((f) => f !== expectFix(form))) wrong.push(`${form}: under run the child's variables are not the rule's (${expectFix(form) ? 'given' : 'none'}): ${r.shown}`);
  }
  return wrong;
}

test('Node: every child_process call form returns what stock returns under run; only the environment the rule decides differs', async () => {
  const command = [process.execPath, HOST];
  const [stock, fixed] = await Promise.all([results('node', command, false), results('node', command, true)]);
  assert.equal(Object.keys(stock.forms).length, 79, Object.keys(stock.forms).join('\n'));
  assert.deepEqual(differences(stock.forms, fixed.forms), []);
  assert.deepEqual(fixed.forms['names and lengths'].spawnSync, ['spawnSync', 3]);
  // The issue's own call: its cwd, input and encoding kept, and the child given the fix.
  const call = fixed.forms['spawnSync(file, null, options), cwd, input, encoding [server]'];
  assert.match(call.stdout, /^string .*cwd\\":\\"[^"]*mcp-od-call-forms-.*fix\\":true/, JSON.stringify(call));
});

test('Bun: Bun.spawn and Bun.spawnSync in each call form return what stock returns under run; only the environment the rule decides differs', { skip: !RUNTIMES.bun && 'no Bun for this platform' }, async () => {
  const command = [RUNTIMES.bun.command, HOST];
  const [stock, fixed] = await Promise.all([results('bun', command, false), results('bun', command, true)]);
  assert.equal(Object.keys(stock.forms).length, 15, Object.keys(stock.forms).join('\n'));
  assert.deepEqual(differences(stock.forms, fixed.forms), []);
});

test('Node 24: process.execve() of this host again (a relaunch) gets the fix; its output is stock\'s', { skip: (process.platform === 'win32' && 'process.execve() is not on Windows') || (process.platform !== 'linux' && 'Node 24 comes from scripts/node-lines.mjs, which installs the registry\'s Linux packages') }, async () => {
  const node24 = installedNode('24.22.3');
  assert.ok(node24, 'Node 24 is installed (node scripts/node-lines.mjs)');
  const command = [node24, HOST];
  const [stock, fixed] = await Promise.all([results('execve', command, false, { CALL_FORMS_EXECVE: '1' }), results('execve', command, true, { CALL_FORMS_EXECVE: '1' })]);
  assert.deepEqual(differences(stock.forms, fixed.forms), []);
  const line = (r) => JSON.parse(r.stdout.trim().split('\n').pop());
  assert.deepEqual({ ...line(fixed), fix: false }, line(stock));
  assert.equal(line(stock).fix, false);
  assert.equal(line(fixed).fix, true, fixed.stdout);
  assert.equal(fixed.stderr, stock.stderr);
});
