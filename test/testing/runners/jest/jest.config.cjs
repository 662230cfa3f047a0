/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  setupFiles: ['mcp-ordered-dispatch/register'],
  transform: {},
};
