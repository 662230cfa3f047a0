'use strict';
// `mcp-ordered-dispatch/esbuild`: the bundler plugin for esbuild (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('esbuild');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
