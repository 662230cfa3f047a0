// `mcp-ordered-dispatch/register` inside Bun-compiled executables, built
// here once with the pinned Bun (test/support/compiled.mjs): the 1.x and 2.x
// client apps as ES module chunks (--splitting: plain, --minify, --bytecode),
// as CommonJS chunks (--format=cjs: plain, --minify, --bytecode), and as a
// single file (the SDK in the entry module). Each is run against the raw
// coalescing server: stock, every progress notification is lost; under each
// way of applying register (WAYS), 0 lost and nothing on stderr, or, for the
// single file that no way reaches at run time, exactly one warning naming
// the executable and the fix. A preload the user set (in BUN_OPTIONS) keeps
// working beside register's. A redirected chunk stays one module with its own
// import.meta (ES module) and one exports object (CommonJS), as stock.
import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { RUNTIMES } from '../support/runtimes.mjs';
import { buildCompiled, runCompiled, PROGRESS } from '../support/compiled.mjs';
import { resolvingHome } from '../support/bundles.mjs';

// The package's entry, resolved by its name (wherever the package keeps it).
const REGISTER = fileURLToPath(import.meta.resolve('mcp-ordered-dispatch/register'));
// The launcher, as npx runs it.
const BIN = fileURLToPath(new URL('../../bin/mcp-ordered-dispatch.cjs', import.meta.url));
const { nativeLauncher } = createRequire(import.meta.url)('../../lib/native/launcher.cjs');
// Skipped only off the systems the release tests on: on linux (glibc), darwin and win32, x64 and
// arm64, test/support/runtimes.mjs fails the suite, naming the package, when Bun's is missing.
const skip = RUNTIMES.bun ? false : 'bun is not installed here';

/**
 * The ways of applying register to an executable: { name, run(exe, env) }
 * resolving runCompiled()'s result. One more way is one more entry.
 */
const WAYS = [
  { name: 'BUN_OPTIONS="--preload <register>"', run: (exe, env = {}) => runCompiled(exe, { env: { ...env, BUN_OPTIONS: `${env.BUN_OPTIONS ?? ''} --preload ${REGISTER}`.trim() } }) },
  { name: 'mcp-ordered-dispatch run --', run: (exe, env = {}) => runCompiled(process.execPath, { args: [BIN, 'run', '--', exe], env, cwd: path.dirname(exe) }) },
  { name: "setup's shell function (the native launcher, starting directly)", run: (exe, env = {}) => throughNativeLauncher(exe, env) },
];

/**
 * `exe` started as setup's shell function starts it, twice: the first start
 * has `run` write the plan, the second starts it directly, told a Node that
 * fails: its result is the direct start's.
 */
async function throughNativeLauncher(exe, env) {
  const records = path.join(dir, 'records');
  fs.mkdirSync(records, { recursive: true, mode: 0o700 });
  const failingNode = path.join(dir, process.platform === 'win32' ? 'failing-node.cmd' : 'failing-node');
  fs.writeFileSync(failingNode, process.platform === 'win32' ? '@exit /b 99\r\n' : '#!/bin/sh\necho "not started directly: Node started" >&2\nexit 99\n', { mode: 0o755 });
  const words = (node) => [`--node=${node}`, `--cli=${BIN}`, `--plans=${records}`, '--', exe];
  const withCache = { ...env, MCP_ORDERED_DISPATCH_CACHE_DIR: records };
  await runCompiled(nativeLauncher(), { args: words(process.execPath), env: withCache, cwd: path.dirname(exe) });
  return runCompiled(nativeLauncher(), { args: words(failingNode), env: withCache, cwd: path.dirname(exe) });
}

let dir;
let exes = [];
before(() => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-bun-compiled-'));
  exes = buildCompiled(dir);
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** stderr is exactly one line: the UNREACHED line naming `exe` (and `version`, where given), its entry module and the fix. */
function assertOneLine(stderr, exe, label, version) {
  const lines = stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, `${label}: exactly one line: ${stderr}`);
  assert.ok(lines[0].startsWith(`mcp-ordered-dispatch/register cannot reach the MCP SDK copy in the Bun-compiled executable ${exe}${version === undefined ? ':' : ` (${version}):`}`), `${label}: names the executable: ${lines[0]}`);
  assert.match(lines[0], /: its entry module \/\$bunfs\/root\/\S+ \(Bun loads it through no hook\), so it stays stock\. Build the fix in: add mcp-ordered-dispatch\/bun \(the bundler plugin\).* \(MCP_ORDERED_DISPATCH_UNREACHED\)$/, label);
}

test('stock: every compiled executable loses the progress notifications', { skip }, async () => {
  assert.equal(exes.length, 14);
  for (const exe of exes) {
    const r = await runCompiled(exe.file);
    assert.equal(r.lost, PROGRESS, `${exe.app} ${exe.kind} stock: ${JSON.stringify(r)}`);
    assert.equal(r.patched, false);
    assert.equal(r.stderr, '');
  }
});

