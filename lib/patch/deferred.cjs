'use strict';
// The patch of an SDK class deferred to its first use (register's class
// receiver, lib/patch/receiver.cjs): as the class is defined, only its entry
// methods are replaced, by trampolines that keep each method's name and
// length; the first call of any of them (Protocol's constructor calls
// setNotificationHandler(), so the first Client or Server constructed; a
// connect(); a stdio transport's start()) patches the class, loading the
// patcher and the addon then, and goes on as the patched class would, before
// any message. A process that imports the SDK and never uses it loads
// neither (docs/performance.md).
//
// Where a host wrapped a trampoline after the definition, its wrapper stays
// in place: the trampoline under it goes on into the patched method, as a
// wrapper of the patched method would have. Anything that asks whether a
// class is patched, or patches or unpatches it (lib/patch/records.cjs's
// patchRecordOf()), fires the deferred patch first, so it sees the class as
// it would have been without the deferral.
// Dependency-free: it is loaded as each SDK class is defined.

const kDeferred = Symbol.for('mcp-ordered-dispatch.deferred');

/**
 * Defer `patch()` (which patches the class whose prototype is `proto`, or
 * leaves it stock with its warning) to the first call of any of `names`
 * (the methods of `proto`'s own that a use of the class calls first). Once
 * per prototype; returns whether the patch is deferred (false where no such
 * method could be replaced: the caller patches now).
 */
function deferPatch(proto, names, patch) {
  if (Object.hasOwn(proto, kDeferred)) return true;
  const slots = new Map();
  for (const name of names) {
    const own = Object.getOwnPropertyDescriptor(proto, name);
    if (own === undefined || typeof own.value !== 'function' || !own.writable || !own.configurable) continue;
    const trampoline = {
      [name](...args) {
        fire();
        return Reflect.apply(slots.get(name).then, this, args);
      },
    }[name];
    Object.defineProperty(trampoline, 'name', { value: own.value.name });
    Object.defineProperty(trampoline, 'length', { value: own.value.length });
    slots.set(name, { own, trampoline, then: own.value });
  }
  if (slots.size === 0) return false;
  let fired = false;
  function fire() {
    if (fired) return;
    fired = true;
    delete proto[kDeferred];
    // The class as it was defined, for the patch to read; what a host put over a trampoline, put back after.
    const hosts = new Map();
    for (const [name, { own, trampoline }] of slots) {
      const now = Object.getOwnPropertyDescriptor(proto, name);
      if (now?.value !== trampoline) hosts.set(name, now);
      Object.defineProperty(proto, name, own);
    }
    try {
      patch();
    } catch {
      // Never into the application's call (as a class receiver's block never throws into a class definition):
      // the class stays stock; what patch() knows to warn of, it has warned.
    } finally {
      for (const [name, slot] of slots) slot.then = proto[name];
      for (const [name, now] of hosts) {
        if (now === undefined) delete proto[name];
        else Object.defineProperty(proto, name, now);
      }
    }
  }
  for (const [name, { own, trampoline }] of slots) Object.defineProperty(proto, name, { ...own, value: trampoline });
  Object.defineProperty(proto, kDeferred, { value: fire, configurable: true, enumerable: false, writable: false });
  return true;
}

/** Patch `Class` now where its patch is deferred (a question about it, or a patch or unpatch of it, comes first). */
function patchDeferred(Class) {
  const proto = Class?.prototype;
  if (proto !== null && typeof proto === 'object' && Object.hasOwn(proto, kDeferred)) proto[kDeferred]();
}

/** Whether `Class`'s patch is deferred (not fired yet). */
function isDeferred(Class) {
  const proto = Class?.prototype;
  return proto !== null && typeof proto === 'object' && Object.hasOwn(proto, kDeferred);
}

module.exports = { deferPatch, patchDeferred, isDeferred };
