'use strict';
// The loader of the native addon: where it comes from, the one error when it
// cannot be had, and the addon's exports, loaded on first use (so that
// requiring the package never throws when no binary fits this machine): from
// the file named by MCP_ORDERED_DISPATCH_NATIVE if set, else the platform
// package (`mcp-ordered-dispatch-<platform>`), else a local build in a clone.
// Exports the addon's exports ({ Dispatcher, classify, ... }, each a getter
// that loads it) as the addon defines them (the Dispatcher's JavaScript front
// end is lib/classify/dispatch.cjs's to install), plus load() and
// NativeAddonError; and the platform names below.
//
// The napi-rs convention: one npm package per platform, named
// `<packageName>-<platformArchABI>` (e.g. `mcp-ordered-dispatch-linux-x64-gnu`),
// listed in the main package's optionalDependencies with `os`/`cpu`/`libc`
// so that npm installs only the one that fits; it holds
// `<binaryName>.<platformArchABI>.node`. A clone builds the same file into its
// root (`npm run build`, i.e. `napi build --platform`).
//
// The names come from package.json's `napi` field (binaryName, packageName,
// targets) - the one place they are written - and the platform string is
// napi-rs's `platformArchABI`. Used by the loader (below), the build
// script (scripts/build.cjs), doctor and the tests.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
// A require() of the JSON (not a file read), so that a bundler that bundles this file carries the names with it.
const PKG = require('../../package.json');
const NAPI = PKG.napi || {};
const BINARY_NAME = NAPI.binaryName || PKG.name;
const PACKAGE_NAME = NAPI.packageName || PKG.name;
const ENV_OVERRIDE = 'MCP_ORDERED_DISPATCH_NATIVE';
const LOAD_FAILED = 'MCP_ORDERED_DISPATCH_LOAD_FAILED';
// The global Map of `.node` files opened in this process (real path -> exports), shared by every copy of this package.
const OPENED = Symbol.for('mcp-ordered-dispatch.opened-addons');

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

/** The platform package's name: `mcp-ordered-dispatch-linux-x64-gnu`. */
function platformPackageName(abi = platformArchABI()) {
  return `${PACKAGE_NAME}-${abi}`;
}

/** Where a clone's own build lands (`npm run build`): the package root, as `napi build --platform` writes it. */
function localBuildPath(abi = platformArchABI()) {
  return path.join(ROOT, binaryFileName(abi));
}

/** The platform package's folder in a clone (`npm/<abi>/`), staged for `npm pack`. */
function npmDirOf(abi = platformArchABI()) {
  return path.join(ROOT, 'npm', abi);
}

/** The targets the release builds (Rust triples), from package.json. */
function targets() {
  return NAPI.targets || [];
}

/**
 * What `install()`, `patchProtocol()` and `register` report when no native
 * addon loads. `code` is MCP_ORDERED_DISPATCH_LOAD_FAILED; `cause` is the
 * underlying load error (an AggregateError when several places were tried).
 */
class NativeAddonError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'NativeAddonError';
    this.code = LOAD_FAILED;
  }
}

function firstLine(error) {
  const text = error && error.message ? error.message : String(error);
  return text.split('\n')[0];
}

/**
 * The addon's exports from the `.node` file at `file`, opened with
 * process.dlopen(): what require() does for a `.node` file in Node, and what
 * still works where require() cannot be used for one (Deno compiles a `.node`
 * file as JavaScript once any module load hook is registered; a bundle has
 * no require() of its own for a file that is not in it).
 */
function openAddon(file) {
  // Opened once per process and file, as require() would: every copy of this
  // package in the process (installed, bundled) shares the one it opened.
  const opened = (globalThis[OPENED] ??= new Map());
  let key = path.resolve(file);
  try {
    key = fs.realpathSync(key);
  } catch {
    // process.dlopen() says why.
  }
  let exports = opened.get(key);
  if (exports === undefined) {
    const holder = { exports: {} };
    process.dlopen(holder, path.toNamespacedPath(key));
    exports = holder.exports;
    opened.set(key, exports);
  }
  return exports;
}

// Where a build put the addon (set by build-time injected code before the
// first load): { addon } (already opened, e.g. a `.node` a Bun-compiled
// executable embeds), or { file } (beside a bundle, a SEA asset written out),
// with `from` (what provided it, for messages and doctor) and `fix` (how to
// fix the build when it does not load). undefined: none.
let provided;

/** Use the addon a build provides ({ addon } or { file }, with `from` and `fix`): tried after MCP_ORDERED_DISPATCH_NATIVE, before the platform package. */
function provideAddon(source) {
  provided = source;
}

