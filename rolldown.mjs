// `mcp-ordered-dispatch/rolldown` for ES module importers: the same factory as rolldown.cjs.
import mcpOrderedDispatch from './rolldown.cjs';

export default mcpOrderedDispatch;
