'use strict';
// The plugin in Bun (Bun.build, `bun build`): each module through the
// transform (lib/plugin/transform.cjs, by unplugin's transform hook), whose
// call of the runtime also requires each platform's addon statically, so
// that `bun build` copies it beside the output and `bun build --compile`
// embeds it in the executable. The stable id BUILT_ID resolves to the
// runtime's file (lib/plugin/runtime-bundle.cjs's runtimeFile): the addon is
// embedded, so the runtime needs no output file to look beside.

const { BUILT_ID, exactly } = require('./transform.cjs');
const { runtimeFile } = require('./runtime-bundle.cjs');

const BUILT_ID_FILTER = exactly(BUILT_ID);

/** The plugin's Bun hooks (beside the transform hook). */
function bunPlugin() {
  return {
    setup(build) {
      build.onResolve({ filter: BUILT_ID_FILTER }, () => ({ path: runtimeFile() }));
    },
  };
}

module.exports = { bunPlugin };
