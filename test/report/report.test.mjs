// `mcp-ordered-dispatch run --report -- HOST` and `mcp-ordered-dispatch report`:
// a Node host (test/run/fixtures/host.mjs: the real SDK Client over stdio)
// calls the raw coalescing server's progress tool under `run --report`, and
// the same host runs stock in the same test. In the server's deterministic
// modes the report's count of progress delivered in the same read as its
// response is exactly the number of "unknown token" onerrors stock gets
// (all-in-one: every notification; last-with-response: the last one), and
// 0 in `separate`. The report goes to its file only (the host's stdout is
// byte for byte that of `run` without --report), nothing is written without
// --report, and `report` prints it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { createRequire } from 'node:module';

const { standingRecords } = createRequire(import.meta.url)('../../lib/report/index.cjs');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const HOST = path.join(ROOT, 'test', 'run', 'fixtures', 'host.mjs');
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const PROGRESS = 4;
const UNKNOWN_TOKEN = /unknown token/i;

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-report-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The environment of a run: this test's own cache directory (where reports go), none of the runner's. */
function env(cacheDir) {
  const e = { ...process.env, MCP_ORDERED_DISPATCH_CACHE_DIR: cacheDir };
  for (const name of ['NODE_TEST_CONTEXT', 'MCP_ORDERED_DISPATCH_RUN', 'MCP_ORDERED_DISPATCH_REPORT', 'NODE_OPTIONS']) delete e[name];
  return e;
}

function config(mode) {
  return JSON.stringify({ servers: [{ name: 'raw', command: process.execPath, args: [RAW_SERVER, `--mode=${mode}`, `--progress=${PROGRESS}`] }], progress: PROGRESS, shell: 'true' });
}

/** The host: stock (`[]`), or under `run` with `launcher` arguments, given `extra` arguments; its result, its output as it came. */
async function host(mode, launcher, cacheDir, extra = []) {
  const argv = launcher === undefined ? [HOST, config(mode), ...extra] : [BIN, 'run', ...launcher, '--', process.execPath, HOST, config(mode), ...extra];
  const r = await runCommand(process.execPath, argv, { cwd: ROOT, env: env(cacheDir), timeout: 60_000 });
  assert.equal(r.code, 0, show(r));
  const result = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(result.servers[0].answered, true, show(r));
  return { ...result, out: r };
}

/** The report file the one stderr line of `run --report` names, and its records: all it holds (`written`), and the last of each thread. */
function reportOf(r) {
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('mcp-ordered-dispatch run: the report of this run goes to '));
  assert.equal(lines.length, 1, show(r));
  const file = /goes to (.+?); /.exec(lines[0])[1];
  const text = fs.readFileSync(file, 'utf8');
  const written = text.trim().split('\n').map((line) => JSON.parse(line));
  return { file, text, written, records: standingRecords(written) };
}

