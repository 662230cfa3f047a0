// Module hooks (test/support/wine/preload.mjs): `node:test` imported by a test
// file resolves to test/support/wine/node-test.mjs; that file's own import of
// it, and everything else, resolves as usual.
const WRAPPER = new URL('./node-test.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'node:test' || specifier === 'test') && context.parentURL !== WRAPPER && !context.parentURL?.includes('/node_modules/')) {
    return { url: WRAPPER, shortCircuit: true };
  }
  return next(specifier, context);
}
