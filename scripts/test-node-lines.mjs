// `npm test`'s run of the node suites on the other Node lines users run
// (scripts/node-lines.mjs: 22, 24, 26, installed into .node-lines/ on first
// use and kept), after `npm run test:node` has run every suite on the
// machine's own Node. The native addon is N-API, so the one build loads on
// every line.
//
// Each line runs the suites that depend on the Node line itself — module
// loading (register, its hooks and its fail-soft), child processes, the test
// runners' setups, stdio — one line after another so that the 2-core budget
// holds.
//
//   node scripts/test-node-lines.mjs              every line, the selected suites
//   node scripts/test-node-lines.mjs test/<stage>/<file>.test.mjs ...   other suites
//
// MCP_ORDERED_DISPATCH_NODE_LINES=26.12.1 (comma-separated) or =off: see scripts/node-lines.mjs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, ensureNode, selectedLines } from './node-lines.mjs';

export const SUITES = [
  'test/stdio/stdio.test.mjs', // the stdio reproduction
  'test/register/register.test.mjs', // register: --import/--require, ESM/CJS, nested copies
  'test/register/register-quiet.test.mjs', // register prints nothing, registerHooks where Node has it, lazy
  'test/register/code-cache.test.mjs', // the patcher's V8 code cache: written once, read, passed over when it cannot be trusted
  'test/register/register-failsoft.test.mjs', // no loadable addon: the app runs stock, one warning
  'test/register/register-transform.test.mjs', // the load hooks' source check on every installed SDK release
  'test/patch/unsupported.test.mjs', // install() and register on an SDK shape we do not know
  'test/register/runners.test.mjs', // node:test, Vitest and Jest setup files
  'test/progress/progress-lifecycle.test.mjs',
  'test/patch/matrix.test.mjs', // the SDK version matrix
  'test/register/register-cycle.test.mjs', // register quiet in a CommonJS app with require cycles
  'test/register/bundled-host.test.mjs', // a real host's bundled SDK (mcp-remote) found by shape
  'test/register/rewrite-everything.test.mjs', // the search by shape changes only SDK classes
  'test/patch/bundled-external.test.mjs', // patchProtocol() on a minified bundle's classes
  'test/register/bundled.test.mjs', // bundles by esbuild, webpack, rollup, bun: here one of each bundler and format (LINE_BUNDLES)
  'test/register/typeless.test.mjs', // a CommonJS bundle in a typeless package, by --require and --import (Node decides its format later)
];

/**
 * How long one line's run may take (each takes about a minute here): past
 * it the run is stopped and fails, so a suite that leaves a handle open (a
 * child, a server) cannot keep `npm test` waiting. Not --test-force-exit:
 * on Node 22, 24 and 26 it ends a suite's process with tests still queued
 * (test/register/rewrite-everything.test.mjs ran 18, 27 or 37 of its 37,
 * each run passing), so tests went unrun unseen.
 */
const LINE_TIMEOUT_MS = 15 * 60 * 1000;

function runLine(version, suites) {
  const bin = ensureNode(version);
  // MCP_ORDERED_DISPATCH_LINE_RUN=1: the suites' matrices shrink to what the Node line itself can change
  // (test/register/bundled.test.mjs runs 8 bundles, 17 on the machine's Node; test/stdio/stdio.test.mjs 8 of its 16 cases).
  const env = { ...process.env, PATH: [path.dirname(bin), process.env.PATH ?? ''].join(path.delimiter), MCP_ORDERED_DISPATCH_LINE_RUN: '1' };
  delete env.NODE_TEST_CONTEXT;
  console.log(`\n# Node ${version} (${path.relative(ROOT, bin)}): ${suites.length} suites`);
  return new Promise((resolve, reject) => {
    const flags = ['--test', '--test-concurrency=2', '--test-reporter=spec'];
    const child = spawn(bin, [...flags, ...suites], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`node-lines: Node ${version} did not end within ${LINE_TIMEOUT_MS / 60000} min (a suite left a handle open?): stopped`);
      child.kill('SIGKILL');
    }, LINE_TIMEOUT_MS);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // The runner's own summary is the last such line.
      const count = (what) => Number([...out.matchAll(new RegExp(`^ℹ ${what} (\\d+)$`, 'gm'))].pop()?.[1] ?? NaN);
      resolve({ version, code: timedOut ? 'timed out' : code, signal, pass: count('pass'), fail: count('fail') });
    });
  });
}

const suites = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SUITES;
// Off Linux (a release workflow's macOS and Windows runners) each job's own
// Node setup runs the suites on each line instead.
const lines = process.platform === 'linux' ? selectedLines() : [];
if (process.platform !== 'linux') console.log(`node-lines: skipped on ${process.platform} (Node binaries from the registry are installed on Linux only)`);
const results = [];
for (const version of lines) results.push(await runLine(version, suites));

console.log('\n| Node | suites | pass | fail | exit |\n|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.version} | ${suites.length} | ${r.pass} | ${r.fail} | ${r.signal ?? r.code} |`);
const passed = results.reduce((n, r) => n + (r.pass || 0), 0);
// A line whose runner did not report counts as failed.
const failed = results.reduce((n, r) => n + (Number.isNaN(r.fail) ? 1 : r.fail), 0);
const bad = results.filter((r) => r.code !== 0 || Number.isNaN(r.pass) || r.fail !== 0);
if (lines.length === 0) console.log('node-lines: none selected (MCP_ORDERED_DISPATCH_NODE_LINES)');
console.log(`node-lines: ${passed} passed, ${failed} failed`);
if (bad.length > 0) process.exitCode = 1;
