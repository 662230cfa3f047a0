// An app built on @anthropic-ai/claude-agent-sdk (its query() spawns the
// Claude Code executable the SDK ships, with a copy of the app's
// environment), with the counting server in options.mcpServers, against the
// Anthropic stand-in (test/support/fake-messages-api.mjs) asking for the
// server's tool 3 times: Claude Code's debug log (--debug, ~/.claude/debug)
// read for "unknown token" and "STDIO connection dropped". Stock
// (`node app.mjs`), under `run -- node app.mjs`, and stock with options.env
// set by hand to what `setup --print-env claude` prints.
//
// And a gateway: a stdio server on the real SDK whose one tool calls an
// upstream coalescing server through Client with onprogress, started by
// Claude Code (the SDK's executable) under run: what it received upstream,
// its onerrors, and whether it was given run's variables.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fakeMessagesApi } from '../../test/support/fake-messages-api.mjs';
import { BIN, CACHE, RAW_SERVER, hostHome, launch, nodeOf, say, detail } from './common.mjs';
import { countingServer, readServerLog, readReport, showReport, showServers } from './observe.mjs';
import { debugLog } from './claude.mjs';

const CALLS = 3;
const SDK = () => path.join(CACHE, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.mjs');

/** The app: query() with the server of $CHECK_APP_SERVER; options.env from $CHECK_APP_ENV when set (JSON, over process.env). */
const APP = (sdk) => `import { query } from ${JSON.stringify(sdk)};
const server = JSON.parse(process.env.CHECK_APP_SERVER);
const env = process.env.CHECK_APP_ENV ? { ...process.env, ...JSON.parse(process.env.CHECK_APP_ENV) } : undefined;
const q = query({ prompt: 'Call the tool three times.', options: { mcpServers: { raw: { type: 'stdio', ...server } }, allowedTools: [process.env.CHECK_APP_TOOL], extraArgs: { debug: null }, settingSources: [], ...(env ? { env } : {}) } });
for await (const message of q) if (message.type === 'result') console.log(JSON.stringify({ subtype: message.subtype }));
`;

/** What `setup --print-env claude` prints, as variables. */
function printedEnv() {
  const r = spawnSync(process.execPath, [BIN, 'setup', '--print-env', 'claude'], { encoding: 'utf8' });
  return Object.fromEntries(r.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** One app session: 'stock', 'run' or 'env' (stock, options.env by hand); `server` ({ command, args }), `tool` its tool's name. */
async function appSession(host, way, { server, tool, home, cwd, env }) {
  fs.rmSync(path.join(home, '.claude', 'debug'), { recursive: true, force: true });
  const app = path.join(cwd, 'app.mjs');
  fs.writeFileSync(app, APP(SDK()));
  const calls = [...Array(CALLS).keys()].map((i) => ({ id: `toolu_${i}`, name: tool, input: {} }));
  const api = await fakeMessagesApi(calls);
  try {
    const report = path.join(home, `report-${way}.jsonl`);
    const callEnv = { ...env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-check-hosts', ENABLE_TOOL_SEARCH: 'false', CHECK_APP_SERVER: JSON.stringify(server), CHECK_APP_TOOL: tool, MCP_ORDERED_DISPATCH_REPORT: report };
    if (way === 'env') callEnv.CHECK_APP_ENV = JSON.stringify(printedEnv());
    const r = await launch(nodeOf(host), [app], callEnv, cwd, { way: way === 'run' ? 'run' : 'stock' });
    const text = debugLog({ HOME: home });
    const count = (re) => text.split('\n').filter((l) => re.test(l)).length;
    return {
      code: r.signal ?? r.code,
      stderr: r.stderr,
      results: calls.filter((c) => api.results.has(c.id)).map((c) => api.results.get(c.id)),
      unknownToken: count(/Received a progress notification for an unknown token/),
      dropped: count(/STDIO connection dropped/),
      report: readReport(report),
    };
  } finally {
    await api.close();
  }
}

/** The Agent SDK app stock, under run, and with options.env by hand: rows. */
export async function checkAgentSdk(host) {
  const { home, cwd, env } = hostHome('agent-sdk');
  try {
    const log = path.join(home, 'server.jsonl');
    const server = countingServer(log);
    const shown = {};
    for (const way of ['stock', 'run', 'env']) {
      fs.rmSync(log, { force: true });
      shown[way] = { ...(await appSession(host, way, { server, tool: 'mcp__raw__progress', home, cwd, env })), server: readServerLog(log) };
    }
    const done = (s) => s.results.filter((t) => /done/.test(t)).length;
    const fixed = (s) => s.code === 0 && done(s) === CALLS && s.unknownToken === 0 && s.dropped === 0;
    const rows = [];
    for (const way of ['run', 'env']) {
      const s = shown[way];
      const ok = shown.stock.unknownToken > 0 && fixed(s);
      const what = way === 'run' ? 'run -- node app.mjs' : "options.env set by hand to setup --print-env claude's";
      say(ok, `agent-sdk ${host.version} app (Claude Code it ships), ${CALLS} calls: ${what}`);
      for (const [name, x] of [['stock', shown.stock], [way === 'run' ? 'under run' : 'options.env', s]]) {
        detail(`${name}: exit ${x.code}; ${done(x)}/${CALLS} results; sent ${x.server.progress} progress; "unknown token" ${x.unknownToken}; "STDIO connection dropped" ${x.dropped}; ${showServers(x.server)}`);
      }
      if (way === 'run') detail(`report under run: ${showReport(s.report)}`);
      rows.push([ok, `agent-sdk app (${way === 'run' ? 'run' : 'options.env'})`, host.version, `stock: ${shown.stock.unknownToken} unknown-token, ${shown.stock.dropped} dropped, ${done(shown.stock)}/${CALLS}; ${way}: ${s.unknownToken} unknown-token, ${s.dropped} dropped, ${done(s)}/${CALLS}, ${s.server.progress - s.unknownToken}/${s.server.progress} delivered`]);
    }
    return rows;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The gateway: a stdio server (the real SDK) whose `relay` tool calls the upstream coalescing server with onprogress. */
const GATEWAY = (sdkDir, upstream, log) => `import fs from 'node:fs';
import { McpServer } from ${JSON.stringify(path.join(sdkDir, 'dist/esm/server/mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(path.join(sdkDir, 'dist/esm/server/stdio.js'))};
import { Client } from ${JSON.stringify(path.join(sdkDir, 'dist/esm/client/index.js'))};
import { StdioClientTransport } from ${JSON.stringify(path.join(sdkDir, 'dist/esm/client/stdio.js'))};
const RUN = ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN'];
const note = (line) => fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ ...line, pid: process.pid }) + '\\n');
// The environment it was started with: register takes run's variables out of process.env as the SDK loads, before this line.
const started = Object.fromEntries(fs.readFileSync('/proc/self/environ', 'latin1').split('\\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
note({ event: 'gateway', runVariables: RUN.filter((n) => /mcp-ordered-dispatch|register\\.(mjs|cjs)|^\\{/.test(started[n] ?? '')) });
const upstream = new Client({ name: 'gateway', version: '1.0.0' });
let onerrors = 0;
upstream.onerror = () => onerrors++;
await upstream.connect(new StdioClientTransport(${JSON.stringify(upstream)}));
const server = new McpServer({ name: 'gateway', version: '1.0.0' });
server.tool('relay', 'Calls the upstream progress tool.', async () => {
  let received = 0;
  await upstream.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: () => received++ });
  note({ event: 'relay', received, onerrors });
  return { content: [{ type: 'text', text: 'done' }] };
});
await server.connect(new StdioServerTransport());
`;

/** Claude Code (the Agent SDK's executable) under run, starting the gateway: rows. */
export async function checkGateway(host) {
  const { home, cwd, env } = hostHome('gateway');
  try {
    const log = path.join(home, 'gateway.jsonl');
    const upstreamLog = path.join(home, 'upstream.jsonl');
    const gateway = path.join(home, 'gateway.mjs');
    fs.writeFileSync(gateway, GATEWAY(path.join(CACHE, 'node_modules', '@modelcontextprotocol', 'sdk'), countingServer(upstreamLog), log));
    const shown = {};
    const config = path.join(home, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { gw: { command: process.execPath, args: [gateway] } } }));
    const claude = path.join(CACHE, 'node_modules', '@anthropic-ai', 'claude-agent-sdk-linux-x64', 'claude');
    for (const way of ['stock', 'run']) {
      fs.rmSync(log, { force: true });
      fs.rmSync(upstreamLog, { force: true });
      const api = await fakeMessagesApi([...Array(CALLS).keys()].map((i) => ({ id: `toolu_${i}`, name: 'mcp__gw__relay', input: {} })));
      const report = path.join(home, `report-${way}.jsonl`);
      try {
        const callEnv = { ...env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-check-hosts', ENABLE_TOOL_SEARCH: 'false', MCP_ORDERED_DISPATCH_REPORT: report };
        await launch(claude, ['-p', 'Call the relay tool three times.', '--mcp-config', config, '--allowedTools', 'mcp__gw__relay'], callEnv, cwd, { way });
      } finally {
        await api.close();
      }
      const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
      shown[way] = { report: readReport(report), gateway: lines.find((l) => l.event === 'gateway'), relays: lines.filter((l) => l.event === 'relay'), upstream: readServerLog(upstreamLog) };
    }
    const received = (s) => s.relays.reduce((n, r) => n + r.received, 0);
    const onerrors = (s) => Math.max(0, ...s.relays.map((r) => r.onerrors));
    const r = shown.run;
    const ok = r.relays.length === CALLS && received(r) === r.upstream.progress && r.upstream.progress > 0 && onerrors(r) === 0;
    say(ok, `gateway server (the real SDK, Client with onprogress upstream) started by run -- claude -p (the Agent SDK ${host.version}'s Claude Code), ${CALLS} relays`);
    for (const [name, s] of [['stock', shown.stock], ['under run', r]]) {
      detail(`${name}: ${s.relays.length}/${CALLS} relays; upstream sent ${s.upstream.progress}, the gateway received ${received(s)} with ${onerrors(s)} onerrors; the gateway was given ${s.gateway?.runVariables?.length ? s.gateway.runVariables.join(', ') : "none of run's variables"}; upstream: ${showServers(s.upstream)}`);
    }
    detail(`report under run: ${showReport(r.report)}`);
    return [[ok, 'gateway under run -- claude', host.version, `stock: ${received(shown.stock)}/${shown.stock.upstream.progress} received, ${onerrors(shown.stock)} onerrors; run: ${received(r)}/${r.upstream.progress} received, ${onerrors(r)} onerrors; gateway given run's variables: ${r.gateway?.runVariables?.length ? 'yes' : 'no'}`]];
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
