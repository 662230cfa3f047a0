// `mcp-ordered-dispatch doctor <executable>`: a Bun-compiled executable
// built here with the pinned Bun, read without running it. Built with
// `--splitting` (the entry imports the app lazily), the SDK 1.x Protocol and
// stdio client transport sit in a chunk of their own: listed with its
// classes, recognised by the search by shape, reached by `run` (exit 0).
// Built as one file, the SDK sits in the entry module, which Bun loads
// through no hook: listed, recognised, not reached (exit 1). An executable
// holding no SDK (built by Bun 1.3.0 with no built-in arguments, whose Bun
// reads no preload) is named with why no way in works, and exits 1; a file
// that is no Bun-compiled executable says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCompiled, KINDS } from '../support/compiled.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';
import { installedBun } from '../../scripts/node-lines.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-doctor-exe-'));
let split;
let single;
let oldBun;

/** `doctor [--json] FILE` from `dir`: { code, stdout, result (with --json) }. */
async function doctor(file, { json = true } = {}) {
  const r = await runCommand(process.execPath, [BIN, 'doctor', ...(json ? ['--json'] : []), file], { cwd: dir, timeout: 120_000 });
  assert.equal(r.stderr, '', show(r));
  return { code: r.code, stdout: r.stdout, result: json ? JSON.parse(r.stdout) : undefined };
}

before(() => {
  const kinds = KINDS.filter((k) => k.kind === 'esm' || k.kind === 'single-file');
  const exes = buildCompiled(dir, { apps: ['sdk1'], kinds });
  split = exes.find((e) => e.kind === 'esm').file;
  single = exes.find((e) => e.kind === 'single-file').file;
  const home = path.join(dir, 'old');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, 'main.mjs'), 'console.log(1);\n');
  oldBun = path.join(home, 'old-bun');
  execFileSync(installedBun('1.3.0'), ['build', '--compile', 'main.mjs', `--outfile=${oldBun}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('--splitting: the SDK chunk is listed with its classes, recognised and reached', async () => {
  const { code, result } = await doctor(split);
  const [exe] = result.executables;
  assert.equal(exe.kind, 'bun');
  assert.equal(exe.modules, 2, 'the entry and the app chunk');
  assert.equal(exe.sdk.length, 1, JSON.stringify(exe.sdk));
  const [chunk] = exe.sdk;
  assert.match(chunk.name, /^\/\$bunfs\/root\/app-[a-z0-9]+\.js$/);
  assert.notEqual(chunk.name, exe.entry);
  assert.deepEqual(chunk.classes, ['Protocol (1.x)', 'stdio client transport']);
  assert.equal(chunk.format, 'module');
  assert.equal(chunk.recognised, true);
  assert.equal(chunk.reached, true);
  assert.match(exe.wayIn.words, /BUN_OPTIONS/);
  assert.equal(code, 0);
  const human = await doctor(split, { json: false });
  assert.match(human.stdout, /Protocol \(1\.x\), stdio client transport; recognised by the search by shape; reached by `run`/);
  assert.equal(human.code, 0);
});

test('one file: the SDK in the entry module is listed, recognised, and not reached', async () => {
  const { code, result } = await doctor(single);
  const [exe] = result.executables;
  assert.equal(exe.sdk.length, 1);
  const [entry] = exe.sdk;
  assert.equal(entry.name, exe.entry);
  assert.equal(entry.entry, true);
  assert.deepEqual(entry.classes, ['Protocol (1.x)', 'stdio client transport']);
  assert.equal(entry.recognised, true);
  assert.equal(entry.reached, false);
  assert.match(entry.why, /entry module/);
  assert.equal(code, 1);
  const human = await doctor(single, { json: false });
  assert.match(human.stdout, /NOT reached: it is the entry module, named as the executable, which Bun loads through no hook/);
});

test('a Bun that reads no preload, and a file that is no Bun-compiled executable: exit 1, each said', async () => {
  const { code, result } = await doctor(oldBun);
  const [exe] = result.executables;
  assert.equal(exe.kind, 'bun');
  assert.equal(exe.layout.moduleBytes, 36);
  assert.equal(exe.wayIn.reached, false);
  assert.match(exe.wayIn.words, /reads neither BUN_OPTIONS nor BUN_INSPECT_PRELOAD/);
  assert.equal(exe.sdk.length, 0);
  assert.equal(code, 1);
  const node = await doctor(process.execPath);
  assert.equal(node.result.executables[0].kind, 'native');
  assert.equal(node.code, 1);
});

test('a script: a launcher holding no SDK is read through to the executable in its platform package; a script holding the SDK is reached; any other is said to be neither', async () => {
  const pkg = path.join(dir, 'launcher-pkg');
  const platform = path.join(pkg, 'node_modules', 'launcher-pkg-platform');
  fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  fs.mkdirSync(path.join(platform, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'launcher-pkg', version: '1.0.0', bin: { tool: 'bin/tool' }, optionalDependencies: { 'launcher-pkg-platform': '1.0.0' } }));
  fs.writeFileSync(path.join(platform, 'package.json'), JSON.stringify({ name: 'launcher-pkg-platform', version: '1.0.0', os: [process.platform], cpu: [process.arch] }));
  fs.copyFileSync(split, path.join(platform, 'bin', 'tool'));
  const launcher = path.join(pkg, 'bin', 'tool');
  fs.writeFileSync(launcher, "#!/usr/bin/env node\nrequire('node:child_process').spawnSync(require('node:path').join(__dirname, '..', 'node_modules', 'launcher-pkg-platform', 'bin', 'tool'), { stdio: 'inherit' });\n");
  const { code, result } = await doctor(launcher);
  const [exe] = result.executables;
  assert.equal(exe.launcher, launcher);
  assert.equal(exe.file, fs.realpathSync(path.join(platform, 'bin', 'tool')));
  assert.equal(exe.kind, 'bun');
  assert.deepEqual(exe.sdk.map((m) => m.reached), [true]);
  assert.equal(code, 0);
  const human = await doctor(launcher, { json: false });
  assert.match(human.stdout, /a launcher holding no SDK, starts .*launcher-pkg-platform.*`run` passes the fix through it/);
  // Another platform's package only: not followed.
  fs.writeFileSync(path.join(platform, 'package.json'), JSON.stringify({ name: 'launcher-pkg-platform', version: '1.0.0', os: [process.platform === 'win32' ? 'linux' : 'win32'] }));
  const other = await doctor(launcher);
  assert.match(other.result.executables[0].message, /not a compiled executable, nor a script that holds the SDK or starts an executable that does/);
  assert.equal(other.code, 1);
  const script = path.join(dir, 'holds-sdk.mjs');
  fs.writeFileSync(script, "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nconsole.log(Client.name);\n");
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
  const holds = await doctor(script);
  assert.equal(holds.result.executables[0].kind, 'script');
  assert.equal(holds.code, 0);
});
