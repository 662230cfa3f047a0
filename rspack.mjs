// `mcp-ordered-dispatch/rspack` for ES module importers: the same factory as rspack.cjs.
import mcpOrderedDispatch from './rspack.cjs';

export default mcpOrderedDispatch;
