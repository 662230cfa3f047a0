// Called from SDK ES modules that a register load hook has appended a line
// to (lib/esm-transform.cjs), as each finishes evaluating. The patcher and
// the native addon load here, on first use (lib/hooks.cjs).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { patchLoaded, patchStdioLoaded } = require('./hooks.cjs');

export function patchFromLoader(Protocol, url) {
  patchLoaded(Protocol, fileURLToPath(url));
}

export function patchStdioFromLoader(classes, url) {
  patchStdioLoaded(classes, fileURLToPath(url));
}
