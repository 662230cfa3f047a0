'use strict';
// The report of a host run (docs/report.md), on the command line's side:
// where `mcp-ordered-dispatch run --report` has it written (a new file per
// run, in this user's cache directory, else in a private temporary
// directory), and `mcp-ordered-dispatch report [FILE] [--json]`: the records
// the processes of that run appended (lib/progress/report.cjs writes them),
// read and summed up in a few lines.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { REPORT_ENV } = require('../progress/tokens.cjs');
const { REPORT_VERSION } = require('../progress/report.cjs');
const { usableCacheDir } = require('../shape/cache.cjs');
const { describeSource } = require('../patch/records.cjs');

/** How many reports the cache directory keeps (the oldest go first). */
const KEEP = 20;
const PREFIX = 'run-';
const SUFFIX = '.jsonl';

/** The directory of this user's reports in the cache directory, made if need be, or undefined. */
function reportsDir() {
  const cache = usableCacheDir();
  if (cache === undefined) return undefined;
  const dir = path.join(cache, 'reports');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined;
  }
}

/** The reports in `dir`, newest first. */
function reportsIn(dir) {
  let names;
  try {
    names = fs.readdirSync(dir).filter((name) => name.startsWith(PREFIX) && name.endsWith(SUFFIX));
  } catch {
    return [];
  }
  // Their names start with the time they were made: newest last, sorted.
  return names.sort().reverse().map((name) => path.join(dir, name));
}

/**
 * A new report file for a run (not created: the host's processes append to
 * it): in the cache directory's reports (the oldest beyond KEEP removed),
 * else in a new private temporary directory.
 */
function newReportFile(now = new Date()) {
  const name = `${PREFIX}${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}${SUFFIX}`;
  const dir = reportsDir();
  if (dir === undefined) return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-ordered-dispatch-report-')), name);
  for (const old of reportsIn(dir).slice(KEEP - 1)) fs.rmSync(old, { force: true });
  return path.join(dir, name);
}

/** The environment a host runs under with the report on, going to `file`. */
function envWithReport(env, file) {
  return { ...env, [REPORT_ENV]: file };
}

/** The newest report in the cache directory, or undefined. */
function latestReport() {
  const dir = reportsDir();
  return dir === undefined ? undefined : reportsIn(dir)[0];
}

/** The records of a report file (lines that are no record of a known version are passed over). */
function readReport(file) {
  const records = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const record = JSON.parse(line);
      if (record?.report === REPORT_VERSION) records.push(record);
    } catch {
      // A line cut short (a process killed while writing): passed over.
    }
  }
  return records;
}

function seconds(from, to) {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '?';
}

function commandOf(record) {
  const argv = Array.isArray(record.argv) ? record.argv : [];
  const shown = argv.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
  return shown.length > 120 ? `${shown.slice(0, 117)}...` : shown;
}

function copyLine(copy) {
  const name = describeSource(copy.source, 'an SDK copy with no package name (a bundle)');
  const generation = copy.generation === undefined ? '' : `, ${copy.generation}.x`;
  return `${name}${generation}: ${copy.classes.join(', ')}`;
}

function recordLines(record, role) {
  const c = record.counts ?? {};
  const host = record.host ? `, ${record.host.name}@${record.host.version ?? '?'}` : '';
  const lines = [
    `${role}: ${commandOf(record)}`,
    `  pid ${record.pid}${typeof record.thread === 'string' && record.thread !== 'main' ? ` (${record.thread})` : ''}, ${record.runtime}${host}; ${record.started} for ${seconds(record.started, record.ended)}`,
  ];
  if (record.copies.length === 0) lines.push('  patched: nothing');
  for (const copy of record.copies) lines.push(`  patched: ${copyLine(copy)}`);
  lines.push(
    `  ${c.messages} messages in ${c.reads} reads; ${c.progressDelivered} progress notifications delivered, ` +
      `${c.sameRead} of them in the same read as their request's response (stock drops these)`,
  );
  if (c.unknownToken > 0) lines.push(`  ${c.unknownToken} progress notifications for a token never issued (the server's mistake; onerror got them)`);
  lines.push(`  warnings: ${record.warnings.length === 0 ? 'none' : [...new Set(record.warnings)].join(', ')}`);
  return lines;
}

/** The few lines `report` prints for a report file's records. */
function summary(file, records) {
  const lines = [`mcp-ordered-dispatch report: ${file}`];
  if (records.length === 0) {
    lines.push(
      'No process of this run wrote a record: none patched an MCP SDK copy, or the host is still running ' +
        '(each process writes its record as it exits). `mcp-ordered-dispatch doctor` says whether the fix reaches the host.',
    );
    return `${lines.join('\n')}\n`;
  }
  // The host first: its parent (the launcher) wrote no record; then the processes it started.
  const pids = new Set(records.map((r) => r.pid));
  const hosts = records.filter((r) => !pids.has(r.ppid));
  for (const record of hosts) lines.push(...recordLines(record, 'host'));
  for (const record of records.filter((r) => pids.has(r.ppid))) lines.push(...recordLines(record, 'started by it'));
  return `${lines.join('\n')}\n`;
}

module.exports = { REPORT_ENV, reportsDir, newReportFile, envWithReport, latestReport, readReport, summary };
