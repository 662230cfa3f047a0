'use strict';
// Stand-ins for the addon's classes and functions in the public entry
// points: `import { Dispatcher } from 'mcp-ordered-dispatch'` must not load
// the addon; the first use does.

const { load } = require('./addon.cjs');

/**
 * A stand-in for the addon's class or function `name` that loads the addon
 * when first used (called, constructed, or a property read). `instanceof`
 * and static/prototype access reach the real one: `real()` (default: the
 * addon's own export `name`).
 */
function lazyBinding(name, real = () => load()[name]) {
  // eslint-disable-next-line func-names
  const target = function () {};
  Object.defineProperty(target, 'name', { value: name });
  const proxy = new Proxy(target, {
    apply: (_t, thisArg, args) => Reflect.apply(real(), thisArg, args),
    construct: (_t, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    get: (_t, key) => {
      const fn = real();
      return Reflect.get(fn, key, fn);
    },
    set: (_t, key, value) => Reflect.set(real(), key, value),
    has: (_t, key) => Reflect.has(real(), key),
  });
  return proxy;
}

module.exports = { lazyBinding };
