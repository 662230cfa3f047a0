'use strict';
// An embedded ES chunk holding SDK classes, run as Bun runs it: from its
// bytecode, its text unchanged. Compiling a patched text instead costs a
// Claude Code start tens of milliseconds (docs/run.md), and Bun calls no
// plugin for the imports of a module it runs from bytecode. So an import of
// such a chunk is redirected (lib/register/bun-embedded.cjs) to a small
// module of register's own, its facade, which:
//   - imports, in the chunk's own order, the modules the chunk imports: each
//     import seen by register's onResolve, as the chunk's own would be, so an
//     SDK chunk among them is patched in turn; the chunk then finds each one
//     loaded and run already, in the order it would have run them;
//   - imports the chunk itself and passes all its exports on;
//   - hands its SDK classes, reached through its exports
//     (lib/shape/exports.cjs), to the class receiver once it has run; a stdio
//     transport not exported is patched as a patched Protocol connects it
//     (lib/patch/receiver.cjs's stdioAtConnect).
// Only where that is the same module graph, in the same order: the chunk's
// imports all written in its first lines; every module they import in turn
// that holds the prefilter's markers one of the chunk's own imports; none of
// them importing the chunk back (a cycle would run it before them). What
// that takes (a walk of the chunk's static imports, each module read once)
// and the facade's plan are kept in the executable index (lib/register/bun-index.cjs):
// a second start reads neither the chunk nor what it imports. Any doubt, and
// the chunk is patched in its text as before.

const fs = require('node:fs');
const path = require('node:path');
const { isBunEmbeddedPath } = require('../native/platform.cjs');
const { mayDefineSdkClass, isSdkProtocol } = require('../adapters/modules.cjs');
const { classExports, exportClauseOf, isExportName } = require('../shape/exports.cjs');
const { EXPORTS_GLOBAL } = require('../shape/globals.cjs');
const { validClass } = require('../shape/cache.cjs');

