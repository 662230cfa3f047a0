// An application of the upstream-fixed fixture project (test/patch/support/upstream-fixed.cjs
// copies this file into the project, so that bare specifiers resolve to the
// project's fixed SDK copies). Loads 1.x and 2.x, one build, and:
//   --how=stock          nothing else
//   --how=install        install() from mcp-ordered-dispatch
//   --how=patchProtocol  patchProtocol() on each Protocol class
//   --how=register       nothing (run it under --import/--require .../register)
// then runs the Client stdio reproduction (raw server, all-in-one writes) and
// the Server reproduction, and prints ONE line of JSON: what happened to each
// Protocol class, the results, and every process warning.
//
//   node [--import <root>/register.mjs] app.mjs --root=<repository> --build=esm|cjs --how=...
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const ROOT = args.root;
const build = args.build ?? 'esm';
const how = args.how ?? 'stock';

const warnings = [];
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));

const load = build === 'esm' ? (s) => import(s) : async (s) => require(s);
const v1 = {
  generation: 1,
  Client: (await load('@modelcontextprotocol/sdk/client/index.js')).Client,
  StdioClientTransport: (await load('@modelcontextprotocol/sdk/client/stdio.js')).StdioClientTransport,
  Server: (await load('@modelcontextprotocol/sdk/server/index.js')).Server,
  StdioServerTransport: (await load('@modelcontextprotocol/sdk/server/stdio.js')).StdioServerTransport,
  EmptyResultSchema: (await load('@modelcontextprotocol/sdk/types.js')).EmptyResultSchema,
  Protocols: { sdk: (await load('@modelcontextprotocol/sdk/shared/protocol.js')).Protocol },
};
const client2 = await load('@modelcontextprotocol/client');
const server2 = await load('@modelcontextprotocol/server');
const v2 = {
  generation: 2,
  Client: client2.Client,
  StdioClientTransport: (await load('@modelcontextprotocol/client/stdio')).StdioClientTransport,
  Server: server2.Server,
  StdioServerTransport: (await load('@modelcontextprotocol/server/stdio')).StdioServerTransport,
  Protocols: { client: client2.Protocol, server: server2.Protocol },
};

const lib = require(path.join(ROOT, 'entries', 'index.cjs'));
const { runRepro } = require(path.join(ROOT, 'test', 'support', 'repro.cjs'));
const { runServerRepro } = require(path.join(ROOT, 'test', 'support', 'server-repro.cjs'));

const protocols = { ...v1.Protocols, ...v2.Protocols };
const before = Object.fromEntries(Object.entries(protocols).map(([k, P]) => [k, ownMethods(P)]));

let installed;
const unpatchers = [];
let threw = null;
try {
  if (how === 'install') {
    installed = lib.install();
  } else if (how === 'patchProtocol') {
    for (const P of Object.values(protocols)) unpatchers.push(lib.patchProtocol(P));
  }
} catch (error) {
  threw = `${error.name}: ${error.message}`;
}

function ownMethods(P) {
  return Object.fromEntries(Object.getOwnPropertyNames(P.prototype).map((n) => [n, Object.getOwnPropertyDescriptor(P.prototype, n).value]));
}

const classes = {};
for (const [key, P] of Object.entries(protocols)) {
  const now = ownMethods(P);
  classes[key] = {
    patched: lib.isPatched(P),
    // Left stock: the very same own methods as before (and, for register, the fixed code itself).
    unchanged: Object.keys(now).length === Object.keys(before[key]).length && Object.keys(now).every((n) => now[n] === before[key][n]),
    runsHandlerSynchronously: /\(run, report\) =>/.test(Function.prototype.toString.call(P.prototype._onnotification)),
    hasPatchSymbol: Object.getOwnPropertySymbols(P.prototype).some((s) => String(s).includes('mcp-ordered-dispatch')),
  };
}

const options = { pairs: 1, concurrency: 2, mode: 'all-in-one', progress: 3 };
const results = {};
for (const sdk of [v1, v2]) {
  results[sdk.generation] = {
    client: await runRepro(sdk, options),
    server: await runServerRepro(sdk, options),
  };
}
const unpatched = unpatchers.every((u) => typeof u === 'function');
process.stdout.write(
  JSON.stringify({
    how,
    build,
    threw,
    unpatched,
    installed: installed && { patched: installed.patched, fixedUpstream: installed.fixedUpstream, framing: installed.framing.length },
    classes,
    results,
    warnings,
  }) + '\n',
);
