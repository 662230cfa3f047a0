'use strict';
// The cassette format of `mcp-ordered-dispatch record` and recordTransport:
// newline-delimited JSON, one header line, then one line per event.
//
//   {"cassette":"mcp-ordered-dispatch","version":1,"recorded":"2026-…Z","level":"bytes","command":"npx","args":["…"]}
//   {"t":12.5,"from":"client","utf8":"{\"jsonrpc\":\"2.0\",…}\n"}      a chunk, when it is valid UTF-8
//   {"t":13.1,"from":"server","base64":"eyJqc29…"}                     a chunk that is not (a cut multi-byte character, bad bytes)
//   {"t":14.0,"from":"server","message":{"jsonrpc":"2.0",…}}          one message (level "messages", from recordTransport)
//   {"t":99.9,"exit":{"code":0,"signal":null}}                          the server's exit (record only)
//
// `t` is milliseconds since the recording started. A chunk is exactly the
// bytes one read returned; the bytes of one direction, concatenated, are
// exactly what that side wrote.
//
// timeline(cassette) turns the events into the lines (messages) of both
// directions in the order they were complete, with where the recorded chunks
// began inside each line, for cassette-player.cjs and redactCassette.

const fs = require('node:fs');
const { isUtf8 } = require('node:buffer');
const { fileURLToPath } = require('node:url');

const FORMAT = 'mcp-ordered-dispatch';
const VERSION = 1;
const NEWLINE = 0x0a;

class CassetteError extends Error {
  constructor(message) {
    super(message);
    this.name = 'CassetteError';
  }
}

function pathOf(file) {
  if (file instanceof URL) return fileURLToPath(file);
  if (typeof file === 'string') return file;
  throw new TypeError(`expected a cassette file path (string or file: URL), got ${typeof file}`);
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}

/** The event line of a chunk: utf8 text when the bytes are valid UTF-8, base64 otherwise. */
function chunkEvent(t, from, bytes) {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return isUtf8(buffer)
    ? { t: round(t), from, utf8: buffer.toString('utf8') }
    : { t: round(t), from, base64: buffer.toString('base64') };
}

/**
 * Writes a cassette as events happen, synchronously (so the file is whole
 * whenever the process stops). `header` is merged into the header line.
 */
class CassetteWriter {
  constructor(file, header = {}) {
    this.path = pathOf(file);
    this.started = performance.now();
    this.fd = fs.openSync(this.path, 'w');
    this.line({ cassette: FORMAT, version: VERSION, recorded: new Date().toISOString(), ...header });
  }

  now() {
    return performance.now() - this.started;
  }

  line(object) {
    if (this.fd === undefined) return;
    fs.writeSync(this.fd, JSON.stringify(object) + '\n');
  }

  chunk(from, bytes) {
    this.line(chunkEvent(this.now(), from, bytes));
  }

  message(from, message) {
    this.line({ t: round(this.now()), from, message });
  }

  exit(code, signal) {
    this.line({ t: round(this.now()), exit: { code, signal } });
  }

  close() {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    fs.closeSync(fd);
  }
}

/** Parse cassette text (or bytes). */
function parseCassette(text, name = 'cassette') {
  const lines = String(text).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new CassetteError(`${name}: empty, not a cassette`);
  const parse = (line, index) => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new CassetteError(`${name}:${index + 1}: not JSON (${error.message})`);
    }
  };
  const header = parse(lines[0], 0);
  if (header?.cassette !== FORMAT) throw new CassetteError(`${name}: its first line is not a cassette header ({"cassette":"${FORMAT}",…})`);
  if (header.version !== VERSION) throw new CassetteError(`${name}: cassette version ${header.version}, this mcp-ordered-dispatch reads version ${VERSION}`);
  const events = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const event = parse(lines[i], i);
    if (event.from !== undefined && event.from !== 'client' && event.from !== 'server') {
      throw new CassetteError(`${name}:${i + 1}: "from" must be "client" or "server", got ${JSON.stringify(event.from)}`);
    }
    if (typeof event.utf8 === 'string') event.bytes = Buffer.from(event.utf8, 'utf8');
    else if (typeof event.base64 === 'string') event.bytes = Buffer.from(event.base64, 'base64');
    events.push(event);
  }
  return { name, header, events };
}

/** Read a cassette file: { name, header, events } (chunk events get `bytes`, a Buffer). */
function readCassette(file) {
  const path = pathOf(file);
  return parseCassette(fs.readFileSync(path, 'utf8'), path);
}

/** A path, file URL, or a cassette already read. */
function loadCassette(cassette) {
  if (cassette && typeof cassette === 'object' && !(cassette instanceof URL) && Array.isArray(cassette.events)) return cassette;
  return readCassette(cassette);
}

function kindOf(message) {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return 'invalid';
  const hasId = message.id !== undefined && message.id !== null;
  if (typeof message.method === 'string') return hasId ? 'request' : 'notification';
  if (hasId && ('result' in message || 'error' in message)) return 'response';
  return 'invalid';
}

