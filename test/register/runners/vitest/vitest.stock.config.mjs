// The same fixture WITHOUT the setup file (test/register/runners.test.mjs checks that
// its test then fails, so that the setup line is what makes it pass).
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: {} });
