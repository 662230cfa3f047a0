// Hosts started not by the user but by an app or a launcher that holds no
// MCP client of its own (issue 64): an app on @opencode-ai/sdk, whose
// createOpencode() starts `opencode serve` from PATH (opencode-ai's bin, the
// Bun executable its postinstall links there); an app on @qwen-code/sdk,
// whose query() starts `node` on the Qwen Code bundle it ships (the app
// itself loads the MCP SDK); and `kilo run` through @kilocode/cli's Node
// launcher (bin/kilo), which finds the Bun executable in its platform
// package. Each stock and under `run --`, against the OpenAI-compatible
// stand-in asking for the counting server's tool 3 times: the SDK's "unknown
// token" errors (the probe preload in the Bun executables, Qwen Code's debug
// log), what the server sent, the report's records (the process that did the
// MCP work must be the patched one), and what `doctor` says in the app's
// folder.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE, BIN, hostHome, launch, jsonLines, nodeOf, say, detail, TIMEOUT_MS, USER_ENV, EXPECTED_SHELL } from './common.mjs';
import { writeProbe, readProbe } from './probe.mjs';
import { openAiApi } from './standins.mjs';
import { opencodeConfig, OFFLINE } from './bun-hosts.mjs';
import { countingServer, readServerLog, readReport, showReport, showServers, shellSaw } from './observe.mjs';
import { qwenCalls, qwenUnknownToken } from './relaunchers.mjs';

const CALLS = 3;
const MODULES = path.join(CACHE, 'node_modules');
const APPS = path.join(CACHE, 'apps');

/** The opencode app: createOpencode() with the config of $CHECK_APP_CONFIG, one prompt, then the server closed. */
const OPENCODE_APP = `import { createOpencode } from '@opencode-ai/sdk';
const config = JSON.parse(process.env.CHECK_APP_CONFIG);
const { client, server } = await createOpencode({ port: Number(process.env.CHECK_APP_PORT), config, timeout: 60000 });
try {
  const session = await client.session.create({ body: {} });
  await client.session.prompt({ path: { id: session.data.id }, body: { model: { providerID: 'standin', modelID: 'm' }, parts: [{ type: 'text', text: 'Call the progress tool three times.' }] } });
} finally {
  server.close();
}
`;

/** The Qwen Code app: query() with the counting server of $CHECK_APP_SERVER, to its result. */
const QWEN_APP = `import { query } from '@qwen-code/sdk';
const q = query({ prompt: 'Call the progress tool three times and run the command.', options: { mcpServers: { raw: JSON.parse(process.env.CHECK_APP_SERVER) }, model: 'stand-in', authType: 'openai', permissionMode: 'yolo', extraArgs: ['--debug'] } });
for await (const message of q) if (message.type === 'result') console.log(JSON.stringify({ subtype: message.subtype }));
`;

/** A free port on 127.0.0.1 for `opencode serve` (createOpencode's default, 4096, may be taken). */
async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * opencode-ai's bin as npm users get it: its postinstall links the platform
 * package's executable into bin/opencode.exe (with --ignore-scripts the file
 * is a script that says the postinstall did not run). Run here, offline.
 */
function opencodeOnPath() {
  const dir = path.join(MODULES, 'opencode-ai');
  const bin = path.join(dir, 'bin', 'opencode.exe');
  if (fs.readFileSync(bin).subarray(0, 4).toString('latin1') === '\x7fELF') return;
  const r = spawnSync(process.execPath, ['postinstall.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' } });
  if (r.status !== 0) throw new Error(`opencode-ai's postinstall failed: ${r.stderr}`);
}

/**
 * What `doctor` says, read not run: in the apps' folder, of the host that
 * `what.sdk` starts; for the launcher, of `kilo` on PATH. { agrees (it says
 * reached), says (in words) }.
 */
function doctorOf(what) {
  const env = { ...process.env, PATH: `${path.join(MODULES, '.bin')}${path.delimiter}${process.env.PATH}` };
  const args = what.sdk === undefined ? ['doctor', '--json', 'kilo'] : ['doctor', '--json'];
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: APPS, env, encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    return { agrees: false, says: `no JSON (exit ${r.status}): ${r.stderr.trim().split('\n').pop()}` };
  }
  if (what.sdk === undefined) {
    const [exe] = json.executables;
    return { agrees: exe.ok === true, says: `${exe.launcher ?? exe.file} starts ${exe.file}: ${exe.sdk?.map((m) => `${path.basename(m.name)} ${m.reached ? 'reached' : 'NOT reached'}`).join(', ') ?? exe.message}` };
  }
  const hosts = json.hosts.filter((h) => h.sdk === what.sdk);
  return { agrees: hosts.length > 0 && hosts.every((h) => h.reached), says: hosts.map((h) => `${h.host}: ${h.reached ? 'reached' : 'NOT reached'} (${h.why})`).join('; ') || 'no host named' };
}

