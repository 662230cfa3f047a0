'use strict';
// Which children of a process `run` reached get the fix: the per-child
// rule. Pure: the caller (lib/patch/children.cjs) says what is known of the
// child and of this process, and reads a child's file only when the rule
// asks (`facts`). docs/run.md "Which processes get the fix" says the same in
// words.
//
// In a thread that has patched an SDK class, the fix's variables are out of
// the environment (lib/rule/marker.cjs), and a child gets them back only
// when it does MCP work:
//   - SERVER: started while a patched Protocol starts its transport (the
//     MCP server of a transport whose class was not patched before it
//     started: a host's own wrapper of the SDK's, a copy in bytecode);
//   - RELAUNCH: this host started again (the same executable; for a runtime,
//     the same runtime and main script), as Qwen Code and Gemini CLI do;
//   - SDK_EXECUTABLE: a Bun-compiled executable with a way in whose embedded
//     modules hold SDK classes (Claude Code started by an Agent SDK app).
// The servers a patched stdio transport starts get them through the
// transport itself (lib/patch/fix-env.cjs). Every other child gets the
// environment it was given: the user's own.
//
// Before a thread has patched anything (a wrapper: npx, a bin shim, a
// loader script), the variables are still in the environment and pass on,
// except to a child that nothing reaches (BAIL_OUTS of
// lib/rule/ways-in.cjs): it gets none of them, whoever starts it.

const path = require('node:path');
const { wayIn } = require('./ways-in.cjs');

/**
 * What `child` gets. child: { file (its executable, a real path), args (after
 * argv0), cwd, byTransport (started while a patched Protocol starts its transport) }; self: { file (this process's executable, a real path),
 * scripts (a Set of the main script's paths, resolved and real; empty for a
 * compiled executable), spacedPath (register's path holds white space) };
 * fixed: whether this thread has patched an SDK class; facts: {
 * compiled(file) (lib/discover/compiled.cjs's compiledKindOf()),
 * holdsSdk(file) } read only when asked.
 * Returns { fix: 'put-back' | 'take-out' | undefined (as given), reason, carriers (put-back) }.
 */
function childFix(child, self, fixed, facts) {
  if (fixed && child.byTransport === true) return { fix: 'put-back', reason: 'SERVER', carriers: undefined };
  if (child.file === undefined) return { fix: undefined };
  if (fixed && child.file === self.file && (self.scripts.size === 0 || child.args.some((arg) => !arg.startsWith('-') && self.scripts.has(path.resolve(child.cwd, arg))))) {
    return { fix: 'put-back', reason: 'RELAUNCH', carriers: undefined };
  }
  const compiled = facts.compiled(child.file);
  if (compiled?.kind !== 'bun' && compiled?.kind !== 'node-sea') return { fix: undefined };
  const way = wayIn({ compiled, spacedPath: self.spacedPath === true });
  if (way.bailOut !== undefined) return { fix: fixed ? undefined : 'take-out', reason: way.bailOut };
  if (fixed && facts.holdsSdk(child.file) === true) return { fix: 'put-back', reason: 'SDK_EXECUTABLE', carriers: way.carriers };
  return { fix: undefined };
}

module.exports = { childFix };
