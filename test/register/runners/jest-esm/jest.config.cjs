/** @type {import('jest').Config} */
// Jest's ESM mode (node --experimental-vm-modules node_modules/jest/bin/jest.js):
// the same setup line as in CommonJS mode.
module.exports = {
  testEnvironment: 'node',
  setupFiles: ['mcp-ordered-dispatch/register'],
  testMatch: ['**/*.test.mjs'],
  transform: {},
};
