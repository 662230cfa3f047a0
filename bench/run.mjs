// `npm run bench`: every benchmark, stock against patched measured in the same
// run, as one table. Each script also runs alone (see its header); here each
// is asked for `--json` rows: { row, stock, patched, unit, lowerIsBetter, baseline?, note?,
// target?, met? } — `target` names an issue's target for the row and `met`
// says whether this run meets it (the table shows it; no test asserts time).
//
//   npm run bench                  the full table
//   npm run bench -- --quick       fewer rounds and smaller inputs (a smoke run)
//   npm run bench -- --only=framing,eventloop   only those scripts
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const BENCHES = [
  ['dispatch.mjs', quick ? ['--rounds=1', '--calls=5000'] : ['--rounds=5']],
  ['framing.mjs', quick ? ['--quick'] : []],
  ['thread-framing.mjs', quick ? ['--quick'] : []],
  ['stdio.mjs', quick ? ['--rounds=1', '--calls=200'] : ['--rounds=3']],
  ['eventloop.mjs', quick ? ['--quick'] : []],
  ['roundtrip.mjs', quick ? ['--quick'] : []],
  ['memory.mjs', quick ? ['--quick'] : []],
  ['startup.mjs', quick ? ['--quick'] : ['--instructions']],
];

// Load at the time of the run: on a shared machine, read every row with it.
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();

const rows = [];
for (const [script, extra] of BENCHES) {
  if (!fs.existsSync(here(script))) continue;
  if (only && !only.includes(script.replace(/\.mjs$/, ''))) continue;
  process.stderr.write(`running bench/${script} ${extra.join(' ')}...\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', here(script), '--json', ...extra], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    console.error(`bench/${script} failed:\n${r.stderr}`);
    process.exitCode = 1;
    continue;
  }
  const line = r.stdout.trim().split('\n').pop();
  rows.push(...JSON.parse(line).rows);
}

const fmt = (n, unit) => (unit === 'MB' || unit === 'MB/s' ? n.toFixed(1) : n >= 100 ? n.toFixed(0) : n.toFixed(2));
console.log(`\nmcp-ordered-dispatch benchmarks — node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} CPUs, load average (1/5/15 min) ${loadBefore} before, ${load()} after\n`);
console.log('| measurement | stock (or baseline) | patched | patched ÷ stock | target | notes |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  // A ratio of a negative or zero figure (e.g. heap growth below zero) means nothing.
  const ratio = r.stock > 0 && r.patched >= 0 ? `${(r.patched / r.stock).toFixed(2)}× ${r.lowerIsBetter ? '(lower is better)' : '(higher is better)'}` : '—';
  const base = r.baseline ? `${fmt(r.stock, r.unit)} ${r.unit} (${r.baseline})` : `${fmt(r.stock, r.unit)} ${r.unit}`;
  const target = r.target ? `${r.target}: ${r.met ? 'met' : '**not met**'}` : '';
  console.log(`| ${r.row} | ${base} | ${fmt(r.patched, r.unit)} ${r.unit} | ${ratio} | ${target} | ${r.note ?? ''} |`);
}
