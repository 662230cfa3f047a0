// The packing contract: in this clone, `npm pack` at the root makes the main
// tarball (no install script, no Rust source, no binary; the 8 platform
// packages as exact-version optionalDependencies) and leaves npm/<abi>/ with
// the freshly built binary, so that `npm pack` there makes this platform's
// package. Installed together in an empty directory outside the repository,
// the two tarballs make a working package: the addon loads from the platform
// package and the stdio reproduction loses nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ABI, NPM, PKG, ROOT, platform, sh, packBoth, tarList, tarManifest, REPRO_APP, appResult, sdkSpecs,
  nodeFilesUnder, platformPackagesIn,
} from './support/packing.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';

const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

let dir;
let tarballs;
let installLog;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-ordered-dispatch-pack-'));
  tarballs = packBoth(dir);
  const project = path.join(dir, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'pack-test', version: '1.0.0', private: true }));
  fs.writeFileSync(path.join(project, 'app.mjs'), REPRO_APP);
  // --strict-allow-scripts: npm refuses a package with a lifecycle script nobody allowed.
  installLog = sh(NPM, ['install', '--strict-allow-scripts', '--no-audit', '--no-fund', tarballs.main, tarballs.platform, ...sdkSpecs()], { cwd: project }).out;
});

after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

test('the main tarball: the JavaScript, types and LICENSE; no Rust source, no binary, no install script', () => {
  const files = tarList(tarballs.main);
  for (const f of ['package.json', 'LICENSE', 'entries/index.cjs', 'entries/index.mjs', 'entries/index.d.ts', 'entries/register.mjs', 'entries/register.cjs',
    'entries/testing.cjs', 'entries/rolldown.cjs', 'entries/rspack.d.mts', 'lib/native/addon.cjs', 'lib/classify/dispatch.cjs', 'bin/mcp-ordered-dispatch.cjs',
    'lib/plugin/runtime.bundle.cjs']) {
    assert.ok(files.includes(f), `${f} is in the main tarball`);
  }
  for (const f of files) {
    assert.doesNotMatch(f, /\.node$|\.rs$|^Cargo\.|^build\.rs$|^src\/|^crates\/|^scripts\/|^test\/|^npm\//, `${f} must not be in the main tarball`);
  }
  const manifest = tarManifest(tarballs.main);
  for (const hook of ['preinstall', 'install', 'postinstall']) assert.equal(manifest.scripts?.[hook], undefined, hook);
  const expected = Object.fromEntries(platform.targets().map((t) => [platform.platformPackageName(platform.tripleToAbi(t)), PKG.version]));
  assert.equal(Object.keys(expected).length, 8);
  assert.deepEqual(manifest.optionalDependencies, expected);
});

test('npm pack left npm/<abi>/ staged: its tarball holds the freshly built addon, the native launcher and LICENSE', () => {
  const files = tarList(tarballs.platform).sort();
  assert.deepEqual(files, ['LICENSE', 'README.md', platform.binaryFileName(ABI), platform.launcherFileName(ABI), 'package.json'].sort());
  const manifest = tarManifest(tarballs.platform);
  assert.equal(manifest.name, platform.platformPackageName(ABI));
  assert.equal(manifest.version, PKG.version);
  assert.equal(manifest.main, platform.binaryFileName(ABI));
  assert.deepEqual(manifest.os, [process.platform]);
  assert.deepEqual(manifest.cpu, [process.arch]);
  const staged = fs.readFileSync(path.join(platform.npmDirOf(ABI), platform.binaryFileName(ABI)));
  assert.ok(staged.equals(fs.readFileSync(platform.localBuildPath(ABI))), 'the staged binary is the local build');
  const launcher = fs.readFileSync(path.join(platform.npmDirOf(ABI), platform.launcherFileName(ABI)));
  assert.ok(launcher.equals(fs.readFileSync(platform.localLauncherPath(ABI))), 'the staged launcher is the local build');
});

test('our platform names agree with @napi-rs/cli for the 8 targets, and npm/ has their packages', async () => {
  const { parseTriple } = await import('@napi-rs/cli');
  for (const triple of platform.targets()) {
    const napi = parseTriple(triple);
    const abi = platform.tripleToAbi(triple);
    assert.equal(abi, napi.platformArchABI, triple);
    assert.equal(platform.platformArchABI(napi.platform, napi.arch, napi.abi === 'musl'), abi, triple);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'npm', abi, 'package.json'), 'utf8'));
    assert.equal(manifest.name, platform.platformPackageName(abi));
    assert.equal(manifest.version, PKG.version, `npm/${abi} has the root version (napi version)`);
    assert.deepEqual(manifest.os, [napi.platform]);
    assert.deepEqual(manifest.cpu, [napi.arch]);
    if (napi.platform === 'linux') assert.deepEqual(manifest.libc, [napi.abi === 'musl' ? 'musl' : 'glibc']);
    assert.deepEqual(manifest.files, [platform.binaryFileName(abi), platform.launcherFileName(abi)]);
  }
});

