// The other JavaScript runtimes MCP hosts run on, from their platform
// packages on the npm registry (pinned devDependencies: `bun` brings
// @oven/bun-linux-x64, `deno` brings @deno/linux-x64-glibc). Nothing is
// downloaded at run time. On a system the suites are tested on, a missing
// runtime fails the suites (TESTED); elsewhere (musl, other systems) it is
// `undefined`, and the tests that need it say so.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The file `bin` inside the first of `packages` that resolves, or undefined. */
function binaryOf(packages, bin) {
  for (const name of packages) {
    try {
      const file = path.join(path.dirname(require.resolve(`${name}/package.json`)), bin);
      if (fs.existsSync(file)) return file;
    } catch {
      // Not installed for this platform.
    }
  }
  return undefined;
}

const suffix = process.platform === 'win32' ? '.exe' : '';
const musl = process.platform === 'linux' && !process.report?.getReport?.()?.header?.glibcVersionRuntime;
// Bun names its packages by its own words for the system and the CPU.
const bunOs = { win32: 'windows' }[process.platform] ?? process.platform;
const bunArch = { arm64: 'aarch64' }[process.arch] ?? process.arch;
const BUN_PACKAGES = [`@oven/bun-${bunOs}-${bunArch}${musl ? '-musl' : ''}`, `@oven/bun-${bunOs}-${bunArch}${musl ? '-musl' : ''}-baseline`];
const DENO_PACKAGES = [`@deno/${process.platform}-${process.arch === 'arm64' ? 'arm64' : 'x64'}${process.platform === 'linux' ? '-glibc' : ''}`];

/**
 * The systems the release workflow runs the suites on (glibc on Linux):
 * there a runtime whose package is missing fails every suite that imports
 * this file, naming the package, instead of skipping its tests unseen.
 */
const TESTED = new Set(['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64']);

/** `binary`, or where this system is one the suites are tested on, an error naming the missing package. */
function required(name, binary, packages) {
  if (binary !== undefined || musl || !TESTED.has(`${process.platform}-${process.arch}`)) return binary;
  throw new Error(`${name} is not installed for ${process.platform}-${process.arch}, where the tests run it: its platform package ${packages[0]} ` +
    `(an optional dependency of the pinned devDependency ${name}) is missing; run npm install with optional dependencies`);
}

const bunBinary = required('bun', binaryOf(BUN_PACKAGES, `bin/bun${suffix}`), BUN_PACKAGES);
const denoBinary = required('deno', binaryOf(DENO_PACKAGES, `deno${suffix}`), DENO_PACKAGES);

/** Environment for a Deno child: no update check, no prompt (a missing permission fails instead of waiting on stdin). */
export const DENO_ENV = { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' };

/**
 * { name, command, args } per runtime: `args` go before the script. Deno
 * runs with every permission (-A; the addon needs --allow-ffi), and writes
 * no deno.lock (--no-lock) beside the package.json it finds.
 */
export const RUNTIMES = {
  bun: bunBinary && { name: 'bun', command: bunBinary, args: [] },
  deno: denoBinary && { name: 'deno', command: denoBinary, args: ['run', '-A', '--no-lock'], env: DENO_ENV },
};

/**
 * `bun test SPEC` in `cwd`, with `register` preloaded and without: with it
 * the one test passes, without it the test fails (or it would prove nothing).
 */
export async function assertBunTestNeedsRegister(spec, { cwd, env, register }) {
  const { runCommand, show } = await import('./spawn-node.mjs');
  const assert = (await import('node:assert/strict')).default;
  const run = (flags) => runCommand(RUNTIMES.bun.command, ['test', ...flags, spec], { cwd, env, timeout: 120_000 });
  const patched = await run(['--preload', register]);
  assert.equal(patched.code, 0, show(patched));
  assert.match(patched.stderr, /1 pass/);
  const stock = await run([]);
  assert.notEqual(stock.code, 0, `without register the test must fail, or it proves nothing: ${show(stock)}`);
  assert.match(stock.stderr, /1 fail/);
}
