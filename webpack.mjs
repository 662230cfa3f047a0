// `mcp-ordered-dispatch/webpack` for ES module importers: the same factory as webpack.cjs.
import mcpOrderedDispatch from './webpack.cjs';

export default mcpOrderedDispatch;
