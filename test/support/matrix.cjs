'use strict';
// The SDK version matrix: every entry is a copy of the SDK installed side by
// side in node_modules, the older ones through npm aliases (package.json
// devDependencies, e.g. "sdk-1-oldest": "npm:@modelcontextprotocol/sdk@1.0.0").
//
// install() finds an aliased copy by the name in its package.json
// (test/register/alias.test.mjs); the matrix patches each entry's Protocol classes with
// patchProtocol(), so that only the copy under test is patched.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');

// `client`/`server` are the package specifiers the copy is loaded by.
const MATRIX = [
  {
    id: '1.0.0',
    generation: 1,
    client: 'sdk-1-oldest',
    why: 'oldest supported: the first 1.x release. ESM only (exports "./*": "./dist/*"); require() loads that ESM build',
    builds: ['esm', 'require(esm)'],
  },
  { id: '1.2.0', generation: 1, client: 'sdk-1-oldest-cjs', why: 'the first 1.x with a CJS build', builds: ['esm', 'cjs'] },
  { id: '1.23.0', generation: 1, client: 'sdk-1-middle', why: 'middle: the last Protocol before the 1.24.0 tasks rewrite', builds: ['esm', 'cjs'] },
  { id: '1.32.2', generation: 1, client: '@modelcontextprotocol/sdk', why: 'latest 1.x', builds: ['esm', 'cjs'] },
  { id: '2.0.0', generation: 2, client: 'client-2-oldest', server: 'server-2-oldest', why: 'first 2.x release', builds: ['esm', 'cjs'] },
  { id: '2.4.0', generation: 2, client: '@modelcontextprotocol/client', server: '@modelcontextprotocol/server', why: 'latest 2.x', builds: ['esm', 'cjs'] },
];

function entry(id) {
  const found = MATRIX.find((e) => e.id === id);
  if (!found) throw new Error(`no matrix entry ${id}; have ${MATRIX.map((e) => e.id).join(', ')}`);
  return found;
}

/** Where each class of an entry comes from: [specifier, export name]. */
function specifiers(e) {
  if (e.generation === 1) {
    const p = e.client;
    return {
      Client: [`${p}/client/index.js`, 'Client'],
      StdioClientTransport: [`${p}/client/stdio.js`, 'StdioClientTransport'],
      Protocol: [`${p}/shared/protocol.js`, 'Protocol'],
      Server: [`${p}/server/index.js`, 'Server'],
      StdioServerTransport: [`${p}/server/stdio.js`, 'StdioServerTransport'],
      EmptyResultSchema: [`${p}/types.js`, 'EmptyResultSchema'],
    };
  }
  return {
    Client: [e.client, 'Client'],
    StdioClientTransport: [`${e.client}/stdio`, 'StdioClientTransport'],
    Protocol: [e.client, 'Protocol'],
    Server: [e.server, 'Server'],
    ServerProtocol: [e.server, 'Protocol'],
    StdioServerTransport: [`${e.server}/stdio`, 'StdioServerTransport'],
  };
}

/**
 * Load an entry's classes with `load` (import() for ESM, require() for the
 * CJS build or for require(esm)). Returns { Client, ..., Protocols: [...] }.
 */
async function loadEntry(e, load) {
  const out = { generation: e.generation };
  for (const [key, [specifier, name]] of Object.entries(specifiers(e))) {
    const mod = await load(specifier);
    out[key] = mod[name];
    if (out[key] === undefined) throw new Error(`${specifier} has no ${name}`);
  }
  out.Protocols = e.generation === 1 ? [out.Protocol] : [out.Protocol, out.ServerProtocol];
  return out;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The package (nearest package.json with a name) a loaded file belongs to. */
function packageOfFile(file) {
  let dir = path.dirname(file);
  for (;;) {
    const pkg = readJson(path.join(dir, 'package.json'));
    if (pkg?.name) return { root: path.relative(ROOT, dir), name: pkg.name, version: pkg.version };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The MCP SDK packages among loaded files: [{ root, name, version }], one per package root. */
function sdkPackagesOf(files) {
  const byRoot = new Map();
  for (const file of files) {
    if (!file.includes(`${path.sep}node_modules${path.sep}`)) continue;
    const pkg = packageOfFile(file);
    if (pkg && pkg.name.startsWith('@modelcontextprotocol/')) byRoot.set(pkg.root, pkg);
  }
  return [...byRoot.values()].sort((a, b) => a.root.localeCompare(b.root));
}

module.exports = { MATRIX, ROOT, entry, specifiers, loadEntry, sdkPackagesOf };
