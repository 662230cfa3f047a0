// The Node hosts that start themselves again to run the session: Qwen Code
// (cli-entry.js spawns cli.js, which re-executes itself with execve) and
// Gemini CLI (gemini.js relaunches itself as a child). Each runs on Node 24
// (Qwen Code needs 22+), as `qwen`/`gemini` from PATH (their
// `#!/usr/bin/env node`), `-p` against a stand-in for its model API that asks
// for the counting server's tool 3 times and one shell command. Stock and
// under `run --` (with no QWEN_CODE_NO_RELAUNCH or GEMINI_CLI_NO_RELAUNCH):
// the "unknown token" errors (Qwen's ~/.qwen/debug log; the report under
// run), what the server sent, the report's records (the relaunched process
// must be the patched one, with its messages), the servers' variables, and
// what the shell command saw.
import fs from 'node:fs';
import path from 'node:path';
import { installedNode } from '../node-lines.mjs';
import { hostHome, launch, exeOf, shellCommand, USER_ENV, EXPECTED_SHELL, countLines, say, detail } from './common.mjs';
import { openAiApi, geminiApi } from './standins.mjs';
import { countingServer, readServerLog, readReport, showReport, showServers, shellSaw } from './observe.mjs';

const CALLS = 3;

/** Qwen Code's calls: the counting server's tool through its tool_call bridge, 3 times, and one shell command. */
export const qwenCalls = () =>
  [...Array(CALLS).keys()].map((i) => ({ id: `call_${i}`, pick: (n) => n === 'tool_call', args: { name: 'mcp__raw__progress', arguments: {} } })).concat([{ id: 'call_shell', pick: (n) => n === 'run_shell_command', args: { command: shellCommand(), description: 'Print the environment' } }]);

/** The SDK's "unknown token" errors in Qwen Code's debug log (~/.qwen/debug, written under --debug). */
export const qwenUnknownToken = (home) => countIn(path.join(home, '.qwen', 'debug'), /Received a progress notification for an unknown token/);

/** Qwen Code calls an MCP tool through its tool_call bridge (its MCP tools are deferred); Gemini CLI directly. */
const SETUPS = {
  qwen: {
    api: openAiApi,
    calls: () => qwenCalls(),
    configure: (home, server) => write(path.join(home, '.qwen', 'settings.json'), { mcpServers: { raw: server }, security: { auth: { selectedType: 'openai' } }, model: { name: 'stand-in' } }),
    env: (url) => ({ OPENAI_API_KEY: 'sk-check-hosts', OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: 'stand-in' }),
    args: ['-p', 'Call the progress tool three times and run the command.', '--yolo', '--debug'],
    unknownToken: (home) => qwenUnknownToken(home),
  },
  gemini: {
    api: geminiApi,
    calls: () => [...Array(CALLS).keys()].map((i) => ({ id: `call_${i}`, pick: (n) => /progress$/.test(n) })).concat([{ id: 'call_shell', pick: (n) => n === 'run_shell_command', args: { command: shellCommand(), description: 'Print the environment' } }]),
    configure: (home, server) => write(path.join(home, '.gemini', 'settings.json'), { mcpServers: { raw: server }, security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } } }),
    env: (url) => ({ GEMINI_API_KEY: 'check-hosts', GOOGLE_GEMINI_BASE_URL: url }),
    args: ['-p', 'Call the progress tool three times and run the command.', '--yolo', '--model', 'gemini-2.5-flash'],
    // Gemini CLI sets its own progress token and handler: the SDK's error is not made; the report says what it dispatched.
    unknownToken: () => undefined,
  },
};

function write(file, json) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(json));
}

/** Lines matching `re` in the .txt files of `dir` (links passed over). */
function countIn(dir, re) {
  let n = 0;
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const file = path.join(dir, f);
    if (f.endsWith('.txt') && !fs.lstatSync(file).isSymbolicLink()) n += countLines(fs.readFileSync(file, 'utf8'), re);
  }
  return n;
}

