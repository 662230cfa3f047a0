'use strict';
// `mcp-ordered-dispatch doctor`: which MCP SDK copies does this project
// resolve, can mcp-ordered-dispatch patch them, does the stock copy lose
// progress notifications to the response that follows them in the same read,
// and does the patched copy? Each reproduction runs in a child process
// (lib/doctor/probe.cjs), stock and patched apart.

const path = require('node:path');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const { findSdkCopies, findBundledCopies } = require('../discover/discover.cjs');
const { findCompiledExecutables } = require('../discover/executables.cjs');
const { moduleTypeOf } = require('../discover/package-of.cjs');
const { LOAD_FAILED } = require('../native/load-error.cjs');
const { doctorExecutables, sdkModulesOf } = require('./executables.cjs');
const { hostsOf, hostLine } = require('./hosts.cjs');
const { FIX } = require('../warnings/warnings.cjs');

const PROBE = path.join(__dirname, 'probe.cjs');
const SELF = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));

function runProbe(copy, patched, { pairs, progress, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PROBE, JSON.stringify({ copy, patched, pairs, progress })], {
      cwd: copy.root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ patched, error: `could not start the probe: ${error.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop();
      try {
        resolve(JSON.parse(line));
      } catch {
        const why = signal === 'SIGKILL' ? `timed out after ${timeoutMs} ms` : `exited with ${signal ?? code}`;
        resolve({ patched, error: `the probe ${why}: ${(stderr || stdout).trim().split('\n').slice(-3).join(' ')}` });
      }
    });
  });
}

/** Run `tasks` (functions returning promises) at most `limit` at a time. */
async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  async function worker() {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Does the native addon load here? { loaded, from, file } or { loaded: false, reason }. */
function addonStatus() {
  const native = require('../native/addon.cjs');
  try {
    native.load();
    return { loaded: true, ...native.loadedFrom() };
  } catch (error) {
    if (error?.code !== LOAD_FAILED) throw error;
    return { loaded: false, reason: error.message };
  }
}

const NO_ADDON = 'NO ADDON';

function verdictOf(stock, patched) {
  if (patched.noAddon) {
    return { ok: false, verdict: NO_ADDON, why: 'not patched: the native addon did not load (reason above); the stock copy runs as it is' };
  }
  if (!stock.supported && !patched.supported) {
    const unaffected = stock.error === undefined && stock.lost === 0 && stock.onerrors === 0;
    return {
      ok: false,
      verdict: 'UNSUPPORTED',
      why: `${stock.reason ?? patched.reason ?? 'not supported'}` +
        (unaffected ? ' (its stock build did not lose progress in the reproduction.)' : ''),
    };
  }
  if (stock.fixedUpstream) return upstreamVerdict(stock);
  if (patched.error) return { ok: false, verdict: 'ERROR', why: `the patched reproduction failed: ${patched.error}` };
  if (patched.lost > 0 || patched.onerrors > 0 || patched.failures?.length > 0) {
    return {
      ok: false,
      verdict: 'NOT FIXED',
      why:
        `patched, it still lost ${patched.lost} of ${patched.progressExpected} progress notifications` +
        ` and reported ${patched.onerrors} onerror(s)` +
        (patched.firstErrors?.length ? `: ${patched.firstErrors[0]}` : '') +
        (patched.failures?.length ? `; calls failed: ${patched.failures[0]}` : ''),
    };
  }
  if (stock.error) return { ok: true, verdict: 'fixed', why: `patched: clean; the stock reproduction failed: ${stock.error}` };
  if (stock.lost === 0 && stock.onerrors === 0) return { ok: true, verdict: 'not affected', why: 'stock and patched both clean' };
  return { ok: true, verdict: 'fixed', why: null };
}

// The copy's own Protocol dispatches notifications in wire order (the upstream
// fix): mcp-ordered-dispatch leaves it stock, and its stock run must be clean.
function upstreamVerdict(stock) {
  if (stock.error) return { ok: false, verdict: 'ERROR', why: `the reproduction failed: ${stock.error}` };
  if (stock.lost > 0 || stock.onerrors > 0 || stock.failures?.length > 0) {
    return {
      ok: false,
      verdict: 'NOT FIXED',
      why:
        `its Protocol runs notification handlers in wire order, yet it lost ${stock.lost} of ${stock.progressExpected} ` +
        `progress notifications and reported ${stock.onerrors} onerror(s)` +
        (stock.firstErrors?.length ? `: ${stock.firstErrors[0]}` : ''),
    };
  }
  return {
    ok: true,
    verdict: 'fixed upstream',
    why: 'its Protocol already dispatches notifications in wire order; mcp-ordered-dispatch leaves it stock',
  };
}

function patchable(run) {
  if (run.patchable) return run.patchable;
  if (run.fixedUpstream) return 'not needed';
  return run.supported ? `yes (${run.generation}.x)` : 'no';
}

function cell(run) {
  if (run.skipped) return 'not run';
  if (run.error) return 'error';
  return `${run.lost}/${run.progressExpected} lost, ${run.onerrors} onerror`;
}

/** Where a copy is: 'top-level' (resolved from the project), 'nested' (a dependency's own), 'bundled' (inside another file), 'compiled' (inside a compiled executable). */
function whereOf(copy) {
  if (copy.bundled) return 'bundled';
  return copy.nested ? 'nested' : 'top-level';
}

/**
 * Whether a row's verdict rests on a reproduction that ran (or on the
 * adapters' refusal, which needs none): not a bundled copy, whose own code
 * doctor cannot drive, and not one whose reproduction failed to run.
 */
function checked(row) {
  if (row.where === 'bundled') return false;
  return row.verdict !== 'ERROR';
}

const BUILT_IN = 'patched at build time';
const NOT_REACHABLE = 'compiled executable: not reachable at run time';
const BY_RUN = 'reached by mcp-ordered-dispatch run';
const BUILD_TIME_ONLY = 'only at build time';
const NOT_REACHED_BY_RUN = 'not reached by mcp-ordered-dispatch run';

/** A bundled copy's row: found by shape, what register does with it, and that its reproduction was not run. */
function bundledRow(copy) {
  const notRun = { skipped: true, supported: true, generation: copy.generation };
  return {
    name: copy.name,
    version: copy.version,
    build: copy.build,
    file: copy.file,
    where: 'bundled',
    generation: copy.generation,
    classes: copy.classes,
    stock: notRun,
    patched: notRun,
    ok: false,
    verdict: copy.builtIn ? BUILT_IN : 'patched by register',
    why: copy.builtIn
      ? `${copy.classes.join(' and ')} found by shape in ${copy.file}, patched when it was built (it holds the build-time receiver call, ` +
        'which register and install() leave alone). Not checked: doctor does not run a bundle\'s own code'
      : `${copy.classes.join(' and ')} found by shape in ${copy.file}, ${formatWords(copy)}; register patches it as the file loads, ` +
        `put in by \`--require\` (as \`mcp-ordered-dispatch run\` puts it in) or by \`--import\` alike, on this Node (${process.version}) and on every ` +
        `Node line it supports (${SELF.engines.node}); install() does not: it patches installed SDK packages. Not checked: doctor does not run a bundle's own code`,
  };
}

/** How Node decides a bundled copy's format, in the words of its row. */
function formatWords(copy) {
  const format = copy.build === 'esm' ? 'an ES module' : 'CommonJS';
  if (moduleTypeOf(copy.file) !== null) return `run as ${format}`;
  return `run as ${format} by its syntax (a .js file whose package.json names no "type")`;
}


/** What the developers of a compiled executable can do: build the fix in (the sentence `run` ends its own line with). */
const BUILD_IT_IN = `For its developers, ${FIX.BUILD_IT_IN}.`;

/** A compiled executable's row: the SDK inside it, whether and how the fix reaches it at run time, and what its developers can do. */
function compiledRow(exe) {
  const notRun = { skipped: true, supported: false, patchable: exe.builtIn ? 'built in' : exe.kind === 'bun' ? 'yes (run)' : 'no (compiled)' };
  const size = `${exe.format}, ${(exe.bytes / 1e6).toFixed(0)} MB`;
  const command = exe.command ?? exe.file;
  const notChecked = "Not checked: doctor does not run an executable's own code";
  const row = { name: exe.name ?? path.basename(exe.file), version: exe.version ?? '?', build: exe.format, file: exe.file, where: 'compiled', kind: exe.kind, stock: notRun, patched: notRun, ok: false, checked: false };
  if (exe.builtIn) {
    return { ...row, verdict: BUILT_IN, why: `${exe.file} is a compiled executable (${size}) whose SDK classes were patched when it was built (it holds the build-time receiver call). ${notChecked}` };
  }
  if (exe.kind === 'bun') return bunRow(row, exe, size, command, notChecked);
  if (exe.kind === 'node-sea') {
    return {
      ...row,
      verdict: BUILD_TIME_ONLY,
      why: `${exe.file} is a Node single executable application (${size}) that carries the SDK's Protocol: nothing at run time reaches its main script ` +
        '(`mcp-ordered-dispatch run` runs it unchanged and says so), so it runs stock and can lose progress notifications. ' + BUILD_IT_IN,
    };
  }
  return {
    ...row,
    verdict: NOT_REACHABLE,
    why: `${exe.file} is a compiled executable (${size}) that carries the SDK's Protocol: nothing at run time reaches the SDK inside it ` +
      '(register hooks module loading, install() patches installed packages), so it runs stock and can lose progress notifications. ' +
      BUILD_IT_IN,
  };
}

/** A Bun-compiled executable's row: its SDK modules read (lib/doctor/executables.cjs), reached by `run` or not. */
function bunRow(row, exe, size, command, notChecked) {
  const read = sdkModulesOf(exe.file);
  const modules = read?.sdk ?? [];
  const unreached = modules.filter((m) => !m.reached);
  const listed = modules.map((m) => `${m.name}${m.entry ? ' (entry)' : ''}: ${m.classes.join(', ')}, ${m.reached ? 'reached' : `NOT reached (${m.why})`}`).join('; ');
  const way = read?.wayIn.words ?? 'its embedded modules could not be read';
  const head = `${exe.file} is a Bun-compiled executable (${size}) that carries the SDK's Protocol; its SDK modules: ${listed || 'none found by shape'}.`;
  if (read !== undefined && modules.length > 0 && unreached.length === 0) {
    return { ...row, sdk: modules, verdict: BY_RUN, run: `npx mcp-ordered-dispatch run -- ${command}`, why: `${head} Started as \`npx mcp-ordered-dispatch run -- ${command} ...\`, the fix reaches them at run time (${way}); started directly, it runs stock. ${notChecked}` };
  }
  return { ...row, sdk: modules, verdict: NOT_REACHED_BY_RUN, why: `${head} \`mcp-ordered-dispatch run\` does not reach ${unreached.length > 0 ? `${unreached.length} of them` : 'them'} (${way}), so they run stock. ${BUILD_IT_IN}` };
}

function table(rows) {
  const header = ['package', 'version', 'build', 'side', 'patchable', 'stock', 'patched', 'verdict', 'where'];
  const body = rows.map((r) => [
    r.name,
    r.version ?? '?',
    r.build.toUpperCase(),
    r.stock.side ?? r.patched.side ?? '-',
    patchable(r.stock),
    cell(r.stock),
    cell(r.patched),
    r.verdict,
    r.where,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/**
 * Find and check every SDK copy resolvable from `cwd`.
 * @returns {Promise<{ exitCode: 0 | 1, rows: object[], message: string }>}
 */
async function doctor({ cwd = process.cwd(), pairs = 2, progress = 3, concurrency = 2, timeoutMs = 60_000, executables = [] } = {}) {
  if (executables.length > 0) return doctorExecutables(executables, { cwd });
  const base = path.resolve(cwd);
  const addon = addonStatus();
  const copies = findSdkCopies([base]);
  const bundled = findBundledCopies(base);
  const compiled = findCompiledExecutables(base);
  const hosts = hostsOf(base);
  if (copies.length === 0 && bundled.copies.length === 0 && compiled.executables.length === 0 && hosts.length === 0) {
    return {
      exitCode: 1,
      addon,
      rows: [],
      message:
        `No MCP SDK found from ${base}: none of @modelcontextprotocol/sdk, @modelcontextprotocol/client, ` +
        '@modelcontextprotocol/server resolves from there. Run the doctor in the project that uses the SDK (or pass --cwd).',
    };
  }
  const options = { pairs, progress, timeoutMs };
  const runs = await pool(
    // Without the addon only the stock reproduction can run.
    copies.flatMap((copy) => [
      () => runProbe(copy, false, options),
      () => (addon.loaded ? runProbe(copy, true, options) : Promise.resolve({ patched: true, skipped: true, noAddon: true })),
    ]),
    concurrency,
  );
  const rows = copies.map((copy, i) => {
    const stock = runs[2 * i];
    const patched = runs[2 * i + 1];
    const row = { name: copy.name, version: copy.version, build: copy.build, file: copy.file, where: whereOf(copy), installedAt: copy.installedAt, stock, patched, ...verdictOf(stock, patched) };
    row.checked = checked(row);
    return row;
  });
  for (const copy of bundled.copies) rows.push({ ...bundledRow(copy), checked: false });
  for (const exe of compiled.executables) rows.push(compiledRow(exe));
  const bad = rows.filter((r) => r.checked && !r.ok);
  const unchecked = rows.filter((r) => !r.checked);
  const lines = [];
  for (const r of rows) {
    if (r.where !== 'top-level') lines.push(`- ${r.name}@${r.version} (${r.build.toUpperCase()}, ${r.where}): ${r.installedAt ? `${r.installedAt} (${r.file})` : r.file}`);
  }
  for (const r of rows) {
    if (r.why) lines.push(`- ${r.name}@${r.version} (${r.build.toUpperCase()}${r.where === 'top-level' ? '' : `, ${r.where}`}): ${r.verdict}: ${r.why}`);
  }
  for (const h of hosts) lines.push(hostLine(h));
  const unreachedHosts = hosts.filter((h) => h.file !== undefined && !h.reached);
  const count = (where) => rows.filter((r) => r.where === where).length;
  lines.push(`Found ${rows.length} SDK build(s): ${count('top-level')} top-level, ${count('nested')} nested, ${count('bundled')} bundled` + (count('compiled') > 0 ? `, ${count('compiled')} in compiled executables.` : '.'));
  if (bundled.truncated) lines.push('The search for bundled copies stopped at its file limit: there may be more.');
  if (compiled.truncated) lines.push('The search for compiled executables stopped at its byte or directory limit: there may be more.');
  if (copies.truncated) lines.push('The search for nested copies stopped at its depth or directory limit: there may be more.');
  if (unchecked.length > 0) {
    lines.push(
      `The reproduction did not run for ${unchecked.length} of them: ` +
        unchecked.map((r) => `${r.name}@${r.version} (${r.build.toUpperCase()}, ${r.where}) ${r.file}`).join('; ') + '.',
    );
  }
  // "All fixed" only when every copy found was checked: a copy whose
  // reproduction did not run (bundled, or failed) is never counted as fixed.
  let summary;
  if (rows.length === 0) summary = `No MCP SDK copy in this project itself; ${hosts.length - unreachedHosts.length} of the ${hosts.length} host(s) its SDKs start are reached by \`mcp-ordered-dispatch run\` (above).`;
  else if (!addon.loaded) summary = `The native addon did not load, so mcp-ordered-dispatch cannot fix any of the ${rows.length} SDK build(s) found.`;
  else if (bad.length === 0 && unchecked.length === 0 && !copies.truncated && !bundled.truncated && !compiled.truncated) summary = `All ${rows.length} SDK build(s) found are fixed by mcp-ordered-dispatch (or fixed upstream, or not affected).`;
  else {
    const parts = [];
    if (bad.length > 0) parts.push(`${bad.length} of ${rows.length} SDK build(s) are not fixed by mcp-ordered-dispatch.`);
    if (unchecked.length > 0) {
      parts.push(
        `${unchecked.length} of ${rows.length} SDK build(s) were not checked (listed above)` +
          (bad.length === 0 ? `; the ${rows.length - unchecked.length} that were are fixed. This is not an all-clear.` : '.'),
      );
    }
    if (parts.length === 0) parts.push(`The ${rows.length} SDK build(s) found are fixed, but the search stopped at a limit (above). This is not an all-clear.`);
    summary = parts.join(' ');
  }
  if (rows.length > 0 && unreachedHosts.length > 0) summary += ` ${unreachedHosts.length} of the ${hosts.length} host(s) its SDKs start are not reached (above).`;
  const incomplete = copies.truncated || bundled.truncated || compiled.truncated;
  const exitCode = bad.length === 0 && unchecked.length === 0 && !incomplete && unreachedHosts.length === 0 && (rows.length > 0 || hosts.every((h) => h.reached)) ? 0 : 1;
  return { exitCode, addon, rows, hosts, message: [...lines, summary].join('\n') };
}

function report(result, { cwd }) {
  if (result.executables !== undefined) return `mcp-ordered-dispatch ${SELF.version} doctor — reading compiled executables (nothing is run)\n\n${result.message}\n`;
  const out = [];
  out.push(`mcp-ordered-dispatch ${SELF.version} doctor — node ${process.version}, project ${path.resolve(cwd)}`);
  if (result.addon?.loaded) out.push(`native addon: ${result.addon.file} (from ${result.addon.from})`);
  else if (result.addon) out.push(`native addon: ${NO_ADDON}: ${result.addon.reason}`);
  if (result.rows.length > 0) {
    out.push('');
    out.push('Reproduction: progress notifications that arrive in the same read as their response (all in one');
    out.push('write; the last one with the response). side client: a Client and StdioClientTransport against a raw');
    out.push('server; side server: a Server and StdioServerTransport answered by a raw client. Stock and patched');
    out.push('each run in their own process.');
    out.push('');
    out.push(table(result.rows));
  }
  out.push('');
  out.push(result.message);
  return out.join('\n') + '\n';
}

module.exports = { doctor, report };
