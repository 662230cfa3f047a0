'use strict';
// Dependency-free (safe on the ESM loader thread, loads no addon): does an
// SDK module's source define a stdio transport class? For lib/esm-transform.cjs,
// which appends a patch call naming those classes to such a module.

const DEFINES_STDIO_TRANSPORT =
  /(?:^|\n)(?:export class (Stdio(?:Client|Server)Transport)\b|var (Stdio(?:Client|Server)Transport) = class\b|class (Stdio(?:Client|Server)Transport)\b)/g;

/** The names of the SDK stdio transport classes an ES module's source defines (module-scope bindings). */
function stdioClassesDefinedIn(source) {
  const names = new Set();
  for (const m of String(source).matchAll(DEFINES_STDIO_TRANSPORT)) names.add(m[1] ?? m[2] ?? m[3]);
  return [...names];
}

module.exports = { stdioClassesDefinedIn };
