// module.register() hooks, used only where Node has no module.registerHooks()
// (Node 20.19-22.14; see lib/register/hooks.cjs). They run on the loader thread: when
// an MCP SDK ES module that defines `Protocol` or a stdio transport loads,
// append a call that patches it on the main thread as the module finishes
// evaluating (lib/register/esm-transform.cjs).
import transform from './esm-transform.cjs';
import modules from '../adapters/modules.cjs';

const { patchedSdkSource } = transform;

let patchUrl;
let framing = true;
let reachGlobal;
let reach;
// This package's own lib/ (its files name the markers, and define no SDK class).
const OWN_LIB_URL = new URL('..', import.meta.url).href;

export function initialize(data) {
  patchUrl = data.patchUrl;
  framing = data.framing !== false;
  reachGlobal = data.reachGlobal;
}

// SDK copies bundled into any ES module (lib/register/reach.cjs; CommonJS
// ones go through lib/register/hooks.cjs's Module.prototype._compile wrapper).
// Any failure leaves the module as it was.
async function reached(url, source) {
  try {
    if (url.includes(modules.SDK_URL_SEGMENT) || !modules.mayDefineSdkClass(source, framing) || url.startsWith(OWN_LIB_URL)) return undefined;
    if (typeof source !== 'string') source = Buffer.from(ArrayBuffer.isView(source) ? source.buffer : source, source.byteOffset ?? 0, source.byteLength).toString('utf8');
    if (source.indexOf(reachGlobal) >= 0) return undefined;
    reach ??= (await import('./reach.cjs')).default;
    return reach.reachSource(source, url, 'module', reachGlobal);
  } catch {
    return undefined;
  }
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (result.format !== 'module' || result.source == null) return result;
  // Node 20 also runs --require preloads on the loader thread, so this hook
  // can be registered twice: the call is appended once.
  let source = url.includes('/node_modules/') ? patchedSdkSource(url, result.source, patchUrl, framing) : undefined;
  if (source === undefined && reachGlobal !== undefined) source = await reached(url, result.source);
  return source === undefined ? result : { ...result, source };
}
