'use strict';
// `mcp-ordered-dispatch/rollup`: the bundler plugin for rollup (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('rollup');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
