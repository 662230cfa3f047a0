// The bundler plugin through mcp-ordered-dispatch/rollup, /rolldown and /vite
// (Vite 8, on rolldown) building the 1.x and the 2.x client app of
// test/support/bundles.mjs, each output run alone (test/support/plugin-matrix.mjs:
// its directory copied into an empty temporary directory, no node_modules),
// against the coalescing server:
//   - built with the plugin: 0 lost, stderr empty, the addon beside the
//     output (rollup and rolldown: an asset; Vite: copied into its outDir,
//     an SSR build emitting no assets), no path of this repository in it;
//     the runtime is a virtual module handed the output's import.meta.url,
//     which rollup and rolldown rewrite for a CommonJS output;
//   - built without it: every progress notification lost, the app started.
// The matrix, one build per app and bundler (a rollup or Vite build takes
// 5-10 s here): rollup (one build per app, both formats written and run:
// CommonJS terser-minified for 1.x and plain for 2.x, ES module), rolldown (1.x CommonJS, 2.x ES module,
// minified, no banner), Vite SSR for Node (1.x ES module, 2.x CommonJS), and a
// Vite library build for Node writing both formats in one call (1.x, both run).
// Without the plugin: rolldown's, the control that the same outputs run alone
// lose progress (rollup's stock bundles: test/register/bundled.test.mjs).
import { pluginMatrixSuite } from '../support/plugin-matrix.mjs';

pluginMatrixSuite({
  withPlugin: [
    'sdk1 rollup cjs terser',
    'sdk1 rollup esm plain',
    'sdk2 rollup cjs plain',
    'sdk2 rollup esm plain',
    'sdk1 rolldown cjs minify',
    'sdk2 rolldown esm minify',
    'sdk1 vite esm build',
    'sdk2 vite cjs build',
    'sdk1 vite esm lib',
    'sdk1 vite cjs lib',
  ],
  withoutPlugin: ['sdk2 rolldown esm minify'],
});