/**
 * The runtime's own refusal to load a native addon, as advice, or
 * undefined: Deno loads N-API addons only with FFI permission, and says so
 * with a NotCapable error (no install or build can fix that).
 */
function refusalOf(cause) {
  if (cause?.name !== 'NotCapable' && !/Requires ffi access/.test(firstLine(cause))) return undefined;
  return 'Deno loads native addons only with FFI permission: run it with --allow-ffi (or -A), ' +
    'for example `deno run --allow-ffi --allow-read --allow-env app.mjs`.';
}

/**
 * Load the addon. With MCP_ORDERED_DISPATCH_NATIVE set: exactly that file.
 * Otherwise the platform package, then a local build in a clone.
 * Returns { addon, from, file }; throws a NativeAddonError.
 */
function loadAddon() {
  const abi = platformArchABI();
  const override = process.env[ENV_OVERRIDE];
  if (override) {
    const file = path.resolve(override);
    try {
      return { addon: openAddon(file), from: ENV_OVERRIDE, file };
    } catch (cause) {
      throw new NativeAddonError(
        `mcp-ordered-dispatch: the native addon for ${abi} did not load from ${file} ` +
          `(set by ${ENV_OVERRIDE}): ${firstLine(cause)}. ` +
          (refusalOf(cause) ?? `Point ${ENV_OVERRIDE} at a loadable ${binaryFileName(abi)}, or unset it to use the installed platform package.`),
        { cause },
      );
    }
  }
  if (provided !== undefined) {
    const { addon, file, from = 'the build', fix = 'Rebuild the application with the addon for this platform included.' } = provided;
    try {
      return { addon: addon ?? openAddon(file), from, file: file ?? from };
    } catch (cause) {
      throw new NativeAddonError(
        `mcp-ordered-dispatch: the native addon for ${abi} that ${from} provides did not load` +
          `${file ? ` from ${file}` : ''}: ${firstLine(cause)}. ${refusalOf(cause) ?? fix}`,
        { cause },
      );
    }
  }
  const pkgName = platformPackageName(abi);
  const errors = [];
  let brokenPackage = null;
  let refusal;
  const local = localBuildPath(abi);
  // The platform package npm installed beside (or above) this package.
  function fromPackage() {
    let resolved;
    try {
      resolved = require.resolve(pkgName, { paths: [ROOT] });
    } catch (cause) {
      errors.push(new Error(`${pkgName} is not installed: ${firstLine(cause)}`, { cause }));
      return null;
    }
    try {
      return { addon: openAddon(resolved), from: pkgName, file: resolved };
    } catch (cause) {
      refusal ??= refusalOf(cause);
      brokenPackage = `${pkgName} is installed (${resolved}) but does not load: ${firstLine(cause)}`;
      errors.push(new Error(brokenPackage, { cause }));
      return null;
    }
  }
  // A local build in a clone (`npm run build`).
  function fromLocalBuild() {
    if (!fs.existsSync(local)) {
      errors.push(new Error(`no local build at ${local}`));
      return null;
    }
    try {
      return { addon: openAddon(local), from: 'local build', file: local };
    } catch (cause) {
      refusal ??= refusalOf(cause);
      errors.push(new Error(`the local build ${local} does not load: ${firstLine(cause)}`, { cause }));
      return null;
    }
  }
  // In a clone (Cargo.toml is never in the published tarball) the fresh local
  // build comes first, so that a published platform package that npm also
  // installed there never stands in for the code under test.
  const inClone = fs.existsSync(path.join(ROOT, 'Cargo.toml'));
  const found = inClone ? fromLocalBuild() ?? fromPackage() : fromPackage() ?? fromLocalBuild();
  if (found) return found;
  const supported = targets().some((t) => tripleToAbi(t) === abi);
  if (refusal) {
    throw new NativeAddonError(`mcp-ordered-dispatch: the runtime refused to load the native addon for ${abi}. ${refusal}`, {
      cause: new AggregateError(errors, `the native addon for ${abi} could not be loaded`),
    });
  }
  let why;
  const compiled = compiledExecutable();
  if (compiled !== undefined) {
    why =
      `This process is ${compiled}: nothing can be installed into it, and the addon was not built into it. ` +
      'Build the executable with the bundler plugin (mcp-ordered-dispatch/bun, /esbuild, ...: docs/build-it-in.md), which puts the addon inside, ' +
      `or ship ${binaryFileName(abi)} beside it and set ${ENV_OVERRIDE} to its path.`;
  } else if (brokenPackage) {
    why = `${brokenPackage}. Reinstall it (delete node_modules/${pkgName} and run your install again).`;
  } else if (supported) {
    why =
      `Its platform package ${pkgName}@${PKG.version} is not installed. Either it was left out: optional ` +
      'dependencies were omitted (`npm install --omit=optional` or `--no-optional`, `omit=optional` in .npmrc or ' +
      'npm_config_omit), or the lockfile was written on another OS, CPU or libc and names only that platform\'s ' +
      'package; fix: install again with optional dependencies (if the lockfile came from another platform, remove ' +
      'node_modules and the lockfile first). Or it could not be had at all: the registry you install from does ' +
      `not have ${pkgName}@${PKG.version}, or the main package was installed from a tarball alone; fix: install ` +
      `${pkgName}@${PKG.version} (or its tarball) beside it.`;
  } else {
    why =
      `No prebuilt package is published for ${abi}. Build the addon from source in a clone of the repository ` +
      `(\`npm install\` there builds it; needs Rust) and set ${ENV_OVERRIDE} to the built ${binaryFileName(abi)}.`;
  }
  throw new NativeAddonError(
    `mcp-ordered-dispatch: no native addon for ${abi} (looked for the package ${pkgName}, then a local build ` +
      `${binaryFileName(abi)} in ${ROOT}). ${why}`,
    { cause: new AggregateError(errors, `the native addon for ${abi} could not be loaded`) },
  );
}

