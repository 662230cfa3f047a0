'use strict';
// What a program is, from its files (nothing is run): whether it holds an
// SDK. It does when its file defines SDK classes (./holds-sdk.cjs: a bundle),
// or when what it imports by a literal specifier (`import … from`, `export
// … from`, `import '…'`, `import('…')`, `require('…')`) reaches one:
//   - its own files (a relative specifier, TypeScript's too), each read once;
//   - a package it names: an SDK package (@modelcontextprotocol/…), one whose
//     package.json lists an SDK package among its dependencies (an MCP
//     library), or one whose entry file defines SDK classes (a copy bundled
//     in: the Claude Agent SDK). A package's other files are not read.
// A computed specifier is not seen. The answer is kept in the owner-checked
// cache folder (lib/shape/cache.cjs) under the program's path with the
// identity (lib/native/file-identity.cjs) of every file it read: a later
// process pays one stat per such file. A program that names a file or a
// package not there (not built, not installed yet) is read anew each time.

const fs = require('node:fs');
const path = require('node:path');
const { readJson, packageDirFrom } = require('./package-of.cjs');

/** Bounds of one walk: files read, and their bytes. A program past them is taken as holding none. */
const MAX_FILES = 256;
const MAX_BYTES = 256 * 1024 * 1024;
/** The cache entry's format. */
const VERSION = 1;
/** A literal specifier after `from`, `import`, `import(` or `require(`. */
const SPECIFIER = /(?:\bfrom|\bimport\s*\(?|\brequire\s*\()\s*(['"])([^'"\n\\]{1,512})\1/g;
/** The extensions a relative specifier may leave out, and TypeScript's for a `.js` one. */
const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx'];
const TS_TWIN = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };

function isFile(file) {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** The file a relative specifier names from `dir`, or undefined. */
function relativeFile(dir, specifier) {
  const base = path.resolve(dir, specifier);
  const ext = path.extname(base);
  const candidates = [base, ...(TS_TWIN[ext] ?? []).map((twin) => base.slice(0, -ext.length) + twin), ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
  return candidates.find(isFile);
}

/** The entry file of the package at `dir` for `subpath` ('.' or './x'), by its exports (an import's, else a require's) or main. */
function entryOf(dir, json, subpath) {
  const { resolveExport } = require('./discover.cjs');
  const target = resolveExport(json, subpath, 'import') ?? resolveExport(json, subpath, 'require');
  return typeof target === 'string' ? relativeFile(dir, target) : undefined;
}

/** Whether `json` (a package.json) lists an SDK package (of `SDK_SCOPE`) among its dependencies. */
function dependsOnSdk(json, SDK_SCOPE) {
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    const deps = json?.[field];
    if (deps !== null && typeof deps === 'object' && Object.keys(deps).some((name) => name.startsWith(SDK_SCOPE))) return true;
  }
  return false;
}

/**
 * Walk the program whose main file is `file` (a real path): { holds, read
 * (the files read: [[path, identity]]) }.
 */
function walk(file) {
  const { SDK_SCOPE } = require('../adapters/modules.cjs');
  const { textHoldsSdk } = require('./holds-sdk.cjs');
  const { fileIdentity, identityOfStat } = require('../native/file-identity.cjs');
  const { isBuiltin } = require('node:module');
  const read = [];
  const seen = new Set();
  const packages = new Map();
  const queue = [file];
  let bytes = 0;
  const readText = (at) => {
    const stat = fs.statSync(at, { bigint: true });
    if (read.length >= MAX_FILES || bytes + Number(stat.size) > MAX_BYTES) return undefined;
    bytes += Number(stat.size);
    read.push([at, identityOfStat(stat) ?? null]);
    return fs.readFileSync(at);
  };
  const packageHolds = (from, specifier) => {
    const name = specifier.startsWith('@') ? specifier.split('/', 2).join('/') : specifier.split('/', 1)[0];
    if (name.startsWith(SDK_SCOPE)) return true;
    const dir = packageDirFrom(path.dirname(from), name);
    if (dir === undefined) {
      read.push([path.join(path.dirname(from), 'node_modules', name), null]); // not installed yet: the answer is not kept
      return false;
    }
    const key = `${dir}\0${specifier}`;
    if (packages.has(key)) return packages.get(key);
    let holds = false;
    const manifest = path.join(dir, 'package.json');
    if (read.length >= MAX_FILES) return false;
    read.push([manifest, fileIdentity(manifest) ?? null]);
    const json = readJson(manifest);
    if (dependsOnSdk(json, SDK_SCOPE)) holds = true;
    else if (json !== undefined) {
      const entry = entryOf(dir, json, specifier === name ? '.' : `.${specifier.slice(name.length)}`);
      const text = entry === undefined ? undefined : readText(entry);
      holds = text !== undefined && textHoldsSdk(text);
    }
    packages.set(key, holds);
    return holds;
  };
  while (queue.length > 0) {
    const at = queue.shift();
    if (seen.has(at)) continue;
    seen.add(at);
    const text = readText(at);
    if (text === undefined) return { holds: false, read }; // past the bounds: taken as holding none
    if (textHoldsSdk(text)) return { holds: true, read };
    for (const match of text.toString('utf8').matchAll(SPECIFIER)) {
      const specifier = match[2];
      if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
        const next = relativeFile(path.dirname(at), specifier);
        if (next === undefined) read.push([path.resolve(path.dirname(at), specifier), null]); // not built yet: the answer is not kept
        else if (!seen.has(next)) queue.push(next);
      } else if (!specifier.startsWith('node:') && !isBuiltin(specifier) && !/^[a-z][a-z0-9+.-]*:/i.test(specifier) && packageHolds(at, specifier)) {
        return { holds: true, read };
      }
    }
  }
  return { holds: false, read };
}

/** A name for the path `file`: FNV-1a, 2 × 32 bits (the entry names its path; no hash library loads at start for it). */
function nameOf(file) {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < file.length; i++) {
    const c = file.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5 | 1) >>> 0;
  }
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}

/** The cache file for the program at `file`, or undefined where there is no safe cache folder. */
function cacheFileOf(file) {
  const dir = require('../shape/cache.cjs').usableCacheDir();
  return dir === undefined ? undefined : path.join(dir, `program-${nameOf(file)}.json`);
}

/** The answer kept for `file`, while every file it read still has the identity it had; else undefined. */
function cached(cacheFile, file) {
  const { fileIdentity } = require('../native/file-identity.cjs');
  const entry = readJson(cacheFile);
  if (entry?.v !== VERSION || entry.file !== file || typeof entry.holds !== 'boolean' || !Array.isArray(entry.read)) return undefined;
  for (const [at, identity] of entry.read) if (identity === null || fileIdentity(at) !== identity) return undefined;
  return entry.holds;
}

/** Whether the program whose main file is `file` (a real path) holds an SDK; false where it cannot be read. */
function programHoldsSdk(file) {
  try {
    const cacheFile = cacheFileOf(file);
    const kept = cacheFile === undefined ? undefined : cached(cacheFile, file);
    if (kept !== undefined) return kept;
    const { holds, read } = walk(file);
    if (cacheFile !== undefined && read.every(([, identity]) => identity !== null)) {
      try {
        require('../shape/cache.cjs').replaceFile(cacheFile, JSON.stringify({ v: VERSION, file, holds, read }));
      } catch {
        // A cache folder that takes no file: walked again next time.
      }
    }
    return holds;
  } catch {
    return false;
  }
}

/** The most entries a folder may hold for its executables to be read as a launcher's (a package's bin folder). */
const MAX_BESIDE = 32;

/** A Bun-compiled executable holding an SDK in `dir` (not `file`), or undefined; a folder of more than MAX_BESIDE entries is not read. */
function sdkExecutableIn(dir, file) {
  const names = fs.readdirSync(dir);
  if (names.length > MAX_BESIDE) return undefined;
  const { compiledKindOf } = require('./compiled.cjs');
  for (const name of names) {
    const at = path.join(dir, name);
    if (at === file || compiledKindOf(at, { sea: false })?.kind !== 'bun') continue;
    if (require('./bun-graph.cjs').holdsSdkClasses(at) === true) return at;
  }
  return undefined;
}

/** Whether a package.json's `os` or `cpu` list (a name, or `!name` to leave one out) admits `value`. */
function admits(list, value) {
  if (!Array.isArray(list) || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  return list.includes(value) || list.every((entry) => typeof entry === 'string' && entry.startsWith('!'));
}

/** This platform's C library as package.json's `libc` names it (Linux only; elsewhere none is said). */
function libc() {
  if (process.platform !== 'linux') return 'none';
  return require('../native/platform.cjs').platformArchABI().endsWith('-musl') ? 'musl' : 'glibc';
}

/**
 * The Bun-compiled executable holding an SDK that the launcher at `file`
 * (a script holding none: a package's bin launcher) starts, or undefined:
 * one beside it (Kilo's bin/.kilo, which its postinstall puts beside
 * bin/kilo), else one in the bin folder of its package's platform package
 * for this platform (an optional dependency whose `os`, `cpu` and `libc` admit this
 * one: @kilocode/cli-linux-x64's bin/kilo, which bin/kilo finds where no
 * postinstall ran). Folders of more than MAX_BESIDE entries are not read.
 */
function sdkExecutableOfLauncher(file) {
  try {
    const beside = sdkExecutableIn(path.dirname(file), file);
    if (beside !== undefined) return beside;
    const { packageOf } = require('./package-of.cjs');
    const root = packageOf(file)?.root;
    const deps = root === undefined ? undefined : readJson(path.join(root, 'package.json'))?.optionalDependencies;
    if (deps === null || typeof deps !== 'object') return undefined;
    for (const name of Object.keys(deps)) {
      const dir = packageDirFrom(root, name);
      const json = dir === undefined ? undefined : readJson(path.join(dir, 'package.json'));
      if (json === undefined || !admits(json.os, process.platform) || !admits(json.cpu, process.arch) || !admits(json.libc, libc())) continue;
      const bin = path.join(dir, 'bin');
      const found = fs.existsSync(bin) ? sdkExecutableIn(bin, file) : undefined;
      if (found !== undefined) return found;
    }
  } catch {
    // An unreadable folder or package: none.
  }
  return undefined;
}

/**
 * The runners: programs whose work is to start the command a user names,
 * by a package's bin or script, often through a shell (npx and `npm exec`,
 * `npm run`, pnpm's dlx and run, yarn's, corepack's shims) or by watching
 * it (nodemon, tsx, ts-node, concurrently, npm-run-all). By their package's name.
 */
const RUNNERS = new Set(['npm', 'pnpm', 'yarn', '@yarnpkg/cli-dist', 'corepack', 'nodemon', 'concurrently', 'npm-run-all', 'npm-run-all2', 'tsx', 'ts-node']);

/** Whether the script at `file` (a real path) is a runner's (RUNNERS: by its nearest named package.json). */
function isRunner(file) {
  try {
    return RUNNERS.has(require('./package-of.cjs').packageOf(file)?.name);
  } catch {
    return false;
  }
}

module.exports = { programHoldsSdk, sdkExecutableOfLauncher, isRunner };
