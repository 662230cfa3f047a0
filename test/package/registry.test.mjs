// A real registry: verdaccio on 127.0.0.1 (started and stopped here, its
// storage in a temp dir, no uplink: it serves only what this test publishes). The main package and this
// machine's platform package are packed from this clone and published to it,
// with stub platform packages for the 7 other targets; then empty projects
// install `mcp-ordered-dispatch` from it as a user would. The projects sit in a
// folder whose node_modules holds the SDK (installed from the usual registry,
// as the application's own dependency), so that each install from verdaccio is
// just the package and its platform package, and the test stays short:
//   - with --ignore-scripts, and with --strict-allow-scripts: only this
//     platform's binary is installed, it loads, and the stdio reproduction
//     loses nothing through `--import mcp-ordered-dispatch/register`;
//   - with --os/--cpu/--libc for other platforms: exactly the matching package;
//   - with --omit=optional (no binary): the host still runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  ABI, NPM, PKG, ROOT, platform, sh, packBoth, REPRO_APP, appResult, sdkSpecs, nodeFilesUnder, platformPackagesIn,
} from './support/packing.mjs';

const VERDACCIO = path.join(ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
const USER = { name: 'mcp-test', password: 'local-registry-only' };
let dir;
let server;
let registry;
let npmEnv;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// npm's settings for this test only: under `npm test` the environment carries
// the caller's npm_config_* (its .npmrc, its project folder), which must not
// leak into the installs made here.
function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
}