/** Bounds of the walk of a chunk's static imports: modules, bytes read. */
const MAX_WALK_MODULES = 8192;
const MAX_WALK_BYTES = 512 * 1024 * 1024;
/** A static import (`import ... from "x"`, `import "x"`, `export ... from "x"`) or a require("x"), anywhere in a module's text. */
const ANY_IMPORT = /\b(?:(?:import|export)\s*(?:[^'"`();]*?\bfrom\s*)?|require\s*\(\s*)(["'])([^"'\n]+)\1/g;
/** One item of a chunk's first lines: a comment, or an import declaration. */
const HEADER_ITEM = /\s*(?:\/\/[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|import\s*(?:[\w$*\s{},]*?\bfrom\s*)?(["'])([^"'\n]+)\1\s*;?)/y;

/** `specifier`, imported by embedded module `file`, as the embedded path it names, or undefined (a built-in, a package). */
function embeddedPathOf(specifier, file) {
  if (isBunEmbeddedPath(specifier)) return specifier;
  if (specifier.startsWith('./') || specifier.startsWith('../')) return joinEmbedded(file, specifier);
  return undefined;
}

/**
 * `specifier` (relative) resolved against embedded module `file` in the
 * embedded path's own form on every platform: '/'-joined under its root
 * (`/$bunfs/`, `B:/~BUN/`), its drive letter and its separator kept (the
 * platform's path.resolve would make `/$bunfs/…` `C:\$bunfs\…` on Windows).
 */
function joinEmbedded(file, specifier) {
  const [, drive = '', rest] = /^([A-Za-z]:)?(.*)$/s.exec(file);
  const backslashed = rest.includes('\\') && !rest.includes('/');
  const joined = path.posix.resolve(path.posix.dirname(rest.replaceAll('\\', '/')), specifier);
  return drive + (backslashed ? joined.replaceAll('/', '\\') : joined);
}

/** The embedded modules `text` (of embedded module `file`) imports or requires anywhere, `require` calls included when `requires`. */
function embeddedImportsOf(text, file, requires = true) {
  const files = [];
  for (const found of text.matchAll(ANY_IMPORT)) {
    if (!requires && found[0].startsWith('require')) continue;
    const embedded = embeddedPathOf(found[2], file);
    if (embedded !== undefined) files.push(embedded);
  }
  return files;
}

/**
 * The imports written in the first lines of chunk `file` (`source`), in
 * order, each an embedded path or a built-in's name; undefined where the
 * chunk imports anything else, or imports an embedded module elsewhere in its text.
 */
function headerImportsOf(source, file) {
  const Module = require('node:module');
  const imports = [];
  HEADER_ITEM.lastIndex = 0;
  for (let found = HEADER_ITEM.exec(source); found !== null && found[0].trim() !== ''; found = HEADER_ITEM.exec(source)) {
    if (found[2] === undefined) continue;
    const embedded = embeddedPathOf(found[2], file);
    if (embedded === undefined && !Module.isBuiltin(found[2])) return undefined;
    imports.push(embedded ?? found[2]);
  }
  const header = new Set(imports);
  return embeddedImportsOf(source, file, false).every((imported) => header.has(imported)) ? imports : undefined;
}

/**
 * Whether chunk `file` may run from its bytecode behind a facade that
 * imports `imports` (its header imports) first: every module reached from
 * them holding the prefilter's markers is one of them, and none imports
 * `file`. Read within the bounds; false beyond them.
 */
function walkAllows(file, imports) {
  const direct = new Set(imports);
  const seen = new Set();
  const pending = imports.filter((imported) => isBunEmbeddedPath(imported));
  let bytes = 0;
  while (pending.length > 0) {
    const next = pending.pop();
    if (seen.has(next)) continue;
    seen.add(next);
    let text;
    try {
      text = fs.readFileSync(next);
    } catch {
      if (!fs.existsSync(next)) continue; // no module there: text that only looks like an import (in a string)
      return false;
    }
    bytes += text.length;
    if (seen.size > MAX_WALK_MODULES || bytes > MAX_WALK_BYTES) return false;
    if (!direct.has(next) && mayDefineSdkClass(text)) return false;
    // Static imports only: a require() or import() runs later, and Bun calls register's onResolve for it.
    for (const imported of embeddedImportsOf(text.toString('latin1'), next, false)) {
      if (imported === file) return false;
      pending.push(imported);
    }
  }
  return true;
}

/**
 * What the facade of ES chunk `file` (`source`, its SDK classes `at`:
 * lib/shape/rewrite.cjs's) is made of: { imports (the chunk's header
 * imports), classes ([[export name, kind, generation, parent]]), hasDefault },
 * or undefined (patched in its text instead). `walked`: what the record says
 * of its walk (true, false, or undefined: not walked yet); `noteWalk(allowed)`
 * records it.
 */
function facadePlanOf(file, source, at, walked, noteWalk) {
  const reached = classExports(source, at);
  if (reached === undefined || reached.some(({ kind, exportName }) => kind === 'protocol' && exportName === undefined)) return undefined;
  const imports = headerImportsOf(source, file);
  if (imports === undefined) return undefined;
  let allowed = walked;
  if (allowed === undefined) {
    allowed = walkAllows(file, imports);
    noteWalk(allowed);
  }
  if (!allowed) return undefined;
  const classes = reached.filter(({ exportName }) => exportName !== undefined).map(({ exportName, kind, generation, parent }) => [exportName, kind, generation, parent]);
  return { imports, classes, hasDefault: [...exportClauseOf(source).values()].includes('default') };
}

/** Whether `plan` (read from the record) is one facadePlanOf() could have made: nothing else is ever made into a facade. */
function validPlan(plan) {
  if (plan === null || typeof plan !== 'object' || !Array.isArray(plan.imports) || !Array.isArray(plan.classes) || typeof plan.hasDefault !== 'boolean') return false;
  const Module = require('node:module');
  return plan.imports.every((imported) => typeof imported === 'string' && (isBunEmbeddedPath(imported) || Module.isBuiltin(imported))) &&
    plan.classes.every((entry) => Array.isArray(entry) && entry.length === 4 && isExportName(entry[0]) &&
      validClass(entry[1], entry[2]) && typeof entry[3] === 'boolean');
}

/** The facade's text for chunk `file`, from `plan` (facadePlanOf()'s). */
function facadeText(file, { imports, classes, hasDefault }) {
  const from = JSON.stringify(file);
  const lines = imports.map((imported) => `import ${JSON.stringify(imported)};`);
  if (classes.length > 0) lines.push(`import { ${classes.map(([exportName], i) => `${exportName} as c${i}`).join(', ')} } from ${from};`);
  lines.push(`export * from ${from};`);
  if (hasDefault) lines.push(`export { default } from ${from};`);
  if (classes.length > 0) {
    const found = classes.map(([, kind, generation, parent], i) => `[${JSON.stringify(kind)}, ${generation}, ${parent}, c${i}]`);
    lines.push(`globalThis.${EXPORTS_GLOBAL}(${from}, [${found.join(', ')}]);`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What a facade calls with its chunk's exported SDK classes ([kind,
 * generation, parent, export]): each to the class receiver; false where one
 * is not an SDK class after all (then none is).
 */
function classesExported(classes) {
  const found = [];
  for (const [kind, generation, parent, exported] of classes) {
    const Class = parent && typeof exported === 'function' ? Object.getPrototypeOf(exported) : exported;
    if (typeof Class !== 'function' || (kind === 'protocol' && !isSdkProtocol(Class))) return false;
    found.push([kind, generation, Class]);
  }
  return found;
}

/** Hand `found` (classesExported()'s) of chunk `file` to the class receiver. */
function receive(file, found) {
  const { classDefined } = require('./hooks.cjs');
  for (const [kind, generation, Class] of found) classDefined(kind, generation, file, Class);
}

module.exports = { facadePlanOf, facadeText, validPlan, classesExported, receive };
