// The differential fuzz of the whole Protocol: random scripts
// (protocol-script.mjs) run on the patched SDK, the stock SDK and the stock
// SDK with the upstream fix (sdk-copies.mjs), compared stream by stream
// (protocol-runner.mjs). Per script:
//   - stock, one message per read, the event loop drained between reads:
//     the reference;
//   - patched, one message per read: must equal the reference;
//   - patched, the script's reads (coalesced, re-entrant or not): must equal
//     the reference, with what README documents normalised (runner: late
//     progress; the streams compared as multisets where a read's
//     settlements and request handler starts land after its other events);
//   - fixed upstream, the same reads: must equal patched, with the upstream
//     fix's own difference normalised (an onerror that throws on the
//     notification path leaves onmessage synchronously there, where stock and
//     patched make it an unhandled rejection: `threw` and `unhandled` compared as one).
//
// As a program (a child process: the runner listens for process-level escapes):
//   node test/patch/support/protocol-fuzz.mjs --seed S [--scripts N] [--seconds N]
//        [--configs 1-esm,1-cjs,2-esm,2-cjs] [--roles client,server] [--script I]
// prints one JSON line { seed, scripts: { config/role: n }, failures: [...] }
// and exits 1 when a script differs, naming the replay command.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadVariants } from './sdk-copies.mjs';
import { makeScript, scriptSeed } from './protocol-script.mjs';
import { runScript, onePerRead, compare } from './protocol-runner.mjs';

const require = createRequire(import.meta.url);
const { makeFixedUpstreamProject, makeStockCopyProject } = require('./upstream-fixed.cjs');

export const CONFIGS = ['1-esm', '1-cjs', '2-esm', '2-cjs'];
export const ROLES = ['client', 'server'];

function merged(trace) {
  return { ...trace, threw: [...trace.threw, ...trace.unhandled], unhandled: [] };
}

/** Run one script everywhere; the list of differences (empty when none). */
export async function checkScript(variants, script, configure) {
  const reference = await runScript(variants.stock, onePerRead(script));
  const single = await runScript(variants.patched, onePerRead(script), { configure });
  const patched = await runScript(variants.patched, script, { configure, reenter: script.reenter });
  const fixed = await runScript(variants.fixed, script, { reenter: script.reenter });
  const found = [];
  for (const d of compare(reference, single)) found.push({ against: 'stock, one per read (patched one per read)', ...d });
  for (const d of compare(reference, patched)) found.push({ against: 'stock, one per read (patched, script reads)', ...d });
  for (const d of compare(merged(fixed), merged(patched))) found.push({ against: 'fixed upstream, script reads', ...d });
  return found;
}

/**
 * Fuzz: `scripts` per configuration and role (or until `seconds` pass, when
 * given). `only`: one script index (a replay). Returns { seed, scripts, failures }.
 */
export async function fuzz({ seed, scripts = 50, seconds, configs = CONFIGS, roles = ROLES, only, log = () => {} }) {
  const { configure } = require('../../../entries/index.cjs');
  const stock = makeStockCopyProject();
  const fixed = makeFixedUpstreamProject();
  const counts = {};
  const failures = [];
  const deadline = seconds === undefined ? Infinity : Date.now() + seconds * 1000;
  try {
    for (const config of configs) {
      const [generation, build] = config.split('-');
      const variants = await loadVariants({ stock: stock.dir, fixed: fixed.dir }, Number(generation), build);
      for (const role of roles) {
        const key = `${config}/${role}`;
        counts[key] = 0;
        const first = only ?? 0;
        const last = only ?? (seconds === undefined ? scripts - 1 : Infinity);
        // With --seconds, each configuration and role gets its share of the time.
        const share = Date.now() + (deadline - Date.now()) / ((configs.length - configs.indexOf(config)) * roles.length - roles.indexOf(role));
        for (let i = first; i <= last && (seconds === undefined || Date.now() < share); i++) {
          const script = makeScript(scriptSeed(seed, i), role);
          let found;
          try {
            found = await checkScript(variants, script, configure);
          } catch (error) {
            found = [{ against: 'runner', error: error?.stack ?? String(error) }];
          }
          counts[key]++;
          if (found.length > 0) {
            const replay = `npm run fuzz -- --seed ${seed} --script ${i} --configs ${config} --roles ${role}`;
            failures.push({ config, role, index: i, replay, script, differences: found });
            log(`DIFFERENCE ${key} script ${i} (seed ${seed}); replay: ${replay}\n${JSON.stringify(found, null, 1)}`);
            if (failures.length >= 5) return { seed, scripts: counts, failures };
          }
        }
      }
    }
  } finally {
    fs.rmSync(stock.dir, { recursive: true, force: true });
    fs.rmSync(fixed.dir, { recursive: true, force: true });
  }
  return { seed, scripts: counts, failures };
}

export function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=');
    const value = inline ?? argv[++i];
    if (flag === '--seed') args.seed = Number(value) >>> 0;
    else if (flag === '--scripts') args.scripts = Number(value);
    else if (flag === '--seconds') args.seconds = Number(value);
    else if (flag === '--script') args.only = Number(value);
    else if (flag === '--configs') args.configs = value.split(',');
    else if (flag === '--roles') args.roles = value.split(',');
    else throw new Error(`unknown option ${argv[i]}`);
  }
  args.seed ??= (Date.now() ^ (process.pid << 16)) >>> 0;
  return args;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const args = parseArgs(process.argv.slice(2));
  const result = await fuzz({ ...args, log: (line) => console.error(line) });
  for (const f of result.failures) console.error(`seed ${result.seed}: replay with: ${f.replay}`);
  console.log(JSON.stringify({ seed: result.seed, scripts: result.scripts, failures: result.failures.map(({ replay, differences }) => ({ replay, differences })) }));
  process.exitCode = result.failures.length > 0 ? 1 : 0;
}
