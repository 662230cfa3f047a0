// ESM entry: the same module instance as the CommonJS one, so state (what is
// patched) is shared whichever way the package is loaded.
import cjs from './index.cjs';

export const {
  install,
  patchProtocol,
  isPatched,
  configure,
  dispatchStats,
  dispatcherOf,
  patchStdioTransport,
  isStdioPatched,
  NativeReadBuffer,
  StdioFramingError,
  Dispatcher,
  ProgressTokens,
  classify,
  UnsupportedSdkError,
  NativeAddonError,
} = cjs;
export default cjs;
