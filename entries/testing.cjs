'use strict';
// `mcp-ordered-dispatch/testing`: the raw coalescing MCP server and the wire
// tap, for tests that prove messages are handled in wire order.
module.exports = require('../lib/testing/index.cjs');
