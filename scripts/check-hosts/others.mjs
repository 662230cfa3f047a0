// The hosts whose MCP client is not this SDK, or not where register looks:
// Copilot CLI (a Node loader that starts a Node single executable
// application, its MCP client its own), driven offline through its BYOK
// provider (COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL at the
// OpenAI-compatible stand-in) to call the counting server's tool and run one
// shell command: under run, neither may see run's variables. And Amp
// (@ampcode/cli-linux-x64): doctor reads it (not run) and must say what run
// does with it.
import fs from 'node:fs';
import path from 'node:path';
import { hostHome, launch, exeOf, nodeOf, shellCommand, USER_ENV, EXPECTED_SHELL, say, detail } from './common.mjs';
import { openAiApi } from './standins.mjs';
import { countingServer, readServerLog, showServers, shellSaw } from './observe.mjs';
import { doctorRead } from './doctor.mjs';

const CALLS = 3;

/** One `copilot -p` session, `way` ('stock' or 'run'): what it showed. */
async function copilotSession(host, way) {
  const { home, cwd, env } = hostHome('copilot');
  const calls = [...Array(CALLS).keys()].map((i) => ({ id: `call_${i}`, pick: (n) => /progress$/.test(n) })).concat([{ id: 'call_shell', pick: (n) => n === 'bash' || n === 'shell', args: { command: shellCommand(), description: 'Print the environment' } }]);
  const api = await openAiApi(calls);
  try {
    const log = path.join(home, 'server.jsonl');
    fs.mkdirSync(path.join(home, '.copilot'));
    fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), JSON.stringify({ mcpServers: { raw: { type: 'local', ...countingServer(log), tools: ['*'] } } }));
    const callEnv = {
      ...env, ...USER_ENV, PATH: `${path.dirname(nodeOf(host))}:${env.PATH}`, COPILOT_HOME: path.join(home, '.copilot'), COPILOT_OFFLINE: 'true', COPILOT_AUTO_UPDATE: 'false', COPILOT_ALLOW_ALL: 'true',
      COPILOT_PROVIDER_BASE_URL: `${api.url}/v1`, COPILOT_PROVIDER_API_KEY: 'sk-check-hosts', COPILOT_MODEL: 'gpt-4.1', COPILOT_PROVIDER_WIRE_MODEL: 'stand-in',
    };
    const r = await launch(exeOf(host), ['-p', 'Call the progress tool three times and run the command.', '--allow-all'], callEnv, cwd, { way });
    return { code: r.signal ?? r.code, stderr: r.stderr, server: readServerLog(log), results: [...Array(CALLS).keys()].filter((i) => /done/.test(api.results.get(`call_${i}`) ?? '')).length, shell: shellSaw(api.results.get('call_shell')) ?? `(no output: ${JSON.stringify((api.results.get('call_shell') ?? '').slice(0, 200))})`, requests: api.requests };
  } finally {
    await api.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Copilot CLI stock and under run: rows. */
export async function checkCopilot(host) {
  const stock = await copilotSession(host, 'stock');
  const launched = await copilotSession(host, 'run');
  const clean = (s) => s.server.servers.length > 0 && s.server.servers.every((x) => x.runVariables.length === 0) && s.shell === EXPECTED_SHELL;
  const ok = clean(launched);
  say(ok, `copilot ${host.version} -p (a Node loader starting a single executable application; its MCP client not this SDK): under run, its server and its shell command see none of run's variables`);
  for (const [name, s] of [['stock', stock], ['under run', launched]]) {
    detail(`${name}: exit ${s.code}; ${s.requests} model turns; ${s.results}/${CALLS} results; sent ${s.server.progress} progress; ${showServers(s.server)}; the shell command saw ${JSON.stringify(s.shell)}`);
  }
  const line = launched.stderr.split('\n').find((l) => /mcp-ordered-dispatch/.test(l));
  detail(`run's line on stderr: ${line ? JSON.stringify(line.slice(0, 300)) : 'none'}`);
  return [[ok, 'copilot', host.version, `stock: ${stock.results}/${CALLS} results; run: ${launched.results}/${CALLS} results; under run the server was given ${launched.server.servers.flatMap((x) => x.runVariables).join(', ') || 'none'} of run's variables, the shell saw ${launched.shell === EXPECTED_SHELL ? "the user's environment" : JSON.stringify(launched.shell)}`]];
}

/** Amp: doctor on its executable (read, not run), printed: rows. */
export async function checkAmp(host) {
  const { status, read, stderr } = doctorRead(exeOf(host));
  const modules = read?.sdk ?? [];
  const says = read === undefined ? `no JSON (exit ${status}): ${stderr.trim().split('\n').slice(-1)[0]}` : `${read.kind ?? '?'}: ${read.kind === 'bun' ? `${read.modules} embedded modules; ${read.wayIn?.words}` : read.message}`;
  // register at run time finds SDK 1.x in Amp's entry module (issue 55): doctor must find it there too, or say it cannot read it.
  const ok = modules.length > 0 || /cannot read|not plain/i.test(JSON.stringify(read ?? {}));
  say(ok, `amp ${host.version} doctor (read, not run): ${says}`);
  for (const m of modules) detail(`${m.name}${m.entry ? ' (entry)' : ''}: ${m.classes.join(', ')}; ${m.reached ? 'reached' : `NOT reached (${m.why})`}`);
  if (modules.length === 0) detail('no SDK class found, and nothing said of a module it could not read');
  // What register itself says at run time (`amp --version` under run, offline): its UNREACHED line names the SDK copy it found.
  const { home, cwd, env } = hostHome('amp');
  try {
    const r = await launch(exeOf(host), ['--version'], env, cwd);
    const unreached = r.stderr.split('\n').filter((l) => l.includes('MCP_ORDERED_DISPATCH_UNREACHED'));
    detail(`run -- amp --version: exit ${r.signal ?? r.code}; UNREACHED lines ${unreached.length}${unreached.length ? ` (${unreached[0].slice(0, 200)}…)` : ''}`);
    return [[ok, 'amp doctor', host.version, `doctor: ${modules.length} SDK modules found${modules.length ? ` (${modules.map((m) => `${m.name}: ${m.reached ? 'reached' : 'not reached'}`).join(', ')})` : ''}; run time: ${unreached.length} UNREACHED line(s) naming an SDK copy in its entry`]];
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
