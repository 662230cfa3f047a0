// The plugin from CommonJS (a webpack.config.cjs), by require().
import webpackPlugin = require('mcp-ordered-dispatch/webpack');
import type { Configuration } from 'webpack';

export const config: Configuration = { target: 'node', mode: 'production', plugins: [webpackPlugin({ platforms: ['linux-x64-gnu'] }), webpackPlugin.default()] };
