// `node --import mcp-ordered-dispatch/register app.mjs` (or a test runner's setup file).
import patchNow from './register.cjs';

// Vitest's vm pools: register.cjs exports a function that patches the SDK
// copies loaded through this import() (lib/sandboxed.cjs). Elsewhere it
// exports nothing to call.
if (typeof patchNow === 'function') await patchNow((file) => import(file));
