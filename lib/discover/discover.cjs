'use strict';
// Finding the MCP SDK copies an application resolves, and naming them: the
// packages installed beneath it (lib/discover/node-modules.cjs walks their
// directories), their exports resolved to the SDK's modules, Deno's npm cache,
// and the bundles that define an SDK class by shape.

const fs = require('node:fs');
const path = require('node:path');

// Where each SDK package keeps its Protocol class (the package subpath that
// exports it: 1.x `sdk/shared/protocol.js`, 2.x the package root), the adapter says.
const { SDK_SCOPE, SDK_PACKAGES, mayDefineSdkClass } = require('../adapters/modules.cjs');
const { readJson } = require('./package-of.cjs');
const { listDir, isDirectory, walkDirs, packageDirsUnder, packagesNamed } = require('./node-modules.cjs');

/** Resolve an `exports` target for one condition set ('import' or 'require'). */
function resolveTarget(target, condition) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const r = resolveTarget(t, condition);
      if (r) return r;
    }
    return undefined;
  }
  if (target && typeof target === 'object') {
    for (const [key, value] of Object.entries(target)) {
      if (key === condition || key === 'node' || key === 'default') {
        const r = resolveTarget(value, condition);
        if (r) return r;
      }
    }
  }
  return undefined;
}

function resolveExport(pkg, subpath, condition) {
  const exp = pkg.exports;
  if (exp === undefined) return subpath === '.' ? pkg.main ?? './index.js' : subpath;
  const map = typeof exp === 'string' || Array.isArray(exp) || !Object.keys(exp).some((k) => k.startsWith('.')) ? { '.': exp } : exp;
  if (map[subpath] !== undefined) return resolveTarget(map[subpath], condition);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      const middle = subpath.slice(prefix.length, subpath.length - suffix.length);
      const target = resolveTarget(value, condition);
      return target?.replaceAll('*', middle);
    }
  }
  return undefined;
}

/**
 * Every SDK build (package x ESM/CJS) resolvable from the given base
 * directories, or installed beneath what they resolve (a dependency's own
 * copy, `nested: true`): [{ name, version, build, file, root, nested? }], without duplicates;
 * `truncated` on the array when the walk into nested node_modules stopped at a bound.
 */
function findSdkCopies(bases) {
  return findSdkFiles(bases, SDK_PACKAGES);
}

/**
 * An SDK fork published under another name (`@mcp-use/modelcontextprotocol-sdk`):
 * the name of the SDK package whose layout `pkg` (at `root`) has, when the
 * module that package's Protocol lives in resolves in it too and its text
 * carries the Protocol's markers; else undefined. Only packages that export
 * that very subpath are read.
 */
function forkOf(pkg, root) {
  for (const { name, subpath } of SDK_PACKAGES) {
    if (subpath === '.') continue; // every package exports '.': no layout to tell a fork by
    const target = resolveExport(pkg, subpath, 'import') ?? resolveExport(pkg, subpath, 'require');
    if (target === undefined) continue;
    try {
      if (mayDefineSdkClass(fs.readFileSync(path.join(root, target)), false)) return name;
    } catch {
      // Not there: not a fork.
    }
  }
  return undefined;
}

/**
 * Like findSdkCopies, for any table of [{ name, subpath, ...extra }] (e.g.
 * lib/patch/transports.cjs's stdio transport modules): [{ name, version, build, file,
 * root, ...extra }], without duplicates.
 */
function findSdkFiles(bases, packages) {
  const seen = new Set();
  const copies = [];
  const names = [...new Set(packages.map((p) => p.name))];
  const places = bases.map((base) => () => packagesNamed(names, base, { forks: forkOf }));
  // Deno runs `npm:` specifiers from its own cache, with no node_modules.
  if (process.versions.deno !== undefined) places.push(() => denoCachePackages(names));
  for (const place of places) {
    const found = place();
    if (found.truncated) copies.truncated = true;
    for (const { name, subpath, ...extra } of packages) {
      for (const { root, pkg, installedAs, installedAt, nested, forkOf: fork, denoCache } of found) {
        if ((fork ?? pkg.name) !== name) continue;
        for (const [build, condition] of [
          ['esm', 'import'],
          ['cjs', 'require'],
        ]) {
          const target = resolveExport(pkg, subpath, condition);
          if (!target) continue;
          const file = path.join(root, target);
          if (seen.has(file) || !fs.existsSync(file)) continue;
          seen.add(file);
          const copy = { ...extra, name: pkg.name, version: pkg.version, build, file, root };
          if (fork !== undefined) copy.forkOf = fork;
          // Loadable only when this process's npm resolution has it: install() skips one that is not.
          if (denoCache) copy.denoCache = true;
          if (installedAs !== pkg.name) copy.installedAs = installedAs;
          if (nested) Object.assign(copy, { nested: true, installedAt });
          copies.push(copy);
        }
      }
    }
  }
  return copies;
}

/**
 * Deno's npm cache (`$DENO_DIR/npm`, by default under the user's cache
 * directory), where `npm:` specifiers load from when there is no node_modules.
 */
