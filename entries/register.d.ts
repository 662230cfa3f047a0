// `mcp-ordered-dispatch/register` is a side-effect entry: importing it patches
// every MCP SDK copy the application loads. It exports nothing.
export {};
