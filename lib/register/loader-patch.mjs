// Called from SDK ES modules that a register load hook has appended a line
// to (lib/register/esm-transform.cjs), as each finishes evaluating. The patcher and
// the native addon load here, on first use (lib/register/hooks.cjs).
// Node's built-ins are taken with process.getBuiltinModule(), not imported
// (see lib/register/install-hooks.mjs): this module loads in every process that loads the SDK.
const { fileURLToPath } = process.getBuiltinModule('node:url');
const { patchLoaded, patchStdioLoaded } = process.getBuiltinModule('node:module').createRequire(import.meta.url)('./hooks.cjs');

export function patchFromLoader(Protocol, url) {
  patchLoaded(Protocol, fileURLToPath(url));
}

export function patchStdioFromLoader(classes, url) {
  patchStdioLoaded(classes, fileURLToPath(url));
}
