'use strict';
// `mcp-ordered-dispatch setup HOST...`: the fix on for good for the hosts a
// user chooses, without typing `run`, and for nothing else on the machine.
// It writes one marked block into the shell's startup file: a function per
// host that starts it through the native launcher (crates/launcher), which
// replays the plan `run` recorded for the host's executable while that
// executable is unchanged, with no Node start in front, and hands any other
// start (the first, the first after the host's update) to `run` itself,
// which makes the plan and records it. Where this platform has no native
// launcher the function starts `run` (one Node start more). The function
// falls back to the plain host when this package is gone, and says so in
// one line. `setup --undo` takes the block out, leaving the file byte for
// byte as it was before (the block records whether the file ended with a
// newline, and whether setup created it). A host started outside a shell
// gets the variables instead (envLines(): computed once, from its
// executable as it is now).

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const rule = require('../rule/marker.cjs');

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

/** The variables that start `planned` (a host's plan) with the fix: { vars: [[name, value]] (ours alone), marker }. */
function carriersFor(planned) {
  const alone = rule.envWithMarked({}, rule.markerOf(planned.childEnv) ?? {});
  const vars = rule.CARRIERS.filter((name) => alone[name] !== undefined).map((name) => [name, alone[name]]);
  return { vars, marker: alone[rule.MARKER] };
}

/**
 * The words a host function starts its host with, the host's name and
 * arguments after them: the native launcher (`native`, when this platform
 * has one) told which Node and bin make a plan and where plans are recorded
 * (`records`, when there is a usable cache directory), else `run` itself.
 */
function launchWords({ native, node, cli, records }) {
  if (native === undefined) return [node, cli, 'run', '--'];
  return [native, `--node=${node}`, `--cli=${cli}`, ...(records === undefined ? [] : [`--records=${records}`]), '--'];
}

/** The one line a host function says when this package is gone from where setup found it. */
function goneLine(host) {
  return `mcp-ordered-dispatch: the package setup found is gone, so ${host} starts without the fix; run \`npx mcp-ordered-dispatch setup ${host}\` again, or \`npx mcp-ordered-dispatch setup --undo\``;
}

/**
 * One host's function in `shell`'s language: through `launch`
 * (launchWords()) while it and register's file (`guard`) are there, else
 * the plain host, with one line on stderr.
 */
function hostFunction(shell, host, launch, guard) {
  const [program, ...rest] = launch;
  if (shell === 'fish') {
    return [
      `function ${host} --wraps ${host}`,
      `  if test -x ${sh(program)}; and test -f ${sh(guard)}`,
      `    ${launch.map(sh).join(' ')} ${host} $argv`,
      '  else',
      `    echo ${sh(goneLine(host))} >&2`,
      `    command ${host} $argv`,
      '  end',
      'end',
    ].join('\n');
  }
  if (shell === 'powershell') {
    return [
      `function ${host} {`,
      `  if ((Test-Path -LiteralPath ${ps(program)}) -and (Test-Path -LiteralPath ${ps(guard)})) { & ${ps(program)} ${rest.map(ps).join(' ')} ${ps(host)} @args }`,
      `  else { [Console]::Error.WriteLine(${ps(goneLine(host))}); & (Get-Command ${host} -CommandType Application | Select-Object -First 1) @args }`,
      '}',
    ].join('\n');
  }
  return [
    `${host}() {`,
    `  if [ -x ${sh(program)} ] && [ -f ${sh(guard)} ]; then`,
    `    ${launch.map(sh).join(' ')} ${host} "$@"`,
    '  else',
    `    printf '%s\\n' ${sh(goneLine(host))} >&2`,
    `    command ${host} "$@"`,
    '  fi',
    '}',
  ].join('\n');
}

/** The block setup writes for `hosts`, and how to undo it (`state`). */
function blockText(shell, hosts, launch, guard, state) {
  const lines = [BEGIN, `# mcp-ordered-dispatch setup --undo takes this block out (${JSON.stringify(state)})`];
  for (const name of hosts) lines.push(hostFunction(shell, name, launch, guard));
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
 * Write (or rewrite) the block for `hosts` (command names) into `shell`'s
 * startup file: each starts through `launch` (launchWords()) while `guard`
 * (register's file) is there. Returns { file, hosts }.
 */
function setup({ hosts, shell = defaultShell(), file = rcFileOf(shell), launch, guard }) {
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
  const head = base === undefined || base === '' ? '' : state.newline || existing !== undefined ? base : `${base}\n`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, head + blockText(shell, hosts, launch, guard, state));
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
  return [...vars.map(([name, value]) => `${name}=${value}`), `${rule.MARKER}=${marker}`].join('\n') + '\n';
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

module.exports = { setup, undo, envLines, launchWords, rcFileOf, defaultShell, SHELLS };
