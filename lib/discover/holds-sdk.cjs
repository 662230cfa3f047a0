'use strict';
// Whether a program's text holds an SDK: it defines an SDK class (a
// Protocol or a stdio transport) by shape, behind the prefilter's markers.
// One test for a script's file (the per-child rule's SDK_SCRIPT) and a
// Bun-compiled executable's embedded modules (./bun-graph.cjs). Nothing is
// run; a read is bounded.

const fs = require('node:fs');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');

/** The largest script read: a bundle of a host is tens of MB. */
const MAX_SCRIPT_BYTES = 256 * 1024 * 1024;

/** Whether `text` (a string or a Buffer of UTF-8) defines an SDK class. */
function textHoldsSdk(text) {
  return mayDefineSdkClass(text) && (require('../shape/sdk-classes.cjs').sdkClassesIn(text) ?? []).length > 0;
}

/** Whether the script at `file` defines an SDK class in its own text (its imports are not followed); false when unreadable. */
function scriptHoldsSdk(file) {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile() || stat.size > MAX_SCRIPT_BYTES) return false;
    return textHoldsSdk(fs.readFileSync(file));
  } catch {
    return false;
  }
}

module.exports = { textHoldsSdk, scriptHoldsSdk };
