import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The browser tests: one built SPA and one real server for the whole run (support/global-setup.ts); files run one
// after the other because each drives its own Chromium and the machine has two cores.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['e2e/tests/**/*.test.ts'],
    globalSetup: ['e2e/support/global-setup.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 60_000,
    // Global setup builds the SPA (tens of seconds) before any test file starts.
    hookTimeout: 180_000,
    // Screens load data and language chunks: web-first assertions (expect.poll) wait up to 10 s.
    expect: { poll: { timeout: 10_000 } },
  },
});
