'use strict';
// JSON-RPC messages the tests deliver through transport.onmessage, as a
// transport does after a read.

const progress = (token, value, total = 3) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: token, progress: value, total },
});

const toolResult = (id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done' }] } });

const logMessage = (data) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });

module.exports = { progress, toolResult, logMessage };
