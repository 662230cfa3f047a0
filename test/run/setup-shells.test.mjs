// `setup` for each shell: zsh and fish (Debian's packages, installed by
// .ci/run) run the block they were given and start the chosen host with the
// fix; PowerShell's block runs where pwsh is (the release workflow's Windows
// job). The startup file is found as the shell finds it: ZDOTDIR only when
// set and not empty, fish under XDG_CONFIG_HOME, a macOS login bash's
// .bash_profile (the platform passed in), PowerShell's $PROFILE. A host name
// a shell cannot define a function for (a reserved word, a builtin, `.`) is
// refused, checked against the lists the installed shells give.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { runCommand, show } from '../support/spawn-node.mjs';
import { makeHome, lastJson, BIN } from './fixtures/setup-home.mjs';

const require = createRequire(import.meta.url);
const setup = require('../../lib/run/setup.cjs');
const { registerEntry } = require('../../lib/run/plan.cjs');
const POSIX = process.platform === 'win32' && 'bash, zsh and fish are tested on Linux and macOS';

/** Whether `shell` runs here (`--version` exits 0). */
const has = (shell) => spawnSync(shell, ['--version'], { stdio: 'ignore', timeout: 20_000 }).status === 0;

const space = makeHome('mcp-od-shells-');
after(() => space.remove());

test('zsh and fish run the block setup wrote where they read it, and start the chosen host with the fix', { skip: POSIX, timeout: 200_000 }, async (t) => {
  // .ci/run installs both; a machine without them says so here.
  for (const shell of ['zsh', 'fish']) assert.ok(has(shell), `${shell} is not installed: apt-get install -y zsh fish (as .ci/run does)`);
  const { home, env } = space;
  const xdg = path.join(home, 'xdg');
  const cases = [
    // ZDOTDIR set but empty counts as unset: the home's .zshrc, not one in the working directory
    // (a zsh started with it empty reads /.zshrc: the user's own shells do not have it so).
    { shell: 'zsh', extra: { ZDOTDIR: '' }, shellExtra: {}, file: path.join(home, '.zshrc'), start: ['zsh', ['-i', '-c']] },
    { shell: 'fish', extra: { XDG_CONFIG_HOME: xdg }, shellExtra: { XDG_CONFIG_HOME: xdg }, file: path.join(xdg, 'fish', 'config.fish'), start: ['fish', ['-c']] },
  ];
  const cwd = path.join(home, 'work');
  fs.mkdirSync(cwd);
  await Promise.all(cases.map(async ({ shell, extra, shellExtra, file, start: [program, flags] }) => {
    const written = await runCommand(process.execPath, [BIN, 'setup', '--shell', shell, 'myhost'], { cwd, env: env(extra) });
    assert.equal(written.code, 0, show(written));
    assert.ok(written.stdout.includes(` ${file} now holds myhost`), `${shell}: ${file}\n${show(written)}`);
    assert.deepEqual(fs.readdirSync(cwd), [], `${shell}: nothing written in the working directory`);
    const [host, other] = await Promise.all(['myhost', 'otherapp'].map((command) => runCommand(program, [...flags, command], { cwd: home, env: env(shellExtra), timeout: 120_000 })));
    assert.equal(host.code, 0, `${shell}: ${show(host)}`);
    assert.equal(lastJson(host).lost, 0, `${shell}: the chosen host runs with the fix. ${show(host)}`);
    assert.equal(lastJson(other).lost, lastJson(other).progressExpected, `${shell}: another program runs stock. ${show(other)}`);
    t.diagnostic(`${shell}: ${file}`);
  }));
});

test('PowerShell runs its block: the function starts the launch words with the host and its arguments', { skip: !has('pwsh') && 'no pwsh here (the release workflow\'s Windows job has it)', timeout: 120_000 }, async () => {
  const { home } = space;
  // A stand-in for the launcher that prints what it was given.
  const echo = path.join(home, 'echo-args.cjs');
  fs.writeFileSync(echo, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
  const file = path.join(home, 'profile.ps1');
  setup.setup({ hosts: ['myhost'], shell: 'powershell', file, launch: [process.execPath, echo, "it's", '--'], guard: registerEntry().file });
  const r = await runCommand('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', `. '${file.replace(/'/g, "''")}'; myhost a 'b c'`], { cwd: home, timeout: 100_000 });
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout.trim()), ["it's", '--', 'myhost', 'a', 'b c'], show(r));
});

