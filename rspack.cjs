'use strict';
// `mcp-ordered-dispatch/rspack`: the bundler plugin for rspack (lib/plugin/index.cjs),
// `plugins: [mcpOrderedDispatch(options)]`; docs/build-it-in.md.
const mcpOrderedDispatch = require('./lib/plugin/index.cjs').entry('rspack');

module.exports = mcpOrderedDispatch;
module.exports.default = mcpOrderedDispatch;
