'use strict';
// What `mcp-ordered-dispatch run` runs, and with what environment: the
// command found as a shell finds it (PATH), looked at without running it
// (lib/discover/compiled.cjs for executables, the `#!` line for scripts),
// and register's entry resolved through this package's own exports, as an
// absolute path (or file: URL), so it works from any working directory and
// from a global install.

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { compiledKindOf } = require('../discover/compiled.cjs');

const PACKAGE = 'mcp-ordered-dispatch';
const WINDOWS = process.platform === 'win32';
/** Deno's subcommands that run a module (and take --preload), and its flags that grant every permission. */
const DENO_RUNNERS = new Set(['run', 'serve', 'test', 'bench']);
const DENO_ALL = new Set(['-A', '--allow-all']);
/** What reaches a Node single executable application: building the fix in (named in the one line run prints). */
const BUILD_IT_IN = 'only building the fix in reaches it: the bundler plugin (mcp-ordered-dispatch/esbuild, /rollup, /vite or /webpack before the SEA is packed; docs/build-it-in.md)';

/** A conditional export's target for an ES module importer on Node: the first of import, node, default that leads to a path. */
function importTarget(target) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  for (const condition of ['import', 'node', 'default']) {
    const found = importTarget(target[condition]);
    if (found !== undefined) return found;
  }
  return undefined;
}

let entries;
/**
 * register's entry, through this package's exports (`mcp-ordered-dispatch/register`
 * as `import` resolves it): { file, url, root (the package's directory) }.
 */
function registerEntry() {
  if (entries !== undefined) return entries;
  const manifestFile = require.resolve(`${PACKAGE}/package.json`);
  const root = path.dirname(manifestFile);
  const target = importTarget(JSON.parse(fs.readFileSync(manifestFile, 'utf8')).exports?.['./register']);
  if (target === undefined) throw new Error(`${manifestFile} exports no ./register entry for import: reinstall ${PACKAGE}`);
  const file = path.resolve(root, target);
  entries = { file, url: pathToFileURL(file).href, root };
  return entries;
}

/** `command` as a shell would find it: a path as given, else the first executable of that name on PATH (with PATHEXT on Windows). */
function resolveCommand(command, env, cwd) {
  if (command.includes('/') || (WINDOWS && command.includes('\\'))) return path.resolve(cwd, command);
  const exts = WINDOWS ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').map((e) => e.toLowerCase())] : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    for (const ext of exts) {
      const file = path.resolve(cwd, dir, command + ext);
      try {
        const stat = fs.statSync(file);
        if (stat.isFile() && (WINDOWS || (stat.mode & 0o111) !== 0)) return file;
      } catch {
        // Not there.
      }
    }
  }
  return undefined;
}

/** A script's `#!` line as [interpreter, ...args] (through `env [-S] [NAME=value...]`), or undefined. */
function shebangOf(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(512);
    const text = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).toString('utf8');
    if (!text.startsWith('#!')) return undefined;
    const words = text.slice(2).split(/\r?\n/)[0].trim().split(/\s+/);
    if (path.basename(words[0]) !== 'env') return words;
    let i = 1;
    while (i < words.length && (words[i].startsWith('-') || words[i].includes('='))) i++;
    return words.slice(i);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Whether execve() of `file` will start it (a failed process.execve() ends
 * the process): executable by us, and a native executable, or a script
 * whose `#!` interpreter is an executable file.
 */
function startsByExec(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    if (compiledKindOf(file, { sea: false }) !== undefined) return true;
    const head = Buffer.alloc(512);
    const fd = fs.openSync(file, 'r');
    let text;
    try {
      text = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
    if (!text.startsWith('#!')) return false;
    const interpreter = text.slice(2).split(/\r?\n/)[0].trim().split(/\s+/)[0];
    fs.accessSync(interpreter, fs.constants.X_OK);
    return fs.statSync(interpreter).isFile();
  } catch {
    return false;
  }
}

/** The runtime a program name names: 'node', 'bun', 'deno', or undefined. */
function runtimeOf(program) {
  const name = path.basename(program).replace(/\.exe$/i, '').toLowerCase();
  if (name === 'node' || name === 'nodejs') return 'node';
  if (name === 'bun' || name === 'bunx') return 'bun';
  if (name === 'deno') return 'deno';
  return undefined;
}

/** `options` (a space-separated option string) with `addition` appended, unless `already` says it holds it. */
function appendOption(options, addition, already) {
  if (options !== undefined && already(options)) return options;
  return options === undefined || options.trim() === '' ? addition : `${options} ${addition}`;
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
 * What to run for `command args` from `cwd` with `env`:
 * { command, commandArgs, childEnv, notice (one line for stderr, or undefined), kind }.
 */
function plan(command, args, { env = process.env, cwd = process.cwd() } = {}) {
  const file = resolveCommand(command, env, cwd);
  const compiled = file === undefined ? undefined : compiledKindOf(file);
  if (compiled?.kind === 'node-sea') {
    return { kind: 'node-sea', command, commandArgs: args, childEnv: env, notice: `${command} is a Node single executable application: nothing reaches the SDK inside it at run time, so it runs unchanged; ${BUILD_IT_IN}.` };
  }
  const register = registerEntry();
  const childEnv = { ...env };
  const hasOurs = (options) => options.includes(register.file) || options.includes(register.url) || options.includes(`${PACKAGE}/register`);
  childEnv.NODE_OPTIONS = appendOption(env.NODE_OPTIONS, `--import=${register.url}`, hasOurs);
  // BUN_OPTIONS splits on spaces and takes no quotes: a path with a space goes through BUN_INSPECT_PRELOAD.
  const spaced = /\s/.test(register.file);
  if (!spaced) childEnv.BUN_OPTIONS = appendOption(env.BUN_OPTIONS, `--preload ${register.file}`, hasOurs);
  let kind = compiled?.kind ?? 'other';
  if ((compiled?.kind === 'bun' && compiled.blocksBunOptions) || spaced) {
    const theirs = env.BUN_INSPECT_PRELOAD;
    if (theirs === undefined || theirs === '') childEnv.BUN_INSPECT_PRELOAD = register.file;
    else if (!hasOurs(theirs)) childEnv.BUN_INSPECT_PRELOAD = chainedPreload(path.resolve(cwd, theirs), register.file);
    if (compiled?.kind === 'bun') kind = 'bun-inspect-preload';
  }
  if (compiled?.kind === 'native' || compiled === undefined) {
    // A runtime by name, or a script by its `#!` line.
    const interpreter = compiled === undefined && file !== undefined ? shebangOf(file) : undefined;
    const runtime = runtimeOf(interpreter?.[0] ?? command);
    if (runtime !== undefined) kind = runtime;
    if (runtime === 'deno') {
      if (interpreter === undefined) {
        const { args: denoArgv, notice } = denoArgs(args, register, cwd);
        return { kind, command, commandArgs: denoArgv, childEnv, notice };
      }
      // `#!/usr/bin/env -S deno run ...`: run as the kernel would, with ours inserted.
      const { args: denoArgv, notice } = denoArgs([...interpreter.slice(1), file, ...args], register, cwd);
      return { kind, command: interpreter[0], commandArgs: denoArgv, childEnv, notice };
    }
  }
  return { kind, command, commandArgs: args, childEnv, notice: undefined };
}

module.exports = { plan, registerEntry, resolveCommand, shebangOf, importTarget, startsByExec };
