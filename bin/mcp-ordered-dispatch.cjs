#!/usr/bin/env node
'use strict';
// npx mcp-ordered-dispatch run [--report] -- COMMAND [ARGS...]
// npx mcp-ordered-dispatch report [FILE] [--json]
// npx mcp-ordered-dispatch setup [--shell=SHELL] [--rc=FILE] HOST... | setup --undo
// npx mcp-ordered-dispatch doctor [--cwd=DIR] [--json] [--pairs=N] [EXECUTABLE...]
// npx mcp-ordered-dispatch raw-server [--mode=M] [--progress=N] [--gap=G]
// npx mcp-ordered-dispatch record --out FILE -- COMMAND [ARGS...]
// npx mcp-ordered-dispatch replay CASSETTE [--coalesce=MODE] [--gap=G] [--timing[=SCALE]]

const USAGE = `Usage:
  mcp-ordered-dispatch run [--] COMMAND [ARGS...]
      Run COMMAND (a host: Claude Code, opencode, a Node or Bun script,
      deno run) with the fix applied, and the MCP servers it starts; the
      commands it runs for you get your own environment. Its exit code,
      signals, stdin, stdout, stderr and TTY pass through. What reaches
      what: docs/run.md.
      With --report (before the command), the host's processes write what
      the fix did to a file (one line on stderr says which), never to the
      host's output: \`mcp-ordered-dispatch report\` shows it.
  mcp-ordered-dispatch report [FILE] [--json]
      Show the report of the last \`run --report\` (or FILE): each process's
      SDK copies patched, the progress notifications delivered that stock
      drops (those in the same read as their request's response), the
      warnings. docs/report.md.
  mcp-ordered-dispatch setup [--shell=bash|zsh|fish|powershell] [--rc=FILE] HOST...
      Keep the fix on for HOST (claude, opencode, ...) without typing run:
      one block in the shell's startup file starts each HOST as run would,
      and changes nothing for any other program. \`setup --undo\` takes the
      block out, leaving the file as it was. \`setup --print-env HOST\`
      prints the variables, for a host started outside a shell.
  mcp-ordered-dispatch doctor [--cwd=DIR] [--json] [--pairs=N] [EXECUTABLE...]
      List the MCP SDK copies the project in DIR (default: the working
      directory) resolves, say which mcp-ordered-dispatch can patch, and run
      the lost-progress reproduction against each, stock and patched.
      Given EXECUTABLEs (a compiled host: claude, opencode, a path), read
      each one's embedded modules instead, without running it: which hold
      SDK classes, and whether \`run\` reaches them.
      Exit code 0 when every copy found is fixed by the patch, 1 otherwise.
  mcp-ordered-dispatch raw-server [--mode=M] [--progress=N] [--gap=ping|immediate|MS]
      Serve the raw (SDK-free) MCP test server on stdin/stdout. Modes:
      separate, last-with-response, all-in-one, terminal-after-result, never-issued.
  mcp-ordered-dispatch record --out FILE [--] COMMAND [ARGS...]
      Start the stdio MCP server COMMAND and pass every byte through, both
      ways, unchanged, writing each chunk to the cassette FILE (ndjson).
      Put it in place of the server command in the host's configuration.
      Exits with the server's exit code; stderr and signals go through.
  mcp-ordered-dispatch replay CASSETTE [--coalesce=MODE] [--gap=ping|immediate|MS] [--timing[=SCALE]]
      Serve the recorded answers of CASSETTE on stdin/stdout to a live client.
      Modes: recorded, separate, all-in-one, last-with-response, random:SEED.
`;

const DOCTOR_OPTIONS = { cwd: 'value', pairs: 'value', json: 'flag', help: 'flag' };

