// check:hosts' order of work: install, then each host's checks (the file of
// its family), then one line per host and check with its stock and run
// counts. scripts/check-hosts.mjs says what is checked and how to run it.
import fs from 'node:fs';
import { ensureNode, ensureBun, OLD_LINES, OLD_BUNS } from '../node-lines.mjs';
import { HOSTS } from './versions.mjs';
import { hostHome, exeOf, install, newestOf } from './common.mjs';
import { checkCommands, checkTui, checkUnreached } from './bun-hosts.mjs';
import { checkClaudeToolCall, checkClaudeLines, checkForeign } from './claude.mjs';
import { doctorHost } from './doctor.mjs';
import { checkRelauncher } from './relaunchers.mjs';
import { checkAgentSdk, checkGateway } from './agent-sdk.mjs';
import { checkCopilot, checkAmp } from './others.mjs';
import { canarySdkAndBun } from './canary.mjs';
import { checkApp } from './apps.mjs';

/** A Bun-compiled host's checks: its commands with the probe, what its family adds, doctor. Rows: [ok, what, version, detail]. */
async function checkCompiled(host) {
  const exe = exeOf(host);
  const { home, cwd, env } = hostHome(host.name);
  const rows = [];
  try {
    const { ok, patchedClasses } = await checkCommands(host, exe, env, cwd, home);
    rows.push([ok, host.name, host.version, ok ? 'reached, patched' : 'NOT REACHED (above)']);
    if (host.name === 'claude') {
      const called = await checkClaudeToolCall(host, exe, env, cwd, home);
      rows.push([called, `${host.name} -p`, host.version, called ? 'one call: stock lost progress, run and setup none' : 'lost progress under run (above)']);
      const lines = await checkClaudeLines(host, exe, env, cwd);
      rows.push([lines, `${host.name} -p, every runtime line + Bash`, host.version, lines ? "servers answer, the Bash call saw the user's environment" : 'FAILED (above)']);
    }
    if (host.name === 'opencode' || host.name === 'kilo') {
      const tui = await checkTui(host);
      rows.push([tui.ok, ...tui.row]);
    }
    if (host.name === 'kilo') {
      const unreached = await checkUnreached(host);
      rows.push([unreached.ok, ...unreached.row]);
    }
    const read = await doctorHost(host, exe, patchedClasses);
    rows.push([read, `${host.name} doctor`, host.version, read ? 'agrees with run time' : 'disagrees (above)']);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  return rows;
}

/** Every check of `host`, an error in one becoming its FAIL row. */
async function checkHost(host) {
  try {
    if (host.family === 'relaunchers') {
      const r = await checkRelauncher(host);
      return [[r.ok, ...r.row]];
    }
    if (host.family === 'apps') return await checkApp(host);
    if (host.name === 'agent-sdk') return [...(await checkAgentSdk(host)), ...(await checkGateway(host))];
    if (host.name === 'copilot') return await checkCopilot(host);
    if (host.name === 'amp') return await checkAmp(host);
    return await checkCompiled(host);
  } catch (error) {
    console.log(`FAIL ${host.name} ${host.version}: ${error.stack ?? error.message}`);
    return [[false, host.name, host.version, `error: ${error.message}`]];
  }
}

export async function main(argv) {
  const newest = argv.includes('--newest');
  const names = argv.filter((a) => a !== '--newest');
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(`check:hosts: the pinned hosts are their linux-x64 packages; this is ${process.platform}-${process.arch}. Nothing checked.`);
    return 1;
  }
  const chosen = names.length === 0 ? HOSTS : HOSTS.filter((h) => names.includes(h.name));
  if (chosen.length === 0) throw new Error(`no such host: ${names.join(', ')} (known: ${HOSTS.map((h) => h.name).join(', ')})`);
  const hosts = newest ? chosen.map((h) => ({ ...h, version: newestOf(h.pkg) })) : chosen;
  install(hosts);
  for (const v of OLD_LINES) ensureNode(v);
  for (const v of OLD_BUNS) ensureBun(v);
  for (const v of new Set(hosts.map((h) => h.node).filter(Boolean))) ensureNode(v);
  const summary = [];
  for (const host of hosts) summary.push(...(await checkHost(host)));
  if (!newest && hosts.some((h) => h.name === 'claude')) {
    const foreign = checkForeign();
    summary.push([foreign, 'claude, other platforms', hosts[0].version, foreign ? 'recognised, read not run' : 'NOT recognised (above)']);
  }
  if (newest) summary.push(...canarySdkAndBun());
  console.log(newest ? '\ncheck:hosts --newest:' : '\ncheck:hosts summary:');
  for (const [held, what, version, text] of summary) console.log(`${held ? 'ok  ' : 'FAIL'} ${what} ${version}: ${text}`);
  const ok = summary.every(([held]) => held);
  console.log(ok ? 'check:hosts: every host was reached where it does MCP work, lost nothing under run, and gave the commands it runs the user\'s environment.' : 'check:hosts: not every check held (above).');
  return ok ? 0 : 1;
}
