import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// The SDK from its TypeScript sources (its `source` export), as `pnpm start` runs it.
const SOURCES = {
  alias: [
    { find: /^@protection-service\/sdk$/, replacement: fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)) },
  ],
};

// A test that waits for background work polls for it (`expect.poll`), never sleeps a fixed
// time: it goes on as soon as the work is seen, and a busy machine only makes it wait longer.
// Vitest's default deadline (1 s) is a timing verdict on a loaded 2-core machine; a test whose
// deadline is a stated bound (D13's second, D29's 2 s) gives its own.
const POLL = { timeout: 30_000, interval: 50 };

/** What the server tests run with, in both of their projects. */
const SERVER = {
  setupFiles: ['sdk/test/harness/record-sdk-calls.ts'],
  // Browser steps on a loaded 2-core machine take up to about 30 s; a hang still fails in a minute.
  testTimeout: 60_000,
  hookTimeout: 120_000,
  expect: { poll: POLL },
};

/** Test files that replace a module of the service (`vi.mock`): each runs in a process of its own. */
export const MOCKING = ['server/test/versions/golden.test.ts'];

export default defineConfig({
  resolve: SOURCES,
  test: {
    // One PostgreSQL per run (server/test/harness), for every project; files run in parallel,
    // each in its own database.
    globalSetup: ['server/test/harness/global-setup.ts'],
    // Vitest's default is one worker fewer than the cores, which is one on a 2-core machine; the
    // tests mostly wait on PostgreSQL, Chromium and child servers, so every core gets a file.
    maxWorkers: Math.max(availableParallelism(), 2),
    projects: [
      {
        test: {
          name: 'contract',
          include: ['contract/test/**/*.test.ts', 'storefront/test/**/*.test.ts'],
          // Checks over every route of every dated version take seconds, more when the cores are busy.
          testTimeout: 60_000,
          expect: { poll: POLL },
        },
      },
      {
        resolve: SOURCES,
        test: {
          name: 'server',
          include: ['server/test/**/*.test.ts', 'sdk/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MOCKING],
          // The test files of a worker share its loaded modules: each file would otherwise load the
          // whole service again (2 to 4 s of CPU a file on a 2-core machine, a fifth of the run).
          // Each file starts its own server on its own database. A mock would reach the other
          // files of its worker, so the files that mock run apart (MOCKING).
          isolate: false,
          ...SERVER,
        },
      },
      { resolve: SOURCES, test: { name: 'server-mocking', include: MOCKING, ...SERVER } },
    ],
  },
});
