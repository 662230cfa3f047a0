'use strict';
// napi-rs's platform naming, and what kind of process this is. Read by the
// loader (lib/native/addon.cjs), the build script (scripts/build.cjs), the
// bundler plugin and doctor.
//
// The napi-rs convention: one npm package per platform, named
// `<packageName>-<platformArchABI>` (e.g. `mcp-ordered-dispatch-linux-x64-gnu`),
// listed in the main package's optionalDependencies with `os`/`cpu`/`libc`
// so that npm installs only the one that fits; it holds
// `<binaryName>.<platformArchABI>.node`. A clone builds the same file into its
// root (`npm run build`, i.e. `napi build --platform`). The names come from
// package.json's `napi` field (binaryName, packageName, targets), the one
// place they are written.
//
// Nothing here names __dirname or __filename: a bundle carries this file
// (an ES module output has neither, and Bun writes the build machine's
// directory into every __dirname it bundles); only a clone's paths
// (packageRoot) ask where it is, through `module.filename`.

const fs = require('node:fs');
const path = require('node:path');

// A require() of the JSON (not a file read), so that a bundler that bundles this file carries the names with it.
const PKG = require('../../package.json');
const NAPI = PKG.napi || {};
const BINARY_NAME = NAPI.binaryName || PKG.name;
const PACKAGE_NAME = NAPI.packageName || PKG.name;
/** The variable that names the `.node` file to load, instead of any other. */
const ENV_OVERRIDE = 'MCP_ORDERED_DISPATCH_NATIVE';

let muslCache;

/** musl or glibc? As napi-rs decides it: ldd's text, then the process report, then `ldd --version`. */
function isMusl() {
  if (process.platform !== 'linux') return false;
  if (muslCache !== undefined) return muslCache;
  muslCache = muslFromLddFile() ?? muslFromReport() ?? muslFromLddCommand() ?? false;
  return muslCache;
}

function muslFromLddFile() {
  try {
    const text = fs.readFileSync('/usr/bin/ldd', 'utf8');
    return text.includes('libc.musl-') || text.includes('ld-musl-');
  } catch {
    return null;
  }
}

function muslFromReport() {
  const report = process.report;
  if (!report || typeof report.getReport !== 'function') return null;
  const excludeNetwork = report.excludeNetwork;
  try {
    report.excludeNetwork = true;
    const r = report.getReport();
    if (r.header && r.header.glibcVersionRuntime) return false;
    if (Array.isArray(r.sharedObjects)) {
      if (r.sharedObjects.some((f) => f.includes('libc.musl-') || f.includes('ld-musl-'))) return true;
    }
    return null;
  } catch {
    return null;
  } finally {
    report.excludeNetwork = excludeNetwork;
  }
}

function muslFromLddCommand() {
  try {
    const r = require('node:child_process').spawnSync('ldd', ['--version'], { encoding: 'utf8', timeout: 5000 });
    const text = `${r.stdout || ''}${r.stderr || ''}`;
    if (!text) return null;
    return text.includes('musl');
  } catch {
    return null;
  }
}

/** napi-rs's platformArchABI for this process: `linux-x64-gnu`, `linux-arm64-musl`, `darwin-arm64`, `win32-x64-msvc`, ... */
function platformArchABI(platform = process.platform, arch = process.arch, musl = platform === 'linux' && isMusl()) {
  let key = `${platform}-${arch}`;
  if (platform === 'linux') key += musl ? '-musl' : '-gnu';
  else if (platform === 'win32') key += '-msvc';
  return key;
}

/** The `.node` file's name for a platform: `mcp-ordered-dispatch.linux-x64-gnu.node`. */
function binaryFileName(abi = platformArchABI()) {
  return `${BINARY_NAME}.${abi}.node`;
}

/**
 * The native launcher's file name (crates/launcher: what setup's shell
 * functions start a host with), in the platform package and, suffixed with
 * the platform, in a clone's root: `mcp-ordered-dispatch-launcher`,
 * `mcp-ordered-dispatch-launcher.exe` on Windows.
 */
function launcherFileName(abi = platformArchABI()) {
  return `${BINARY_NAME}-launcher${abi.startsWith('win32-') ? '.exe' : ''}`;
}

/** The platform package's name: `mcp-ordered-dispatch-linux-x64-gnu`. */
function platformPackageName(abi = platformArchABI()) {
  return `${PACKAGE_NAME}-${abi}`;
}

/**
 * The platform package's `.node` file as a specifier (`<package>/<file>.node`):
 * resolved as a file, never through the package's `main` (a `.node` main
 * does not resolve inside a Bun-compiled executable).
 */
