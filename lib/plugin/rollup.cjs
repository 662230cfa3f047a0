'use strict';
// The plugin in rollup, rolldown and Vite: each module through the transform
// (lib/plugin/transform.cjs), whose hook filters these bundlers apply
// themselves, so a module without an SDK class's marker name never calls
// JavaScript. The stable id BUILT_ID resolves to a virtual module that hands
// the runtime (lib/plugin/runtime-bundle.cjs's runtimeFile) the output
// file's own `import.meta.url` (the bundler rewrites it for a CommonJS
// output). The addons go beside the output once the runtime is in the
// bundle: rollup and rolldown emit them as assets; Vite copies them into
// its outDir at write time (an SSR build, the one for Node, emits no assets
// unless build.ssrEmitAssets).

const fs = require('node:fs');
const path = require('node:path');
const { BUILT_ID, exactly } = require('./transform.cjs');
const { runtimeFile } = require('./runtime-bundle.cjs');

const VIRTUAL = `\0${BUILT_ID}`;
const BUILT_ID_FILTER = exactly(BUILT_ID);
const VIRTUAL_FILTER = exactly(VIRTUAL);

/** The virtual module BUILT_ID resolves to: the runtime's start, handed the output file's `import.meta.url`. */
function virtualModule() {
  const runtime = JSON.stringify(runtimeFile().split(path.sep).join('/'));
  return `import start from ${runtime};\nexport default function built(config) { start(config, import.meta.url); }\n`;
}

/**
 * The plugin's hooks in rollup, rolldown and Vite ({ rollup, rolldown, vite },
 * beside the transform hook): `build`, the plugin's BuildState
 * (lib/plugin/build-state.cjs).
 */
function rollupFamily(build) {
  const resolveHooks = {
    resolveId: { filter: { id: BUILT_ID_FILTER }, handler: (id) => (id === BUILT_ID ? VIRTUAL : null) },
    load: { filter: { id: VIRTUAL_FILTER }, handler: (id) => (id === VIRTUAL ? virtualModule() : null) },
  };
  // Whether the runtime is in the bundle: a module changed, or the virtual module is among the bundle's.
  const builtHere = (context) => build.changed || [...context.getModuleIds()].some((id) => id === VIRTUAL);
  /** rollup and rolldown: the addons as assets. */
  function generateBundle() {
    if (!builtHere(this)) return;
    for (const { name, file } of build.addons()) this.emitFile({ type: 'asset', fileName: name, source: fs.readFileSync(file) });
  }
  return {
    rollup: { ...resolveHooks, generateBundle },
    rolldown: { ...resolveHooks, generateBundle },
    vite: {
      ...resolveHooks,
      writeBundle(outputOptions) {
        if (!builtHere(this)) return;
        const dir = outputOptions.dir ?? (outputOptions.file && path.dirname(outputOptions.file));
        if (dir) build.copyAddons([path.resolve(dir)]);
      },
    },
  };
}

module.exports = { rollupFamily };
