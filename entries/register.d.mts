// Generated from register.d.ts by scripts/types.cjs (npm run types): do not edit.
// `mcp-ordered-dispatch/register` is a side-effect entry: importing it patches
// every MCP SDK copy the application loads. It exports nothing.
export {};
