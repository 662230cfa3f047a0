// `mcp-ordered-dispatch/bun` for ES module importers: the same factory as bun.cjs.
import mcpOrderedDispatch from './bun.cjs';

export default mcpOrderedDispatch;
