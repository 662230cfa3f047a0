'use strict';
// SDK copies found by shape, in any module: a bundle (esbuild, webpack,
// rollup, bun), a minified build, a host's own dist/ chunk. Bundlers rename
// the SDK's classes (`var Ao=class{`) and keep them nowhere a module's
// exports or a path would show; what they keep is the classes' property names.
//
// For a module whose source passed the prefilter (lib/adapters/modules.cjs's
// mayDefineSdkClass: it holds the Protocol's or a stdio transport's marker
// names), the locate step (lib/register/locate.cjs, a lexer) finds each class
// body without `extends` whose members make it the SDK's Protocol or a stdio
// transport (lib/adapters/shape.cjs), and a static block is inserted right
// after that body's `{`:
//
//   static{try{typeof globalThis.__mcpOrderedDispatchReach=="function"&&globalThis.__mcpOrderedDispatchReach("protocol",2,"<file>",this)}catch{}}
//
// (the global's name is lib/register/hooks.cjs's REACH_GLOBAL). It runs
// once, as the class is defined, before any instance exists - in a
// `var X = class`, an esbuild lazy-init wrapper, a webpack module closure, a
// rollup or bun chunk, named or anonymous - and hands the class to register
// (lib/register/install-hooks.mjs defines the global on the main thread).
// Without register the block does nothing.
//
// Safe by construction: a module is changed only where the locate step found
// such a class; each changed class, lexed again on its own, must show the
// same members with its block first, and must compile in V8, and a changed
// CommonJS module must compile whole (compiled, not run; see verify());
// any failure returns undefined, and the module loads exactly as it was.
// What the locate step found is cached per content hash (sha256) in a
// directory (MCP_ORDERED_DISPATCH_CACHE_DIR, else one under os.tmpdir() that
// this user owns and only this user can write: a directory another user made
// there is not used); an entry is used only where it names class-body braces
// of this very source, and a cache that cannot be read or written is passed over.
// Dependency-free (it also runs on a module.register() loader thread).

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { locateClasses } = require('./locate.cjs');
const { classOfMembers } = require('../adapters/shape.cjs');

/** Bump when what the locate step finds, or what is inserted, changes: old cache entries are then not read. */
const CACHE_VERSION = 'reach-4';
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

/** Whether a cache entry is one the locate step could have made for `text`: class-body braces, in order, of a known kind. */
function validEntry(at, text) {
  if (!Array.isArray(at)) return false;
  let last = 0;
  for (const entry of at) {
    if (!Array.isArray(entry) || entry.length !== 3) return false;
    const [offset, kind, generation] = entry;
    if (!Number.isInteger(offset) || offset <= last || offset > text.length || text.charCodeAt(offset - 1) !== 123) return false;
    if (!KINDS.has(kind) || ![0, 1, 2].includes(generation)) return false;
    last = offset;
  }
  return true;
}

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

function writeCache(key, at) {
  try {
    const dir = usableCacheDir();
    if (dir === undefined) return;
    const tmp = path.join(dir, `.${key}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify({ at }), { flag: 'wx', mode: 0o600 });
    fs.renameSync(tmp, path.join(dir, `${key}.json`));
  } catch {
    // A read-only or missing cache directory: located again next time.
  }
}

/** Non-ASCII as \u escapes, so the inserted text is plain ASCII whatever the path. */
function asciiJson(value) {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// The global's name (lib/register/hooks.cjs's REACH_GLOBAL), as the hooks passed it.
let GLOBAL = '';

function block(kind, generation, file) {
  return `static{try{typeof globalThis.${GLOBAL}=="function"&&globalThis.${GLOBAL}(${asciiJson(kind)},${generation},${asciiJson(file)},this)}catch{}}`;
}

/** The insertions for the classes `classes` holds: [[offset, kind, generation]], by offset. */
function insertionsOf(classes) {
  const at = [];
  for (const cls of classes) {
    if (cls.extends) continue;
    const found = classOfMembers(cls);
    if (found !== undefined) at.push([cls.open, found.kind, found.generation ?? 0]);
  }
  return at;
}

function apply(text, at, file) {
  let out = '';
  let last = 0;
  for (const [offset, kind, generation] of at) {
    out += text.slice(last, offset) + block(kind, generation, file);
    last = offset;
  }
  return out + text.slice(last);
}

/**
 * Whether `changed` (= apply(text, at)) is still sound. A block is one
 * balanced run of tokens ending in `}`, put right after a class body's `{`:
 * after either brace the lexer reads what follows alike (a `/` starts a
 * regular expression after both), so the rest of the module lexes as it
 * did, and what is left to prove is each changed class itself: lexed on its
 * own, it must be one class with the same members and the block as its
 * first element, and it must compile in V8 as a class expression (compiled,
 * not run).
 */
function verify(before, changed, at, file, format) {
  const vm = require('node:vm');
  const byOpen = new Map(before.map((cls) => [cls.open, cls]));
  let shift = 0;
  for (const [offset, kind, generation] of at) {
    const cls = byOpen.get(offset);
    const inserted = block(kind, generation, file);
    if (cls === undefined || cls.end < 0) return false;
    const start = cls.start + shift;
    const end = cls.end + shift + inserted.length;
    const text = changed.slice(start, end);
    shift += inserted.length;
    const alone = locateClasses(text);
    const top = alone?.[0];
    if (top === undefined || top.start !== 0 || top.end !== text.length || top.extends) return false;
    if (top.methods.size !== cls.methods.size || top.sets.size !== cls.sets.size) return false;
    if (!text.startsWith(inserted, top.open)) return false;
    try {
      new vm.Script(`(${text})`);
    } catch {
      return false;
    }
  }
  // A CommonJS module compiles whole, as Node will wrap it (V8 parses an ES
  // module only to run it, so there the classes above are what is proven).
  if (format === 'commonjs') {
    try {
      const body = changed.startsWith('#!') ? `//${changed.slice(2)}` : changed;
      new vm.Script(`(function (exports, require, module, __filename, __dirname) {${body}\n})`);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The source of a module that passed the prefilter, with a static block in
 * each SDK class it defines, or undefined (none, or any doubt).
 * `source`: a string or bytes; `file`: its path or file: URL (given to
 * register with the class); `format`: 'module' or 'commonjs'; `globalName`:
 * the global the blocks call.
 */
function reachSource(source, file, format, globalName) {
  GLOBAL = globalName;
  try {
    const text = typeof source === 'string' ? source : Buffer.from(source.buffer ?? source, source.byteOffset ?? 0, source.byteLength).toString('utf8');
    const key = crypto.createHash('sha256').update(CACHE_VERSION).update(text).digest('hex');
    let at = readCache(key, text);
    const verified = at !== undefined;
    let classes;
    if (at === undefined) {
      classes = locateClasses(text);
      at = classes === undefined ? [] : insertionsOf(classes);
    }
    if (at.length === 0) {
      if (!verified) writeCache(key, at);
      return undefined;
    }
    const changed = apply(text, at, file);
    if (!verified) {
      // Cached only once proven; proven with this module's file name, the same shape for any.
      if (!verify(classes, changed, at, file, format)) {
        writeCache(key, []);
        return undefined;
      }
      writeCache(key, at);
    }
    return changed;
  } catch {
    return undefined;
  }
}

module.exports = { reachSource, cacheDir };
