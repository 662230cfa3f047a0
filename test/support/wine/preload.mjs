// Preloaded by scripts/test-windows.mjs into every test file's process
// (`--import`): under Wine, the test files' `node:test` is
// test/support/wine/node-test.mjs, which skips what test/support/wine/limits.mjs
// names. Anywhere else it does nothing.
import { register } from 'node:module';
import { underWine } from './limits.mjs';

if (underWine()) register(new URL('./hooks.mjs', import.meta.url));
