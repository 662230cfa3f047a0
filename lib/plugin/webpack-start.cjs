'use strict';
// What webpack and rspack resolve the bundler plugin's stable id to, with an
// 'eval' devtool (lib/plugin/webpack-eval.cjs): the runtime's start, handed
// the output file. For a Node target webpack makes `__filename` the output
// file's own: Node's in a CommonJS output, derived from `import.meta.url` in
// an ES module one. The runtime by an id the plugin resolves (RUNTIME_ID in
// lib/plugin/transform.cjs): lib/plugin/runtime-bundle.cjs's one module, else
// runtime.cjs itself.
const start = require('mcp-ordered-dispatch/built/runtime');

module.exports = function built(config) {
  // eslint-disable-next-line no-undef
  start(config, typeof __filename === 'string' ? __filename : undefined);
};
