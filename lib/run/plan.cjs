'use strict';
// What `mcp-ordered-dispatch run` runs, and with what environment: the
// command found as a shell finds it (PATH; an npm shim on Windows read
// through to its target, lib/discover/shims.cjs), looked at without running it
// (lib/discover/compiled.cjs for executables, the `#!` line for scripts),
// the rule of lib/rule/ways-in.cjs applied to what was found, and register's
// entries resolved through this package's own exports, as absolute paths,
// so it works from any working directory and from a global install.

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { compiledKindOf } = require('../discover/compiled.cjs');
const { PACKAGE_NAME: PACKAGE } = require('../shape/globals.cjs');
const { FIX } = require('../warnings/warnings.cjs');
const marker = require('../rule/marker.cjs');
const waysIn = require('../rule/ways-in.cjs');
const { commandFound } = require('../discover/shims.cjs');
const { canStart, shebangWordsOf } = require('../native/can-start.cjs');

/** Deno's subcommands that run a module (and take --preload), and its flags that grant every permission. */
const DENO_RUNNERS = new Set(['run', 'serve', 'test', 'bench']);
const DENO_ALL = new Set(['-A', '--allow-all']);
/** A conditional export's target on Node for `first` ('import' or 'require'): the first of it, node, default that leads to a path. */
function exportTarget(target, first = 'import') {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  for (const condition of [first, 'node', 'default']) {
    const found = exportTarget(target[condition], first);
    if (found !== undefined) return found;
  }
  return undefined;
}

let entries;
/**
 * register's entries, through this package's exports (`mcp-ordered-dispatch/register`
 * as `import` and `require` resolve it): { file (the ES module, Bun's and
 * Deno's preload), url, cjs (Node's `--require`), root (the package's directory) }.
 */
function registerEntry() {
  if (entries !== undefined) return entries;
  const manifestFile = require.resolve(`${PACKAGE}/package.json`);
  const root = path.dirname(manifestFile);
  const exported = JSON.parse(fs.readFileSync(manifestFile, 'utf8')).exports?.['./register'];
  const esm = exportTarget(exported, 'import');
  const cjs = exportTarget(exported, 'require');
  if (esm === undefined || cjs === undefined) throw new Error(`${manifestFile} exports no ./register entry for import and require: reinstall ${PACKAGE}`);
  const file = path.resolve(root, esm);
  entries = { file, url: pathToFileURL(file).href, cjs: path.resolve(root, cjs), root };
  return entries;
}

/** Whether `file` is a Windows batch file (one that is not npm's shim, which plan() reads through), which only cmd.exe runs. */
function isBatchFile(file, platform = process.platform) {
  return platform === 'win32' && file !== undefined && /\.(cmd|bat)$/i.test(file);
}

/** A script's `#!` line as [interpreter, ...args], read through `env [-S] [NAME=value...]`, or undefined. */
function shebangOf(file) {
  const words = shebangWordsOf(file);
  if (words === undefined || path.basename(words[0]) !== 'env') return words;
  let i = 1;
  while (i < words.length && (words[i].startsWith('-') || words[i].includes('='))) i++;
  return words.slice(i);
}

/** The runtime a program name names: 'node', 'bun', 'deno', or undefined. */
function runtimeNamed(program) {
  const name = path.basename(program).replace(/\.exe$/i, '').toLowerCase();
  if (name === 'node' || name === 'nodejs') return 'node';
  if (name === 'bun' || name === 'bunx') return 'bun';
  if (name === 'deno') return 'deno';
  return undefined;
}

/**
 * A preload that loads the user's `theirs` and then register (BUN_INSPECT_PRELOAD
 * takes one file), written once by content into this user's own cache
 * directory (lib/shape/cache.cjs's: never a file another user could have put
 * in the shared temp directory), else into a new private temporary directory.
 */
function chainedPreload(theirs, ours) {
  const source = `import ${JSON.stringify(theirs)};\nimport ${JSON.stringify(ours)};\n`;
  const hash = require('node:crypto').createHash('sha256').update(source).digest('hex').slice(0, 16);
  const { usableCacheDir, replaceFile } = require('../shape/cache.cjs');
  const dir = usableCacheDir() ?? fs.mkdtempSync(path.join(require('node:os').tmpdir(), `${PACKAGE}-run-`));
  const file = path.join(dir, `run-preload-${hash}.mjs`);
  let current;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== source) replaceFile(file, source);
  return file;
}

