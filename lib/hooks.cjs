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
      if (isSdkProtocol(Protocol) && !isPatched(Protocol)) {
        patchLoaded(Protocol, Module._resolveFilename(request, parent, isMain));
      }
    }
    return exports;
  };
  // Copies already loaded before the hook: patch them too.
  for (const [file, cached] of Object.entries(require.cache)) {
    if (file.includes(SDK_PATH) && isSdkProtocol(cached?.exports?.Protocol)) patchLoaded(cached.exports.Protocol, file);
  }
}

function installEsmHook() {
  if (esmHookInstalled) return;
  esmHookInstalled = true;
  const patchUrl = pathToFileURL(path.join(__dirname, 'loader-patch.mjs')).href;
  Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href, { data: { patchUrl } });
}

function installHooks() {
  installCjsHook();
  if (typeof Module.register === 'function') installEsmHook();
}

module.exports = { installHooks, patchLoaded };
