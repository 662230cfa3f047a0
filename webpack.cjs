'use strict';
// `mcp-ordered-dispatch/webpack`: the bundler plugin for webpack (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('webpack');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
