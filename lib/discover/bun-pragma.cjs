'use strict';
// An embedded module's format by the first line Bun's bundler writes:
// `// @bun` (an ES module), `// @bun @bun-cjs` followed by the wrapper
// BUN_CJS matches (a CommonJS one). register's way into a Bun-compiled
// executable (lib/register/bun-shared.cjs) and doctor's reading of one
// (lib/discover/bun-graph.cjs) decide by this one rule. Dependency-free.

/** Bun's first line of a module it bundled; `@bun-cjs` marks a CommonJS one, wrapped as BUN_CJS says. */
const BUN_PRAGMA = '// @bun';
const BUN_CJS = /^\/\/ @bun[^\n]*@bun-cjs\r?\n\(function\(exports, require, module, __filename, __dirname\) \{/;

/**
 * The format of an embedded chunk, by Bun's own pragma: 'commonjs' (a
 * `@bun-cjs` chunk in the wrapper BUN_CJS matches), 'module', or undefined
 * (a `@bun-cjs` chunk wrapped otherwise: never run as an ES module).
 */
function embeddedFormatOf(source) {
  if (BUN_CJS.test(source)) return 'commonjs';
  const eol = source.indexOf('\n');
  const first = eol < 0 ? source : source.slice(0, eol);
  return first.startsWith(BUN_PRAGMA) && first.includes('@bun-cjs') ? undefined : 'module';
}

module.exports = { BUN_PRAGMA, embeddedFormatOf };
