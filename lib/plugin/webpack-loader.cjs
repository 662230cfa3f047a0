'use strict';
// The bundler plugin's loader in webpack and rspack with an 'eval' devtool
// (lib/plugin/webpack-eval.cjs puts it first, for every script; other builds
// have their outputs patched instead: lib/plugin/webpack-outputs.cjs): the
// first test runs on the module's bytes as webpack read them, undecoded and
// synchronously; only a module holding an SDK class's marker names is
// decoded and handed to the plugin's transform, whose source map it passes on.
const { loaderHook } = require('./webpack-eval.cjs');

function mcpOrderedDispatchLoader(source, map) {
  const hook = loaderHook(this.getOptions().id);
  if (hook === undefined || !hook.may(source)) return this.callback(null, source, map);
  const context = { warn: (text) => this.emitWarning(new Error(text)) };
  // A build without source maps (webpack's `devtool` unset, as in production) gets none made.
  const withMap = this.sourceMap !== false;
  const out = hook.transform(context, Buffer.isBuffer(source) ? source.toString('utf8') : String(source), this.resourcePath, withMap);
  if (out === null) return this.callback(null, source, map);
  return this.callback(null, out.code, withMap ? hook.chain(out.map, map) : undefined);
}

module.exports = mcpOrderedDispatchLoader;
module.exports.raw = true;
