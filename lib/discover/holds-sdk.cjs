'use strict';
// Whether a program's text holds an SDK: it defines an SDK class (a
// Protocol or a stdio transport) by shape, behind the prefilter's markers.
// One test for a program's files (./program.cjs) and a Bun-compiled
// executable's embedded modules (./bun-graph.cjs). Nothing is run.

const { mayDefineSdkClass } = require('../adapters/modules.cjs');

/** Whether `text` (a string or a Buffer of UTF-8) defines an SDK class. */
function textHoldsSdk(text) {
  return mayDefineSdkClass(text) && (require('../shape/sdk-classes.cjs').sdkClassesIn(text) ?? []).length > 0;
}

module.exports = { textHoldsSdk };
