'use strict';
// The executable index: a Bun-compiled executable's embedded modules, so that a
// later start of the same executable reads no module it read before but the
// ones that hold SDK classes (which are read to be patched): for each
// embedded module register decided, 0 (no SDK class) or { format, bytes }
// (SDK classes: the format they were patched as, the source's length). Kept
// per executable, keyed by its identity (the path, size, mtime, ctime, inode
// and device of process.execPath, the Bun version inside it, and this
// package's version), in the search by shape's cache directory
// (lib/shape/cache.cjs: this user's own, never another's; the cache version
// in its path), written whole or not at all (its replaceFile()) at exit
// when it changed. A module with SDK classes is read and patched as ever:
// its classes' places are the content cache's, checked against its own text
// (and its decision indexed again); an index whose identity or entries do
// not hold is passed over, every module then decided again. With NODE_DEBUG=mcp-ordered-dispatch, one line at exit
// counts the modules read and those the index decided.

const fs = require('node:fs');
const path = require('node:path');
const { sourceWithMarkers } = require('./bun-shared.cjs');
const { validPlan } = require('./bun-bytecode.cjs');

/** What this process did: embedded modules read and searched (not indexed), read to be patched (indexed), decided by the index without a read; with SDK classes, run from their bytecode behind a facade (lib/register/bun-bytecode.cjs). */
const counts = { scanned: 0, patched: 0, indexed: 0, bytecode: 0 };
// { file, identity, modules, changed }, null (no index here), or undefined (not opened yet).
let index;

/** The index's key: this executable's path and identity (lib/native/file-identity.cjs), Bun's and this package's versions; undefined where the file has no identity. */
function indexKeyOf(exe = process.execPath) {
  const identity = require('../native/file-identity.cjs').fileIdentity(exe);
  if (identity === undefined) return undefined;
  const { PKG } = require('../native/platform.cjs');
  return JSON.stringify([exe, identity, process.versions.bun, PKG.version]);
}

/**
 * Whether `value` is an indexed decision: 0 (no SDK class), or { format,
 * bytes } with, for an ES chunk, `walk` (what the walk of its imports
 * allowed) and, where it runs from its bytecode, `facade` (the facade's plan,
 * lib/register/bun-bytecode.cjs's) and `size` (its file's, checked before
 * the plan is used).
 */
function validDecision(value) {
  if (value === 0) return true;
  return value !== null && typeof value === 'object' && (value.format === 'module' || value.format === 'commonjs') && Number.isInteger(value.bytes) && value.bytes > 0 &&
    (value.walk === undefined || typeof value.walk === 'boolean') &&
    (value.facade === undefined || (validPlan(value.facade) && Number.isInteger(value.size) && value.size > 0));
}

/** Open this executable's index (at start, once): its decisions, or a new one. Never throws. */
function openIndex() {
  if (index !== undefined) return;
  index = null;
  const cache = require('../shape/cache.cjs');
  const dir = cache.usableCacheDir();
  const identity = indexKeyOf();
  if (dir === undefined || identity === undefined) return;
  const file = path.join(dir, `bun-exe-${cache.sha256Hex(identity)}.json`);
  let modules = Object.create(null);
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (stored?.identity === identity && stored.modules !== null && typeof stored.modules === 'object') {
      for (const [name, value] of Object.entries(stored.modules)) if (validDecision(value)) modules[name] = value;
    }
  } catch {
    modules = Object.create(null); // none yet, or unreadable: a new one
  }
  index = { file, identity, modules, changed: false };
  process.once('exit', saveIndex);
}

/** What the index says of embedded module `file`: false (no SDK class: not read), { format, bytes }, or undefined (not indexed). */
function indexed(file) {
  const value = index?.modules[file];
  if (value === undefined) return undefined;
  if (value === 0) {
    counts.indexed++;
    return false;
  }
  return value;
}

/**
 * What the index knows of embedded module `file` (`known`: indexed()'s
 * answer) and its source when it must be read (not indexed as holding no
 * SDK class, and holding the prefilter's markers): { known, source }; or,
 * for a chunk indexed as run behind a facade (lib/register/bun-bytecode.cjs)
 * whose size is still the one indexed, { known, facade (its plan) } without a read.
 */
function readUnlessIndexed(file) {
  const known = indexed(file);
  if (known?.facade !== undefined && sizeOf(file) === known.size) {
    counts.indexed++;
    return { known, facade: known.facade };
  }
  return { known, source: known === false ? undefined : sourceWithMarkers(file) };
}

/** The size of `file` in bytes, or undefined. */
function sizeOf(file) {
  try {
    return fs.statSync(file).size;
  } catch {
    return undefined;
  }
}

/**
 * Note that `file` was read (`source`; `known`: what indexed() said of it),
 * and what it was found to hold: `format` when it has SDK classes, else undefined.
 */
function noteRead(file, source, format, known) {
  if (known === undefined) counts.scanned++;
  else counts.patched++;
  if (index === null || index === undefined) return;
  const value = format === undefined ? 0 : { format, bytes: source.length };
  const old = index.modules[file];
  if (old === value || (old !== undefined && old !== 0 && value !== 0 && old.format === value.format && old.bytes === value.bytes)) return;
  index.modules[file] = value;
  index.changed = true;
}

/** Count a chunk with SDK classes run from its bytecode (the debug line). */
function noteBytecode() {
  counts.bytecode++;
}

/** Keep in the index the plan of the facade SDK chunk `file` runs behind (lib/register/bun-bytecode.cjs): the next start makes it without reading the chunk. */
function noteFacade(file, plan) {
  const value = index?.modules[file];
  if (value === undefined || value === 0) return;
  const size = sizeOf(file);
  if (size === undefined || size === 0 || (JSON.stringify(value.facade) === JSON.stringify(plan) && value.size === size)) return;
  value.facade = plan;
  value.size = size;
  index.changed = true;
}

/** Keep in the index what the walk of SDK chunk `file`'s imports allowed (lib/register/bun-bytecode.cjs): read again only with the chunk. */
function noteWalk(file, allowed) {
  const value = index?.modules[file];
  if (value === undefined || value === 0 || value.walk === allowed) return;
  value.walk = allowed;
  index.changed = true;
}

/** At exit: the index written when it changed; the debug line. */
function saveIndex() {
  try {
    if (index?.changed) {
      const { replaceFile } = require('../shape/cache.cjs');
      replaceFile(index.file, JSON.stringify({ identity: index.identity, modules: index.modules }));
    }
  } catch {
    // A cache directory that takes no file: decided again next time.
  }
  if (/\bmcp-ordered-dispatch\b/.test(process.env.NODE_DEBUG ?? '')) {
    require('node:util').debuglog('mcp-ordered-dispatch')('bun executable index: %d embedded modules scanned, %d read to be patched, %d decided by the index alone; %d with SDK classes run from their bytecode', counts.scanned, counts.patched, counts.indexed, counts.bytecode);
  }
}

module.exports = { openIndex, readUnlessIndexed, noteRead, noteWalk, noteFacade, noteBytecode };
