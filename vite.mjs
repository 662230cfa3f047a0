// `mcp-ordered-dispatch/vite` for ES module importers: the same factory as vite.cjs.
import mcpOrderedDispatch from './vite.cjs';

export default mcpOrderedDispatch;
