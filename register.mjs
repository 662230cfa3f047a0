// `node --import mcp-ordered-dispatch/register app.mjs` (or a test runner's setup file).
import './register.cjs';