function platformPackageFile(abi = platformArchABI()) {
  return `${platformPackageName(abi)}/${binaryFileName(abi)}`;
}

/** The targets the release builds (Rust triples), from package.json. */
function targets() {
  return NAPI.targets || [];
}

/** napi-rs's platformArchABI of a Rust target triple (the 8 release targets). */
function tripleToAbi(triple) {
  const [cpu, , sys, abi] = triple.split('-');
  const arch = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }[cpu] || cpu;
  if (triple.includes('apple-darwin')) return `darwin-${arch}`;
  if (triple.includes('windows-msvc')) return `win32-${arch}-msvc`;
  if (sys === 'linux') return `linux-${arch}-${abi === 'musl' ? 'musl' : 'gnu'}`;
  return `${sys}-${arch}`;
}

/** Whether the release publishes a platform package for `abi`. */
function isReleased(abi = platformArchABI()) {
  return targets().some((t) => tripleToAbi(t) === abi);
}

/**
 * This package's root folder (where a clone's build and `npm/` are), or
 * undefined where this file has no path of its own on disk (bundled).
 */
function packageRoot() {
  const file = ownFile();
  return file !== undefined && path.isAbsolute(file) ? path.join(path.dirname(file), '..', '..') : undefined;
}

/** Where a clone's own build lands (`npm run build`): the package root, as `napi build --platform` writes it. */
function localBuildPath(abi = platformArchABI()) {
  const root = packageRoot();
  return root === undefined ? undefined : path.join(root, binaryFileName(abi));
}

/** Where a clone's own build of the native launcher lands: the package root, `mcp-ordered-dispatch-launcher.<abi>[.exe]`. */
function localLauncherPath(abi = platformArchABI()) {
  const root = packageRoot();
  return root === undefined ? undefined : path.join(root, launcherFileName(abi).replace(/(\.exe)?$/, `.${abi}$1`));
}

/** The platform package's folder in a clone (`npm/<abi>/`), staged for `npm pack`. */
function npmDirOf(abi = platformArchABI()) {
  return path.join(packageRoot(), 'npm', abi);
}

/** node:sea when this process is a Node single executable application, else undefined. */
function seaModule() {
  try {
    const sea = process.getBuiltinModule?.('node:sea');
    return sea?.isSea?.() ? sea : undefined;
  } catch {
    return undefined; // no node:sea in this runtime
  }
}

/** This file's own path, where it has one: undefined in an ES module output, relative inside a Bun-compiled executable. */
function ownFile() {
  // typeof: an ES module output declares no `module`.
  return typeof module === 'object' && module !== null && typeof module.filename === 'string' ? module.filename : undefined;
}

/**
 * Whether `file` is a path Bun mounts a compiled executable's embedded
 * modules under: `/$bunfs/` (Linux, macOS), `B:\~BUN\` on Windows (any
 * drive letter, either slash: Bun writes `B:/~BUN/` into a bundle's imports).
 * The one place the prefix is written.
 */
function isBunEmbeddedPath(file) {
  return typeof file === 'string' && (file.startsWith('/$bunfs/') || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(file));
}

/**
 * What kind of single executable this process is ('a Bun-compiled
 * executable', 'a Node single executable application'), or undefined. A
 * preload loaded from disk into one is in one too.
 */
function compiledExecutable() {
  if (globalThis.Bun?.isStandaloneExecutable === true) return 'a Bun-compiled executable';
  if (seaModule() !== undefined) return 'a Node single executable application';
  return undefined;
}

/**
 * The kind of executable this copy of the package was built into (its
 * files are the executable's, not on disk: nothing can be installed for
 * it), or undefined (on disk: a preload from an installed package included).
 */
function builtIntoExecutable() {
  const kind = compiledExecutable();
  if (kind === undefined) return undefined;
  const file = ownFile();
  // Bun gives a bundled module a relative filename (or an embedded one); a SEA's main script is the executable itself.
  const onDisk = file !== undefined && path.isAbsolute(file) && !isBunEmbeddedPath(file) && file !== process.execPath && fs.existsSync(file);
  return onDisk ? undefined : kind;
}

module.exports = {
  PKG,
  ENV_OVERRIDE,
  platformArchABI,
  binaryFileName,
  launcherFileName,
  platformPackageName,
  platformPackageFile,
  targets,
  tripleToAbi,
  isReleased,
  packageRoot,
  localBuildPath,
  localLauncherPath,
  npmDirOf,
  seaModule,
  isBunEmbeddedPath,
  builtIntoExecutable,
};
