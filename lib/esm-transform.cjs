'use strict';
// Dependency-free (safe on the module.register() loader thread, loads no
// addon): the source rewrite shared by both ES module hooks (lib/hooks.cjs's
// in-thread module.registerHooks() hook and lib/esm-hooks.mjs's
// module.register() hook). When an MCP SDK ES module defines `Protocol` or a
// stdio transport, a call to lib/loader-patch.mjs naming those module-scope
// classes is appended; it runs as the module finishes evaluating. Which
// modules those are, the SDK adapter says (lib/adapters/modules.cjs, also
// dependency-free): this file knows only how to append the call.

const sdk = require('./adapters/modules.cjs');

const MARKER = '__mcpOrderedDispatchPatch';

/**
 * `source` with the patch call appended, or undefined when the module defines
 * nothing to patch (or already carries the call: a hook registered twice).
 */
function withPatchCall(source, patchUrl, framing) {
  if (source.includes(MARKER)) return undefined;
  const protocol = sdk.definesProtocol(source);
  const transports = framing ? sdk.stdioClassesDefinedIn(source) : [];
  if (!protocol && transports.length === 0) return undefined;
  let tail = `\n;import { patchFromLoader as ${MARKER}, patchStdioFromLoader as ${MARKER}Stdio } from ${JSON.stringify(patchUrl)};\n`;
  if (protocol) tail += `${MARKER}(Protocol, import.meta.url);\n`;
  if (transports.length > 0) tail += `${MARKER}Stdio({ ${transports.join(', ')} }, import.meta.url);\n`;
  return source + tail;
}

/**
 * A load hook's `source` (string, Buffer, ArrayBuffer or typed array) with
 * the patch call appended, or undefined when there is nothing to patch.
 */
function patchedSource(source, patchUrl, framing) {
  if (typeof source !== 'string') {
    const bytes = Buffer.isBuffer(source)
      ? source
      : ArrayBuffer.isView(source)
        ? Buffer.from(source.buffer, source.byteOffset, source.byteLength)
        : Buffer.from(source);
    // Most SDK modules define nothing to patch, and are passed on undecoded.
    if (!sdk.mayDefine(bytes, framing)) return undefined;
    source = bytes.toString('utf8');
  }
  return withPatchCall(source, patchUrl, framing);
}

/**
 * The load hooks' one rule: the source of the ES module at `url` with the
 * patch call appended when it is an SDK module that defines something to
 * patch, else undefined. A module under the SDK's scope is looked at
 * directly; one elsewhere in node_modules (an npm alias install) only when
 * its bytes define Protocol or a stdio transport, and then by the `name` in
 * its nearest package.json (lib/discover.cjs).
 */
function patchedSdkSource(url, source, patchUrl, framing) {
  const inScope = url.includes(sdk.SDK_URL_SEGMENT);
  if (!inScope && !url.includes('/node_modules/')) return undefined;
  const patched = patchedSource(source, patchUrl, framing);
  if (patched === undefined || inScope) return patched;
  return require('./discover.cjs').isSdkModuleFile(url) ? patched : undefined;
}

module.exports = { withPatchCall, patchedSource, patchedSdkSource };
