'use strict';
// `mcp-ordered-dispatch setup HOST...`: the fix on for good for the hosts a
// user chooses, without typing `run`, and for nothing else on the machine.
// It writes one marked block into the shell's startup file: a function per
// host that starts it with what `run` would set (lib/run/rule.cjs's carriers
// and marker, computed now from the host's executable), so no launcher
// process stands in front of it. The function falls back to the plain host
// when this package is gone. `setup --undo` takes the block out, leaving the
// file byte for byte as it was before (the block records whether the file
// ended with a newline, and whether setup created it).

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const rule = require('./rule.cjs');

const BEGIN = '# >>> mcp-ordered-dispatch setup >>>';
const END = '# <<< mcp-ordered-dispatch setup <<<';
const SHELLS = Object.freeze(['bash', 'zsh', 'fish', 'powershell']);

/** The startup file of `shell` under `home`. */
function rcFileOf(shell, home = os.homedir()) {
  switch (shell) {
    case 'bash': return path.join(home, '.bashrc');
    case 'zsh': return path.join(process.env.ZDOTDIR ?? home, '.zshrc');
    case 'fish': return path.join(home, '.config', 'fish', 'config.fish');
    case 'powershell': return process.platform === 'win32'
      ? path.join(home, 'Documents', 'PowerShell', 'Microsoft.PowerShell_profile.ps1')
      : path.join(home, '.config', 'powershell', 'Microsoft.PowerShell_profile.ps1');
    default: throw new TypeError(`setup: --shell must be one of ${SHELLS.join(', ')}, got ${shell}`);
  }
}

/** The shell a user runs, from $SHELL (PowerShell on Windows). */
function defaultShell(env = process.env) {
  if (process.platform === 'win32') return 'powershell';
  const name = path.basename(env.SHELL ?? 'bash');
  return SHELLS.includes(name) ? name : 'bash';
}

const sh = (text) => `'${text.replace(/'/g, `'\\''`)}'`;
const ps = (text) => `'${text.replace(/'/g, "''")}'`;

/**
 * The variables that start `host` with the fix: [[name, how, value]], how
 * 'append' (an option list) or 'set'; from the plan `run` would make.
 */
function carriersFor(planned) {
  const ours = rule.markerOf(planned.childEnv) ?? {};
  const vars = rule.CARRIERS.filter((name) => ours[name] !== undefined).map((name) => [name, name === 'BUN_INSPECT_PRELOAD' ? 'set' : 'append', ours[name].ours]);
  const marker = JSON.stringify({ v: 1, vars: Object.fromEntries(vars.map(([name, , value]) => [name, { user: null, ours: value }])) });
  return { vars, marker };
}

/** One host's function in `shell`'s language. */
function hostFunction(shell, host, { vars, marker }, guard) {
  if (shell === 'fish') {
    const sets = vars.map(([name, how, value]) => (how === 'append' ? `set -lx ${name} (string trim -- "$${name} "${sh(value)})` : `set -lx ${name} ${sh(value)}`));
    return [`function ${host} --wraps ${host}`, `  if test -f ${sh(guard)}`, ...sets.map((l) => `    ${l}`), `    set -lx ${rule.MARKER} ${sh(marker)}`, '  end', `  command ${host} $argv`, 'end'].join('\n');
  }
  if (shell === 'powershell') {
    const names = [...vars.map(([name]) => name), rule.MARKER];
    return [
      `function ${host} {`,
      `  $saved = @{}; foreach ($n in @(${names.map(ps).join(', ')})) { $saved[$n] = [Environment]::GetEnvironmentVariable($n) }`,
      `  if (Test-Path ${ps(guard)}) {`,
      ...vars.map(([name, how, value]) => (how === 'append' ? `    $env:${name} = ((@($env:${name}, ${ps(value)}) | Where-Object { $_ }) -join ' ')` : `    $env:${name} = ${ps(value)}`)),
      `    $env:${rule.MARKER} = ${ps(marker)}`,
      '  }',
      `  try { & (Get-Command ${host} -CommandType Application | Select-Object -First 1) @args } finally { foreach ($n in $saved.Keys) { [Environment]::SetEnvironmentVariable($n, $saved[$n]) } }`,
      '}',
    ].join('\n');
  }
  const assigns = vars.map(([name, how, value]) => (how === 'append' ? `${name}="\${${name}:+$${name} }"${sh(value)}` : `${name}=${sh(value)}`));
  return [
    `${host}() {`,
    `  if [ -f ${sh(guard)} ]; then`,
    `    ${assigns.join(' ')} ${rule.MARKER}=${sh(marker)} command ${host} "$@"`,
    '  else',
    `    command ${host} "$@"`,
    '  fi',
    '}',
  ].join('\n');
}

