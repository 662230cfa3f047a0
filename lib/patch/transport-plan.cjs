'use strict';
// install()'s plan for the SDK's stdio transports: every copy resolvable on
// disk found, loaded, checked, then patched by lib/patch/transports.cjs.

const { UnsupportedSdkError, describeSource } = require('./records.cjs');
const sdkModules = require('../adapters/modules.cjs');
const adapter = require('../adapters/stdio.cjs');
const { patchStdioTransport, isStdioPatched, describeTransport: describe } = require('./transports.cjs');

/**
 * Every SDK stdio transport module (package x ESM/CJS build) resolvable from
 * the base directories: [{ name, version, build, file, root, exportName, sdk }].
 * Nothing is loaded.
 */
function findStdioModules(bases) {
  return require('../discover/discover.cjs').findSdkFiles(bases, sdkModules.STDIO_MODULES);
}

/**
 * Load the stdio transport classes resolvable from the base directories:
 * [{ Transport, sdk, source: { name, version, build, file } }], or throws an
 * UnsupportedSdkError listing the modules that could not be loaded.
 */
function findStdioTransports(bases) {
  const found = [];
  const problems = [];
  for (const copy of findStdioModules(bases)) {
    const source = { name: copy.name, version: copy.version, build: copy.build, file: copy.file };
    try {
      // require() loads ESM builds too (Node >= 20.19), the same instance `import` gets.
      const Transport = require(copy.file)?.[copy.exportName];
      if (typeof Transport !== 'function') throw new Error(`it has no ${copy.exportName} export`);
      found.push({ Transport, sdk: copy.sdk, source });
    } catch (error) {
      // A version in Deno's npm cache that this process's npm resolution does not have (lib/discover/discover.cjs): not the application's.
      if (!copy.denoCache) problems.push(`${describeSource(copy)} ${copy.file}: ${error.message}`);
    }
  }
  if (problems.length > 0) throw new UnsupportedSdkError(`mcp-ordered-dispatch: stdio transports could not be loaded:\n${problems.join('\n')}`);
  return found;
}

/**
 * What patching the transports resolvable from `bases` takes, nothing
 * patched yet: { plan: [{ Transport, sdk, source }] (those to patch),
 * problems: [string] (each one that cannot be loaded or patched) }.
 */
function planStdioTransports(bases) {
  let found;
  try {
    found = findStdioTransports(bases);
  } catch (error) {
    return { plan: [], problems: [error.message] };
  }
  const plan = [];
  const problems = [];
  for (const entry of found) {
    const why = isStdioPatched(entry.Transport) ? null : adapter.whyNotStdioTransport(entry.Transport);
    if (why === null) plan.push(entry);
    else problems.push(`${describe(entry.Transport, entry.source)} ${entry.Transport.name}: ${why}`);
  }
  return { plan, problems };
}

/** Patch what planStdioTransports() found: { patched: [{ ...source, transport, sdk }], unpatch() }. */
function applyStdioPlan(plan, options = {}) {
  const unpatchers = plan.map(({ Transport, sdk, source }) => patchStdioTransport(Transport, { ...options, sdk, source }));
  return {
    patched: plan.map(({ Transport, sdk, source }) => ({ ...source, transport: Transport.name, sdk })),
    unpatch() {
      for (const unpatch of unpatchers) unpatch();
    },
  };
}

module.exports = { planStdioTransports, applyStdioPlan };
