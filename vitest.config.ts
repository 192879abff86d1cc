import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One PostgreSQL per run (server/test/harness); files run in parallel, each in its own database.
    projects: [
      {
        test: {
          name: 'contract',
          include: ['contract/test/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'server',
          include: ['server/test/**/*.test.ts', 'sdk/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
          globalSetup: ['server/test/harness/global-setup.ts'],
          setupFiles: ['sdk/test/harness/record-sdk-calls.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
