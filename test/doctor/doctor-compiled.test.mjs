// doctor and compiled executables: a project whose bin is a Bun-compiled
// executable carrying the SDK (built here with `bun build --compile --splitting` from a
// tiny 1.x client) gets that executable listed as reached at run time by
// `mcp-ordered-dispatch run -- <bin>` (through BUN_OPTIONS; through
// BUN_INSPECT_PRELOAD when its built-in arguments end with `--`, as
// opencode's do), never an all-clear, exit 1; a Node 24 single executable
// application carrying the SDK (built as test/plugin/artifacts.test.mjs
// builds one: esbuild, sea-config.json, postject) is "only at build time";
// the same executable built from a bundle patched at
// build time (rewriteSdkClasses with BUILT_GLOBAL, the receiver call the bundler plugin
// inserts), and that bundle as an installed package's file, are "patched at
// build time"; and a project whose bin is a native executable without the
// SDK (esbuild's) gets the same report as without that bin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { bunBinary } from '../support/bundles.mjs';
import { runCommand } from '../support/spawn-node.mjs';
import { installedNode } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const { rewriteSdkClasses } = require('../../lib/shape/rewrite.cjs');
const { BUILT_GLOBAL } = require('../../lib/shape/globals.cjs');
// Undefined only off the systems the release tests on (musl, other CPUs): on linux, darwin and
// win32 x64/arm64 test/support/runtimes.mjs fails the suite when Bun's package is missing, so
// these tests run there; elsewhere they skip, saying why.
const bun = bunBinary();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-doctor-compiled-'));
const APP = "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\n" +
  "import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';\n" +
  "console.log(typeof new Client({ name: 'compiled', version: '0' }, { capabilities: {} }).connect, typeof StdioClientTransport);\n";
let plainExe;
let blockedExe;
let seaExe;
let builtExe;
let builtBundle;

/** `npx mcp-ordered-dispatch doctor --json` in `cwd`: { code, result, stderr }. */
async function doctor(cwd) {
  const r = await runCommand(process.execPath, [BIN, 'doctor', '--json'], { cwd, timeout: 120_000 });
  return { code: r.code, result: JSON.parse(r.stdout), stderr: r.stderr };
}

/** A project in `dir`/`name` with `bin` (a file copied to dist/) in its package.json. */
function project(name, binFile) {
  const root = path.join(dir, name);
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  const manifest = { name, version: '1.0.0', private: true };
  if (binFile !== undefined) {
    fs.copyFileSync(binFile, path.join(root, 'dist', 'app'));
    fs.chmodSync(path.join(root, 'dist', 'app'), 0o755);
    manifest.bin = { app: 'dist/app' };
  }
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest));
  return root;
}

