'use strict';
// Every name this package writes into users' code: its own name, the globals (and the
// import binding) that the code it inserts into modules calls. Declared
// here once; each writer and each reader takes the name from here. And the
// definition of the class receiver's global, which a bundle built with the
// plugin carries: this file is all of lib/shape/ it needs.

/**
 * Define `globalThis[name]`, the function the inserted blocks call, as a call
 * of `receive(kind, generation, file, Class)` (once: a global already defined
 * is kept; an error never reaches the class definition).
 */
function defineClassReceiver(name, receive) {
  if (Object.hasOwn(globalThis, name)) return;
  Object.defineProperty(globalThis, name, {
    value: function mcpOrderedDispatchClassReceiver(kind, generation, file, Class) {
      try {
        receive(kind, generation, file, Class);
      } catch {
        // Never into the application's class definition.
      }
    },
    configurable: true,
    writable: false,
    enumerable: false,
  });
}

module.exports = {
  defineClassReceiver,
  /** This package's name: what users' code and builds import, and the prefix of its messages, ids and namespaces. */
  PACKAGE_NAME: 'mcp-ordered-dispatch',
  /**
   * What the static blocks a bundler plugin inserts at build time call: its
   * name in a module's text marks SDK classes patched at build time, which
   * register and install() leave alone and doctor reports as such
   * (lib/shape/rewrite.cjs, lib/plugin/).
   */
  BUILT_GLOBAL: '__mcpOrderedDispatchBuilt',
  /** What the static blocks register inserts at load time call (lib/register/hooks.cjs). */
  RECEIVER_GLOBAL: '__mcpOrderedDispatchClassDefined',
  /** The binding of the patch call appended to an SDK ES module (lib/register/esm-transform.cjs); `${PATCH_BINDING}Stdio` too. */
  PATCH_BINDING: '__mcpOrderedDispatchPatch',
  /** What a module redirected inside a Bun-compiled executable calls first: its import.meta set right (lib/register/bun-embedded.cjs). */
  META_GLOBAL: '__mcpOrderedDispatchMeta',
  /** The binding of the plugin's runtime that a module changed at build time imports and calls first (lib/plugin/index.cjs). */
  START_BINDING: '__mcpOrderedDispatchStart',
  /** What a CommonJS chunk redirected there calls to run its body (lib/register/bun-embedded.cjs). */
  CJS_GLOBAL: '__mcpOrderedDispatchCjs',
  /** What the module a chunk is redirected to in a Bun-compiled executable calls with the chunk's SDK classes, reached through its exports (lib/register/bun-embedded.cjs). */
  EXPORTS_GLOBAL: '__mcpOrderedDispatchExports',
};
