'use strict';
// The patcher's CommonJS modules (what lib/patch/receiver.cjs loads at an SDK
// class's first use, and every lib/ file those require, at once or later)
// loaded with a V8 code cache, on Node: what every MCP host and server that
// register reaches runs at its first use of the SDK is not parsed and
// compiled again at each start (docs/performance.md). The start path
// (lib/register/hooks.cjs and the rewrite's gates, which every process runs)
// is compiled as Node compiles it: there a cache costs more than it saves.
// Each file is still the module Node
// would make of it (one Module in Node's require cache, by the same path:
// install() and register in one process share every module), compiled by
// vm.Script with the cached data V8 made of it in an earlier process.
//
// One cache file per Node version, architecture, flags and lib/ folder, in
// the search by shape's folder (lib/shape/cache.cjs: owned by this user,
// writable by no one else; on Windows only under the user's own local
// application data folder). What is trusted, and checked at each start
// (docs/how-it-works.md "The code cache"): the cache file is this user's and
// no one else's to write (as its folder), its data is written twice and both
// copies are the same (V8 does not check its own data: a changed byte would
// run; a hash would cost more than the cache saves), and each
// file's identity (lib/native/file-identity.cjs) is the one kept with its
// data; V8 checks its own version and flags. Anything else, and the file is
// compiled as Node would. It is written at most once per process, when some
// file was compiled without it: by a temporary file and a rename, after the
// turn that compiled it (an unref'd immediate), or as the process exits
// where it ends first. Not used where register runs in another module system
// (Jest's, Vitest's), nor on Bun and Deno.

const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/** The cache file's format: bump when it changes. */
const FORMAT = 'code-2';
/** Node's CommonJS wrapper, on the first line, as Node wraps a module. */
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n})';
const LIB = path.join(__dirname, '..') + path.sep;
const DYNAMIC = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;

// What this process compiled: file -> { script, identity, hit }.
const compiled = new Map();
// The cache file read: { file, entries: Map(relative path -> { identity, data }) }; null: none usable.
let cache;
let scheduled = false;

/** NODE_DEBUG=mcp-ordered-dispatch's line (lib/warnings/warnings.cjs loaded only where NODE_DEBUG is set). */
function debug(...args) {
  require('../warnings/warnings.cjs').debugLog()?.(...args);
}

/** FNV-1a over `text`, as 8 hex digits. */
function fnv(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}


/** The folder the code cache may live in, or undefined. */
function cacheFolder() {
  const dir = require('../shape/cache.cjs').usableCacheDir();
  if (dir === undefined || process.platform !== 'win32') return dir;
  const local = process.env.LOCALAPPDATA;
  if (!local || !path.isAbsolute(local)) return undefined;
  const relative = path.relative(path.resolve(local), path.resolve(dir));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? dir : undefined;
}

/** This process's cache file name: its Node, architecture, flags and lib/ folder. */
function cacheName() {
  const key = [FORMAT, process.version, process.arch, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? '', LIB].join('\0');
  return `code-${fnv(key)}${fnv(`${key}\0`)}.bin`;
}

/** Whether the open file `fd` is this user's and no one else can write it (POSIX; on Windows its folder decides). */
function ownedBySelf(stat) {
  if (!stat.isFile()) return false;
  if (typeof process.getuid !== 'function') return true;
  return stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
}

/** The entries of a cache file's bytes, or undefined when they do not hold together. */
function parse(bytes) {
  if (bytes.length < 4) return undefined;
  const headerLength = bytes.readUInt32LE(0);
  if (headerLength > bytes.length - 4) return undefined;
  const header = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength));
  if (header?.format !== FORMAT || !Number.isInteger(header.length) || typeof header.files !== 'object' || header.files === null) return undefined;
  // The data, and its copy: the same bytes, or none of it is used.
  const body = bytes.subarray(4 + headerLength, 4 + headerLength + header.length);
  if (4 + headerLength + 2 * header.length !== bytes.length || !body.equals(bytes.subarray(4 + headerLength + header.length))) return undefined;
  const entries = new Map();
  for (const [name, [identity, offset, length]] of Object.entries(header.files)) {
    if (typeof identity !== 'string' || !Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || offset + length > body.length) return undefined;
    entries.set(name, { identity, data: body.subarray(offset, offset + length) });
  }
  return entries;
}

/** The entries of cache file `file` (empty where there is none, or none to trust). */
function entriesOf(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return new Map();
  }
  try {
    return (ownedBySelf(fs.fstatSync(fd)) ? parse(fs.readFileSync(fd)) : undefined) ?? new Map();
  } catch {
    return new Map();
  } finally {
    fs.closeSync(fd);
  }
}

/** The cache file read once: null where there is none to use. */
function readCache() {
  if (cache !== undefined) return cache;
  cache = null;
  try {
    const dir = cacheFolder();
    if (dir !== undefined) cache = { file: path.join(dir, cacheName()), entries: entriesOf(path.join(dir, cacheName())) };
  } catch {
    cache = null;
  }
  return cache;
}

