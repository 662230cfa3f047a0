// register's V8 code cache of the patcher's modules (lib/register/code-cache.cjs),
// on the Node line this file runs on (`npm test` runs it on every line): a
// process that uses the SDK writes it once, the next compiles nothing it
// holds; a cache file that is corrupt,
// truncated, another user's, or another Node line's is passed over (every
// file compiled as Node would), the SDK is patched all the same, nothing is
// printed, and the next process has a whole cache again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';
import { LINES, installedNode } from '../../scripts/node-lines.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);
const { fileIdentity } = require('../../lib/native/file-identity.cjs');
const REGISTER = path.join(root, 'entries', 'register.cjs');
// A file system that keeps no file identity keeps no code cache: there is nothing to test. Off Linux
// only: every Linux file system the suite runs on (.ci/run's, test:arm64's) keeps one, so there the rows fail instead.
const NO_IDENTITY = process.platform !== 'linux' && fileIdentity(REGISTER) === undefined ? 'this file system keeps no file identity (inode, ctime): no code cache is kept' : false;
// On Windows a code cache is kept only under the user's own %LOCALAPPDATA%: the tests' folders are made there.
const WINDOWS = process.platform === 'win32';
const BASE = WINDOWS ? process.env.LOCALAPPDATA : os.tmpdir();

// An app whose Client is patched, and that says so.
const APP = `
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { Protocol } = require('@modelcontextprotocol/sdk/shared/protocol.js');
  new Client({ name: 'c', version: '1' });
  console.log(JSON.stringify({ patched: require(${JSON.stringify(path.join(root, 'entries', 'index.cjs'))}).isPatched(Protocol) }));
`;

function envFor(dir) {
  const env = { ...process.env, PATH: pathWithThisNode(), MCP_ORDERED_DISPATCH_CACHE_DIR: dir, NODE_DEBUG: 'mcp-ordered-dispatch' };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  return env;
}

/** One process of the app under register with cache folder `dir`: its debug lines sorted out, and whether it patched. */
async function runApp(dir, node = process.execPath) {
  const r = await runCommand(node, ['--require', REGISTER, '-e', APP], { cwd: root, env: envFor(dir) });
  assert.equal(r.code, 0, show(r));
  const lines = r.stderr.split('\n').filter((line) => line !== '');
  const of = (prefix) => lines.filter((line) => line.includes(`: ${prefix} `)).map((line) => line.slice(line.indexOf(prefix) + prefix.length + 1));
  const other = lines.filter((line) => !/: (code cache|compiled|patched)/.test(line));
  assert.deepEqual(other, [], show(r));
  return { r, patched: JSON.parse(r.stdout).patched, hits: of('code cache:'), compiled: of('compiled:'), rejected: of('code cache rejected by V8:'), written: of('code cache written:') };
}

/** The code cache file in `dir`. */
function cacheFileIn(dir) {
  const files = fs.readdirSync(dir).filter((name) => /^code-[0-9a-f]{16}\.bin$/.test(name));
  assert.equal(files.length, 1, `one code cache file in ${dir}: ${files}`);
  return path.join(dir, files[0]);
}

