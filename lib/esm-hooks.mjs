// module.register() hooks (they run on the loader thread). When an MCP SDK
// ES module that defines `Protocol` loads, append a call that patches it on
// the main thread as the module finishes evaluating.
import { stdioClassesDefinedIn } from './stdio-detect.cjs';

let patchUrl;
let framing = true;

export function initialize(data) {
  patchUrl = data.patchUrl;
  framing = data.framing !== false;
}

const MARKER = '__mcpOrderedDispatchPatch';
const DEFINES_PROTOCOL = /(?:^|\n)(?:export class Protocol\b|var Protocol = class\b|class Protocol\b)/;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (result.format !== 'module' || !url.includes('/@modelcontextprotocol/') || result.source == null) return result;
  const source = typeof result.source === 'string' ? result.source : Buffer.from(result.source).toString('utf8');
  // Node 20 also runs --require preloads on the loader thread, so this hook
  // can be registered twice: append once.
  if (source.includes(MARKER)) return result;
  const protocol = DEFINES_PROTOCOL.test(source);
  const transports = framing ? stdioClassesDefinedIn(source) : [];
  if (!protocol && transports.length === 0) return result;
  let tail = `\n;import { patchFromLoader as ${MARKER}, patchStdioFromLoader as ${MARKER}Stdio } from ${JSON.stringify(patchUrl)};\n`;
  if (protocol) tail += `${MARKER}(Protocol, import.meta.url);\n`;
  if (transports.length > 0) tail += `${MARKER}Stdio({ ${transports.join(', ')} }, import.meta.url);\n`;
  return { ...result, source: source + tail };
}
