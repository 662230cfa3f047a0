// module.register() hooks, used only where Node has no module.registerHooks()
// (Node 20.19-22.14; see lib/register/hooks.cjs). They run on the loader thread: when
// an MCP SDK ES module that defines `Protocol` or a stdio transport loads,
// append a call that patches it on the main thread as the module finishes
// evaluating (lib/register/esm-transform.cjs).
//
// The CommonJS files it needs are required, not imported: an `import` of a
// CommonJS file makes Node parse it for its export names first (its
// cjs-module-lexer), which every process with this thread would pay for.
// They load with the first module that loads (a process that loads none
// loads none of them).
const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);
let transform;
let rewrite;

let patchUrl;
let framing = true;
let rewriteOptions;

export function initialize(data) {
  patchUrl = data.patchUrl;
  framing = data.framing !== false;
  // What lib/register/hooks.cjs asks of lib/shape/rewrite.cjs on the main thread (its REWRITE_OPTIONS), asked here alike.
  rewriteOptions = data.rewriteOptions;
  // The main thread checks that the hooks went in (lib/register/hooks.cjs's registerEsmHooks).
  data.port?.postMessage('ready');
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (result.format !== 'module' || result.source == null) return result;
  // Node 20 also runs --require preloads on the loader thread, so this hook
  // can be registered twice: the call is appended once.
  transform ??= require('./esm-transform.cjs');
  rewrite ??= require('../shape/rewrite.cjs');
  let source = transform.patchedSdkSource(url, result.source, patchUrl, framing);
  // SDK copies bundled into any ES module (CommonJS ones go through
  // lib/register/hooks.cjs's Module.prototype._compile wrapper).
  if (source === undefined && rewriteOptions !== undefined) source = rewrite.rewriteSdkClasses(result.source, url, 'module', rewriteOptions);
  return source === undefined ? result : { ...result, source };
}
