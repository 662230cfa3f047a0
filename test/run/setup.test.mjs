// `mcp-ordered-dispatch setup HOST`: the fix on for good for the chosen host,
// written for bash into a temporary home. A shell started there runs the
// chosen host (an MCP client app on PATH, against the raw server writing all
// its progress in the response's write) with the fix, 0 lost; a Node program
// and a Bun program that are not the chosen host run without it (no
// register in their NODE_OPTIONS or BUN_OPTIONS, and the client app run
// under another name loses as stock). A second setup adds its host to the
// block, `--remove` takes one out, and `setup --undo` restores the startup
// file byte for byte: one that ended without a newline, and one that setup
// created (removed again). The careful edit: setup-edit.test.mjs; the other
// shells: setup-shells.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { createRequire } from 'node:module';
import { makeHome, lastJson, BIN } from './fixtures/setup-home.mjs';

const { nativeLauncher } = createRequire(import.meta.url)('../../lib/native/launcher.cjs');
const { startupFile } = createRequire(import.meta.url)('../../lib/run/setup.cjs');
const POSIX = process.platform === 'win32' && 'bash shells are tested on Linux and macOS';

let home;
let env;
let space;
before(() => {
  space = makeHome();
  ({ home, env } = space);
});
after(() => space?.remove());

/** `command` in an interactive bash started in the temporary home, as a terminal starts it: a login shell on macOS (it reads the file setup writes there). */
function inShell(command) {
  return runCommand('bash', [...(process.platform === 'darwin' ? ['-l'] : []), '-i', '-c', command], { cwd: home, env: env(), timeout: 120_000 });
}

/** The startup file setup writes for bash in the temporary home (~/.bashrc; on macOS ~/.bash_profile). */
const bashFile = () => startupFile('bash', { home, env: env() });

test('setup for bash: the chosen host runs with the fix, other Node and Bun programs without it; --undo restores the file byte for byte', { skip: POSIX, timeout: 200_000 }, async () => {
  const rc = bashFile();
  const original = '# the user\'s own settings\nexport EDITOR=vi'; // no newline at its end
  fs.writeFileSync(rc, original);
  const stockHost = lastJson(await inShell('myhost'));
  assert.equal(stockHost.lost, stockHost.progressExpected, 'stock, the app loses every notification');
  // --shell VALUE as well as --shell=VALUE.
  const written = await runCommand(process.execPath, [BIN, 'setup', '--shell', 'bash', 'myhost'], { cwd: home, env: env() });
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

  // A second setup adds its host to the block; --remove takes one out; each says what the block now holds.
  const added = await runCommand(process.execPath, [BIN, 'setup', '--shell=bash', 'otherapp'], { cwd: home, env: env() });
  assert.match(added.stdout, /now holds myhost, otherapp: /, show(added));
  assert.equal(fs.readFileSync(rc, 'utf8').split('# >>> mcp-ordered-dispatch setup >>>').length, 2, 'one block');
  assert.equal(lastJson(await inShell('otherapp')).lost, 0, 'the added host starts with the fix');
  const removed = await runCommand(process.execPath, [BIN, 'setup', '--shell=bash', '--remove', 'otherapp'], { cwd: home, env: env() });
  assert.match(removed.stdout, /now holds myhost; /, show(removed));
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

test('a function whose package is gone runs the plain host and says so in one line', { skip: POSIX, timeout: 120_000 }, async () => {
  const setup = (await import('../../lib/run/setup.cjs')).default;
  const rc = bashFile();
  const launch = setup.launchWords({ native: nativeLauncher(), node: process.execPath, cli: BIN, plans: home });
  setup.setup({ hosts: ['myhost'], shell: 'bash', file: rc, launch, guard: path.join(home, 'moved', 'register.mjs') });
  try {
    const r = await inShell('myhost');
    assert.equal(r.code, 0, show(r));
    assert.equal(lastJson(r).lost, lastJson(r).progressExpected, `stock: ${show(r)}`);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('mcp-ordered-dispatch'));
    assert.deepEqual(lines, ['mcp-ordered-dispatch: the package setup found is gone, so myhost starts without the fix; run `npx mcp-ordered-dispatch setup myhost` again, or `npx mcp-ordered-dispatch setup --undo`'], show(r));
  } finally {
    setup.remove({ shell: 'bash', file: rc });
  }
});