/** `argv`'s options by `known` ({ name: 'value' | 'flag' }); with `positional`, { options, positional: the other arguments }. */
function parseOptions(argv, known, { positional } = {}) {
  const options = {};
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const match = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (!match && positional) {
      rest.push(arg);
      continue;
    }
    if (!match) throw new Error(`unexpected argument: ${arg}`);
    const [, key, inline] = match;
    if (!known[key]) throw new Error(`unknown option --${key}`);
    if (known[key] === 'flag') {
      if (inline !== undefined) throw new Error(`--${key} takes no value`);
      options[key] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${key} needs a value`);
    options[key] = value;
  }
  return positional ? { options, positional: rest } : options;
}

async function doctorCommand(argv) {
  const { options, positional: executables } = parseOptions(argv, DOCTOR_OPTIONS, { positional: true });
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const pairs = options.pairs === undefined ? 2 : Number(options.pairs);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`--pairs must be a positive integer, got ${options.pairs}`);
  const cwd = options.cwd ?? process.cwd();
  const { doctor, report } = require('../lib/doctor/index.cjs');
  const result = await doctor({ cwd, pairs, executables });
  if (options.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else process.stdout.write(report(result, { cwd }));
  return result.exitCode;
}

const REPORT_OPTIONS = { json: 'flag', help: 'flag' };

function reportCommand(argv) {
  const { options, positional } = parseOptions(argv, REPORT_OPTIONS, { positional: true });
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positional.length > 1) throw new Error('report takes one FILE');
  const report = require('../lib/report/index.cjs');
  const file = positional[0] ?? report.latestReport();
  if (file === undefined) {
    process.stderr.write('mcp-ordered-dispatch report: no report yet; run a host with `mcp-ordered-dispatch run --report -- HOST`, then exit it.\n');
    return 1;
  }
  const records = report.readReport(file);
  process.stdout.write(options.json ? `${JSON.stringify({ file, records }, null, 2)}\n` : report.summary(file, records));
  return 0;
}

/**
 * `run [--report] [--] COMMAND...`: with --report, the host's environment
 * names the report's file, and one line on stderr says where. The native
 * launcher (crates/launcher) asks for a plan file with `--plan-record=FILE
 * --plan-only`, and what it saw of the start in the environment (taken out
 * here, so no host ever gets it): lib/run/plan-file.cjs.
 */
function runArguments(argv) {
  const { PLAN_SEEN } = require('../lib/run/plan-file.cjs');
  const seen = process.env[PLAN_SEEN];
  delete process.env[PLAN_SEEN];
  let env = process.env;
  let record;
  let at = 0;
  for (; at < argv.length; at++) {
    const arg = argv[at];
    if (arg.startsWith('--plan-record=')) record = { ...record, file: arg.slice('--plan-record='.length), seen };
    else if (arg === '--plan-only') record = { ...record, only: true };
    else if (arg === '--report') {
      const report = require('../lib/report/index.cjs');
      const file = report.newReportFile();
      require('node:fs').writeSync(2, `mcp-ordered-dispatch run: the report of this run goes to ${file}; \`mcp-ordered-dispatch report\` shows it once the host exits.\n`);
      env = report.envWithReport(process.env, file);
    } else break;
  }
  return { argv: argv.slice(at), env, record };
}

const SETUP_OPTIONS = { shell: 'value', rc: 'value', undo: 'flag', 'print-env': 'flag', help: 'flag' };

function setupCommand(argv) {
  const hosts = argv.filter((a) => !a.startsWith('--'));
  const flags = argv.filter((a) => a.startsWith('--'));
  const options = parseOptions(flags, SETUP_OPTIONS);
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const setup = require('../lib/run/setup.cjs');
  const shell = options.shell ?? setup.defaultShell();
  const file = options.rc ?? setup.rcFileOf(shell);
  if (options.undo) {
    const removed = setup.undo({ shell, file });
    process.stdout.write(removed ? `mcp-ordered-dispatch: setup's block taken out of ${file}; open a new shell.\n` : `mcp-ordered-dispatch: ${file} has no setup block; nothing changed.\n`);
    return 0;
  }
  const { plan, registerEntry } = require('../lib/run/plan.cjs');
  if (options['print-env']) {
    if (hosts.length !== 1) throw new Error('setup --print-env takes one host');
    process.stdout.write(setup.envLines(plan(hosts[0], [])));
    return 0;
  }
  const native = require('../lib/native/launcher.cjs').nativeLauncher();
  const launch = setup.launchWords({ native, node: process.execPath, cli: __filename, records: require('../lib/shape/cache.cjs').usableCacheDir() });
  const { hosts: done } = setup.setup({ hosts, shell, file, launch, guard: registerEntry().file });
  if (native === undefined) process.stderr.write('mcp-ordered-dispatch setup: this platform has no native launcher, so each start of a host goes through `mcp-ordered-dispatch run` (one Node start more).\n');
  process.stdout.write(`mcp-ordered-dispatch: ${done.join(', ')}: each starts with the fix in every new ${shell} (a function in ${file}); ` +
    'nothing else changes. Undo: mcp-ordered-dispatch setup --undo. A host started outside a shell (an editor extension): docs/run.md#on-for-good.\n');
  return 0;
}

async function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run': {
      if (rest[0] === '--help' || rest[0] === '-h') {
        process.stdout.write(USAGE);
        return 0;
      }
      // Loads only lib/run/ (and lib/discover/compiled.cjs; with --report, lib/report/): the launcher is on the host's start path.
      const { argv: command, env, record } = runArguments(rest);
      const { run, exitLike } = require('../lib/run/index.cjs');
      exitLike(await run(command, { env, record }));
      return undefined;
    }
    case 'report':
      return reportCommand(rest);
    case 'doctor':
      return doctorCommand(rest);
    case 'setup':
      return setupCommand(rest);
    case 'raw-server':
      await require('../lib/testing/raw-server.cjs').main(rest);
      return undefined;
    case 'record':
      await require('../lib/testing/record.cjs').main(rest);
      return undefined;
    case 'replay':
      await require('../lib/testing/replay.cjs').main(rest);
      return undefined;
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`mcp-ordered-dispatch: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
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
