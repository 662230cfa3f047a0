import { defineConfig } from 'vitest/config';

export default defineConfig({
  cacheDir: process.env.RECORD_REPLAY_CACHE,
  test: {
    setupFiles: ['mcp-ordered-dispatch/register'],
  },
});