/** Like sh(), but asynchronous, so that independent npm commands overlap. */
function run(cmd, args, { cwd, env = {}, timeout = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...cleanEnv(), ...npmEnv, ...env }, shell: process.platform === 'win32' });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed (${code ?? signal}):\n${out}`));
    });
  });
}

function project(name, files = {}) {
  const p = path.join(dir, 'apps', 'projects', name);
  fs.mkdirSync(p, { recursive: true });
  fs.writeFileSync(path.join(p, 'package.json'), JSON.stringify({ name: `registry-${name}`, version: '1.0.0', private: true }));
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(p, file), text);
  return p;
}

async function startVerdaccio() {
  const port = await freePort();
  registry = `http://127.0.0.1:${port}/`;
  const config = path.join(dir, 'verdaccio.yaml');
  fs.writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      'packages:',
      `  '${PKG.name}':`,
      '    access: $all',
      '    publish: $authenticated',
      `  '${platform.platformPackageName('')}*':`,
      '    access: $all',
      '    publish: $authenticated',
      'web:',
      '  enable: false',
      'logs: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  server = spawn(process.execPath, [VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  server.stdout.setEncoding('utf8').on('data', (c) => (log += c));
  server.stderr.setEncoding('utf8').on('data', (c) => (log += c));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`verdaccio exited (${server.exitCode}):\n${log}`);
    try {
      const res = await fetch(`${registry}-/ping`);
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer within 30 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // A user for the local registry only; its token goes into this test's own npmrc.
  const res = await fetch(`${registry}-/user/org.couchdb.user:${USER.name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: USER.name, password: USER.password }),
  });
  const body = await res.json();
  assert.ok(res.ok && body.token, `verdaccio adduser: ${res.status} ${JSON.stringify(body)}`);
  const npmrc = path.join(dir, '.npmrc');
  fs.writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`);
  npmEnv = { npm_config_userconfig: npmrc, npm_config_registry: registry, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

/** npm/<abi>/ of another target, with a stand-in file where its binary would be. */
function stubPackage(abi) {
  const stub = path.join(dir, 'stubs', abi);
  fs.mkdirSync(stub, { recursive: true });
  fs.copyFileSync(path.join(platform.npmDirOf(abi), 'package.json'), path.join(stub, 'package.json'));
  fs.writeFileSync(path.join(stub, platform.binaryFileName(abi)), `stub for ${abi}: not a binary\n`);
  return stub;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-ordered-dispatch-registry-'));
  const tarballs = packBoth(dir);
  // The applications' SDK, from the registry npm is configured with (not verdaccio).
  const apps = path.join(dir, 'apps');
  fs.mkdirSync(apps);
  fs.writeFileSync(path.join(apps, 'package.json'), JSON.stringify({ name: 'registry-apps', version: '1.0.0', private: true }));
  const sdk = run(NPM, ['install', '--ignore-scripts', '--no-audit', '--no-fund', ...sdkSpecs()], { cwd: apps });
  await startVerdaccio();
  const others = platform.targets().map(platform.tripleToAbi).filter((abi) => abi !== ABI);
  assert.equal(others.length, 7);
  await Promise.all([
    run(NPM, ['publish', tarballs.main], { cwd: dir }),
    run(NPM, ['publish', tarballs.platform], { cwd: dir }),
    ...others.map((abi) => run(NPM, ['publish', '--ignore-scripts', stubPackage(abi)], { cwd: dir })),
    sdk,
  ]);
}, { timeout: 180_000 });

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function resolvedFrom(projectDir, name) {
  const lock = JSON.parse(fs.readFileSync(path.join(projectDir, 'package-lock.json'), 'utf8'));
  return lock.packages[`node_modules/${name}`]?.resolved;
}

async function installAndRun(name, flags) {
  const p = project(name, { 'app.mjs': REPRO_APP });
  const log = await run(NPM, ['install', ...flags, PKG.name], { cwd: p });
  assert.ok(resolvedFrom(p, PKG.name)?.startsWith(registry), `${PKG.name} came from the local registry`);
  assert.deepEqual(platformPackagesIn(p), [platform.platformPackageName(ABI)], 'only this platform\'s package');
  assert.deepEqual(nodeFilesUnder(p), [`node_modules/${platform.platformPackageName(ABI)}/${platform.binaryFileName(ABI)}`]);
  const { stdout, stderr } = sh(process.execPath, ['--import', `${PKG.name}/register`, 'app.mjs'], { cwd: p });
  const result = appResult(stdout);
  assert.deepEqual(result.nativeFiles, [fs.realpathSync(path.join(p, 'node_modules', platform.platformPackageName(ABI), platform.binaryFileName(ABI)))]);
  for (const g of ['1', '2']) {
    assert.equal(result[g].progressExpected, 18, JSON.stringify(result[g]));
    assert.equal(result[g].lost, 0, JSON.stringify(result[g]));
    assert.equal(result[g].onerrorCount, 0, JSON.stringify(result[g].onerrors));
  }
  assert.equal(stderr, '', 'no warning when the addon loads');
  return log;
}

test('npm install --ignore-scripts: only this platform\'s binary, it loads, register loses nothing', { timeout: 180_000 }, async () => {
  await installAndRun('ignore-scripts', ['--ignore-scripts']);
});

test('npm install --strict-allow-scripts: accepted (no install script), same result', { timeout: 180_000 }, async () => {
  const log = await installAndRun('strict', ['--strict-allow-scripts']);
  assert.doesNotMatch(log, /ESTRICTALLOWSCRIPTS/);
  assert.doesNotMatch(log, new RegExp(`${PKG.name}.*(install script|allowScripts)|(install script|allowScripts).*${PKG.name}`, 'i'));
});

test('--os/--cpu/--libc pick exactly the matching platform package', { timeout: 120_000 }, async () => {
  const cases = [
    { flags: ['--os=darwin', '--cpu=arm64'], abi: 'darwin-arm64' },
    { flags: ['--os=darwin', '--cpu=x64'], abi: 'darwin-x64' },
    { flags: ['--os=linux', '--cpu=x64', '--libc=musl'], abi: 'linux-x64-musl' },
    { flags: ['--os=linux', '--cpu=arm64', '--libc=glibc'], abi: 'linux-arm64-gnu' },
    { flags: ['--os=win32', '--cpu=x64'], abi: 'win32-x64-msvc' },
    { flags: ['--os=win32', '--cpu=arm64'], abi: 'win32-arm64-msvc' },
  ];
  await Promise.all(cases.map(async ({ flags, abi }) => {
    const p = project(`select-${abi}`);
    await run(NPM, ['install', '--ignore-scripts', ...flags, PKG.name], { cwd: p });
    assert.deepEqual(platformPackagesIn(p), [platform.platformPackageName(abi)], flags.join(' '));
    assert.deepEqual(nodeFilesUnder(p), [`node_modules/${platform.platformPackageName(abi)}/${platform.binaryFileName(abi)}`]);
  }));
});

let missing;
async function missingProject() {
  missing ??= (async () => {
    const p = project('omit-optional', {
      'app.mjs': REPRO_APP,
      'install.cjs': `
        const m = require('${PKG.name}');
        try { m.install(); console.log('installed'); }
        catch (e) {
          console.log(JSON.stringify({ name: e.name, code: e.code, typed: e instanceof m.NativeAddonError,
            message: e.message, cause: e.cause?.constructor?.name, causes: e.cause?.errors?.length }));
        }`,
    });
    await run(NPM, ['install', '--omit=optional', PKG.name], { cwd: p });
    assert.deepEqual(platformPackagesIn(p), [], 'no platform package');
    assert.deepEqual(nodeFilesUnder(p), [], 'no binary at all');
    return p;
  })();
  return missing;
}

test('missing binary (--omit=optional): require works, install() throws the typed error with the cause and the fix', { timeout: 180_000 }, async () => {
  const p = await missingProject();
  const e = JSON.parse(sh(process.execPath, ['install.cjs'], { cwd: p }).stdout);
  assert.equal(e.name, 'NativeAddonError');
  assert.equal(e.code, 'MCP_ORDERED_DISPATCH_LOAD_FAILED');
  assert.equal(e.typed, true);
  assert.ok(e.message.includes(ABI), e.message);
  assert.ok(e.message.includes(`${platform.platformPackageName(ABI)}@${PKG.version}`), e.message);
  assert.match(e.message, /--omit=optional/);
  assert.match(e.message, /lockfile/);
  assert.equal(e.cause, 'AggregateError');
  assert.equal(e.causes, 2);
});

test('missing binary: a child started with NODE_OPTIONS=--import register runs (node, and npm itself)', { timeout: 120_000 }, async () => {
  const p = await missingProject();
  const env = { NODE_OPTIONS: `--import ${PKG.name}/register` };
  assert.equal(sh(process.execPath, ['-e', 'console.log("child ran")'], { cwd: p, env }).stdout, 'child ran\n');
  assert.match(sh(NPM, ['--version'], { cwd: p, env }).stdout, /^\d+\.\d+\.\d+/);
});

test('missing binary: doctor prints the reason in its report', { timeout: 120_000 }, async () => {
  const p = await missingProject();
  const r = sh(process.execPath, [path.join(p, 'node_modules', PKG.name, 'bin', 'mcp-ordered-dispatch.cjs'), 'doctor', '--pairs=1'], { cwd: p, allowFail: true });
  assert.equal(r.status, 1, r.out);
  assert.match(r.stdout, /native addon: NO ADDON: .*--omit=optional/);
  assert.match(r.stdout, /\| NO ADDON \|/);
});

test('missing binary: node --import register app.mjs runs the app stock, exit 0, one warning', { timeout: 120_000 }, async () => {
  const p = await missingProject();
  const r = sh(process.execPath, ['--import', `${PKG.name}/register`, 'app.mjs'], { cwd: p, allowFail: true });
  assert.equal(r.status, 0, r.out);
  const result = appResult(r.stdout);
  assert.equal(result.nativeFiles.length, 0);
  assert.equal(r.stderr.split('no native addon for').length - 1, 1, r.stderr);
});
