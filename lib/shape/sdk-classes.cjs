'use strict';
// The search by shape's one question: which SDK classes a module's text
// defines, whatever a bundler or minifier made of their names. Every class
// body without `extends` that the class tracker (lib/shape/classes.cjs)
// finds is judged by its members (lib/adapters/shape.cjs). Asked by
// register's transform (lib/shape/reach.cjs), discover's search of files on
// disk (lib/discover/discover.cjs) and the bundler plugin alike.
// Dependency-free but for the adapter: it also runs on a module.register() loader thread.

const { locateClasses } = require('./classes.cjs');
const { classOfMembers } = require('../adapters/shape.cjs');

/**
 * The SDK classes `text` (a string) defines, in source order: [{ start,
 * open, end, methods, sets, kind: 'protocol' | 'stdio', generation }] -
 * `open` just after the body's `{`, `generation` 1 or 2 for a Protocol and
 * 0 for a stdio transport. Undefined when `text` does not lex as JavaScript.
 */
function sdkClassesIn(text) {
  const classes = locateClasses(text);
  if (classes === undefined) return undefined;
  const found = [];
  for (const cls of classes) {
    if (cls.extends) continue;
    const what = classOfMembers(cls);
    if (what !== undefined) found.push({ start: cls.start, open: cls.open, end: cls.end, methods: cls.methods, sets: cls.sets, kind: what.kind, generation: what.generation ?? 0 });
  }
  return found;
}

module.exports = { sdkClassesIn };
