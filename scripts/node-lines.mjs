// The Node lines users run, besides this machine's own Node: one pinned
// release of each, installed from the npm registry's per-platform Node
// packages (`node-<platform>-<arch>`, which hold the official binary in
// package/bin/node) into .node-lines/<version>/bin/node (git-ignored) and
// kept there between runs. Used by scripts/test-node-lines.mjs (`npm test`)
// and bench/startup.mjs.
//
//   node scripts/node-lines.mjs            install what is missing, print the binaries
//
// MCP_ORDERED_DISPATCH_NODE_LINES=22.23.5,26.12.1 picks other versions;
// `off` picks none.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIR = path.join(ROOT, '.node-lines');

/** The newest release of each supported line other than the machine's (checked against the registry when bumped). */
export const LINES = ['22.23.5', '24.22.3', '26.12.1'];

export function selectedLines(env = process.env) {
  const v = env.MCP_ORDERED_DISPATCH_NODE_LINES;
  if (v === undefined || v.trim() === '') return LINES;
  if (/^(0|off|false|no|none)$/i.test(v.trim())) return [];
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

const binaryOf = (version) => path.join(DIR, version, 'bin', 'node');

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The path of Node `version`'s binary, installed first if it is not there yet. */
export function ensureNode(version, log = (s) => process.stderr.write(s)) {
  const bin = binaryOf(version);
  if (fs.existsSync(bin) && versionOf(bin) === `v${version}`) return bin;
  // The package layout (package/bin/node) is checked on Linux only; elsewhere the
  // release workflow's own Node setup covers the lines.
  if (process.platform !== 'linux') throw new Error(`node-lines: installing Node binaries is supported on Linux only (not ${process.platform})`);
  const pkg = `node-${process.platform}-${process.arch}@${version}`;
  log(`node-lines: installing ${pkg} into ${path.relative(ROOT, DIR)}/${version} ...\n`);
  fs.mkdirSync(DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(DIR, `.tmp-${version}-`));
  try {
    // npm pack fetches through npm's own cache and registry settings.
    const packed = spawnSync('npm', ['pack', pkg, '--pack-destination', tmp, '--json', '--silent'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg} failed: ${packed.stderr || packed.stdout}`);
    const tarball = path.join(tmp, JSON.parse(packed.stdout)[0].filename);
    const into = path.join(tmp, 'x');
    fs.mkdirSync(into);
    const member = 'package/bin/node';
    const tar = spawnSync('tar', ['xzf', tarball, '-C', into, member], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`extracting ${member} from ${pkg} failed: ${tar.stderr}`);
    const extracted = path.join(into, member);
    if (versionOf(extracted) !== `v${version}`) throw new Error(`${pkg}: ${member} does not run as v${version}`);
    fs.rmSync(path.dirname(path.dirname(bin)), { recursive: true, force: true });
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.renameSync(extracted, bin);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  for (const version of selectedLines()) console.log(`${version}\t${ensureNode(version)}`);
}
