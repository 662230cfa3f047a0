'use strict';
// Whether register can run in this Node at all, checked before anything of
// it loads: a Node line without what it uses runs exactly stock, with one
// line on stderr. `run` puts register into every Node process the host
// starts, and users' MCP servers still run Node lines older than this
// package supports (16, 18, early 20): there, nothing may break. Named
// bail-outs, by the feature each entry needs, not by version numbers:
//   - NO_BUILTIN_MODULE: process.getBuiltinModule() (Node 20.16+, 22.3+),
//     which register's start takes its built-ins with;
//   - NO_REQUIRE_ESM: require() of an ES module (Node 20.19+, 22.12+), which
//     the `--require` entry loads the hooks' installer with.
// Bun and Deno have their own ways in (lib/register/bun.cjs, deno.cjs) and
// are not judged here. Written for every Node line from 16 on: no syntax
// or API that an older line lacks.

/** Why register cannot run here through `entry` ('require' or 'import'), or undefined when it can. */
function whyNot(entry) {
  if (process.versions.bun !== undefined || process.versions.deno !== undefined) return undefined;
  if (typeof process.getBuiltinModule !== 'function') return 'NO_BUILTIN_MODULE';
  if (entry === 'require' && !(process.features && process.features.require_module === true)) return 'NO_REQUIRE_ESM';
  return undefined;
}

const NEEDS = {
  NO_BUILTIN_MODULE: 'process.getBuiltinModule() (Node 20.19+, 22.12+ or 24+)',
  NO_REQUIRE_ESM: 'require() of ES modules (Node 20.19+, 22.12+ or 24+, without --no-experimental-require-module)',
};

/** Whether register may go on through `entry`; when not, one line says why (once per process) and the process runs stock. */
function mayRun(entry) {
  const why = whyNot(entry);
  if (why === undefined) return true;
  require('../warnings/warnings.cjs').sayOnce(
    'OLD_RUNTIME',
    `mcp-ordered-dispatch/register needs ${NEEDS[why]}; Node ${process.version} lacks it, so this process runs stock. To fix it here, run this program on a newer Node.`,
  );
  return false;
}

module.exports = { mayRun, whyNot };
