// `mcp-ordered-dispatch/rollup` for ES module importers: the same factory as rollup.cjs.
import mcpOrderedDispatch from './rollup.cjs';

export default mcpOrderedDispatch;
