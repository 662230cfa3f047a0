// A setup file that loads register with require() (not the documented
// setup line): in Jest's ESM mode it cannot patch the ES module builds the
// test imports, and register says so (test/register/runners.test.mjs).
require('mcp-ordered-dispatch/register');
