// The fixture under Vitest's vmForks pool, with the same setup line.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'vmForks',
    setupFiles: ['mcp-ordered-dispatch/register'],
  },
});