test('installed from the two tarballs, the addon loads from the platform package and nothing is lost', () => {
  const project = path.join(dir, 'app');
  assert.doesNotMatch(installLog, /ESTRICTALLOWSCRIPTS|install-scripts|prepare/, installLog);
  assert.deepEqual(platformPackagesIn(project), [platform.platformPackageName(ABI)]);
  assert.deepEqual(nodeFilesUnder(project), [`node_modules/${platform.platformPackageName(ABI)}/${platform.binaryFileName(ABI)}`]);
  const { stdout } = sh(process.execPath, ['--import', `${PKG.name}/register`, 'app.mjs'], { cwd: project });
  const result = appResult(stdout);
  assert.deepEqual(
    result.nativeFiles,
    [fs.realpathSync(path.join(project, 'node_modules', platform.platformPackageName(ABI), platform.binaryFileName(ABI)))],
  );
  for (const g of ['1', '2']) {
    assert.equal(result[g].progressExpected, 18, JSON.stringify(result[g]));
    assert.equal(result[g].lost, 0, JSON.stringify(result[g]));
    assert.equal(result[g].onerrorCount, 0, JSON.stringify(result[g].onerrors));
  }
});

test("installed from the two tarballs, the native launcher is the platform package's, executable, and starts a command", () => {
  const project = path.join(dir, 'app');
  const installed = path.join(project, 'node_modules', platform.platformPackageName(ABI), platform.launcherFileName(ABI));
  const locator = path.join(project, 'node_modules', PKG.name, 'lib', 'native', 'launcher.cjs');
  const { stdout } = sh(process.execPath, ['-p', `require(${JSON.stringify(locator)}).nativeLauncher()`], { cwd: project });
  assert.equal(fs.realpathSync(stdout.trim()), fs.realpathSync(installed));
  assert.notEqual(fs.statSync(installed).mode & 0o111, 0, 'npm kept its execute bits');
  const cli = path.join(project, 'node_modules', PKG.name, 'bin', 'mcp-ordered-dispatch.cjs');
  const started = sh(installed, [`--node=${process.execPath}`, `--cli=${cli}`, '--', process.execPath, '-p', '"started"'], { cwd: project });
  assert.equal(started.stdout.trim(), 'started');
});

test('installed from the two tarballs, `npx mcp-ordered-dispatch run -- node app.mjs` loses nothing; so does the installed bin run from another directory', () => {
  const project = path.join(dir, 'app');
  const check = (stdout, label) => {
    const result = appResult(stdout);
    for (const g of ['1', '2']) assert.equal(result[g].lost, 0, `${label}: ${JSON.stringify(result[g])}`);
    assert.deepEqual(result.nativeFiles, [fs.realpathSync(path.join(project, 'node_modules', platform.platformPackageName(ABI), platform.binaryFileName(ABI)))], label);
  };
  const env = { NODE_OPTIONS: '' };
  check(sh(NPX, ['--no-install', PKG.name, 'run', '--', process.execPath, 'app.mjs'], { cwd: project, env }).stdout, 'npx ... run --');
  // From elsewhere: register is resolved through the installed package's exports, not the working directory.
  const bin = path.join(project, 'node_modules', '.bin', PKG.name);
  check(sh(bin, ['run', '--', process.execPath, path.join(project, 'app.mjs')], { cwd: os.tmpdir(), env }).stdout, 'the bin from another directory');
});

test("installed from the tarball, the bundler plugin's runtime is the one module made at pack time, current for the files beside it (no esbuild there to make it again)", () => {
  const project = path.join(dir, 'app');
  const own = path.join(project, 'node_modules', PKG.name, 'lib', 'plugin');
  const before = fs.readFileSync(path.join(own, 'runtime.bundle.cjs'));
  const script = `const b = require(${JSON.stringify(path.join(own, 'runtime-bundle.cjs'))});
const found = b.runtimeBundle();
console.log(JSON.stringify({ file: found && found.file, runtimeFile: b.runtimeFile(), start: typeof require(b.runtimeFile()) }));`;
  const out = JSON.parse(sh(process.execPath, ['-e', script], { cwd: project }).stdout.trim());
  assert.deepEqual(out, { file: path.join(own, 'runtime.bundle.cjs'), runtimeFile: path.join(own, 'runtime.bundle.cjs'), start: 'function' });
  assert.ok(fs.readFileSync(path.join(own, 'runtime.bundle.cjs')).equals(before), 'the bundle was not made again');
});

