'use strict';
// `node --require mcp-ordered-dispatch/register app.cjs` (or a test runner's setup file):
// patch every MCP SDK copy the application loads, CommonJS and ES module builds alike.

// Jest injects `jest` into the scope of each module it runs; its sandbox
// hides what tests load from Node's loader hooks (see lib/register/sandboxed.cjs).
const underJest = typeof jest !== 'undefined';
// A Node line register cannot run on (run puts it into every Node process a host starts): stock, one line.
if (require('../lib/register/gate.cjs').mayRun()) require('../lib/register/sandboxed.cjs').register(module, underJest);
