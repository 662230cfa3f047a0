// `mcp-ordered-dispatch setup HOST`: the fix on for good for the chosen host,
// written for bash into a temporary home. A shell started there runs the
// chosen host (an MCP client app on PATH, against the raw server writing all
// its progress in the response's write) with the fix, 0 lost; a Node program
// and a Bun program that are not the chosen host run without it (no
// register in their NODE_OPTIONS or BUN_OPTIONS, and the client app run
// under another name loses as stock). `setup --undo` restores the startup
// file byte for byte: one that ended without a newline, and one that setup
// created (removed again).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { createRequire } from 'node:module';

const { nativeLauncher } = createRequire(import.meta.url)('../../lib/native/launcher.cjs');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const REPRO = path.join(ROOT, 'test', 'support', 'repro-esm.mjs');
const POSIX = process.platform === 'win32' && 'bash shells are tested on Linux and macOS';

let home;
let binDir;
before(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-setup-'));
  binDir = path.join(home, 'bin');
  fs.mkdirSync(binDir);
  // The chosen host and a program that is not: the same client app under two names.
  const app = `#!/bin/sh\nexec '${process.execPath}' '${REPRO}' --sdk=1 --patched=0 --pairs=2 --mode=all-in-one --progress=3\n`;
  for (const name of ['myhost', 'otherapp']) {
    fs.writeFileSync(path.join(binDir, name), app);
    fs.chmodSync(path.join(binDir, name), 0o755);
  }
});
after(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function env() {
  const e = { ...process.env, HOME: home, PATH: [binDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter), SHELL: '/bin/bash' };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN']) delete e[name];
  return e;
}

/** `command` in an interactive bash started in the temporary home (it reads ~/.bashrc as a user's shell does). */
function inShell(command) {
  return runCommand('bash', ['-i', '-c', command], { cwd: home, env: env(), timeout: 120_000 });
}

const lastJson = (r) => JSON.parse(r.stdout.trim().split('\n').pop());

test('setup for bash: the chosen host runs with the fix, other Node and Bun programs without it; --undo restores the file byte for byte', { skip: POSIX, timeout: 200_000 }, async () => {
  const rc = path.join(home, '.bashrc');
  const original = '# the user\'s own settings\nexport EDITOR=vi'; // no newline at its end
  fs.writeFileSync(rc, original);
  const stockHost = lastJson(await inShell('myhost'));
  assert.equal(stockHost.lost, stockHost.progressExpected, 'stock, the app loses every notification');
  const written = await runCommand(process.execPath, [BIN, 'setup', '--shell=bash', 'myhost'], { cwd: home, env: env() });
  assert.equal(written.code, 0, show(written));
  assert.ok(fs.readFileSync(rc, 'utf8').startsWith(`${original}\n`), 'the user\'s lines stay first, as they were');
  assert.ok(fs.readFileSync(rc, 'utf8').includes(`'${nativeLauncher()}' `), 'the function starts the host through the native launcher');

  const host = await inShell('myhost');
  assert.equal(host.code, 0, show(host));
  assert.equal(lastJson(host).lost, 0, show(host));
  assert.ok(lastJson(host).progressExpected > 0);

  const other = await inShell('otherapp');
  assert.equal(lastJson(other).lost, lastJson(other).progressExpected, `not the chosen host: stock. ${show(other)}`);
  const nodeEnv = await inShell(`node -p "JSON.stringify([process.env.NODE_OPTIONS ?? null, process.env.BUN_OPTIONS ?? null, process.env.MCP_ORDERED_DISPATCH_RUN ?? null])"`);
  assert.equal(nodeEnv.stdout.trim().split('\n').pop(), '[null,null,null]', show(nodeEnv));
  if (RUNTIMES.bun) {
    const bunEnv = await inShell(`'${RUNTIMES.bun.command}' -e "console.log(JSON.stringify([process.env.NODE_OPTIONS ?? null, process.env.BUN_OPTIONS ?? null]))"`);
    assert.equal(bunEnv.stdout.trim().split('\n').pop(), '[null,null]', show(bunEnv));
  }

  // Written again (another host added): still one block, and undo still gives back the original.
  await runCommand(process.execPath, [BIN, 'setup', '--shell=bash', 'myhost', 'otherapp'], { cwd: home, env: env() });
  assert.equal(fs.readFileSync(rc, 'utf8').split('# >>> mcp-ordered-dispatch setup >>>').length, 2, 'one block');
  const undone = await runCommand(process.execPath, [BIN, 'setup', '--undo', '--shell=bash'], { cwd: home, env: env() });
  assert.equal(undone.code, 0, show(undone));
  assert.equal(fs.readFileSync(rc, 'utf8'), original, 'byte for byte');
  assert.equal(lastJson(await inShell('myhost')).lost, stockHost.progressExpected, 'undone: the host runs stock again');
});

test('setup into a startup file it creates: --undo removes it again', { skip: POSIX }, async () => {
  const rc = path.join(home, 'created', '.bashrc');
  const r = await runCommand(process.execPath, [BIN, 'setup', '--shell=bash', `--rc=${rc}`, 'myhost'], { cwd: home, env: env() });
  assert.equal(r.code, 0, show(r));
  assert.ok(fs.existsSync(rc));
  await runCommand(process.execPath, [BIN, 'setup', '--undo', '--shell=bash', `--rc=${rc}`], { cwd: home, env: env() });
  assert.equal(fs.existsSync(rc), false);
});

test('setup writes a function for zsh, fish and PowerShell too, each guarded by register\'s file and the launcher', async () => {
  const setup = (await import('../../lib/run/setup.cjs')).default;
  const { registerEntry } = (await import('../../lib/run/plan.cjs')).default;
  const launch = setup.launchWords({ native: nativeLauncher(), node: process.execPath, cli: BIN, records: home });
  for (const shell of ['zsh', 'fish', 'powershell']) {
    const file = path.join(home, `rc-${shell}`);
    setup.setup({ hosts: ['myhost'], shell, file, launch, guard: registerEntry().file });
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.includes(registerEntry().file), `${shell}: guarded by register's file`);
    assert.ok(text.includes(nativeLauncher()), `${shell}: started through the native launcher`);
    assert.match(text, /myhost/);
    assert.equal(setup.undo({ shell, file }), true);
    assert.equal(fs.existsSync(file), false, `${shell}: the file setup created is gone`);
  }
});

test('a function whose package is gone runs the plain host and says so in one line', { skip: POSIX, timeout: 120_000 }, async () => {
  const setup = (await import('../../lib/run/setup.cjs')).default;
  const rc = path.join(home, '.bashrc');
  const launch = setup.launchWords({ native: nativeLauncher(), node: process.execPath, cli: BIN, records: home });
  setup.setup({ hosts: ['myhost'], shell: 'bash', file: rc, launch, guard: path.join(home, 'moved', 'register.mjs') });
  try {
    const r = await inShell('myhost');
    assert.equal(r.code, 0, show(r));
    assert.equal(lastJson(r).lost, lastJson(r).progressExpected, `stock: ${show(r)}`);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('mcp-ordered-dispatch'));
    assert.deepEqual(lines, ['mcp-ordered-dispatch: the package setup found is gone, so myhost starts without the fix; run `npx mcp-ordered-dispatch setup myhost` again, or `npx mcp-ordered-dispatch setup --undo`'], show(r));
  } finally {
    setup.undo({ shell: 'bash', file: rc });
  }
});
