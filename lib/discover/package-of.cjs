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

/**
 * 'esm' or 'cjs': the build a module file belongs to, by the format Node
 * gives it; where its syntax decides (moduleTypeOf's null), by `source`
 * (its text or bytes) where given, else 'cjs'.
 */
function buildOf(file, source) {
  let format = moduleTypeOf(file);
  if (format === null && source !== undefined) format = require('../shape/blocks.cjs').compilesAsCommonJs(String(source)) ? 'commonjs' : 'module';
  return format === 'module' ? 'esm' : 'cjs';
}

/** Describe the SDK module at `file` for messages and install() results. */
function sourceOfFile(file) {
  const pkg = packageOf(file);
  return { name: pkg?.name ?? path.basename(file), version: pkg?.version, build: buildOf(file), file };
}

// Directory -> the `type` its nearest package.json says ('module', 'commonjs', or null: none said).
const typeOfDir = new Map();

/**
 * The `type` of the package.json nearest to `file`, as Node reads it (the
 * nearest one decides, whatever else it holds): 'module', 'commonjs', or
 * null when it says neither (or there is none).
 */
function packageTypeOf(file) {
  const seen = [];
  let dir = path.dirname(file);
  let type;
  for (;;) {
    type = typeOfDir.get(dir);
    if (type !== undefined) break;
    seen.push(dir);
    const pkg = packageJsonIn(dir);
    if (pkg !== undefined) {
      type = pkg.type === 'module' || pkg.type === 'commonjs' ? pkg.type : null;
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      type = null;
      break;
    }
    dir = parent;
  }
  for (const at of seen) typeOfDir.set(at, type);
  return type;
}

/**
 * The one rule for a module file's format by its name, as Node gives it:
 * `.mjs` 'module', `.cjs` 'commonjs', `.js` the nearest package.json's
 * `type`, and null where that names none: Node then decides by the file's
 * syntax (lib/shape/blocks.cjs's compilesAsCommonJs), not its name; undefined for any other file.
 */
function moduleTypeOf(file) {
  const ext = path.extname(file);
  if (ext === '.mjs') return 'module';
  if (ext === '.cjs') return 'commonjs';
  if (ext !== '.js') return undefined;
  return packageTypeOf(file);
}

/** The folder of package `name` as Node resolves it from `dir` (node_modules, upward), or undefined. */
function packageDirFrom(dir, name) {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

module.exports = { readJson, packageOf, packageDirFrom, isSdkModuleFile, buildOf, sourceOfFile, packageTypeOf, moduleTypeOf };
