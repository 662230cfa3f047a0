// The bundler plugin's options (lib/plugin/options.cjs), checked once as the
// plugin is made: each option's accepted values and default, and a wrong
// value a TypeError naming the option and what it takes, thrown by every
// entry when the plugin is created (also webpack's and rspack's, whose
// unplugin adapter calls the factory only when the bundler applies it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { PLUGIN_DEFAULTS, resolvePluginOptions } = require('../../lib/plugin/options.cjs');
const platform = require('../../lib/native/platform.cjs');

const BUNDLERS = ['esbuild', 'rollup', 'rolldown', 'vite', 'webpack', 'rspack', 'bun'];

test('left out, every option takes its default: this machine\'s platform, framing on', () => {
  assert.ok(Object.isFrozen(PLUGIN_DEFAULTS));
  for (const options of [undefined, {}]) {
    const resolved = resolvePluginOptions(options);
    assert.deepEqual(resolved, { platforms: [platform.platformArchABI()], framing: true });
    assert.ok(Object.isFrozen(resolved));
  }
});

test('resolved once: resolving the resolved options hands them back as they are', () => {
  const resolved = resolvePluginOptions({ platforms: 'all', framing: false });
  assert.equal(resolvePluginOptions(resolved), resolved);
});

test("platforms: 'all' (every release target) or an array of platform names (each once); anything else a TypeError naming the option", () => {
  assert.deepEqual(resolvePluginOptions({ platforms: 'all' }).platforms, platform.targets().map(platform.tripleToAbi));
  assert.deepEqual(resolvePluginOptions({ platforms: ['linux-x64-gnu', 'darwin-arm64', 'linux-x64-gnu'] }).platforms, ['linux-x64-gnu', 'darwin-arm64']);
  assert.deepEqual(resolvePluginOptions({ platforms: [] }).platforms, []);
  for (const platforms of ['linux-x64-gnu', ['linux-x64-gnu', 1], null, {}, true]) {
    assert.throws(() => resolvePluginOptions({ platforms }), { name: 'TypeError', message: /the platforms option is 'all' or an array of platform names/ }, JSON.stringify(platforms));
  }
});

test('framing: true or false; anything else a TypeError naming the option and both values', () => {
  assert.equal(resolvePluginOptions({ framing: true }).framing, true);
  assert.equal(resolvePluginOptions({ framing: false }).framing, false);
  for (const framing of ['off', 'false', 0, 1, null, {}, 1n]) {
    assert.throws(() => resolvePluginOptions({ framing }), { name: 'TypeError', message: /the framing option is true or false \(default true\), got / }, String(framing));
  }
});

test('the options themselves: an object (or left out); anything else a TypeError', () => {
  for (const options of [null, 'all', 3]) {
    assert.throws(() => resolvePluginOptions(options), { name: 'TypeError', message: /the plugin's options are an object/ }, String(options));
  }
});

test('every entry checks its options as the plugin is made', () => {
  for (const bundler of BUNDLERS) {
    const mcpOrderedDispatch = require(`mcp-ordered-dispatch/${bundler}`);
    assert.throws(() => mcpOrderedDispatch({ framing: 'off' }), { name: 'TypeError', message: /the framing option/ }, bundler);
    assert.throws(() => mcpOrderedDispatch({ platforms: 'linux-x64-gnu' }), { name: 'TypeError', message: /the platforms option/ }, bundler);
  }
});
