'use strict';
// The host run's report, on the process's side (docs/report.md): loaded by
// lib/progress/tokens.cjs only when MCP_ORDERED_DISPATCH_REPORT names a file.
// It gathers which SDK classes were patched (lib/patch/records.cjs tells it),
// every instance's counts (the token tables count in Rust,
// crates/core/src/tokens.rs) and the warnings printed (lib/warnings/warnings.cjs
// keeps their codes), and appends one line of JSON to the file: at the
// first patch, at most once a second while the counts change (a second after
// a read), when SIGTERM, SIGINT or SIGHUP arrives, and at exit; `report`
// shows the last record of each process and thread, so that one a signal or
// a host's own end cuts short still holds its counts. One record per process
// and thread that patched an SDK class, so the MCP servers a host starts
// (which inherit the variable) and its Workers add theirs beside the host's.
// It writes nothing else, anywhere: never the host's stdout or its terminal.

const fs = require('node:fs');
const path = require('node:path');
const { isBunEmbeddedPath } = require('../native/platform.cjs');

/** The record's format; lib/report/ reads the versions it knows. */
const REPORT_VERSION = 2;

/** This process's one recorder. */
let started;

function runtimeOf() {
  const versions = process.versions ?? {};
  if (versions.bun) return `bun ${versions.bun}`;
  if (versions.deno) return `deno ${versions.deno}`;
  return `node ${versions.node}`;
}

/**
 * What the record says of the command line: the program (the script, else the
 * executable: a compiled one's too) and the names of the options after it, never their values (a
 * secret may follow `--api-key`) or any other argument (a prompt).
 */
function commandLine() {
  const argv = process.argv;
  // A Bun-compiled executable's argv[1] is its embedded entry (/$bunfs/…, B:\~BUN\…): the executable names it.
  const script = typeof argv[1] === 'string' && path.isAbsolute(argv[1]) && !isBunEmbeddedPath(argv[1]) ? argv[1] : undefined;
  const options = [];
  for (const arg of argv.slice(script === undefined ? 1 : 2)) {
    if (arg === '--') break;
    if (typeof arg !== 'string' || !arg.startsWith('-') || arg === '-') continue;
    options.push(arg.startsWith('--') ? arg.split('=')[0] : arg.slice(0, 2));
  }
  return { program: script ?? process.execPath, options };
}

/** The host's own package: name and version of the nearest package.json of its script, else of its executable. */
function hostPackage(packageOf) {
  for (const file of [process.argv[1], process.execPath]) {
    if (typeof file !== 'string' || !path.isAbsolute(file) || isBunEmbeddedPath(file)) continue;
    try {
      const pkg = packageOf(fs.realpathSync(file));
      if (pkg !== undefined) return { name: pkg.name, version: pkg.version };
    } catch {
      // Not on disk (an embedded module's path): the next one.
    }
  }
  return undefined;
}

class Recorder {
  file;
  startedAt = new Date().toISOString();
  // source key -> { source, generation, classes }
  copies = new Map();
  // Each instance's token table and its { messages }.
  tables = [];
  host = undefined;
  written = false;
  // The timer that writes a Worker's record again (touched()), until the final one.
  snapshot = undefined;

  constructor(file) {
    this.file = path.resolve(file);
  }

  /** A class of an SDK copy was patched: `fields` are its patch record's (lib/patch/records.cjs). */
  patched(proto, fields, packageOf) {
    const first = this.copies.size === 0;
    if (this.host === undefined) this.host = hostPackage(packageOf) ?? null;
    const source = fields.source?.name ? fields.source : undefined;
    // A copy: one package release and build (its classes are in several files).
    const key = source === undefined ? '' : `${source.name}@${source.version}:${source.build}`;
    let copy = this.copies.get(key);
    if (copy === undefined) {
      copy = { source: source === undefined ? null : { name: source.name, version: source.version, build: source.build }, generation: undefined, classes: [], files: [] };
      this.copies.set(key, copy);
    }
    copy.generation ??= fields.generation ?? fields.sdk;
    if (typeof source?.file === 'string' && !copy.files.includes(source.file)) copy.files.push(source.file);
    let name = '?';
    try {
      name = proto.constructor?.name || '?';
    } catch {
      // A prototype without a readable constructor: unnamed.
    }
    copy.classes.push(fields.generation === undefined ? `${name} (stdio)` : name);
    // The first patch is written at once (the classes a module defines together, a turn later).
    if (first) this.touched();
  }

  /** An instance's token table (counting switched on); returns its counts, which the routing adds to. */
  track(tokens) {
    const counts = { messages: 0, ownProgress: 0 };
    this.tables.push({ tokens, counts });
    return counts;
  }

