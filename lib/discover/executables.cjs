'use strict';
// Compiled executables that carry the SDK: a Bun-compiled executable
// (Claude Code, opencode and cline's CLI ship as ones), a Node
// single-executable application, any native binary with the SDK's
// JavaScript inside. `install()` never reaches the SDK in there; a Bun
// executable is reached at run time by `mcp-ordered-dispatch run` (register
// preloaded, lib/run/), a SEA only by a build with the bundler plugin. Each
// one says which (its `kind`, lib/discover/compiled.cjs), and doctor never
// counts one in an all-clear.
//
// Looked at: the project's package.json `bin` targets, and for every package
// under its node_modules (any depth, scoped, pnpm's store) its `bin` entries
// and the files in its bin/ directory. A file counts when it starts with an
// ELF, Mach-O or PE header and its bytes hold every one of the Protocol's
// marker names (lib/adapters/modules.cjs, the prefilter's); holding the
// build-time global too (lib/shape/globals.cjs's BUILT_GLOBAL), it was patched
// at build time. The bytes are scanned in chunks, every read bounded.

const fs = require('node:fs');
const path = require('node:path');
const { PROTOCOL_MARKERS } = require('../adapters/modules.cjs');
const { BUILT_GLOBAL } = require('../shape/globals.cjs');
const { compiledKindOf, executableFormatOf } = require('./compiled.cjs');

/** Bounds: bytes scanned in one file, in all files, node_modules directories read. */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;
const MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024;
const MAX_DIRS = 20_000;
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Which of `needles` (Buffers) the file open at `fd` holds, reading at most
 * `limit` bytes in chunks (a needle across two chunks is found: each chunk
 * starts with the last bytes of the one before): { found: Set of indices,
 * scanned: bytes read }.
 */
function scanFile(fd, needles, limit) {
  const keep = Math.max(...needles.map((n) => n.length)) - 1;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES + keep);
  const found = new Set();
  let kept = 0;
  let position = 0;
  while (position < limit && found.size < needles.length) {
    const read = fs.readSync(fd, buffer, kept, Math.min(CHUNK_BYTES, limit - position), position);
    if (read <= 0) break;
    position += read;
    const chunk = buffer.subarray(0, kept + read);
    for (let i = 0; i < needles.length; i++) if (!found.has(i) && chunk.indexOf(needles[i]) >= 0) found.add(i);
    kept = Math.min(keep, chunk.length);
    chunk.copy(buffer, 0, chunk.length - kept);
  }
  return { found, scanned: position };
}

// The Protocol's markers, then the build-time global: the first alone in one
// pass (most executables hold none: each needle costs a pass), then the rest.
const [GATE, ...REST] = [...PROTOCOL_MARKERS, BUILT_GLOBAL].map((m) => Buffer.from(m, 'latin1'));

/** What the first `limit` bytes of the file open at `fd` hold: { protocol (every Protocol marker), builtIn (the build-time global too), scanned }. */
function markersIn(fd, limit) {
  const first = scanFile(fd, [GATE], limit);
  if (first.found.size === 0) return { protocol: false, builtIn: false, scanned: first.scanned };
  const { found, scanned } = scanFile(fd, REST, limit);
  return { protocol: REST.slice(0, -1).every((_, i) => found.has(i)), builtIn: found.has(REST.length - 1), scanned: first.scanned + scanned };
}

/** Whether the executable at `file` holds the SDK's Protocol (its markers, in its first GiB); undefined when unreadable. */
function holdsProtocol(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    return markersIn(fd, Math.min(fs.fstatSync(fd).size, MAX_FILE_BYTES)).protocol;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The files a package directory names as executables: its package.json
 * `bin` entries and its bin/ directory's files: { files: [{ file, command
 * (the bin's name, if a `bin` entry names it) }], name, version }.
 */
function packageBins(dir) {
  const files = [];
  let name;
  let version;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    ({ name, version } = manifest);
    const { bin } = manifest;
    const targets = typeof bin === 'string' ? [[typeof name === 'string' ? name.replace(/^@[^/]+\//, '') : undefined, bin]] : bin && typeof bin === 'object' ? Object.entries(bin) : [];
    for (const [command, target] of targets) if (typeof target === 'string') files.push({ file: path.resolve(dir, target), command });
  } catch {
    // No package.json, or no bin in it.
  }
  try {
    for (const entry of fs.readdirSync(path.join(dir, 'bin'), { withFileTypes: true })) {
      if (entry.isFile() || entry.isSymbolicLink()) files.push({ file: path.join(dir, 'bin', entry.name), command: undefined });
    }
  } catch {
    // No bin/ directory.
  }
  return { files, name: typeof name === 'string' ? name : undefined, version: typeof version === 'string' ? version : undefined };
}

/**
 * The compiled executables of the project at `base` (and of the packages
 * under its node_modules) that carry the SDK's Protocol:
 * { executables: [{ file, format, bytes, builtIn, kind, blocksBunOptions,
 * command, from, name, version }], truncated } - `builtIn` when the
 * build-time global is in it too (built with the bundler plugin), `kind` and
 * `blocksBunOptions` lib/discover/compiled.cjs's ('bun', 'node-sea',
 * 'native'), `command` the bin name it is installed as (when a `bin` entry
 * names it), `from` the package.json whose bin (or bin/) named it, `name` and
 * `version` that package's.
 */
function findCompiledExecutables(base) {
  const candidates = new Map(); // real path -> { file, from, name, version }
  const add = ({ file, command }, from) => {
    let real;
    try {
      real = fs.realpathSync(file);
      if (!fs.statSync(real).isFile()) return;
    } catch {
      return;
    }
    const known = candidates.get(real);
    if (known === undefined) candidates.set(real, { file, command, ...from });
    else known.command ??= command;
  };
  const { dirs, truncated: dirsTruncated } = require('./discover.cjs').packageDirsUnder(path.join(base, 'node_modules'), MAX_DIRS);
  for (const dir of [base, ...dirs]) {
    const { files, name, version } = packageBins(dir);
    for (const file of files) add(file, { from: path.join(dir, 'package.json'), name, version });
  }

  const head = Buffer.alloc(4);
  const executables = [];
  let budget = MAX_TOTAL_BYTES;
  let truncated = dirsTruncated;
  for (const [real, { file, command, from, name, version }] of candidates) {
    let fd;
    try {
      fd = fs.openSync(real, 'r');
      const format = executableFormatOf(head.subarray(0, fs.readSync(fd, head, 0, 4, 0)));
      if (format === undefined) continue;
      const size = fs.fstatSync(fd).size;
      const limit = Math.min(size, MAX_FILE_BYTES, budget);
      if (limit < size) truncated = true;
      const { protocol, builtIn, scanned } = markersIn(fd, limit);
      budget -= scanned;
      if (protocol) {
        const { kind, blocksBunOptions } = compiledKindOf(real) ?? { kind: 'native' };
        executables.push({ file, format, bytes: size, builtIn, kind, blocksBunOptions, command, from, name, version });
      }
    } catch {
      // Unreadable: not looked into.
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    if (budget <= 0) {
      truncated = true;
      break;
    }
  }
  return { executables, truncated };
}

module.exports = { findCompiledExecutables, holdsProtocol };