for (const way of WAYS) {
  test(`${way.name}: every SDK copy in an executable's embedded chunks is patched (ES module and CommonJS, minified, bytecode): 0 lost, stderr empty; the single file: one warning naming it, stock`, { skip }, async () => {
    for (const exe of exes) {
      const label = `${exe.app} ${exe.kind} under ${way.name}`;
      const r = await way.run(exe.file);
      if (exe.reachable) {
        assert.deepEqual({ lost: r.lost, onerrors: r.onerrors, failed: r.failed, patched: r.patched, framing: r.framing, stderr: r.stderr }, { lost: 0, onerrors: 0, failed: 0, patched: true, framing: true, stderr: '' }, label);
        assert.equal(r.fastProgress, PROGRESS, label);
      } else {
        assert.equal(r.lost, PROGRESS, label);
        assertOneLine(r.stderr, exe.file, label);
      }
    }
  });
}

test('a preload the user set in BUN_OPTIONS keeps working beside register\'s: both run, its own plugin still sees the embedded imports, 0 lost', { skip }, async () => {
  const other = path.join(dir, 'other-preload.mjs');
  const mark = path.join(dir, 'other-preload.json');
  fs.writeFileSync(other, `import fs from 'node:fs';
let seen = 0;
Bun.plugin({ name: 'other', setup(build) { build.onResolve({ filter: /.*/ }, () => { seen++; return undefined; }); } });
process.on('exit', () => fs.writeFileSync(${JSON.stringify(mark)}, JSON.stringify({ seen })));
`);
  for (const exe of exes.filter((e) => e.kind === 'esm' || e.kind === 'cjs')) {
    for (const order of [`--preload ${other}`, '']) {
      fs.rmSync(mark, { force: true });
      // Theirs before register's, and after it (register's way appends: theirs is given after).
      const env = order === '' ? { BUN_OPTIONS: `--preload ${REGISTER} --preload ${other}` } : { BUN_OPTIONS: order };
      const r = order === '' ? await runCompiled(exe.file, { env }) : await WAYS[0].run(exe.file, env);
      assert.equal(r.lost, 0, `${exe.app} ${exe.kind}: ${JSON.stringify(r)}`);
      assert.equal(r.stderr, '');
      assert.ok(JSON.parse(fs.readFileSync(mark, 'utf8')).seen >= 1, `${exe.app} ${exe.kind}: the other preload's plugin saw the chunk's import`);
    }
  }
});

