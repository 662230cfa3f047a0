// The fixture under Vitest's vmThreads pool, with the same setup line.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'vmThreads',
    setupFiles: ['mcp-ordered-dispatch/register'],
  },
});
