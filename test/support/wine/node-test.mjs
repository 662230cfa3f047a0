// `node:test` as the test files see it under Wine (test/support/wine/hooks.mjs):
// the same module, but a test that test/support/wine/limits.mjs names is
// skipped with `wine: <limit>` as its reason, which test:windows counts.
import * as real from 'node:test';
import { limitOf } from './limits.mjs';

export * from 'node:test';

const FILE = process.argv[1];

function withLimit(fn) {
  const wrapped = (name, options, body) => {
    if (typeof options === 'function') [options, body] = [{}, options];
    const limit = typeof name === 'string' ? limitOf(FILE, name) : undefined;
    return limit ? fn(name, { ...options, skip: `wine: ${limit.limit}` }, body) : fn(name, options, body);
  };
  return Object.assign(wrapped, fn);
}

export const test = withLimit(real.test);
export const it = withLimit(real.it);
export const describe = withLimit(real.describe);
export const suite = withLimit(real.suite);
export default test;
