'use strict';
// The bundler plugin's options, checked and resolved in one place, once per
// plugin: lib/plugin/index.cjs resolves them as the plugin is created (also
// where unplugin calls the factory only later, as webpack's and rspack's
// adapters do, when the bundler applies the plugin), so a wrong value throws
// there, naming the option and what it must be. The declarations
// (scripts/types.cjs's PLUGIN_OPTIONS) take framing's default from here;
// docs/build-it-in.md's table says the defaults too.

const platform = require('../native/platform.cjs');
const { PACKAGE_NAME } = require('../shape/globals.cjs');

/** Each option's default: platforms undefined is this machine's platform (platformsOf). */
const PLUGIN_DEFAULTS = Object.freeze({ platforms: undefined, framing: true });

/** The options already resolved here: resolving one again hands it back as it is. */
const resolved = new WeakSet();

/** A value as an error names it (JSON where it can be, else its string). */
function shown(value) {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The platform names (napi-rs's platformArchABI) the build includes: `platforms` as given, 'all' (every release target), default this machine's. */
function platformsOf(option) {
  if (option === undefined) return [platform.platformArchABI()];
  if (option === 'all') return platform.targets().map(platform.tripleToAbi);
  if (!Array.isArray(option) || option.some((p) => typeof p !== 'string')) {
    throw new TypeError(`${PACKAGE_NAME}: the platforms option is 'all' or an array of platform names such as 'linux-x64-gnu', got ${shown(option)}`);
  }
  return [...new Set(option)];
}

/** The framing option: true or false (left out: PLUGIN_DEFAULTS.framing). */
function framingOf(option) {
  if (option === undefined) return PLUGIN_DEFAULTS.framing;
  if (typeof option !== 'boolean') throw new TypeError(`${PACKAGE_NAME}: the framing option is true or false (default ${PLUGIN_DEFAULTS.framing}), got ${shown(option)}`);
  return option;
}

/**
 * The plugin's options (every one may be left out) checked, with defaults:
 * a frozen { platforms: the platform names, framing: boolean }. Throws a
 * TypeError naming the option a value is wrong for.
 */
function resolvePluginOptions(options = {}) {
  if (resolved.has(options)) return options;
  if (options === null || typeof options !== 'object') throw new TypeError(`${PACKAGE_NAME}: the plugin's options are an object ({ platforms?, framing? }), got ${shown(options)}`);
  const out = Object.freeze({ platforms: platformsOf(options.platforms), framing: framingOf(options.framing) });
  resolved.add(out);
  return out;
}

module.exports = { PLUGIN_DEFAULTS, resolvePluginOptions };
