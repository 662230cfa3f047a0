'use strict';
// `mcp-ordered-dispatch/vite`: the bundler plugin for vite (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('vite');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
