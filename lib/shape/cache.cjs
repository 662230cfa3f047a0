'use strict';
// What the search by shape found in a module, cached per content hash
// (sha256) in a directory: MCP_ORDERED_DISPATCH_CACHE_DIR, else one under
// os.tmpdir() that this user owns and only this user can write (a directory
// another user made there is not used). An entry is used only where it names
// class-body braces of this very source; a cache that cannot be read or
// written is passed over (the module is then located again).
// Dependency-free: it also runs on a module.register() loader thread.

const fs = require('node:fs');
const path = require('node:path');

/** Bump when what the locate step finds, or what is inserted, changes: old cache entries are then not read. */
const CACHE_VERSION = 'rewrite-5';
const KINDS = new Set(['protocol', 'stdio']);

function cacheDir() {
  const configured = process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
  if (configured !== undefined && configured !== '') return configured;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(require('node:os').tmpdir(), `mcp-ordered-dispatch-${uid}`, CACHE_VERSION);
}

/**
 * The cache directory, made if need be, or undefined when it is not safe to
 * use: under the shared temp directory every level must be a real directory
 * (no symlink) that this user owns and no one else can write.
 */
function usableCacheDir() {
  const dir = cacheDir();
  const top = path.dirname(dir);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (process.env.MCP_ORDERED_DISPATCH_CACHE_DIR) return dir; // the user's choice
    for (const d of [top, dir]) {
      const st = fs.lstatSync(d);
      if (!st.isDirectory()) return undefined;
      if (typeof process.getuid === 'function' && (st.uid !== process.getuid() || (st.mode & 0o022) !== 0)) return undefined;
    }
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * The SHA-256 of `parts` (strings, UTF-8, or bytes), in hex. Under Bun, Bun's
 * own hasher (the same digest), since loading node:crypto costs a Bun start
 * time (docs/performance.md).
 */
function sha256Hex(...parts) {
  const Hasher = globalThis.Bun?.CryptoHasher;
  const hash = typeof Hasher === 'function' ? new Hasher('sha256') : require('node:crypto').createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

/**
 * The cache key of a module's text (a string, or the UTF-8 bytes it is
 * decoded from: the same key); `proof`: what proved it, besides its classes
 * ('' for nothing more).
 */
function keyOf(text, proof = '') {
  return sha256Hex(CACHE_VERSION, proof, text);
}

/** Whether `kind` and `generation` are a class's as the locate step reports them. */
function validClass(kind, generation) {
  return KINDS.has(kind) && [0, 1, 2].includes(generation);
}

/** Whether a cache entry is one the locate step could have made for `text`: class-body braces, in order, of a known kind. */
function validEntry(at, text) {
  if (!Array.isArray(at)) return false;
  let last = 0;
  for (const entry of at) {
    if (!Array.isArray(entry) || entry.length !== 3) return false;
    const [offset, kind, generation] = entry;
    if (!Number.isInteger(offset) || offset <= last || offset > text.length || text.charCodeAt(offset - 1) !== 123) return false;
    if (!validClass(kind, generation)) return false;
    last = offset;
  }
  return true;
}

/** The insertions cached for `text` under `key` ([[offset, kind, generation]]), or undefined. */
function readCache(key, text) {
  try {
    const dir = usableCacheDir();
    if (dir === undefined) return undefined;
    const value = JSON.parse(fs.readFileSync(path.join(dir, `${key}.json`), 'utf8'));
    return validEntry(value?.at, text) ? value.at : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Write `data` to `file` whole or not at all: into a new temporary file
 * beside it, then renamed over it, so that a reader (another process, a
 * mapped library) never sees it half written. Throws what the writes throw.
 */
function replaceFile(file, data, mode = 0o600) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, data, { flag: 'wx', mode });
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

function writeCache(key, at) {
  try {
    const dir = usableCacheDir();
    if (dir !== undefined) replaceFile(path.join(dir, `${key}.json`), JSON.stringify({ at }));
  } catch {
    // A read-only or missing cache directory: located again next time.
  }
}

module.exports = { cacheDir, usableCacheDir, keyOf, readCache, writeCache, replaceFile, sha256Hex, validClass };
