// `report` reads what `run --report` wrote and nothing else: a line that is
// not a whole record is skipped and named, the good ones still shown; a
// report in the temporary-folder fallback (the cache folder unusable) is
// found, old fallback folders beyond the newest 20 cleaned unless their run
// is still going, and a 400 MB report (written sparse, so it costs no time
// to make) is read in bounded memory.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const KEEP = 20;

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-reading-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The environment of `report` and `run`: a temporary directory of this test's own, and `cache` as the cache directory. */
function env(cache, tmp = dir) {
  const e = { ...process.env, MCP_ORDERED_DISPATCH_CACHE_DIR: cache, TMPDIR: tmp };
  for (const name of ['NODE_TEST_CONTEXT', 'MCP_ORDERED_DISPATCH_RUN', 'MCP_ORDERED_DISPATCH_REPORT', 'NODE_OPTIONS']) delete e[name];
  return e;
}

/** A record as lib/progress/report.cjs writes one. */
function record(pid, ppid) {
  return {
    report: 2, pid, ppid, program: `/home/me/host-${pid}.mjs`, options: ['--verbose'], executable: process.execPath, runtime: 'node 22.0.0',
    started: '2026-01-01T00:00:00.000Z', ended: '2026-01-01T00:00:01.000Z', copies: [], warnings: [],
    counts: { instances: 1, reads: 2, messages: 3, progressDelivered: 1, sameRead: 1, unknownToken: 0, late: 0 },
  };
}
const line = (value) => `${JSON.stringify(value)}\n`;

test('a bad line is skipped and named; the good ones are shown', async () => {
  const file = path.join(dir, 'bad-lines.jsonl');
  fs.writeFileSync(file, line({ report: 1 }) + line(record(10, 1)) + 'not json\n' + line({ ...record(11, 10), pid: 'x' }) + line(record(12, 10)) + line([1]));
  const r = await runCommand(process.execPath, [BIN, 'report', file], { env: env(path.join(dir, 'cache-bad')) });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^host: \S+ \/home\/me\/host-10\.mjs --verbose$/m, show(r));
  assert.match(r.stdout, /^started by it: \S+ \/home\/me\/host-12\.mjs --verbose$/m, show(r));
  assert.deepEqual(r.stderr.trim().split('\n').map((l) => /:(\d+): skipped: /.exec(l)?.[1]), ['1', '3', '4', '6'], show(r));
  const json = await runCommand(process.execPath, [BIN, 'report', file, '--json'], { env: env(path.join(dir, 'cache-bad')) });
  assert.deepEqual(JSON.parse(json.stdout).records.map((r) => r.pid), [10, 12], show(json));
});

// Skipped on Windows only (no uids or modes to make a folder unusable); Linux and macOS runs cover it.
test('the cache folder unusable: run --report writes to a temporary folder, report finds it there, and old such folders are cleaned', { skip: process.platform === 'win32' && 'uid and modes', timeout: 60_000 }, async () => {
  const tmp = fs.mkdtempSync(path.join(dir, 'tmp-'));
  const blocked = path.join(dir, 'a-file');
  fs.writeFileSync(blocked, '');
  const e = env(path.join(blocked, 'cache'), tmp);
  // Old fallback folders: 25 of ended runs, the oldest one of a run still going, and one anyone may enter (not ours to read or clean).
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const made = [];
  for (let i = 0; i < 26; i++) {
    const folder = path.join(tmp, `mcp-ordered-dispatch-report-old${String(i).padStart(2, '0')}`);
    fs.mkdirSync(folder, { mode: 0o700 });
    fs.writeFileSync(path.join(folder, `run-2001-01-01T00-00-${String(i).padStart(2, '0')}-000Z-${i === 0 ? process.pid : dead}.jsonl`), '');
    made.push(path.basename(folder));
  }
  const open = path.join(tmp, 'mcp-ordered-dispatch-report-open');
  fs.mkdirSync(open, { mode: 0o755 });
  fs.chmodSync(open, 0o755);
  fs.writeFileSync(path.join(open, 'run-2099-01-01T00-00-00-000Z-1.jsonl'), line(record(1, 0)));

  const run = await runCommand(process.execPath, [BIN, 'run', '--report', '--', process.execPath, '-e', '0'], { env: e });
  assert.equal(run.code, 0, show(run));
  const file = /goes to (.+?); /.exec(run.stderr)[1];
  assert.ok(file.startsWith(path.join(tmp, 'mcp-ordered-dispatch-report-')), file);
  const left = fs.readdirSync(tmp).sort();
  const expected = [made[0], ...made.slice(-(KEEP - 1)), 'mcp-ordered-dispatch-report-open', path.basename(path.dirname(file))].sort();
  assert.deepEqual(left, expected, 'the newest 20 (this run\'s among them), the one still in use, and the one not ours');

  const r = await runCommand(process.execPath, [BIN, 'report'], { env: e });
  assert.equal(r.code, 0, show(r));
  assert.ok(r.stdout.startsWith(`mcp-ordered-dispatch report: ${file}\nThis run wrote no report record: `), show(r));
});

test('a 400 MB report is read in bounded memory', { timeout: 120_000 }, async () => {
  const file = path.join(dir, 'large.jsonl');
  // A record, 400 MB of one line (a hole: no time to write), the record of a process it started.
  fs.writeFileSync(file, line(record(20, 1)));
  fs.truncateSync(file, 400 * 1024 * 1024);
  fs.appendFileSync(file, `\n${line(record(21, 20))}`);
  const probe = path.join(dir, 'max-rss.cjs');
  fs.writeFileSync(probe, "process.on('exit', () => process.stderr.write(`max-rss-kb ${process.resourceUsage().maxRSS}\\n`));\n");
  const r = await runCommand(process.execPath, ['--max-old-space-size=64', '--require', probe, BIN, 'report', file], { env: env(path.join(dir, 'cache-large')), timeout: 100_000 });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^host: \S+ \/home\/me\/host-20\.mjs/m);
  assert.match(r.stdout, /^started by it: \S+ \/home\/me\/host-21\.mjs/m);
  assert.match(r.stderr, /large\.jsonl:2: skipped: longer than/);
  const rss = Number(/max-rss-kb (\d+)/.exec(r.stderr)[1]) / 1024;
  assert.ok(rss < 200, `at most 200 MB resident, was ${rss.toFixed(0)} MB`);
});
