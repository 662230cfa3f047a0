// What check:hosts reads after a host's session: the counting server's log
// (counting-server.mjs: what it sent, and what it was given), register's
// report (MCP_ORDERED_DISPATCH_REPORT: the records of each process and thread
// that patched an SDK class, the last of each standing, docs/report.md), and how each is said in a line.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, jsonLines } from './common.mjs';

const { standingRecords } = createRequire(import.meta.url)('../../lib/report/index.cjs');

export const COUNTING_SERVER = path.join(ROOT, 'scripts', 'check-hosts', 'counting-server.mjs');

/** The counting server as a host's config takes it: { command, args } logging to `log`. */
export const countingServer = (log, node = process.execPath) => ({ command: node, args: [COUNTING_SERVER, `--log=${log}`] });

/** The server log: { servers: [{ pid, runVariables, patched }], progress (sent), results (tool results sent) }. */
export function readServerLog(file) {
  const lines = jsonLines(file);
  return {
    servers: lines.filter((l) => l.event === 'server'),
    progress: lines.filter((l) => l.event === 'progress').length,
    results: lines.filter((l) => l.event === 'result').length,
  };
}

/** The report's records (jsonLines; the last of each thread, as `report` shows them), each reduced to what a line says. */
export function readReport(file) {
  return standingRecords(jsonLines(file)).map((r) => ({
    pid: r.pid,
    ppid: r.ppid,
    thread: r.thread,
    program: path.basename(r.program ?? '?'),
    classes: (r.copies ?? []).flatMap((c) => c.classes),
    files: (r.copies ?? []).flatMap((c) => c.files ?? []),
    messages: r.counts?.messages ?? 0,
    delivered: r.counts?.progressDelivered ?? 0,
    unknownToken: r.counts?.unknownToken ?? 0,
    // Progress the host's own handler took (Gemini CLI sets its own), counted apart (report records from 6ffdad4 on).
    toOwnHandler: r.counts?.toOwnHandler,
    warnings: r.warnings ?? [],
  }));
}

/** A report's records in words. */
export const showReport = (records) =>
  records.length === 0
    ? 'no report line'
    : records.map((r) => `pid ${r.pid} (parent ${r.ppid}) ${r.thread} ${r.program}: patched ${r.classes.join(", ") || "nothing"}, ${r.messages} messages, ${r.delivered} progress delivered${r.toOwnHandler ? `, ${r.toOwnHandler} to its own handler` : ''}, ${r.unknownToken} unknown-token`).join('; ');

/** The servers' environments in words: which of run's variables each was given, and whether register loaded in it. */
export const showServers = (log) =>
  log.servers.length === 0 ? 'no server started' : log.servers.map((s) => `server ${s.pid}: ${s.runVariables.length ? `given ${s.runVariables.join(', ')}` : "none of run's variables"}, ${s.patched ? 'register loaded' : 'stock'}`).join('; ');

/** The shell command's output as the host sent it back: the line that holds what it printed. */
export const shellSaw = (text) => (text ?? '').match(/NODE_OPTIONS=(?!%s)[^\n"\\]*/)?.[0]; // not the command itself, which some hosts echo
