// test:windows' end-to-end rows (scripts/test-windows.mjs): the product's
// own paths on Windows Node under Wine, each a whole process as a user
// starts it:
//
//   stock         a client of a server that writes its progress notifications
//                 with the response (all in one write): loses them
//   run           the same client started by `run -- demo-host`, found through
//                 a real npm .cmd shim (cmd-shim, npm's own) on PATH, which run
//                 reads through to node and the script: loses none
//   launcher ×2   setup's function path, the native launcher .exe: the first
//                 start plans through a Node of ours and writes its plan file,
//                 the second starts from it; both lose none
//   report        `run --report`, then `report --json` on the file it names:
//                 the process, its patched copy, the notifications delivered
//   setup ×3      setup, `setup --remove`, `setup --undo` on PowerShell's
//                 profile in the prefix's own Documents folder (its user's
//                 content kept, byte for byte, at the end); the real home's
//                 startup files unchanged, checked before and after
//   doctor        a small project holding a copy of SDK 1.x: fixed, exit 0
//
// Each row: { what, result, time, ok }.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const LAUNCHER = path.join(ROOT, 'mcp-ordered-dispatch-launcher.win32-x64-msvc.exe');
const REPRO = ['--sdk=1', '--patched=0', '--pairs=1', '--mode=all-in-one', '--progress=5'];
// The files setup could write in a home, on any platform: none of them may change in the real one.
const STARTUP_FILES = ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.config/fish/config.fish', '.config/powershell/Microsoft.PowerShell_profile.ps1', 'Documents/PowerShell/Microsoft.PowerShell_profile.ps1'];

/** A Linux path as Wine's Windows side names it (Z: is the Linux root). */
export const winPath = (p) => `Z:${p.replaceAll('/', '\\')}`;

/** The repro's one-line JSON result in `stdout`, or undefined. */
function resultOf(stdout) {
  try {
    return JSON.parse(stdout.trim().split('\n').pop());
  } catch {
    return undefined;
  }
}

/** Each startup file of the real home: its bytes (base64), or null where there is none. */
function homeFiles() {
  return Object.fromEntries(STARTUP_FILES.map((f) => {
    try {
      return [f, fs.readFileSync(path.join(os.homedir(), f)).toString('base64')];
    } catch {
      return [f, null];
    }
  }));
}

/**
 * The rows, run with `wine(exe, args, name, env)` (test-windows.mjs's: files
 * as stdio, returns { code, stdout, stderr, time, out }) on Windows Node
 * `nodeExe`, in `dir` (made anew), with the Wine prefix `prefix`.
 */
