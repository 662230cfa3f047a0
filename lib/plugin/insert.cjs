'use strict';
// Insertions into a finished output file (lib/plugin/esbuild.cjs), and its
// source map carried across them. The plugin only ever inserts text; every
// position after an insertion moves by it, on the same line (by its length)
// or, for an insertion that holds line breaks, to a later line. So the
// output's map keeps each of its segments and only moves them: one pass over
// its decoded mappings, whatever its size (composing a second map over it
// would need a segment per character of a minified line to stay exact).

// A source map comment on a file's last line (its URL: a file name or a data: URL).
const MAP_URL_COMMENT = /\n\/\/# sourceMappingURL=(\S+)\s*$/;

// A module's head: a hashbang, comments, and a "use strict" directive that inserted code must stay behind.
const HEAD = /^(?:#![^\n]*\n)?(?:\s*(?:\/\/[^\n]*|\/\*[\s\S]*?\*\/))*\s*(?:(['"])use strict\1[ \t]*;?)?/;

/** `text` with each of `edits` ([[offset, inserted]], by offset) inserted. */
function insertAll(text, edits) {
  let out = '';
  let last = 0;
  for (const [offset, inserted] of edits) {
    out += text.slice(last, offset) + inserted;
    last = offset;
  }
  return out + text.slice(last);
}

let codec;
/** @jridgewell/sourcemap-codec (magic-string's own dependency: where a strict layout does not hoist it, from beside magic-string). */
function sourcemapCodec() {
  if (codec !== undefined) return codec;
  try {
    codec = require('@jridgewell/sourcemap-codec');
  } catch {
    try {
      codec = require('node:module').createRequire(require.resolve('magic-string'))('@jridgewell/sourcemap-codec');
    } catch (cause) {
      throw new Error('the plugin\'s source maps need @jridgewell/sourcemap-codec, which comes with magic-string: `npm install --save-dev magic-string`', { cause });
    }
  }
  return codec;
}

/**
 * `map` (a source map of `code`) as a map of `code` with `edits`
 * ([[offset, inserted]], by offset; offsets and columns in UTF-16 units, as
 * source maps count them): each segment moved past what was inserted before it.
 * A segment at an insertion's offset moves with the text after it.
 */
function shiftMap(map, code, edits) {
  if (edits.length === 0 || typeof map?.mappings !== 'string') return map;
  const { decode, encode } = sourcemapCodec();
  return { ...map, mappings: encode(shiftDecoded(decode(map.mappings), code, edits)) };
}

// A token's start: where a segment of a map made for insertions goes.
const TOKEN = /[\w$]+/g;

/**
 * The source map of `code` with `edits` inserted, back to `code` itself as
 * `source` (its text included): a segment at each line's start, at each
 * word's start and where the text resumes after an insertion (as
 * magic-string's hires 'boundary' places them), moved past the insertions.
 * Made directly: magic-string's map of the SDK's largest modules cost each
 * build more (bench/plugin.mjs's rolldown row measures it).
 */
function insertionMap(code, edits, source) {
  const decoded = [];
  let next = 0; // the next edit: the text after it starts a segment too
  for (let lineStart = 0, line = 0; lineStart <= code.length; line++) {
    const end = code.indexOf('\n', lineStart);
    const lineEnd = end === -1 ? code.length : end;
    const segments = lineEnd > lineStart ? [[0, 0, line, 0]] : [];
    let last = 0;
    const add = (offset) => {
      const column = offset - lineStart;
      if (column > last) segments.push([column, 0, line, (last = column)]);
    };
    TOKEN.lastIndex = lineStart;
    for (let m = TOKEN.exec(code); m !== null && m.index < lineEnd; m = TOKEN.exec(code)) {
      while (next < edits.length && edits[next][0] < m.index) add(edits[next++][0]);
      add(m.index);
    }
    while (next < edits.length && edits[next][0] < lineEnd) add(edits[next++][0]);
    decoded.push(segments);
    if (end === -1) break;
    lineStart = end + 1;
  }
  const { encode } = sourcemapCodec();
  return { version: 3, sources: [source], sourcesContent: [code], names: [], mappings: encode(shiftDecoded(decoded, code, edits)) };
}

/** Decoded mappings of `code` as mappings of `code` with `edits` (see shiftMap). */
function shiftDecoded(decoded, code, edits) {
  if (edits.length === 0) return decoded;
  // Each insertion's line and column in `code`.
  const byLine = new Map();
  let line = 0;
  let lineStart = 0;
  for (const [offset, inserted] of edits) {
    for (let at = code.indexOf('\n', lineStart); at !== -1 && at < offset; at = code.indexOf('\n', lineStart)) {
      line++;
      lineStart = at + 1;
    }
    if (!byLine.has(line)) byLine.set(line, []);
    byLine.get(line).push([offset - lineStart, inserted]);
  }
  const out = [];
  for (let l = 0; l < decoded.length; l++) {
    const inserts = byLine.get(l);
    if (inserts === undefined) {
      out.push(decoded[l]);
      continue;
    }
    // From each insertion on: the lines it adds and the column change after it.
    let added = 0;
    let delta = 0;
    let next = 0;
    const lines = [[]];
    for (const segment of decoded[l]) {
      while (next < inserts.length && inserts[next][0] <= segment[0]) {
        const [column, inserted] = inserts[next++];
        const breaks = inserted.split('\n');
        if (breaks.length === 1) delta += inserted.length;
        else {
          added += breaks.length - 1;
          delta = breaks[breaks.length - 1].length - column;
          while (lines.length <= added) lines.push([]);
        }
      }
      const moved = segment.slice();
      moved[0] += delta;
      lines[added].push(moved);
    }
    // Lines added by insertions after the last segment.
    for (; next < inserts.length; next++) added += inserts[next][1].split('\n').length - 1;
    while (lines.length <= added) lines.push([]);
    out.push(...lines);
  }
  return out;
}

module.exports = { insertAll, shiftMap, insertionMap, MAP_URL_COMMENT, HEAD };
