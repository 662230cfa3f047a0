// The other JavaScript runtimes MCP hosts run on, from their platform
// packages on the npm registry (pinned devDependencies: `bun` brings
// @oven/bun-linux-x64, `deno` brings @deno/linux-x64-glibc). Nothing is
// downloaded at run time: a runtime whose package is not installed for this
// platform is `undefined`, and the tests that need it say so.

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
const bunBinary = binaryOf([`@oven/bun-${process.platform}-${process.arch}`, `@oven/bun-${process.platform}-${process.arch}-baseline`], `bin/bun${suffix}`);
const denoBinary = binaryOf([`@deno/${process.platform}-${process.arch === 'arm64' ? 'arm64' : 'x64'}${process.platform === 'linux' ? '-glibc' : ''}`], `deno${suffix}`);

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
