'use strict';
// Which package a module file belongs to, by the nearest package.json: the
// name and version that messages and install()'s results give, whether the
// file is an SDK module (lib/register/hooks.cjs and lib/register/esm-transform.cjs ask this
// of the modules the load hooks see), and its build (ESM or CommonJS).
// Apart from lib/discover/discover.cjs (finding every SDK copy an application
// resolves, for install() and doctor), so that what loads when an SDK
// module loads stays small.

const fs = require('node:fs');
const path = require('node:path');
const { SDK_SCOPE } = require('../adapters/modules.cjs');

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The package.json in `dir`, or undefined. For the walks up from a module's
 * directory, where most directories have none: a missing file is asked
 * about without the cost of a thrown error.
 */
function packageJsonIn(dir) {
  const file = path.join(dir, 'package.json');
  return fs.existsSync(file) ? readJson(file) : undefined;
}

/** Name the package a module file belongs to: { name, version } of the nearest package.json with a name. */
function packageOf(file) {
  let dir = path.dirname(file);
  for (;;) {
    const pkg = packageJsonIn(dir);
    if (pkg && typeof pkg.name === 'string') return { name: pkg.name, version: pkg.version, root: dir };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

// Directory -> name of the nearest package.json with a name (or null), for isSdkModuleFile.
const packageNameOfDir = new Map();

function packageNameAt(dir) {
  const known = packageNameOfDir.get(dir);
  if (known !== undefined) return known;
  const pkg = packageJsonIn(dir);
  let name;
  if (pkg && typeof pkg.name === 'string') name = pkg.name;
  else {
    const parent = path.dirname(dir);
    name = parent === dir ? null : packageNameAt(parent);
  }
  packageNameOfDir.set(dir, name);
  return name;
}

/**
 * Whether the module file at `file` (a path, or a file: URL) belongs to a
 * package of the MCP SDK's npm scope, by the `name` in its nearest
 * package.json - so wherever it is installed, under an npm alias included.
 * The load-time hooks ask this of each module they see; one package.json
 * read per directory, cached.
 */
function isSdkModuleFile(file) {
  if (typeof file !== 'string') return false;
  if (file.startsWith('file:')) {
    try {
      file = require('node:url').fileURLToPath(file);
    } catch {
      return false;
    }
  } else if (!path.isAbsolute(file)) {
    return false;
  }
  const name = packageNameAt(path.dirname(file));
  return typeof name === 'string' && name.startsWith(SDK_SCOPE);
}

function buildOf(file) {
  if (file.endsWith('.mjs')) return 'esm';
  if (file.endsWith('.cjs')) return 'cjs';
  let dir = path.dirname(file);
  for (;;) {
    const pkg = packageJsonIn(dir);
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

// Directory -> the `type` its nearest package.json gives ('module' or 'commonjs'), for moduleTypeOf.
const typeOfDir = new Map();

/** The module type Node gives a `.js` file: the `type` of the nearest package.json ('module' or 'commonjs', the default). */
function moduleTypeOf(file) {
  const seen = [];
  let dir = path.dirname(file);
  let type;
  for (;;) {
    type = typeOfDir.get(dir);
    if (type !== undefined) break;
    seen.push(dir);
    const pkg = packageJsonIn(dir);
    if (pkg !== undefined) {
      type = pkg.type === 'module' ? 'module' : 'commonjs';
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      type = 'commonjs';
      break;
    }
    dir = parent;
  }
  for (const at of seen) typeOfDir.set(at, type);
  return type;
}

module.exports = { readJson, packageJsonIn, packageOf, isSdkModuleFile, buildOf, sourceOfFile, moduleTypeOf };