function denoNpmCache(env = process.env, platform = process.platform, home = require('node:os').homedir()) {
  if (env.DENO_DIR) return path.join(path.resolve(env.DENO_DIR), 'npm');
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'deno', 'npm');
  if (platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'deno', 'npm');
  return path.join(env.XDG_CACHE_HOME ?? path.join(home, '.cache'), 'deno', 'npm');
}

/**
 * Every version of the packages `names` in Deno's npm cache: [{ root, pkg,
 * installedAs, denoCache: true }] (each registry's folder, each version's).
 * Deno loads a cached package only when the process's npm resolution has it
 * (other versions throw "Could not find referrer npm package"), so a copy
 * from here that does not load is not the application's.
 */
function denoCachePackages(names, cache = denoNpmCache()) {
  const found = [];
  for (const registry of listDir(cache)) {
    if (!registry.isDirectory()) continue;
    for (const name of names) {
      const dir = path.join(cache, registry.name, ...name.split('/'));
      for (const version of listDir(dir)) {
        if (!version.isDirectory()) continue;
        const root = path.join(dir, version.name);
        const pkg = readJson(path.join(root, 'package.json'));
        if (pkg?.name === name) found.push({ root, pkg, installedAs: name, denoCache: true });
      }
    }
  }
  return found;
}

/** The directories install() and register search from: the working directory and the main module's. */
function defaultBases() {
  const bases = [process.cwd()];
  const main = require.main?.filename ?? process.argv[1];
  if (main) {
    try {
      bases.push(path.dirname(fs.realpathSync(main)));
    } catch {
      bases.push(path.dirname(path.resolve(main)));
    }
  }
  return bases;
}

module.exports = { findSdkCopies, findSdkFiles, packageDirsUnder, defaultBases, resolveExport, denoNpmCache };

// ---- bundled copies: SDK classes inside other files (found by shape) ----

// Bounds on the search for bundled copies: files looked at, and the size of one file.
const MAX_BUNDLE_SEARCH_FILES = 100_000;
const MAX_BUNDLE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Every file of the project at `base` and of the packages beneath it (any
 * depth of node_modules) that defines an SDK class by shape - a bundle, a
 * minified build, a host's dist/ chunk - outside the SDK's own packages
 * (a Protocol class, with any stdio transports the same file defines):
 * [{ name, version, build, file, root, bundled: true, generation, classes:
 * ['protocol' | 'stdio', ...], builtIn }] (`builtIn`: the file holds the
 * build-time global, lib/shape/globals.cjs's BUILT_GLOBAL: its classes were
 * patched when it was built). What register's load hooks do to every
 * module (lib/adapters/modules.cjs's prefilter, then lib/shape/sdk-classes.cjs),
 * done to files on disk. Returns { copies, truncated }.
 */
function findBundledCopies(base) {
  const { mayDefineSdkClass } = require('../adapters/modules.cjs');
  const { sdkClassesIn } = require('../shape/sdk-classes.cjs');
  const { BUILT_GLOBAL } = require('../shape/globals.cjs');
  const { isSdkModuleFile, packageOf, buildOf } = require('./package-of.cjs');
  const copies = [];
  let budget = MAX_BUNDLE_SEARCH_FILES;
  let truncated = false;
  /** One file: a copy when it defines a Protocol by shape (with any stdio transports beside it). */
  const look = (file) => {
    let source;
    try {
      if (fs.statSync(file).size > MAX_BUNDLE_FILE_BYTES) return;
      source = fs.readFileSync(file);
    } catch {
      return;
    }
    if (!mayDefineSdkClass(source) || isSdkModuleFile(file)) return;
    const classes = sdkClassesIn(source) ?? [];
    const protocol = classes.find((c) => c.kind === 'protocol');
    if (protocol === undefined) return;
    const pkg = packageOf(file);
    // An installed fork of the SDK is an installed copy (findSdkCopies), not a bundle.
    if (pkg !== undefined && forkOf(readJson(path.join(pkg.root, 'package.json')) ?? {}, pkg.root) !== undefined) return;
    copies.push({
      name: pkg?.name ?? path.basename(file),
      version: pkg?.version,
      build: buildOf(file, source),
      file,
      root: pkg?.root ?? path.dirname(file),
      bundled: true,
      generation: protocol.generation,
      classes: classes.map((c) => (c.kind === 'protocol' ? `Protocol ${c.generation}.x` : 'stdio transport')),
      builtIn: source.indexOf(BUILT_GLOBAL) >= 0,
    });
  };
  const visit = (dir) => {
    const subdirs = [];
    for (const entry of listDir(dir)) {
      if (budget <= 0) {
        truncated = true;
        break;
      }
      const file = path.join(dir, entry.name);
      if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(file))) {
        if (entry.name !== '.git') subdirs.push(file);
      } else if (/\.[cm]?js$/.test(entry.name)) {
        budget--;
        look(file);
      }
    }
    return subdirs;
  };
  walkDirs(base, 0, visit, new Set());
  return { copies, truncated };
}

module.exports.findBundledCopies = findBundledCopies;