function cacheDir(name) {
  const d = path.join(dir, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

for (const [mode, lostByStock] of [['all-in-one', PROGRESS], ['last-with-response', 1], ['separate', 0]]) {
  test(`${mode}: the report counts exactly the progress stock loses (${lostByStock} of ${PROGRESS}), in the host's record`, { timeout: 120_000 }, async () => {
    const cache = cacheDir(mode);
    const stock = await host(mode, undefined, cache);
    const stockLost = stock.onerrors.filter((e) => UNKNOWN_TOKEN.test(e)).length;
    assert.equal(stockLost, lostByStock, JSON.stringify(stock.onerrors));
    assert.equal(stock.servers[0].received, PROGRESS - lostByStock);

    const reported = await host(mode, ['--report'], cache);
    assert.deepEqual(reported.onerrors, []);
    assert.equal(reported.servers[0].received, PROGRESS);
    const { file, records, written } = reportOf(reported.out);
    assert.ok(file.startsWith(path.join(cache, 'reports') + path.sep), `in the cache directory: ${file}`);
    // One thread's records: the host's (the raw server has no SDK, /bin/sh no Node); the first written at its first patch, the last at exit.
    assert.equal(records.length, 1, JSON.stringify(records));
    assert.ok(written.length >= 2 && written.every((r) => r.pid === records[0].pid), JSON.stringify(written));
    assert.ok(written[0].counts.messages < records[0].counts.messages, 'the record written at the first patch, before the last message');
    const [record] = records;
    assert.equal(record.program, HOST);
    assert.deepEqual(record.options, []);
    assert.equal(record.counts.sameRead, stockLost, JSON.stringify(record.counts));
    assert.equal(record.counts.progressDelivered, PROGRESS);
    assert.equal(record.counts.unknownToken, 0);
    assert.ok(record.counts.messages >= PROGRESS + 2, 'the initialize response, the progress, the tool result');
    assert.ok(record.counts.reads >= 2 && record.counts.reads <= record.counts.messages, JSON.stringify(record.counts));
    assert.deepEqual(record.warnings, []);
    assert.equal(record.pid > 0 && typeof record.started === 'string' && typeof record.ended === 'string', true);
    const classes = record.copies.flatMap((c) => c.classes);
    assert.ok(record.copies.every((c) => c.source?.name === '@modelcontextprotocol/sdk' && c.generation === 1), JSON.stringify(record.copies));
    assert.ok(classes.includes('Protocol') && classes.includes('StdioClientTransport (stdio)'), JSON.stringify(record.copies));
  });
}

test('the report goes to its file only: the host\'s stdout is byte for byte that of run without --report; without --report nothing is written', { timeout: 120_000 }, async () => {
  const cache = cacheDir('bytes');
  const plain = await host('all-in-one', [], cache);
  assert.ok(!fs.existsSync(path.join(cache, 'reports')) || fs.readdirSync(path.join(cache, 'reports')).length === 0, 'no report without --report');
  assert.ok(!plain.out.stderr.includes('report'), show(plain.out));
  const reported = await host('all-in-one', ['--report'], cache);
  assert.equal(reported.out.stdout, plain.out.stdout);
  // stderr: the one line saying where the report goes, and otherwise what the plain run wrote.
  const { text } = reportOf(reported.out);
  assert.equal(reported.out.stderr.split('\n').filter((l) => !l.includes('the report of this run goes to')).join('\n'), plain.out.stderr);
  assert.match(text, /^(\{.*\}\n)+$/, 'JSON lines only');
});

test('report: the last run\'s summary, FILE, --json; none yet says how to make one', { timeout: 120_000 }, async () => {
  const cache = cacheDir('command');
  const report = (args) => runCommand(process.execPath, [BIN, 'report', ...args], { cwd: ROOT, env: env(cache) });
  const none = await report([]);
  assert.equal(none.code, 1, show(none));
  assert.match(none.stderr, /no report yet; run a host with `mcp-ordered-dispatch run --report -- HOST`/);

  // A secret after an option, another in one, a prompt, and an option name that would steer a terminal.
  const secrets = ['--api-key', 'SECRET-1', '--token=SECRET-2', 'a prompt SECRET-3', '--\x1b]0;title\x07\x1b[2J'];
  const reported = await host('last-with-response', ['--report'], cache, secrets);
  const { file, text, records } = reportOf(reported.out);
  assert.doesNotMatch(text, /SECRET|prompt/, 'the program and option names only');
  assert.deepEqual(records[0].options, ['--api-key', '--token', secrets[4]]);
  const last = await report([]);
  assert.equal(last.code, 0, show(last));
  assert.equal(last.stderr, '');
  // The command is cut at 120 characters (a long Node path, as Windows' or test:arm64's, makes it longer), then its control characters written out.
  const command = `${process.execPath} ${HOST} --api-key --token ${secrets[4]}`;
  const shown = (command.length > 120 ? `${command.slice(0, 117)}...` : command).replace(/[\x00-\x1f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  assert.ok(last.stdout.startsWith(`mcp-ordered-dispatch report: ${file}\nhost: ${shown}\n`), last.stdout);
  assert.doesNotMatch(last.stdout, /\x1b/, 'no control character reaches the terminal');
  assert.match(last.stdout, /patched: @modelcontextprotocol\/sdk@[\d.]+ \((ESM|CJS) build\), 1\.x: .*Protocol/);
  assert.match(last.stdout, new RegExp(`${PROGRESS} progress notifications delivered, 1 of them in the same read as their request's response \\(stock drops these\\)`));
  assert.match(last.stdout, /warnings: none\n$/);
  const named = await report([file]);
  assert.equal(named.stdout, last.stdout);
  const json = await report([file, '--json']);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.file, file);
  assert.equal(parsed.records[0].counts.sameRead, 1);

  // A later run that wrote no record is the last run: said plainly, not an older report shown.
  const quiet = await runCommand(process.execPath, [BIN, 'run', '--report', '--', process.execPath, '-e', '0'], { cwd: ROOT, env: env(cache) });
  assert.equal(quiet.code, 0, show(quiet));
  const wroteNone = await report([]);
  assert.equal(wroteNone.code, 0, show(wroteNone));
  const quietFile = /goes to (.+?); /.exec(quiet.stderr)[1];
  assert.equal(fs.readFileSync(quietFile, 'utf8'), '', show(quiet));
  assert.ok(wroteNone.stdout.startsWith(`mcp-ordered-dispatch report: ${quietFile}\nThis run wrote no report record: `), wroteNone.stdout);
});
