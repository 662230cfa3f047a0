'use strict';
// `mcp-ordered-dispatch report [FILE] [--json]` (docs/report.md): the records
// the processes of a `run --report` appended (lib/progress/report.cjs writes
// them; lib/report/files.cjs says where), read as a stream of lines, so a
// report of any size is read in bounded memory. A line that is not a whole
// record of a version this reads is skipped and named on stderr; the others
// are summed up in a few lines, every character that could steer a terminal
// escaped.

const fs = require('node:fs');
const { REPORT_ENV } = require('../progress/tokens.cjs');
const { REPORT_VERSION } = require('../progress/report.cjs');
const { describeSource } = require('../patch/records.cjs');
const { newReportFile, latestReport, running } = require('./files.cjs');

// Version 1 records held the whole argv; they are read still.
const VERSIONS = new Set([1, REPORT_VERSION]);
/** The longest line read as a record: a longer one is skipped (without holding it). */
const MAX_LINE = 4 * 1024 * 1024;
/** How many skipped lines are named one by one. */
const NAMED_SKIPS = 20;

/** The environment a host runs under with the report on, going to `file`. */
function envWithReport(env, file) {
  return { ...env, [REPORT_ENV]: file };
}

/** `file`'s lines, read in chunks: { number, text } or { number, tooLong: true }. */
async function* linesOf(file) {
  let parts = [];
  let size = 0;
  let number = 0;
  let tooLong = false;
  const end = () => {
    number += 1;
    const line = tooLong ? { number, tooLong } : { number, text: Buffer.concat(parts, size).toString('utf8') };
    parts = [];
    size = 0;
    tooLong = false;
    return line;
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    for (let at = 0; at < chunk.length;) {
      const newline = chunk.indexOf(0x0a, at);
      const stop = newline < 0 ? chunk.length : newline;
      if (!tooLong && size + stop - at > MAX_LINE) tooLong = true;
      if (!tooLong) {
        parts.push(chunk.subarray(at, stop));
        size += stop - at;
      } else parts = [];
      if (newline < 0) break;
      yield end();
      at = newline + 1;
    }
  }
  if (size > 0 || tooLong) yield end();
}

const isStrings = (value) => Array.isArray(value) && value.every((item) => typeof item === 'string');
const isCount = (value) => value === undefined || Number.isFinite(value);

/** Why `record` is not a record this reads, or undefined when it is one. */
function badRecord(record) {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return 'not a JSON object';
  if (!VERSIONS.has(record.report)) return `not a report record of a version this reads (report: ${JSON.stringify(record.report)?.slice(0, 40)})`;
  const command = record.report === 1 ? isStrings(record.argv) : typeof record.program === 'string' && isStrings(record.options);
  if (!command) return 'no command';
  if (!Number.isInteger(record.pid) || !Number.isInteger(record.ppid)) return 'no pid';
  if (![record.runtime, record.started, record.ended].every((field) => typeof field === 'string')) return 'no runtime or times';
  if (record.host != null && (typeof record.host !== 'object' || typeof record.host.name !== 'string')) return 'a host that is not a package';
  const copy = (c) => c !== null && typeof c === 'object' && isStrings(c.classes) && (c.source === null || (typeof c.source === 'object' && ['name', 'version', 'build'].every((k) => c.source[k] == null || typeof c.source[k] === 'string')));
  if (!Array.isArray(record.copies) || !record.copies.every(copy)) return 'no list of SDK copies';
  const c = record.counts;
  if (c === null || typeof c !== 'object' || !['messages', 'reads', 'progressDelivered', 'sameRead', 'unknownToken'].every((k) => isCount(c[k]))) return 'no counts';
  if (!isStrings(record.warnings)) return 'no list of warnings';
  return undefined;
}

/** The records of `file`, streamed: each good one to `each(record, number)`; each bad line to `skip(number, why)`. */
async function readRecords(file, each, skip = () => {}) {
  for await (const line of linesOf(file)) {
    if (line.tooLong) {
      skip(line.number, `longer than ${MAX_LINE} bytes`);
      continue;
    }
    if (line.text.trim() === '') continue;
    let record;
    try {
      record = JSON.parse(line.text);
    } catch {
      skip(line.number, 'not JSON (a line cut short, or not written by mcp-ordered-dispatch)');
      continue;
    }
    const why = badRecord(record);
    if (why === undefined) await each(record, line.number);
    else skip(line.number, why);
  }
}