function parseLine(bytes) {
  const text = bytes.toString('utf8').replace(/\r?\n$/, '');
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The lines of both directions, in the order they were complete:
 * [{ from, seq, bytes, message?, kind, t, segments: [{ offset, event, t, chunkStart }] }],
 * `segments` being the line's pieces by the chunk (cassette.events index
 * `event`) each came in; the first starts at offset 0, and `chunkStart` says
 * whether a recorded chunk began there. A direction's last line may lack its
 * newline.
 */
function timeline(cassette) {
  const lines = [];
  const pending = { client: null, server: null };
  const finish = (from, line) => {
    const bytes = Buffer.concat(line.parts);
    const message = parseLine(bytes);
    lines.push({ from, seq: lines.length, bytes, message, kind: message === undefined ? 'invalid' : kindOf(message), t: line.segments[0].t, segments: line.segments });
  };
  cassette.events.forEach((event, index) => {
    const from = event.from;
    if (from === undefined) return;
    if (event.message !== undefined) {
      if (pending[from]) {
        finish(from, pending[from]);
        pending[from] = null;
      }
      const bytes = Buffer.from(JSON.stringify(event.message) + '\n');
      lines.push({ from, seq: lines.length, bytes, message: event.message, kind: kindOf(event.message), t: event.t, segments: [{ offset: 0, event: index, t: event.t, chunkStart: true }] });
      return;
    }
    const bytes = event.bytes;
    if (!bytes || bytes.length === 0) return;
    let position = 0;
    while (position < bytes.length) {
      let line = pending[from];
      if (!line) line = pending[from] = { parts: [], length: 0, segments: [] };
      line.segments.push({ offset: line.length, event: index, t: event.t, chunkStart: position === 0 });
      const newline = bytes.indexOf(NEWLINE, position);
      const end = newline === -1 ? bytes.length : newline + 1;
      line.parts.push(bytes.subarray(position, end));
      line.length += end - position;
      if (newline !== -1) {
        finish(from, line);
        pending[from] = null;
      }
      position = end;
    }
  });
  for (const from of ['client', 'server']) if (pending[from] && pending[from].length > 0) finish(from, pending[from]);
  return lines;
}

/**
 * Write a copy of a cassette with every message passed through
 * `fn(message, { from, t })`, which returns the message to keep (the same
 * object, a changed copy, or `undefined` to keep it as it is). Lines that are
 * not JSON are kept. Chunk boundaries inside a changed line move with its
 * length; the number of chunks and their times stay.
 */
function redactCassette(input, output, fn) {
  if (typeof fn !== 'function') throw new TypeError('redactCassette(input, output, fn): fn must be a function');
  const cassette = loadCassette(input);
  const lines = timeline(cassette);
  let changed = 0;
  const redacted = lines.map((line) => {
    if (line.message === undefined) return line.bytes;
    const copy = structuredClone(line.message);
    const result = fn(copy, { from: line.from, t: line.t });
    const next = result === undefined ? copy : result;
    const text = JSON.stringify(next);
    if (text === JSON.stringify(line.message)) return line.bytes;
    changed++;
    // The line's own ending (\n, \r\n, or none for a last line cut short) stays.
    const ending = /\r?\n$/.exec(line.bytes.toString('latin1'))?.[0] ?? '';
    return Buffer.from(text + ending);
  });
  // Each chunk event gets back the pieces of lines it held, a changed
  // line's offsets scaled to its new length.
  const pieces = new Map(); // event index -> [Buffer]
  lines.forEach((line, i) => {
    const bytes = redacted[i];
    const scale = (offset) => (bytes === line.bytes ? offset : Math.round((offset * bytes.length) / line.bytes.length));
    line.segments.forEach((segment, k) => {
      const from = scale(segment.offset);
      const to = k + 1 < line.segments.length ? scale(line.segments[k + 1].offset) : bytes.length;
      if (!pieces.has(segment.event)) pieces.set(segment.event, []);
      pieces.get(segment.event).push(bytes.subarray(from, to));
    });
  });
  const out = [JSON.stringify({ ...cassette.header, redacted: true })];
  cassette.events.forEach((event, index) => {
    if (event.from === undefined) {
      const { bytes, ...rest } = event;
      out.push(JSON.stringify(rest));
    } else if (event.message !== undefined) {
      const bytes = Buffer.concat(pieces.get(index) ?? []);
      const message = parseLine(bytes);
      out.push(JSON.stringify({ t: event.t, from: event.from, message }));
    } else {
      const bytes = Buffer.concat(pieces.get(index) ?? []);
      if (bytes.length === 0) return;
      out.push(JSON.stringify(chunkEvent(event.t, event.from, bytes)));
    }
  });
  fs.writeFileSync(pathOf(output), out.join('\n') + '\n');
  return { changed };
}

module.exports = {
  CassetteError,
  CassetteWriter,
  readCassette,
  loadCassette,
  timeline,
  kindOf,
  redactCassette,
  pathOf,
};
