'use strict';
// The node_modules directories an application resolves packages from, and
// the walk beneath them: every package installed there, by the name in its
// package.json, at any depth of nesting (npm's and yarn's, pnpm's store), each
// directory once by its real path and within bounds. lib/discover/discover.cjs
// finds the SDK's copies among them.

const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

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

// Bounds on the walk into nested node_modules directories (a dependency's
// own node_modules, at any depth; pnpm's node_modules/.pnpm/<id>/node_modules):
// how deep a chain of node_modules directories it follows, and how many
// node_modules directories it reads in all.
const MAX_NESTING = 12;
const MAX_NODE_MODULES_DIRS = 20_000;

function isDirectory(dir) {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** A directory's real path, or the path itself where it has none (dangling). */
function realPathOf(dir) {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * The one directory walk of discovery: depth first from `dir`, each
 * directory once by its real path (`seen`; symlink loops included).
 * `visit(dir, depth)` handles one directory and returns the directories to
 * walk next (at depth + 1); it keeps its own bounds.
 */
function walkDirs(dir, depth, visit, seen) {
  let real;
  try {
    real = fs.realpathSync(dir);
  } catch {
    return; // A dangling symlink: nothing there.
  }
  if (seen.has(real)) return;
  seen.add(real);
  for (const next of visit(dir, depth)) walkDirs(next, depth + 1, visit, seen);
}

/** The package entries of one node_modules directory: [entryName] (scoped ones as "@scope/name"), pnpm's store dirs apart. */
function packageEntries(dir) {
  const names = [];
  for (const entry of listDir(dir)) {
    if (entry.name.startsWith('.')) continue;
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    if (entry.name.startsWith('@')) {
      for (const scoped of listDir(path.join(dir, entry.name))) {
        if (scoped.isDirectory() || scoped.isSymbolicLink()) names.push(`${entry.name}/${scoped.name}`);
      }
    } else {
      names.push(entry.name);
    }
  }
  return names;
}

/** The node_modules directories nested in the packages `entries` of `dir`, and pnpm's store beside them (each package of it beside its own dependencies). */
function nestedDirs(dir, entries) {
  const dirs = [];
  for (const entryName of entries) {
    const inner = path.join(dir, entryName, 'node_modules');
    if (isDirectory(inner)) dirs.push(inner);
  }
  const store = path.join(dir, '.pnpm');
  if (isDirectory(store)) {
    for (const id of listDir(store)) {
      if (id.isDirectory() && !id.name.startsWith('.') && id.name !== 'node_modules') dirs.push(path.join(store, id.name, 'node_modules'));
    }
  }
  return dirs;
}

/**
 * Every package directory under the node_modules directory `nodeModules`
 * (scoped, nested at any depth, pnpm's store), each node_modules directory
 * once, at most `maxDirs` of them: { dirs, truncated }.
 */
function packageDirsUnder(nodeModules, maxDirs) {
  const dirs = [];
  let budget = maxDirs;
  let truncated = false;
  walkDirs(nodeModules, 0, (dir) => {
    if (budget-- <= 0) {
      truncated = true;
      return [];
    }
    const entries = packageEntries(dir);
    for (const entryName of entries) dirs.push(path.join(dir, entryName));
    return nestedDirs(dir, entries);
  }, new Set());
  return { dirs, truncated };
}

/**
 * Every package `base` resolves, and every package installed beneath them,
 * whatever it is installed as: [{ root, pkg, installedAs, nested }] for each
 * entry of each node_modules directory on the resolution path (a nearer
 * entry shadows a farther one of the same directory name, as require() does)
 * and of every node_modules directory inside those packages, at any depth
 * (npm's and yarn's nesting; pnpm's node_modules/.pnpm store), whose
 * package.json `name` is in `names`. Each package root once (by real path).
 * So an alias install ("sdk-old": "npm:@modelcontextprotocol/sdk@1.0.0",
 * node_modules/sdk-old/) is found by the name in its package.json, and a
 * dependency's own copy (node_modules/dep/node_modules/@modelcontextprotocol/sdk)
 * with `nested: true`. `options.nested: false` looks at the resolution path only.
 * The result's `truncated` is true when the walk stopped at one of its bounds.
 */
function packagesNamed(names, base, options = {}) {
  const wanted = new Set(names);
  const walkNested = options.nested !== false;
  const shadowed = new Set();
  const roots = new Set();
  const walked = new Set();
  let budget = MAX_NODE_MODULES_DIRS;
  const found = [];
  const consider = (dir, entryName, nested) => {
    const root = path.join(dir, entryName);
    const pkg = readJson(path.join(root, 'package.json'));
    if (!pkg) return;
    const forkOf = wanted.has(pkg.name) ? undefined : options.forks?.(pkg, root);
    if (!wanted.has(pkg.name) && forkOf === undefined) return;
    let real;
    try {
      real = fs.realpathSync(root);
    } catch {
      return; // A dangling symlink: nothing to load there.
    }
    if (roots.has(real)) return;
    roots.add(real);
    const entry = { root: real, pkg, installedAs: entryName, installedAt: root };
    if (nested) entry.nested = true;
    if (forkOf !== undefined) entry.forkOf = forkOf;
    found.push(entry);
  };
  // A node_modules directory below the resolution path: every entry, then what is nested in each.
  const visit = (dir, depth) => {
    if (budget <= 0) {
      found.truncated = true;
      return [];
    }
    budget--;
    const entries = packageEntries(dir);
    if (depth > 0) for (const entryName of entries) consider(dir, entryName, true);
    if (depth >= MAX_NESTING) {
      if (entries.some((entryName) => isDirectory(path.join(dir, entryName, 'node_modules')))) found.truncated = true;
      return [];
    }
    return nestedDirs(dir, entries);
  };
  for (const dir of nodeModulesDirs(base)) {
    const entries = packageEntries(dir).filter((entryName) => !shadowed.has(entryName));
    for (const entryName of entries) {
      shadowed.add(entryName);
      consider(dir, entryName, false);
    }
    if (!walkNested) continue;
    walked.add(realPathOf(dir));
    for (const inner of nestedDirs(dir, entries)) walkDirs(inner, 1, visit, walked);
  }
  return found;
}

module.exports = { listDir, isDirectory, walkDirs, packageDirsUnder, packagesNamed };
