'use strict';
// `mcp-ordered-dispatch/rolldown`: the bundler plugin for rolldown (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('rolldown');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
