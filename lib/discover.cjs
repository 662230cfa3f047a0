'use strict';
// Finding the MCP SDK copies an application resolves, and naming them.

const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

// Where each SDK package keeps its Protocol class: the package subpath that
// exports it (1.x: `sdk/shared/protocol.js`; 2.x: the package root).
const SDK_PACKAGES = [
  { name: '@modelcontextprotocol/sdk', subpath: './shared/protocol.js' },
  { name: '@modelcontextprotocol/client', subpath: '.' },
  { name: '@modelcontextprotocol/server', subpath: '.' },
];

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The package root that `name` resolves to from `base`, ignoring `exports` (which may hide package.json). */
function packageRoot(name, base) {
  let paths;
  try {
    paths = createRequire(path.join(base, 'noop.js')).resolve.paths(name) ?? [];
  } catch {
    return undefined;
  }
  for (const dir of paths) {
    const root = path.join(dir, name);
    const pkg = readJson(path.join(root, 'package.json'));
    if (pkg && pkg.name === name) return { root: fs.realpathSync(root), pkg };
  }
  return undefined;
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
 * Every SDK build (package × ESM/CJS) resolvable from the given base
 * directories: [{ name, version, build, file, root }], without duplicates.
 */
function findSdkCopies(bases) {
  return findSdkFiles(bases, SDK_PACKAGES);
}

/**
 * Like findSdkCopies, for any table of [{ name, subpath, ...extra }] (e.g.
 * lib/stdio.cjs's stdio transport modules): [{ name, version, build, file,
 * root, ...extra }], without duplicates.
 */
function findSdkFiles(bases, packages) {
  const seen = new Set();
  const copies = [];
  for (const base of bases) {
    for (const { name, subpath, ...extra } of packages) {
      const found = packageRoot(name, base);
      if (!found) continue;
      for (const [build, condition] of [
        ['esm', 'import'],
        ['cjs', 'require'],
      ]) {
        const target = resolveExport(found.pkg, subpath, condition);
        if (!target) continue;
        const file = path.join(found.root, target);
        if (seen.has(file) || !fs.existsSync(file)) continue;
        seen.add(file);
        copies.push({ ...extra, name, version: found.pkg.version, build, file, root: found.root });
      }
    }
  }
  return copies;
}

/** Name the package a module file belongs to: { name, version } of the nearest package.json with a name. */
function packageOf(file) {
  let dir = path.dirname(file);
  for (;;) {
    const pkg = readJson(path.join(dir, 'package.json'));
    if (pkg && typeof pkg.name === 'string') return { name: pkg.name, version: pkg.version, root: dir };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function buildOf(file) {
  if (file.endsWith('.mjs')) return 'esm';
  if (file.endsWith('.cjs')) return 'cjs';
  let dir = path.dirname(file);
  for (;;) {
    const pkg = readJson(path.join(dir, 'package.json'));
    if (pkg && pkg.type !== undefined) return pkg.type === 'module' ? 'esm' : 'cjs';
    if (pkg && typeof pkg.name === 'string') return 'cjs';
    const parent = path.dirname(dir);
    if (parent === dir) return 'cjs';
    dir = parent;
  }
}

/** Describe the SDK module at `file` for messages and install() results. */
function sourceOfFile(file) {
  const pkg = packageOf(file);
  return { name: pkg?.name ?? path.basename(file), version: pkg?.version, build: buildOf(file), file };
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

module.exports = { SDK_PACKAGES, findSdkCopies, findSdkFiles, sourceOfFile, defaultBases, resolveExport };
