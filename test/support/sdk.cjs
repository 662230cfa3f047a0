'use strict';
// The SDK under test, by generation (1 or 2) and build ('esm' or 'cjs'):
// the real packages from node_modules, loaded the way an application would.

const SPECIFIERS = {
  1: {
    Client: ['@modelcontextprotocol/sdk/client/index.js', 'Client'],
    StdioClientTransport: ['@modelcontextprotocol/sdk/client/stdio.js', 'StdioClientTransport'],
    Server: ['@modelcontextprotocol/sdk/server/index.js', 'Server'],
    McpServer: ['@modelcontextprotocol/sdk/server/mcp.js', 'McpServer'],
    InMemoryTransport: ['@modelcontextprotocol/sdk/inMemory.js', 'InMemoryTransport'],
    Protocol: ['@modelcontextprotocol/sdk/shared/protocol.js', 'Protocol'],
  },
  2: {
    Client: ['@modelcontextprotocol/client', 'Client'],
    StdioClientTransport: ['@modelcontextprotocol/client/stdio', 'StdioClientTransport'],
    Server: ['@modelcontextprotocol/server', 'Server'],
    McpServer: ['@modelcontextprotocol/server', 'McpServer'],
    InMemoryTransport: ['@modelcontextprotocol/client', 'InMemoryTransport'],
    Protocol: ['@modelcontextprotocol/client', 'Protocol'],
    ServerProtocol: ['@modelcontextprotocol/server', 'Protocol'],
  },
};

async function loadSdk(generation, build) {
  const out = { generation, build };
  for (const [key, [specifier, name]] of Object.entries(SPECIFIERS[generation])) {
    const mod = build === 'esm' ? await import(specifier) : require(specifier);
    out[key] = mod[name];
    if (typeof out[key] !== 'function') throw new Error(`${specifier} has no ${name}`);
  }
  if (generation === 1) {
    out.types = build === 'esm' ? await import('@modelcontextprotocol/sdk/types.js') : require('@modelcontextprotocol/sdk/types.js');
  }
  return out;
}

const FLAVORS = [
  { generation: 1, build: 'esm' },
  { generation: 1, build: 'cjs' },
  { generation: 2, build: 'esm' },
  { generation: 2, build: 'cjs' },
];

/** 1.x takes (params, resultSchema, options); 2.x takes (params, options). */
function callTool(sdk, client, params, options) {
  return sdk.generation === 1 ? client.callTool(params, undefined, options) : client.callTool(params, options);
}


/** Register a handler for `notifications/message` on a Client or Server, in the generation's own API. */
function onLogMessage(sdk, protocol, handler) {
  if (sdk.generation === 1) {
    protocol.setNotificationHandler(sdk.types.LoggingMessageNotificationSchema, handler);
  } else {
    protocol.setNotificationHandler('notifications/message', handler);
  }
}

function onRootsListChanged(sdk, protocol, handler) {
  if (sdk.generation === 1) {
    protocol.setNotificationHandler(sdk.types.RootsListChangedNotificationSchema, handler);
  } else {
    protocol.setNotificationHandler('notifications/roots/list_changed', handler);
  }
}

module.exports = { loadSdk, FLAVORS, callTool, onLogMessage, onRootsListChanged };