test('the startup file each shell reads, as that shell finds it on its platform', () => {
  const home = space.home;
  const at = (shell, context) => setup.startupFile(shell, { home, env: {}, platform: 'linux', askProfile: () => undefined, ...context });
  assert.equal(at('bash'), path.join(home, '.bashrc'));
  // macOS: every terminal starts a login bash, which reads the first of these it finds.
  assert.equal(at('bash', { platform: 'darwin' }), path.join(home, '.bash_profile'));
  fs.writeFileSync(path.join(home, '.profile'), '');
  assert.equal(at('bash', { platform: 'darwin' }), path.join(home, '.profile'), 'a login bash reads .profile when there is no .bash_profile');
  fs.rmSync(path.join(home, '.profile'));
  assert.equal(at('zsh', { env: { ZDOTDIR: '' } }), path.join(home, '.zshrc'));
  assert.equal(at('zsh', { env: { ZDOTDIR: '/z' } }), path.join('/z', '.zshrc'));
  assert.equal(at('fish', { env: { XDG_CONFIG_HOME: '/x' } }), path.join('/x', 'fish', 'config.fish'));
  assert.equal(at('fish', { env: { XDG_CONFIG_HOME: '' } }), path.join(home, '.config', 'fish', 'config.fish'));
  assert.equal(at('powershell', { askProfile: () => 'D:\\OneDrive\\Documents\\PowerShell\\Microsoft.PowerShell_profile.ps1' }), 'D:\\OneDrive\\Documents\\PowerShell\\Microsoft.PowerShell_profile.ps1', "pwsh's own $PROFILE");
  assert.equal(at('powershell', { env: { XDG_CONFIG_HOME: '/x' } }), path.join('/x', 'powershell', 'Microsoft.PowerShell_profile.ps1'));
  assert.equal(at('powershell', { platform: 'win32', home: 'C:\\Users\\me' }), 'C:\\Users\\me\\Documents\\PowerShell\\Microsoft.PowerShell_profile.ps1');
});

/** The names the installed `shell` reserves or has built in, from the shell itself; undefined when it is not here. */
function namesOf(shell) {
  const ask = { bash: ['bash', ['-c', 'compgen -b; compgen -k']], zsh: ['zsh', ['-c', 'print -l ${(k)builtins} ${(k)reswords}']], fish: ['fish', ['-c', 'builtin -n']] }[shell];
  const r = spawnSync(ask[0], ask[1], { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 ? r.stdout.split('\n').filter((name) => name !== '') : undefined;
}

test('a host name a shell cannot define a function for is refused, and the file is left alone', { skip: POSIX, timeout: 60_000 }, async () => {
  const { home, setup: cli } = space;
  const rc = path.join(home, 'names-rc');
  fs.writeFileSync(rc, 'mine\n');
  const names = ['if', 'fi', 'done', 'time', '.', 'command', '-x', 'a b', 'a;b'];
  const refused = await Promise.all(names.map((name) => cli(['--shell=bash', `--rc=${rc}`, '--', name])));
  refused.forEach((r, at) => {
    assert.equal(r.code, 2, `${names[at]}: ${show(r)}`);
    assert.ok(r.stderr.startsWith(`mcp-ordered-dispatch: setup: ${JSON.stringify(names[at])} is `), show(r));
  });
  assert.equal(fs.readFileSync(rc, 'utf8'), 'mine\n');
  // Every reserved word and builtin of the installed shells (those a function could be named).
  const launch = ['/launcher'];
  for (const shell of ['bash', 'zsh', 'fish']) {
    const names = namesOf(shell);
    if (names === undefined) continue;
    for (const name of names) {
      assert.throws(() => setup.setup({ hosts: [name], shell, file: rc, launch, guard: '/guard' }), /setup: /, `${shell}: ${name}`);
    }
  }
  assert.equal(fs.readFileSync(rc, 'utf8'), 'mine\n');
});
