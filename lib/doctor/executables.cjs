'use strict';
// `mcp-ordered-dispatch doctor <executable>...`: a compiled host read, not
// run (a launcher script, as npm's bin of a host, is read through to the
// executable it starts; a script holding the SDK is said to be reached). For a Bun-compiled executable, its embedded modules that hold SDK
// classes (lib/discover/bun-graph.cjs), whether the search by shape
// recognises each, and whether `run` reaches each: register's rule for the
// module (the entry module and a chunk wrapped otherwise are not reached)
// and the rule for the way in (lib/rule/ways-in.cjs: which variables its Bun
// reads a preload from). Doctor's project scan gives its compiled rows the
// same facts (sdkModulesRow).

const fs = require('node:fs');
const path = require('node:path');
const { readBunGraph } = require('../discover/bun-graph.cjs');
const { compiledKindOf, blocksBunOptions } = require('../discover/compiled.cjs');
const { bunWayInWords } = require('../rule/ways-in.cjs');
const { resolveCommand } = require('../native/can-start.cjs');
const { FIX } = require('../warnings/warnings.cjs');

/** One executable read: { name (as given), file, kind, ..., modules, sdk: [{ ..., reached, why }], wayIn: { reached, words }, ok, message }. */
function readExecutable(name, { cwd, env }) {
  const file = resolveCommand(name, env, cwd);
  if (file === undefined) return { name, ok: false, message: `${name}: not found (not a path, and not on PATH)` };
  let real = file;
  try {
    real = fs.realpathSync(file);
  } catch {
    // Read as given.
  }
  const graph = readBunGraph(real);
  if (graph === undefined) {
    const kind = compiledKindOf(real, { sea: false })?.kind;
    if (kind === undefined) return readScript(name, file, real, { cwd, env });
    const what = 'a compiled executable, but not a Bun-compiled one (doctor reads the embedded modules of Bun-compiled executables)';
    return { name, file, kind, ok: false, message: `${name} (${file}): ${what}` };
  }
  const compiled = { kind: 'bun', execArgv: graph.execArgv, blocksBunOptions: blocksBunOptions(graph.execArgv), layout: graph.layout };
  const wayIn = bunWayInWords(compiled);
  const sdk = graph.sdk.map((m) => {
    const reached = m.reached && wayIn.reached;
    return { ...m, reached, why: m.why ?? (wayIn.reached ? undefined : `its Bun reads no preload (${wayIn.words})`) };
  });
  const ok = sdk.length > 0 && sdk.every((m) => m.reached) && !graph.truncated;
  return { name, file, kind: 'bun', format: graph.format, bytes: graph.bytes, execArgv: graph.execArgv, layout: graph.layout, modules: graph.modules, entry: graph.entry, bytecodeOnly: graph.bytecodeOnly, truncated: graph.truncated, wayIn, sdk, ok };
}

/**
 * A file that is no compiled executable: a script that holds the SDK (run
 * reaches it through the runtime that starts it), a launcher holding none
 * that starts a Bun-compiled executable (read in its place), or neither.
 */
function readScript(name, file, real, options) {
  const program = require('../discover/program.cjs');
  if (program.programHoldsSdk(real)) {
    return { name, file, kind: 'script', ok: true, sdk: [], message: `${name} (${file}): a script that holds the SDK (itself or what it imports): \`run\` reaches it, Node or Bun loading register before it` };
  }
  const target = program.sdkExecutableOfLauncher(real);
  if (target !== undefined) return { ...readExecutable(target, options), name, launcher: file };
  return { name, file, kind: 'none', ok: false, message: `${name} (${file}): not a compiled executable, nor a script that holds the SDK or starts an executable that does` };
}

/** One SDK module's line. */
function moduleLine(m) {
  const what = `${m.name}${m.entry ? ' (the entry module)' : ''}: ${m.format}, ${(m.bytes / 1e3).toFixed(0)} KB${m.bytecode ? ', with bytecode' : ''}`;
  const shape = m.recognised ? 'recognised by the search by shape' : 'NOT recognised by the search by shape';
  return `  - ${what}: ${m.classes.join(', ')}; ${shape}; ${m.reached ? 'reached by `run`' : `NOT reached: ${m.why}`}`;
}

/** The report of one executable read (lines). */
function executableLines(exe) {
  if (exe.kind !== 'bun') return [`${exe.message}.`];
  const lines = exe.launcher === undefined ? [] : [`${exe.name}: ${exe.launcher}, a launcher holding no SDK, starts ${exe.file}; \`run\` passes the fix through it.`];
  lines.push(`${exe.name}: ${exe.file} (${exe.format}, ${(exe.bytes / 1e6).toFixed(0)} MB), a Bun-compiled executable of ${exe.modules} embedded modules, entry ${exe.entry}`);
  lines.push(`  way in: ${exe.wayIn.words}`);
  if (exe.sdk.length === 0) lines.push('  no embedded module holds an SDK class (Protocol or stdio transport) the search by shape finds.');
  for (const m of exe.sdk) lines.push(moduleLine(m));
  if (exe.bytecodeOnly.length > 0) lines.push(`  ${exe.bytecodeOnly.length} module(s) hold bytecode without source: not read (register cannot patch them either): ${exe.bytecodeOnly.slice(0, 5).join(', ')}${exe.bytecodeOnly.length > 5 ? ', ...' : ''}`);
  if (exe.truncated) lines.push('  the read stopped at its byte limit: some modules were not looked at.');
  const unreached = exe.sdk.filter((m) => !m.reached);
  if (exe.sdk.length > 0 && unreached.length === 0) lines.push(`  every SDK module is reached: \`npx mcp-ordered-dispatch run -- ${exe.name} ...\` patches them as they load.`);
  else if (unreached.length > 0) lines.push(`  ${unreached.length} of ${exe.sdk.length} SDK module(s) are not reached: they stay stock. For its developers, ${FIX.BUILD_IT_IN}.`);
  return lines;
}

/** `doctor` given executables: { exitCode: 0 when every SDK copy found is reached (and one was found), 1 otherwise; executables; message }. */
function doctorExecutables(names, { cwd = process.cwd(), env = process.env } = {}) {
  const executables = names.map((name) => readExecutable(name, { cwd: path.resolve(cwd), env }));
  const lines = executables.flatMap(executableLines);
  // A script holding the SDK counts as one copy found, reached.
  const found = executables.reduce((n, e) => n + (e.kind === 'script' ? 1 : (e.sdk?.length ?? 0)), 0);
  const unreached = executables.reduce((n, e) => n + (e.sdk?.filter((m) => !m.reached).length ?? 0), 0);
  const ok = executables.every((e) => e.ok);
  lines.push(ok ? `All ${found} SDK module(s) or script(s) found are reached by \`mcp-ordered-dispatch run\`.` : `${found} SDK module(s) or script(s) found, ${unreached} not reached; ${executables.filter((e) => !e.ok).length} of ${executables.length} executable(s) not all-clear (above).`);
  return { exitCode: ok ? 0 : 1, executables, message: lines.join('\n') };
}

/** The same facts for a compiled row of doctor's project scan (a Bun-compiled executable): { sdk, wayIn, unreached } or undefined. */
function sdkModulesOf(file) {
  const exe = readExecutable(file, { cwd: process.cwd(), env: {} });
  return exe.kind === 'bun' ? exe : undefined;
}

module.exports = { doctorExecutables, sdkModulesOf };
