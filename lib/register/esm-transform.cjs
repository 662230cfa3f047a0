'use strict';
// The source rewrite shared by both ES module hooks (lib/register/hooks.cjs's
// in-thread module.registerHooks() hook and lib/register/esm-hooks.mjs's
// module.register() hook); safe on the module.register() loader thread
// (it loads no addon). When an MCP SDK ES module defines `Protocol` or a
// stdio transport, a call to lib/register/loader-patch.mjs naming those module-scope
// classes is appended; it runs as the module finishes evaluating. Which
// modules those are, the SDK adapter says (lib/adapters/modules.cjs, also
// dependency-free): this file knows only how to append the call.

const sdk = require('../adapters/modules.cjs');
const { bytesOf } = require('../shape/rewrite.cjs');

const { PATCH_BINDING: MARKER } = require('../shape/globals.cjs');

/** The call appended to a module that defines { protocol, transports } (lib/adapters/modules.cjs's definedClasses). */
function patchCall({ protocol, transports }, patchUrl) {
  let tail = `\n;import { patchFromLoader as ${MARKER}, patchStdioFromLoader as ${MARKER}Stdio } from ${JSON.stringify(patchUrl)};\n`;
  if (protocol) tail += `${MARKER}(Protocol, import.meta.url);\n`;
  if (transports.length > 0) tail += `${MARKER}Stdio({ ${transports.join(', ')} }, import.meta.url);\n`;
  return tail;
}

/** The classes `source` (a string or Buffer) defines that need the call, or undefined (none, or it already carries the call: a hook registered twice). */
function needsCall(source, framing) {
  const defined = sdk.definedClasses(source, framing);
  if (!defined.protocol && defined.transports.length === 0) return undefined;
  return source.indexOf(MARKER) >= 0 ? undefined : defined;
}

/**
 * `source` (a string) with the patch call appended, or undefined when the
 * module defines nothing to patch (or already carries the call).
 */
function withPatchCall(source, patchUrl, framing) {
  const defined = needsCall(source, framing);
  return defined === undefined ? undefined : source + patchCall(defined, patchUrl);
}

/**
 * A load hook's `source` (string, Buffer, ArrayBuffer or typed array) with
 * the patch call appended, or undefined when there is nothing to patch.
 * Bytes are looked at undecoded and returned as bytes (a Buffer), for Node
 * to decode once, as it does any module's source: most SDK modules define
 * nothing to patch and are passed on untouched.
 */
function patchedSource(source, patchUrl, framing) {
  const bytes = bytesOf(source);
  if (typeof bytes === 'string') return withPatchCall(bytes, patchUrl, framing);
  const defined = needsCall(bytes, framing);
  return defined === undefined ? undefined : Buffer.concat([bytes, Buffer.from(patchCall(defined, patchUrl))]);
}

/**
 * The load hooks' one rule: the source of the ES module at `url` with the
 * patch call appended when it is an SDK module that defines something to
 * patch, else undefined. A module under the SDK's scope is looked at
 * directly; one elsewhere in node_modules (an npm alias install) only when
 * its bytes define Protocol or a stdio transport, and then by the `name` in
 * its nearest package.json (lib/discover/package-of.cjs).
 */
function patchedSdkSource(url, source, patchUrl, framing) {
  if (!sdk.maySdkUrl(url)) return undefined;
  const inScope = url.includes(sdk.SDK_URL_SEGMENT);
  const patched = patchedSource(source, patchUrl, framing);
  if (patched === undefined || inScope) return patched;
  return require('../discover/package-of.cjs').isSdkModuleFile(url) ? patched : undefined;
}

module.exports = { withPatchCall, patchedSource, patchedSdkSource };
