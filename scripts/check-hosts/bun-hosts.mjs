// The Bun-compiled hosts (Claude Code, opencode, Kilo, cline's CLI), each
// with the probe preload (probe.mjs) beside register: `--version` and the
// command that connects to the configured server (`mcp list`), each
// checked for register loaded and SDK classes patched. opencode and Kilo
// also in their interactive TUI (in tmux, tui.mjs), whose MCP client runs
// in a Bun Worker, against a stand-in for an OpenAI-compatible API (their
// custom provider) that asks for the counting server's tool 3 times: per
// thread, the "unknown token" errors (counted by the probe, which Bun runs in
// the Worker through the Worker's own `preload`: these hosts set no onerror),
// and the report's lines (one per thread that patched an SDK class). Kilo
// also in `kilo run`, whose stderr is read for the UNREACHED line beside the
// report.
import fs from 'node:fs';
import path from 'node:path';
import { hostHome, launch, exeOf, runStock, jsonLines, SERVER, say, detail } from './common.mjs';
import { writeProbe, readProbe } from './probe.mjs';
import { openAiApi } from './standins.mjs';
import { inTmux, haveTmux } from './tui.mjs';
import { countingServer, readServerLog, readReport, showReport, showServers } from './observe.mjs';

const CALLS = 3;

/** opencode's and Kilo's config: the server, a custom provider at `url`, every tool allowed. */
export const opencodeConfig = (server, url) => ({
  mcp: { raw: { type: 'local', command: [server.command, ...server.args] } },
  ...(url ? { provider: { standin: { npm: '@ai-sdk/openai-compatible', name: 'Stand-in', options: { baseURL: `${url}/v1`, apiKey: 'sk-check-hosts' }, models: { m: { name: 'm', tool_call: true } } } }, model: 'standin/m', small_model: 'standin/m' } : {}),
  permission: { '*': 'allow' },
  autoupdate: false,
  share: 'disabled',
});

/** What configures the server in each host, and which commands connect to it. */
const COMMANDS = {
  claude: { configure: (exe, env, cwd) => runStock(exe, ['mcp', 'add', 'raw', '--', ...SERVER], env, cwd), commands: [['--version'], ['mcp', 'list']] },
  opencode: { configure: (exe, env, cwd) => fs.writeFileSync(path.join(cwd, 'opencode.json'), JSON.stringify(opencodeConfig({ command: SERVER[0], args: SERVER.slice(1) }))), commands: [['--version'], ['mcp', 'list']] },
  kilo: { configure: (exe, env, cwd) => fs.writeFileSync(path.join(cwd, 'kilo.json'), JSON.stringify(opencodeConfig({ command: SERVER[0], args: SERVER.slice(1) }))), commands: [['--version'], ['mcp', 'list']] },
  // Its `mcp` commands open a wizard; none connects without a provider: it is checked starting.
  cline: { configure: () => {}, commands: [['--version']] },
};

/** The environment opencode and Kilo run offline with. */
export const OFFLINE = { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_SHARE: '1', KILO_DISABLE_MODELS_FETCH: '1', KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_SHARE: '1' };