function withDir(fn, base = BASE) {
  return async () => {
    const dir = fs.mkdtempSync(path.join(base, 'mcp-od-code-cache-'));
    try {
      await fn(dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** A first run that writes the cache, and its files. */
async function written(dir) {
  const first = await runApp(dir);
  assert.equal(first.patched, true);
  assert.deepEqual(first.hits, []);
  assert.ok(first.compiled.includes('patch/machinery.cjs') && first.compiled.includes('patch/protocol.cjs'), first.compiled.join(', '));
  // The start path (the hooks, the rewrite's gates) is compiled as Node compiles it.
  assert.ok(!first.compiled.includes('register/hooks.cjs') && !first.compiled.includes('shape/rewrite.cjs'), first.compiled.join(', '));
  assert.equal(first.written.length, 1, show(first.r));
  return first;
}

/** After a cache file that is passed over: every file compiled, patched, the cache whole again for the next process. */
async function passedOver(dir, first) {
  const after = await runApp(dir);
  assert.equal(after.patched, true, show(after.r));
  assert.deepEqual(after.hits, [], show(after.r));
  assert.deepEqual([...after.compiled, ...after.rejected].sort(), [...first.compiled].sort(), show(after.r));
  assert.equal(after.written.length, 1, show(after.r));
  const again = await runApp(dir);
  assert.deepEqual(again.hits.sort(), [...first.compiled].sort(), show(again.r));
  assert.equal(again.patched, true);
  return after;
}

test(`node ${process.version}: the code cache is written once, and the next process compiles none of register's files`, { skip: NO_IDENTITY }, withDir(async (dir) => {
  const first = await written(dir);
  const second = await runApp(dir);
  assert.equal(second.patched, true);
  assert.deepEqual(second.compiled, [], show(second.r));
  assert.deepEqual(second.hits.sort(), [...first.compiled].sort(), show(second.r));
  assert.deepEqual(second.written, [], 'nothing to write: written at most once, where something was compiled');
  if (process.platform !== 'win32') assert.equal(fs.statSync(cacheFileIn(dir)).mode & 0o077, 0, 'the cache file is the user\'s alone');
}));

test(`node ${process.version}: a corrupt code cache (one byte of V8's data changed) is passed over: its two copies differ, nothing is handed to V8`, { skip: NO_IDENTITY }, withDir(async (dir) => {
  const first = await written(dir);
  const file = cacheFileIn(dir);
  const bytes = fs.readFileSync(file);
  // A byte in the middle of the first copy of V8's data (the copy that would be handed to V8).
  const headerLength = bytes.readUInt32LE(0);
  const { length } = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength));
  bytes[4 + headerLength + Math.floor(length / 2)] ^= 0xff;
  fs.writeFileSync(file, bytes);
  const after = await passedOver(dir, first);
  assert.deepEqual(after.rejected, [], 'V8 was handed nothing');
}));

test(`node ${process.version}: a truncated code cache, and one that is not a cache at all, are passed over`, { skip: NO_IDENTITY }, withDir(async (dir) => {
  const first = await written(dir);
  const file = cacheFileIn(dir);
  fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
  await passedOver(dir, first);
  fs.writeFileSync(file, 'not a cache');
  await passedOver(dir, first);
  fs.writeFileSync(file, Buffer.from([0xff, 0xff, 0xff, 0x7f, 1, 2, 3]));
  await passedOver(dir, first);
}));

const FOREIGN = process.platform === 'win32' || process.getuid?.() !== 0
  ? 'needs root to give a file to another user (POSIX)'
  : NO_IDENTITY;
test(`node ${process.version}: a code cache file another user owns, or others may write, is not read`, { skip: FOREIGN }, withDir(async (dir) => {
  const first = await written(dir);
  const file = cacheFileIn(dir);
  fs.chownSync(file, 1, 1);
  await passedOver(dir, first);
  fs.chmodSync(file, 0o622);
  await passedOver(dir, first);
}));

const OTHER_LINE = LINES.find((version) => `v${version}` !== process.version && Number(version.split('.')[0]) !== Number(process.versions.node.split('.')[0]));
test(`node ${process.version}: the code cache another Node line wrote, under this line's name, is rejected by V8 and made again`, { skip: NO_IDENTITY || (WINDOWS && 'the other Node lines are installed from their Linux packages here') }, withDir(async (dir) => {
  const other = path.join(dir, 'other');
  const mine = path.join(dir, 'mine');
  const first = await written(mine);
  const theirs = await runApp(other, installedNode(OTHER_LINE));
  assert.equal(theirs.written.length, 1, show(theirs.r));
  fs.copyFileSync(cacheFileIn(other), cacheFileIn(mine));
  const after = await passedOver(mine, first);
  assert.ok(after.rejected.length > 0, `V8 rejected ${OTHER_LINE}'s data: ${show(after.r)}`);
}));

// (The folder outside it: the git-ignored .tmp folder of this clone's tests, where no temp directory of Windows' is.)
test(`node ${process.version}: on Windows, a cache folder outside %LOCALAPPDATA% keeps no code cache: every file compiled, nothing written`, { skip: (!WINDOWS && 'the folder rule for Windows, where no owner can be checked') || NO_IDENTITY }, withDir(async (dir) => {
  for (let i = 0; i < 2; i++) {
    const r = await runApp(dir);
    assert.equal(r.patched, true);
    assert.deepEqual([r.hits, r.written], [[], []], show(r.r));
    assert.ok(r.compiled.includes('patch/protocol.cjs'), show(r.r));
  }
}, fs.mkdirSync(path.join(root, 'test', '.tmp'), { recursive: true }) ?? path.join(root, 'test', '.tmp')));
