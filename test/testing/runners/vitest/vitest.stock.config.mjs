import { defineConfig } from 'vitest/config';

// The same test, stock SDK: no setup file.
export default defineConfig({
  cacheDir: process.env.RECORD_REPLAY_CACHE,
  test: {},
});
