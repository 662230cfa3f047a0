// `npm run bench`: every benchmark, stock against patched measured in the same
// run, as one table. Each script also runs alone (see its header); here each
// is asked for `--json` rows: { row, stock, patched, unit, lowerIsBetter, baseline?, note?,
// target?, met? } — `target` names an issue's target for the row and `met`
// says whether this run meets it (the table shows it; no test asserts time).
//
//   npm run bench                  the full table
//   npm run bench -- --quick       fewer rounds and smaller inputs (a smoke run)
//   npm run bench -- --only=framing,eventloop   only those scripts
//   npm run bench -- --against=DIR [--rounds=3]  this tree's build against the
//       checkout in DIR (its own build and bench scripts, e.g. a `git worktree`
//       of the commit before a change): for each script, the two trees run one
//       after the other, in alternating order round by round, and the table
//       gives each row's median `patched` figure for both, with their ratio. The
//       `stock` figures of both trees' runs are shown beside it: they measure
//       the same thing, so their spread is the noise of the run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const quick = process.argv.includes('--quick');
const flag = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = flag('only')?.split(',');
const against = flag('against');
const ROUNDS = Number(flag('rounds') ?? 3);
const BENCHES = [
  // Against another tree the alternating rounds repeat every script, so its own rounds are fewer.
  ['dispatch.mjs', quick ? ['--rounds=1', '--calls=5000'] : [`--rounds=${against ? 3 : 5}`]],
  ['framing.mjs', quick ? ['--quick'] : []],
  ['thread-framing.mjs', quick ? ['--quick'] : []],
  ['stdio.mjs', quick ? ['--rounds=1', '--calls=200'] : ['--rounds=3']],
  ['eventloop.mjs', quick ? ['--quick'] : []],
  ['roundtrip.mjs', quick ? ['--quick'] : []],
  ['servers.mjs', quick ? ['--quick'] : []],
  ['memory.mjs', quick ? ['--quick'] : []],
  ['startup.mjs', quick ? ['--quick'] : ['--instructions', ...(against ? ['--runs=11'] : [])]],
  ['rewrite.mjs', quick ? ['--quick'] : []],
  ['agent-sdk.mjs', quick ? ['--quick'] : []],
  ['server-start.mjs', quick ? ['--quick'] : []],
  ['plugin.mjs', quick ? ['--quick'] : []],
  ['launcher.mjs', quick ? ['--quick'] : []],
  ['spawn.mjs', quick ? ['--quick'] : []],
];

// Load at the time of the run: on a shared machine, read every row with it.
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();

/** One bench script's rows, run from `file`; undefined (and exit code 1) when it fails. */
function runScript(file, extra) {
  process.stderr.write(`running ${path.relative(process.cwd(), file)} ${extra.join(' ')}...\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', file, '--json', ...extra], {
    cwd: path.dirname(path.dirname(file)),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    console.error(`${file} failed:\n${r.stderr}`);
    process.exitCode = 1;
    return undefined;
  }
  return JSON.parse(r.stdout.trim().split('\n').pop()).rows;
}

const selected = BENCHES.filter(([script]) => fs.existsSync(here(script)) && (!only || only.includes(script.replace(/\.mjs$/, ''))));
const fmt = (n, unit) => (unit === 'MB' || unit === 'MB/s' ? n.toFixed(1) : n >= 100 ? n.toFixed(0) : n.toFixed(2));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (against) compareTrees(path.resolve(against));
else table();

function compareTrees(other) {
  const sides = { other: new Map(), here: new Map() }; // row -> { unit, lowerIsBetter, patched: [], stock: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [script, extra] of selected) {
      const otherFile = path.join(other, 'bench', script);
      if (!fs.existsSync(otherFile)) continue;
      const order = round % 2 === 0 ? ['other', 'here'] : ['here', 'other'];
      for (const side of order) {
        const rows = runScript(side === 'here' ? here(script) : otherFile, extra) ?? [];
        for (const r of rows) {
          const m = sides[side];
          if (!m.has(r.row)) m.set(r.row, { unit: r.unit, lowerIsBetter: r.lowerIsBetter, patched: [], stock: [] });
          m.get(r.row).patched.push(r.patched);
          m.get(r.row).stock.push(r.stock);
        }
      }
    }
  }
  const head = (dir) => spawnSync('git', ['-C', dir, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).stdout.trim() || dir;
  const [a, b] = [head(other), head(path.dirname(here('.')))];
  console.log(`\nmcp-ordered-dispatch benchmarks, ${b} (this tree) against ${a} (${other}) — node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} CPUs, ${ROUNDS} alternating rounds, load average (1/5/15 min) ${loadBefore} before, ${load()} after\n`);
  console.log(`| measurement | patched, ${a} | patched, ${b} | ${b} ÷ ${a} | stock in the same runs (${a} / ${b}) |`);
  console.log('|---|---|---|---|---|');
  for (const [row, o] of sides.other) {
    const h = sides.here.get(row);
    if (!h) continue;
    const [po, ph] = [median(o.patched), median(h.patched)];
    const ratio = po > 0 && ph >= 0 ? `${(ph / po).toFixed(2)}× ${o.lowerIsBetter ? '(lower is better)' : '(higher is better)'}` : '—';
    console.log(`| ${row} | ${fmt(po, o.unit)} ${o.unit} | ${fmt(ph, o.unit)} ${o.unit} | ${ratio} | ${fmt(median(o.stock), o.unit)} / ${fmt(median(h.stock), o.unit)} ${o.unit} |`);
  }
  const missing = [...sides.other.keys()].filter((row) => !sides.here.has(row));
  if (missing.length) console.log(`\nRows only ${a} has: ${missing.join('; ')}`);
}

function table() {
  const rows = [];
  for (const [script, extra] of selected) rows.push(...(runScript(here(script), extra) ?? []));
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
}
