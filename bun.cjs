'use strict';
// `mcp-ordered-dispatch/bun`: the bundler plugin for bun (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('bun');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
