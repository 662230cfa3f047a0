// ESM entry of `mcp-ordered-dispatch/testing`: the same module instance as the CommonJS one.
import cjs from './testing.cjs';

export const {
  rawServerCommand,
  startRawServer,
  RAW_SERVER_PATH,
  RAW_SERVER_MODES,
  FABRICATED_TOKEN,
  UNKNOWN_PROGRESS_TOKEN,
  tapWire,
} = cjs;
export default cjs;
