'use strict';
// Which of an ES module's exports reach the SDK classes the search
// by shape found in its text (lib/shape/rewrite.cjs's `at`: [open, kind,
// generation] per class), so that the class can be patched through the
// module's exports once it has run, with its text (and a Bun-compiled
// executable's bytecode for it) left as it is. Read from the text alone:
//   - the module's one export clause, `export{a as b,c};`, closing the text
//     (what Bun's bundler writes at the end of a chunk), or no export at all
//     (a chunk Bun only imports for its effects);
//   - each class's binding, `class N{` or `N=class{` just before the body
//     the search found;
//   - N itself exported, or a class that extends N directly
//     (`class M extends N{`, `M=class extends N{`) exported: the class is its
//     parent (the class receiver checks its shape again at run time).
// Any doubt returns undefined, and the caller changes the text instead.

/** An identifier as a minifier writes one. */
const NAME = '[A-Za-z_$][\\w$]*';
/** The export clause closing a module's text, and its entries. */
const EXPORT_CLAUSE = new RegExp(`(?:^|[;}\\n])export\\s*\\{([^{}]*)\\}\\s*;?\\s*$`);
const EXPORT_ENTRY = new RegExp(`^(${NAME})(?:\\s+as\\s+(${NAME}))?$`);
/** An export statement anywhere: where no clause closes the text, it must have none. */
const ANY_EXPORT = /(?:^|[;}\n])\s*export\b/;
/** How far back from a class body its binding may be written. */
const BINDING_WINDOW = 128;
const WHOLE_NAME = new RegExp(`^${NAME}$`);
const CLASS_BINDING = new RegExp(`(?:\\bclass\\s+(${NAME})|(?:^|[^\\w$.])(${NAME})\\s*=\\s*class)\\s*\\{$`);

/** Whether `name` is an export name as this file reads them. */
function isExportName(name) {
  return typeof name === 'string' && WHOLE_NAME.test(name);
}

/**
 * local name -> exported name, from the export clause closing `text`; an
 * empty map where the text exports nothing; undefined where it exports
 * otherwise.
 */
function exportClauseOf(text) {
  const tail = Math.max(0, text.length - 65536);
  const clause = EXPORT_CLAUSE.exec(text.slice(tail));
  const before = clause === null ? text : text.slice(0, tail + clause.index + 1);
  if (ANY_EXPORT.test(before)) return undefined;
  if (clause === null) return new Map();
  const exported = new Map();
  for (const raw of clause[1].split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parts = EXPORT_ENTRY.exec(entry);
    if (parts === null) return undefined;
    if (!exported.has(parts[1])) exported.set(parts[1], parts[2] ?? parts[1]);
  }
  return exported;
}

/** The binding of the class whose body opens at `open` (just past its `{`), or undefined. */
function bindingAt(text, open) {
  const found = CLASS_BINDING.exec(text.slice(Math.max(0, open - BINDING_WINDOW), open));
  return found === null ? undefined : (found[1] ?? found[2]);
}

/** The names of the classes in `text` that extend `base` directly. */
function subclassesOf(text, base) {
  const names = [];
  const needle = `extends ${base}`;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
    const after = at + needle.length;
    const next = /^\s*\{/.exec(text.slice(after, after + 8));
    if (next === null) continue;
    const found = CLASS_BINDING.exec(`${text.slice(Math.max(0, at - BINDING_WINDOW), at).trimEnd()}{`);
    if (found !== null) names.push(found[1] ?? found[2]);
  }
  return names;
}

/**
 * How each SDK class at `at` in ES module `text` is reached through its
 * exports: [{ exportName (undefined: not reached so), parent (the class is
 * the export's parent), kind, generation }], one per class; undefined when
 * its exports are not all in one closing clause, or a class has no binding
 * read with certainty.
 */
function classExports(text, at) {
  const exported = exportClauseOf(text);
  if (exported === undefined) return undefined;
  const reached = [];
  for (const [open, kind, generation] of at) {
    const binding = bindingAt(text, open);
    if (binding === undefined) return undefined;
    let exportName = exported.get(binding);
    const parent = exportName === undefined;
    if (parent) exportName = subclassesOf(text, binding).map((name) => exported.get(name)).find((name) => name !== undefined);
    reached.push({ exportName, parent, kind, generation });
  }
  return reached;
}

module.exports = { classExports, exportClauseOf, isExportName };
