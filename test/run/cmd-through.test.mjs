// Windows' cmd.exe running one npm .cmd shim, as cross-spawn starts a `.cmd`
// (`cmd /d /s /c "NAME ARGS"`, metacharacters escaped with ^ for cmd.exe and
// again for the .cmd's %*), is decided as what the shim starts
// (lib/patch/child-files.cjs's throughCmd(), read through as `run` reads a
// shim): an app on @opencode-ai/sdk starting `opencode serve` on Windows
// reaches the executable its shim starts. Pure reading; runs everywhere (the
// shims are cmd-shim's, paths absolute).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { throughCmd } = require('../../lib/patch/child-files.cjs');
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-cmd-through-')));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** cross-spawn's escaping of one argument for a .cmd shim: quoted, metacharacters ^-escaped twice. */
const escaped = (arg) => `"${arg}"`.replace(/([()\][%!^"`<>&|;, *?])/g, '^$1').replace(/([()\][%!^"`<>&|;, *?])/g, '^$1');

test('cmd /d /s /c "SHIM ARGS": the shim read through to its script (through node) or its executable; anything else is not read', async () => {
  const cmdShim = require('cmd-shim');
  const pkg = path.join(dir, 'node_modules', 'host');
  fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  const script = path.join(pkg, 'bin', 'cli.js');
  const exe = path.join(pkg, 'bin', 'opencode.exe');
  fs.writeFileSync(script, '#!/usr/bin/env node\n');
  fs.writeFileSync(exe, 'MZ');
  const bin = path.join(dir, 'bin');
  await cmdShim(script, path.join(bin, 'host'));
  await cmdShim(exe, path.join(bin, 'opencode'));
  fs.writeFileSync(path.join(bin, 'node.exe'), 'MZ');
  const env = { PATH: bin };
  const line = (name, args) => ['/d', '/s', '/c', `"${[path.join(bin, name), ...args.map(escaped)].join(' ')}"`];
  assert.deepEqual(throughCmd('C:\\Windows\\system32\\cmd.exe', line('opencode.cmd', ['serve', '--port=4096']), env, dir), { file: exe, args: ['serve', '--port=4096'] });
  assert.deepEqual(throughCmd('cmd.exe', line('host.cmd', ['a b', '--x=(1)']), env, dir), { file: path.join(bin, 'node.exe'), args: [script, 'a b', '--x=(1)'] });
  assert.equal(throughCmd('/bin/sh', ['-c', path.join(bin, 'host.cmd')], env, dir), undefined, 'not cmd.exe');
  assert.equal(throughCmd('cmd.exe', ['/d', '/s', '/k', 'x'], env, dir), undefined, 'no /c');
  assert.equal(throughCmd('cmd.exe', line('missing.cmd', []), env, dir), undefined, 'nothing found');
  fs.writeFileSync(path.join(bin, 'other.cmd'), '@echo off\r\necho hi\r\n');
  assert.deepEqual(throughCmd('cmd.exe', line('other.cmd', ['x']), env, dir), { file: path.join(bin, 'other.cmd'), args: ['x'] }, 'a .cmd cmd-shim did not write: itself');
});
