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
      throw new Error('moving the source map needs @jridgewell/sourcemap-codec, which comes with magic-string: `npm install --save-dev magic-string`', { cause });
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
  const decoded = decode(map.mappings);
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
  return { ...map, mappings: encode(out) };
}

module.exports = { insertAll, shiftMap, MAP_URL_COMMENT, HEAD };
