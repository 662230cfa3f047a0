// The most common shape of a bundled Node program: esbuild's CommonJS output
// in a `.js` file of a package whose package.json names no "type" (VS Code
// extensions, many CLIs). Node hands register's load hook no format for
// such a file (require() of it, or of an extensionless main script: Node
// decides by its syntax later), and register used to pass it by unlooked
// at: under `--require` (what `run` sets) on Node 22, 24 and 26 the bundled
// SDK stayed stock. Built here with the tree's esbuild, each layout is run
// stock, by `--require` and by `--import`, on this Node (and, through
// scripts/test-node-lines.mjs, on every line the suite installs):
//   - CommonJS `.js` in a typeless package;
//   - the same in a typeless package nested under a "type": "module" one;
//   - `.cjs`;
//   - an extensionless main script (`#!/usr/bin/env node`);
//   - an ES module `.js` in a typeless package (its syntax makes it one).
// Stock loses all PROGRESS notifications to the response in their read;
// under register each gets all of them, with no onerror and nothing on
// stderr. Then `run --report -- node dist/extension.js`: none lost, and
// the report names the bundle as the patched copy; doctor's row says what
// register does with it. On Deno (which runs a typeless CommonJS file only
// with --unstable-detect-cjs) --preload register delivers all; Bun compiles
// a CommonJS entry script through no hook: stock, with one warning.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';
import { ROOT, RAW_SERVER, ESM_BANNER } from '../support/bundles.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';

const require = createRequire(import.meta.url);
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const PROGRESS = 5;

