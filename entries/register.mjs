// `node --import mcp-ordered-dispatch/register app.mjs` (or a test runner's setup file).
import { installHooks, VITEST_WORKER } from '../lib/register/install-hooks.mjs';

if (globalThis[VITEST_WORKER] === undefined) {
  // Node's own loader: the load-time hooks go in, nothing else loads.
  installHooks();
} else {
  // Vitest runs this file through its module runner: register.cjs decides
  // (lib/register/sandboxed.cjs). In its vm pools, register.cjs exports a function
  // that patches the SDK copies loaded through this import().
  const { default: patchNow } = await import('./register.cjs');
  if (typeof patchNow === 'function') await patchNow((file) => import(file));
}
