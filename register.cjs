'use strict';
// `node --require mcp-ordered-dispatch/register app.cjs` (or a test runner's setup file):
// patch every MCP SDK copy the application loads, CommonJS and ES module builds alike.
const { register } = require('./lib/sandboxed.cjs');

// Jest injects `jest` into the scope of each module it runs; its sandbox
// hides what tests load from Node's loader hooks (see lib/sandboxed.cjs).
register(module, typeof jest !== 'undefined');
