// Called from SDK modules that the register hook has appended a line to.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { patchLoaded } = require('./hooks.cjs');
const { patchStdioExports } = require('./stdio.cjs');

export function patchFromLoader(Protocol, url) {
  patchLoaded(Protocol, fileURLToPath(url));
}

export function patchStdioFromLoader(classes, url) {
  patchStdioExports(classes, fileURLToPath(url));
}
