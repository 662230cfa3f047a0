#!/usr/bin/env node
'use strict';
// The command line: one table per subcommand (its options, its operands, what
// it does), one parser that reads every table the same way, and the usage
// text made from the same tables. raw-server, record and replay read their
// own arguments (lib/testing/).

/** Every subcommand's options ({ value: 'PLACEHOLDER' } takes a value, {} is a flag; `internal` is left out of the usage). */
const COMMANDS = {
  run: {
    operands: '[--] COMMAND [ARGS...]',
    // Options stand before the command: from the first other argument on, everything is the command's.
    optionsFirst: true,
    options: {
      report: {},
      // The native launcher's hand-over (crates/launcher): write the plan into FILE (lib/run/plan-file.cjs),
      // and with --plan-only only that, leaving the start to the native launcher.
      'plan-file': { value: 'FILE', internal: true },
      'plan-only': { internal: true },
    },
    text: `Run COMMAND (a host: Claude Code, opencode, a Node or Bun script,
deno run) with the fix applied, and the MCP servers it starts; the
commands it runs for you get your own environment. Its exit code,
signals, stdin, stdout, stderr and TTY pass through. What reaches
what: docs/run.md.
With --report (before the command), the host's processes write what
the fix did to a file (one line on stderr says which), never to the
host's output: \`mcp-ordered-dispatch report\` shows it.`,
  },
  report: {
    operands: '[FILE]',
    options: { json: {} },
    text: `Show the report of the last \`run --report\` (or FILE): each process's
SDK copies patched, the progress notifications delivered that stock
drops (those in the same read as their request's response), the
warnings. docs/report.md.`,
  },
  setup: {
    operands: 'HOST...',
    options: { shell: { value: 'bash|zsh|fish|powershell' }, rc: { value: 'FILE' }, remove: {}, undo: {}, 'print-env': {} },
    text: `Keep the fix on for HOST (claude, opencode, ...) without typing run:
one block in the shell's startup file starts each HOST as run would,
and changes nothing for any other program. A second setup adds its
HOSTs to the block; \`setup --remove HOST...\` takes hosts out, and
\`setup --undo\` the whole block, leaving the file as it was.
\`setup --print-env HOST\` prints the variables, for a host started
outside a shell. docs/run.md#on-for-good.`,
  },
  doctor: {
    operands: '[EXECUTABLE...]',
    options: { cwd: { value: 'DIR' }, json: {}, pairs: { value: 'N' } },
    text: `List the MCP SDK copies the project in DIR (default: the working
directory) resolves, say which mcp-ordered-dispatch can patch, and run
the lost-progress reproduction against each, stock and patched.
Given EXECUTABLEs (a compiled host: claude, opencode, a path), read
each one's embedded modules instead, without running it: which hold
SDK classes, and whether \`run\` reaches them.
Exit code 0 when every copy found is fixed by the patch, 1 otherwise.`,
  },
  'raw-server': {
    operands: '[--mode=M] [--progress=N] [--gap=ping|immediate|MS]',
    text: `Serve the raw (SDK-free) MCP test server on stdin/stdout. Modes:
separate, last-with-response, all-in-one, terminal-after-result, never-issued.`,
  },
  record: {
    operands: '--out FILE [--] COMMAND [ARGS...]',
    text: `Start the stdio MCP server COMMAND and pass every byte through, both
ways, unchanged, writing each chunk to the cassette FILE (ndjson).
Put it in place of the server command in the host's configuration.
Exits with the server's exit code; stderr and signals go through.`,
  },
  replay: {
    operands: 'CASSETTE [--coalesce=MODE] [--gap=ping|immediate|MS] [--timing[=SCALE]]',
    text: `Serve the recorded answers of CASSETTE on stdin/stdout to a live client.
Modes: recorded, separate, all-in-one, last-with-response, random:SEED.`,
  },
};

const HELP = { help: {} };

