// The bundler plugin's entries as a build config uses them, each checked
// against that bundler's own plugin type (compiled by test/package/types.test.mjs).
import * as esbuild from 'esbuild';
import { rollup, type Plugin as RollupPlugin } from 'rollup';
import type { Plugin as VitePlugin, UserConfig } from 'vite';
import type { Configuration } from 'webpack';
import esbuildPlugin from 'mcp-ordered-dispatch/esbuild';
import rollupPlugin from 'mcp-ordered-dispatch/rollup';
import vitePlugin from 'mcp-ordered-dispatch/vite';
import webpackPlugin from 'mcp-ordered-dispatch/webpack';
import bunPlugin, { type McpOrderedDispatchPluginOptions } from 'mcp-ordered-dispatch/bun';

const options: McpOrderedDispatchPluginOptions = { platforms: ['linux-x64-gnu', 'darwin-arm64'], framing: true };

export async function builds(): Promise<void> {
  await esbuild.build({ entryPoints: ['app.ts'], bundle: true, platform: 'node', plugins: [esbuildPlugin(options)] });
  const fromRollup: RollupPlugin = rollupPlugin({ platforms: 'all' });
  await rollup({ input: 'app.js', plugins: [fromRollup] });
  const fromVite: VitePlugin = vitePlugin();
  const vite: UserConfig = { plugins: [fromVite] };
  const webpack: Configuration = { target: 'node', plugins: [webpackPlugin()] };
  const bun: { name: string } = bunPlugin();
  void [vite, webpack, bun];
}
