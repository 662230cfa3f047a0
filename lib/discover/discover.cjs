'use strict';
// Finding the MCP SDK copies an application resolves, and naming them.

const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

// Where each SDK package keeps its Protocol class (the package subpath that
// exports it: 1.x `sdk/shared/protocol.js`, 2.x the package root), the adapter says.
const { SDK_SCOPE, SDK_PACKAGES } = require('../adapters/modules.cjs');
const { readJson } = require('./package-of.cjs');

/** The node_modules directories `base` resolves packages from, nearest first. */
function nodeModulesDirs(base) {
  try {
    return createRequire(path.join(base, 'noop.js')).resolve.paths('x') ?? [];
  } catch {
    return [];
  }
}

function listDir(dir) {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Every package `base` resolves, whatever it is installed as: [{ root, pkg,
 * installedAs }] for each entry of each node_modules directory on the
 * resolution path (a nearer entry shadows a farther one of the same
 * directory name, as require() does) whose package.json `name` is in `names`.
 * So an alias install ("sdk-old": "npm:@modelcontextprotocol/sdk@1.0.0",
 * node_modules/sdk-old/) is found by the name in its package.json.
 */
function packagesNamed(names, base) {
  const wanted = new Set(names);
  const shadowed = new Set();
  const found = [];
  const consider = (dir, entryName) => {
    if (shadowed.has(entryName)) return;
    shadowed.add(entryName);
    const root = path.join(dir, entryName);
    const pkg = readJson(path.join(root, 'package.json'));
    if (!pkg || !wanted.has(pkg.name)) return;
    try {
      found.push({ root: fs.realpathSync(root), pkg, installedAs: entryName });
    } catch {
      // A dangling symlink: nothing to load there.
    }
  };
  for (const dir of nodeModulesDirs(base)) {
    for (const entry of listDir(dir)) {
      if (entry.name.startsWith('.')) continue;
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of listDir(path.join(dir, entry.name))) {
          if (scoped.isDirectory() || scoped.isSymbolicLink()) consider(dir, `${entry.name}/${scoped.name}`);
        }
      } else {
        consider(dir, entry.name);
      }
    }
  }
  return found;
}

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
 * directories: [{ name, version, build, file, root }], without duplicates.
 */
function findSdkCopies(bases) {
  return findSdkFiles(bases, SDK_PACKAGES);
}

/**
 * Like findSdkCopies, for any table of [{ name, subpath, ...extra }] (e.g.
 * lib/stdio/patch.cjs's stdio transport modules): [{ name, version, build, file,
 * root, ...extra }], without duplicates.
 */
function findSdkFiles(bases, packages) {
  const seen = new Set();
  const copies = [];
  const names = [...new Set(packages.map((p) => p.name))];
  for (const base of bases) {
    const found = packagesNamed(names, base);
    for (const { name, subpath, ...extra } of packages) {
      for (const { root, pkg, installedAs } of found) {
        if (pkg.name !== name) continue;
        for (const [build, condition] of [
          ['esm', 'import'],
          ['cjs', 'require'],
        ]) {
          const target = resolveExport(pkg, subpath, condition);
          if (!target) continue;
          const file = path.join(root, target);
          if (seen.has(file) || !fs.existsSync(file)) continue;
          seen.add(file);
          const copy = { ...extra, name, version: pkg.version, build, file, root };
          if (installedAs !== name) copy.installedAs = installedAs;
          copies.push(copy);
        }
      }
    }
  }
  return copies;
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

module.exports = { findSdkCopies, findSdkFiles, packagesNamed, defaultBases, resolveExport };