/** What kind of single executable this process is ('a Bun-compiled executable', 'a Node single executable application'), or undefined. */
function compiledExecutable() {
  if (globalThis.Bun?.isStandaloneExecutable === true || __dirname.startsWith('/$bunfs/') || /^[A-Z]:\\~BUN\\/.test(__dirname)) return 'a Bun-compiled executable';
  try {
    if (process.getBuiltinModule?.('node:sea')?.isSea()) return 'a Node single executable application';
  } catch {
    // No node:sea here.
  }
  return undefined;
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

// ---- the addon's exports, loaded on first use ----

let loaded = null;
let failure = null;

/**
 * The addon's exports, loaded once. Throws the NativeAddonError (the same one
 * each time) when no addon loads.
 */
function load() {
  if (loaded) return loaded.addon;
  if (failure) throw failure;
  try {
    const found = loadAddon();
    loaded = found;
    for (const name of Object.keys(found.addon)) {
      if (!Object.hasOwn(module.exports, name)) module.exports[name] = found.addon[name];
    }
    return found.addon;
  } catch (error) {
    failure = error;
    throw error;
  }
}

/** Where the addon came from: { from, file }, or null before it is loaded. */
function loadedFrom() {
  return loaded ? { from: loaded.from, file: loaded.file } : null;
}

/**
 * A stand-in for the addon's class or function `name` that loads the addon
 * when first used (called, constructed, or a property read), for the public
 * entry points: `import { Dispatcher } from 'mcp-ordered-dispatch'` must not
 * load it. `instanceof` and static/prototype access reach the real one:
 * `real()` (default: the addon's own export `name`).
 */
function lazyBinding(name, real = () => load()[name]) {
  // eslint-disable-next-line func-names
  const target = function () {};
  Object.defineProperty(target, 'name', { value: name });
  const proxy = new Proxy(target, {
    apply: (_t, thisArg, args) => Reflect.apply(real(), thisArg, args),
    construct: (_t, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    get: (_t, key) => {
      const fn = real();
      return Reflect.get(fn, key, fn);
    },
    set: (_t, key, value) => Reflect.set(real(), key, value),
    has: (_t, key) => Reflect.has(real(), key),
  });
  return proxy;
}

module.exports = {
  load,
  loadedFrom,
  openAddon,
  provideAddon,
  lazyBinding,
  isMusl,
  platformArchABI,
  binaryFileName,
  platformPackageName,
  localBuildPath,
  npmDirOf,
  targets,
  tripleToAbi,
  loadAddon,
  NativeAddonError,
  ENV_OVERRIDE,
  LOAD_FAILED,
  ROOT,
  PKG,
};
// The addon's own exports, each read lazily (the classes the binding defines;
// any other name is copied on once the addon has loaded).
for (const name of ['Dispatcher', 'ProgressTokens', 'StdioFramer', 'StdioThreadReader', 'classify', 'boundary', '_testPanic']) {
  Object.defineProperty(module.exports, name, { enumerable: true, configurable: true, get: () => load()[name] });
}
