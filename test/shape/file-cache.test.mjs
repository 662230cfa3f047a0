// The rewrite's per-file cache (lib/shape/file-cache.cjs): a large module
// file's classes, kept by path and identity, are served again without the
// content-keyed path (no content hash, no new content entry), give the same
// text, and are not served once the file changes, even at the same size and
// modification time; a corrupt entry, or a source that is not the file's
// bytes, falls back to the content-keyed path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const PROTOCOL = fs.readFileSync(require.resolve('@modelcontextprotocol/sdk/shared/protocol.js'), 'utf8');
const OPTIONS = { global: '__odFileCacheTest' };
let dir;
let cacheDir;
let rewriteSdkClasses;
// A file system that keeps no inode or change time (Wine's) has no file identity: nothing is kept by file there.
let NO_IDENTITY;

before(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-file-cache-')));
  cacheDir = path.join(dir, 'cache');
  process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = cacheDir;
  ({ rewriteSdkClasses } = require('../../lib/shape/rewrite.cjs'));
  fs.writeFileSync(path.join(dir, 'probe'), '');
  NO_IDENTITY = require('../../lib/native/file-identity.cjs').fileIdentity(path.join(dir, 'probe')) === undefined;
});
after(() => {
  delete process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The cache folder's entries: { file: per-file entries, content: content-keyed ones }. */
function entries() {
  const names = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
  return { file: names.filter((n) => n.startsWith('file-')), content: names.filter((n) => !n.startsWith('file-')) };
}
const clearContent = () => entries().content.forEach((name) => fs.rmSync(path.join(cacheDir, name)));

/** A module of over 256 KiB holding the SDK's Protocol: `pad` characters of comment before it. */
const moduleText = (pad, filler = 'x') => `// ${filler.repeat(pad)}\n${PROTOCOL}`;

test('a large module file\'s classes are served by path and identity: the same text, no content hash, no new content entry', (t) => {
  if (NO_IDENTITY) return t.skip('this file system keeps no inode or change time: nothing is kept by file');
  const file = path.join(dir, 'bundle.mjs');
  fs.writeFileSync(file, moduleText(300_000));
  const first = rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS);
  assert.ok(first?.includes(OPTIONS.global), 'rewritten');
  assert.equal(entries().file.length, 1, 'one per-file entry');
  clearContent();
  const again = rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS);
  assert.equal(again, first);
  assert.deepEqual(entries().content, [], 'served without the content-keyed path');
  // By its file: URL, as the ES module hooks name it: another entry (the blocks name the module as given), the same classes.
  assert.ok(rewriteSdkClasses(fs.readFileSync(file), pathToFileURL(file).href, 'module', OPTIONS)?.includes(OPTIONS.global));
});

test('a file rewritten at the same size and modification time is not served from the per-file cache', (t) => {
  if (NO_IDENTITY) return t.skip('this file system keeps no inode or change time: nothing is kept by file');
  const file = path.join(dir, 'changed.mjs');
  fs.writeFileSync(file, moduleText(300_000));
  // A whole second, which utimes sets back to the nanosecond (as npm sets every file's mtime).
  const when = 1_700_000_000;
  fs.utimesSync(file, when, when);
  rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS);
  // Rewritten away from the classes (their offsets and the text around them as they were), the file's size and mtime kept.
  const changed = moduleText(300_000, 'z');
  assert.equal(Buffer.byteLength(changed), Buffer.byteLength(moduleText(300_000)));
  fs.writeFileSync(file, changed);
  fs.utimesSync(file, when, when);
  assert.equal(fs.statSync(file, { bigint: true }).mtimeNs, BigInt(when) * 1_000_000_000n);
  clearContent();
  const served = rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS);
  assert.ok(entries().content.length > 0, 'the content-keyed path ran');
  // What a fresh cache makes of the new bytes.
  process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = path.join(dir, 'fresh');
  try {
    assert.equal(served, rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS));
  } finally {
    process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = cacheDir;
  }
});

test('a corrupt entry, and a source that is not the file\'s bytes, fall back to the content-keyed path', (t) => {
  if (NO_IDENTITY) return t.skip('this file system keeps no inode or change time: nothing is kept by file');
  const file = path.join(dir, 'corrupt.mjs');
  fs.writeFileSync(file, moduleText(300_000));
  const first = rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS);
  for (const name of entries().file) {
    const at = path.join(cacheDir, name);
    const entry = JSON.parse(fs.readFileSync(at, 'utf8'));
    if (entry.path === file) fs.writeFileSync(at, JSON.stringify({ ...entry, at: entry.at.map(([o, k, g]) => [o + 7, k, g]) }));
  }
  clearContent();
  assert.equal(rewriteSdkClasses(fs.readFileSync(file), file, 'module', OPTIONS), first);
  assert.ok(entries().content.length > 0, 'the content-keyed path ran');
  // A loader's output for that file (not its bytes: another length): looked at by content.
  const output = `/* a loader's banner */\n${moduleText(300_000, 'y')}`;
  clearContent();
  const rewritten = rewriteSdkClasses(output, file, 'module', OPTIONS);
  assert.ok(rewritten?.includes('yyyy') && rewritten.includes(OPTIONS.global));
  assert.ok(entries().content.length > 0, 'the content-keyed path ran');
});
