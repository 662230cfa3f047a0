'use strict';
// The rewrite's per-file cache (lib/shape/rewrite.cjs, for sources of 256 KiB
// and more): for a module file whose SDK classes were found and proven once, where they are, kept by
// its path and identity (lib/native/file-identity.cjs: device, inode, size,
// modification and change times in ns), so that a later load of the same
// file skips the content hash (and loading node:crypto for it) and the
// content-keyed entry; the prefilter runs first, as for every module. What is
// trusted, and what is checked at each hit (docs/how-it-works.md "The
// per-file cache"): the file's identity now is the one kept, the source
// handed over is as long as the file, and the text around each kept offset
// hashes as it did; any mismatch, and the content-keyed path runs as
// before. Nothing is kept for a file whose identity has no inode or ctime
// (lib/native/file-identity.cjs), nor for a source that is not the file's
// bytes (a loader's output).

const fs = require('node:fs');
const path = require('node:path');

/** The entry's format. */
const VERSION = 1;
/** Characters hashed on each side of a kept offset. */
const WINDOW = 48;

/** FNV-1a over `text` from `start` to `end` (UTF-16 code units), as 8 hex digits. */
function fnv(text, start, end) {
  let h = 0x811c9dc5;
  for (let i = Math.max(0, start); i < Math.min(text.length, end); i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** The hashes of the text around each of `at`'s offsets. */
function windowsOf(text, at) {
  return at.map(([offset]) => fnv(text, offset - WINDOW, offset + WINDOW));
}

/** The absolute path `file` (a path or a file: URL) names, or undefined. */
function pathOf(file) {
  if (typeof file !== 'string') return undefined;
  if (file.startsWith('file:')) {
    try {
      return require('node:url').fileURLToPath(file);
    } catch {
      return undefined;
    }
  }
  return path.isAbsolute(file) ? file : undefined;
}

/** The entry file for `at` (a path) under the rewrite's `proof` and `global`, or undefined without a safe cache folder. */
function entryFileOf(at, proof, global) {
  const cache = require('./cache.cjs');
  const dir = cache.usableCacheDir();
  if (dir === undefined) return undefined;
  const name = `${at}\0${proof}\0${global}`;
  return path.join(dir, `file-${fnv(name, 0, name.length)}${fnv(`${name}\0`, 0, name.length + 1)}.json`);
}

/** The identity of the file at `at` when it is as long as `bytes`, else undefined. */
function identityFor(at, bytes) {
  const stat = fs.statSync(at, { bigint: true, throwIfNoEntry: false });
  if (stat === undefined || !stat.isFile() || Number(stat.size) !== Buffer.byteLength(bytes)) return undefined;
  return require('../native/file-identity.cjs').identityOfStat(stat);
}

/**
 * The classes kept for the module at `file` whose source is `bytes` (a
 * string or a Buffer) and text `text()` (decoded when asked), or undefined.
 */
function keptClasses(file, bytes, text, proof, global) {
  try {
    const at = pathOf(file);
    if (at === undefined) return undefined;
    const entryFile = entryFileOf(at, proof, global);
    if (entryFile === undefined || !fs.existsSync(entryFile)) return undefined;
    const entry = JSON.parse(fs.readFileSync(entryFile, 'utf8'));
    if (entry?.v !== VERSION || entry.path !== at || entry.proof !== proof || entry.global !== global) return undefined;
    if (identityFor(at, bytes) !== entry.identity) return undefined;
    const source = text();
    const { validClass } = require('./cache.cjs');
    if (!Array.isArray(entry.at) || entry.at.length === 0 || !Array.isArray(entry.windows) || entry.windows.length !== entry.at.length) return undefined;
    for (const [offset, kind, generation] of entry.at) {
      if (!Number.isInteger(offset) || offset < 1 || offset > source.length || source.charCodeAt(offset - 1) !== 123 || !validClass(kind, generation)) return undefined;
    }
    const windows = windowsOf(source, entry.at);
    return windows.every((w, i) => w === entry.windows[i]) ? entry.at : undefined;
  } catch {
    return undefined;
  }
}

/** Keep `at` (proven classes of `text`) for the module at `file` whose source is `bytes`. */
function keepClasses(file, bytes, text, at, proof, global) {
  try {
    const where = pathOf(file);
    if (where === undefined || at.length === 0) return;
    const identity = identityFor(where, bytes);
    const entryFile = identity === undefined ? undefined : entryFileOf(where, proof, global);
    if (entryFile === undefined) return;
    const entry = { v: VERSION, path: where, identity, proof, global, at, windows: windowsOf(text, at) };
    require('./cache.cjs').replaceFile(entryFile, JSON.stringify(entry));
  } catch {
    // A cache folder that takes no file: found by content next time.
  }
}

module.exports = { keptClasses, keepClasses };
