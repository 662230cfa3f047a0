// The differential fuzz of the whole Protocol (test/patch/support/protocol-fuzz.mjs):
// random scripts on the patched SDK, the stock SDK and the stock SDK with the
// upstream fix, Client and Server, 1.x and 2.x, ESM and CJS builds.
//
//   npm run fuzz -- --seconds 60             as many scripts as fit, a fresh seed
//   npm run fuzz -- --seed 123 --scripts 500 500 per configuration and role
//   npm run fuzz -- --seed 123 --script 17 --configs 2-esm --roles server   replay one
//
// Prints the seed first, and for each script that differs the command that replays it.
import { fuzz, parseArgs } from '../test/patch/support/protocol-fuzz.mjs';

const args = parseArgs(process.argv.slice(2));
console.log(`fuzz: seed ${args.seed}`);
const started = Date.now();
const result = await fuzz({ ...args, log: (line) => console.error(line) });
const total = Object.values(result.scripts).reduce((n, c) => n + c, 0);
for (const [key, n] of Object.entries(result.scripts)) console.log(`  ${key}: ${n} scripts`);
console.log(`fuzz: ${total} scripts in ${((Date.now() - started) / 1000).toFixed(1)} s, ${result.failures.length} with differences (seed ${result.seed})`);
for (const f of result.failures) console.log(`  replay: ${f.replay}`);
process.exitCode = result.failures.length > 0 ? 1 : 0;
