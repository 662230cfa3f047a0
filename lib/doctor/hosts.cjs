'use strict';
// The hosts an app's SDKs start, for `doctor`: one table of host SDKs (a
// library with which an app starts a host, an MCP client it did not build,
// as its child) and how each finds its host; for each one an app resolves,
// where its host is and whether `mcp-ordered-dispatch run -- node app.mjs`
// reaches it, by the per-child rule's own parts. The run-time rule never
// reads this table: it decides from what each program is
// (lib/rule/children.cjs).

const fs = require('node:fs');
const path = require('node:path');
const { readJson, packageDirFrom } = require('../discover/package-of.cjs');

/**
 * The host SDKs: { sdk (its package), host (in words), finds }. finds:
 *   { platformPackage (its name before the platform's), file }: a file in
 *     the SDK's platform package (`-linux-x64`, `-linux-x64-musl`, `-win32-x64`: `.exe`);
 *   { command }: a command found on PATH;
 *   { file }: a file in the SDK's own package, started with Node.
 */
const HOST_SDKS = Object.freeze([
  { sdk: '@anthropic-ai/claude-agent-sdk', host: 'Claude Code', finds: { platformPackage: '@anthropic-ai/claude-agent-sdk', file: 'claude' } },
  { sdk: '@opencode-ai/sdk', host: 'opencode', finds: { command: 'opencode' } },
  { sdk: '@kilocode/sdk', host: 'Kilo', finds: { command: 'kilo' } },
  { sdk: '@qwen-code/sdk', host: 'Qwen Code', finds: { file: 'dist/cli/cli.js' } },
]);

/** Where `entry`'s host is for the SDK at `sdkDir`: { file } or { missing (how it is looked for) }. */
function hostFileOf(entry, sdkDir, { cwd, env }) {
  const { finds } = entry;
  if (finds.command !== undefined) {
    const file = require('../native/can-start.cjs').resolveCommand(finds.command, env, cwd);
    return file === undefined ? { missing: `\`${finds.command}\` on PATH, which it starts` } : { file };
  }
  if (finds.platformPackage !== undefined) {
    const musl = require('../native/platform.cjs').platformArchABI().endsWith('-musl');
    const name = `${finds.platformPackage}-${process.platform}-${process.arch}${musl ? '-musl' : ''}`;
    const dir = packageDirFrom(sdkDir, name);
    const file = dir === undefined ? undefined : path.join(dir, process.platform === 'win32' ? `${finds.file}.exe` : finds.file);
    return file !== undefined && fs.existsSync(file) ? { file } : { missing: `${name}'s \`${finds.file}\`, its platform package` };
  }
  const file = path.join(sdkDir, finds.file);
  return fs.existsSync(file) ? { file } : { missing: `${finds.file} in ${sdkDir}` };
}

/** What reaches the compiled executable at `file` under run: { reached, words }, or undefined when it is no Bun or Node compiled one. */
function compiledReach(file, compiled) {
  const { bunWayInWords } = require('../rule/ways-in.cjs');
  if (compiled.kind === 'node-sea') return { reached: false, words: 'it is a Node single executable application: nothing at run time reaches its main script' };
  if (compiled.kind !== 'bun') return undefined;
  if (require('../discover/bun-graph.cjs').holdsSdkClasses(file) !== true) return { reached: false, words: 'no SDK class was found in its embedded modules by shape' };
  const way = bunWayInWords(compiled);
  return { reached: way.reached, words: `it is a Bun-compiled executable holding the SDK, ${way.words}` };
}

/** Whether and how `run -- node app.mjs` reaches the host at `file`: { reached, words }. */
function reachOf(file) {
  const { compiledKindOf } = require('../discover/compiled.cjs');
  const compiled = compiledKindOf(file);
  const direct = compiled === undefined ? undefined : compiledReach(file, compiled);
  if (direct !== undefined) return direct;
  if (compiled !== undefined) return { reached: false, words: 'it is a native executable that holds no JavaScript register can reach' };
  if (require('../discover/program.cjs').programHoldsSdk(fs.realpathSync(file))) {
    return { reached: true, words: 'it is a script that holds the SDK: started by Node or Bun, it gets register (from an app that loads an SDK itself, by the per-child rule\'s SDK_SCRIPT; from one that does not, passed on)' };
  }
  // A launcher (Kilo's bin/kilo): the executable it starts, beside it or in its platform package.
  const target = require('../discover/program.cjs').sdkExecutableOfLauncher(fs.realpathSync(file));
  if (target !== undefined) {
    const reach = compiledReach(target, compiledKindOf(target));
    return { reached: reach.reached, words: `it is a launcher holding no SDK that starts ${target}: ${reach.words}` };
  }
  return { reached: false, words: `it is a launcher holding no SDK, and no executable it starts was found beside it or in its platform package: run \`npx mcp-ordered-dispatch doctor <that executable>\`` };
}

/**
 * The hosts the host SDKs resolvable from `base` start: [{ sdk, version,
 * host, file, reached, why }] (file undefined and reached false where the host is not found).
 */
function hostsOf(base, { env = process.env } = {}) {
  const rows = [];
  for (const entry of HOST_SDKS) {
    const sdkDir = packageDirFrom(base, entry.sdk);
    if (sdkDir === undefined) continue;
    const version = readJson(path.join(sdkDir, 'package.json'))?.version;
    const where = hostFileOf(entry, sdkDir, { cwd: base, env });
    const row = { sdk: entry.sdk, version, host: entry.host, file: where.file, reached: false };
    try {
      if (where.file === undefined) row.why = `${entry.host} was not found: ${entry.sdk} looks for ${where.missing}; install it, and run doctor again`;
      else Object.assign(row, (({ reached, words }) => ({ reached, why: words }))(reachOf(where.file)));
    } catch (error) {
      row.why = `${where.file} could not be read (${error.message})`;
    }
    rows.push(row);
  }
  return rows;
}

/** A host's line in doctor's message. */
function hostLine(row) {
  const verdict = row.file === undefined ? 'not found' : row.reached ? 'reached by `mcp-ordered-dispatch run -- node app.mjs`' : 'NOT reached by `mcp-ordered-dispatch run`';
  return `- ${row.host}, started by ${row.sdk}@${row.version ?? '?'}${row.file === undefined ? '' : ` (${row.file})`}: ${verdict}: ${row.why}.`;
}

module.exports = { hostsOf, hostLine };
