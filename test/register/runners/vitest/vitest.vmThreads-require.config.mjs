// vmThreads with register loaded by require() from a CommonJS setup file:
// refused with a warning naming the supported setups.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'vmThreads',
    setupFiles: ['./require-setup.cjs'],
  },
});
