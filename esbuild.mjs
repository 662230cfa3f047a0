// `mcp-ordered-dispatch/esbuild` for ES module importers: the same factory as esbuild.cjs.
import mcpOrderedDispatch from './esbuild.cjs';

export default mcpOrderedDispatch;
