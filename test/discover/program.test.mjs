// What a program is, from its files (lib/discover/program.cjs): whether it
// holds an SDK by its own text, by the files and packages it imports with a
// literal specifier (lazily too), and not by a computed one; the answer kept
// in the cache folder while every file it read keeps its identity.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);
let dir;
let programHoldsSdk;

before(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-program-')));
  process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = path.join(dir, 'cache');
  ({ programHoldsSdk } = require('../../lib/discover/program.cjs'));
});
after(() => {
  delete process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Write `files` ({ relative path: text }) under a new folder of `dir`: the folder. */
function tree(name, files) {
  const at = path.join(dir, name);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(at, file)), { recursive: true });
    fs.writeFileSync(path.join(at, file), text);
  }
  return at;
}

test('a program holds an SDK by its text, its own imports (static, lazy, TypeScript\'s), a package that depends on one or bundles one; not by a computed specifier', () => {
  const protocol = fs.readFileSync(require.resolve('@modelcontextprotocol/sdk/shared/protocol.js'));
  const at = tree('programs', {
    'bundle.mjs': protocol,
    'direct.mjs': "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\n",
    'lazy.mjs': "import { execSync } from 'node:child_process';\nexecSync('true');\nconst part = await import('./parts/lazy-part.mjs');\n",
    'parts/lazy-part.mjs': "export { Client } from '@modelcontextprotocol/client';\n",
    'typescript.ts': "import { serve } from './parts/serve.js';\nserve();\n",
    'parts/serve.ts': "import { Server } from '@modelcontextprotocol/server';\nexport function serve() { return Server; }\n",
    'library.cjs': "const { connect } = require('mcp-library');\n",
    'node_modules/mcp-library/package.json': JSON.stringify({ name: 'mcp-library', main: 'index.js', dependencies: { '@modelcontextprotocol/sdk': '^1.0.0' } }),
    'node_modules/mcp-library/index.js': 'module.exports = {};\n',
    'bundled.mjs': "import { query } from 'agent-sdk';\n",
    'node_modules/agent-sdk/package.json': JSON.stringify({ name: 'agent-sdk', type: 'module', exports: { '.': { types: './sdk.d.ts', default: './sdk.mjs' } } }),
    'node_modules/agent-sdk/sdk.mjs': protocol,
    'computed.mjs': "const name = '@modelcontextprotocol/' + 'sdk';\nawait import(name + '/client/index.js');\n",
    'plain.mjs': "import fs from 'node:fs';\nimport { format } from 'date-fns';\nimport './parts/plain-part.mjs';\n",
    'parts/plain-part.mjs': "export const x = require('os');\n",
    'node_modules/date-fns/package.json': JSON.stringify({ name: 'date-fns', main: 'index.js' }),
    'node_modules/date-fns/index.js': 'exports.format = () => {};\n',
  });
  const expected = { 'bundle.mjs': true, 'direct.mjs': true, 'lazy.mjs': true, 'typescript.ts': true, 'library.cjs': true, 'bundled.mjs': true, 'computed.mjs': false, 'plain.mjs': false };
  const found = Object.fromEntries(Object.keys(expected).map((file) => [file, programHoldsSdk(path.join(at, file))]));
  assert.deepEqual(found, expected);
  // Asked again: the same answers, from the cache.
  assert.deepEqual(Object.fromEntries(Object.keys(expected).map((file) => [file, programHoldsSdk(path.join(at, file))])), expected);
  assert.ok(fs.readdirSync(path.join(dir, 'cache')).some((name) => name.startsWith('program-')));
});

test('a kept answer is not served once a file it read changes, even at the same size and modification time', () => {
  const at = tree('changing', {
    'main.mjs': "import './part.mjs';\n",
    'part.mjs': "import 'not-an-sdk-at-all-xyz1234';\n",
  });
  const main = path.join(at, 'main.mjs');
  const part = path.join(at, 'part.mjs');
  assert.equal(programHoldsSdk(main), false);
  const { mtime, atime } = fs.statSync(part);
  fs.writeFileSync(part, "import '@modelcontextprotocol/sdk';\n");
  assert.equal(fs.statSync(part).size, "import 'not-an-sdk-at-all-xyz1234';\n".length);
  fs.utimesSync(part, atime, mtime);
  assert.equal(programHoldsSdk(main), true);
});

test('the repository\'s own test host holds an SDK; this test file\'s runner does not', () => {
  assert.equal(programHoldsSdk(path.join(ROOT, 'test', 'run', 'fixtures', 'host.mjs')), true);
  assert.equal(programHoldsSdk(path.join(ROOT, 'test', 'run', 'fixtures', 'programs', 'launcher.cjs')), false);
});

test('a program naming a file not built yet is not kept as holding none: once the file is there, it is read', () => {
  const at = tree('unbuilt', { 'main.mjs': "import './dist/index.mjs';\n" });
  const main = path.join(at, 'main.mjs');
  assert.equal(programHoldsSdk(main), false);
  fs.mkdirSync(path.join(at, 'dist'));
  fs.writeFileSync(path.join(at, 'dist', 'index.mjs'), "export { Client } from '@modelcontextprotocol/sdk/client/index.js';\n");
  assert.equal(programHoldsSdk(main), true);
});
