'use strict';
// The `.node` files this process has opened, and the addon a build provides.
//
// Every `.node` is opened with process.dlopen() (what require() does for one
// in Node, and what still works where require() cannot be used for one: Deno
// compiles a `.node` file as JavaScript once any module load hook is
// registered; a bundle has no require() of its own for a file it does not
// hold), once per process and real path, through one global Map shared by
// every copy of this package in the process (installed, nested, bundled).

const fs = require('node:fs');
const path = require('node:path');

const OPENED = Symbol.for('mcp-ordered-dispatch.opened-addons');

/** The addon's exports from the `.node` file at `file` (opened once per process and real path). */
function openAddon(file) {
  const opened = (globalThis[OPENED] ??= new Map());
  let key = path.resolve(file);
  try {
    key = fs.realpathSync(key);
  } catch {
    // process.dlopen() says why.
  }
  let exports = opened.get(key);
  if (exports === undefined) {
    const holder = { exports: {} };
    process.dlopen(holder, path.toNamespacedPath(key));
    exports = holder.exports;
    opened.set(key, exports);
  }
  return exports;
}

// What a build provides (set by its injected code before the first load):
// { addon } (already opened: the `.node` a Bun-compiled executable embeds)
// or { file } (beside a bundle, a SEA asset written out), with `from` (what
// provided it, for messages and doctor) and `fix` (how to fix the build when
// it does not load). undefined: none.
let provided;

/** Use the addon a build provides ({ addon } or { file }, with `from` and `fix`). */
function provideAddon(source) {
  provided = source;
}

/** What a build provided, or undefined. */
function providedAddon() {
  return provided;
}

module.exports = { openAddon, provideAddon, providedAddon };