// A user's 30-line client: one call whose progress all arrives in the response's read.
const CLIENT = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
async function main() {
  const client = new Client({ name: 'victim', version: '1.0.0' });
  const onerrors = [];
  client.onerror = (error) => onerrors.push(error.message);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [process.env.RAW_SERVER, '--mode=all-in-one', '--progress=${PROGRESS}'] }));
  let received = 0;
  await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: () => received++ });
  await client.close();
  console.log(JSON.stringify({ received, onerrors }));
}
main();
`;

// [name, file (under the temporary folder), esbuild format, package.json files ({ folder: contents })]
const LAYOUTS = [
  ['CommonJS .js, typeless package', 'victim/dist/extension.js', 'cjs'],
  ['CommonJS .js, typeless package under a "type": "module" one', 'outer/victim/dist/index.js', 'cjs'],
  ['.cjs', 'victim/dist/extension.cjs', 'cjs'],
  ['extensionless main script', 'victim/bin/victim', 'cjs'],
  ['ES module .js, typeless package', 'esm-victim/dist/index.js', 'esm'],
];
const PACKAGES = {
  victim: { name: 'victim', version: '1.0.0' },
  'esm-victim': { name: 'esm-victim', version: '1.0.0' },
  outer: { name: 'outer', version: '1.0.0', type: 'module' },
  'outer/victim': { name: 'victim', version: '1.0.0' },
};
const REGISTER = {
  stock: [],
  '--require': ['--require', path.join(ROOT, 'entries', 'register.cjs')],
  '--import': ['--import', pathToFileURL(path.join(ROOT, 'entries', 'register.mjs')).href],
};

let dir;
let cache;

function env() {
  const e = { ...process.env, PATH: pathWithThisNode(), RAW_SERVER, MCP_ORDERED_DISPATCH_CACHE_DIR: cache };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN']) delete e[name];
  return e;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-typeless-'));
  cache = path.join(dir, 'cache');
  for (const [folder, pkg] of Object.entries(PACKAGES)) {
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.writeFileSync(path.join(dir, folder, 'package.json'), JSON.stringify(pkg));
  }
  const entry = path.join(dir, 'client.mjs');
  fs.writeFileSync(entry, CLIENT);
  const esbuild = require('esbuild');
  for (const [, file, format] of LAYOUTS) {
    const outfile = path.join(dir, file);
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format,
      outfile,
      nodePaths: [path.join(ROOT, 'node_modules')],
      logLevel: 'silent',
      banner: { js: `${file.includes('/bin/') ? '#!/usr/bin/env node\n' : ''}${format === 'esm' ? ESM_BANNER : ''}` },
    });
  }
});

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function run(file, flags) {
  const r = await runCommand(process.execPath, [...flags, path.join(dir, file)], { cwd: dir, env: env(), timeout: 60_000 });
  assert.equal(r.code, 0, show(r));
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr, raw: r };
}

test(`each layout: stock loses all ${PROGRESS}; by --require and by --import register delivers all, with no onerror`, async () => {
  // Two processes at a time: each is one connection and one call.
  const jobs = LAYOUTS.flatMap(([name, file]) => Object.keys(REGISTER).map((how) => ({ name, file, how })));
  const results = [];
  for (let i = 0; i < jobs.length; i += 2) {
    results.push(...(await Promise.all(jobs.slice(i, i + 2).map(async (job) => ({ ...job, r: await run(job.file, REGISTER[job.how]) })))));
  }
  const table = results.map(({ name, how, r }) => `${name}, ${how}: ${r.received} of ${PROGRESS}, ${r.onerrors.length} onerrors`);
  for (const { name, how, r } of results) {
    const label = `Node ${process.version}, ${name}, ${how}:\n${table.join('\n')}\n${show(r.raw)}`;
    if (how === 'stock') {
      assert.equal(r.received, 0, label);
      assert.equal(r.onerrors.length, PROGRESS, label);
      assert.match(r.onerrors[0], /unknown token/, label);
    } else {
      assert.equal(r.received, PROGRESS, label);
      assert.deepEqual(r.onerrors, [], label);
      // Register adds nothing to stderr: it holds what stock's does (the ES module layout's MODULE_TYPELESS_PACKAGE_JSON warning), pid aside.
      const stock = results.find((s) => s.name === name && s.how === 'stock');
      const withoutPid = (text) => text.replace(/^\(node:\d+\)/gm, '(node)');
      assert.equal(withoutPid(r.stderr), withoutPid(stock.r.stderr), label);
    }
  }
});

test('run --report -- node dist/extension.js (a typeless CommonJS bundle): none lost, and the report names the bundle as the patched copy', async () => {
  const file = path.join(dir, 'victim', 'dist', 'extension.js');
  const r = await runCommand(process.execPath, [BIN, 'run', '--report', '--', process.execPath, file], { cwd: dir, env: env(), timeout: 60_000 });
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop()), { received: PROGRESS, onerrors: [] }, show(r));
  const shown = await runCommand(process.execPath, [BIN, 'report', '--json'], { cwd: dir, env: env() });
  assert.equal(shown.code, 0, show(shown));
  const records = JSON.parse(shown.stdout).records;
  const host = records.find((record) => record.copies.length > 0);
  assert.ok(host, shown.stdout);
  assert.ok(host.copies.some((copy) => copy.files?.includes(file)), JSON.stringify(host.copies));
  assert.equal(host.counts.sameRead, PROGRESS, JSON.stringify(host.counts));
});

test('doctor in the typeless package: the bundle is patched by register, by --require and --import, on this Node and the lines it names', async () => {
  const r = await runCommand(process.execPath, [BIN, 'doctor', '--json'], { cwd: path.join(dir, 'victim'), env: env() });
  const rows = JSON.parse(r.stdout).rows;
  const row = rows.find((x) => x.file === path.join(dir, 'victim', 'dist', 'extension.js'));
  assert.ok(row, r.stdout);
  assert.equal(row.verdict, 'patched by register');
  assert.equal(row.build, 'cjs');
  assert.match(row.why, /run as CommonJS by its syntax/);
  assert.match(row.why, /`--require` \(as `mcp-ordered-dispatch run` puts it in\) or by `--import` alike/);
  assert.ok(row.why.includes(`on this Node (${process.version})`), row.why);
  const named = rows.find((x) => x.file === path.join(dir, 'victim', 'dist', 'extension.cjs'));
  assert.match(named.why, /run as CommonJS;/);
});

test('Deno (--unstable-detect-cjs, without which it refuses a typeless CommonJS file) and Bun: the typeless CommonJS bundle under --preload register', { skip: (process.env.MCP_ORDERED_DISPATCH_LINE_RUN === '1' && 'the Node line changes nothing for Deno and Bun: the machine\'s own run (test:node) has it') || (!(RUNTIMES.deno && RUNTIMES.bun) && 'Deno or Bun is not installed for this platform') }, async () => {
  const file = path.join(dir, 'victim', 'dist', 'extension.js');
  const start = async (command, args, extraEnv = {}) => {
    const r = await runCommand(command, [...args, file], { cwd: path.dirname(file), env: { ...env(), ...extraEnv }, timeout: 120_000 });
    assert.equal(r.code, 0, show(r));
    return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr, raw: r };
  };
  const deno = [...RUNTIMES.deno.args, '--unstable-detect-cjs'];
  const denoEnv = { ...RUNTIMES.deno.env, DENO_DIR: path.join(dir, 'deno') };
  const [denoStock, denoFixed] = await Promise.all([
    start(RUNTIMES.deno.command, deno, denoEnv),
    start(RUNTIMES.deno.command, [...deno, '--preload', path.join(ROOT, 'entries', 'register.mjs')], denoEnv),
  ]);
  assert.equal(denoStock.received, 0, show(denoStock.raw));
  assert.equal(denoFixed.received, PROGRESS, show(denoFixed.raw));
  assert.deepEqual(denoFixed.onerrors, [], show(denoFixed.raw));
  // Bun compiles a CommonJS entry script through no hook: it stays stock, and one warning says so (docs/how-it-works.md).
  const bun = await start(RUNTIMES.bun.command, ['--preload', path.join(ROOT, 'entries', 'register.mjs')]);
  assert.equal(bun.received, 0, show(bun.raw));
  assert.equal(bun.stderr.match(/MCP_ORDERED_DISPATCH_UNREACHED/g)?.length, 1, show(bun.raw));
  assert.match(bun.stderr, /cannot reach the MCP SDK copy in the CommonJS entry module .*extension\.js/, show(bun.raw));
});
