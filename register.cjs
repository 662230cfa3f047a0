'use strict';
// `node --require mcp-ordered-dispatch/register app.cjs` (or a test runner's setup file):
// patch every MCP SDK copy the application loads, CommonJS and ES module builds alike.
require('./lib/hooks.cjs').installHooks();
