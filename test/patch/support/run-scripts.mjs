// A child process for the fidelity tests: runs the scripts given (JSON, as
// protocol-script.mjs makes them) on the stock, patched and fixed-upstream
// SDK (sdk-copies.mjs) of each configuration, and prints one JSON line:
//   { [config]: [ { stock, patched, patchedOnePerRead, fixed } per script ] }
// stock runs one message per read; patched and fixed the script's reads.
//
//   node run-scripts.mjs --configs 1-esm,2-cjs --scripts '<json array>'
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { loadVariants } from './sdk-copies.mjs';
import { runScript, onePerRead } from './protocol-runner.mjs';

const require = createRequire(import.meta.url);
const { makeFixedUpstreamProject, makeStockCopyProject } = require('./upstream-fixed.cjs');
const { configure } = require('../../../entries/index.cjs');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const scripts = JSON.parse(args.scripts);
const configs = args.configs.split(',');

const stock = makeStockCopyProject();
const fixed = makeFixedUpstreamProject();
const out = {};
try {
  for (const config of configs) {
    const [generation, build] = config.split('-');
    const variants = await loadVariants({ stock: stock.dir, fixed: fixed.dir }, Number(generation), build);
    out[config] = [];
    for (const script of scripts) {
      out[config].push({
        stock: await runScript(variants.stock, onePerRead(script)),
        patched: await runScript(variants.patched, script, { configure, reenter: script.reenter }),
        patchedOnePerRead: await runScript(variants.patched, onePerRead(script), { configure }),
        fixed: await runScript(variants.fixed, script, { reenter: script.reenter }),
      });
    }
  }
} finally {
  fs.rmSync(stock.dir, { recursive: true, force: true });
  fs.rmSync(fixed.dir, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