/** One session of `kind` ('opencode', 'qwen' or 'kilo'), `way` ('stock' or 'run'): what it showed. */
async function session(kind, way) {
  const { home, cwd, env } = hostHome(`${kind}-app`);
  const calls = kind === 'qwen' ? qwenCalls() : [...Array(CALLS).keys()].map((i) => ({ id: `call_${i}`, pick: (n) => /progress$/.test(n) }));
  const api = await openAiApi(calls);
  try {
    const log = path.join(home, 'server.jsonl');
    const report = path.join(home, 'report.jsonl');
    const out = path.join(home, 'probe.jsonl');
    const server = countingServer(log);
    const callEnv = { ...env, ...OFFLINE, PATH: `${path.join(MODULES, '.bin')}${path.delimiter}${env.PATH}`, MCP_ORDERED_DISPATCH_CHECK_OUT: out };
    // The probe counts in the Bun executables; Qwen Code's shell command must see the user's own (none).
    if (kind !== 'qwen') callEnv.BUN_INSPECT_PRELOAD = writeProbe(home);
    if (way === 'run') callEnv.MCP_ORDERED_DISPATCH_REPORT = report;
    let r;
    if (kind === 'opencode') {
      const app = path.join(APPS, 'opencode-app.mjs');
      fs.writeFileSync(app, OPENCODE_APP);
      Object.assign(callEnv, { CHECK_APP_CONFIG: JSON.stringify(opencodeConfig(server, api.url)), CHECK_APP_PORT: String(await freePort()) });
      r = await launch(process.execPath, [app], callEnv, cwd, { way });
    } else if (kind === 'qwen') {
      const app = path.join(APPS, 'qwen-app.mjs');
      fs.writeFileSync(app, QWEN_APP);
      Object.assign(callEnv, USER_ENV, { CHECK_APP_SERVER: JSON.stringify(server), OPENAI_API_KEY: 'sk-check-hosts', OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_MODEL: 'stand-in', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' });
      r = await launch(nodeOf({ node: '24.22.3' }), [app], callEnv, cwd, { way });
    } else {
      const config = path.join(cwd, 'kilo.json');
      fs.writeFileSync(config, JSON.stringify(opencodeConfig(server, api.url)));
      r = await launch(path.join(MODULES, '.bin', 'kilo'), ['run', '--model', 'standin/m', 'Call the progress tool three times.'], { ...callEnv, KILO_CONFIG: config }, cwd, { way });
    }
    const probe = readProbe(jsonLines(out));
    const results = [...Array(CALLS).keys()].filter((i) => /done/.test(api.results.get(`call_${i}`) ?? '')).length;
    const unknownToken = kind === 'qwen' ? qwenUnknownToken(home) : probe.unknownToken;
    return { code: r.signal ?? r.code, stderr: r.stderr, results, unknownToken, server: readServerLog(log), report: readReport(report), shell: kind === 'qwen' ? shellSaw(api.results.get('call_shell')) : undefined };
  } finally {
    await api.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const WHAT = {
  opencode: { row: 'opencode-app', sdk: '@opencode-ai/sdk', words: 'an app on @opencode-ai/sdk (createOpencode() starts `opencode serve`, a Bun executable, from PATH)' },
  qwen: { row: 'qwen-app', sdk: '@qwen-code/sdk', words: "an app on @qwen-code/sdk (query() starts node on the Qwen Code bundle it ships)" },
  kilo: { row: 'kilo-launcher', sdk: undefined, words: "`kilo run` through @kilocode/cli's Node launcher (bin/kilo starts its platform package's Bun executable)" },
};

/** One app or launcher, stock and under run: rows. */
export async function checkApp(host) {
  const kind = host.name.replace(/-(app|launcher)$/, '');
  if (kind === 'opencode') opencodeOnPath();
  fs.mkdirSync(APPS, { recursive: true });
  const stock = await session(kind, 'stock');
  const launched = await session(kind, 'run');
  const dispatched = launched.report.filter((r) => r.messages > 0);
  const delivered = launched.report.reduce((n, r) => n + r.delivered, 0);
  const ok = stock.unknownToken > 0 && launched.unknownToken === 0 && launched.results === CALLS && launched.server.progress > 0 && delivered === launched.server.progress && dispatched.length > 0 && launched.server.servers.every((s) => s.patched);
  const what = WHAT[kind];
  const shellClean = kind !== 'qwen' || (stock.shell === EXPECTED_SHELL && launched.shell === EXPECTED_SHELL);
  const { agrees, says } = doctorOf(what);
  say(ok && shellClean && agrees, `${what.row} ${host.version}: ${what.words}, ${CALLS} calls of the coalescing server's tool`);
  const show = (s) => `exit ${s.code}; ${s.results}/${CALLS} results; sent ${s.server.progress} progress; "unknown token" ${s.unknownToken}; ${showServers(s.server)}`;
  detail(`stock:     ${show(stock)}`);
  detail(`under run: ${show(launched)}; ${delivered} delivered (report)`);
  detail(`report under run: ${showReport(launched.report)}`);
  if (kind === 'qwen') detail(`the shell command saw, stock: ${JSON.stringify(stock.shell)}; under run: ${JSON.stringify(launched.shell)}`);
  if (launched.code !== 0) detail(`stderr under run: ${launched.stderr.trim().split('\n').slice(-4).join(' | ').slice(0, 600)}`);
  detail(`doctor: ${says}`);
  const doctor = `; doctor: ${agrees ? 'reached' : 'NOT reached'}`;
  const names = dispatched.map((r) => `${r.program} (pid ${r.pid}, ${r.messages} msgs)`).join(', ') || 'none';
  return [[ok && shellClean && agrees, what.row, host.version, `stock: ${stock.unknownToken} unknown-token, ${stock.server.progress - stock.unknownToken}/${stock.server.progress} delivered; run: ${launched.unknownToken} unknown-token, ${delivered}/${launched.server.progress} delivered, ${launched.results}/${CALLS} results; MCP work in ${names}${doctor}${kind === 'qwen' ? `; shell clean: ${shellClean}` : ''}`]];
}
