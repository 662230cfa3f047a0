// `npx mcp-ordered-dispatch doctor`, run as a command: on this repository
// (every SDK copy it resolves is affected stock and fixed patched), on a
// project with an SDK copy it cannot patch, and on one with no SDK at all.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const { report } = require('../../lib/doctor/index.cjs');
const temps = [];

function doctor(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function tempProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-doctor-'));
  temps.push(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'doctor-fixture', private: true }));
  return dir;
}

after(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

test('this repository: seventeen SDK builds (npm aliases and a fork under another name included), each losing progress stock and fixed patched, and two bundled copies it lists but cannot run: no all-clear, exit 1', async () => {
  // One pair a copy: the loss is deterministic, and 34 probes were the test's time.
  const { code, stdout, stderr } = await doctor(['doctor', '--json', '--pairs', '1'], ROOT);
  assert.equal(code, 1, stdout + stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.exitCode, 1);
  // mcp-remote (a devDependency) bundles client 2.0.0 in its dist/: found by shape, listed, not run.
  // Bundles under .cache/ (git-ignored: the hosts check:hosts installs, the bench's Agent SDK) are a working tree's, not the repository's: counted apart.
  const local = (r) => path.relative(ROOT, r.file).split(path.sep)[0] === '.cache';
  const cached = result.rows.filter((r) => r.where === 'bundled' && local(r)).length;
  const bundled = result.rows.filter((r) => r.where === 'bundled' && !local(r));
  assert.deepEqual(bundled.map((r) => `${r.name}@${r.version} ${path.relative(ROOT, r.file).split(path.sep).join('/').replace(/chunk-\w+/, 'chunk-*')} ${r.classes.join('+')} ${r.verdict}`).sort(), [
    'mcp-remote@0.15.1 node_modules/mcp-remote/dist/chunk-*.js Protocol 2.x patched by register',
    'mcp-remote@0.15.1 node_modules/mcp-remote/dist/proxy.js Protocol 2.x+stdio transport patched by register',
  ]);
  for (const row of bundled) assert.equal(row.checked, false);
  assert.match(result.message, new RegExp(`Found ${19 + cached} SDK build\\(s\\): 17 top-level, 0 nested, ${2 + cached} bundled\\.`));
  assert.match(result.message, new RegExp(`${2 + cached} of ${19 + cached} SDK build\\(s\\) were not checked \\(listed above\\); the 17 that were are fixed\\. This is not an all-clear\\.`));
  assert.doesNotMatch(result.message, /All \d+ SDK build/);
  result.rows = result.rows.filter((r) => r.where !== 'bundled');
  // Found by the name in their package.json: the devDependencies' npm aliases (sdk-1-oldest, ...) too.
  const names = result.rows.map((r) => `${r.name}@${r.version} ${r.build}`).sort();
  // @mcp-use/modelcontextprotocol-sdk: a fork of the 1.x SDK under another name, in the SDK's own layout, run as an installed copy.
  assert.deepEqual(names, [
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4 cjs',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4 esm',
    '@modelcontextprotocol/client@2.0.0 cjs',
    '@modelcontextprotocol/client@2.0.0 esm',
    '@modelcontextprotocol/client@2.4.0 cjs',
    '@modelcontextprotocol/client@2.4.0 esm',
    '@modelcontextprotocol/sdk@1.0.0 esm',
    '@modelcontextprotocol/sdk@1.2.0 cjs',
    '@modelcontextprotocol/sdk@1.2.0 esm',
    '@modelcontextprotocol/sdk@1.23.0 cjs',
    '@modelcontextprotocol/sdk@1.23.0 esm',
    '@modelcontextprotocol/sdk@1.32.2 cjs',
    '@modelcontextprotocol/sdk@1.32.2 esm',
    '@modelcontextprotocol/server@2.0.0 cjs',
    '@modelcontextprotocol/server@2.0.0 esm',
    '@modelcontextprotocol/server@2.4.0 cjs',
    '@modelcontextprotocol/server@2.4.0 esm',
  ]);
  for (const row of result.rows) {
    const label = `${row.name} ${row.build}: ${JSON.stringify(row)}`;
    assert.equal(row.verdict, 'fixed', label);
    assert.equal(row.stock.supported, true, label);
    assert.equal(row.stock.generation, row.name === '@modelcontextprotocol/sdk' || row.name === '@mcp-use/modelcontextprotocol-sdk' ? 1 : 2, label);
    assert.equal(row.stock.side, row.name === '@modelcontextprotocol/server' ? 'server' : 'client', label);
    // Stock: all progress of the all-in-one calls and the last of each last-with-response call is lost.
    assert.ok(row.stock.lost > 0 && row.stock.unknownToken > 0, label);
    assert.equal(row.patched.lost, 0, label);
    assert.equal(row.patched.onerrors, 0, label);
    assert.equal(row.patched.progressReceived, row.patched.progressExpected, label);
  }
  // The human-readable form of the same result.
  const text = report(result, { cwd: ROOT });
  assert.match(text, /\| package +\| version +\| build \| side +\| patchable +\| stock +\| patched +\| verdict \|/);
  assert.match(text, /\| @modelcontextprotocol\/sdk +\| 1\.32\.2 +\| ESM +\| client \| yes \(1\.x\) \| \d+\/\d+ lost, \d+ onerror \| 0\/\d+ lost, 0 onerror \| fixed +\|/);
  assert.match(text, /the 17 that were are fixed/);
});

test('a project with an SDK copy that cannot be patched: says which and why; exit 1', async () => {
  const dir = tempProject();
  const modules = path.join(dir, 'node_modules', '@modelcontextprotocol');
  // A real, supported 1.x SDK next to a "server" package whose Protocol has another shape.
  fs.mkdirSync(modules, { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk'), path.join(modules, 'sdk'), 'junction');
  const fake = path.join(modules, 'server');
  fs.mkdirSync(fake);
  fs.writeFileSync(
    path.join(fake, 'package.json'),
    JSON.stringify({ name: '@modelcontextprotocol/server', version: '3.0.0', exports: { '.': { require: './index.cjs' } } }),
  );
  fs.writeFileSync(
    path.join(fake, 'index.cjs'),
    'class Protocol { connect() {} dispatch() {} }\nclass Server extends Protocol {}\nmodule.exports = { Protocol, Server };\n',
  );
  const { code, stdout, stderr } = await doctor(['doctor'], dir);
  assert.equal(code, 1, stdout + stderr);
  assert.match(stdout, /\| @modelcontextprotocol\/server \| 3\.0\.0 +\| CJS +\| server \| no +\| error +\| not run +\| UNSUPPORTED \|/);
  assert.match(stdout, /\| @modelcontextprotocol\/sdk +\| 1\.32\.2 +\| CJS +\| client \| yes \(1\.x\) \|.*\| fixed +\|/);
  assert.match(stdout, /@modelcontextprotocol\/server@3\.0\.0 \(CJS\): UNSUPPORTED: .*is not supported; its Protocol does not have the shape/);
  assert.match(stdout, /1 of 3 SDK build\(s\) are not fixed by mcp-ordered-dispatch\./);
});

test('a project without any MCP SDK: says so; exit 1', async () => {
  const dir = tempProject();
  const { code, stdout } = await doctor(['doctor'], dir);
  assert.equal(code, 1, stdout);
  assert.match(stdout, /No MCP SDK found from .*: none of @modelcontextprotocol\/sdk, @modelcontextprotocol\/client, @modelcontextprotocol\/server resolves/);
  // --cwd points it at another directory.
  const elsewhere = await doctor(['doctor', '--cwd', dir, '--json'], ROOT);
  assert.equal(elsewhere.code, 1);
  assert.deepEqual(JSON.parse(elsewhere.stdout).rows, []);
});

test('usage errors exit 2', async () => {
  const unknown = await doctor(['cure'], ROOT);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "cure"/);
  const badOption = await doctor(['doctor', '--fast'], ROOT);
  assert.equal(badOption.code, 2);
  assert.match(badOption.stderr, /unknown option --fast/);
  const help = await doctor(['--help'], ROOT);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /mcp-ordered-dispatch doctor \[--cwd=DIR\]/);
});
