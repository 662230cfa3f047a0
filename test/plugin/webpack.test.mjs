// The bundler plugin through mcp-ordered-dispatch/webpack and /rspack
// building the 1.x and the 2.x client app of test/support/bundles.mjs, each
// output run alone (test/support/plugin-matrix.mjs: its directory copied into
// an empty temporary directory, no node_modules), against the coalescing server:
//   - webpack production (minified by terser), CommonJS and ES module (the
//     outputs patched after the minimizer: lib/plugin/webpack-outputs.cjs),
//     and development with devtool 'eval' (each module's code inside an eval
//     string: the plugin's transform runs as a loader, before webpack wraps
//     the module); rspack the same (production CommonJS and ES module,
//     development 'eval'): 0 lost, stderr empty, the addon emitted as
//     an asset beside the bundle, no webpack or rspack warning, no path of
//     this repository in the output (webpack's stable id resolved by an alias
//     to lib/plugin/webpack-start.cjs, whose __filename webpack makes the
//     output file's);
//   - built without the plugin: every progress notification lost, the app started.
// The matrix, bounded to about two minutes on two cores (a webpack build
// takes 6-12 s here): webpack 1.x production CommonJS and development
// 'eval', 2.x production ES module; rspack 1.x ES module and development
// 'eval', 2.x CommonJS.
// Without the plugin: rspack's 2.x CommonJS, the control that the same outputs
// run alone lose progress (webpack's stock bundles: test/register/bundled.test.mjs).
import { pluginMatrixSuite } from '../support/plugin-matrix.mjs';

pluginMatrixSuite({
  withPlugin: [
    'sdk1 webpack cjs production-terser',
    'sdk1 webpack cjs development-eval',
    'sdk2 webpack esm production-terser',
    'sdk1 rspack esm production',
    'sdk1 rspack cjs development-eval',
    'sdk2 rspack cjs production',
  ],
  withoutPlugin: ['sdk2 rspack cjs production'],
});
