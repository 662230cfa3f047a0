// The three SDKs a differential test runs side by side in one process, each
// the real packages: 'patched' (this repository's node_modules, patched with
// patchProtocol), 'stock' (an unchanged copy in a temporary project, which no
// patching reaches) and 'fixed' (a copy with only the upstream fix applied,
// test/patch/support/upstream-fixed.cjs). Every one by generation (1, 2) and
// build ('esm', 'cjs').
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const REPO_MODULES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'node_modules');

const ENTRIES = {
  1: {
    Client: ['sdk', { esm: 'dist/esm/client/index.js', cjs: 'dist/cjs/client/index.js' }],
    Server: ['sdk', { esm: 'dist/esm/server/index.js', cjs: 'dist/cjs/server/index.js' }],
    types: ['sdk', { esm: 'dist/esm/types.js', cjs: 'dist/cjs/types.js' }],
    Protocol: ['sdk', { esm: 'dist/esm/shared/protocol.js', cjs: 'dist/cjs/shared/protocol.js' }],
  },
  2: {
    Client: ['client', { esm: 'dist/index.mjs', cjs: 'dist/index.cjs' }],
    Server: ['server', { esm: 'dist/index.mjs', cjs: 'dist/index.cjs' }],
    Protocol: ['client', { esm: 'dist/index.mjs', cjs: 'dist/index.cjs' }],
    ServerProtocol: ['server', { esm: 'dist/index.mjs', cjs: 'dist/index.cjs' }],
  },
};
const EXPORT = { Client: 'Client', Server: 'Server', Protocol: 'Protocol', ServerProtocol: 'Protocol' };

/** { generation, build, Client, Server, types (1.x), Protocol[, ServerProtocol] } from `node_modules`. */
export async function loadFrom(nodeModules, generation, build) {
  const out = { generation, build };
  for (const [key, [pkg, files]] of Object.entries(ENTRIES[generation])) {
    const file = path.join(nodeModules, '@modelcontextprotocol', pkg, files[build]);
    const mod = build === 'esm' ? await import(pathToFileURL(file).href) : require(file);
    out[key] = key === 'types' ? mod : mod[EXPORT[key]];
    if (out[key] === undefined) throw new Error(`${file} has no ${EXPORT[key] ?? key}`);
  }
  return out;
}

/**
 * The three variants for one generation and build. `dirs`: { stock, fixed },
 * the projects made by makeStockCopyProject() and makeFixedUpstreamProject().
 * The patched one is this repository's copy, patched here (idempotent).
 */
export async function loadVariants(dirs, generation, build) {
  const { patchProtocol } = require('../../../entries/index.cjs');
  const patched = await loadFrom(REPO_MODULES, generation, build);
  patchProtocol(patched.Protocol);
  if (patched.ServerProtocol) patchProtocol(patched.ServerProtocol);
  return {
    patched,
    stock: await loadFrom(path.join(dirs.stock, 'node_modules'), generation, build),
    fixed: await loadFrom(path.join(dirs.fixed, 'node_modules'), generation, build),
  };
}
