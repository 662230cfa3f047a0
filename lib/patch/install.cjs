'use strict';
// install(): patch every SDK copy the application resolves, now.

const { patchProtocol, sdkStatus, UnsupportedSdkError } = require('./protocol.cjs');
const { describeSource } = require('./records.cjs');
const { findSdkCopies, defaultBases, denoNpmCache } = require('../discover/discover.cjs');
const progress = require('../progress/tokens.cjs');
const stdio = require('./transport-plan.cjs');
const native = require('../native/addon.cjs');
const { protocolExportOf } = require('../adapters/modules.cjs');
const path = require('node:path');


/** install() found nothing to patch: say where it looked and what reaches a copy it cannot see (once per process). */
function warnNoCopy(searched) {
  require('../warnings/warnings.cjs').warn(
    'NO_SDK',
    `mcp-ordered-dispatch: install() found no MCP SDK copy to patch. It looked for the SDK's packages (and npm aliases and forks of them) in the node_modules directories that ${searched.join(', ')} resolve from, and in every package beneath them` +
      `${process.versions.deno === undefined ? '' : `, and in Deno's npm cache ${denoNpmCache()}`}. ` +
      'An SDK loaded from anywhere else (a bundle, a copy outside node_modules) stays stock: call patchProtocol() on the Protocol class the application imports, or load it under `--import mcp-ordered-dispatch/register`; install({ paths: [...] }) adds places to look.',
    'once',
  );
}

function loadProtocol(copy) {
  // require() loads ESM builds too (Node >= 20.19) and returns the very
  // module instance `import` would, so patching here patches what the app imports.
  return protocolExportOf(require(copy.file));
}

/**
 * Patch the Protocol class of every MCP SDK build resolvable from the
 * working directory and the main module (and `options.paths`), and of every
 * copy installed beneath them (a dependency's own, at any depth of
 * node_modules: npm, yarn, pnpm's .pnpm store), whatever name
 * it is installed under (found by the `name` in its package.json, so npm
 * aliases too), and its stdio transports (native framing; `framing: false`
 * leaves them stock). A build whose Protocol already dispatches notifications
 * in wire order (fixed upstream) is left stock and listed in `fixedUpstream`.
 * All copies are checked before any is patched: if one is neither patchable
 * nor fixed upstream, this throws an UnsupportedSdkError naming it, and
 * nothing is patched.
 */
function install(options = {}) {
  native.load(); // a NativeAddonError when no addon loads
  const bases = [...(options.paths ?? []), ...(options.cwd ? [options.cwd] : defaultBases())];
  const copies = findSdkCopies(bases);
  const plan = [];
  const fixedUpstream = [];
  const problems = [];
  for (const copy of copies) {
    // Where it is: `file` (and `root`), and `nested` for a dependency's own copy.
    const source = { name: copy.name, version: copy.version, build: copy.build, file: copy.file, root: copy.root };
    if (copy.nested) Object.assign(source, { nested: true, installedAt: copy.installedAt });
    let Protocol;
    try {
      Protocol = loadProtocol(copy);
    } catch (error) {
      // A version in Deno's npm cache that this process's npm resolution does not have: not the application's.
      if (!copy.denoCache) problems.push(`${describeSource(copy)} could not be loaded: ${error.message}`);
      continue;
    }
    const status = sdkStatus(Protocol, source);
    if (status instanceof Error) problems.push(status.message);
    else if (status.status === 'fixed-upstream') fixedUpstream.push({ ...source, generation: status.generation });
    else plan.push({ Protocol, source, generation: status.generation });
  }
  // The SDK's stdio transports, framed natively (unless options.framing is false).
  const transports = options.framing === false ? { plan: [], problems: [] } : stdio.planStdioTransports(bases);
  problems.push(...transports.problems);
  if (problems.length > 0) {
    throw new UnsupportedSdkError(problems.join('\n'));
  }
  progress.setDefaults(options);
  const patched = [];
  const unpatchers = [];
  for (const { Protocol, source, generation } of plan) {
    unpatchers.push(patchProtocol(Protocol, { source }));
    patched.push({ ...source, generation });
  }
  const framed = stdio.applyStdioPlan(transports.plan, { strict: options.strict === true, offThread: options.offThread });
  unpatchers.push(framed.unpatch);
  const framing = framed.patched.map(({ transport, sdk, ...source }) => ({ ...source, transport, generation: sdk }));
  // What `run` put in the environment is for this process's MCP servers only (framed transports put it back).
  if (patched.length > 0 && framed.patched.length > 0) require('./fix-env.cjs').takeOutOnce();
  const searched = [...new Set(bases.map((base) => path.resolve(base)))];
  if (plan.length + fixedUpstream.length === 0) warnNoCopy(searched);
  let installed = true;
  return {
    patched,
    fixedUpstream,
    framing,
    searched,
    uninstall() {
      if (!installed) return;
      installed = false;
      for (const unpatch of unpatchers) unpatch();
    },
  };
}

module.exports = { install };
