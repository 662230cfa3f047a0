// The bundler plugin for webpack (mcp-ordered-dispatch/webpack) building the
// 1.x and the 2.x client app of test/support/bundles.mjs, each output run
// alone (test/support/plugin-matrix.mjs: its directory copied into an empty
// temporary directory, no node_modules), against the coalescing server:
//   - production (minified by webpack's terser) and development with devtool
//     'eval' (each module's code inside an eval string: the plugin's
//     transform runs as a loader, before webpack wraps the module): 0 lost,
//     stderr empty, the addon emitted as an asset beside the bundle, and no
//     webpack warning;
//   - built without the plugin (development 'eval'): every progress
//     notification lost.
// The matrix, bounded to about two minutes on two cores (a webpack build
// takes 6-12 s here): 1.x production CommonJS and development 'eval'; 2.x
// production ES module. test/register/bundled.test.mjs runs the other stock
// webpack bundles.
import { pluginMatrixSuite } from '../support/plugin-matrix.mjs';

pluginMatrixSuite({
  withPlugin: ['sdk1 webpack cjs production-terser', 'sdk1 webpack cjs development-eval', 'sdk2 webpack esm production-terser'],
  withoutPlugin: ['sdk1 webpack cjs development-eval'],
});