/** The usage text, from COMMANDS. */
function usage() {
  const lines = ['Usage:'];
  for (const [name, command] of Object.entries(COMMANDS)) {
    const options = Object.entries(command.options ?? {}).filter(([, option]) => !option.internal);
    const shown = options.map(([option, { value }]) => (value === undefined ? `[--${option}]` : `[--${option}=${value}]`));
    lines.push(`  ${['mcp-ordered-dispatch', name, ...shown, command.operands].join(' ')}`);
    for (const line of command.text.split('\n')) lines.push(`      ${line}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `argv` read by `name`'s table: { options, positional }. `--name value`,
 * `--name=value`, `-h`; `--` ends the options; for a command whose options
 * stand first, so does its first other argument.
 */
function parseCommandLine(name, argv) {
  const command = COMMANDS[name];
  const known = { ...command.options, ...HELP };
  const options = {};
  const positional = [];
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at];
    if (arg === '--') {
      positional.push(...argv.slice(at + 1));
      break;
    }
    const match = arg === '-h' ? [arg, 'help', undefined] : /^--([^=]+)(?:=([\s\S]*))?$/.exec(arg);
    if (match === null && command.optionsFirst) {
      positional.push(...argv.slice(at));
      break;
    }
    if (match === null && arg.startsWith('-') && arg !== '-') throw new Error(`${name}: unknown option ${arg}`);
    if (match === null) {
      positional.push(arg);
      continue;
    }
    const [, key, inline] = match;
    const option = known[key];
    if (option === undefined) throw new Error(`${name}: unknown option --${key}${command.optionsFirst ? ` (to give it to the command, put -- before the command: ${name} -- COMMAND --${key})` : ''}`);
    if (option.value === undefined) {
      if (inline !== undefined) throw new Error(`${name}: --${key} takes no value`);
      options[key] = true;
      continue;
    }
    const value = inline ?? argv[++at];
    if (value === undefined) throw new Error(`${name}: --${key} needs a value (${option.value})`);
    options[key] = value;
  }
  return { options, positional };
}

async function doctorCommand({ options, positional: executables }) {
  const pairs = options.pairs === undefined ? 2 : Number(options.pairs);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`--pairs must be a positive integer, got ${options.pairs}`);
  const cwd = options.cwd ?? process.cwd();
  const { doctor, report } = require('../lib/doctor/index.cjs');
  const result = await doctor({ cwd, pairs, executables });
  if (options.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else process.stdout.write(report(result, { cwd }));
  return result.exitCode;
}

function reportCommand({ options, positional }) {
  if (positional.length > 1) throw new Error('report takes one FILE');
  return require('../lib/report/index.cjs').show({ file: positional[0], json: options.json === true });
}

/** Takes the variable `name` out of this process's environment (no host ever gets it); returns its value. */
function takeVariable(name) {
  const value = process.env[name];
  delete process.env[name];
  return value;
}

/** The one line on stderr, before the host starts, that says where this run's report goes (to the descriptor: nothing about fd 2 changes before the host gets it). */
function sayReportFile(file) {
  require('node:fs').writeSync(2, `mcp-ordered-dispatch run: the report of this run goes to ${file}; \`mcp-ordered-dispatch report\` shows it once the host exits.\n`);
}

/**
 * `run [--report] [--] COMMAND...`. The native launcher asks for a plan
 * file with `--plan-file=FILE --plan-only` and what it saw of the start in
 * PLAN_SEEN (taken out here, so no host ever gets it): lib/run/plan-file.cjs.
 */
async function runCommand({ options, positional }) {
  // Loads only lib/run/ (and lib/discover/compiled.cjs; with --report, lib/report/): run is on the host's start path.
  const seen = takeVariable(require('../lib/run/plan-file.cjs').PLAN_SEEN);
  const planFile = options['plan-file'] === undefined ? undefined : { file: options['plan-file'], seen, only: options['plan-only'] === true };
  let env = process.env;
  if (options.report) {
    const report = require('../lib/report/index.cjs');
    const file = report.newReportFile();
    sayReportFile(file);
    env = report.envWithReport(env, file);
  }
  const { run, exitLike } = require('../lib/run/index.cjs');
  exitLike(await run(['--', ...positional], { env, planFile }));
  return undefined;
}

function setupCommand({ options, positional: hosts }) {
  const setup = require('../lib/run/setup.cjs');
  const shell = options.shell ?? setup.defaultShell();
  const file = options.rc ?? setup.startupFile(shell);
  if (options['print-env']) {
    if (hosts.length !== 1) throw new Error('setup --print-env takes one host');
    const { plan } = require('../lib/run/plan.cjs');
    process.stdout.write(setup.envLines(plan(hosts[0], [])));
    return 0;
  }
  if (options.undo) {
    if (hosts.length > 0) throw new Error('setup --undo takes the whole block out and no HOST; to take out some hosts: setup --remove HOST...');
    const { found } = setup.remove({ shell, file });
    process.stdout.write(found ? `mcp-ordered-dispatch: setup's block taken out of ${file}; open a new shell.\n` : `mcp-ordered-dispatch: ${file} has no setup block; nothing changed.\n`);
    return 0;
  }
  const native = require('../lib/native/launcher.cjs').nativeLauncher();
  const launch = setup.launchWords({ native, node: process.execPath, cli: __filename, plans: require('../lib/shape/cache.cjs').usableCacheDir() });
  const guard = require('../lib/run/plan.cjs').registerEntry().file;
  if (options.remove) {
    if (hosts.length === 0) throw new Error('setup --remove needs the hosts to take out: mcp-ordered-dispatch setup --remove claude');
    const { found, hosts: left } = setup.remove({ hosts, shell, file, launch, guard });
    if (!found) process.stdout.write(`mcp-ordered-dispatch: ${file} has no setup block; nothing changed.\n`);
    else if (left.length === 0) process.stdout.write(`mcp-ordered-dispatch: no host left, so setup's block is taken out of ${file}; open a new shell.\n`);
    else process.stdout.write(`mcp-ordered-dispatch: the block in ${file} now holds ${left.join(', ')}; open a new shell.\n`);
    return 0;
  }
  const { hosts: now } = setup.setup({ hosts, shell, file, launch, guard });
  if (native === undefined) process.stderr.write('mcp-ordered-dispatch setup: this platform has no native launcher, so each start of a host goes through `mcp-ordered-dispatch run` (one Node start more).\n');
  process.stdout.write(`mcp-ordered-dispatch: the block in ${file} now holds ${now.join(', ')}: each starts with the fix in every new ${shell}; ` +
    'nothing else changes. Take hosts out: setup --remove HOST; all: setup --undo. A host started outside a shell (an editor extension): docs/run.md#on-for-good.\n');
  return 0;
}

const HANDLERS = { run: runCommand, report: reportCommand, doctor: doctorCommand, setup: setupCommand };
const TESTING = { 'raw-server': '../lib/testing/raw-server.cjs', record: '../lib/testing/cassette-recorder.cjs', replay: '../lib/testing/cassette-player.cjs' };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(usage());
    return command === undefined ? 2 : 0;
  }
  if (Object.hasOwn(TESTING, command)) {
    await require(TESTING[command]).main(rest);
    return undefined;
  }
  if (!Object.hasOwn(HANDLERS, command)) {
    process.stderr.write(`mcp-ordered-dispatch: unknown command ${JSON.stringify(command)}\n\n${usage()}`);
    return 2;
  }
  const parsed = parseCommandLine(command, rest);
  if (parsed.options.help) {
    process.stdout.write(usage());
    return 0;
  }
  return HANDLERS[command](parsed);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`mcp-ordered-dispatch: ${error?.message ?? error}\n`);
    process.exitCode = 2;
  },
);