/** `--version` and `mcp list` under run with the probe: printed; { ok, patchedClasses }. */
export async function checkCommands(host, exe, env, cwd, home) {
  const { configure, commands } = COMMANDS[host.name];
  configure(exe, env, cwd);
  const probe = writeProbe(home);
  let ok = true;
  let patchedClasses = 0;
  for (const [i, args] of commands.entries()) {
    const out = path.join(home, `probe-${i}.jsonl`);
    const r = await launch(exe, args, { ...env, ...OFFLINE, BUN_INSPECT_PRELOAD: probe, MCP_ORDERED_DISPATCH_CHECK_OUT: out }, cwd);
    const seen = readProbe(jsonLines(out));
    const main = [...seen.threads.values()].find((t) => t.thread === 'main');
    const connects = args.includes('mcp');
    // register's files are loaded by the time anything is patched; the probe runs before register, so a patch is the proof it loaded.
    const patched = main?.patched ?? [];
    patchedClasses = Math.max(patchedClasses, patched.length);
    const held = r.code === 0 && main !== undefined && (!connects || patched.some((p) => p.record === 'protocol'));
    ok &&= held;
    say(held, `${host.name} ${host.version} ${args.join(' ')}`);
    detail(`started: exit ${r.signal ?? r.code}; first stdout line: ${JSON.stringify(r.stdout.trim().split('\n')[0] ?? '')}`);
    const status = r.stdout.split('\n').find((l) => /\braw\b/.test(l) && /connected/i.test(l));
    if (connects) detail(`the configured server: ${status === undefined ? 'not shown as connected' : status.replace(/\x1b\[[0-9;]*m/g, '').trim()}`);
    if (r.stderr.trim() !== '') detail(`stderr: ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
    // Where a preload can see the server start (issue 55's probe): each layer it went through, outermost first.
    const starts = seen.spawns.filter((x) => x.file.endsWith('bin/node'));
    if (connects) detail(`the server's start went through: ${[...new Set(starts.map((x) => x.via))].join(' > ') || 'nothing a preload wraps'}; run's variables in the environment it was given: ${[...new Set(starts.flatMap((x) => x.runVariables))].join(', ') || 'none'}`);
    detail(`probe ran: ${main ? 'yes' : 'no'}; SDK classes patched: ${patched.length === 0 ? `none${connects ? ' (this command connected to the configured stdio server)' : ''}` : patched.map((p) => `${p.class ?? '?'} (${p.record}${p.generation ? ` ${p.generation}.x` : ''})`).join(', ')}`);
  }
  return { ok, patchedClasses };
}

/** One TUI session of opencode or Kilo, `way` ('stock' or 'run'): what it showed. */
async function tuiSession(host, way) {
  const { home, cwd, env } = hostHome(`${host.name}-tui`);
  const api = await openAiApi([...Array(CALLS).keys()].map((i) => ({ id: `call_${i}`, pick: (n) => /progress$/.test(n) })));
  try {
    const log = path.join(home, 'server.jsonl');
    const report = path.join(home, 'report.jsonl');
    const out = path.join(home, 'probe.jsonl');
    fs.writeFileSync(path.join(cwd, host.name === 'kilo' ? 'kilo.json' : 'opencode.json'), JSON.stringify(opencodeConfig(countingServer(log), api.url)));
    const callEnv = { ...env, ...OFFLINE, TERM: 'xterm-256color', BUN_INSPECT_PRELOAD: writeProbe(home), MCP_ORDERED_DISPATCH_CHECK_OUT: out };
    if (way === 'run') callEnv.MCP_ORDERED_DISPATCH_REPORT = report;
    const t = await inTmux(exeOf(host), ['--prompt', 'Call the progress tool three times.'], callEnv, cwd, { way, until: () => api.results.size >= CALLS });
    const seen = readProbe(jsonLines(out));
    return { ...t, results: [...api.results.values()].filter((v) => /done/.test(v)).length, server: readServerLog(log), threads: [...seen.threads.values()], workers: seen.workers, report: readReport(report) };
  } finally {
    await api.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const showThreads = (s) => s.threads.map((t) => `${t.thread}${t.started?.argv?.[0] ? ` (${path.basename(t.started.argv[0])})` : ''}: ${t.unknownToken} unknown-token, ${t.patched.length} patched`).join('; ');

/** opencode's or Kilo's TUI in tmux, stock and under run: printed; { ok, row }. */
export async function checkTui(host) {
  if (!haveTmux()) {
    say(false, `${host.name} ${host.version} TUI: tmux is not installed (apt-get install tmux)`);
    return { ok: false, row: [`${host.name} TUI`, host.version, 'not run: no tmux'] };
  }
  const stock = await tuiSession(host, 'stock');
  const launched = await tuiSession(host, 'run');
  const lost = (s) => s.threads.reduce((n, t) => n + t.unknownToken, 0);
  const worker = (s) => s.threads.filter((t) => t.thread !== 'main' && t.patched.length + t.unknownToken > 0);
  const workerLines = launched.report.filter((r) => r.thread !== 'main');
  const delivered = (s) => s.server.progress - lost(s);
  const ok = stock.results === CALLS && launched.results === CALLS && lost(stock) > 0 && lost(launched) === 0 && worker(launched).length > 0 && workerLines.length > 0 && launched.server.servers.every((x) => x.patched);
  say(ok, `${host.name} ${host.version} TUI (tmux; the MCP client in a Bun Worker): ${CALLS} calls of the coalescing server's tool`);
  for (const [name, s] of [['stock', stock], ['under run', launched]]) {
    detail(`${name}: ${s.results}/${CALLS} results, sent ${s.server.progress} progress, ${lost(s)} unknown-token (${delivered(s)} delivered); threads: ${showThreads(s)}; ${showServers(s.server)}; ended by itself after Ctrl-C: ${s.ended}`);
  }
  detail(`report under run: ${showReport(launched.report)}${workerLines.length === 0 ? ' (NONE from the Worker)' : ''}`);
  const row = `stock: ${lost(stock)} unknown-token (${worker(stock).map((t) => `${t.unknownToken} in ${t.thread}`).join(', ') || 'none in a worker'}), ${delivered(stock)}/${stock.server.progress} delivered; run: ${lost(launched)} unknown-token in every thread, ${delivered(launched)}/${launched.server.progress} delivered; worker report lines: ${workerLines.length}`;
  return { ok, row: [`${host.name} TUI`, host.version, row] };
}

/** `kilo run` (the client in the main thread), under run with the report: the UNREACHED lines beside what the report shows patched. */
export async function checkUnreached(host) {
  const { home, cwd, env } = hostHome(`${host.name}-run`);
  const api = await openAiApi([...Array(CALLS).keys()].map((i) => ({ id: `call_${i}`, pick: (n) => /progress$/.test(n) })));
  try {
    const log = path.join(home, 'server.jsonl');
    const report = path.join(home, 'report.jsonl');
    const config = path.join(cwd, 'kilo.json');
    fs.writeFileSync(config, JSON.stringify(opencodeConfig(countingServer(log), api.url)));
    // `kilo run` finds the provider only when named in KILO_CONFIG too (the TUI reads the project's kilo.json).
    const r = await launch(exeOf(host), ['run', '--model', 'standin/m', 'Call the progress tool three times.'], { ...env, ...OFFLINE, KILO_CONFIG: config, MCP_ORDERED_DISPATCH_REPORT: report }, cwd);
    const unreached = r.stderr.split('\n').filter((l) => l.includes('MCP_ORDERED_DISPATCH_UNREACHED'));
    const records = readReport(report);
    const entryPatched = records.some((x) => x.classes.length > 0);
    const ok = r.code === 0 && entryPatched && unreached.length === 0;
    say(ok, `${host.name} ${host.version} run (the client in the main thread), under run: no UNREACHED line where the report shows the SDK patched`);
    detail(`exit ${r.signal ?? r.code}; ${[...api.results.values()].filter((v) => /done/.test(v)).length}/${CALLS} results; UNREACHED lines: ${unreached.length}${unreached.length ? ` (${unreached[0].slice(0, 160)}…)` : ''}`);
    detail(`report: ${showReport(records)}`);
    const rest = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('MCP_ORDERED_DISPATCH_UNREACHED'));
    if (r.code !== 0) detail(`stderr: ${rest.slice(-4).join(' | ').slice(0, 600)}`);
    return { ok, row: [`${host.name} run`, host.version, `UNREACHED lines ${unreached.length}; report: ${records.map((x) => `${x.thread} ${x.classes.length} classes (${x.files.join(", ")}), ${x.delivered} delivered, ${x.unknownToken} unknown-token`).join('; ') || 'none'}`] };
  } finally {
    await api.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
