'use strict';
// The loader of the native addon: its exports, loaded on first use (so that
// requiring the package never throws when no binary fits this machine),
// from the first of these sources that has one:
//   1. the file named by MCP_ORDERED_DISPATCH_NATIVE, when set (nothing else then);
//   2. the addon a build provides (lib/native/opened.cjs provideAddon: the
//      bundler plugin's runtime; nothing else then);
//   3. the platform package (`mcp-ordered-dispatch-<platform>`), its `.node`
//      resolved as a file, and a local build (`npm run build`) at the package
//      root: in a clone the local build first, so that a published platform
//      package npm also installed there never stands in for the code under test.
// Names come from lib/native/platform.cjs, the error text from
// lib/native/load-error.cjs (loaded when a source fails). Exports load(), loadedFrom() and the addon's
// own exports ({ Dispatcher, classify, ... }, each a getter that loads it;
// the Dispatcher's JavaScript front end is lib/classify/dispatch.cjs's to
// install).

const fs = require('node:fs');
const path = require('node:path');
const platform = require('./platform.cjs');
const { openAddon, providedAddon } = require('./opened.cjs');

/** lib/native/load-error.cjs, loaded only when a source fails. */
function errors() {
  return require('./load-error.cjs');
}

/** The platform package's `.node`, resolved from the package root (or where this bundle's require() looks). */
function resolvePlatformPackage(abi, root) {
  const spec = platform.platformPackageFile(abi);
  return root === undefined ? require.resolve(spec) : require.resolve(spec, { paths: [root] });
}

/** Sources 1 and 2, when set; else 3. Returns { addon, from, file }; throws a NativeAddonError. */
function loadAddon() {
  const abi = platform.platformArchABI();
  const override = process.env[platform.ENV_OVERRIDE];
  if (override) {
    const file = path.resolve(override);
    try {
      return { addon: openAddon(file), from: platform.ENV_OVERRIDE, file };
    } catch (cause) {
      throw errors().loadError({ abi, source: 'override', file, cause });
    }
  }
  const provided = providedAddon();
  if (provided !== undefined) {
    const { addon, file, from = 'the build', fix = 'Rebuild the application with the addon for this platform included.' } = provided;
    try {
      return { addon: addon ?? openAddon(file), from, file: file ?? from };
    } catch (cause) {
      throw errors().loadError({ abi, source: 'provided', from, file, fix, cause });
    }
  }
  return searchAddon(abi);
}

/** Source 3: the platform package and the local build, in the order the place asks for. */
function searchAddon(abi) {
  const root = platform.packageRoot();
  const pkgName = platform.platformPackageName(abi);
  const failure = { abi, source: 'search', errors: [], brokenPackage: null, refusal: undefined, root };
  const open = (file, from, broken) => {
    try {
      return { addon: openAddon(file), from, file };
    } catch (cause) {
      failure.refusal ??= errors().refusalOf(cause);
      const text = broken(errors().firstLine(cause));
      failure.errors.push(new Error(text, { cause }));
      return { text };
    }
  };
  const fromPackage = () => {
    let file;
    try {
      file = resolvePlatformPackage(abi, root);
    } catch (cause) {
      failure.errors.push(new Error(`${pkgName} is not installed: ${errors().firstLine(cause)}`, { cause }));
      return null;
    }
    const found = open(file, pkgName, (why) => `${pkgName} is installed (${file}) but does not load: ${why}`);
    if (found.addon) return found;
    failure.brokenPackage = found.text;
    return null;
  };
  const fromLocalBuild = () => {
    const local = platform.localBuildPath(abi);
    if (local === undefined || !fs.existsSync(local)) {
      if (local !== undefined) failure.errors.push(new Error(`no local build at ${local}`));
      return null;
    }
    const found = open(local, 'local build', (why) => `the local build ${local} does not load: ${why}`);
    return found.addon ? found : null;
  };
  // Cargo.toml is never in the published tarball: its presence means a clone.
  const inClone = root !== undefined && fs.existsSync(path.join(root, 'Cargo.toml'));
  const found = inClone ? fromLocalBuild() ?? fromPackage() : fromPackage() ?? fromLocalBuild();
  if (found) return found;
  throw errors().loadError(failure);
}

// ---- the addon's exports, loaded on first use ----

let loaded = null;
let failure = null;

/** The addon's exports, loaded once. Throws the NativeAddonError (the same one each time) when no addon loads. */
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

module.exports = { load, loadedFrom };
// The addon's own exports, each read lazily (the classes the binding defines;
// any other name is copied on once the addon has loaded).
for (const name of ['Dispatcher', 'ProgressTokens', 'StdioFramer', 'StdioThreadReader', 'classify', 'boundary', '_testPanic']) {
  Object.defineProperty(module.exports, name, { enumerable: true, configurable: true, get: () => load()[name] });
}
