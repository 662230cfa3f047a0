// Installs `mcp-ordered-dispatch/register`'s load-time hooks: a wrapper
// around Module._load (CommonJS and require(esm)) and an ES module load hook,
// module.registerHooks()'s wherever Node has it (22.15+, 23.5+: synchronous,
// in-thread, no loader thread) and module.register()'s only where it does
// not (20.19-22.14), so Node 26 never sees the deprecated module.register().
// What the hooks do is lib/register/hooks.cjs's, loaded when they first have work.
//
// An ES module that imports nothing, so that installing costs a process next
// to nothing: register.mjs (`--import`) loads no CommonJS file at all, and a
// process that never requires or imports anything after it loads nothing
// more (bench/startup.mjs measures it). Node's built-ins are taken with
// process.getBuiltinModule() (lib/register/gate.cjs names the lines that
// have it), not imported: an `import` of a built-in builds an ES module
// facade for it, which measurably costs every process `register` starts in. register.cjs (`--require`) and
// lib/register/sandboxed.cjs load it with require(esm). On a Node line
// without getBuiltinModule() it installs nothing: lib/register/gate.cjs says
// so in one line, and the process runs stock.
const Module = process.getBuiltinModule?.('node:module');

/** The global a Vitest worker that runs tests sets (lib/register/sandboxed.cjs, which writes it again, reads its pool from it). */
export const VITEST_WORKER = '__vitest_worker__';

/** Whether a loader of the user's (--loader, --experimental-loader) starts Node's loader thread anyway, register or not. */
function userLoaderThread() {
  return /(?:^|\s)--(?:experimental-)?loader(?:[=\s]|$)/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
}

// lib/register/hooks.cjs, on first use. Its own loading (and what it requires at its
// top) passes through the Module._load wrapper unlooked at.
let hooks;
let loadingHooks = false;
function loadHooks() {
  if (hooks === undefined) {
    loadingHooks = true;
    try {
      hooks = Module.createRequire(import.meta.url)('./hooks.cjs');
    } finally {
      loadingHooks = false;
    }
  }
  return hooks;
}

let installed = false;

/**
 * The formats of the modules the load hook looks at: an ES module, a
 * CommonJS module, and one whose format Node decides later by its syntax
 * (require() of a `.js` file whose package.json names no `type`, or of an
 * extensionless main script: `format` undefined); lib/register/hooks.cjs's
 * loaded() changes such a source so that it runs either way.
 */
const JAVASCRIPT_FORMATS = new Set(['module', 'commonjs', undefined, null]);

/**
 * Under Deno, whether this package's own files may be read: Deno checks read
 * access on every require(), so without it nothing of register could load
 * and the process would die of the first one. Without it: one warning, and
 * every SDK copy stays stock.
 */
function denoMayReadOwnFiles() {
  const own = process.getBuiltinModule('node:url').fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\/]$/, '');
  let state;
  try {
    state = globalThis.Deno?.permissions?.querySync?.({ name: 'read', path: own })?.state;
  } catch {
    return true;
  }
  if (state === undefined || state === 'granted') return true;
  // The warnings room, loaded by import(): Deno lets a module graph load without read access, not require().
  import('../warnings/warnings.cjs').then(({ default: warnings }) => warnings.warn('NO_READ',
    `mcp-ordered-dispatch/register cannot read its own files (${own}) in Deno: read access is not granted (${state}), ` +
      `so it patches nothing and every MCP SDK copy stays stock. ${warnings.FIX.DENO_PERMISSIONS}`));
  return false;
}

/** Install the hooks (once per process; later calls do nothing). */
export function installHooks() {
  if (installed) return;
  installed = true;
  if (Module === undefined) {
    // Too old a Node for register: the gate, loaded by import() (nothing here can require() yet), says so.
    import('./gate.cjs').then((gate) => gate.mayRun(), () => {});
    return;
  }
  // Bun has neither registerHooks() nor a working module.register(), and
  // calls no Module._load: lib/register/bun.cjs goes in the ways Bun offers.
  if (process.versions.bun !== undefined) {
    Module.createRequire(import.meta.url)('./bun.cjs').installBunHooks();
    return;
  }
  if (process.versions.deno !== undefined && !denoMayReadOwnFiles()) return;
  const originalLoad = Module._load;
  Module._load = function _load(request, parent, isMain) {
    const exports = originalLoad.apply(this, arguments);
    if (exports === null || typeof exports !== 'object' || loadingHooks) return exports;
    return loadHooks().afterRequire(exports, request, parent, isMain);
  };
  // SDK copies required before this: the require cache holds more than this
  // package's own entry (register.cjs under `--require`).
  let own;
  for (const file in Module._cache) {
    own ??= process.getBuiltinModule('node:url').fileURLToPath(new URL('../..', import.meta.url));
    if (file.startsWith(own) && !file.includes('node_modules', own.length)) continue;
    loadHooks().patchRequired();
    break;
  }
  if (typeof Module.registerHooks === 'function') {
    // Deno's nextLoad() gives no format: lib/register/deno.cjs makes up for it.
    const load = process.versions.deno !== undefined
      ? Module.createRequire(import.meta.url)('./deno.cjs').denoLoadHook((url, result) => loadHooks().loaded(url, result), () => loadingHooks)
      : function load(url, context, nextLoad) {
        const result = nextLoad(url, context);
        // The hooks' own files (required while lib/register/hooks.cjs loads) pass unlooked at.
        if (result.source == null || loadingHooks || !JAVASCRIPT_FORMATS.has(result.format)) return result;
        return loadHooks().loaded(url, result);
      };
    // Every ES module and CommonJS module with a source: SDK modules under
    // node_modules, and SDK copies bundled into any module (lib/shape/rewrite.cjs).
    Module.registerHooks({ load });
  } else if (typeof Module.register === 'function') {
    // module.register() starts Node's loader thread, where Node runs every
    // --require preload again, the user's too: a start without register
    // runs them there only for a loader of the user's. Unless there is one,
    // the thread is marked as register's own, for gate.cjs to read there.
    // It runs there as part of register.cjs, a --require preload, which has
    // loaded it here already: where it has not, nothing reads the mark.
    const require = Module.createRequire(import.meta.url);
    const gate = process.versions.deno === undefined && !userLoaderThread() ? require.cache[require.resolve('./gate.cjs')]?.exports : undefined;
    if (gate === undefined) loadHooks().registerEsmHooks();
    else gate.asOwnLoaderThread(() => loadHooks().registerEsmHooks());
  } else {
    loadHooks().warnNoHooks('it has neither module.registerHooks() nor module.register()', true);
  }
}
