'use strict';
// `mcp-ordered-dispatch setup HOST...`: the fix on for good for the hosts a
// user chooses, without typing `run`, and for nothing else on the machine:
// one marked block in the shell's startup file (lib/run/shells.cjs writes a
// function per host; the native launcher's direct start is told in
// crates/launcher/src/main.rs), changed only through
// lib/run/startup-file.cjs. The block's state line records what `--undo`
// needs to give the file back byte for byte (whether setup created it,
// whether it ended with a newline), the hosts, and a digest of the block's
// lines, so that a block changed by hand is refused, never rewritten.
// A host started outside a shell gets the variables instead (envLines()).

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const rule = require('../rule/marker.cjs');
const shells = require('./shells.cjs');
const { editFile } = require('./startup-file.cjs');

const BEGIN = '# >>> mcp-ordered-dispatch setup >>>';
const END = '# <<< mcp-ordered-dispatch setup <<<';
const STATE = /^# mcp-ordered-dispatch setup --undo takes this block out \((\{.*\})\)$/;
// How a block written before the state line named its hosts: the first line of each function.
const OLD_FUNCTION = /^(?:function )?([A-Za-z0-9_][A-Za-z0-9_.+-]*)(?:\(\) \{| --wraps | \{)/;

/** The startup file `shell` (a name) reads, as that shell finds it under `home` on `platform`. */
function startupFile(shell, { home = os.homedir(), env = process.env, platform = process.platform, askProfile } = {}) {
  return shells.shellNamed(shell).startupFile({ home, env, platform, askProfile, exists: (file) => fs.existsSync(file) });
}

/** The shell a user runs, from $SHELL (PowerShell on Windows). */
function defaultShell(env = process.env, platform = process.platform) {
  return shells.defaultShell(env, platform);
}

/** The variables that start `planned` (a host's plan) with the fix: { vars: [[name, value]] (ours alone), marker }. */
function carriersFor(planned) {
  const alone = rule.envWithMarked({}, rule.markerOf(planned.childEnv) ?? {});
  const vars = rule.CARRIERS.filter((name) => alone[name] !== undefined).map((name) => [name, alone[name]]);
  return { vars, marker: alone[rule.MARKER] };
}

/**
 * The words a host function starts its host with, the host's name and
 * arguments after them: the native launcher (`native`, when this platform
 * has one) told which Node and bin make a plan and where plans are kept
 * (`plans`, when there is a usable cache directory), else `run` itself.
 */
function launchWords({ native, node, cli, plans }) {
  if (native === undefined) return [node, cli, 'run', '--'];
  return [native, `--node=${node}`, `--cli=${cli}`, ...(plans === undefined ? [] : [`--plans=${plans}`]), '--'];
}

/** The one line a host function says when this package is gone from where setup found it. */
function goneLine(host) {
  return `mcp-ordered-dispatch: the package setup found is gone, so ${host} starts without the fix; run \`npx mcp-ordered-dispatch setup ${host}\` again, or \`npx mcp-ordered-dispatch setup --undo\``;
}

/** The digest a state line keeps of itself (`state`: created, newline, hosts) and the block's `body` lines. */
const digestOf = ({ created, newline, hosts }, body) => crypto.createHash('sha256').update(JSON.stringify({ created, newline, hosts, body })).digest('hex').slice(0, 16);

/** The block for `hosts` in `shell`'s language, its lines ended by `eol`; `state` is kept in its state line. */
function blockBytes(shell, hosts, { launch, guard }, state, eol) {
  const body = hosts.flatMap((host) => shells.hostFunction(shell, host, { launch, guard, gone: goneLine(host) }).split('\n'));
  const kept = { created: state.created, newline: state.newline, hosts };
  const stateLine = `# mcp-ordered-dispatch setup --undo takes this block out (${JSON.stringify({ ...kept, digest: digestOf(kept, body) })})`;
  return Buffer.from([BEGIN, stateLine, ...body, END, ''].join(eol));
}

/** `bytes` as lines: { text (latin1, a trailing CR dropped), start, next (the offset after its newline), eol }. */
function linesOf(bytes) {
  const lines = [];
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline < 0 ? bytes.length : newline;
    const cr = end > start && bytes[end - 1] === 0x0d;
    lines.push({ text: bytes.latin1Slice(start, cr ? end - 1 : end), start, next: newline < 0 ? end : end + 1, eol: cr ? '\r\n' : '\n' });
    start = newline < 0 ? end : end + 1;
  }
  return lines;
}

function refuse(file, line, what, todo) {
  return new Error(`${file}:${line + 1}: ${what}. Nothing was changed. ${todo}, then run setup again.`);
}

/** What the state line at `at` holds, or an error saying it was changed by hand. */
function stateAt(file, lines, at, end) {
  const match = STATE.exec(lines[at]?.text ?? '');
  let state;
  try {
    state = match === null ? undefined : JSON.parse(match[1]);
  } catch {
    state = undefined;
  }
  const body = lines.slice(at + 1, end).map((line) => Buffer.from(line.text, 'latin1').toString('utf8'));
  const ok = state !== null && typeof state === 'object' && typeof state.created === 'boolean' && typeof state.newline === 'boolean' &&
    (state.hosts === undefined || (Array.isArray(state.hosts) && state.hosts.every((h) => typeof h === 'string' && shells.COMMAND_NAME.test(h)))) &&
    (state.digest === undefined || state.digest === digestOf(state, body));
  if (!ok) throw refuse(file, at, "setup's block was changed by hand (its state line or its functions)", `Put back the block as setup wrote it, or delete its lines from "${BEGIN}" to "${END}" by hand`);
  const hosts = state.hosts ?? body.map((text) => OLD_FUNCTION.exec(text)?.[1]).filter((host) => host !== undefined);
  return { created: state.created, newline: state.newline, hosts };
}

/** Setup's one well-formed block in `bytes` ({ start, next, eol, state }), undefined when there is none; anything else is refused. */
function findBlock(file, bytes) {
  if (bytes === undefined) return undefined;
  const lines = linesOf(bytes);
  const begins = [];
  const ends = [];
  lines.forEach((line, at) => {
    if (line.text === BEGIN) begins.push(at);
    else if (line.text === END) ends.push(at);
  });
  if (begins.length === 0 && ends.length === 0) return undefined;
  const removeBlock = `delete the lines from "${BEGIN}" to "${END}" you do not want`;
  if (begins.length > 1) throw refuse(file, begins[1], `a second setup block starts here (the first at line ${begins[0] + 1})`, `Keep one: ${removeBlock}`);
  if (ends.length > 1) throw refuse(file, ends[1], `a second end line of setup's block (the first at line ${ends[0] + 1})`, `Keep one: ${removeBlock}`);
  if (begins.length === 0) throw refuse(file, ends[0], `setup's end line "${END}" stands here with no "${BEGIN}" before it`, 'Delete that line, or put the begin line back');
  if (ends.length === 0 || ends[0] < begins[0]) {
    throw refuse(file, begins[0], `setup's block starts here with no "${END}" after it`, `Put "${END}" back after the block's last function`);
  }
  const state = stateAt(file, lines, begins[0] + 1, ends[0]);
  return { start: lines[begins[0]].start, next: lines[ends[0]].next, eol: lines[begins[0]].eol, state };
}

/** Why `hosts` cannot each be a function in `shell`, or nothing. */
function checkHosts(shell, hosts) {
  if (hosts.length === 0) throw new Error('setup needs the hosts to keep the fix on for: mcp-ordered-dispatch setup claude [opencode ...]');
  for (const host of hosts) {
    const why = shells.badName(shell, host);
    if (why !== undefined) throw new Error(`setup: ${JSON.stringify(host)} ${why}; give the host's command name (claude, opencode, ...)`);
  }
}

/**
 * Add `hosts` (command names) to the block in `shell`'s startup file
 * (written if there is none): each starts through `launch` (launchWords())
 * while `guard` (register's file) is there. Returns { file, hosts: all the
 * block now holds }.
 */
function setup({ hosts, shell = defaultShell(), file = startupFile(shell), launch, guard }) {
  const language = shells.shellNamed(shell);
  checkHosts(language, hosts);
  let now;
  editFile(file, (bytes) => {
    const found = findBlock(file, bytes);
    now = [...new Set([...(found?.state.hosts ?? []), ...hosts])];
    const ended = bytes === undefined || bytes.length === 0 || bytes.at(-1) === 0x0a;
    const state = found?.state ?? { created: bytes === undefined, newline: ended };
    const block = blockBytes(language, now, { launch, guard }, state, found?.eol ?? '\n');
    if (found !== undefined) return Buffer.concat([bytes.subarray(0, found.start), block, bytes.subarray(found.next)]);
    return Buffer.concat([bytes ?? Buffer.alloc(0), Buffer.from(ended ? '' : '\n'), block]);
  });
  return { file, hosts: now };
}

/** `bytes` without the block `found`: as before setup wrote it (null: remove the file setup created). */
function without(bytes, found) {
  let rest = Buffer.concat([bytes.subarray(0, found.start), bytes.subarray(found.next)]);
  if (!found.state.newline && found.next === bytes.length && rest.at(-1) === 0x0a) rest = rest.subarray(0, -1);
  return found.state.created && rest.length === 0 ? null : rest;
}

/**
 * Take `hosts` out of the block (all of them, and the block, when `hosts` is
 * undefined: `--undo`); a block left with no host goes, the file as it was
 * before setup. Returns { file, found (whether there was a block), hosts: what it now holds }.
 */
function remove({ hosts, shell = defaultShell(), file = startupFile(shell), launch, guard } = {}) {
  const language = shells.shellNamed(shell);
  let result = { file, found: false, hosts: [] };
  editFile(file, (bytes) => {
    const found = findBlock(file, bytes);
    if (found === undefined) return undefined;
    const missing = (hosts ?? []).filter((host) => !found.state.hosts.includes(host));
    if (missing.length > 0) throw new Error(`setup --remove: the block in ${file} holds ${found.state.hosts.join(', ') || 'no host'}, not ${missing.join(', ')}; nothing was changed`);
    const left = hosts === undefined ? [] : found.state.hosts.filter((host) => !hosts.includes(host));
    result = { file, found: true, hosts: left };
    if (left.length === 0) return without(bytes, found);
    const block = blockBytes(language, left, { launch, guard }, found.state, found.eol);
    return Buffer.concat([bytes.subarray(0, found.start), block, bytes.subarray(found.next)]);
  });
  return result;
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

module.exports = { setup, remove, envLines, launchWords, startupFile, defaultShell };
