'use strict';
// One plugin instance's state, the one object every bundler's room is handed
// (its type, BuildState, is described here and nowhere else): the options
// resolved (lib/plugin/options.cjs), the addons of the platforms asked for,
// looked up once where the build runs (a platform package, a clone's local
// build, MCP_ORDERED_DISPATCH_NATIVE) and copied beside an output, the
// warning about the platforms without one said once, whether the transform
// changed a module, and the test that tells an SDK class the build failed to
// reach from one patched at build time already.

const fs = require('node:fs');
const path = require('node:path');
const platform = require('../native/platform.cjs');
const { BUILT_GLOBAL, PACKAGE_NAME } = require('../shape/globals.cjs');

const OWN_ROOT = path.join(__dirname, '..', '..');

/**
 * @typedef {object} Addon One platform's addon where the build runs.
 * @property {string} abi napi-rs's platform name, such as 'linux-x64-gnu'.
 * @property {string} name its file name in the output (platform.binaryFileName).
 * @property {string} file its file on this machine.
 */

/**
 * @typedef {object} BuildState One plugin instance's state, shared by every bundler's room.
 * @property {string | undefined} framework the bundler (unplugin's meta.framework: 'esbuild', 'rollup', 'rolldown', 'vite', 'webpack', 'rspack', 'bun').
 * @property {boolean} framing native stdio framing in the built app (the framing option).
 * @property {boolean} changed whether the transform changed a module (the runtime is then in the build); set by lib/plugin/transform.cjs.
 * @property {() => Addon[]} addons the addons of the platforms found (looked up on the first call).
 * @property {(dirs: Iterable<string>) => void} copyAddons copies the addons into each of `dirs` (an output's directory).
 * @property {() => string | undefined} missingWarning the build warning about the platforms without an addon: its text the first time, else undefined.
 * @property {() => { platforms: string[], framing: boolean }} config what a changed module or output hands the runtime (lib/plugin/runtime.cjs).
 * @property {(code: string) => boolean} unreached whether a module or output left unchanged holds an SDK class it should have had a block in.
 */

/** The `.node` file of platform `abi` where the build runs (MCP_ORDERED_DISPATCH_NATIVE for this machine, a clone's local build, the platform package), or undefined. */
function addonFileFor(abi) {
  if (abi === platform.platformArchABI() && process.env[platform.ENV_OVERRIDE]) return path.resolve(process.env[platform.ENV_OVERRIDE]);
  const local = platform.localBuildPath(abi);
  if (fs.existsSync(local)) return local;
  try {
    const pkg = require.resolve(`${platform.platformPackageName(abi)}/package.json`, { paths: [OWN_ROOT, process.cwd()] });
    const file = path.join(path.dirname(pkg), platform.binaryFileName(abi));
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `code`, left unchanged, holds an SDK class it should have had a
 * block in (a failure to warn about), not merely none or one patched at
 * build time already; stdio transports count only with `framing`.
 */
function unreached(code, framing) {
  try {
    const { hasBlock } = require('../shape/blocks.cjs');
    const found = require('../shape/sdk-classes.cjs').sdkClassesIn(code) ?? [];
    return found.some((cls) => (framing || cls.kind === 'protocol') && !hasBlock(code, cls.open, [BUILT_GLOBAL]));
  } catch {
    return false;
  }
}

/**
 * The state of one plugin instance. `options`: the resolved options
 * (lib/plugin/options.cjs); `framework`: the bundler.
 * @returns {BuildState}
 */
function createBuildState(options, framework) {
  const { platforms, framing } = options;
  let found; // the addons found, looked up once
  const missing = [];
  let warnedMissing = false;

  function addons() {
    if (found !== undefined) return found;
    found = [];
    for (const abi of platforms) {
      const file = addonFileFor(abi);
      if (file === undefined) missing.push(abi);
      else found.push({ abi, name: platform.binaryFileName(abi), file });
    }
    return found;
  }

  return {
    framework,
    framing,
    changed: false,
    addons,
    copyAddons(dirs) {
      for (const dir of new Set(dirs)) {
        fs.mkdirSync(dir, { recursive: true });
        for (const { name, file } of addons()) fs.copyFileSync(file, path.join(dir, name));
      }
    },
    missingWarning() {
      addons();
      if (missing.length === 0 || warnedMissing) return undefined;
      warnedMissing = true;
      return `${PACKAGE_NAME}: no addon for ${missing.join(', ')} to put in the build (looked for the platform package ` +
        `${missing.map((abi) => platform.platformPackageName(abi)).join(', ')} and a local build); the built app runs stock there. ` +
        'Install the platform package (npm install --force <name>) where the build runs, or leave the platform out.';
    },
    config: () => ({ platforms: addons().map((a) => a.abi), framing }),
    unreached: (code) => unreached(code, framing),
  };
}

module.exports = { createBuildState };
