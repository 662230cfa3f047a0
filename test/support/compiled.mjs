// Test helper: Bun-compiled executables (`bun build --compile`, the pinned
// Bun of test/support/runtimes.mjs) of the 1.x and 2.x client apps of
// test/support/bundles.mjs, built the ways compiled hosts are:
//   - ES module, `--splitting`: the entry imports the app lazily, so the SDK
//     sits in an embedded chunk of its own (`/$bunfs/root/app-*.js`), as in
//     Claude Code, opencode and cline's CLI: plain, `--minify`, `--bytecode`;
//   - CommonJS (`--format=cjs`), two entry points: the entry require()s the
//     app's chunk (`/$bunfs/root/app.js`) at run time: plain, `--minify`,
//     `--bytecode`;
//   - single file: the SDK inside the entry module itself (no register can
//     reach it at run time: the executable is named in one warning).
// Each executable, run, connects to the raw coalescing server (RAW_SERVER,
// run by this Node) and prints one line of JSON: { lost, expected, onerrors,
// failed, patched, framing, readBuffer, fastProgress } of one call whose
// PROGRESS progress notifications all arrive in the response's read.
//
//   const exes = buildCompiled(dir);            // [{ app, kind, file, reachable }]
//   const r = await runCompiled(exe.file, { BUN_OPTIONS: '--preload ...' });
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { APPS, appSource, resolvingHome, RAW_SERVER, PROGRESS } from './bundles.mjs';
import { RUNTIMES } from './runtimes.mjs';
import { runCommand, show } from './spawn-node.mjs';

export { PROGRESS };

/**
 * The kinds of executable: { kind, layout, flags, reachable }. `layout`:
 * 'split' (ES module, the app in a chunk), 'cjs' (CommonJS, the app a second
 * entry point), 'single' (the app in the entry module).
 */
export const KINDS = [
  { kind: 'esm', layout: 'split', flags: ['--splitting'], reachable: true },
  { kind: 'esm-minify', layout: 'split', flags: ['--splitting', '--minify'], reachable: true },
  { kind: 'esm-bytecode', layout: 'split', flags: ['--splitting', '--format=esm', '--bytecode'], reachable: true },
  { kind: 'cjs', layout: 'cjs', flags: ['--format=cjs'], reachable: true },
  { kind: 'cjs-minify', layout: 'cjs', flags: ['--format=cjs', '--minify'], reachable: true },
  { kind: 'cjs-bytecode', layout: 'cjs', flags: ['--format=cjs', '--bytecode'], reachable: true },
  { kind: 'single-file', layout: 'single', flags: ['--minify'], reachable: false },
];

/**
 * Built as Claude Code is (kept out of KINDS: test/runtimes/bun-bytecode.test.mjs):
 * ES module chunks with bytecode, the app's chunk (its stdio transport
 * inside, not exported) importing statically a chunk it shares with another
 * (peer.mjs: the Client, the SDK's Protocol with it, exported).
 */
export const SHARED_KIND = { kind: 'esm-shared-bytecode', layout: 'shared', flags: ['--splitting', '--format=esm', '--bytecode'], reachable: true };

// The entry modules: they hold no SDK class, only the way to the app's chunk.
const ENTRIES = {
  // A dynamic import: --splitting puts what it imports in a chunk of its own.
  split: { name: 'main.mjs', source: "await import('./app.mjs');\n" },
  // Two: what both import goes into a chunk they share.
  shared: { name: 'main-shared.mjs', source: "await import('./app.mjs');\nif (process.env.NEVER_SET) await import('./peer.mjs');\n" },
  // A require() the bundler cannot follow: the second entry point, loaded at run time.
  cjs: { name: 'main.cjs', source: "const part = './app' + '.js';\nrequire(part);\n" },
};

/**
 * Build the executables (`apps`: keys of APPS, `kinds`: entries of KINDS)
 * into `dir`, each in a directory of its own holding the executable alone:
 * [{ app, kind, layout, reachable, file }]. Synchronous; each build once.
 */
export function buildCompiled(dir, { apps = Object.keys(APPS), kinds = KINDS } = {}) {
  const bun = RUNTIMES.bun?.command;
  if (bun === undefined) throw new Error('bun is not installed for this platform');
  const out = [];
  for (const app of apps) {
    // bun resolves from the entry's directory: the repository's node_modules there.
    const home = resolvingHome(dir, `src-${app}`);
    fs.writeFileSync(path.join(home, 'app.mjs'), appSource(APPS[app]));
    fs.writeFileSync(path.join(home, 'peer.mjs'), `export { Client } from ${JSON.stringify(APPS[app].client)};\n`);
    for (const entry of Object.values(ENTRIES)) fs.writeFileSync(path.join(home, entry.name), entry.source);
    for (const { kind, layout, flags, reachable } of kinds) {
      const exeDir = path.join(dir, `${app}-${kind}`);
      fs.mkdirSync(exeDir, { recursive: true });
      const file = path.join(exeDir, `${app}-${kind}`);
      const entries = layout === 'single' ? ['app.mjs'] : layout === 'cjs' ? [ENTRIES.cjs.name, 'app.mjs'] : [ENTRIES[layout].name];
      execFileSync(bun, ['build', '--compile', ...entries, ...flags, `--outfile=${file}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
      out.push({ app, kind, layout, reachable, file });
    }
  }
  return out;
}

/** The environment an executable runs in: the raw server run by this Node, none of the test runner's or a user's Node, Bun or register settings. */
export function compiledEnv(extra = {}) {
  const env = { ...process.env, RAW_SERVER, RAW_SERVER_NODE: process.execPath };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_NATIVE', 'BUN_BE_BUN']) delete env[name];
  return { ...env, ...extra };
}

/**
 * Run `command` (an executable; `args` after it) from its own directory
 * with `env` (compiledEnv()'s, plus what is given) and resolve its JSON
 * line with { stderr, code }. Throws with its output when it fails or prints
 * no JSON.
 */
export async function runCompiled(command, { args = [], env = {}, cwd = path.dirname(command) } = {}) {
  const r = await runCommand(command, args, { cwd, env: compiledEnv(env), timeout: 120_000 });
  const line = r.stdout.trim().split('\n').pop();
  let result;
  try {
    result = JSON.parse(line);
  } catch {
    throw new Error(`${command} printed no JSON result: ${show(r)}`);
  }
  if (r.code !== 0) throw new Error(`${command} failed: ${show(r)}`);
  return { ...result, stderr: r.stderr, code: r.code };
}