// Characters that could move a terminal's cursor, change its state or reorder text: C0, DEL, C1, and the bidirectional controls.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character written as an escape (\n, \x1b, \u202e). */
function escaped(text) {
  return String(text).replace(CONTROLS, (ch) => {
    const code = ch.charCodeAt(0);
    if (ch === '\n') return '\\n';
    if (ch === '\t') return '\\t';
    if (ch === '\r') return '\\r';
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function seconds(from, to) {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '?';
}

function commandOf(record) {
  const words = record.report === 1 ? record.argv : [record.executable, record.program, ...record.options].filter((w) => typeof w === 'string');
  const shown = words.map((word) => (/[\s"]/.test(word) ? JSON.stringify(word) : word)).join(' ');
  return shown.length > 120 ? `${shown.slice(0, 117)}...` : shown;
}

function copyLine(copy) {
  const name = describeSource(copy.source, 'an SDK copy with no package name (a bundle)');
  const generation = copy.generation == null ? '' : `, ${copy.generation}.x`;
  return `${name}${generation}: ${copy.classes.join(', ')}`;
}

function recordLines(record, role) {
  const c = record.counts;
  const host = record.host ? `, ${record.host.name}@${record.host.version ?? '?'}` : '';
  const lines = [
    `${role}: ${commandOf(record)}`,
    `  pid ${record.pid}${typeof record.thread === 'string' && record.thread !== 'main' ? ` (${record.thread})` : ''}, ${record.runtime}${host}; ${record.started} for ${seconds(record.started, record.ended)}`,
  ];
  if (record.copies.length === 0) lines.push('  patched: nothing');
  for (const copy of record.copies) lines.push(`  patched: ${copyLine(copy)}`);
  lines.push(
    `  ${c.messages ?? 0} messages in ${c.reads ?? 0} reads; ${c.progressDelivered ?? 0} progress notifications delivered, ` +
      `${c.sameRead ?? 0} of them in the same read as their request's response (stock drops these)` +
      (c.toOwnHandler > 0 ? `; ${c.toOwnHandler} to the host's own progress handler, in wire order (stock delivers these too, after the response)` : ''),
  );
  if (c.unknownToken > 0) lines.push(`  ${c.unknownToken} progress notifications for a token never issued (the server's mistake; onerror got them)`);
  lines.push(`  warnings: ${record.warnings.length === 0 ? 'none' : [...new Set(record.warnings)].join(', ')}`);
  return lines;
}

/** Writes `text` to `stream`, waiting while its buffer is full. */
async function write(stream, text) {
  if (!stream.write(text)) await new Promise((resolve) => stream.once('drain', resolve));
}

/** The lines saying `file` holds no record: still running, or nothing patched. */
function noRecordLines(file) {
  const name = require('node:path').basename(file);
  if (running(name)) return ['No record yet: this run is still going (each process writes its record as it exits).'];
  return [
    'This run wrote no report record: no process of it patched an MCP SDK copy, or none exited normally. ' +
      '`mcp-ordered-dispatch doctor` says whether the fix reaches the host.',
  ];
}

/**
 * The thread a record is of: a thread writes its record more than once (at
 * its first patch, a second after its reads, at a signal, at exit), and the
 * last one stands.
 */
function threadOf(record) {
  return `${record.pid}:${record.thread ?? 'main'}`;
}

/** Of `records` (as a report file holds them, in order), the one that stands for each thread: its last, in the order of the threads' last records. */
function standingRecords(records) {
  const last = new Map();
  for (const record of records) {
    last.delete(threadOf(record));
    last.set(threadOf(record), record);
  }
  return [...last.values()];
}

/**
 * `report [FILE] [--json]` to stdout, bad lines named on stderr; the hosts of
 * the run first (their parent, `run`, wrote no record), then the
 * processes they started. Three passes over the file: its pids, the hosts,
 * the others. Resolves with the exit code.
 */
async function show({ file = latestReport(), json = false, out = process.stdout, err = process.stderr } = {}) {
  if (file === undefined) {
    await write(err, 'mcp-ordered-dispatch report: no report yet; run a host with `mcp-ordered-dispatch run --report -- HOST`, then exit it.\n');
    return 1;
  }
  const pids = new Set();
  const last = new Map();
  const standing = (record, number) => last.get(threadOf(record)) === number;
  let skipped = 0;
  await readRecords(file, (record, number) => {
    pids.add(record.pid);
    last.set(threadOf(record), number);
  }, (number, why) => {
    skipped += 1;
    if (skipped <= NAMED_SKIPS) err.write(escaped(`mcp-ordered-dispatch report: ${file}:${number}: skipped: ${why}`) + '\n');
  });
  if (skipped > NAMED_SKIPS) await write(err, `mcp-ordered-dispatch report: ${skipped - NAMED_SKIPS} more lines skipped\n`);
  if (json) {
    let first = true;
    await write(out, `{\n  "file": ${JSON.stringify(file)},\n  "skipped": ${skipped},\n  "records": [`);
    await readRecords(file, async (record, number) => {
      if (!standing(record, number)) return;
      await write(out, `${first ? '' : ','}\n    ${JSON.stringify(record, null, 2).replace(/\n/g, '\n    ')}`);
      first = false;
    });
    await write(out, `${first ? '' : '\n  '}]\n}\n`);
    return 0;
  }
  await write(out, `${escaped(`mcp-ordered-dispatch report: ${file}`)}\n`);
  if (last.size === 0) await write(out, `${noRecordLines(file).join('\n')}\n`);
  for (const hosts of [true, false]) {
    await readRecords(file, async (record, number) => {
      if (pids.has(record.ppid) === hosts || !standing(record, number)) return;
      await write(out, `${recordLines(record, hosts ? 'host' : 'started by it').map(escaped).join('\n')}\n`);
    });
  }
  return 0;
}

module.exports = { newReportFile, envWithReport, show, standingRecords };
