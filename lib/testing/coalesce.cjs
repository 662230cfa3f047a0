'use strict';
// Coalescing modes of replay: how the replayed server groups what it sends
// into writes. planWrites turns the lines of one answer (what the recorded
// server sent after one request) into writes:
//
//   recorded            the recorded chunk boundaries (and with `timing`, the recorded pauses)
//   separate            every message in its own write, with a gap between
//   all-in-one          everything up to and including a response in one write
//   last-with-response  every message in its own write, except that the
//                       notification right before a response shares its write
//   random:<seed>       random cuts, also inside a message and inside a
//                       multi-byte character; the same seed cuts the same way

const COALESCING_MODES = Object.freeze(['recorded', 'separate', 'all-in-one', 'last-with-response', 'random']);
/** The modes forEachCoalescing runs unless told otherwise, `separate` (the reference) first. */
const DEFAULT_MODES = Object.freeze(['separate', 'all-in-one', 'last-with-response', 'recorded', 'random:1', 'random:2', 'random:3']);

/** { name, seed? } of a mode string; throws a TypeError naming the modes for anything else. */
function parseMode(mode) {
  if (typeof mode === 'string') {
    if (COALESCING_MODES.includes(mode) && mode !== 'random') return { name: mode };
    const match = /^random:(.+)$/.exec(mode);
    if (match) return { name: 'random', seed: match[1] };
  }
  throw new TypeError(`unknown coalescing mode ${JSON.stringify(mode)}; expected one of recorded, separate, all-in-one, last-with-response, random:<seed>`);
}

// FNV-1a of the seed's text, then mulberry32: small, and the same everywhere.
function rngFor(seed) {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(String(seed), 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let state = h;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  return next;
}

/**
 * Cut `bytes` (length n) at random places: at least one cut, at most
 * 2 + 2 * messages of them (never more than n - 1), and, when the bytes hold
 * a multi-byte character, one cut inside one.
 */
function randomCuts(bytes, messages, rng) {
  const n = bytes.length;
  if (n < 2) return [];
  const cuts = new Set();
  const count = 1 + rng.int(Math.min(n - 1, 2 + 2 * messages));
  while (cuts.size < count) cuts.add(1 + rng.int(n - 1));
  const inside = [];
  for (let i = 1; i < n; i++) if ((bytes[i] & 0xc0) === 0x80) inside.push(i);
  if (inside.length > 0) cuts.add(inside[rng.int(inside.length)]);
  return [...cuts].sort((a, b) => a - b);
}

/**
 * The writes for one answer. `lines`: [{ bytes, kind, segments, awaitsAnswer? }]
 * (segments as timeline() gives them: where the recorded chunks began);
 * `awaitsAnswer` is the id of a server-to-client request whose answer the
 * recorded server had before it sent more. Returns
 * [{ bytes, t, awaits, boundary }]: `awaits` the ids to wait for after the
 * write, `boundary` whether the write ends at the end of a message (only then
 * can a gap be a ping).
 */
function planWrites(lines, mode, rng) {
  const { name } = typeof mode === 'string' ? parseMode(mode) : mode;
  const writes = [];
  let current = null;
  const open = (t) => {
    current = { parts: [], t, awaits: [], boundary: true };
    writes.push(current);
  };
  const cut = () => {
    current = null;
  };
  const add = (bytes, t) => {
    if (!current) open(t);
    current.parts.push(bytes);
  };

  if (name === 'random') {
    const all = Buffer.concat(lines.map((l) => l.bytes));
    const ends = new Set();
    let offset = 0;
    for (const line of lines) ends.add((offset += line.bytes.length));
    let from = 0;
    for (const at of [...randomCuts(all, lines.length, rng ?? rngFor(0)), all.length]) {
      if (at <= from) continue;
      writes.push({ parts: [all.subarray(from, at)], t: lines[0]?.t ?? 0, awaits: [], boundary: ends.has(at) });
      from = at;
    }
  } else {
    lines.forEach((line, i) => {
      const next = lines[i + 1];
      switch (name) {
        case 'recorded': {
          const segments = line.segments ?? [{ offset: 0, t: line.t, chunkStart: true }];
          segments.forEach((segment, k) => {
            const from = Math.min(segment.offset, line.bytes.length);
            const to = k + 1 < segments.length ? Math.min(segments[k + 1].offset, line.bytes.length) : line.bytes.length;
            if (segment.chunkStart && current) {
              current.boundary = k === 0;
              cut();
            }
            if (to > from) add(line.bytes.subarray(from, to), segment.t);
          });
          break;
        }
        case 'separate':
          add(line.bytes, line.t);
          cut();
          break;
        case 'all-in-one':
          add(line.bytes, line.t);
          if (line.kind === 'response') cut();
          break;
        case 'last-with-response':
          add(line.bytes, line.t);
          if (!(line.kind === 'notification' && next?.kind === 'response')) cut();
          break;
        default:
          throw new TypeError(`unknown coalescing mode ${name}`);
      }
      if (line.awaitsAnswer !== undefined && (name === 'recorded' || name === 'separate') && current === null) {
        writes.at(-1).awaits.push(line.awaitsAnswer);
      } else if (line.awaitsAnswer !== undefined && name === 'recorded' && current) {
        // The recorded server waited for the answer: so does the replay, after this write.
        current.awaits.push(line.awaitsAnswer);
        current.boundary = true;
        cut();
      }
    });
  }
  return writes.map((w) => ({ bytes: Buffer.concat(w.parts), t: w.t, awaits: w.awaits, boundary: w.boundary }));
}

module.exports = { COALESCING_MODES, DEFAULT_MODES, parseMode, rngFor, planWrites };