test('MCP_ORDERED_DISPATCH_NATIVE names exactly the file to load; a bad one is the typed error, nothing else is tried', () => {
  const project = path.join(dir, 'app');
  const script = `
    const m = require('${PKG.name}');
    try { m.install(); console.log('installed'); }
    catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, typed: e instanceof m.NativeAddonError, message: e.message })); }`;
  const bogus = path.join(dir, 'no-such-addon.node');
  const failed = JSON.parse(sh(process.execPath, ['-e', script], { cwd: project, env: { MCP_ORDERED_DISPATCH_NATIVE: bogus } }).stdout);
  assert.equal(failed.name, 'NativeAddonError');
  assert.equal(failed.code, 'MCP_ORDERED_DISPATCH_LOAD_FAILED');
  assert.equal(failed.typed, true);
  assert.ok(failed.message.includes(bogus), failed.message);
  assert.match(failed.message, /MCP_ORDERED_DISPATCH_NATIVE/);
  const good = path.join(project, 'node_modules', platform.platformPackageName(ABI), platform.binaryFileName(ABI));
  assert.match(sh(process.execPath, ['-e', script], { cwd: project, env: { MCP_ORDERED_DISPATCH_NATIVE: good } }).stdout, /^installed$/m);
});

test('the main tarball alone (no platform package to be had): the load error says so, and how to fix it', () => {
  const project = path.join(dir, 'alone');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'alone', version: '1.0.0', private: true }));
  // --omit=optional too: the registry has no platform package of an unpublished version.
  sh(NPM, ['install', '--strict-allow-scripts', '--omit=optional', '--no-audit', '--no-fund', tarballs.main], { cwd: project });
  const script = `try { require('${PKG.name}').install(); } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
  const { code, message } = JSON.parse(sh(process.execPath, ['-e', script], { cwd: project }).stdout);
  assert.equal(code, 'MCP_ORDERED_DISPATCH_LOAD_FAILED');
  const pkg = `${platform.platformPackageName(ABI)}@${PKG.version}`;
  assert.match(message, new RegExp(`${pkg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not installed`));
  assert.match(message, /optional dependencies were omitted/);
  assert.match(message, /installed from a tarball alone/);
  assert.ok(message.includes(`install ${pkg} (or its tarball) beside it`), message);
});

// Skipped only off the systems the release tests on: on linux (glibc), darwin and win32, x64 and
// arm64, test/support/runtimes.mjs fails the suite, naming the package, when Bun's is missing.
test('inside a Bun-compiled executable, a preload from the installed package loads the addon from the platform package', { skip: RUNTIMES.bun ? false : 'bun is not installed here' }, () => {
  // Bun resolves no package whose main is a `.node` file from a preload in a
  // compiled executable: the loader resolves the platform package's file.
  const project = path.join(dir, 'app');
  const compiled = path.join(dir, 'compiled');
  fs.mkdirSync(compiled, { recursive: true });
  fs.writeFileSync(path.join(compiled, 'main.mjs'), 'console.log(JSON.stringify({ standalone: Bun.isStandaloneExecutable, loaded: globalThis.__loadedFrom ?? null }));\n');
  const preload = path.join(compiled, 'preload.cjs');
  const loader = path.join(project, 'node_modules', PKG.name, 'lib', 'native', 'addon.cjs');
  fs.writeFileSync(preload, `const addon = require(${JSON.stringify(loader)});\naddon.load();\nglobalThis.__loadedFrom = addon.loadedFrom();\n`);
  sh(RUNTIMES.bun.command, ['build', '--compile', 'main.mjs', '--outfile', path.join(compiled, 'app')], { cwd: compiled });
  const { stdout } = sh(path.join(compiled, 'app'), [], { cwd: compiled, env: { BUN_OPTIONS: `--preload ${preload}` } });
  const result = JSON.parse(stdout.trim().split('\n').pop());
  assert.equal(result.standalone, true);
  assert.deepEqual(result.loaded, {
    from: platform.platformPackageName(ABI),
    file: fs.realpathSync(path.join(project, 'node_modules', platform.platformPackageName(ABI), platform.binaryFileName(ABI))),
  });
});