export async function endToEnd({ nodeExe, wine, dir, prefix }) {
  fs.rmSync(dir, { recursive: true, force: true });
  const pkg = path.join(dir, 'node_modules', 'demo-host', 'bin');
  fs.mkdirSync(pkg, { recursive: true });
  const script = path.join(pkg, 'cli.mjs');
  fs.writeFileSync(script, `#!/usr/bin/env node\nawait import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'test', 'support', 'repro-esm.mjs')).href.replace(/^file:\/\/\//, 'file:///Z:/'))});\n`);
  await createRequire(import.meta.url)('cmd-shim')(script, path.join(dir, 'bin', 'demo-host'));
  const env = { WINEPATH: [path.join(dir, 'bin'), path.dirname(nodeExe)].map(winPath).join(';') };
  const rows = [];
  const row = (what, r, judge) => {
    let verdict;
    try {
      verdict = judge(r);
    } catch (error) {
      verdict = { result: `${error.message} (exit ${r.code}, ${r.out})`, ok: false };
    }
    rows.push({ what, time: r.time, ...verdict });
  };
  const lost = (expectLoss) => (r) => {
    const got = resultOf(r.stdout);
    if (got === undefined) throw new Error('no result');
    return { result: `${got.lost} of ${got.progressExpected} lost`, ok: expectLoss ? got.lost > 0 : got.lost === 0 };
  };
  const node = (args, name, extra = {}) => wine(nodeExe, args, name, { ...env, ...extra });

  row('stock: node cli.mjs', node([script, ...REPRO], 'e2e-stock'), lost(true));
  row('run -- demo-host (the .cmd shim)', node([BIN, 'run', '--', 'demo-host', ...REPRO], 'e2e-run-shim'), lost(false));

  // setup's function path: the launcher, its plans folder the cache directory, as setup gives it (run writes a plan file nowhere else).
  const plans = path.join(dir, 'plans');
  fs.mkdirSync(plans, { mode: 0o700 });
  const planEnv = { ...env, MCP_ORDERED_DISPATCH_CACHE_DIR: winPath(plans) };
  const launch = [`--node=${winPath(nodeExe)}`, `--cli=${winPath(BIN)}`, `--plans=${winPath(plans)}`, '--', winPath(nodeExe), winPath(script), ...REPRO];
  row('native launcher, first start (plans)', wine(LAUNCHER, launch, 'e2e-launcher-1', planEnv), (r) => {
    const verdict = lost(false)(r);
    const written = fs.readdirSync(plans).filter((f) => f.startsWith('run-')).length;
    return { result: `${verdict.result}; ${written} plan file(s) written`, ok: verdict.ok && written > 0 };
  });
  const planFiles = () => fs.readdirSync(plans).filter((f) => f.startsWith('run-')).map((f) => `${f}:${fs.statSync(path.join(plans, f)).mtimeMs}`).join();
  const planned = planFiles();
  row('native launcher, second start (from its plan)', wine(LAUNCHER, launch, 'e2e-launcher-2', planEnv), (r) => {
    const verdict = lost(false)(r);
    const same = planned !== '' && planFiles() === planned;
    return { result: `${verdict.result}; plan ${same ? 'read, not rewritten' : 'written again'}`, ok: verdict.ok && same };
  });

  // run --report makes its file in the cache folder given, and says which in one line; report finds the last.
  fs.mkdirSync(path.join(dir, 'cache'), { mode: 0o700 });
  const cache = { MCP_ORDERED_DISPATCH_CACHE_DIR: winPath(path.join(dir, 'cache')) };
  row('run --report, then report --json', node([BIN, 'run', '--report', '--', winPath(nodeExe), winPath(script), ...REPRO], 'e2e-report-run', cache), (r) => {
    const verdict = lost(false)(r);
    const said = r.stderr.split('\n').filter((l) => /^mcp-ordered-dispatch/.test(l));
    const shown = node([BIN, 'report', '--json'], 'e2e-report', cache);
    const { records } = JSON.parse(shown.stdout);
    const delivering = records.filter((x) => x.counts?.sameRead > 0);
    return {
      result: `${verdict.result}; ${said.length} line on stderr; report: ${records.length} record(s), ${delivering.map((x) => `${x.counts.sameRead} same-read in ${x.program}`).join(', ') || 'none delivering'}`,
      ok: verdict.ok && said.length === 1 && shown.code === 0 && delivering.length > 0,
    };
  });

  // setup in the prefix's own home: its profile holds the user's line before, and exactly it after --undo.
  const user = fs.readdirSync(path.join(prefix, 'drive_c', 'users')).find((u) => u !== 'Public');
  const profile = path.join(prefix, 'drive_c', 'users', user, 'Documents', 'PowerShell', 'Microsoft.PowerShell_profile.ps1');
  fs.mkdirSync(path.dirname(profile), { recursive: true });
  const mine = Buffer.from('# the user\'s own line, kept\r\nSet-Alias ll Get-ChildItem\r\n');
  fs.writeFileSync(profile, mine);
  const realHome = homeFiles();
  const holds = (hosts) => () => {
    const text = fs.readFileSync(profile, 'utf8');
    const block = text.slice(text.indexOf('# mcp-ordered-dispatch'));
    const has = hosts.filter((h) => new RegExp(`\\b${h}\\b`).test(block));
    return { result: `profile block holds ${has.join(', ') || 'no host'}; the user's lines ${text.startsWith(mine.toString()) ? 'kept' : 'CHANGED'}`, ok: has.length === hosts.length && text.startsWith(mine.toString()) && text.includes('# mcp-ordered-dispatch') };
  };
  row('setup --shell=powershell demo-host other-host', node([BIN, 'setup', '--shell=powershell', 'demo-host', 'other-host'], 'e2e-setup'), holds(['demo-host', 'other-host']));
  row('setup --remove other-host', node([BIN, 'setup', '--shell=powershell', '--remove', 'other-host'], 'e2e-setup-remove'), (r) => {
    const verdict = holds(['demo-host'])(r);
    const gone = !/\bother-host\b/.test(fs.readFileSync(profile, 'utf8'));
    return { result: verdict.result + (gone ? '' : '; other-host still there'), ok: r.code === 0 && verdict.ok && gone };
  });
  row('setup --undo', node([BIN, 'setup', '--shell=powershell', '--undo'], 'e2e-setup-undo'), (r) => {
    const back = fs.readFileSync(profile).equals(mine);
    const untouched = JSON.stringify(homeFiles()) === JSON.stringify(realHome);
    return { result: `profile ${back ? 'byte for byte as before' : 'NOT as before'}; the real home's startup files ${untouched ? 'unchanged' : 'CHANGED'}`, ok: r.code === 0 && back && untouched };
  });

  // doctor in a small project: a copy of the SDK (Wine links no folder), its dependencies found up the tree in this clone.
  const project = path.join(dir, 'project');
  fs.mkdirSync(path.join(project, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'e2e-doctor', private: true }));
  fs.cpSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk'), path.join(project, 'node_modules', '@modelcontextprotocol', 'sdk'), { recursive: true });
  // It also lists the copies the project resolves up the tree (this clone's): each must be fixed; its own are named.
  row('doctor in a project holding SDK 1.x', node([BIN, 'doctor', `--cwd=${winPath(project)}`, '--json', '--pairs', '1'], 'e2e-doctor'), (r) => {
    const result = JSON.parse(r.stdout);
    const own = result.rows.filter((x) => x.file?.startsWith(winPath(project) + '\\'));
    const fixed = (x) => x.verdict === 'fixed' && x.stock.lost > 0 && x.patched.lost === 0;
    return {
      result: `exit ${r.code}: its copies ${own.map((x) => `${x.name}@${x.version} ${x.build} ${x.verdict}`).join('; ')}; ${result.rows.filter(fixed).length} of ${result.rows.length} listed fixed`,
      ok: r.code === 0 && own.length === 2 && result.rows.every(fixed),
    };
  });
  return rows;
}
