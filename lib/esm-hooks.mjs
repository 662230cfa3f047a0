// module.register() hooks (they run on the loader thread). When an MCP SDK
// ES module that defines `Protocol` loads, append a call that patches it on
// the main thread as the module finishes evaluating.
let patchUrl;

export function initialize(data) {
  patchUrl = data.patchUrl;
}

const MARKER = '__mcpOrderedDispatchPatch';
const DEFINES_PROTOCOL = /(?:^|\n)(?:export class Protocol\b|var Protocol = class\b|class Protocol\b)/;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (result.format !== 'module' || !url.includes('/@modelcontextprotocol/') || result.source == null) return result;
  const source = typeof result.source === 'string' ? result.source : Buffer.from(result.source).toString('utf8');
  // Node 20 also runs --require preloads on the loader thread, so this hook
  // can be registered twice: append once.
  if (!DEFINES_PROTOCOL.test(source) || source.includes(MARKER)) return result;
  return {
    ...result,
    source: `${source}\n;import { patchFromLoader as ${MARKER} } from ${JSON.stringify(patchUrl)};\n${MARKER}(Protocol, import.meta.url);\n`,
  };
}
