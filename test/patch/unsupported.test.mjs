// An SDK copy whose Protocol does not have a supported shape is refused,
// clearly: install() throws an UnsupportedSdkError naming the package,
// version and build, and patches nothing; register leaves it stock with an
// UnsupportedSdkWarning and the application still runs.
//
// There is no real 1.x older than the oldest supported version (1.0.0, the
// first 1.x release), so the unsupported copy is hand-made: an
// "@modelcontextprotocol/sdk@1.99.0" whose Protocol routes notifications
// through a private method (as a future refactor might) and never looks
// handlers up where the adapter expects.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { preload } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { install, isPatched, UnsupportedSdkError } = require('../../entries/index.cjs');

const PROTOCOL = `class Protocol {
  constructor() { this._notificationHandlers = new Map(); this._progressHandlers = new Map(); }
  connect(transport) { this._transport = transport; transport.onmessage = (m) => this.#route(m); }
  #route(message) { this.handlers?.[message.method]?.(message); }
  _onnotification(notification) { this.#route(notification); }
  _onresponse() {}
  _onrequest() {}
  _onprogress() {}
  _onerror() {}
  setNotificationHandler() {}
  setRequestHandler() {}
}`;

let dir;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-unsupported-'));
  const pkg = path.join(dir, 'node_modules', '@modelcontextprotocol', 'sdk');
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(pkg, rel)), { recursive: true });
    fs.writeFileSync(path.join(pkg, rel), text);
  };
  write(
    'package.json',
    JSON.stringify({
      name: '@modelcontextprotocol/sdk',
      version: '1.99.0',
      type: 'module',
      exports: { './*': { import: './dist/esm/*', require: './dist/cjs/*' } },
    }),
  );
  write('dist/esm/shared/protocol.js', `export ${PROTOCOL}\n`);
  write('dist/cjs/package.json', JSON.stringify({ type: 'commonjs' }));
  write('dist/cjs/shared/protocol.js', `'use strict';\n${PROTOCOL}\nexports.Protocol = Protocol;\n`);
  const report = `console.log(JSON.stringify({ started: true, patched: isPatched(Protocol) }));\n`;
  fs.writeFileSync(
    path.join(dir, 'app.mjs'),
    `import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';\nimport { isPatched } from ${JSON.stringify(pathToFileURL(path.join(root, 'entries', 'index.mjs')).href)};\n${report}`,
  );
  fs.writeFileSync(
    path.join(dir, 'app.cjs'),
    `const { Protocol } = require('@modelcontextprotocol/sdk/shared/protocol.js');\nconst { isPatched } = require(${JSON.stringify(path.join(root, 'entries', 'index.cjs'))});\n${report}`,
  );
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('install() throws UnsupportedSdkError naming the package, version and build, and patches nothing', () => {
  let error;
  assert.throws(
    () => install({ cwd: dir }),
    (e) => {
      error = e;
      return e instanceof UnsupportedSdkError && e.name === 'UnsupportedSdkError';
    },
  );
  assert.match(error.message, /@modelcontextprotocol\/sdk@1\.99\.0 \(ESM build\) is not supported/);
  assert.match(error.message, /@modelcontextprotocol\/sdk@1\.99\.0 \(CJS build\) is not supported/);
  // Each adapter says why it refused (the reasons' wording is the adapters').
  assert.match(error.message, /does not have the shape of a supported MCP SDK \(2\.x: [^;]+; 1\.x: [^)]+\)/);
  assert.match(error.message, /Nothing was patched/);
  const esm = require(path.join(dir, 'node_modules/@modelcontextprotocol/sdk/dist/esm/shared/protocol.js')).Protocol;
  const cjs = require(path.join(dir, 'node_modules/@modelcontextprotocol/sdk/dist/cjs/shared/protocol.js')).Protocol;
  assert.equal(isPatched(esm), false);
  assert.equal(isPatched(cjs), false);
});

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

for (const [flag, entry, app, build] of [
  ['--import', 'entries/register.mjs', 'app.mjs', 'ESM'],
  ['--require', 'entries/register.cjs', 'app.cjs', 'CJS'],
]) {
  test(`register (${flag}) warns about the copy, leaves it stock, and the app runs (${build} build)`, async () => {
    const { code, stdout, stderr } = await run([...preload(flag, path.join(root, entry)), app]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout.trim()), { started: true, patched: false });
    assert.match(stderr, /UnsupportedSdkWarning/);
    assert.match(stderr, new RegExp(`@modelcontextprotocol/sdk@1\\.99\\.0 \\(${build} build\\) is not supported`));
    assert.match(stderr, /It runs unpatched/);
  });
}

test('a 2.x Protocol missing a method the 2.x adapter needs is refused, not patched as 1.x', async () => {
  const { Protocol } = await import('@modelcontextprotocol/client');
  const { patchProtocol, UnsupportedSdkError } = await import('mcp-ordered-dispatch');
  class Lookalike {}
  for (const name of Object.getOwnPropertyNames(Protocol.prototype)) {
    if (name === 'constructor' || name === '_negotiatedWireCodec') continue;
    Object.defineProperty(Lookalike.prototype, name, Object.getOwnPropertyDescriptor(Protocol.prototype, name));
  }
  assert.throws(() => patchProtocol(Lookalike), (e) => e instanceof UnsupportedSdkError && /2\.x gates/.test(e.message));
});
