'use strict';
// Load-time patching for `mcp-ordered-dispatch/register`: every SDK copy the
// application loads is patched as it loads, wherever it sits in node_modules
// (nested dependencies included), without loading any copy the app does not use.
//   - CommonJS (and require(esm)): a wrapper around Module._load looks at what
//     a require() under @modelcontextprotocol/ returned.
//   - ES modules: a module.register() load hook appends a call to
//     lib/loader-patch.mjs to the SDK module that defines `Protocol`.

const Module = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { patchProtocol, isPatched } = require('./patch.cjs');
const { sourceOfFile } = require('./discover.cjs');
const { patchStdioExports } = require('./stdio.cjs');

// MCP_ORDERED_DISPATCH_FRAMING=off keeps the SDK's own stdio ReadBuffer.
const framing = !/^(0|off|false|no)$/i.test(process.env.MCP_ORDERED_DISPATCH_FRAMING ?? '');

const SDK_PATH = `${path.sep}@modelcontextprotocol${path.sep}`;
let cjsHookInstalled = false;
let esmHookInstalled = false;

function isSdkProtocol(value) {
  return typeof value === 'function' && value.prototype && typeof value.prototype._onnotification === 'function';
}

// At load time a copy we cannot patch is left stock with a warning rather
// than failing the application's import; install() and patchProtocol() throw.
function patchLoaded(Protocol, file) {
  if (isPatched(Protocol)) return;
  try {
    patchProtocol(Protocol, { source: sourceOfFile(file) });
  } catch (error) {
    if (error?.name !== 'UnsupportedSdkError') throw error;
    process.emitWarning(`${error.message} It runs unpatched.`, { type: 'UnsupportedSdkWarning', code: 'MCP_ORDERED_DISPATCH_UNSUPPORTED' });
  }
}

function installCjsHook() {
  if (cjsHookInstalled) return;
  cjsHookInstalled = true;
  const originalLoad = Module._load;
  Module._load = function _load(request, parent, isMain) {
    const exports = originalLoad.apply(this, arguments);
    const fromSdk = request.includes('@modelcontextprotocol/') || parent?.filename?.includes(SDK_PATH);
    if (fromSdk && exports !== null && typeof exports === 'object') {
      const Protocol = exports.Protocol;
      const needsProtocol = isSdkProtocol(Protocol) && !isPatched(Protocol);
      const needsFraming = framing && (typeof exports.StdioClientTransport === 'function' || typeof exports.StdioServerTransport === 'function');
      if (needsProtocol || needsFraming) {
        const file = Module._resolveFilename(request, parent, isMain);
        if (needsProtocol) patchLoaded(Protocol, file);
        if (needsFraming) patchStdioExports(exports, file);
      }
    }
    return exports;
  };
  // Copies already loaded before the hook: patch them too.
  for (const [file, cached] of Object.entries(require.cache)) {
    if (!file.includes(SDK_PATH)) continue;
    if (isSdkProtocol(cached?.exports?.Protocol)) patchLoaded(cached.exports.Protocol, file);
    if (framing) patchStdioExports(cached?.exports, file);
  }
}

function installEsmHook() {
  if (esmHookInstalled) return;
  esmHookInstalled = true;
  const patchUrl = pathToFileURL(path.join(__dirname, 'loader-patch.mjs')).href;
  Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href, { data: { patchUrl, framing } });
}

function installHooks() {
  installCjsHook();
  if (typeof Module.register === 'function') installEsmHook();
}

module.exports = { installHooks, patchLoaded };
