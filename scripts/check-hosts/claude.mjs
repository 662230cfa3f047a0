// Claude Code (its linux-x64 executable): `claude -p` against a stand-in for
// the Anthropic Messages API on 127.0.0.1 (test/support/fake-messages-api.mjs)
// that asks for the raw server's `progress` tool, whose 3 progress
// notifications arrive in the result's write. Stock, under `run`, and as
// setup's function starts it (its plan started directly), its debug log
// (~/.claude/debug/) is searched for the SDK's "unknown token" error and
// "STDIO connection dropped": stock has them, the others must not. Then a
// server on every runtime line test/run/safe-launcher.test.mjs uses (Node 16,
// 18, 20.10, this Node, Bun 1.1.38, 1.2.23, 1.3.0, the pinned Bun) and one
// Bash call that prints run's variables and starts Node 18: every server
// answers, none loses progress under run, and the command sees the user's
// environment. And the executables of the other platforms, read, not run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { installedNode, installedBun, OLD_LINES, OLD_BUNS } from '../node-lines.mjs';
import { fakeMessagesApi } from '../../test/support/fake-messages-api.mjs';
import { require, ROOT, CACHE, RAW_SERVER, USER_ENV, EXPECTED_SHELL, shellCommand, launch } from './common.mjs';
import { FOREIGN } from './versions.mjs';

/** The raw server on every runtime line test/run/safe-launcher.test.mjs uses: { name (a server name Claude Code takes), command, args }. */
export function lineServers() {
  const raw = [RAW_SERVER, '--mode=all-in-one', '--progress=3'];
  const id = (text) => text.replace(/[^A-Za-z0-9]/g, '_');
  const bun = path.join(path.dirname(require.resolve('@oven/bun-linux-x64/package.json')), 'bin', 'bun');
  return [
    ...OLD_LINES.map((v) => ({ name: `node_${id(v)}`, command: installedNode(v), args: raw })),
    { name: `node_${id(process.version.slice(1))}`, command: process.execPath, args: raw },
    ...OLD_BUNS.map((v) => ({ name: `bun_${id(v)}`, command: installedBun(v), args: raw })),
    { name: 'bun_pinned', command: bun, args: raw },
  ];
}

/** Claude Code's debug log text (~/.claude/debug/*.txt) under `env.HOME`. */
export function debugLog(env) {
  const debug = path.join(env.HOME, '.claude', 'debug');
  let text = '';
  for (const f of fs.existsSync(debug) ? fs.readdirSync(debug) : []) {
    if (f.endsWith('.txt')) text += fs.readFileSync(path.join(debug, f), 'utf8');
  }
  return text;
}

/**
 * `claude -p` with a server on every runtime line and one Bash call, stock
 * or under run (`launched`): per server, whether its tool completed; the
 * "unknown token" and "connection dropped" counts; the shell command's output.
 */
async function claudeLines(exe, env, cwd, launched) {
  fs.rmSync(path.join(env.HOME, '.claude', 'debug'), { recursive: true, force: true });
  const servers = lineServers();
  const config = path.join(cwd, '..', 'mcp-lines.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: s.args }])) }));
  const calls = [...servers.map((s) => ({ id: `toolu_${s.name}`, name: `mcp__${s.name}__progress`, input: {} })), { id: 'toolu_bash', name: 'Bash', input: { command: shellCommand(), description: 'Print the environment' } }];
  const api = await fakeMessagesApi(calls);
  try {
    const callEnv = { ...env, ...USER_ENV, ANTHROPIC_BASE_URL: api.url };
    const args = ['-p', 'Call every progress tool, and run the command.', '--mcp-config', config, '--allowedTools', calls.map((c) => c.name).join(','), '--debug'];
    const r = await launch(exe, args, callEnv, cwd, { way: launched ? 'run' : 'stock' });
    const text = debugLog(env);
    const count = (re) => text.split('\n').filter((l) => re.test(l)).length;
    return {
      code: r.signal ?? r.code,
      completed: servers.map((s) => [s.name, count(new RegExp(`MCP server "${s.name}": Tool 'progress' completed successfully`))]),
      unknownToken: count(/Received a progress notification for an unknown token/),
      dropped: count(/STDIO connection dropped/),
      shell: api.results.get('toolu_bash'),
    };
  } finally {
    await api.close();
  }
}

/**
 * One `claude -p` tool call (stock, or under run when `launched`): its exit,
 * and what its debug log says of the raw server's connection.
 */
async function claudeToolCall(exe, env, cwd, way) {
  fs.rmSync(path.join(env.HOME, '.claude', 'debug'), { recursive: true, force: true });
  const config = path.join(cwd, '..', 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { raw: { command: process.execPath, args: [RAW_SERVER, '--mode=all-in-one', '--progress=3'] } } }));
  const args = ['-p', 'Call the progress tool of the raw server.', '--mcp-config', config, '--allowedTools', 'mcp__raw__progress', '--debug'];
  const r = await launch(exe, args, env, cwd, { way });
  const text = debugLog(env);
  const count = (re) => text.split('\n').filter((l) => re.test(l)).length;
  return {
    code: r.signal ?? r.code,
    called: count(/MCP server "raw": Calling MCP tool: progress/),
    completed: count(/MCP server "raw": Tool 'progress' completed successfully/),
    unknownToken: count(/Received a progress notification for an unknown token/),
    dropped: count(/MCP server "raw": STDIO connection dropped/),
  };
}