/** The block setup writes for `hosts` (each with its plan), and how to undo it (`state`). */
function blockText(shell, hosts, guard, state) {
  const lines = [BEGIN, `# mcp-ordered-dispatch setup --undo takes this block out (${JSON.stringify(state)})`];
  for (const { name, planned } of hosts) lines.push(hostFunction(shell, name, carriersFor(planned), guard));
  lines.push(END);
  return `${lines.join('\n')}\n`;
}

/** `text` split around setup's block: { before, block, after, state } or undefined when it has none. */
function findBlock(text) {
  const start = text.indexOf(`${BEGIN}\n`);
  if (start < 0) return undefined;
  const end = text.indexOf(`${END}\n`, start);
  if (end < 0) return undefined;
  const block = text.slice(start, end + END.length + 1);
  const state = JSON.parse(/\((\{.*\})\)$/m.exec(block)?.[1] ?? '{}');
  return { before: text.slice(0, start), block, after: text.slice(end + END.length + 1), state };
}

/**
 * Write (or rewrite) the block for `hosts` (names on PATH) into `shell`'s
 * startup file. `plan(name)` is lib/run/plan.cjs's plan for the host.
 * Returns { file, hosts }.
 */
function setup({ hosts, shell = defaultShell(), file = rcFileOf(shell), plan, guard }) {
  if (hosts.length === 0) throw new Error('setup needs the hosts to keep the fix on for: mcp-ordered-dispatch setup claude [opencode ...]');
  for (const name of hosts) if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`setup: ${JSON.stringify(name)} is not a command name`);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    text = undefined;
  }
  const existing = text === undefined ? undefined : findBlock(text);
  const base = existing === undefined ? text : existing.before + existing.after;
  const state = existing?.state ?? { created: text === undefined, newline: text === undefined || text === '' || text.endsWith('\n') };
  const planned = hosts.map((name) => ({ name, planned: plan(name) }));
  const head = base === undefined || base === '' ? '' : state.newline || existing !== undefined ? base : `${base}\n`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, head + blockText(shell, planned, guard, state));
  return { file, hosts };
}

/**
 * The variables that start `planned` (a host's plan) with the fix, as
 * NAME=value lines: for a host started outside a shell (an editor
 * extension's environment setting). Option lists hold ours alone: put a
 * value of your own before it.
 */
function envLines(planned) {
  const { vars, marker } = carriersFor(planned);
  return [...vars.map(([name, , value]) => `${name}=${value}`), `${rule.MARKER}=${marker}`].join('\n') + '\n';
}

/** Take setup's block out of `file`: the file as it was before setup (removed when setup created it). Returns whether there was a block. */
function undo({ shell = defaultShell(), file = rcFileOf(shell) } = {}) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const found = findBlock(text);
  if (found === undefined) return false;
  let rest = found.before + found.after;
  if (!found.state.newline && found.after === '' && rest.endsWith('\n')) rest = rest.slice(0, -1);
  if (found.state.created && rest === '') fs.rmSync(file);
  else fs.writeFileSync(file, rest);
  return true;
}

module.exports = { setup, undo, envLines, rcFileOf, defaultShell, SHELLS };
