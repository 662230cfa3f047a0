// The packing contract, shared by test/package/pack.test.mjs and test/package/registry.test.mjs:
// scripts/pack.cjs makes the main tarball from a staged copy with a user's
// package.json (no scripts); `npm install` in this clone has built the addon
// and staged this machine's platform package in npm/<abi>/ (`prepare`), where
// `npm pack` makes the platform tarball.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const platform = require('../../../lib/native/platform.cjs');
export const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
export const ABI = platform.platformArchABI();
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const REPRO = path.join(ROOT, 'test', 'support', 'repro.cjs');

/** Run a command; throws with its output unless it exits 0 (or `allowFail`). */
export function sh(cmd, args, { cwd, env = {}, allowFail = false, timeout = 300_000 } = {}) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
    timeout,
    shell: process.platform === 'win32',
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (!allowFail && r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed (${r.status ?? r.signal ?? r.error}):\n${out}`);
  }
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', out };
}

/** Pack the main and this platform's package into `dest`; returns both tarball paths. */
export function packBoth(dest) {
  // The build is current and npm/<abi>/ staged with it (what `npm install`'s `prepare` did).
  sh(process.execPath, [path.join(ROOT, 'scripts', 'build.cjs'), '--prebuild'], { cwd: ROOT });
  const log = sh(process.execPath, [path.join(ROOT, 'scripts', 'pack.cjs'), '--dest', dest], { cwd: ROOT }).out;
  const main = path.join(dest, `${PKG.name}-${PKG.version}.tgz`);
  if (!fs.existsSync(main)) throw new Error(`npm pack did not write ${main}:\n${log}`);
  const platformDir = platform.npmDirOf(ABI);
  sh(NPM, ['pack', '--pack-destination', dest], { cwd: platformDir });
  const platformTarball = path.join(dest, `${platform.platformPackageName(ABI)}-${PKG.version}.tgz`);
  if (!fs.existsSync(platformTarball)) throw new Error(`npm pack in ${platformDir} did not write ${platformTarball}`);
  return { main, platform: platformTarball, log };
}

/** The file list of a tarball (paths under package/). */
export function tarList(tarball) {
  return sh('tar', ['tzf', tarball]).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
}

/** The package.json inside a tarball. */
export function tarManifest(tarball) {
  return JSON.parse(sh('tar', ['xzOf', tarball, 'package/package.json']).stdout);
}

/**
 * An app (ES module) that runs the stdio reproduction (progress notifications in
 * the same read as their response) through the SDK copies installed beside it,
 * 1.x and 2.x, and prints one line: APP-RESULT {json}, with the .node files loaded.
 */
export const REPRO_APP = `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { runRepro } = require(${JSON.stringify(REPRO)});
const options = { pairs: 3, concurrency: 2, mode: 'all-in-one' };
const out = {};
const v1 = await import('@modelcontextprotocol/sdk/client/index.js');
const t1 = await import('@modelcontextprotocol/sdk/client/stdio.js');
out[1] = await runRepro({ Client: v1.Client, StdioClientTransport: t1.StdioClientTransport, generation: 1 }, options);
const v2 = await import('@modelcontextprotocol/client');
const t2 = await import('@modelcontextprotocol/client/stdio');
out[2] = await runRepro({ Client: v2.Client, StdioClientTransport: t2.StdioClientTransport, generation: 2 }, options);
// The .node files the process has opened (the addon is opened with process.dlopen(), not require()).
out.nativeFiles = process.report.getReport().sharedObjects.filter((f) => f.endsWith('.node'));
console.log('APP-RESULT ' + JSON.stringify(out));
`;

export function appResult(stdout) {
  const line = stdout.split('\n').find((l) => l.startsWith('APP-RESULT '));
  if (!line) throw new Error(`the app printed no result:\n${stdout}`);
  return JSON.parse(line.slice('APP-RESULT '.length));
}

/** The SDK packages (pinned as in devDependencies) an app installs beside the package. */
export function sdkSpecs() {
  const dev = PKG.devDependencies;
  return [
    `@modelcontextprotocol/sdk@${dev['@modelcontextprotocol/sdk']}`,
    `@modelcontextprotocol/client@${dev['@modelcontextprotocol/client']}`,
    `zod@${dev.zod}`,
  ];
}

/** Every .node file under a project's node_modules, relative to it. */
export function nodeFilesUnder(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.node')) found.push(path.relative(dir, p).split(path.sep).join('/'));
    }
  };
  walk(path.join(dir, 'node_modules'));
  return found.sort();
}

/** The platform packages (`mcp-ordered-dispatch-*`) installed in a project. */
export function platformPackagesIn(dir) {
  const prefix = `${platform.platformPackageName('')}`;
  return fs.readdirSync(path.join(dir, 'node_modules')).filter((n) => n.startsWith(prefix)).sort();
}
