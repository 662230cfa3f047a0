// ESM entry: the same module instance as the CommonJS one, so state (what is
// patched) is shared whichever way the package is loaded. Node finds the
// names index.cjs exports (its `module.exports = { ... }`); index.d.ts
// declares them, and test/package/types.test.mjs checks both entries against it.
export * from './index.cjs';
export { default } from './index.cjs';