test('a redirected chunk is one module to every importer, keeps its relative imports and its import.meta (ES module chunk), and require() returns one exports object (CommonJS chunk): as stock', { skip }, async () => {
  const home = resolvingHome(dir, 'src-identity');
  fs.writeFileSync(path.join(home, 'helper.mjs'), 'export const helper = { id: Math.random() };\n');
  fs.writeFileSync(path.join(home, 'sdkuse.mjs'), `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { helper } from './helper.mjs';
export function meta() {
  const m = import.meta;
  return { url: m.url, dir: m.dir, dirname: m.dirname, file: m.file, path: m.path, filename: m.filename, resolved: m.resolve('./' + m.file), join: typeof m.require('node:path').join };
}
export { Client, helper };
`);
  fs.writeFileSync(path.join(home, 'a.mjs'), "import { helper } from './helper.mjs';\nexport async function run() { const m = await import('./sdkuse.mjs'); return { sameHelper: m.helper === helper, meta: m.meta() }; }\n");
  fs.writeFileSync(path.join(home, 'b.mjs'), "export async function run() { return (await import('./sdkuse.mjs')).Client; }\n");
  fs.writeFileSync(path.join(home, 'main.mjs'), `const r = await (await import('./a.mjs')).run();
const C = await (await import('./b.mjs')).run();
const m = await import('./sdkuse.mjs');
const patched = Object.getOwnPropertySymbols(Object.getPrototypeOf(m.Client.prototype)).some((s) => String(s).includes('mcp-ordered-dispatch'));
console.log(JSON.stringify({ ...r, sameClient: C === m.Client, patched }));
`);
  fs.writeFileSync(path.join(home, 'part.mjs'), "export { Client } from '@modelcontextprotocol/sdk/client/index.js';\nexport const made = Math.random();\n");
  fs.writeFileSync(path.join(home, 'main.cjs'), `const name = './part' + '.js';
const first = require(name);
const second = require(name);
const patched = Object.getOwnPropertySymbols(Object.getPrototypeOf(first.Client.prototype)).some((s) => String(s).includes('mcp-ordered-dispatch'));
console.log(JSON.stringify({ same: first === second, made: typeof first.made, client: typeof first.Client, patched }));
`);
  const esm = path.join(dir, 'identity-esm', 'app');
  const cjs = path.join(dir, 'identity-cjs', 'app');
  execFileSync(RUNTIMES.bun.command, ['build', '--compile', '--splitting', 'main.mjs', `--outfile=${esm}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  execFileSync(RUNTIMES.bun.command, ['build', '--compile', '--format=cjs', 'main.cjs', 'part.mjs', `--outfile=${cjs}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
  for (const exe of [esm, cjs]) {
    const stock = await runCompiled(exe);
    const patched = await WAYS[0].run(exe);
    assert.equal(stock.patched, false);
    assert.equal(patched.patched, true, `${exe}: the chunk was redirected`);
    assert.equal(patched.stderr, '');
    const strip = ({ patched: _p, stderr: _s, code: _c, ...rest }) => rest;
    assert.deepEqual(strip(patched), strip(stock), `${exe}: as stock`);
  }
});

test('never silent: an executable whose SDK chunks register does not reach prints exactly one line naming it and its version (a package.json beside it); one whose chunks it reaches prints nothing', { skip }, async () => {
  const single = exes.find((e) => e.app === 'sdk1' && e.kind === 'single-file');
  const home = path.join(dir, 'versioned');
  fs.mkdirSync(home, { recursive: true });
  const exe = path.join(home, 'some-host');
  fs.copyFileSync(single.file, exe);
  fs.chmodSync(exe, 0o755);
  fs.writeFileSync(path.join(home, 'package.json'), JSON.stringify({ name: 'some-host', version: '9.8.7' }));
  const r = await WAYS[0].run(exe);
  assert.equal(r.lost, PROGRESS);
  assertOneLine(r.stderr, exe, 'a single-file executable with a package.json', 'some-host 9.8.7');
  for (const reached of exes.filter((e) => e.reachable && e.app === 'sdk1')) {
    const ok = await WAYS[0].run(reached.file);
    assert.deepEqual({ lost: ok.lost, stderr: ok.stderr }, { lost: 0, stderr: '' }, reached.kind);
  }
});

test('a @bun-cjs chunk whose wrapper is not the one register knows is left alone (never run as an ES module)', { skip }, () => {
  const shared = path.join(path.dirname(REGISTER), '..', 'lib', 'register', 'bun-shared.cjs');
  const texts = {
    commonjs: '// @bun @bun-cjs\n(function(exports, require, module, __filename, __dirname) {\nmodule.exports = 1;})',
    other: '// @bun @bun-cjs\n(function(exports, require, module, __filename, __dirname, extra) {\nmodule.exports = 1;})',
    module: '// @bun\nexport const a = 1;\n',
  };
  const out = execFileSync(RUNTIMES.bun.command, ['-e', `const { embeddedFormatOf } = require(${JSON.stringify(shared)}); console.log(JSON.stringify(Object.fromEntries(Object.entries(${JSON.stringify(texts)}).map(([k, t]) => [k, embeddedFormatOf(t) ?? null]))));`], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { commonjs: 'commonjs', other: null, module: 'module' });
});

test('the record: a second start of the same executable scans no embedded module (counted under NODE_DEBUG=mcp-ordered-dispatch), 0 lost; a changed executable is scanned again', { skip }, async () => {
  const cacheDir = fs.mkdtempSync(path.join(dir, 'record-cache-'));
  const env = { NODE_DEBUG: 'mcp-ordered-dispatch', MCP_ORDERED_DISPATCH_CACHE_DIR: cacheDir };
  const counted = (r) => {
    // Besides the copy patched (test/register/debug-lines.test.mjs), one line of the record's counts.
    const lines = r.stderr.split('\n').filter((line) => line !== '' && !/^MCP-ORDERED-DISPATCH \d+: patched /.test(line));
    assert.equal(lines.length, 1, r.stderr);
    const [, scanned, patched, recorded] = lines[0].match(/bun executable index: (\d+) embedded modules scanned, (\d+) read to be patched, (\d+) decided by the index alone; \d+ with SDK classes run from their bytecode$/).map(Number);
    return { lost: r.lost, scanned, patched, recorded };
  };
  for (const exe of exes.filter((e) => e.app === 'sdk1' && (e.kind === 'esm' || e.kind === 'cjs'))) {
    const first = counted(await WAYS[0].run(exe.file, env));
    assert.ok(first.scanned >= 2 && first.lost === 0 && first.patched === 0, `${exe.kind} first start: ${JSON.stringify(first)}`);
    const second = counted(await WAYS[0].run(exe.file, env));
    assert.deepEqual(second, { lost: 0, scanned: 0, patched: 1, recorded: first.scanned - 1 }, `${exe.kind} second start`);
    // The same bytes elsewhere are another executable: scanned again, then recorded.
    const moved = path.join(dir, `${exe.kind}-moved`);
    fs.copyFileSync(exe.file, moved);
    fs.chmodSync(moved, 0o755);
    assert.equal(counted(await WAYS[0].run(moved, env)).scanned, first.scanned, `${exe.kind} moved`);
  }
});