  /** The process's record, now. */
  record() {
    const counts = { instances: this.tables.length, reads: 0, messages: 0, progressDelivered: 0, sameRead: 0, unknownToken: 0, late: 0, toOwnHandler: 0 };
    for (const { tokens, counts: own } of this.tables) {
      const read = tokens._readStats();
      const t = tokens.stats();
      counts.messages += own.messages;
      counts.toOwnHandler += own.ownProgress;
      counts.reads += read?.reads ?? 0;
      counts.progressDelivered += read?.progress ?? 0;
      counts.sameRead += read?.sameRead ?? 0;
      counts.unknownToken += t.unknown;
      counts.late += t.late;
    }
    let warnings = [];
    try {
      warnings = require('../warnings/warnings.cjs').printedCodes();
    } catch {
      // No warnings room to ask: none recorded.
    }
    return {
      report: REPORT_VERSION,
      pid: process.pid,
      ppid: process.ppid,
      thread: threadName(),
      ...commandLine(),
      executable: process.execPath,
      runtime: runtimeOf(),
      host: this.host ?? undefined,
      started: this.startedAt,
      ended: new Date().toISOString(),
      copies: [...this.copies.values()],
      counts,
      warnings,
    };
  }

  /**
   * The counts changed (a read came in, a class was patched): the record is
   * written SNAPSHOT_MS later, at most once in that time, so that a thread
   * whose end is cut short (a Worker that opencode's and Kilo's TUIs
   * terminate, where Bun then runs none of its exit listeners; a process a
   * signal ends) leaves its counts; `report` shows the last record of each thread.
   */
  touched() {
    if (this.written || this.snapshot !== undefined) return;
    this.snapshot = setTimeout(() => {
      this.snapshot = undefined;
      this.append();
    }, this.copies.size > 0 && this.tables.length === 0 ? 0 : SNAPSHOT_MS);
    this.snapshot.unref?.();
  }

  /** Appends the final record (once). */
  write() {
    if (this.written) return;
    this.written = true;
    if (this.snapshot !== undefined) clearTimeout(this.snapshot);
    this.append();
  }

  /** Appends the record as it stands. A file that cannot be written is passed over: the host runs on as it would. */
  append() {
    try {
      fs.appendFileSync(this.file, `${JSON.stringify(this.record())}\n`, { mode: 0o600 });
    } catch {
      // Nowhere to write: no report, and nothing else changes.
    }
  }
}

const THREAD = (() => {
  try {
    const { isMainThread, threadId } = require('node:worker_threads');
    return { main: isMainThread !== false, id: threadId };
  } catch {
    return { main: true, id: 0 };
  }
})();
const IS_MAIN_THREAD = THREAD.main;
/** How long after a read a Worker's record is written again. */
const SNAPSHOT_MS = 1000;

/** This thread, in words: 'main', or 'worker N' (its threadId). */
function threadName() {
  return IS_MAIN_THREAD ? 'main' : `worker ${THREAD.id}`;
}

/** The signals that end a process whose host does not handle them, and after which its record holds its counts. */
const ENDING_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * On the main thread (Workers get no signals; not on Windows, where a signal
 * cannot be raised again): a listener, first of each ending signal's, that
 * writes the record and takes itself out before any other listener runs, so
 * that each sees the listeners it would see without it (signal-exit, which
 * raises the signal again only where it is alone, among them). Where no
 * other is left, the signal is raised again: the process ends by it, as
 * without the report. Where the host handles it, the host decides, and the
 * listener is back once the others have run.
 */
function writeOnSignals(recorder) {
  if (!IS_MAIN_THREAD || process.platform === 'win32' || process.versions.deno !== undefined || typeof process.prependListener !== 'function') return;
  for (const signal of ENDING_SIGNALS) {
    const listener = () => {
      process.removeListener(signal, listener);
      if (process.listenerCount(signal) === 0) {
        recorder.write();
        process.kill(process.pid, signal);
        return;
      }
      recorder.append();
      setImmediate(() => process.prependListener(signal, listener)).unref?.();
    };
    try {
      process.prependListener(signal, listener);
    } catch {
      // A runtime that takes no listener for it: the record of the last second stands.
    }
  }
}

/**
 * Starts this thread's recorder (once), writing to `file` as the thread
 * ends: at `exit`, first thing in process.exit(), since Bun 1.3 runs no
 * `exit` listener once a Worker was terminated (opencode's and Kilo's TUIs),
 * and at an ending signal (writeOnSignals()).
 */
function start(file) {
  if (started === undefined) {
    started = new Recorder(file);
    process.on('exit', () => started.write());
    writeOnSignals(started);
    const exit = process.exit;
    if (typeof exit === 'function') {
      process.exit = function exitAfterReport(...args) {
        started.write();
        return exit.apply(this, args);
      };
    }
  }
  return started;
}

module.exports = { REPORT_VERSION, start };
