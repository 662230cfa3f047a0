// A setup file that loads register with require() (not the documented
// setup line): under the vmThreads/vmForks pools this cannot patch anything,
// and register says so (test/register/runners.test.mjs).
require('mcp-ordered-dispatch/register');