/** `deno ...args` with --preload and the permissions register needs inserted; `notice` when Deno's subcommand runs no module of its own. */
function denoArgs(args, register, cwd) {
  if (args.includes(register.file)) return { args }; // preloaded already (`run` inside `run`)
  let at = 0;
  let prefix = [];
  if (DENO_RUNNERS.has(args[0])) at = 1;
  else if (args[0] !== undefined && !args[0].startsWith('-') && /\.[cm]?[jt]sx?$/.test(args[0])) prefix = ['run']; // `deno main.ts` is `deno run main.ts`
  else return { args, notice: `deno ${args[0] ?? ''} runs unchanged: run the \`deno run\` it starts under \`${PACKAGE} run\`, or pass \`--preload ${register.file}\` to it` };
  const granted = args.some((a) => DENO_ALL.has(a));
  // What register needs, and no more: reading its own files, the addon's package beside it and the
  // application's (the working directory: its SDK's package.json), opening the addon, its own settings.
  // Placed before the user's flags: an unscoped --allow-read of theirs still grants everything.
  const modules = path.basename(path.dirname(register.root)) === 'node_modules' ? [path.dirname(register.root)] : [];
  const permissions = granted ? [] : [
    `--allow-read=${[register.root, ...modules, cwd].join(',')}`,
    `--allow-ffi=${[register.root, ...modules].join(',')}`,
    '--allow-env=MCP_ORDERED_DISPATCH_*',
  ];
  return { args: [...prefix, ...args.slice(0, at), '--preload', register.file, ...permissions, ...args.slice(at)] };
}


/**
 * What to run for `command args` from `cwd` with `env`: { command,
 * commandArgs, childEnv, file (resolved: nothing resolves it again;
 * undefined when not found), compiled (its kind, when a compiled
 * executable), notice (one line for stderr, or undefined), cwdUsed
 * (whether the plan depends on the working directory beyond finding the file) }.
 */
function plan(command, args, { env = process.env, cwd = process.cwd() } = {}) {
  const found = commandFound(command, env, cwd);
  const { file } = found;
  const compiled = file === undefined ? undefined : compiledKindOf(file);
  // A runtime by name, or a script by its `#!` line (a native executable's name may still be a runtime's: `node`).
  const interpreter = compiled === undefined && file !== undefined ? shebangOf(file) : undefined;
  const runtime = compiled === undefined || compiled.kind === 'native' ? runtimeNamed(interpreter?.[0] ?? found.command) : undefined;
  const register = registerEntry();
  const way = waysIn.wayIn({ compiled, runtime, spacedPath: /\s/.test(register.file) });
  const base = { file, compiled, command: found.command, commandArgs: [...found.args, ...args] };
  if (way.bailOut === 'NODE_SEA') {
    // Copilot CLI's MCP client is not this SDK: no advice about building it in.
    const notice = require('../discover/executables.cjs').holdsProtocol(file) === false
      ? `${command} is a Node single executable application with no MCP TypeScript SDK inside it, so the fix has nothing to change there; it runs unchanged.`
      : `${command} is a Node single executable application: nothing reaches the SDK inside it at run time, so it runs unchanged; ${FIX.BUILD_IT_IN}.`;
    return { ...base, childEnv: env, notice };
  }
  if (way.bailOut === 'NO_WAY_IN') {
    // One line, and the host as it is: no carrier set, for it or for what it starts.
    return { ...base, childEnv: env, notice: `${file} is a Bun-compiled executable ${waysIn.bunWayInWords(compiled).words}, so nothing reaches the SDK inside it at run time and it runs unchanged; ${FIX.BUILD_IT_IN}, or ask its developers to build it with ${waysIn.BUN_NEWER}.` };
  }
  // register's two entries, in the shape the marker's functions take.
  const ours = { cjs: register.cjs, mjs: register.file };
  const values = marker.carrierValues(ours);
  const theirs = env.BUN_INSPECT_PRELOAD;
  const chained = way.carriers.includes('BUN_INSPECT_PRELOAD') && theirs !== undefined && theirs !== '' && !marker.holdsRegister(theirs, ours)
    ? chainedPreload(path.resolve(cwd, theirs), register.file)
    : undefined;
  const childEnv = marker.envWithFix(env, way.carriers, values, { entries: ours, inspectPreload: chained });
  if (way.denoPreload) {
    // `deno ...`, or `#!/usr/bin/env -S deno run ...` run as the kernel would, with ours inserted.
    const denoArgv = interpreter === undefined ? base.commandArgs : [...interpreter.slice(1), file, ...args];
    const { args: withPreload, notice } = denoArgs(denoArgv, register, cwd);
    return { ...base, command: interpreter === undefined ? found.command : interpreter[0], file: interpreter === undefined ? file : undefined, commandArgs: withPreload, childEnv, notice, cwdUsed: true };
  }
  return { ...base, childEnv, notice: undefined, cwdUsed: chained !== undefined };
}

module.exports = { plan, registerEntry, isBatchFile };
