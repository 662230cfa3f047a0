'use strict';
// What the loader says when no addon loads: NativeAddonError, its code, and
// the one function that writes its text from what was tried.

const platform = require('./platform.cjs');

/** NativeAddonError's code: what callers test to tell a missing addon from any other error (the warning's code too). */
const LOAD_FAILED = require('../warnings/warnings.cjs').WARNINGS.LOAD_FAILED.code;

/**
 * What `install()`, `patchProtocol()` and `register` report when no native
 * addon loads. `cause` is the underlying load error (an AggregateError when
 * several places were tried).
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
 * The runtime's own refusal to load a native addon, as advice, or
 * undefined: Deno loads N-API addons only with FFI permission, and says so
 * with a NotCapable error (no install or build can fix that).
 */
function refusalOf(cause) {
  if (cause?.name !== 'NotCapable' && !/Requires ffi access/.test(firstLine(cause))) return undefined;
  return 'Deno loads native addons only with FFI permission: run it with --allow-ffi (or -A), ' +
    'for example `deno run --allow-ffi --allow-read --allow-env app.mjs`.';
}

/** Why the platform package is missing, and the fix. */
function missingPackage(abi) {
  const pkg = platform.platformPackageName(abi);
  const version = platform.PKG.version;
  return `Its platform package ${pkg}@${version} is not installed. Either it was left out: optional ` +
    'dependencies were omitted (`npm install --omit=optional` or `--no-optional`, `omit=optional` in .npmrc or ' +
    'npm_config_omit), or the lockfile was written on another OS, CPU or libc and names only that platform\'s ' +
    'package; fix: install again with optional dependencies (if the lockfile came from another platform, remove ' +
    'node_modules and the lockfile first). Or it could not be had at all: the registry you install from does ' +
    `not have ${pkg}@${version}, or the main package was installed from a tarball alone; fix: install ` +
    `${pkg}@${version} (or its tarball) beside it.`;
}

/**
 * The NativeAddonError for a failed load. `failure`:
 *   { abi, source: 'override' | 'provided' | 'search', cause } and, by source,
 *   override: { file }; provided: { from, file, fix };
 *   search: { errors, brokenPackage, refusal, root }.
 */
function loadError(failure) {
  const { abi, source } = failure;
  const name = platform.binaryFileName(abi);
  const { ENV_OVERRIDE } = platform;
  if (source === 'override') {
    const { file, cause } = failure;
    return new NativeAddonError(
      `mcp-ordered-dispatch: the native addon for ${abi} did not load from ${file} (set by ${ENV_OVERRIDE}): ` +
        `${firstLine(cause)}. ` +
        (refusalOf(cause) ?? `Point ${ENV_OVERRIDE} at a loadable ${name}, or unset it to use the installed platform package.`),
      { cause },
    );
  }
  if (source === 'provided') {
    const { from, file, fix, cause } = failure;
    return new NativeAddonError(
      `mcp-ordered-dispatch: the native addon for ${abi} that ${from} provides did not load` +
        `${file ? ` from ${file}` : ''}: ${firstLine(cause)}. ${refusalOf(cause) ?? fix}`,
      { cause },
    );
  }
  const { errors, brokenPackage, refusal, root } = failure;
  const cause = new AggregateError(errors, `the native addon for ${abi} could not be loaded`);
  if (refusal) {
    return new NativeAddonError(`mcp-ordered-dispatch: the runtime refused to load the native addon for ${abi}. ${refusal}`, { cause });
  }
  let why;
  const builtInto = platform.builtIntoExecutable();
  if (builtInto !== undefined) {
    why =
      `This process is ${builtInto}: nothing can be installed into it, and the addon was not built into it. ` +
      'Build the executable with the bundler plugin (mcp-ordered-dispatch/bun, /esbuild, ...: docs/build-it-in.md), which puts the addon inside, ' +
      `or ship ${name} beside it and set ${ENV_OVERRIDE} to its path.`;
  } else if (brokenPackage) {
    why = `${brokenPackage}. Reinstall it (delete node_modules/${platform.platformPackageName(abi)} and run your install again).`;
  } else if (platform.isReleased(abi)) {
    why = missingPackage(abi);
  } else {
    why =
      `No prebuilt package is published for ${abi}. Build the addon from source in a clone of the repository ` +
      `(\`npm install\` there builds it; needs Rust) and set ${ENV_OVERRIDE} to the built ${name}.`;
  }
  const where = root === undefined ? '' : `, then a local build ${name} in ${root}`;
  return new NativeAddonError(
    `mcp-ordered-dispatch: no native addon for ${abi} (looked for the package ${platform.platformPackageName(abi)}${where}). ${why}`,
    { cause },
  );
}

module.exports = { NativeAddonError, LOAD_FAILED, loadError, refusalOf, firstLine };
