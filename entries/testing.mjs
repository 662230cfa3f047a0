// ESM entry of `mcp-ordered-dispatch/testing`: the same module instance as the
// CommonJS one, whose names Node finds (lib/testing/index.cjs's
// `module.exports = { ... }`); test/package/types.test.mjs checks them against testing.d.ts.
export * from './testing.cjs';
export { default } from './testing.cjs';
