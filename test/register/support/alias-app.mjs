// An application that uses an SDK copy installed under an npm alias (the
// version matrix's devDependencies, e.g. "sdk-1-oldest":
// "npm:@modelcontextprotocol/sdk@1.0.0"), for test/register/alias.test.mjs:
//   --how=stock | install (install() from mcp-ordered-dispatch) | register (run under --import/--require register)
// Runs the Client stdio reproduction (all-in-one writes) and prints ONE line
// of JSON: whether the aliased Protocol is patched, the result, warnings.
//
//   node [--import mcp-ordered-dispatch/register] test/register/support/alias-app.mjs --alias=sdk-1-oldest --build=esm --how=...
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const alias = args.alias;
const build = args.build ?? 'esm';
const warnings = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));

const load = build === 'esm' ? (s) => import(s) : async (s) => require(s);
const { Client } = await load(`${alias}/client/index.js`);
const { StdioClientTransport } = await load(`${alias}/client/stdio.js`);
const { Protocol } = await load(`${alias}/shared/protocol.js`);

const lib = require('mcp-ordered-dispatch');
let installed;
if (args.how === 'install') installed = lib.install();

const { runRepro } = require('../../support/repro.cjs');
const result = await runRepro({ Client, StdioClientTransport, generation: 1 }, { pairs: 2, concurrency: 2, mode: 'all-in-one' });
process.stdout.write(
  JSON.stringify({
    patched: lib.isPatched(Protocol),
    installed: installed && installed.patched.filter((p) => p.file.split(path.sep).join('/').includes(`/node_modules/${alias}/`)),
    result,
    warnings,
  }) + '\n',
);