before(async () => {
  if (bun === undefined) return;
  // bun resolves from the entry's directory: the repository's node_modules there.
  const home = path.join(dir, 'build');
  fs.mkdirSync(home);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(home, 'node_modules'), 'junction');
  fs.writeFileSync(path.join(home, 'app.mjs'), APP);
  // The entry imports the app lazily: --splitting puts the SDK in a chunk of its own, which `run` reaches
  // (an SDK in the entry module is not: test/doctor/doctor-executable.test.mjs).
  fs.writeFileSync(path.join(home, 'main.mjs'), "await import('./app.mjs');\n");
  plainExe = path.join(home, 'app-plain');
  execFileSync(bun, ['build', '--compile', '--splitting', 'main.mjs', `--outfile=${plainExe}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  // Built-in arguments ending with `--` (as opencode's): Bun ignores BUN_OPTIONS for it.
  blockedExe = path.join(home, 'app-blocked');
  execFileSync(bun, ['build', '--compile', '--splitting', '--compile-exec-argv=--smol --', 'main.mjs', `--outfile=${blockedExe}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  // The same app, its SDK classes given the build-time receiver call as it is bundled, then compiled.
  const esbuild = require('esbuild');
  const handOver = {
    name: 'build-time-receiver',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        const changed = rewriteSdkClasses(source, args.path, 'module', { global: BUILT_GLOBAL });
        return changed === undefined ? undefined : { contents: changed, loader: 'js' };
      });
    },
  };
  builtBundle = path.join(home, 'app-built.mjs');
  await esbuild.build({ entryPoints: [path.join(home, 'app.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: builtBundle, plugins: [handOver], logLevel: 'silent' });
  assert.ok(fs.readFileSync(builtBundle, 'utf8').includes(`globalThis.${BUILT_GLOBAL}(`), 'the bundle carries the receiver call');
  builtExe = path.join(home, 'app-built');
  execFileSync(bun, ['build', '--compile', builtBundle, `--outfile=${builtExe}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  // The same app as a Node 24 single executable application (off Linux, where the
  // registry's Node packages are not installed, one of the job's own Node).
  const node24 = process.platform === 'linux' ? installedNode('24.22.3') : process.execPath;
  await esbuild.build({ entryPoints: [path.join(home, 'app.mjs')], bundle: true, platform: 'node', format: 'cjs', outfile: path.join(home, 'sea.cjs'), logLevel: 'silent' });
  fs.writeFileSync(path.join(home, 'sea-config.json'), JSON.stringify({ main: 'sea.cjs', output: 'sea.blob', disableExperimentalSEAWarning: true }));
  execFileSync(node24, ['--experimental-sea-config', 'sea-config.json'], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  seaExe = path.join(home, 'app-sea');
  fs.copyFileSync(node24, seaExe);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'), seaExe, 'NODE_SEA_BLOB', path.join(home, 'sea.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'pipe', timeout: 120_000 });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The one compiled row of `result`. */
function compiledRowOf(result) {
  const rows = result.rows.filter((r) => r.where === 'compiled');
  assert.equal(rows.length, 1, JSON.stringify(result.rows));
  return rows[0];
}

test('a project whose bin is a Bun-compiled executable carrying the SDK: reached by `mcp-ordered-dispatch run -- app` (BUN_OPTIONS), never an all-clear, exit 1', { skip: bun === undefined && 'bun is not installed for this platform' }, async () => {
  // The executable is real: it runs, with the SDK inside and no node_modules beside it.
  const root = project('compiled-app', plainExe);
  assert.equal(execFileSync(path.join(root, 'dist', 'app'), { cwd: root, encoding: 'utf8', timeout: 30_000 }).trim(), 'function function');
  const { code, result } = await doctor(root);
  assert.equal(code, 1);
  assert.equal(result.exitCode, 1);
  const row = compiledRowOf(result);
  assert.equal(row.file, path.join(root, 'dist', 'app'));
  assert.equal(row.name, 'compiled-app');
  assert.equal(row.build, 'ELF');
  assert.equal(row.kind, 'bun');
  assert.equal(row.verdict, 'reached by mcp-ordered-dispatch run');
  assert.equal(row.run, 'npx mcp-ordered-dispatch run -- app');
  assert.equal(row.checked, false);
  assert.match(row.why, /Bun-compiled executable .*`npx mcp-ordered-dispatch run -- app \.\.\.`.* through BUN_OPTIONS/);
  assert.match(result.message, /Found 1 SDK build\(s\): 0 top-level, 0 nested, 0 bundled, 1 in compiled executables\./);
  assert.doesNotMatch(result.message, /All \d+ SDK build|No MCP SDK found/);
});

test('a Bun-compiled executable whose built-in arguments end with `--` (as opencode\'s): reached by run through BUN_INSPECT_PRELOAD', { skip: bun === undefined && 'bun is not installed for this platform' }, async () => {
  const root = project('blocked-app', blockedExe);
  const { code, result } = await doctor(root);
  assert.equal(code, 1);
  const row = compiledRowOf(result);
  assert.equal(row.verdict, 'reached by mcp-ordered-dispatch run');
  assert.match(row.why, /built-in arguments end with `--`: `run` preloads register through BUN_INSPECT_PRELOAD/);
  assert.deepEqual(row.sdk.map((m) => [m.classes, m.reached]), [[['Protocol (1.x)', 'stdio client transport'], true]]);
});

test('a project whose bin is a Node single executable application carrying the SDK: "only at build time", the bundler plugin named, exit 1', { skip: (bun === undefined || process.platform !== 'linux') && 'needs bun (for the fixture) and Linux (the Node 24 package)' }, async () => {
  const root = project('sea-app', seaExe);
  // The SEA is real: it runs its bundled app.
  assert.equal(execFileSync(path.join(root, 'dist', 'app'), { cwd: root, encoding: 'utf8', timeout: 30_000 }).trim(), 'function function');
  const { code, result } = await doctor(root);
  assert.equal(code, 1);
  const row = compiledRowOf(result);
  assert.equal(row.kind, 'node-sea');
  assert.equal(row.verdict, 'only at build time');
  assert.match(row.why, /Node single executable application .*nothing at run time reaches its main script.*bundler plugin .*docs\/build-it-in\.md/);
  assert.doesNotMatch(result.message, /All \d+ SDK build/);
});

test('built with the build-time receiver call: the executable and the bundle are "patched at build time", never an all-clear', { skip: bun === undefined && 'bun is not installed for this platform' }, async () => {
  const root = project('built-app', builtExe);
  // The bundle as an installed package's file, found by shape.
  const pkg = path.join(root, 'node_modules', 'built-bundle');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'built-bundle', version: '2.0.0', type: 'module', main: 'index.js' }));
  fs.copyFileSync(builtBundle, path.join(pkg, 'index.js'));
  const { code, result } = await doctor(root);
  assert.equal(code, 1);
  const byWhere = Object.fromEntries(result.rows.map((r) => [r.where, r]));
  assert.deepEqual(result.rows.map((r) => r.where).sort(), ['bundled', 'compiled']);
  assert.equal(byWhere.compiled.verdict, 'patched at build time');
  assert.equal(byWhere.compiled.file, path.join(root, 'dist', 'app'));
  assert.equal(byWhere.bundled.verdict, 'patched at build time');
  assert.equal(byWhere.bundled.file, path.join(pkg, 'index.js'));
  assert.deepEqual(byWhere.bundled.classes, ['Protocol 1.x', 'stdio transport']);
  assert.doesNotMatch(result.message, /All \d+ SDK build/);
});

/** esbuild's own native binary (the platform package the esbuild devDependency installed), or undefined. */
function esbuildBinary() {
  try {
    return require.resolve(`@esbuild/${process.platform}-${process.arch}/bin/esbuild`, { paths: [ROOT] });
  } catch {
    return undefined;
  }
}

test('a plain project: a native bin without the SDK (esbuild) changes nothing in the report', { skip: esbuildBinary() === undefined && 'no esbuild binary for this platform' }, async () => {
  const esbuildBin = esbuildBinary();
  const withSdk = (name, binFile) => {
    const root = project(name, binFile);
    fs.mkdirSync(path.join(root, 'node_modules', '@modelcontextprotocol'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk'), path.join(root, 'node_modules', '@modelcontextprotocol', 'sdk'), 'junction');
    return root;
  };
  const [plain, native] = await Promise.all([doctor(withSdk('plain-app')), doctor(withSdk('native-bin-app', esbuildBin))]);
  const shape = ({ code, result }) => ({ code, rows: result.rows.map((r) => `${r.name}@${r.version} ${r.where} ${r.verdict}`), message: result.message.replace(/\/[^\s]*(plain-app|native-bin-app)/g, '<project>') });
  assert.deepEqual(shape(native), shape(plain));
  assert.equal(plain.code, 0, plain.result.message);
  assert.match(plain.result.message, /All 2 SDK build\(s\) found are fixed/, "the ESM and CJS builds of the sdk");
});
