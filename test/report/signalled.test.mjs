// A host `run --report` fixed that a signal ends (SIGTERM, as an SDK's
// server.close() sends its child; SIGINT; SIGHUP): its report record holds
// its final counts, and it ends as it does without the report: by the signal
// where it has no listener of its own or one that raises the signal again
// only when it is alone (signal-exit's rule), with its own exit code where
// its listener exits. Stock beside each.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const HOST = fileURLToPath(new URL('./fixtures/signalled-host.mjs', import.meta.url));
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const PROGRESS = 4;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-signalled-'));

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The host, stock or under `run --report` (then its report file), sent `signal` once it is ready: { code, signal, received, stderr }. */
function ended(how, signal, report) {
  const env = { ...process.env, MCP_ORDERED_DISPATCH_CACHE_DIR: path.join(dir, 'cache') };
  for (const name of ['NODE_TEST_CONTEXT', 'MCP_ORDERED_DISPATCH_RUN', 'MCP_ORDERED_DISPATCH_REPORT', 'NODE_OPTIONS']) delete env[name];
  const args = [HOST, RAW_SERVER, String(PROGRESS), how];
  // The report's file given directly (what run --report sets), so that the signal reaches the host itself, not run.
  if (report !== undefined) Object.assign(env, { MCP_ORDERED_DISPATCH_REPORT: report, NODE_OPTIONS: `--require=${path.join(ROOT, 'entries', 'register.cjs')}` });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout += c;
      if (/^ready \d+\n/.test(stdout)) child.kill(signal);
    });
    child.once('error', reject);
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      resolve({ code, signal: sig, received: Number(/^ready (\d+)/.exec(stdout)?.[1]), stderr });
    });
  });
}

for (const [how, signal] of [['none', 'SIGTERM'], ['none', 'SIGINT'], ['none', 'SIGHUP'], ['alone', 'SIGTERM'], ['exits', 'SIGTERM']]) {
  test(`a host ${how === 'none' ? 'with no listener' : how === 'alone' ? "with signal-exit's listener" : 'whose listener exits'}, ended by ${signal}: it ends as stock, and its report record holds its counts`, { skip: process.platform === 'win32' && 'a signal cannot be raised again on Windows' }, async () => {
    const report = path.join(dir, `${how}-${signal}.jsonl`);
    const [stock, fixed] = await Promise.all([ended(how, signal), ended(how, signal, report)]);
    assert.equal(stock.received, 0, stock.stderr);
    assert.equal(fixed.received, PROGRESS, fixed.stderr);
    assert.deepEqual({ code: fixed.code, signal: fixed.signal }, { code: stock.code, signal: stock.signal });
    assert.deepEqual(how === 'exits' ? { code: 7, signal: null } : { code: null, signal }, { code: stock.code, signal: stock.signal });
    assert.equal(fixed.stderr, stock.stderr);
    const records = fs.readFileSync(report, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const last = records.findLast((r) => r.pid !== undefined && r.copies.length > 0 && r.thread === 'main' && r.program === HOST);
    assert.ok(last, JSON.stringify(records));
    assert.equal(last.counts.progressDelivered, PROGRESS, JSON.stringify(last.counts));
    assert.equal(last.counts.sameRead, PROGRESS, JSON.stringify(last.counts));
  });
}
