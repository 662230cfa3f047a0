'use strict';
// The SDK's classes by their shape, for finding copies that bundlers and
// minifiers have renamed (`var Ao=class{`, `class el{`): which members make
// a class body the SDK's Protocol (and which generation) or a stdio
// transport. Bundlers rename classes, locals and helpers, never these
// property names. (Which names a module must hold to be looked at at all,
// the prefilter every module takes, is lib/adapters/modules.cjs's.)
// A leaf: requires nothing. Loaded only for a module that passed the prefilter.

/** The methods a Protocol class body defines, and the field it sets (constructor, class field, or a define helper's call). */
const PROTOCOL_METHODS = ['_onnotification', '_onresponse', '_onrequest'];
const PROTOCOL_SETS = ['_progressHandlers'];
/** Members only the 2.x Protocol defines. */
const V2_ONLY_METHODS = ['_negotiatedWireCodec'];

/** The methods a stdio transport class body defines, and the field it sets. */
const STDIO_METHODS = ['start', 'close', 'send', 'processReadBuffer'];
const STDIO_SETS = ['_readBuffer'];

/** The member sets that make a class body one of the SDK's: a class with none of them all is no SDK class (the native locate step's filter). */
const CLASS_SHAPES = [
  { methods: PROTOCOL_METHODS, sets: PROTOCOL_SETS },
  { methods: STDIO_METHODS, sets: STDIO_SETS },
];

/**
 * What a class body (without `extends`) is, by the members the locate step
 * found in it ({ methods: Set, sets: Set }): { kind: 'protocol', generation }
 * or { kind: 'stdio' }, or undefined for any other class.
 */
function classOfMembers({ methods, sets }) {
  const has = (names, set) => names.every((name) => set.has(name));
  if (has(PROTOCOL_METHODS, methods) && has(PROTOCOL_SETS, sets)) {
    return { kind: 'protocol', generation: has(V2_ONLY_METHODS, methods) ? 2 : 1 };
  }
  if (has(STDIO_METHODS, methods) && has(STDIO_SETS, sets)) return { kind: 'stdio' };
  return undefined;
}

module.exports = {
  CLASS_SHAPES,
  classOfMembers,
};