/** The name a file is kept by in the cache. */
function nameOf(file) {
  return path.relative(LIB, file).split(path.sep).join('/');
}

/** The source of own file `file` and its identity, read from one open file. */
function readOwn(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const stat = fs.fstatSync(fd, { bigint: true });
    const identity = require('../native/file-identity.cjs').identityOfStat(stat);
    return { source: fs.readFileSync(fd, 'utf8'), identity };
  } finally {
    fs.closeSync(fd);
  }
}

/** The function Node's wrapper makes of own file `file`, compiled with its cached data where it holds. */
function compile(file) {
  const { source, identity } = readOwn(file);
  const kept = identity === undefined ? undefined : readCache()?.entries.get(nameOf(file));
  const cachedData = kept !== undefined && kept.identity === identity ? kept.data : undefined;
  const options = { filename: file, cachedData };
  if (DYNAMIC !== undefined) options.importModuleDynamically = DYNAMIC;
  const script = new vm.Script(`${HEAD}${source}${TAIL}`, options);
  const hit = cachedData !== undefined && script.cachedDataRejected === false;
  compiled.set(file, { script, identity, hit });
  if (process.env.NODE_DEBUG) debug('%s %s', hit ? 'code cache:' : cachedData === undefined ? 'compiled:' : 'code cache rejected by V8:', nameOf(file));
  if (!hit && identity !== undefined) scheduleWrite();
  return script.runInThisContext();
}

/** The require() own module `m` is given: own files through this loader, everything else as Node's. */
function requireOf(m) {
  const dir = path.dirname(m.filename);
  function require(id) {
    if (typeof id === 'string' && id.endsWith('.cjs') && (id.startsWith('./') || id.startsWith('../'))) {
      const file = path.resolve(dir, id);
      if (file.startsWith(LIB)) return loadOwn(file, m);
    }
    return m.require(id);
  }
  require.resolve = (request, options) => Module._resolveFilename(request, m, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, m);
  require.main = process.mainModule;
  require.cache = Module._cache;
  require.extensions = Module._extensions;
  return require;
}

/** The exports of own file `file` (an absolute path under lib/), loaded once per process as Node would, with the code cache. */
function loadOwn(file, parent) {
  const cached = Module._cache[file];
  if (cached !== undefined) return cached.exports;
  const m = new Module(file, parent);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  Module._cache[file] = m;
  let loaded = false;
  try {
    compile(file).call(m.exports, m.exports, requireOf(m), m, file, path.dirname(file));
    loaded = true;
  } finally {
    if (!loaded) delete Module._cache[file];
  }
  m.loaded = true;
  return m.exports;
}

/** Write the cache once per process: after this turn where the process goes on, else as it exits. */
function scheduleWrite() {
  if (scheduled) return;
  scheduled = true;
  const once = () => {
    process.removeListener('exit', once);
    clearImmediate(immediate);
    writeCache();
  };
  const immediate = setImmediate(once).unref();
  process.on('exit', once);
}

/** The cache file's bytes for what this process compiled, with the entries kept for files it did not. */
function cacheBytes(kept) {
  const files = {};
  const parts = [];
  let offset = 0;
  const add = (name, identity, data) => {
    files[name] = [identity, offset, data.length];
    parts.push(data);
    offset += data.length;
  };
  for (const [file, { script, identity }] of compiled) if (identity !== undefined) add(nameOf(file), identity, script.createCachedData());
  for (const [name, { identity, data }] of kept) if (!Object.hasOwn(files, name)) add(name, identity, data);
  const body = Buffer.concat(parts);
  const header = Buffer.from(JSON.stringify({ format: FORMAT, length: body.length, files }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length, 0);
  return Buffer.concat([length, header, body, body]);
}

/** Write the cache file (whole or not at all); a folder that takes none is passed over. */
function writeCache() {
  try {
    const read = readCache();
    if (read === null) return;
    // What another process wrote since is kept too.
    require('../shape/cache.cjs').replaceFile(read.file, cacheBytes(entriesOf(read.file)));
    if (process.env.NODE_DEBUG) debug('code cache written: %s', read.file);
  } catch {
    // Compiled again next time.
  }
}

/**
 * What lib/patch/receiver.cjs loads the patcher with (`load(file)`, a file
 * of lib/: 'patch/machinery.cjs'): with the code cache, where it may be used
 * (Node's own module system: `nodeRequire` is Node's require()); undefined
 * elsewhere (Bun, Deno, a test runner's sandbox).
 */
function ownLoader(nodeRequire) {
  if (process.versions.bun !== undefined || process.versions.deno !== undefined) return undefined;
  // Node's own module system only: a test runner's sandbox (Vitest's vm pools) gives a `module` and a node:module of its own.
  if (typeof Module !== 'function' || !(module instanceof Module) || typeof Module._nodeModulePaths !== 'function' || nodeRequire.cache !== Module._cache) return undefined;
  return (file) => loadOwn(path.join(LIB, ...file.split('/')), module);
}

module.exports = { ownLoader };