/** One `-p` session of `host`, `way` ('stock' or 'run'): what it showed. */
async function session(host, way) {
  const setup = SETUPS[host.name];
  const { home, cwd, env } = hostHome(host.name);
  const api = await setup.api(setup.calls());
  try {
    const log = path.join(home, 'server.jsonl');
    const report = path.join(home, 'report.jsonl');
    setup.configure(home, countingServer(log));
    const nodeDir = path.dirname(installedNode(host.node));
    const callEnv = { ...env, ...USER_ENV, ...setup.env(api.url), PATH: `${nodeDir}:${env.PATH}`, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' };
    if (way === 'run') callEnv.MCP_ORDERED_DISPATCH_REPORT = report;
    const r = await launch(exeOf(host), setup.args, callEnv, cwd, { way });
    const server = readServerLog(log);
    const results = [...Array(CALLS).keys()].filter((i) => /done/.test(api.results.get(`call_${i}`) ?? '')).length;
    return { code: r.signal ?? r.code, stderr: r.stderr, server, results, unknownToken: setup.unknownToken(home), report: readReport(report), shell: shellSaw(api.results.get('call_shell')) };
  } finally {
    await api.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const show = (s) => `exit ${s.code}; ${s.results}/${CALLS} results; sent ${s.server.progress} progress; "unknown token" ${s.unknownToken ?? 'n/a (own handler)'}`;

/** Qwen Code or Gemini CLI, stock and under run: printed; whether it held. */
export async function checkRelauncher(host) {
  const stock = await session(host, 'stock');
  const launched = await session(host, 'run');
  const relaunched = launched.report.filter((r) => r.messages > 0);
  const lost = (s) => s.unknownToken ?? 0;
  const delivered = launched.report.reduce((n, r) => n + r.delivered, 0);
  // Qwen: every notification delivered under run where stock lost them; Gemini: the dispatching (relaunched) process patched, with its messages.
  const fixed = host.name === 'qwen' ? lost(stock) > 0 && lost(launched) === 0 && delivered === launched.server.progress && launched.server.progress > 0 : true;
  const ok = fixed && launched.results === CALLS && relaunched.length > 0 && launched.shell === EXPECTED_SHELL && stock.shell === EXPECTED_SHELL && launched.server.servers.every((s) => s.patched);
  say(ok, `${host.name} ${host.version} -p (on Node ${host.node}, relaunching itself): ${CALLS} calls of the coalescing server's tool, one shell command`);
  detail(`stock:     ${show(stock)}; ${showServers(stock.server)}`);
  detail(`under run: ${show(launched)}; ${delivered} delivered (report); ${showServers(launched.server)}`);
  detail(`report under run: ${showReport(launched.report)}`);
  detail(`the process that dispatched the session's messages: ${relaunched.length ? relaunched.map((r) => `pid ${r.pid}, child of ${r.ppid}, ${r.messages} messages`).join('; ') : 'none patched'}`);
  detail(`the shell command saw, stock: ${JSON.stringify(stock.shell)}; under run: ${JSON.stringify(launched.shell)}`);
  const stockSays = stock.unknownToken === undefined ? `unknown-token n/a (its own progress handler), sent ${stock.server.progress}` : `${stock.unknownToken} unknown-token, ${stock.server.progress - stock.unknownToken}/${stock.server.progress} delivered`;
  return { ok, row: [host.name, host.version, `stock: ${stockSays}; run: ${launched.unknownToken ?? 'n/a'} unknown-token (report: ${launched.report.reduce((n, r) => n + r.unknownToken, 0)}), ${delivered} delivered per report${launched.report.some((r) => r.toOwnHandler) ? ` (+${launched.report.reduce((n, r) => n + (r.toOwnHandler ?? 0), 0)} to its own handler)` : ''}, ${relaunched.map((r) => `${r.messages} msgs in pid ${r.pid}`).join(', ')}; shell clean: ${launched.shell === EXPECTED_SHELL}`] };
}
