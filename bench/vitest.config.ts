import { defineConfig } from 'vitest/config';

/** The bench's own tests: without this file vitest would take the service's configuration. */
export default defineConfig({ test: { include: ['tests/**/*.test.ts'] } });