/** `claude -p` once stock, once under run, and twice as setup's function starts it: printed; whether it held. */
export async function checkClaudeToolCall(host, exe, env, cwd, home) {
  const api = await fakeMessagesApi();
  try {
    const callEnv = { ...env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-check-hosts', ENABLE_TOOL_SEARCH: 'false' };
    const stock = await claudeToolCall(exe, callEnv, cwd, 'stock');
    const launched = await claudeToolCall(exe, callEnv, cwd, 'run');
    // As setup's function starts it: the first start writes the plan, the second starts it directly (no Node start).
    const plans = path.join(home, 'plans');
    fs.mkdirSync(plans, { mode: 0o700 });
    const setupEnv = { ...callEnv, MCP_ORDERED_DISPATCH_CACHE_DIR: plans };
    await claudeToolCall(exe, setupEnv, cwd, 'setup');
    const direct = await claudeToolCall(exe, setupEnv, cwd, 'setup');
    const fixed = (r) => r.code === 0 && r.called === 1 && r.completed === 1 && r.unknownToken === 0 && r.dropped === 0;
    const ok = stock.code === 0 && stock.unknownToken > 0 && fixed(launched) && fixed(direct) && fs.readdirSync(plans).some((f) => f.startsWith('run-'));
    const show = (r) => `exit ${r.code}, tool called ${r.called}, completed ${r.completed}, "unknown token" errors ${r.unknownToken}, "STDIO connection dropped" ${r.dropped}`;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${host.name} ${host.version} -p: one call of the raw server's progress tool (3 progress notifications in the result's write)`);
    console.log(`       stock:     ${show(stock)}`);
    console.log(`       under run: ${show(launched)}`);
    console.log(`       as setup's function starts it (its plan started directly): ${show(direct)}`);
    return ok;
  } finally {
    await api.close();
  }
}

/** Claude Code with a server on every runtime line and a Bash call, stock and under run: printed; whether it held. */
export async function checkClaudeLines(host, exe, env, cwd) {
  const callEnv = { ...env, ANTHROPIC_API_KEY: 'sk-ant-check-hosts', ENABLE_TOOL_SEARCH: 'false' };
  const stock = await claudeLines(exe, callEnv, cwd, false);
  const launched = await claudeLines(exe, callEnv, cwd, true);
  const expectedShell = EXPECTED_SHELL;
  const allCompleted = (r) => r.completed.every(([, n]) => n === 1);
  const ok = stock.code === 0 && launched.code === 0 && allCompleted(stock) && allCompleted(launched) && stock.unknownToken > 0 && launched.unknownToken === 0 &&
    launched.dropped === 0 && launched.shell?.trim() === expectedShell && stock.shell?.trim() === expectedShell;
  const show = (r) => `exit ${r.code}; completed ${r.completed.filter(([, n]) => n === 1).length} of ${r.completed.length} (${r.completed.map(([name, n]) => `${name} ${n}`).join(', ')}); "unknown token" ${r.unknownToken}; "connection dropped" ${r.dropped}`;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${host.name} ${host.version} -p: a server on every runtime line (${lineServers().map((s) => s.name).join(', ')}), each tool called once, and one Bash call`);
  console.log(`       stock:     ${show(stock)}`);
  console.log(`       under run: ${show(launched)}`);
  console.log(`       the Bash call's output, stock:     ${JSON.stringify(stock.shell)}`);
  console.log(`       the Bash call's output, under run: ${JSON.stringify(launched.shell)}`);
  return ok;
}

/** The other platforms' Claude Code executables, read and recognised (never run): whether each is a Bun-compiled executable run can reach. */
export function checkForeign() {
  const { compiledKindOf } = require('../../lib/discover/compiled.cjs');
  const { wayIn } = require('../../lib/rule/ways-in.cjs');
  let ok = true;
  for (const { pkg, version, bin } of FOREIGN) {
    const dir = path.join(CACHE, 'foreign', `${pkg.replace('/', '+')}@${version}`);
    const file = path.join(dir, 'package', bin);
    if (!fs.existsSync(file)) {
      console.log(`check:hosts: fetching ${pkg}@${version} (read only) into ${path.relative(ROOT, dir)} ...`);
      fs.mkdirSync(dir, { recursive: true });
      const packed = spawnSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', dir, '--json', '--silent'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${packed.stderr}`);
      const tarball = path.join(dir, JSON.parse(packed.stdout)[0].filename);
      const tar = spawnSync('tar', ['xzf', tarball, '-C', dir, `package/${bin}`], { encoding: 'utf8' });
      fs.rmSync(tarball, { force: true });
      if (tar.status !== 0) throw new Error(`extracting ${bin} from ${pkg} failed: ${tar.stderr}`);
    }
    const started = process.hrtime.bigint();
    const kind = compiledKindOf(file);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const recognised = kind?.kind === 'bun';
    ok &&= recognised;
    const way = recognised ? wayIn({ compiled: kind }).carriers.join(' + ') : 'none';
    console.log(`${recognised ? 'ok  ' : 'FAIL'} ${pkg} ${version} (read, not run): ${kind?.format ?? '?'} ${(fs.statSync(file).size / 1e6).toFixed(0)} MB, ${kind?.kind ?? 'not an executable'}` +
      `${recognised ? `, built-in arguments ${JSON.stringify(kind.execArgv)}; run reaches it through ${way}` : ''} (read in ${ms.toFixed(1)} ms)`);
  }
  return ok;
}

